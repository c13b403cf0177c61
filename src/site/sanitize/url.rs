//! URL checks: the schemes raw HTML and markdown may use, and URL
//! attributes checked and resolved.

use std::collections::HashSet;

use super::{ID_PREFIX, Policy};

/// URL schemes raw HTML may use; anything else with a scheme is dropped.
const SCHEMES: &[&str] = &["http", "https", "mailto"];

/// A URL as a browser reads it: ASCII tabs and newlines removed, leading and
/// trailing control characters and spaces trimmed. `None` when it has a
/// scheme other than http, https or mailto.
pub fn safe_url(url: &str) -> Option<String> {
    let cleaned: String = url
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    let cleaned = cleaned.trim_matches(|c: char| c <= ' ');
    let end = cleaned.find(['/', '?', '#']).unwrap_or(cleaned.len());
    match cleaned[..end].find(':') {
        None => Some(cleaned.to_string()),
        Some(i) if SCHEMES.iter().any(|s| cleaned[..i].eq_ignore_ascii_case(s)) => {
            Some(cleaned.to_string())
        }
        Some(_) => None,
    }
}

/// Whether a URL points at an image (by its extension).
pub fn is_image(url: &str) -> bool {
    let path = url
        .split(['#', '?'])
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    [".png", ".svg", ".jpg", ".jpeg", ".gif", ".webp"]
        .iter()
        .any(|e| path.ends_with(e))
}

/// A URL attribute's value: kept when kepsite made it, else checked and
/// resolved; a same-page link to a raw id follows the id's prefix.
pub(super) fn attr_url(
    tag: &str,
    value: &str,
    policy: &Policy,
    raw_ids: &HashSet<String>,
) -> Option<String> {
    let url = if policy.trusted_urls.contains(value) {
        value.to_string()
    } else {
        let safe = safe_url(value)?;
        (policy.resolve)(&safe, tag == "img" || is_image(&safe))
    };
    match url.strip_prefix('#') {
        Some(frag) if !policy.generated_ids.contains(frag) && raw_ids.contains(frag) => {
            Some(format!("#{ID_PREFIX}{frag}"))
        }
        _ => Some(url),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls() {
        assert_eq!(safe_url("  https://x "), Some("https://x".into()));
        assert_eq!(safe_url("mailto:a@b"), Some("mailto:a@b".into()));
        assert_eq!(safe_url("/a:b"), Some("/a:b".into()));
        assert_eq!(safe_url("vbscript:x"), None);
        assert_eq!(safe_url("\u{1}javascript:x"), None);
        assert_eq!(safe_url("é:x"), None);
    }
}
