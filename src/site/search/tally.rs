//! Counting a body's terms passage by passage ([`super::BodyTerms::of`]).

use super::{FxMap, W_BODY_MAX, keep_body_word, words};

/// What is counted of one term of a body.
#[derive(Clone, Copy)]
struct Tally {
    /// Occurrences in the body, capped at [`W_BODY_MAX`].
    total: u8,
    /// The passage's section where it occurs most (1-based, 0 for none).
    best: u16,
    /// Its count in that passage.
    best_n: u16,
    /// Its count in the passage being read.
    here: u16,
    /// The passage `here` counts in (`Tallies`'s `passage`).
    seen_in: u32,
}

/// The terms of a body being counted, passage by passage: each word is
/// looked up once, and the end of a passage visits only its own terms.
pub(super) struct Tallies<'a> {
    index: FxMap<&'a str, u32>,
    terms: Vec<&'a str>,
    tally: Vec<Tally>,
    /// The terms of the passage being read.
    here: Vec<u32>,
    /// The passage being read, counted from 1.
    passage: u32,
}

impl<'a> Tallies<'a> {
    /// Nothing counted, the first passage being read.
    pub(super) fn new() -> Self {
        Tallies {
            index: FxMap::default(),
            terms: Vec::new(),
            tally: Vec::new(),
            here: Vec::new(),
            passage: 1,
        }
    }

    /// Each term with its count and best section (1-based, 0 for none),
    /// in the terms' order.
    pub(super) fn sorted(self) -> Vec<(&'a str, u8, u16)> {
        let mut out: Vec<(&str, u8, u16)> = self
            .terms
            .into_iter()
            .zip(self.tally)
            .map(|(t, e)| (t, e.total, e.best))
            .collect();
        out.sort_unstable_by(|a, b| a.0.cmp(b.0));
        out
    }

    /// Count the index terms of lowercased `text` in the passage being read.
    pub(super) fn count(&mut self, text: &'a str) {
        for t in words(text).filter(|t| keep_body_word(t)) {
            let next = self.terms.len() as u32;
            let i = *self.index.entry(t).or_insert(next) as usize;
            if i == self.terms.len() {
                self.terms.push(t);
                self.tally.push(Tally {
                    total: 0,
                    best: 0,
                    best_n: 0,
                    here: 0,
                    seen_in: 0,
                });
            }
            let e = &mut self.tally[i];
            if e.seen_in != self.passage {
                e.seen_in = self.passage;
                e.here = 0;
                self.here.push(i as u32);
            }
            e.here += 1;
        }
    }

    /// End the passage being read (of `section`, the table of contents if
    /// `contents`): add its counts to the body's.
    pub(super) fn flush(&mut self, section: u16, contents: bool) {
        for &i in &self.here {
            let e = &mut self.tally[i as usize];
            e.total = (u16::from(e.total) + e.here).min(W_BODY_MAX as u16) as u8;
            if !contents && e.here > e.best_n {
                e.best = section;
                e.best_n = e.here;
            }
        }
        self.here.clear();
        self.passage += 1;
    }
}
