//! The `<!-- toc -->` list of a README ([`Toc`]) and its comparison with the
//! headings of a [`Document`] → [`TocMismatch`]es.
//!
//! `hack/update-toc.sh` regenerates the list with GitHub anchors; KEPs that add
//! or rename sections by hand often forget to, which leaves dead links.

use super::anchor::{Anchors, lower, slug};
use super::{Document, plain_title};
use serde::Serialize;

/// One link of the table of contents.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TocEntry {
    /// Link text, markup stripped.
    pub text: String,
    /// Link target without the leading `#` (the whole target if it has none).
    pub anchor: String,
    /// 1-based line of the entry.
    pub line: usize,
    /// Leading spaces before the list marker (nesting depth, roughly 2 per level).
    pub indent: usize,
}

/// The list between `<!-- toc -->` and `<!-- /toc -->`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Toc {
    /// 1-based line of the `<!-- toc -->` marker.
    pub line: usize,
    /// 1-based line of the `<!-- /toc -->` marker; `None` when it is missing
    /// (the list then ends at the next heading).
    pub end_line: Option<usize>,
    /// Links in order.
    pub entries: Vec<TocEntry>,
}

/// A clear disagreement between the table of contents and the headings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TocMismatch {
    /// A TOC link whose anchor matches no heading.
    UnknownAnchor {
        /// Link text.
        text: String,
        /// Link anchor.
        anchor: String,
        /// Line of the entry.
        line: usize,
    },
    /// A heading at a depth the TOC covers that has no TOC link.
    MissingEntry {
        /// Heading title.
        title: String,
        /// Heading level.
        level: u8,
        /// Line of the heading.
        line: usize,
    },
}

#[derive(Default)]
enum State {
    #[default]
    Before,
    Open(Toc),
    Done(Toc),
}

/// Collects the TOC while [`super::parse`] walks the lines.
#[derive(Default)]
pub(super) struct TocBuilder {
    state: State,
}

fn compact_marker(line: &str) -> Option<String> {
    let t = line.trim();
    if !(t.starts_with("<!--") && t.ends_with("-->")) || t.len() > 40 {
        return None;
    }
    Some(
        t.chars()
            .filter(|c| !c.is_whitespace())
            .collect::<String>()
            .to_ascii_lowercase(),
    )
}

impl TocBuilder {
    /// Consumes the line when it is a `<!-- toc -->` or `<!-- /toc -->` marker.
    pub(super) fn marker(&mut self, line: &str, line_no: usize) -> bool {
        let Some(m) = compact_marker(line) else {
            return false;
        };
        match (m.as_str(), std::mem::take(&mut self.state)) {
            ("<!--toc-->", State::Before) => {
                self.state = State::Open(Toc {
                    line: line_no,
                    end_line: None,
                    entries: Vec::new(),
                });
                true
            }
            ("<!--/toc-->", State::Open(mut toc)) => {
                toc.end_line = Some(line_no);
                self.state = State::Done(toc);
                true
            }
            (_, state) => {
                self.state = state;
                false
            }
        }
    }

    /// A heading ends an unterminated list.
    pub(super) fn heading_seen(&mut self) {
        self.state = match std::mem::take(&mut self.state) {
            State::Open(toc) => State::Done(toc),
            other => other,
        };
    }

    pub(super) fn line(&mut self, line: &str, line_no: usize) {
        if let State::Open(toc) = &mut self.state
            && let Some(entry) = toc_entry(line, line_no)
        {
            toc.entries.push(entry);
        }
    }

    pub(super) fn finish(self) -> Option<Toc> {
        match self.state {
            State::Before => None,
            State::Open(t) | State::Done(t) => Some(t),
        }
    }
}

/// `  - [Text](#anchor)` → entry.
fn toc_entry(line: &str, line_no: usize) -> Option<TocEntry> {
    let indent = line.bytes().take_while(|&b| b == b' ').count();
    let rest = &line[indent..];
    let rest = rest
        .strip_prefix("- ")
        .or_else(|| rest.strip_prefix("* "))
        .or_else(|| rest.strip_prefix("+ "))?
        .trim_start();
    let rest = rest.strip_prefix('[')?;
    let close = rest.rfind("](")?;
    let text = plain_title(&rest[..close]);
    let target = &rest[close + 2..];
    let target = &target[..target.find(')')?];
    let anchor = target.rsplit_once('#').map_or(target, |(_, a)| a).trim();
    Some(TocEntry {
        text,
        anchor: anchor.to_string(),
        line: line_no,
        indent,
    })
}

/// Anchors compared loosely: only letters and digits, so `upgrade--downgrade`
/// (GitHub) and `upgrade-downgrade` (other generators) agree.
fn loose(anchor: &str) -> String {
    let mut l = lower(anchor);
    l.retain(char::is_alphanumeric);
    l
}

/// Deepest heading level `hack/update-toc.sh` lists.
const MAX_TOC_LEVEL: u8 = 5;

/// Where the TOC and the headings clearly disagree: links to no heading, and
/// headings of level 2 to the deepest level the TOC lists (at most 5) without
/// a link. Anchors are compared loosely; a document without a TOC, or with an
/// empty one, has no mismatches.
pub fn toc_mismatches(doc: &Document) -> Vec<TocMismatch> {
    let Some(toc) = doc.toc.as_ref().filter(|t| !t.entries.is_empty()) else {
        return Vec::new();
    };
    // Loose heading anchors, numbered as GitHub numbers repeated headings.
    let mut anchors = Anchors::default();
    let keys: Vec<String> = doc
        .sections
        .iter()
        .map(|s| loose(&anchors.unique(slug(&s.raw_title))))
        .collect();
    let mut by_key: Vec<(&str, usize)> = keys.iter().map(String::as_str).zip(0..).collect();
    by_key.sort_unstable();
    let find = |k: &str| {
        let i = by_key.partition_point(|(key, _)| *key < k);
        by_key.get(i).filter(|(key, _)| *key == k).map(|&(_, s)| s)
    };

    let mut out = Vec::new();
    let mut listed: Vec<String> = Vec::with_capacity(toc.entries.len());
    let mut deepest = 0u8;
    for e in &toc.entries {
        let key = loose(&e.anchor);
        match find(&key) {
            Some(i) => deepest = deepest.max(doc.sections[i].level),
            None => out.push(TocMismatch::UnknownAnchor {
                text: e.text.clone(),
                anchor: e.anchor.clone(),
                line: e.line,
            }),
        }
        listed.push(key);
    }
    listed.sort_unstable();
    let deepest = deepest.min(MAX_TOC_LEVEL);
    for (s, key) in doc.sections.iter().zip(&keys) {
        // The heading above the TOC itself is never listed in it.
        let is_toc_heading = matches!(
            s.title.trim().to_ascii_lowercase().as_str(),
            "table of contents" | "contents" | "toc"
        );
        if (2..=deepest).contains(&s.level) && !is_toc_heading && listed.binary_search(key).is_err()
        {
            out.push(TocMismatch::MissingEntry {
                title: s.title.clone(),
                level: s.level,
                line: s.line,
            });
        }
    }
    out.sort_by_key(|m| match m {
        TocMismatch::UnknownAnchor { line, .. } | TocMismatch::MissingEntry { line, .. } => *line,
    });
    out
}
