//! Section text (`&str`) → whether it answers the section (`bool`).
//!
//! KEP authors copy the template and leave its skeleton in place: unchecked
//! option lists, `key:` bullets without values, `<placeholder>` lines, `TODO`.
//! The skeleton is recognised by patterns, not by comparing with template prose,
//! so edited templates and older template versions are handled alike.

use crate::kep::document::strip_comments;

/// Labels of the template's unchecked option boxes (`- [ ] Feature gate`),
/// lowercased, parenthesised remarks removed. Their answers are the sub-bullets.
const OPTION_LABELS: &[&str] = &[
    "feature gate",
    "other",
    "events",
    "api .status",
    "api status",
    "metrics",
];

/// Start of the template's test-plan acknowledgement box.
const ACKNOWLEDGEMENT: &str = "i/we understand";

/// Words that only promise an answer.
const PLACEHOLDER_WORDS: &[&str] = &[
    "todo",
    "tbd",
    "tbc",
    "to do",
    "to be done",
    "to be determined",
    "to be decided",
    "to be defined",
    "to be added",
    "to be filled",
    "to be written",
    "fill me in",
];

/// Starts of instructions that older template versions left outside comments.
const TEMPLATE_NOTES: &[&str] = &[
    "this section must be completed",
    "not required until targeted",
];

/// Placeholders of the test-link example (`[test name](...)`, `MyCoolFeature`).
const EXAMPLE_MARKERS: &[&str] = &["[test name](", "mycoolfeature"];

/// Longest `key:` label, in words, read as an empty template field.
const MAX_KEY_WORDS: usize = 6;

/// First words of the template's yes/no sub-questions (`Will enabling ...?`).
const QUESTION_WORDS: &[&str] = &[
    "will", "does", "do", "is", "are", "can", "how", "what", "which", "should", "would",
];

/// A block of the text judged as a whole: a list item with its continuation
/// lines, or a paragraph.
struct Unit {
    /// `Some(checked)` for task-list items.
    checkbox: Option<bool>,
    is_item: bool,
    text: String,
}

/// Whether `body` (a section's own text) holds an answer: any text left once
/// comments, template skeleton and `TODO`/`TBD` are set aside. Short answers
/// such as `No.` or `N/A` count.
pub fn is_answered(body: &str) -> bool {
    let mut in_comment = false;
    let mut fence: Option<&'static str> = None;
    let mut unit: Option<Unit> = None;
    for raw in body.lines() {
        let visible = strip_comments(raw, &mut in_comment);
        let line = visible.trim();
        if let Some(marker) = fence {
            if line.starts_with(marker) {
                fence = None;
            } else if has_alnum(line) {
                return true;
            }
            continue;
        }
        if line.starts_with("```") || line.starts_with("~~~") {
            if unit.take().is_some_and(|u| !is_skeleton(&u)) {
                return true;
            }
            fence = Some(if line.starts_with('`') { "```" } else { "~~~" });
            continue;
        }
        if line.is_empty() {
            if unit.take().is_some_and(|u| !is_skeleton(&u)) {
                return true;
            }
            continue;
        }
        match item_start(line) {
            Some((checkbox, text)) => {
                if unit.take().is_some_and(|u| !is_skeleton(&u)) {
                    return true;
                }
                unit = Some(Unit {
                    checkbox,
                    is_item: true,
                    text: text.to_string(),
                });
            }
            None => match &mut unit {
                Some(u) => {
                    u.text.push(' ');
                    u.text.push_str(line);
                }
                None => {
                    unit = Some(Unit {
                        checkbox: None,
                        is_item: false,
                        text: line.to_string(),
                    })
                }
            },
        }
    }
    unit.is_some_and(|u| !is_skeleton(&u))
}

/// `- text`, `* text`, `1. text`, `- [ ] text`, `[ ] text` → (checkbox, text).
fn item_start(line: &str) -> Option<(Option<bool>, &str)> {
    let after_bullet = ["- ", "* ", "+ "]
        .iter()
        .find_map(|b| line.strip_prefix(b))
        .or_else(|| (line == "-" || line == "*").then_some(""))
        .or_else(|| {
            let digits = line.bytes().take_while(u8::is_ascii_digit).count();
            let rest = &line[digits..];
            (digits > 0 && digits < 4)
                .then(|| rest.strip_prefix(". ").or_else(|| rest.strip_prefix(") ")))
                .flatten()
        });
    let rest = after_bullet.unwrap_or(line).trim_start();
    let checkbox = match rest.get(..3) {
        Some("[ ]") => Some(false),
        Some("[x]") | Some("[X]") => Some(true),
        _ => None,
    };
    match (after_bullet, checkbox) {
        (_, Some(_)) => Some((checkbox, rest[3..].trim_start())),
        (Some(_), None) => Some((None, rest)),
        (None, None) => None,
    }
}

fn has_alnum(s: &str) -> bool {
    s.chars().any(char::is_alphanumeric)
}

fn is_skeleton(u: &Unit) -> bool {
    if u.checkbox == Some(false) && is_option_label(&u.text) {
        return true;
    }
    let lower = u.text.to_lowercase();
    if EXAMPLE_MARKERS.iter().any(|m| lower.contains(m)) {
        return true;
    }
    let text = without_placeholders(&lower);
    let text = text.trim().trim_end_matches(['*', '_', ' ']);
    if !has_alnum(text) {
        return true;
    }
    if u.is_item && text.ends_with(':') && text.split_whitespace().count() <= MAX_KEY_WORDS {
        return true;
    }
    if u.is_item && text.ends_with('?') {
        let first = text.split_whitespace().next().unwrap_or("");
        if QUESTION_WORDS.contains(&first) {
            return true;
        }
    }
    let start = text.trim_start_matches(|c: char| !c.is_alphanumeric());
    let start = start.strip_prefix("note").map_or(start, |r| {
        r.trim_start_matches(|c: char| !c.is_alphanumeric())
    });
    TEMPLATE_NOTES.iter().any(|n| start.starts_with(n)) || is_placeholder_word(start)
}

fn is_option_label(text: &str) -> bool {
    let lower = text.to_lowercase();
    if lower.starts_with(ACKNOWLEDGEMENT) {
        return true;
    }
    let label = lower.find('(').map_or(lower.as_str(), |i| &lower[..i]);
    let label = label.replace('`', "");
    OPTION_LABELS.contains(&label.trim().trim_end_matches([':', '.']))
}

/// `TODO`, `TBD.`, `To be done`, `TODO: later`, `_TBD_`.
/// `text` is lowercase with leading punctuation removed.
fn is_placeholder_word(lower: &str) -> bool {
    PLACEHOLDER_WORDS.iter().any(|w| {
        lower
            .strip_prefix(w)
            .is_some_and(|rest| rest.chars().next().is_none_or(|c| !c.is_alphanumeric()))
    })
}

/// Removes `<placeholder>`s (not `<https://...>` autolinks), `[Bracketed]`
/// labels (keeping the text of links) and `<<[UNRESOLVED]>>` markers.
fn without_placeholders(text: &str) -> String {
    if !text.contains(['<', '[']) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(['<', '[']) {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        let close = if tail.starts_with("<<[") {
            tail.find("]>>").map(|j| j + 3)
        } else if tail.starts_with('<') {
            tail.find('>')
                .map(|j| j + 1)
                .filter(|&j| !tail[..j].contains("://"))
        } else {
            // `[text](url)` and `[text][ref]` are links: keep their text.
            match tail.find(']') {
                Some(j) if tail[j + 1..].starts_with(['(', '[']) => {
                    out.push_str(&tail[1..j]);
                    Some(j + 1)
                }
                other => other.map(|j| j + 1),
            }
        };
        match close {
            Some(j) => rest = &tail[j..],
            None => {
                out.push_str(&tail[..1]);
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    out
}
