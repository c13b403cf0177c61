//! Escaping KEP text for prose Markdown that a person edits and Hugo
//! renders (the announcement draft): as little escaping as keeps the text
//! from becoming anything but text, so the draft reads as written.
//!
//! What [`prose`] defuses: HTML and autolinks (`<` `>` as entities), Hugo
//! shortcodes (`{{<`, `{{%`: every `{` escaped), links and images (a `]`
//! that would close link text, `](`, `][`, `]:`), character references
//! (`&` only where it starts one), emphasis and strikethrough (`*`, `~`,
//! `_` outside words), a block marker at the start (`#`, `-`, `+`, `=`,
//! `1.`), a backslash before punctuation, `@` mentions and line breaks.
//! Plain `#`, `[` and `&` stay as they are.

/// `s` as one line of Markdown prose that renders as exactly its text.
pub fn prose(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len() + 8);
    for (i, &c) in chars.iter().enumerate() {
        let prev = i.checked_sub(1).map(|j| chars[j]);
        let next = chars.get(i + 1).copied();
        let inside_word =
            prev.is_some_and(char::is_alphanumeric) && next.is_some_and(char::is_alphanumeric);
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' if starts_reference(&chars[i + 1..]) => out.push_str("&amp;"),
            '{' | '*' | '~' | '`' => {
                out.push('\\');
                out.push(c);
            }
            '_' if !inside_word => out.push_str("\\_"),
            ']' if matches!(next, Some('(' | '[' | ':')) => out.push_str("\\]"),
            '\\' if next.is_some_and(|n| n.is_ascii_punctuation()) => out.push_str("\\\\"),
            '#' | '-' | '+' | '=' if i == 0 => out.push_str(&format!("&#{};", c as u32)),
            '.' | ')' if ordered_list_marker(&chars, i) => {
                out.push('\\');
                out.push(c);
            }
            '@' if next.is_some_and(|n| n.is_alphanumeric()) => out.push_str("@&#8203;"),
            '\n' | '\r' | '\t' => out.push(' '),
            c if crate::escape::is_control(c) => {
                out.push_str(&crate::escape::terminal(&c.to_string()))
            }
            c => out.push(c),
        }
    }
    out
}

/// Whether the text after a `&` makes it a character reference
/// (`&amp;`, `&#35;`, `&#x23;`).
fn starts_reference(rest: &[char]) -> bool {
    let name: Vec<char> = rest
        .iter()
        .take_while(|c| c.is_ascii_alphanumeric() || **c == '#')
        .copied()
        .collect();
    !name.is_empty() && rest.get(name.len()) == Some(&';')
}

/// Whether `chars[i]` (`.` or `)`) ends the digits an ordered list item
/// starts with (`1. text` at the start).
fn ordered_list_marker(chars: &[char], i: usize) -> bool {
    i > 0
        && i <= 9
        && chars[..i].iter().all(char::is_ascii_digit)
        && chars.get(i + 1).is_none_or(|c| c.is_whitespace())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_and_script_are_text() {
        assert_eq!(
            prose("<script>alert(1)</script>"),
            "&lt;script&gt;alert(1)&lt;/script&gt;"
        );
        assert_eq!(
            prose("<img src=x onerror=y>"),
            "&lt;img src=x onerror=y&gt;"
        );
        assert_eq!(prose("<javascript:x>"), "&lt;javascript:x&gt;");
    }

    #[test]
    fn hugo_shortcodes_are_text() {
        let out = prose("{{< shortcode >}} and {{% raw %}} and {{</* c */>}}");
        assert!(!out.contains("{{"), "{out}");
        assert_eq!(
            out,
            "\\{\\{&lt; shortcode &gt;}} and \\{\\{% raw %}} and \\{\\{&lt;/\\* c \\*/&gt;}}"
        );
    }

    #[test]
    fn links_and_images_are_text() {
        assert_eq!(
            prose("[link](javascript:alert(1))"),
            "[link\\](javascript:alert(1))"
        );
        assert_eq!(prose("![x](y.png)"), "![x\\](y.png)");
        assert_eq!(
            prose("[a][ref] [b]: javascript:z"),
            "[a\\][ref] [b\\]: javascript:z"
        );
        // Brackets that link nothing stay.
        assert_eq!(prose("Drivers[*].Count [^1]"), "Drivers[\\*].Count [^1]");
    }

    #[test]
    fn plain_text_stays_readable() {
        assert_eq!(
            prose("PreferClose (#4931) & more"),
            "PreferClose (#4931) & more"
        );
        assert_eq!(prose("requests & limits"), "requests & limits");
        assert_eq!(prose("a &amp; b"), "a &amp;amp; b");
        assert_eq!(prose("pod_level snake_case"), "pod_level snake_case");
        assert_eq!(
            prose("_emph_ **strong** ~~gone~~"),
            "\\_emph\\_ \\*\\*strong\\*\\* \\~\\~gone\\~\\~"
        );
        assert_eq!(prose("@jpbetz a@b"), "@&#8203;jpbetz a@&#8203;b");
        assert_eq!(prose("a\nb"), "a b");
    }

    #[test]
    fn a_block_marker_at_the_start_is_text() {
        assert_eq!(prose("# Title"), "&#35; Title");
        assert_eq!(prose("- item"), "&#45; item");
        assert_eq!(prose("1. First"), "1\\. First");
        assert_eq!(prose("1.22 ships"), "1.22 ships");
        assert_eq!(prose("a - b # c"), "a - b # c");
    }
}
