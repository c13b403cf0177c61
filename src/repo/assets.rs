//! Assets (the images and other files beside a README): read with one
//! rule for every reader, and which of them the site may publish on its
//! own origin.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Result;

use super::{EMBEDDED_ROOT, MAX_FILE_BYTES, Source, embedded, git, is_wanted, link_target_allowed};

/// Read a non-input file (an image beside a README) from wherever the
/// snapshot came from: the embedded sample, a git commit, or the working
/// tree. `None` when it cannot be read. See [`read_assets`] for the rule.
pub fn read_asset(source: &Source, path: &str) -> Option<Vec<u8>> {
    read_assets(source, &[path.to_string()]).ok()?.remove(path)
}

/// Read the asset files `paths` (repository-relative, `/`-separated) from
/// `source`, with one rule for every reader (the SVG check, the build's
/// copy, serve): a path of the published part of the repository with no
/// `..` or empty component; a regular file of at most [`MAX_FILE_BYTES`];
/// a symlink followed only as the loader follows one, when its target,
/// resolved inside the repository, is in the published part too
/// ([`link_target_allowed`]). What cannot be read is left out.
pub fn read_assets(source: &Source, paths: &[String]) -> Result<BTreeMap<String, Vec<u8>>> {
    let wanted: Vec<String> = paths
        .iter()
        .filter(|p| is_wanted(p) && !p.split('/').any(|c| c == ".." || c.is_empty()))
        .cloned()
        .collect();
    if wanted.is_empty() {
        return Ok(BTreeMap::new());
    }
    if source.root == Path::new(EMBEDDED_ROOT) {
        return Ok(wanted
            .into_iter()
            .filter_map(|p| embedded::read(&p).map(|b| (p, b)))
            .collect());
    }
    if let Some(commit) = &source.commit {
        return git::read_blobs(&source.root, commit, &wanted);
    }
    let root = source.root.canonicalize()?;
    Ok(wanted
        .into_iter()
        .filter_map(|p| worktree_asset(&root, &p).map(|b| (p, b)))
        .collect())
}

/// One asset of the working tree at (canonical) `root`.
fn worktree_asset(root: &Path, path: &str) -> Option<Vec<u8>> {
    let full = root.join(path).canonicalize().ok()?;
    let rel = full.strip_prefix(root).ok()?.to_str()?.replace('\\', "/");
    if !link_target_allowed(&rel) {
        return None;
    }
    let meta = std::fs::metadata(&full).ok()?;
    if !meta.is_file() || meta.len() > MAX_FILE_BYTES {
        return None;
    }
    std::fs::read(full).ok()
}

/// Raster image types: published beside a KEP's page as they are.
const INERT: &[&str] = &["png", "jpg", "jpeg", "gif", "webp", "avif", "bmp", "ico"];

/// Whether the file at `path` may be published on the site's origin: a
/// raster image, or an SVG with nothing in it that could run script. Anything
/// else (HTML, XHTML, XML, JavaScript, PDF, SVG with script, …) is linked to
/// the repository instead, so a file beside a README can never run script on
/// the site.
pub fn publishable(source: &Source, path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    let Some((_, ext)) = name.rsplit_once('.') else {
        return false;
    };
    let ext = ext.to_ascii_lowercase();
    if INERT.contains(&ext.as_str()) {
        return true;
    }
    ext == "svg" && read_asset(source, path).is_some_and(|b| inert_svg(&b))
}

/// Whether an SVG document cannot run script however it is opened: UTF-8,
/// and none of script (any namespace, or `script:` URLs), event handler
/// attributes, foreign objects, XHTML, animation (which can set a link),
/// stylesheet processing instructions, DTD declarations (entities or default
/// attributes could hide the rest)
/// and character references (likewise). Deliberately strict: an SVG it
/// refuses is still shown, loaded from the repository.
pub fn inert_svg(bytes: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return false;
    };
    let text = text.to_ascii_lowercase();
    const DENY: &[&str] = &[
        "script",
        "foreignobject",
        "xhtml",
        "<!entity",
        "<!attlist",
        "<!element",
        "<?xml-stylesheet",
        "&#",
        "<animate",
        "<set",
        "<handler",
        "<listener",
        "<iframe",
        "<embed",
        "<object",
        "data:text",
        "data:application",
    ];
    if DENY.iter().any(|d| text.contains(d)) {
        return false;
    }
    // `on…=` attributes: any `on` after a space, tab, newline or `:` that
    // letters and then `=` follow
    let b = text.as_bytes();
    !text.match_indices("on").any(|(i, _)| {
        let before = i.checked_sub(1).map(|j| b[j]);
        let boundary = matches!(before, Some(b' ' | b'\t' | b'\n' | b'\r' | b':' | b'/'));
        let rest = &b[i + 2..];
        let letters = rest.iter().take_while(|c| c.is_ascii_alphabetic()).count();
        let after = rest[letters..].iter().find(|c| !c.is_ascii_whitespace());
        boundary && letters > 0 && after == Some(&b'=')
    })
}
