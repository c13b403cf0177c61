//! Counting a body's terms passage by passage ([`super::BodyTerms::of`]).

use super::{FastMap, W_BODY_MAX, body_words};

/// The first eight bytes of `term` as a big-endian number, zero-padded:
/// ordered as the terms are where they differ in those bytes.
fn prefix_key(term: &str) -> u64 {
    let mut k = [0u8; 8];
    let n = term.len().min(8);
    k[..n].copy_from_slice(&term.as_bytes()[..n]);
    u64::from_be_bytes(k)
}

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
    /// Terms of up to eight bytes, by [`prefix_key`] (which is the whole
    /// term for them: no term holds a NUL): one multiply hashes it and one
    /// comparison finds it, where hashing and comparing a string was a
    /// third of the counting.
    short: FastMap<u64, u32>,
    /// Longer terms.
    index: FastMap<&'a str, u32>,
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
            short: FastMap::default(),
            index: FastMap::default(),
            terms: Vec::new(),
            tally: Vec::new(),
            here: Vec::new(),
            passage: 1,
        }
    }

    /// Each term with its count and best section (1-based, 0 for none),
    /// in the terms' order.
    pub(super) fn sorted(self) -> Vec<(&'a str, u8, u16)> {
        // Sorted by each term's first eight bytes as a number, then by the
        // whole term: the same order as by the terms (no term holds a NUL,
        // the padding), with most comparisons one of two integers.
        let mut keyed: Vec<(u64, &str, u8, u16)> = self
            .terms
            .into_iter()
            .zip(self.tally)
            .map(|(t, e)| (prefix_key(t), t, e.total, e.best))
            .collect();
        keyed.sort_unstable_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(b.1)));
        keyed.into_iter().map(|(_, t, n, b)| (t, n, b)).collect()
    }

    /// Count the index terms of lowercased `text` in the passage being read.
    pub(super) fn count(&mut self, text: &'a str) {
        for t in body_words(text) {
            let next = self.terms.len() as u32;
            let i = match t.len() {
                ..=8 => *self.short.entry(prefix_key(t)).or_insert(next),
                _ => *self.index.entry(t).or_insert(next),
            } as usize;
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

#[cfg(test)]
mod tests {
    use super::super::{keep_body_word, words};
    use super::*;
    use proptest::prelude::*;
    use std::hash::BuildHasher;

    proptest! {
        /// The fused reader keeps exactly the words the two-pass one keeps.
        #[test]
        fn body_words_are_the_kept_words(text in "[a-z0-9 .\\-_é]{0,120}") {
            let fused: Vec<&str> = body_words(&text).collect();
            let two_pass: Vec<&str> = words(&text).filter(|w| keep_body_word(w)).collect();
            prop_assert_eq!(fused, two_pass);
        }

        /// The prefix-keyed sort orders terms as sorting the strings does.
        #[test]
        fn sorted_is_in_term_order(text in "[a-c0-9 ]{0,200}") {
            let mut t = Tallies::new();
            t.count(&text);
            t.flush(1, false);
            let got: Vec<&str> = t.sorted().into_iter().map(|(w, ..)| w).collect();
            let mut want: Vec<&str> = body_words(&text).collect();
            want.sort_unstable();
            want.dedup();
            prop_assert_eq!(got, want);
        }
    }

    proptest! {
        /// Terms of up to eight bytes and longer ones are counted alike:
        /// each term's total (capped) as a plain count of its words gives.
        #[test]
        fn short_and_long_terms_count_alike(text in "[a-c]{1,11}( [a-c]{1,11}){0,40}") {
            let mut t = Tallies::new();
            t.count(&text);
            t.flush(1, false);
            let got: Vec<(&str, u8)> = t.sorted().into_iter().map(|(w, n, _)| (w, n)).collect();
            let mut want = std::collections::BTreeMap::<&str, u32>::new();
            for w in body_words(&text) {
                *want.entry(w).or_default() += 1;
            }
            let want: Vec<(&str, u8)> =
                want.into_iter().map(|(w, n)| (w, n.min(W_BODY_MAX) as u8)).collect();
            prop_assert_eq!(got, want);
        }
    }

    #[test]
    fn digits_decide_as_before() {
        let kept: Vec<&str> =
            body_words("ab 12345 123456 a1b2c3 abc1 k8s v1 sha256 deadbeef12").collect();
        // a number of up to five digits, or a word at most a third digits
        assert_eq!(kept, ["ab", "12345", "abc1", "k8s", "deadbeef12"]);
    }

    /// The word maps are seeded: two of them put the same words in
    /// different places, so no README can be written to collide in every
    /// build (an unseeded hasher such as FxHash agrees every time).
    #[test]
    fn word_maps_hash_with_a_seed_of_their_own() {
        let (a, b) = (
            FastMap::<&str, u32>::default(),
            FastMap::<&str, u32>::default(),
        );
        let sample = ["kubelet", "sidecar", "pod", "feature", "gate", "beta"];
        let differ = sample
            .iter()
            .filter(|w| a.hasher().hash_one(w) != b.hasher().hash_one(w))
            .count();
        assert!(
            differ >= 5,
            "{differ} of {} words hashed alike",
            sample.len()
        );
    }
}
