//! A README's plain text and its headings ([`Section`]s) → [`BodyTerms`]:
//! every term with how often it occurs and the section where it occurs most
//! densely. The text is cut into [`Passage`]s (each inside one section, a few
//! sentences long) to find that section; a search result then opens it, with
//! the words marked there, so a match deep in a KEP opens where it is.

use super::tally::Tallies;

mod words;
use words::whitespace_words;

/// Longest passage, in characters (a passage ends at a word boundary).
pub const PASSAGE_CHARS: usize = 240;

/// A heading of a README: where its section starts in the plain text
/// (`Rendered::text`, at the heading's own text), its level, its anchor and
/// its text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Section {
    /// Byte offset of the heading's text in the plain text.
    pub start: usize,
    /// The heading's level in the README (1 for `#`).
    pub level: u8,
    /// The heading's anchor id on the page.
    pub id: String,
    /// The heading's text.
    pub title: String,
}

/// A README's headings, held compactly: a build keeps every KEP's until
/// the search index is built (a `Section` each, with two strings, was about
/// 150 bytes a heading, 90 MB on the 10x corpus). Each heading's level,
/// and where its anchor and its title end in one string.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Heads {
    text: String,
    /// (level, end of the anchor, end of the title) in `text`.
    marks: Vec<(u8, u32, u32)>,
}

/// One heading of [`Heads`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Head<'a> {
    /// Its level in the README (1 for `#`).
    pub level: u8,
    /// Its anchor id on the page.
    pub id: &'a str,
    /// Its text.
    pub title: &'a str,
}

impl Heads {
    /// The headings of `sections`.
    pub fn of(sections: &[Section]) -> Heads {
        let mut text =
            String::with_capacity(sections.iter().map(|s| s.id.len() + s.title.len()).sum());
        let mut marks = Vec::with_capacity(sections.len());
        for s in sections {
            text.push_str(&s.id);
            let id_end = text.len() as u32;
            text.push_str(&s.title);
            marks.push((s.level, id_end, text.len() as u32));
        }
        Heads { text, marks }
    }

    /// How many headings.
    pub fn len(&self) -> usize {
        self.marks.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.marks.is_empty()
    }

    /// Heading `i` (0-based).
    pub fn get(&self, i: usize) -> Option<Head<'_>> {
        let &(level, id_end, end) = self.marks.get(i)?;
        let start = i.checked_sub(1).map_or(0, |p| self.marks[p].2 as usize);
        Some(Head {
            level,
            id: self.text.get(start..id_end as usize)?,
            title: self.text.get(id_end as usize..end as usize)?,
        })
    }

    /// The headings in order.
    pub fn iter(&self) -> impl Iterator<Item = Head<'_>> + '_ {
        (0..self.len()).filter_map(|i| self.get(i))
    }
}

/// A few sentences of one section.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Passage {
    /// The section it is in: 1-based index into the sections (0 before the
    /// first heading).
    pub section: u16,
    /// The text, whitespace collapsed.
    pub text: String,
}

/// The distinct index terms of a README body, each with how often it occurs
/// (capped at the body's largest weight) and the section (1-based, 0 for
/// none) of the passage where it occurs most. Computed once per rendering.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BodyTerms {
    /// The terms (ASCII alphanumerics), each followed by one space.
    terms: String,
    /// Each term's count, in the same order.
    counts: Vec<u8>,
    /// Each term's best section, 1-based (0: none).
    best: Vec<u16>,
    /// The README's headings.
    heads: Heads,
}

/// Cut `body` into passages along `sections` (sorted by `start`).
pub fn passages(body: &str, sections: &[Section]) -> Vec<Passage> {
    let mut out: Vec<Passage> = Vec::new();
    for (section, text) in section_texts(body, sections) {
        for (new, w) in passage_words(text) {
            match out.last_mut() {
                Some(p) if !new => p.text.push(' '),
                _ => out.push(Passage {
                    section,
                    text: String::new(),
                }),
            }
            if let Some(p) = out.last_mut() {
                p.text.push_str(w);
            }
        }
    }
    out
}

/// The words of one section's `text`, each with whether it begins a
/// passage: a passage ends at a word boundary before its words, one space
/// apart, would pass [`PASSAGE_CHARS`] characters.
fn passage_words(text: &str) -> impl Iterator<Item = (bool, &str)> + '_ {
    let mut chars = 0;
    whitespace_words(text).map(move |(w, n)| {
        let new = chars == 0 || chars + 1 + n > PASSAGE_CHARS;
        chars = if new { n } else { chars + 1 + n };
        (new, w)
    })
}

/// The sections of `body` as [`passages`] reads them: the 1-based section
/// (0 before the first heading) and its text without the heading's line.
fn section_texts<'b>(
    body: &'b str,
    sections: &'b [Section],
) -> impl Iterator<Item = (u16, &'b str)> + 'b {
    let first = sections
        .first()
        .map_or(body.len(), |s| s.start.min(body.len()));
    let before = std::iter::once((0, body.get(..first).unwrap_or("")));
    let within = sections
        .iter()
        .enumerate()
        .take(usize::from(u16::MAX) - 1)
        .filter_map(move |(i, s)| {
            let end = sections.get(i + 1).map_or(body.len(), |n| n.start);
            let text = body.get(s.start..end.max(s.start))?;
            Some((
                i as u16 + 1,
                text.split_once('\n').map_or("", |(_, rest)| rest),
            ))
        });
    before.chain(within)
}

impl BodyTerms {
    /// The terms of `body` with headings `sections`, as the index reads them.
    ///
    /// It reads the [`passages`] without making them: the body is
    /// lowercased once and the words of each passage are counted in place
    /// (a tenth of a build's CPU when each passage was a string of its own).
    pub fn of(body: &str, sections: &[Section]) -> BodyTerms {
        let heads = Heads::of(&sections[..sections.len().min(usize::from(u16::MAX) - 1)]);
        let lower = body.to_ascii_lowercase();
        let titles: Vec<String> = sections
            .iter()
            .take(heads.len())
            .map(|h| h.title.to_ascii_lowercase())
            .collect();
        let mut tallies = Tallies::new();
        for (section, text) in section_texts(&lower, sections) {
            let head = usize::from(section).checked_sub(1);
            // the table of contents is never a term's best section
            let contents = head.is_some_and(|i| {
                sections[i]
                    .title
                    .trim()
                    .eq_ignore_ascii_case("table of contents")
            });
            let mut started = false;
            for (new, word) in passage_words(text) {
                if new && started {
                    tallies.flush(section, contents);
                }
                if !started {
                    // a heading counts once, with its section's first passage
                    started = true;
                    if let Some(i) = head {
                        tallies.count(titles[i].as_str());
                    }
                }
                tallies.count(word);
            }
            if started {
                tallies.flush(section, contents);
            }
        }
        let sorted = tallies.sorted();
        let mut out = BodyTerms {
            terms: String::with_capacity(sorted.iter().map(|(t, ..)| t.len() + 1).sum()),
            counts: Vec::with_capacity(sorted.len()),
            best: Vec::with_capacity(sorted.len()),
            heads,
        };
        for (t, count, best) in sorted {
            out.terms.push_str(t);
            out.terms.push(' ');
            out.counts.push(count);
            out.best.push(best);
        }
        out
    }

    /// Each term with its count and best section (1-based, 0 for none).
    pub(super) fn iter(&self) -> impl Iterator<Item = (&str, u8, u16)> + '_ {
        self.iter_between((0, 0), (self.terms.len() as u32, self.counts.len() as u32))
    }

    /// Where the terms whose code (`code` of the term; in term order) is at
    /// least each of `bounds` begin: the byte in `terms` and the index.
    pub(super) fn cuts(&self, bounds: &[u32], code: fn(&str) -> u16) -> Vec<(u32, u32)> {
        let mut out = Vec::with_capacity(bounds.len());
        let mut at = (0u32, 0u32);
        let mut terms = self.terms.split_terminator(' ');
        let mut next = terms.next();
        for &b in bounds {
            while let Some(t) = next.filter(|t| u32::from(code(t)) < b) {
                at = (at.0 + t.len() as u32 + 1, at.1 + 1);
                next = terms.next();
            }
            out.push(at);
        }
        out
    }

    /// The terms from one place to another, as [`BodyTerms::cuts`] gives
    /// them (the byte in `terms` and the index).
    pub(super) fn iter_between(
        &self,
        from: (u32, u32),
        to: (u32, u32),
    ) -> impl Iterator<Item = (&str, u8, u16)> + '_ {
        let bytes = from.0 as usize..(to.0 as usize).min(self.terms.len());
        let index = from.1 as usize..(to.1 as usize).min(self.counts.len());
        self.terms
            .get(bytes)
            .unwrap_or("")
            .split_terminator(' ')
            .zip(
                self.counts
                    .get(index.clone())
                    .unwrap_or(&[])
                    .iter()
                    .copied(),
            )
            .zip(self.best.get(index).unwrap_or(&[]).iter().copied())
            .map(|((t, n), b)| (t, n, b))
    }

    /// The README's headings; a term's best section indexes them from 1.
    pub fn heads(&self) -> &Heads {
        &self.heads
    }

    /// Whether it holds together: terms of ASCII letters and digits, one
    /// space after each, a count and a section in range for each.
    pub fn sound(&self) -> bool {
        let n = self.counts.len();
        (self.terms.is_empty() || self.terms.ends_with(' '))
            && self.terms.bytes().filter(|&c| c == b' ').count() == n
            && self.best.len() == n
            && self
                .terms
                .bytes()
                .all(|c| c == b' ' || c.is_ascii_alphanumeric())
            && !self.terms.contains("  ")
            && !self.terms.starts_with(' ')
            && self
                .best
                .iter()
                .all(|&p| usize::from(p) <= self.heads.len())
    }
}

#[cfg(test)]
mod tests;
