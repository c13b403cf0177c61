//! Section text (`&str`) → whether it answers the section (`bool`).
//!
//! KEP authors copy the template and leave its skeleton in place: unchecked
//! option lists, `key:` bullets without values, `<placeholder>` lines, `TODO`.
//! The skeleton is recognised by patterns, so edited templates and older
//! template versions are handled alike; a PRR question's answer is also
//! compared with the template's guidance for that question ([`Reading`]), as
//! authors paste the guidance without its comment markers.

use super::placeholders::without_placeholders;
use crate::analysis::template::{Guidance, Piece, sentences};

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
    "to be announced",
    "tba",
    "to be filled",
    "to be written",
    "fill me in",
];

/// Starts of instructions that older template versions left outside
/// comments, and of a section declined rather than answered.
const TEMPLATE_NOTES: &[&str] = &[
    "this section must be completed",
    "not required until targeted",
    "skipping this section",
    "skip this section",
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

/// Bare "not applicable" answers (lowercase, emphasis and final dot removed).
const NOT_APPLICABLE: &[&str] = &[
    "n/a",
    "na",
    "n a",
    "not applicable",
    "does not apply",
    "doesn't apply",
];

/// How a section's text is read: as any section, or as the answer to a PRR
/// question, which a reviewer reads more strictly.
#[derive(Debug, Clone, Copy)]
pub struct Reading<'a> {
    /// A PRR question (read against its guidance). A bare `N/A` answers it:
    /// a PRR reviewer counts it, and [`no_reason_given`] flags it as advice.
    pub question: bool,
    /// The template's guidance for the question (empty when unknown): an
    /// answer that is mostly guidance is no answer.
    pub guidance: &'a Guidance,
}

impl Default for Reading<'_> {
    fn default() -> Self {
        static NONE: Guidance = Guidance::EMPTY;
        Reading {
            question: false,
            guidance: &NONE,
        }
    }
}

/// Whether `body` (a section's own text) holds an answer: any text left once
/// comments, template skeleton and `TODO`/`TBD` are set aside. Short answers
/// such as `No.` or `N/A` count.
pub fn is_answered(body: &str) -> bool {
    answers(body, Reading::default())
}

/// The text of a body's units that are not skeleton, gathered only when it is
/// to be compared with guidance; else the first such unit ends the reading.
struct Kept<'a> {
    reading: Reading<'a>,
    /// Every unit in pieces, when compared with guidance.
    pieces: Vec<Piece>,
    /// Units seen.
    units: usize,
    /// Words of the units that are not skeleton.
    own_words: usize,
    any: bool,
}

impl Kept<'_> {
    /// Takes a finished unit; `true` when the body is known to be answered.
    fn take(&mut self, unit: Option<Unit>) -> bool {
        let Some(u) = unit else {
            return false;
        };
        let skeleton = is_skeleton(&u);
        // A ticked box is the author's choice, whatever its words.
        if !skeleton && (self.reading.guidance.is_empty() || u.checkbox == Some(true)) {
            return true;
        }
        self.any |= !skeleton;
        if self.reading.guidance.is_empty() {
            return false;
        }
        if !skeleton && self.reading.guidance.is_foreign(&u.text) {
            return true;
        }
        // `- Feature gate name: MyGate`: the template's field label links
        // shingles; the value is judged on its own.
        let unit = self.units;
        self.units += 1;
        let piece = |text: &str, skeleton| Piece {
            text: text.to_string(),
            skeleton,
            unit,
        };
        match field_value(&u) {
            Some(at) if !skeleton => {
                let (key, value) = u.text.split_at(at);
                self.pieces.push(piece(key, true));
                self.pieces.push(piece(value, false));
            }
            _ if skeleton => self.pieces.push(piece(&u.text, true)),
            // Sentence by sentence: `... surprise some users. No.` answers.
            _ => self
                .pieces
                .extend(sentences(&u.text).map(|t| piece(t, false))),
        }
        if !skeleton {
            self.own_words += Guidance::count_words(&u.text);
        }
        self.own_words > self.reading.guidance.longest_paste()
    }

    fn answered(self) -> bool {
        self.any && !self.reading.guidance.pasted(&self.pieces)
    }
}

/// Where the value of a `key: value` list item starts (after the colon),
/// for keys of at most [`MAX_KEY_WORDS`] words.
fn field_value(u: &Unit) -> Option<usize> {
    let colon = u.text.find(':')?;
    (u.is_item && u.text[..colon].split_whitespace().count() <= MAX_KEY_WORDS).then_some(colon + 1)
}

/// [`is_answered`], read as `reading` says: for a PRR question, text that is
/// mostly the question's template guidance is no answer.
pub fn answers(body: &str, reading: Reading) -> bool {
    let mut kept = Kept {
        reading,
        pieces: Vec::new(),
        units: 0,
        own_words: 0,
        any: false,
    };
    let mut fence: Option<&'static str> = None;
    let mut unit: Option<Unit> = None;
    // `body` is a section's own text: its comments are gone already
    for raw in body.lines() {
        let line = raw.trim();
        if let Some(marker) = fence {
            if line.starts_with(marker) {
                fence = None;
            } else if has_alnum(line) {
                return true;
            }
            continue;
        }
        if line.starts_with("```") || line.starts_with("~~~") {
            if kept.take(unit.take()) {
                return true;
            }
            fence = Some(if line.starts_with('`') { "```" } else { "~~~" });
            continue;
        }
        if line.is_empty() {
            if kept.take(unit.take()) {
                return true;
            }
            continue;
        }
        match item_start(line) {
            Some((checkbox, text)) => {
                if kept.take(unit.take()) {
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
    kept.take(unit) || kept.answered()
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
    if !u.is_item && is_link_definition(&lower) {
        return true;
    }
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
    // `- Metric name: TBD`: a template field filled with a placeholder.
    if let Some((key, value)) = text.split_once(':') {
        let value = value.trim_start_matches(|c: char| !c.is_alphanumeric());
        if u.is_item
            && key.split_whitespace().count() <= MAX_KEY_WORDS
            && is_placeholder_word(value)
        {
            return true;
        }
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

/// `[label]: https://...` lines only: link reference definitions, which the
/// template leaves at the end of the questionnaire and which render as nothing.
fn is_link_definition(text: &str) -> bool {
    // A paragraph's lines are joined with spaces: split before each `[`.
    text.split(" [").all(|part| {
        let part = part.trim_start_matches('[');
        part.split_once("]:").is_some_and(|(label, target)| {
            !label.is_empty() && target.split_whitespace().count() == 1
        })
    })
}

/// Whether an answer is only `N/A` (or `Not applicable.`, `` `N/A` ``...),
/// with no reason: it answers, and a reviewer may still ask why.
pub fn no_reason_given(body: &str) -> bool {
    // the longest bare answer (`*Doesn't apply.*` in a list item) has far
    // fewer letters than this: a longer text gives a reason
    if body
        .bytes()
        .filter(|b| !b.is_ascii_whitespace())
        .nth(40)
        .is_some()
    {
        return false;
    }
    let text: Vec<String> = body
        .lines()
        .map(|l| l.trim().to_lowercase())
        .filter(|l| !l.is_empty())
        .collect();
    let joined = text.join(" ");
    let joined = joined.trim_start_matches(['-', '*', '+', ' ']);
    !joined.is_empty() && is_bare_not_applicable(joined)
}

/// `N/A`, `n/a.`, `` `N/A` ``, `*Not applicable*`: no reason given.
fn is_bare_not_applicable(lower: &str) -> bool {
    let t = lower.trim().trim_end_matches(['.', '!']);
    let t = t.trim_matches(|c: char| matches!(c, '*' | '_' | '`' | ' '));
    let t = t.trim_end_matches('.');
    NOT_APPLICABLE.contains(&t)
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
            .map(|rest| rest.trim_start_matches('_'))
            .is_some_and(|rest| rest.chars().next().is_none_or(|c| !c.is_alphanumeric()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_question_is_read_against_its_guidance() {
        let guidance = Guidance::new(
            "<!--\nDescribe the metrics themselves and the reasons why they weren't added (e.g., cost,\nimplementation difficulties, etc.).\n-->\n- [ ] Metrics\n  - Metric name:\n  - Components exposing the metric:",
        );
        let q = Reading {
            question: true,
            guidance: &guidance,
        };
        let cases: &[(&str, bool, bool)] = &[
            // (text, as any section, as a PRR question)
            ("TBA.", false, false),
            ("- [ ] Metrics\n  - Metric name: TBD", false, false),
            ("- Metric name: `tbd_total`", true, true),
            (
                "- [ ] Metrics\n  - Metric name: `pasted_total`\n  - Components exposing the metric: kubelet",
                true,
                true,
            ),
            ("To be announced", false, false),
            ("N/A", true, true),
            ("- n/a.", true, true),
            ("`N/A`", true, true),
            ("*Not applicable.*", true, true),
            ("Does not apply.", true, true),
            ("N/A, the feature is client-side only.", true, true),
            ("N/A\n\nNo component serves it.", true, true),
            ("None.", true, true),
            ("No.", true, true),
            (
                "Describe the metrics themselves and the reasons why they weren't added (e.g. cost,\n  implementation difficulties, etc.).",
                true,
                false,
            ),
            ("Describe the metrics themselves.", true, false),
            ("Describe the metrics: we add none, for cost.", true, true),
            ("The reasons why", true, true),
            (
                "[supported limits]: https://example.com/a\n[existing SLIs/SLOs]: https://example.com/b",
                false,
                false,
            ),
            ("[a]: https://example.com/a\n\nSee [a].", true, true),
            ("[design]: we chose B", true, true),
        ];
        for &(text, any, question) in cases {
            assert_eq!(is_answered(text), any, "as a section: {text:?}");
            assert_eq!(answers(text, q), question, "as a question: {text:?}");
        }
    }

    #[test]
    fn a_bare_not_applicable_gives_no_reason() {
        for text in [
            "N/A",
            "- n/a.",
            "`N/A`",
            "*Not applicable.*",
            "<!-- c -->\nNot applicable\n",
        ] {
            // as a section's own text: the parse takes its comments out
            let doc = crate::kep::document::parse(&format!("# S\n{text}"));
            assert!(no_reason_given(&doc.body(0).text), "{text:?}");
        }
        for text in ["N/A, client-side only.", "No.", "", "None"] {
            assert!(!no_reason_given(text), "{text:?}");
        }
    }

    #[test]
    fn pasted_guidance_is_no_answer_but_what_follows_it_is() {
        let g = Guidance::new(
            "<!-- Describe the consequences on existing workloads (e.g., if this is a runtime\nfeature, can it break the existing applications?). -->",
        );
        let q = Reading {
            question: true,
            guidance: &g,
        };
        assert!(answers(
            "Describe the consequences on existing workloads. None.",
            q
        ));
        assert!(!answers(
            "Describe the consequences on existing workloads (e.g. if this is a runtime feature).",
            q
        ));
    }
}
