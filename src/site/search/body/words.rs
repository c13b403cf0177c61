//! A README's plain text cut into words at Unicode's whitespace.

/// The words of `text` as [`str::split_whitespace`] cuts them, each with
/// its length in characters, read byte by byte: only a byte past ASCII is
/// decoded, to ask whether a whitespace character starts there. Splitting
/// with `split_whitespace` and counting each word's characters again was
/// about a third of the search terms' reading (4% of a build's
/// instructions).
pub(super) fn whitespace_words(text: &str) -> impl Iterator<Item = (&str, usize)> + '_ {
    let b = text.as_bytes();
    // the whitespace character starting at byte `i` (a character's first
    // byte), if one does: its length
    let space_at = move |i: usize| -> Option<usize> {
        match b[i] {
            b'\t'..=b'\r' | b' ' => Some(1),
            0..0x80 => None,
            _ => {
                let c = text.get(i..)?.chars().next()?;
                c.is_whitespace().then(|| c.len_utf8())
            }
        }
    };
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < b.len() {
            match space_at(i) {
                Some(n) => i += n,
                None => break,
            }
        }
        if i == b.len() {
            return None;
        }
        let (start, mut chars) = (i, 0);
        while i < b.len() {
            let c = b[i];
            let first = c & 0xC0 != 0x80;
            if first && space_at(i).is_some() {
                break;
            }
            chars += usize::from(first);
            i += 1;
        }
        Some((&text[start..i], chars))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// The byte-wise reader cuts the words `split_whitespace` cuts,
        /// Unicode's spaces among them, and counts their characters.
        #[test]
        fn whitespace_words_are_split_whitespace(
            text in "[ \t\n\r\u{b}\u{c}\u{1c}\u{85}\u{a0}\u{1680}\u{2000}\u{200b}\u{2028}\u{202f}\u{3000}ax\u{e9}\u{1f600}]{0,40}"
        ) {
            let got: Vec<(&str, usize)> = whitespace_words(&text).collect();
            let want: Vec<(&str, usize)> =
                text.split_whitespace().map(|w| (w, w.chars().count())).collect();
            proptest::prop_assert_eq!(got, want);
        }
    }
}
