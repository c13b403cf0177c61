//! The images of a rendered README, made to wait for the reader: HTML (as
//! the markdown writer or the sanitizer wrote it) + each local image's
//! [`ImageProbe`] → the same HTML with every `<img>` loaded lazily and
//! decoded off the main thread, local images given their intrinsic `width`
//! and `height` (so nothing shifts when they arrive), and an image that
//! cannot be shown (broken, over 5 MB) turned into a link to its file.
//!
//! Why every image is lazy: a KEP page opens with its header and panels,
//! which fill the first screen at 390 and 1400 px, so no README image is
//! above the fold. Why a pass over the finished HTML: both writers emit
//! `<img` only as a tag (text and code have `<` escaped) with quoted,
//! escaped attributes, and images come from markdown and raw HTML alike.

use std::collections::BTreeSet;

use crate::escape;
use crate::repo::image::ImageProbe;

/// `html` with its `<img>` tags rewritten; `probe` answers for a path of
/// `local` (the files beside the README, relative to its directory).
pub fn sized(html: &str, local: &BTreeSet<String>, probe: &dyn Fn(&str) -> ImageProbe) -> String {
    if !html.contains("<img") {
        return html.to_string();
    }
    let mut out = String::with_capacity(html.len() + 256);
    let mut rest = html;
    let mut links_open = 0usize;
    while let Some(at) = rest.find("<img") {
        let (before, tag_on) = rest.split_at(at);
        links_open = links_after(before, links_open);
        out.push_str(before);
        let Some(end) = tag_on.find('>') else {
            out.push_str(tag_on);
            return out;
        };
        let tag = &tag_on[..=end];
        rest = &tag_on[end + 1..];
        let src = attr(tag, "src").unwrap_or_default();
        let rel = local_path(src);
        let answer = rel.filter(|r| local.contains(r)).map(|r| probe(&r));
        match answer {
            Some(ImageProbe::Size { width, height }) => {
                out.push_str(&with_size(tag, width, height))
            }
            Some(ImageProbe::TooLarge(bytes)) => {
                let what = format!("image, {:.1} MB, not shown", bytes as f64 / 1048576.0);
                out.push_str(&as_link(tag, src, &what, links_open > 0));
            }
            Some(_) => out.push_str(&as_link(
                tag,
                src,
                "image that cannot be shown",
                links_open > 0,
            )),
            None => out.push_str(&with_size(tag, 0, 0)),
        }
    }
    out.push_str(rest);
    out
}

/// The `<a>` elements open after `html`, `open` being open before it.
fn links_after(html: &str, mut open: usize) -> usize {
    let mut rest = html;
    while let Some(i) = rest.find('<') {
        rest = &rest[i + 1..];
        if rest.starts_with("a ") || rest.starts_with("a>") {
            open += 1;
        } else if rest.starts_with("/a>") {
            open = open.saturating_sub(1);
        }
    }
    open
}

/// The value of attribute `name` in a tag as our writers write it
/// (`name="value"`, escaped), still escaped.
fn attr<'t>(tag: &'t str, name: &str) -> Option<&'t str> {
    let key = format!(" {name}=\"");
    let start = tag.find(&key)? + key.len();
    let len = tag[start..].find('"')?;
    Some(&tag[start..start + len])
}

/// An escaped `src` as a path relative to the README's directory.
fn local_path(src: &str) -> Option<String> {
    let src = src
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&");
    let path = src.split(['?', '#']).next().unwrap_or_default();
    let path = path.strip_prefix("./").unwrap_or(path);
    let path = percent_encoding::percent_decode_str(path)
        .decode_utf8()
        .ok()?;
    Some(path.into_owned())
}

/// The tag with lazy loading, async decoding and, when the file's size is
/// known (`width` > 0), a width and height: the file's own, or the one the
/// author left out, in the file's proportions.
fn with_size(tag: &str, width: u32, height: u32) -> String {
    let body = tag.trim_end_matches('>').trim_end_matches('/').trim_end();
    let mut out = body.to_string();
    if width > 0 && height > 0 {
        let num = |n: &str| attr(tag, n).and_then(|v| v.trim().parse::<f64>().ok());
        match (num("width"), num("height")) {
            (None, None) if attr(tag, "width").is_none() && attr(tag, "height").is_none() => {
                out.push_str(&format!(" width=\"{width}\" height=\"{height}\""));
            }
            (Some(w), None) if attr(tag, "height").is_none() => {
                let h = (w * f64::from(height) / f64::from(width)).round().max(1.0);
                out.push_str(&format!(" height=\"{h}\""));
            }
            (None, Some(h)) if attr(tag, "width").is_none() => {
                let w = (h * f64::from(width) / f64::from(height)).round().max(1.0);
                out.push_str(&format!(" width=\"{w}\""));
            }
            _ => {}
        }
    }
    if attr(tag, "loading").is_none() {
        out.push_str(" loading=\"lazy\"");
    }
    if attr(tag, "decoding").is_none() {
        out.push_str(" decoding=\"async\"");
    }
    out.push('>');
    out
}

/// A link to the image's file in place of the image (its text inside a
/// link already, which may not hold another).
fn as_link(tag: &str, src: &str, what: &str, in_link: bool) -> String {
    let alt = attr(tag, "alt").filter(|a| !a.trim().is_empty());
    let name = match alt {
        Some(a) => a.to_string(),
        None => {
            let file = src.split(['?', '#']).next().unwrap_or(src);
            file.rsplit('/').next().unwrap_or(file).to_string()
        }
    };
    let what = escape::text(what);
    if in_link {
        format!("<span class=\"image-link\">{name} ({what})</span>")
    } else {
        format!("<a class=\"image-link\" href=\"{src}\">{name} ({what})</a>")
    }
}

#[cfg(test)]
mod tests;
