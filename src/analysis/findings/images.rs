//! The images a README shows (markdown images and raw `<img>` tags) that
//! the portal cannot embed: a file of the repository whose header does not
//! read as an image, or that is over [`MAX_IMAGE_BYTES`]. The page links
//! such a file instead of showing it (`site::images`).

use crate::finding::Finding;
use crate::kep::Kep;
use crate::model::Model;
use crate::repo::image::{self, ImageProbe, MAX_IMAGE_BYTES};

/// An image of a README that names a file of the repository.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageRef {
    /// 1-based line of the README.
    pub line: usize,
    /// The repository path it names.
    pub path: String,
}

/// The images `kep`'s README shows that name a file under `keps/`, in order.
pub fn image_refs(kep: &Kep) -> Vec<ImageRef> {
    let Some(readme) = kep.readme_path.as_deref() else {
        return Vec::new();
    };
    let dir = readme.rsplit_once('/').map_or("", |(d, _)| d);
    let doc = kep.doc();
    let mut found: Vec<(usize, String)> = doc
        .links
        .iter()
        .filter(|l| l.image)
        .map(|l| (l.line, l.dest.clone()))
        .collect();
    for range in &doc.html {
        let html = &doc.text[range.clone()];
        let sources = img_sources(html);
        if sources.is_empty() {
            // most raw HTML is not an image: its line is not counted
            continue;
        }
        let line = 1 + doc.text[..range.start].matches('\n').count();
        for (at, src) in sources {
            found.push((line + html[..at].matches('\n').count(), src));
        }
    }
    found.sort();
    found
        .into_iter()
        .filter_map(|(line, dest)| {
            let path = repository_path(dir, &dest)?;
            Some(ImageRef { line, path })
        })
        .collect()
}

/// The `src` of every `<img` tag in raw HTML, with where its tag starts.
fn img_sources(html: &str) -> Vec<(usize, String)> {
    let lower = html.to_ascii_lowercase();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(i) = lower[from..].find("<img") {
        let at = from + i;
        from = at + 4;
        let end = lower[at..].find('>').map_or(lower.len(), |e| at + e);
        let tag = &lower[at..end];
        let Some(s) = tag.find(" src=").or_else(|| tag.find("\nsrc=")) else {
            continue;
        };
        let value = &html[at + s + 5..end];
        let value = match value.chars().next() {
            Some(q @ ('"' | '\'')) => value[1..].split(q).next().unwrap_or(""),
            _ => value
                .split(|c: char| c.is_ascii_whitespace())
                .next()
                .unwrap_or(""),
        };
        out.push((at, value.to_string()));
    }
    out
}

/// The repository path a relative image destination names from the README
/// directory `dir`: `None` for a URL, a same-page anchor or a path leaving
/// `keps/`.
fn repository_path(dir: &str, dest: &str) -> Option<String> {
    let dest = dest.trim();
    let scheme = dest
        .split_once(':')
        .is_some_and(|(s, _)| !s.is_empty() && !s.contains('/'));
    if dest.is_empty() || dest.starts_with('#') || dest.starts_with("//") || scheme {
        return None;
    }
    let path = dest.split(['?', '#']).next().unwrap_or_default();
    let path = percent_encoding::percent_decode_str(path)
        .decode_utf8()
        .ok()?;
    let joined = match path.strip_prefix('/') {
        Some(abs) => abs.to_string(),
        None => format!("{dir}/{path}"),
    };
    let mut parts: Vec<&str> = Vec::new();
    for part in joined.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    let path = parts.join("/");
    path.starts_with("keps/").then_some(path)
}

/// Findings for the images of `kep`'s README that cannot be shown.
pub(super) fn image_findings(model: &Model, kep: &Kep) -> Vec<Finding> {
    let Some(readme) = kep.readme_path.as_deref() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for r in image_refs(kep) {
        // only files of the repository: a path to nothing is a broken link,
        // which GitHub shows the same way
        if model.assets().binary_search(&r.path).is_err() {
            continue;
        }
        let (rule, message) = match image::probe(&model.source, &r.path) {
            ImageProbe::Size { .. } => continue,
            ImageProbe::TooLarge(bytes) => (
                "image-too-large",
                format!(
                    "image {} is {:.1} MB, over the {} MB the portal embeds; it is linked instead",
                    r.path,
                    bytes as f64 / 1048576.0,
                    MAX_IMAGE_BYTES >> 20
                ),
            ),
            ImageProbe::Broken(why) => (
                "image-broken",
                format!(
                    "image {} cannot be read ({why}); it is linked instead",
                    r.path
                ),
            ),
            ImageProbe::Missing => (
                "image-broken",
                format!(
                    "image {} cannot be read from the repository; it is linked instead",
                    r.path
                ),
            ),
        };
        out.push(
            Finding::warning(rule, readme, message)
                .at(Some(r.line + kep.readme_offset))
                .kep(kep.number())
                .hint(if rule == "image-too-large" {
                    "shrink or compress the image (a PNG of a diagram rarely needs more than 500 KB)"
                } else {
                    "replace the file with a PNG, JPEG, GIF, WebP or SVG that opens"
                }),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn image_sources_in_raw_html() {
        let html = "<p><IMG alt=\"x\" src=\"a.png\"> <img src='b c.svg' width=3>\n<img\nsrc=d.gif></p><img alt=no-src>";
        let got: Vec<String> = img_sources(html).into_iter().map(|(_, s)| s).collect();
        assert_eq!(got, ["a.png", "b c.svg", "d.gif"]);
    }

    #[test]
    fn destinations_resolve_inside_keps_only() {
        let dir = "keps/sig-x/1-a";
        let at = |d: &str| repository_path(dir, d);
        assert_eq!(
            at("./img/a.png").as_deref(),
            Some("keps/sig-x/1-a/img/a.png")
        );
        assert_eq!(
            at("a%20b.png?raw=true").as_deref(),
            Some("keps/sig-x/1-a/a b.png")
        );
        assert_eq!(at("../2-b/c.png").as_deref(), Some("keps/sig-x/2-b/c.png"));
        assert_eq!(at("/keps/sig-y/d.png").as_deref(), Some("keps/sig-y/d.png"));
        for none in [
            "https://example.org/a.png",
            "data:image/png;base64,AAAA",
            "//cdn/a.png",
            "#top",
            "../../../../etc/a.png",
            "../../../docs/a.png",
        ] {
            assert_eq!(at(none), None, "{none}");
        }
    }
}
