//! Bytes read from the repository as text.

/// `bytes` as text, each invalid sequence replaced by U+FFFD, as
/// [`String::from_utf8_lossy`] reads it: borrowed, after the standard
/// library's word-at-a-time check, when they are valid UTF-8 (as nearly
/// every file is). `from_utf8_lossy` checks byte by byte, which was 1% of
/// a build's instructions in the history walk's kep.yaml versions.
pub fn text(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(s) => std::borrow::Cow::Borrowed(s),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_reads_as_from_utf8_lossy() {
        let cases: [&[u8]; 5] = [
            b"",
            b"kep: 1\n",
            "t\u{e9}\u{1f600}".as_bytes(),
            b"a\xffb\xc3",
            b"\xef\xbb\xbfx",
        ];
        for bytes in cases {
            assert_eq!(text(bytes), String::from_utf8_lossy(bytes), "{bytes:?}");
        }
        assert!(matches!(text(b"ok"), std::borrow::Cow::Borrowed("ok")));
    }
}
