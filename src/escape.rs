//! HTML escaping, the one implementation: [`html`] for template values and
//! attribute values, [`text`] for text between tags. The characters escaped
//! are ASCII (and U+00A0, two bytes), so the runs between them are found by
//! scanning bytes and copied whole.

/// The entity for the character starting at byte `i` of `s`, and its length.
type Table = fn(&[u8], usize) -> Option<(&'static str, usize)>;

fn attr_entity(b: &[u8], i: usize) -> Option<(&'static str, usize)> {
    let e = match b[i] {
        b'&' => "&amp;",
        b'<' => "&lt;",
        b'>' => "&gt;",
        b'"' => "&quot;",
        b'\'' => "&#x27;",
        _ => return None,
    };
    Some((e, 1))
}

fn text_entity(b: &[u8], i: usize) -> Option<(&'static str, usize)> {
    match b[i] {
        b'&' => Some(("&amp;", 1)),
        b'<' => Some(("&lt;", 1)),
        b'>' => Some(("&gt;", 1)),
        // U+00A0, as the HTML serializer writes it (0xC2 only ever leads)
        0xC2 if b.get(i + 1) == Some(&0xA0) => Some(("&nbsp;", 2)),
        _ => None,
    }
}

fn push_with(out: &mut String, s: &str, entity: Table) {
    let b = s.as_bytes();
    let mut copied = 0;
    let mut i = 0;
    while i < b.len() {
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
    push_with(out, s, attr_entity);
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
    push_with(out, s, text_entity);
}

#[cfg(test)]
mod tests {
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
