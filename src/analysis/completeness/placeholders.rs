//! Template placeholders in an answer's text (`<placeholder>`, `[Label]`,
//! `<<[UNRESOLVED]>>`): `&str` → the text without them, in one scan.

/// Removes `<placeholder>`s (not `<https://...>` autolinks), `[Bracketed]`
/// labels (keeping the text of links) and `<<[UNRESOLVED]>>` markers.
///
/// One pass: each closing delimiter is looked for once from where the last
/// search for it ended ([`Next`]), so an unclosed `<` or `[` costs nothing
/// more than the characters after it, however many there are (a line of a
/// million `<` took minutes when each one searched to the end).
pub(super) fn without_placeholders(text: &str) -> String {
    without_placeholders_counted(text).0
}

/// [`without_placeholders`] and the bytes its searches scanned, which the
/// tests hold to a linear bound.
fn without_placeholders_counted(text: &str) -> (String, usize) {
    if !text.contains(['<', '[']) {
        return (text.to_string(), text.len());
    }
    let mut gt = Next::new(">");
    let mut bracket = Next::new("]");
    let mut unresolved = Next::new("]>>");
    let mut scheme = Next::new("://");
    let mut out = String::with_capacity(text.len());
    let mut pos = 0;
    let mut scanned = 0;
    while let Some(i) = text[pos..].find(['<', '[']).map(|i| pos + i) {
        scanned += i - pos;
        out.push_str(&text[pos..i]);
        let tail = &text[i..];
        let close = if tail.starts_with("<<[") {
            unresolved.after(text, i).map(|j| j + 3)
        } else if tail.starts_with('<') {
            gt.after(text, i)
                .map(|j| j + 1)
                .filter(|&end| scheme.after(text, i).is_none_or(|k| k + 3 > end))
        } else {
            // `[text](url)` and `[text][ref]` are links: keep their text.
            match bracket.after(text, i) {
                Some(j) if text[j + 1..].starts_with(['(', '[']) => {
                    out.push_str(&text[i + 1..j]);
                    Some(j + 1)
                }
                other => other.map(|j| j + 1),
            }
        };
        pos = match close {
            Some(end) => end,
            None => {
                out.push_str(&tail[..1]);
                i + 1
            }
        };
    }
    scanned += text.len() - pos;
    out.push_str(&text[pos..]);
    let searched = gt.scanned + bracket.scanned + unresolved.scanned + scheme.scanned;
    (out, scanned + searched)
}

/// The next occurrence of a needle at or after a position, remembered: a
/// later question from a position before the answer gets it without a new
/// search, and "none after p" answers every later question too. Positions
/// only move forward, so all searches together scan the text about once.
struct Next {
    needle: &'static str,
    /// The last answer: `(searched from, found at)`.
    last: Option<(usize, Option<usize>)>,
    scanned: usize,
}

impl Next {
    fn new(needle: &'static str) -> Self {
        Next {
            needle,
            last: None,
            scanned: 0,
        }
    }

    /// The first index `>= from` where the needle starts in `text`.
    fn after(&mut self, text: &str, from: usize) -> Option<usize> {
        if let Some((start, found)) = self.last
            && start <= from
        {
            match found {
                None => return None,
                Some(at) if at >= from => return Some(at),
                Some(_) => {}
            }
        }
        let found = text[from..].find(self.needle).map(|j| from + j);
        self.scanned += found.map_or(text.len(), |j| j + self.needle.len()) - from;
        self.last = Some((from, found));
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each pass over an answer is one scan: doubling a hostile input (runs
    /// of every delimiter the reader looks for, closed and unclosed) at most
    /// doubles the bytes its searches scan, where a search to the end after
    /// every unclosed `<` or `[` quadrupled it.
    #[test]
    fn placeholder_removal_scans_linearly() {
        for unit in [
            "<", "[", "<div ", "<<[", "[x", "<a://", "[a](", "<x>", "]>>", "a",
        ] {
            let work = |n: usize| without_placeholders_counted(&unit.repeat(n)).1;
            let (small, large) = (work(20_000), work(40_000));
            assert!(
                large <= 2 * small + 64,
                "{unit:?}: {small} bytes scanned at 20k, {large} at 40k"
            );
            assert!(small <= 8 * 20_000 * unit.len(), "{unit:?}: {small}");
        }
    }

    #[test]
    fn placeholders_are_removed_as_before() {
        let cases = [
            ("a <placeholder> b", "a  b"),
            ("see <https://x.io/> now", "see <https://x.io/> now"),
            (
                "[Label] and [a link](u) and [r][ref]",
                " and a link(u) and r",
            ),
            ("x <<[UNRESOLVED a]>> y", "x  y"),
            ("<<< >", ""),
            ("unclosed < and [ stay", "unclosed < and [ stay"),
            ("<a> <b://c> <d>", " <b://c> "),
        ];
        for (input, want) in cases {
            assert_eq!(without_placeholders(input), want, "{input:?}");
        }
        // The one-pass reader agrees with the direct one (a search per
        // delimiter, kept here as the oracle) on every string of these
        // pieces up to five long.
        let pieces = ["<", ">", "[", "]", "(", "://", "a", "<<[", "]>>", " "];
        let mut stack = vec![String::new()];
        while let Some(t) = stack.pop() {
            assert_eq!(without_placeholders(&t), direct(&t), "{t:?}");
            if t.len() < 5 {
                stack.extend(pieces.iter().map(|p| format!("{t}{p}")));
            }
        }
    }

    /// The direct reading: after each `<` or `[`, search the rest for its close.
    fn direct(text: &str) -> String {
        let mut out = String::new();
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
}
