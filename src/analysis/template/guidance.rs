//! A template question's guidance text (`&str`) → [`Guidance`]: its word
//! 4-grams, against which an answer is checked for being the guidance pasted
//! without its comment markers ([`Guidance::pasted`]).

/// Word 4-grams of a template text, hashed and sorted: the phrases an answer
/// that is pasted guidance shares with it, whatever the punctuation, line
/// wrapping, comment markers and order of its sentences.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Guidance {
    shingles: Vec<u64>,
    /// Words of the text(s) the shingles come from.
    words: usize,
}

/// Words per shingle: long enough that answers rarely share one by chance.
const SHINGLE: usize = 4;

/// A sentence of fewer words without a word of the guidance is an answer of
/// its own (`No.`, `None known.`), wherever it stands.
const SHORT_SENTENCE: usize = 8;

/// A piece of an answer for [`Guidance::pasted`]: a skeleton unit, or a
/// sentence of the paragraph or list item numbered `unit`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Piece {
    pub(crate) text: String,
    pub(crate) skeleton: bool,
    pub(crate) unit: usize,
}

/// Share of an answer's words (in percent) that must lie in shingles of the
/// guidance for the answer to be read as pasted guidance.
const MIN_COVERAGE_PERCENT: usize = 75;

/// The hash of each word of `text`, lowercased: words are compared by hash.
fn words(text: &str) -> Vec<u64> {
    let mut lower = String::new();
    if text.is_ascii() {
        // one pass over the bytes (most answers): a word is a run of ASCII
        // letters and digits, as `char::is_alphanumeric` reads ASCII
        let mut out = Vec::with_capacity(text.len() / 6);
        let mut word = Vec::with_capacity(32);
        for &b in text.as_bytes() {
            if b.is_ascii_alphanumeric() {
                word.push(b.to_ascii_lowercase());
            } else if !word.is_empty() {
                out.push(crate::hash::hash64(&word));
                word.clear();
            }
        }
        if !word.is_empty() {
            out.push(crate::hash::hash64(&word));
        }
        return out;
    }
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| {
            lower.clear();
            lower.extend(w.chars().flat_map(char::to_lowercase));
            crate::hash::hash64(lower.as_bytes())
        })
        .collect()
}

fn shingle_hash(words: &[u64]) -> u64 {
    let mut bytes = [0u8; 8 * SHINGLE];
    for (chunk, w) in bytes.chunks_exact_mut(8).zip(words) {
        chunk.copy_from_slice(&w.to_le_bytes());
    }
    crate::hash::hash64(&bytes)
}

impl Guidance {
    /// No guidance: nothing is pasted guidance.
    pub const EMPTY: Guidance = Guidance {
        shingles: Vec::new(),
        words: 0,
    };

    /// The shingles of `text` (a template section's text, comments included).
    pub fn new(text: &str) -> Guidance {
        let words = words(text);
        let mut shingles: Vec<u64> = words.windows(SHINGLE).map(shingle_hash).collect();
        shingles.sort_unstable();
        shingles.dedup();
        Guidance {
            shingles,
            words: words.len(),
        }
    }

    /// Adds the shingles of `other` (a question's group's guidance).
    pub fn extend(&mut self, other: &Guidance) {
        self.shingles.extend_from_slice(&other.shingles);
        self.shingles.sort_unstable();
        self.shingles.dedup();
        self.words += other.words;
    }

    /// Most words of an answer that can still be pasted guidance: twice the
    /// guidance, so that the reading of a long answer stops early.
    pub(crate) fn longest_paste(&self) -> usize {
        self.words * 2
    }

    /// Words in `text`, counted as [`Guidance::pasted`] counts them.
    pub(crate) fn count_words(text: &str) -> usize {
        text.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .count()
    }

    /// Whether `text` (a paragraph or list item) is the author's own on its
    /// face: a shingle's worth of words or more, and not one shingle of the
    /// guidance among them. Such a unit answers, so the reading stops there.
    pub(crate) fn is_foreign(&self, text: &str) -> bool {
        let words = words(text);
        words.len() >= SHINGLE
            && !words
                .windows(SHINGLE)
                .any(|w| self.shingles.binary_search(&shingle_hash(w)).is_ok())
    }

    /// Whether there is no guidance.
    pub fn is_empty(&self) -> bool {
        self.shingles.is_empty()
    }

    /// Whether an answer, in `pieces`, is pasted guidance: its words outside
    /// skeleton number a shingle or more and [`MIN_COVERAGE_PERCENT`] of them
    /// lie in shingles of the guidance, with no paragraph (or list item) and
    /// no short sentence without a word in one: `No.` after pasted guidance
    /// answers. Skeleton pieces only link the shingles around them.
    pub(crate) fn pasted(&self, pieces: &[Piece]) -> bool {
        if self.is_empty() {
            return false;
        }
        let per_piece: Vec<Vec<u64>> = pieces.iter().map(|p| words(&p.text)).collect();
        let all: Vec<u64> = per_piece.iter().flatten().copied().collect();
        let mut covered = vec![false; all.len()];
        for (i, w) in all.windows(SHINGLE).enumerate() {
            if self.shingles.binary_search(&shingle_hash(w)).is_ok() {
                covered[i..i + SHINGLE].iter_mut().for_each(|c| *c = true);
            }
        }
        // (words, covered words) of each unit, and of the text as a whole
        let mut units: Vec<(usize, usize)> = Vec::new();
        let (mut at, mut total, mut hit) = (0, 0, 0);
        for (piece, w) in pieces.iter().zip(&per_piece) {
            let n = covered[at..at + w.len()].iter().filter(|c| **c).count();
            at += w.len();
            if piece.skeleton {
                continue;
            }
            if n == 0 && !w.is_empty() && w.len() < SHORT_SENTENCE {
                return false;
            }
            if units.len() <= piece.unit {
                units.resize(piece.unit + 1, (0, 0));
            }
            units[piece.unit].0 += w.len();
            units[piece.unit].1 += n;
            total += w.len();
            hit += n;
        }
        if units.iter().any(|&(words, hit)| words > 0 && hit == 0) {
            return false;
        }
        total >= SHINGLE && hit * 100 >= total * MIN_COVERAGE_PERCENT
    }
}

/// The sentences of a unit's text: split after `.`, `?` or `!` and a space.
pub(crate) fn sentences(text: &str) -> impl Iterator<Item = &str> {
    text.split_inclusive([' ', '\t'])
        .scan(0, |at, piece| {
            let start = *at;
            *at += piece.len();
            let ends = piece.trim_end().ends_with(['.', '?', '!']);
            Some((start, *at, ends))
        })
        .filter(|&(_, _, ends)| ends)
        .map(|(_, end, _)| end)
        .chain(std::iter::once(text.len()))
        .scan(0, |from, end| {
            let s = &text[*from..end.max(*from)];
            *from = end.max(*from);
            Some(s)
        })
        .filter(|s| !s.trim().is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(text: &str, skeleton: bool, unit: usize) -> Piece {
        Piece {
            text: text.to_string(),
            skeleton,
            unit,
        }
    }

    #[test]
    fn guidance_covers_reordered_and_rewrapped_text() {
        let g = Guidance::new(
            "<!-- Describe the consequences on existing workloads (e.g., if this is a runtime\nfeature, can it break the existing applications?).\n\nNOTE: Also set `disable-supported` to `true` or `false` in `kep.yaml`. -->",
        );
        let pasted = |units: &[&str]| {
            let pieces: Vec<Piece> = (0..units.len()).map(|i| unit(units[i], false, i)).collect();
            g.pasted(&pieces)
        };
        assert!(pasted(&[
            "Also set disable-supported to true or false in kep.yaml. Describe the consequences on existing workloads (e.g. if this is a runtime feature, can it break the existing applications?)"
        ]));
        assert!(!pasted(&[
            "Yes: set the gate to false and restart; existing workloads keep running."
        ]));
        assert!(!pasted(&["Describe the"]), "fewer words than a shingle");
        assert!(
            !pasted(&["Describe the consequences on existing workloads.", "None."]),
            "an answer after pasted guidance"
        );
        let split: Vec<&str> = sentences("One two. Three? e.g. four\tFive!").collect();
        assert_eq!(split, vec!["One two. ", "Three? ", "e.g. ", "four\tFive!"]);
        let text = "Describe the consequences on existing workloads";
        assert!(!Guidance::default().pasted(&[unit(text, false, 0)]));
        let mut both = Guidance::new("one two three four");
        both.extend(&Guidance::new("five six seven eight"));
        assert!(both.pasted(&[
            unit("five six seven eight.", false, 0),
            unit("one two three four", false, 1)
        ]));
        // A skeleton unit between two pieces of guidance links their shingles.
        let g =
            Guidance::new("Describe them, providing: - API type(s): - Estimated increase in size");
        assert!(g.pasted(&[
            unit("Describe them, providing:", false, 0),
            unit("API type(s):", true, 1),
            unit("Estimated increase in size", false, 2)
        ]));
        assert!(
            !g.pasted(&[unit("Describe them, providing:", false, 0)]),
            "too short alone"
        );
    }
}

#[cfg(test)]
mod word_tests {
    use super::*;

    #[test]
    fn ascii_and_other_text_give_the_same_word_hashes() {
        // the first text takes the ASCII fast path, the second the other
        let ascii = words("Hello, WORLD-42 foo_bar");
        let other = words("Hello, WORLD-42 foo_bar é");
        assert_eq!(ascii.len(), 5);
        assert_eq!(other[..5], ascii[..]);
        assert_eq!(words("hello")[0], ascii[0]);
    }
}
