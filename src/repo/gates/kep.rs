//! The `// kep:` line of a gate's doc comment → its raw text and the KEP
//! numbers it names.
//!
//! Forms seen in kubernetes/kubernetes: `kep: https://kep.k8s.io/4639`,
//! `kep: http://kep.k8s.io/2699:` (a trailing colon), `kep : …` (a space
//! before the colon), `key: https://kep.k8s.io/2837` (a typo that is still a
//! KEP link: PodLevelResources), `kep: A, B` (two KEPs) and `kep:` with
//! nothing after it. Also read: `github.com/kubernetes/enhancements/issues/N`,
//! `…/keps/sig-x/N-name`, `KEP-N`, `#N` and a bare number. A link to an
//! enhancements pull request (`…/pull/N`) names a PR, not a KEP: its text is
//! kept, no number is taken from it.

/// The most KEP numbers read from one `kep:` line (kubernetes' own name
/// two at most), and the most bytes of its text kept: a line naming a
/// million numbers costs what 16 do, and a gate's copy of it is small.
pub(super) const MAX_KEPS: usize = 16;
/// See [`MAX_KEPS`].
pub(super) const MAX_TEXT: usize = 256;

/// The raw text after the label (trimmed, possibly empty) and the KEP
/// numbers it names, of the first `kep:` line among `lines` (comment lines
/// without their `//`).
pub(super) fn from_doc<'a>(lines: impl IntoIterator<Item = &'a str>) -> Option<(String, Vec<u32>)> {
    lines.into_iter().find_map(|line| {
        let (label, value) = line.trim().split_once(':')?;
        let label = label.trim().to_ascii_lowercase();
        let value = value.trim();
        let typo = label == "key" && value.contains("kep.k8s.io/");
        if label != "kep" && label != "keps" && !typo {
            return None;
        }
        Some((cut(value), numbers(value)))
    })
}

/// `text`, or its first [`MAX_TEXT`] bytes (at a character's end) and `…`.
fn cut(text: &str) -> String {
    if text.len() <= MAX_TEXT {
        return text.to_string();
    }
    let end = (0..=MAX_TEXT)
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0);
    format!("{}…", &text[..end])
}

/// Whether a `kep:` line's text and numbers, as [`from_doc`] gives them,
/// were cut to [`MAX_TEXT`] and [`MAX_KEPS`].
pub(super) fn was_cut(text: &str, numbers: &[u32]) -> bool {
    numbers.len() >= MAX_KEPS || text.len() > MAX_TEXT
}

/// The KEP numbers `text` names, in order, without repeats: the first
/// [`MAX_KEPS`] (so the repeat check is over at most that many).
pub(super) fn numbers(text: &str) -> Vec<u32> {
    let mut out = Vec::new();
    for token in text.split(|c: char| c.is_whitespace() || c == ',') {
        if let Some(n) = number(token.trim_end_matches([':', '.', ')', ';']))
            && !out.contains(&n)
        {
            out.push(n);
            if out.len() == MAX_KEPS {
                break;
            }
        }
    }
    out
}

/// The KEP number one token names, if it names one.
fn number(token: &str) -> Option<u32> {
    if token.contains("/pull/") {
        return None;
    }
    for marker in ["kep.k8s.io/", "enhancements/issues/"] {
        if let Some((_, rest)) = token.split_once(marker) {
            return leading_digits(rest, true);
        }
    }
    if let Some((_, rest)) = token.split_once("/keps/") {
        // keps/sig-x/N-name/README.md: the first part that starts "N-".
        return rest.split('/').find_map(|part| leading_digits(part, false));
    }
    let bare = token
        .strip_prefix("KEP-")
        .or_else(|| token.strip_prefix("kep-"))
        .or_else(|| token.strip_prefix('#'))
        .unwrap_or(token);
    if !bare.is_empty() && bare.bytes().all(|b| b.is_ascii_digit()) {
        return bare.parse().ok();
    }
    None
}

/// The number `part` starts with, followed by its end or a `-` (and, when
/// `loose`, anything that is not a digit: `4639#readme`).
fn leading_digits(part: &str, loose: bool) -> Option<u32> {
    let end = part
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(part.len());
    if end == 0 {
        return None;
    }
    let rest = &part[end..];
    if !loose && !rest.is_empty() && !rest.starts_with('-') {
        return None;
    }
    part[..end].parse().ok()
}
