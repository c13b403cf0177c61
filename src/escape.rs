//! HTML escaping, the one implementation: [`html`] for template values and
//! attribute values, [`text`] for text between tags. The characters escaped
//! are ASCII (and U+00A0, two bytes), so the runs between them are found by
//! scanning bytes and copied whole.

use std::borrow::Cow;

fn attr_entity(b: &[u8], i: usize) -> Option<(&'static str, usize)> {
    let e = match b[i] {
        b'&' => "&amp;",
        b'<' => "&lt;",
        b'>' => "&gt;",
        b'"' => "&quot;",
        b'\'' => "&#x27;",
        _ => return control(b, i),
    };
    Some((e, 1))
}

/// A control character no HTML or XML document may hold (C0 but tab,
/// newline and carriage return; DEL; C1), as U+FFFD: a raw ESC makes an
/// XML file ill-formed (XML 1.0 forbids it even as a character reference)
/// and is a parse error in HTML.
fn control(b: &[u8], i: usize) -> Option<(&'static str, usize)> {
    match b[i] {
        b'\t' | b'\n' | b'\r' => None,
        0x00..=0x1f | 0x7f => Some(("\u{fffd}", 1)),
        0xc2 if b.get(i + 1).is_some_and(|c| (0x80..=0x9f).contains(c)) => Some(("\u{fffd}", 2)),
        _ => None,
    }
}

fn text_entity(b: &[u8], i: usize) -> Option<(&'static str, usize)> {
    match b[i] {
        b'&' => Some(("&amp;", 1)),
        b'<' => Some(("&lt;", 1)),
        b'>' => Some(("&gt;", 1)),
        // U+00A0, as the HTML serializer writes it (0xC2 only ever leads)
        0xC2 if b.get(i + 1) == Some(&0xA0) => Some(("&nbsp;", 2)),
        _ => control(b, i),
    }
}

/// The bytes [`attr_entity`] may replace (or begin a replacement at).
const ATTR_BYTES: [bool; 256] = table(b"&<>\"'");

/// The bytes [`text_entity`] may replace (or begin a replacement at).
const TEXT_BYTES: [bool; 256] = table(b"&<>");

/// `extra`, the bytes [`control`] looks at (C0 but tab, newline and
/// carriage return; DEL; 0xC2, which leads C1 and U+00A0), as a table.
const fn table(extra: &[u8]) -> [bool; 256] {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 0x20 {
        t[b] = !matches!(b as u8, b'\t' | b'\n' | b'\r');
        b += 1;
    }
    t[0x7f] = true;
    t[0xc2] = true;
    let mut i = 0;
    while i < extra.len() {
        t[extra[i] as usize] = true;
        i += 1;
    }
    t
}

/// `s` appended to `out` with the characters `entity` names replaced
/// (`entity` gives the replacement for the character starting at byte `i`,
/// and its length; it is asked only at the bytes `may` marks, and the runs
/// between them are copied whole). Generic, so each table is inlined into
/// its scan.
fn push_with(
    out: &mut String,
    s: &str,
    may: &[bool; 256],
    entity: impl Fn(&[u8], usize) -> Option<(&'static str, usize)>,
) {
    let b = s.as_bytes();
    let mut copied = 0;
    let mut i = 0;
    while i < b.len() {
        if !may[usize::from(b[i])] {
            i += 1;
            continue;
        }
        match entity(b, i) {
            Some((e, n)) => {
                out.push_str(&s[copied..i]);
                out.push_str(e);
                i += n;
                copied = i;
            }
            None => i += 1,
        }
    }
    out.push_str(&s[copied..]);
}

/// `s` safe as a template value anywhere: text, or an attribute value in
/// double or single quotes. `&<>"'` are escaped (not `/`, which tera escapes
/// by default and which makes every URL unreadable in the source).
pub fn html(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 16);
    push_html(&mut out, s);
    out
}

/// [`html`], appended to `out`.
pub fn push_html(out: &mut String, s: &str) {
    push_with(out, s, &ATTR_BYTES, attr_entity);
}

/// `s` as text between tags: `&<>` and U+00A0 escaped, as the HTML
/// serialization algorithm writes a text node (quotes need no escaping there).
pub fn text(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 16);
    push_text(&mut out, s);
    out
}

/// [`text`], appended to `out`.
pub fn push_text(out: &mut String, s: &str) {
    push_with(out, s, &TEXT_BYTES, text_entity);
}

/// Whether `c` would act on a terminal, a log viewer or an XML parser
/// rather than show: C0 and C1 controls, DEL, and the bidirectional
/// overrides and isolates that reorder what is shown ("Trojan source").
pub fn is_control(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `s` safe to print on a terminal or in a CI log (and a GitHub annotation):
/// each control character shown as `\u{1b}`, never sent raw. Borrowed when
/// there is none, which is nearly always. The one path for every value
/// from input on a line for people: a newline too is shown, not sent, so a
/// value cannot start a line of its own (a GitHub Actions workflow command
/// such as `::error …`, or a line that looks like a finding).
pub fn terminal(s: &str) -> Cow<'_, str> {
    if !s.chars().any(is_control) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if is_control(c) {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// `s` with the bidirectional overrides and isolates (U+202A to U+202E,
/// U+2066 to U+2069) written as `[U+202E]`, visible, as GitHub marks them:
/// raw, they reorder what a page shows ("Trojan source"). Every HTML and
/// XML page goes through it once, whole, after its template: the marker
/// holds no markup, so it is safe anywhere in a page.
pub fn bidi_shown(s: String) -> String {
    let b = s.as_bytes();
    // Each is three bytes: E2 80 AA..=AE, or E2 81 A6..=A9.
    let is_bidi = |i: &usize| {
        matches!(
            (b.get(i + 1), b.get(i + 2)),
            (Some(0x80), Some(0xaa..=0xae)) | (Some(0x81), Some(0xa6..=0xa9))
        )
    };
    if !memchr::memchr_iter(0xe2, b).any(|i| is_bidi(&i)) {
        return s;
    }
    let mut out = String::with_capacity(s.len() + 16);
    let mut copied = 0;
    for i in memchr::memchr_iter(0xe2, b).filter(is_bidi) {
        out.push_str(&s[copied..i]);
        let c = s[i..].chars().next().unwrap_or_default();
        out.push_str(&format!("[U+{:04X}]", c as u32));
        copied = i + 3;
    }
    out.push_str(&s[copied..]);
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn bidi_controls_are_shown_on_pages() {
        let all: String = ('\u{202a}'..='\u{202e}')
            .chain('\u{2066}'..='\u{2069}')
            .collect();
        let shown = super::bidi_shown(format!("a{all}b \u{2028}é\u{200f}"));
        assert_eq!(
            shown,
            "a[U+202A][U+202B][U+202C][U+202D][U+202E][U+2066][U+2067][U+2068][U+2069]b \u{2028}é\u{200f}"
        );
        assert_eq!(super::bidi_shown("plain ü".into()), "plain ü");
    }

    #[test]
    fn markup_never_holds_a_raw_control_character() {
        for f in [super::html, super::text] {
            assert_eq!(
                f("a\u{1b}b\u{0}c\u{7f}d\u{85}e\tf\ng\rh"),
                "a\u{fffd}b\u{fffd}c\u{fffd}d\u{fffd}e\tf\ng\rh"
            );
            assert_eq!(f("é\u{a0}x"), f("é\u{a0}x").replace('\u{1b}', ""));
        }
    }

    #[test]
    fn the_tables_mark_every_byte_an_entity_is_found_at() {
        for (may, entity) in [
            (
                &super::ATTR_BYTES,
                super::attr_entity as fn(&[u8], usize) -> _,
            ),
            (&super::TEXT_BYTES, super::text_entity),
        ] {
            for first in 0..=255u8 {
                for next in [0x80, 0x85, 0x9f, 0xa0, b'a'] {
                    let b = [first, next];
                    if entity(&b, 0).is_some() {
                        assert!(may[usize::from(first)], "byte {first:#x}");
                    }
                }
            }
        }
    }

    #[test]
    fn terminal_shows_controls_as_escapes() {
        use super::terminal;
        assert_eq!(terminal("keps/sig-a/1-x"), "keps/sig-a/1-x");
        assert_eq!(
            terminal("a\u{1b}]0;title\u{7}\nb\u{202e}c\u{9b}"),
            "a\\u{1b}]0;title\\u{7}\\u{a}b\\u{202e}c\\u{9b}"
        );
        assert_eq!(terminal("one\ntwo\u{1b}[2J"), "one\\u{a}two\\u{1b}[2J");
        assert!(matches!(terminal("plain"), std::borrow::Cow::Borrowed(_)));
    }

    #[test]
    fn html_escapes_the_five_characters_and_keeps_the_rest() {
        for (input, want) in [
            ("", ""),
            ("plain /path/ text", "plain /path/ text"),
            (
                r#"<a href="x" title='é'>&amp;</a>"#,
                "&lt;a href=&quot;x&quot; title=&#x27;é&#x27;&gt;&amp;amp;&lt;/a&gt;",
            ),
            ("ü<", "ü&lt;"),
            ("<<>>", "&lt;&lt;&gt;&gt;"),
            ("日本&語", "日本&amp;語"),
            ("a\u{a0}b", "a\u{a0}b"),
        ] {
            assert_eq!(super::html(input), want, "{input:?}");
        }
    }

    #[test]
    fn text_escapes_markup_and_no_break_spaces_only() {
        for (input, want) in [
            ("", ""),
            ("a < b > c & \"d\" 'e'", "a &lt; b &gt; c &amp; \"d\" 'e'"),
            ("a\u{a0}b\u{a0}", "a&nbsp;b&nbsp;"),
            ("é\u{a0}ü", "é&nbsp;ü"),
            ("日本<語", "日本&lt;語"),
        ] {
            assert_eq!(super::text(input), want, "{input:?}");
        }
    }
}
