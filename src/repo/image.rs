//! An image beside a README, probed: repository path → [`ImageProbe`] (its
//! width and height from the file's own header, or why it cannot be shown).
//!
//! Only the header is read from a working tree (imagesize seeks through a
//! JPEG's segments; an SVG's root tag is in its first bytes); a revision's
//! blob is in memory once read. Files are read through [`read_asset`]'s
//! rules: inside the repository, no symlink leaving it, never a device.

use std::io::{BufReader, Read};
use std::path::Path;

use super::{EMBEDDED_ROOT, Source, is_wanted, link_target_allowed, read_asset};

/// Images larger than this are linked, not shown: one such file weighs more
/// than a whole KEP page's budget.
pub const MAX_IMAGE_BYTES: u64 = 5 * 1024 * 1024;

/// How much of an SVG is read to find its root `<svg>` tag.
const SVG_HEAD: u64 = 64 * 1024;

/// What the site can do with an image file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImageProbe {
    /// Shown at this intrinsic size (CSS pixels).
    Size {
        /// Width.
        width: u32,
        /// Height.
        height: u32,
    },
    /// Too large to show: its size in bytes.
    TooLarge(u64),
    /// Its header cannot be read as an image of its kind: why.
    Broken(String),
    /// Not there (or not readable under the repository's rules).
    Missing,
}

/// Probe the image at repository path `path` of `source`.
pub fn probe(source: &Source, path: &str) -> ImageProbe {
    let svg = path.to_ascii_lowercase().ends_with(".svg");
    if source.root != Path::new(EMBEDDED_ROOT) && source.commit.is_none() {
        return probe_worktree(&source.root, path, svg);
    }
    match read_asset(source, path) {
        Some(bytes) => probe_bytes(&bytes, bytes.len() as u64, svg),
        None => ImageProbe::Missing,
    }
}

/// A working tree's file: opened under [`read_asset`]'s rules, its size
/// from the file system, its header read.
fn probe_worktree(root: &Path, path: &str, svg: bool) -> ImageProbe {
    if !is_wanted(path) || path.split('/').any(|c| c == ".." || c.is_empty()) {
        return ImageProbe::Missing;
    }
    let Some(full) = inside(root, path) else {
        return ImageProbe::Missing;
    };
    let Ok(file) = std::fs::File::open(&full) else {
        return ImageProbe::Missing;
    };
    let size = match file.metadata() {
        Ok(m) if m.is_file() => m.len(),
        _ => return ImageProbe::Missing,
    };
    if size > MAX_IMAGE_BYTES {
        return ImageProbe::TooLarge(size);
    }
    if svg {
        let mut head = Vec::new();
        if file.take(SVG_HEAD).read_to_end(&mut head).is_err() {
            return ImageProbe::Missing;
        }
        return svg_probe(&head);
    }
    match imagesize::reader_size(BufReader::new(file)) {
        Ok(d) => sized(d.width, d.height),
        Err(e) => ImageProbe::Broken(e.to_string()),
    }
}

/// `path` under `root` with every symlink resolved, when it stays inside
/// the repository's published content.
fn inside(root: &Path, path: &str) -> Option<std::path::PathBuf> {
    let root = root.canonicalize().ok()?;
    let full = root.join(path).canonicalize().ok()?;
    let rel = full.strip_prefix(&root).ok()?.to_str()?.replace('\\', "/");
    link_target_allowed(&rel).then_some(full)
}

/// An image's bytes (`size` of them in the file).
pub fn probe_bytes(bytes: &[u8], size: u64, svg: bool) -> ImageProbe {
    if size > MAX_IMAGE_BYTES {
        return ImageProbe::TooLarge(size);
    }
    if svg {
        return svg_probe(&bytes[..bytes.len().min(SVG_HEAD as usize)]);
    }
    match imagesize::blob_size(bytes) {
        Ok(d) => sized(d.width, d.height),
        Err(e) => ImageProbe::Broken(e.to_string()),
    }
}

fn sized(width: usize, height: usize) -> ImageProbe {
    match (u32::try_from(width), u32::try_from(height)) {
        (Ok(width), Ok(height)) if width > 0 && height > 0 => ImageProbe::Size { width, height },
        _ => ImageProbe::Broken(format!("the header says {width} × {height} pixels")),
    }
}

/// An SVG's size: its root tag's `width` and `height` when both are plain
/// numbers (or pixels), else its `viewBox`'s width and height, else the
/// 300 × 150 a browser gives an image without a size.
fn svg_probe(head: &[u8]) -> ImageProbe {
    let text = String::from_utf8_lossy(head);
    let Some(tag) = root_tag(&text) else {
        return ImageProbe::Broken("no <svg> tag at its start".into());
    };
    let px = |name: &str| {
        let v = attr(tag, name)?;
        let v = v.trim().strip_suffix("px").unwrap_or(v.trim());
        v.parse::<f64>().ok().filter(|n| n.is_finite() && *n >= 0.5)
    };
    if let (Some(w), Some(h)) = (px("width"), px("height")) {
        return sized(w.round() as usize, h.round() as usize);
    }
    let view: Vec<f64> = attr(tag, "viewBox")
        .unwrap_or_default()
        .split([' ', ',', '\t', '\n', '\r'])
        .filter(|s| !s.is_empty())
        .filter_map(|s| s.parse().ok())
        .collect();
    match view[..] {
        [_, _, w, h] if w.is_finite() && h.is_finite() && w >= 0.5 && h >= 0.5 => {
            sized(w.round() as usize, h.round() as usize)
        }
        // a browser draws it at the default object size of CSS
        _ => ImageProbe::Size {
            width: 300,
            height: 150,
        },
    }
}

/// The attributes of the first `<svg` start tag (past the XML declaration,
/// comments and doctype), without the `<svg` and `>`.
fn root_tag(text: &str) -> Option<&str> {
    let mut rest = text;
    loop {
        let at = rest.find('<')?;
        rest = &rest[at..];
        if let Some(body) = rest.strip_prefix("<!--") {
            rest = &body[body.find("-->")? + 3..];
        } else if rest.starts_with("<?") || rest.starts_with("<!") {
            rest = &rest[rest.find('>')? + 1..];
        } else {
            let tag = rest.strip_prefix("<svg")?;
            if !tag.starts_with(|c: char| c.is_ascii_whitespace() || c == '>' || c == '/') {
                return None;
            }
            return Some(&tag[..tag.find('>')?]);
        }
    }
}

/// The value of attribute `name` in a tag's attribute text (quoted with
/// `"` or `'`), matched as a whole name.
fn attr<'t>(tag: &'t str, name: &str) -> Option<&'t str> {
    let mut from = 0;
    while let Some(i) = tag[from..].find(name) {
        let at = from + i;
        from = at + name.len();
        let before = tag[..at].chars().next_back();
        if !before.is_some_and(|c| c.is_ascii_whitespace()) {
            continue;
        }
        let rest = tag[from..].trim_start();
        let Some(rest) = rest.strip_prefix('=') else {
            continue;
        };
        let rest = rest.trim_start();
        let quote = rest.chars().next().filter(|c| *c == '"' || *c == '\'')?;
        let rest = &rest[1..];
        return rest.find(quote).map(|end| &rest[..end]);
    }
    None
}

#[cfg(test)]
mod tests;
