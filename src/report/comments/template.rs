//! Comment templates as data: a Markdown file of sections, each heading
//! naming a deadline and a case ("Enhancements Freeze party: removed") and
//! its first fenced block the comment's text with `{placeholder}`s → a
//! [`Templates`] that fills them. kepsite's own file is `default.md`
//! beside this module; `--templates FILE` reads another in the same shape
//! (the Enhancements handbook's communication templates, for one), parsed
//! with pulldown-cmark.
//!
//! A heading is read by its words, with the headings above it: `code` →
//! Code Freeze, `prr` or `readiness` → PRR Freeze (KEP readiness),
//! `enhancements` → Enhancements Freeze, none of them → any deadline;
//! `party` or `day of` → the message sent at the deadline; `removed`,
//! `exception`, `at risk` / `not met` / `missing`, `tracked` / `met` → the
//! case. A heading with no case word has no template.

use std::collections::BTreeMap;

use anyhow::{Result, bail};
use pulldown_cmark::{CodeBlockKind, Event, Parser, Tag, TagEnd};

use super::{Case, Phase};

/// kepsite's own templates, in its own words.
pub const DEFAULT: &str = include_str!("default.md");

/// The placeholders a template may use (see `docs/report.md`).
pub const PLACEHOLDERS: &[&str] = &[
    "kep",
    "title",
    "issue",
    "release",
    "stage",
    "sig",
    "mentions",
    "checklist",
    "updates",
    "deadline",
    "deadline_name",
    "status",
    "verdict",
    "commands",
    "exception_process",
    "notes",
];

/// The key a section's heading gives: a deadline (any, when the heading
/// names none) and a case.
type Key = (Option<Phase>, Case);

/// One template's text, as lines with their line number in the file.
#[derive(Debug, Clone)]
struct Text {
    lines: Vec<(usize, String)>,
}

/// The templates of one file.
#[derive(Debug, Clone)]
pub struct Templates {
    by_key: BTreeMap<Key, Text>,
}

/// The 1-based line of byte `at` in `src`.
fn line_of(src: &str, at: usize) -> usize {
    src[..at.min(src.len())]
        .bytes()
        .filter(|b| *b == b'\n')
        .count()
        + 1
}

/// The key of a heading path's words, when it names a case.
fn key(words: &str) -> Option<Key> {
    let t: Vec<String> = words
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let t = format!(" {} ", t.join(" "));
    let has = |w: &[&str]| w.iter().any(|w| t.contains(&format!(" {w} ")));
    let case = if has(&["removed"]) {
        Case::Removed
    } else if has(&["exception", "exceptions"]) {
        Case::Exception
    } else if has(&["at risk", "not met", "missing"]) {
        Case::AtRisk
    } else if has(&["tracked", "met"]) {
        Case::Tracked
    } else {
        return None;
    };
    let party = has(&["party", "day of"]);
    let phase = if has(&["code"]) {
        Some(if party { Phase::CodeParty } else { Phase::Code })
    } else if has(&["prr", "readiness"]) {
        Some(Phase::Prr)
    } else if has(&["enhancement", "enhancements"]) {
        Some(if party {
            Phase::EnhancementsParty
        } else {
            Phase::Enhancements
        })
    } else {
        None
    };
    Some((phase, case))
}

impl Templates {
    /// Parse a template file; `name` names it in errors. Every placeholder
    /// of every block must be known: an unknown one is an error naming it
    /// and its line.
    pub fn parse(src: &str, name: &str) -> Result<Templates> {
        let mut path: Vec<(usize, String)> = Vec::new();
        let mut heading: Option<(usize, String)> = None;
        let mut block: Option<Text> = None;
        let mut taken = false;
        let mut by_key = BTreeMap::new();
        for (ev, range) in Parser::new(src).into_offset_iter() {
            match ev {
                Event::Start(Tag::Heading { level, .. }) => {
                    heading = Some((level as usize, String::new()));
                }
                Event::End(TagEnd::Heading(_)) => {
                    if let Some((level, text)) = heading.take() {
                        path.retain(|(l, _)| *l < level);
                        path.push((level, text));
                        taken = false;
                    }
                }
                Event::Text(t) | Event::Code(t) if heading.is_some() => {
                    if let Some((_, h)) = heading.as_mut() {
                        h.push_str(&t);
                    }
                }
                Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(_))) if !taken => {
                    block = Some(Text { lines: Vec::new() });
                }
                Event::Text(t) if block.is_some() => {
                    let first = line_of(src, range.start);
                    if let Some(b) = block.as_mut() {
                        for (i, l) in t.lines().enumerate() {
                            b.lines.push((first + i, l.to_string()));
                        }
                    }
                }
                Event::End(TagEnd::CodeBlock) => {
                    if let Some(b) = block.take() {
                        taken = true;
                        check(&b, name)?;
                        let words: Vec<&str> = path.iter().map(|(_, t)| t.as_str()).collect();
                        if let Some(k) = key(&words.join(" / ")) {
                            by_key.entry(k).or_insert(b);
                        }
                    }
                }
                _ => {}
            }
        }
        if by_key.is_empty() {
            bail!(
                "{name}: no template: no heading names a case (tracked, at risk, removed, exception) above a fenced block"
            );
        }
        Ok(Templates { by_key })
    }

    /// kepsite's own templates.
    pub fn builtin() -> Templates {
        Templates::parse(DEFAULT, "default.md").expect("the default templates parse")
    }

    /// The template for `case` at `phase`: the phase's own, else (a
    /// deadline's message) the deadline's reminder's, else any deadline's.
    fn text(&self, phase: Phase, case: Case) -> Option<&Text> {
        [Some(phase), Some(phase.reminder()), None]
            .into_iter()
            .find_map(|p| self.by_key.get(&(p, case)))
    }

    /// The comment for `case` at `phase`, its placeholders filled from
    /// `values`.
    pub fn fill(
        &self,
        phase: Phase,
        case: Case,
        values: &BTreeMap<&str, String>,
    ) -> Result<String> {
        let Some(t) = self.text(phase, case) else {
            bail!(
                "the templates have no section for {} / {} (a heading naming the deadline and the case)",
                phase.id(),
                case.id()
            );
        };
        let mut out = String::new();
        for (_, l) in &t.lines {
            let filled = placeholders(l, |name| values.get(name).cloned().unwrap_or_default());
            out.push_str(filled.trim_end());
            out.push('\n');
        }
        // A placeholder with nothing to say leaves no run of blank lines.
        while out.contains("\n\n\n") {
            out = out.replace("\n\n\n", "\n\n");
        }
        Ok(out.trim().to_string() + "\n")
    }
}

/// Every placeholder of `b` known, or an error naming the first unknown
/// one and its line.
fn check(b: &Text, name: &str) -> Result<()> {
    for (line, l) in &b.lines {
        let mut unknown = None;
        placeholders(l, |p| {
            if !PLACEHOLDERS.contains(&p) && unknown.is_none() {
                unknown = Some(p.to_string());
            }
            String::new()
        });
        if let Some(p) = unknown {
            bail!(
                "{name}:{line}: unknown placeholder {{{p}}} (known: {})",
                PLACEHOLDERS.join(", ")
            );
        }
    }
    Ok(())
}

/// `line` with each `{name}` (a letter, then letters, digits, `_` or
/// `-`) replaced by `value(name)`; any other brace stays.
fn placeholders(line: &str, mut value: impl FnMut(&str) -> String) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let name_len = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
            .unwrap_or(after.len());
        let name = &after[..name_len];
        let closes = after[name_len..].starts_with('}');
        if closes && name.starts_with(|c: char| c.is_ascii_alphabetic()) {
            out.push_str(&value(name));
            rest = &after[name_len + 1..];
        } else {
            out.push('{');
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_fill_and_other_braces_stay() {
        let got = placeholders("a {kep} {x y} {} {{ {1a} {title}", |n| n.to_uppercase());
        assert_eq!(got, "a KEP {x y} {} {{ {1a} TITLE");
    }

    #[test]
    fn headings_give_keys() {
        assert_eq!(
            key("Templates / Enhancements Freeze party: removed"),
            Some((Some(Phase::EnhancementsParty), Case::Removed))
        );
        assert_eq!(
            key("KEP readiness / At risk"),
            Some((Some(Phase::Prr), Case::AtRisk))
        );
        assert_eq!(
            key("Any deadline: exception"),
            Some((None, Case::Exception))
        );
        assert_eq!(key("Introduction"), None);
    }

    #[test]
    fn an_unknown_placeholder_names_itself_and_its_line() {
        let src = "# T\n\n## Code Freeze: tracked\n\n```\nok {kep}\nbad {nope}\n```\n";
        let e = Templates::parse(src, "t.md").unwrap_err().to_string();
        assert!(e.starts_with("t.md:7: unknown placeholder {nope}"), "{e}");
    }

    #[test]
    fn the_default_templates_cover_every_phase_and_case() {
        let t = Templates::builtin();
        let values = BTreeMap::new();
        for p in Phase::ALL {
            for c in Case::ALL {
                assert!(t.fill(p, c, &values).is_ok(), "{p:?} {c:?}");
            }
        }
    }

    #[test]
    fn a_deadlines_message_falls_back_to_its_reminder_then_any() {
        let src =
            "## Code Freeze: tracked\n\n```\nreminder\n```\n\n## Any: removed\n\n```\ngone\n```\n";
        let t = Templates::parse(src, "t.md").unwrap();
        let v = BTreeMap::new();
        assert_eq!(
            t.fill(Phase::CodeParty, Case::Tracked, &v).unwrap(),
            "reminder\n"
        );
        assert_eq!(t.fill(Phase::Prr, Case::Removed, &v).unwrap(), "gone\n");
        assert!(t.fill(Phase::Prr, Case::Tracked, &v).is_err());
    }
}
