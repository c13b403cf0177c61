//! Escaping KEP text for prose Markdown that a person edits and Hugo
//! renders (the announcement draft): as little escaping as keeps the text
//! from becoming anything but text, so the draft reads as written.
//!
//! What [`prose`] defuses:
//! - HTML and autolinks: `<` `>` as entities.
//! - Bare URLs, which GitHub (and Goldmark's linkify) turn into links: a
//!   zero-width space (`&#8203;`) after a scheme's `:` when `//` follows
//!   (`https:&#8203;//…`), and before the `.` of a word-initial `www.`.
//!   Mentions and e-mail addresses: the same after an `@`.
//! - Hugo shortcodes: see [`BRACE`].
//! - Links and images: a `]` that would close link text (`](`, `][`, `]:`).
//! - Character references: `&` where it starts one.
//! - Emphasis, code and strikethrough: `*`, `` ` ``, `~`, `_` outside words.
//! - Blocks: the value is one line (each run of whitespace one space, none
//!   at either end, so no indented code), and every word that could start
//!   a block if it began a line — a list, heading, block quote, thematic
//!   break, setext underline, fence or table row (`-`, `+`, `*`, `#`, `=`,
//!   `---`, `***`, `___`, ``` ``` ```, `|--|`), or a numbered list item
//!   (`1.`, `1)`; any number at the start) — has its marker written as a
//!   character reference.
//!
//! Why every word and not only the first, and why references and not
//! backslashes: this escaper used to look at the value's first character
//! only, while a line of the draft can begin elsewhere. A title starting
//! with spaces (`" - x"` after the `- ` of a continuing entry) was a nested
//! list, four spaces were code, and the draft is edited and re-wrapped
//! before it is published: a word in the middle of a line (`step - then`,
//! `about 1. ship`) begins a line once an editor wraps the paragraph there,
//! and a formatter may drop a backslash it judges needless mid-line (`\-`,
//! `1\.`). A character reference is never a marker, wherever it lands.
//! Plain `#`, `[` and `&` in running text stay as they are.

/// How a `{` is written. Hugo finds shortcodes (`{{<`, `{{%`) in the raw
/// page before any Markdown is read, and has no escape for them (a
/// backslash stays in front of a shortcode that still runs). `&#123;` is
/// not a brace to Hugo, and Goldmark renders it as `{`, so the blog shows
/// `{{` as written; a `{` after a `{` gets a zero-width space (`&#8203;`)
/// in front, so that the rendered text (copied from the blog or a preview)
/// is no shortcode either. `&#123;` also keeps Goldmark's heading
/// attributes (`### Title {#id .class}`) out of the entries' headings.
pub const BRACE: &str = "&#123;";

/// A zero-width space: between two braces, after an `@`, in a bare URL.
const ZERO_WIDTH: &str = "&#8203;";

/// The characters a block marker is made of (see [`marker_word`]).
const MARKERS: &[char] = &['-', '+', '*', '_', '=', '#', '~', '`', '|', ':'];

/// `s` as one line of Markdown prose that renders as exactly its text
/// (whitespace runs as one space).
pub fn prose(s: &str) -> String {
    let chars: Vec<char> = one_line(s).chars().collect();
    let mut out = String::with_capacity(s.len() + 8);
    for (i, &c) in chars.iter().enumerate() {
        let prev = i.checked_sub(1).map(|j| chars[j]);
        let next = chars.get(i + 1).copied();
        let inside_word =
            prev.is_some_and(char::is_alphanumeric) && next.is_some_and(char::is_alphanumeric);
        let word_start = prev.is_none_or(|p| p == ' ');
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' if starts_reference(&chars[i + 1..]) => out.push_str("&amp;"),
            '{' => {
                if prev == Some('{') {
                    out.push_str(ZERO_WIDTH);
                }
                out.push_str(BRACE);
            }
            c if word_start && marker_word(&chars[i..]) => reference(&mut out, c),
            '.' | ')' if ordered_list_marker(&chars, i) => reference(&mut out, c),
            '*' | '~' | '`' => {
                out.push('\\');
                out.push(c);
            }
            '_' if !inside_word => out.push_str("\\_"),
            ']' if matches!(next, Some('(' | '[' | ':')) => out.push_str("\\]"),
            // Before punctuation it would escape it; before a line end (the end,
            // or a space an editor wraps at) it would be a hard line break.
            '\\' if next.is_none_or(|n| !n.is_alphanumeric()) => out.push_str("\\\\"),
            '@' if next.is_some_and(|n| n.is_alphanumeric()) => out.push_str("@&#8203;"),
            ':' if prev.is_some_and(char::is_alphanumeric)
                && chars[i + 1..].starts_with(&['/', '/']) =>
            {
                out.push(':');
                out.push_str(ZERO_WIDTH);
            }
            '.' if www_before(&chars[..i]) => {
                out.push_str(ZERO_WIDTH);
                out.push('.');
            }
            c if crate::escape::is_control(c) => {
                out.push_str(&crate::escape::terminal(&c.to_string()))
            }
            c => out.push(c),
        }
    }
    out
}

/// Whether `before` ends with a word `www` (any case) that starts a word.
fn www_before(before: &[char]) -> bool {
    let n = before.len();
    n >= 3
        && before[n - 3..].iter().all(|c| c.eq_ignore_ascii_case(&'w'))
        && (n == 3 || !before[n - 4].is_alphanumeric())
}

/// `s` on one line: Markdown's whitespace (and Unicode's line separators)
/// collapsed to single spaces, none at either end.
fn one_line(s: &str) -> String {
    s.split(|c: char| c.is_ascii_whitespace() || matches!(c, '\u{85}' | '\u{2028}' | '\u{2029}'))
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// `c` as a decimal character reference.
fn reference(out: &mut String, c: char) {
    out.push_str(&format!("&#{};", c as u32));
}

/// Whether the word starting at `rest[0]` (up to a space) is made of
/// [`MARKERS`] only: at the start of a line it would open a block or
/// underline one (`-`, `+`, `*`, `#`, `##`, `---`, `===`, ``` ``` ```,
/// `|---|`, `:--`). Words with anything else (`-v`, `#4931`, `C++`) are
/// text, and so are `|` and `:` alone (a table needs its `---` row).
fn marker_word(rest: &[char]) -> bool {
    let word = || rest.iter().take_while(|c| **c != ' ');
    word().all(|c| MARKERS.contains(c)) && word().any(|c| !matches!(c, '|' | ':'))
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

/// Whether `chars[i]` (`.` or `)`) ends the digits a numbered list item
/// starts with: `12. text` at the start, `1. text` (`1)`) at the start of
/// any word (a list that interrupts a paragraph, as after a re-wrap, must
/// start at 1: `KEP 3960. It` stays text).
fn ordered_list_marker(chars: &[char], i: usize) -> bool {
    let start = chars[..i]
        .iter()
        .rposition(|c| *c == ' ')
        .map_or(0, |j| j + 1);
    let digits: String = chars[start..i].iter().collect();
    (1..=9).contains(&digits.len())
        && digits.chars().all(|c| c.is_ascii_digit())
        && (start == 0 || digits.parse() == Ok(1u32))
        && chars.get(i + 1).is_none_or(|c| *c == ' ')
}

#[cfg(test)]
mod tests;
