//! The `<!-- toc -->` list of a README ([`Toc`]) and its comparison with the
//! headings of a [`Document`] → [`TocMismatch`]es.
//!
//! `hack/update-toc.sh` regenerates the list with GitHub anchors; KEPs that add
//! or rename sections by hand often forget to, which leaves dead links.

use super::anchor::lower;
use std::ops::Range;

use pulldown_cmark::{Event, Tag, TagEnd};

use super::Document;
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

/// Reads the `<!-- toc -->` list from the parser's events: its markers are
/// HTML blocks, its entries the list items' first links.
#[derive(Default)]
pub(super) struct TocReader {
    state: State,
    /// Inside a link of the list: its destination, text so far, line and
    /// the indentation of its line.
    link: Option<(String, String, usize, usize)>,
}

#[derive(Default)]
enum State {
    #[default]
    Before,
    Open(Toc),
    Done(Toc),
}

/// An HTML block that is only a TOC marker, compacted (`<!--toc-->`).
fn compact_marker(html: &str) -> Option<String> {
    let t = html.trim();
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

impl TocReader {
    /// One event at `range`, on `line` of `text`.
    pub(super) fn see(&mut self, ev: &Event<'_>, range: &Range<usize>, line: usize, text: &str) {
        match ev {
            Event::Start(Tag::HtmlBlock) => {
                if let Some(m) = compact_marker(&text[range.clone()]) {
                    self.marker(&m, line);
                }
            }
            _ if !matches!(self.state, State::Open(_)) => {}
            Event::Start(Tag::Link { dest_url, .. }) => {
                // every link of the list is an entry, also one the list
                // reads as a paragraph's text (an item indented too far)
                let line_start = text[..range.start].rfind('\n').map_or(0, |i| i + 1);
                let indent =
                    text[line_start..].len() - text[line_start..].trim_start_matches(' ').len();
                self.link = Some((dest_url.to_string(), String::new(), line, indent));
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some((_, text, _, _)) = self.link.as_mut() {
                    text.push_str(t);
                }
            }
            Event::End(TagEnd::Link) => {
                if let (Some((dest, text, line, indent)), State::Open(toc)) =
                    (self.link.take(), &mut self.state)
                {
                    let anchor = dest.rsplit_once('#').map_or(dest.as_str(), |(_, a)| a);
                    toc.entries.push(TocEntry {
                        text: super::collapse(&text),
                        anchor: anchor.trim().to_string(),
                        line,
                        indent,
                    });
                }
            }
            _ => {}
        }
    }

    fn marker(&mut self, m: &str, line: usize) {
        self.state = match (m, std::mem::take(&mut self.state)) {
            ("<!--toc-->", State::Before) => State::Open(Toc {
                line,
                end_line: None,
                entries: Vec::new(),
            }),
            ("<!--/toc-->", State::Open(mut toc)) => {
                toc.end_line = Some(line);
                State::Done(toc)
            }
            (_, state) => state,
        };
    }

    /// A heading ends an open list.
    pub(super) fn heading_seen(&mut self) {
        self.state = match std::mem::take(&mut self.state) {
            State::Open(toc) => State::Done(toc),
            other => other,
        };
    }

    pub(super) fn finish(self) -> Option<Toc> {
        match self.state {
            State::Before => None,
            State::Open(t) | State::Done(t) => Some(t),
        }
    }
}

/// `anchor` compared loosely (lowercase, letters and digits only), pushed
/// onto `out`.
fn push_loose(out: &mut String, anchor: &str) {
    if anchor.is_ascii() {
        for b in anchor.bytes().filter(u8::is_ascii_alphanumeric) {
            out.push(char::from(b.to_ascii_lowercase()));
        }
        return;
    }
    out.extend(lower(anchor).chars().filter(|c| c.is_alphanumeric()));
}

type Hasher = foldhash::fast::RandomState;
type Map<K, V> = std::collections::HashMap<K, V, Hasher>;

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
    // Loose anchors of the headings (numbered as GitHub numbers repeated
    // headings) and of the entries, in one buffer; the first heading of
    // each key in a hash map (a string per key, sorted and searched, was
    // the rule's time: 6% of `check`'s)
    let mut arena = String::new();
    let mut key_of = |anchor: &str| {
        let start = arena.len();
        push_loose(&mut arena, anchor);
        start..arena.len()
    };
    let heads: Vec<Range<usize>> = doc.sections.iter().map(|s| key_of(&s.anchor)).collect();
    let entries: Vec<Range<usize>> = toc.entries.iter().map(|e| key_of(&e.anchor)).collect();
    let key = |r: &Range<usize>| &arena[r.clone()];
    let mut by_key: Map<&str, usize> =
        Map::with_capacity_and_hasher(heads.len(), Hasher::default());
    for (i, r) in heads.iter().enumerate() {
        by_key.entry(key(r)).or_insert(i);
    }

    let mut out = Vec::new();
    let mut listed: Map<&str, ()> = Map::with_capacity_and_hasher(entries.len(), Hasher::default());
    let mut deepest = 0u8;
    for (e, r) in toc.entries.iter().zip(&entries) {
        match by_key.get(key(r)) {
            Some(&i) => deepest = deepest.max(doc.sections[i].level),
            None => out.push(TocMismatch::UnknownAnchor {
                text: e.text.clone(),
                anchor: e.anchor.clone(),
                line: e.line,
            }),
        }
        listed.insert(key(r), ());
    }
    let deepest = deepest.min(MAX_TOC_LEVEL);
    for (s, r) in doc.sections.iter().zip(&heads) {
        // The heading above the TOC itself is never listed in it.
        let is_toc_heading = ["table of contents", "contents", "toc"]
            .iter()
            .any(|t| s.title.trim().eq_ignore_ascii_case(t));
        if (2..=deepest).contains(&s.level) && !is_toc_heading && !listed.contains_key(key(r)) {
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
