//! A template question's guidance text (`&str`) → [`Guidance`]: its word
//! 4-grams, against which an answer is checked for being the guidance pasted
//! without its comment markers ([`Guidance::pasted`]).

/// Word 4-grams of a template text, hashed and sorted: the phrases an answer
/// that is pasted guidance shares with it, whatever the punctuation, line
/// wrapping, comment markers and order of its sentences.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Guidance {
    shingles: Vec<u64>,
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
    pub(super) text: String,
    pub(super) skeleton: bool,
    pub(super) unit: usize,
}

/// Share of an answer's words (in percent) that must lie in shingles of the
/// guidance for the answer to be read as pasted guidance.
const MIN_COVERAGE_PERCENT: usize = 75;

fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

fn shingle_hash(words: &[String]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(words.join(" ").as_bytes())
}

impl Guidance {
    /// No guidance: nothing is pasted guidance.
    pub const EMPTY: Guidance = Guidance {
        shingles: Vec::new(),
    };

    /// The shingles of `text` (a template section's text, comments included).
    pub fn new(text: &str) -> Guidance {
        let mut shingles: Vec<u64> = words(text).windows(SHINGLE).map(shingle_hash).collect();
        shingles.sort_unstable();
        shingles.dedup();
        Guidance { shingles }
    }

    /// Adds the shingles of `other` (a question's group's guidance).
    pub fn extend(&mut self, other: &Guidance) {
        self.shingles.extend_from_slice(&other.shingles);
        self.shingles.sort_unstable();
        self.shingles.dedup();
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
        let per_piece: Vec<Vec<String>> = pieces.iter().map(|p| words(&p.text)).collect();
        let all: Vec<&String> = per_piece.iter().flatten().collect();
        let mut covered = vec![false; all.len()];
        for i in 0..all.len().saturating_sub(SHINGLE - 1) {
            let w: Vec<String> = all[i..i + SHINGLE].iter().map(|w| w.to_string()).collect();
            if self.shingles.binary_search(&shingle_hash(&w)).is_ok() {
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
pub(super) fn sentences(text: &str) -> impl Iterator<Item = &str> {
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
