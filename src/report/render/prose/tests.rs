use pulldown_cmark::{Event, Options, Parser, Tag, TextMergeStream};

use super::*;

/// The hostile titles and Summaries of tests/fixtures (comments left out).
const HOSTILE: &str = include_str!("../../../../tests/fixtures/announcement-hostile.txt");

fn hostile() -> impl Iterator<Item = &'static str> {
    HOSTILE.lines().filter(|l| !l.starts_with("# "))
}

/// Markdown parsed as Hugo's Goldmark reads a post: tables, strikethrough,
/// footnotes, task lists and heading attributes on.
fn events(md: &str) -> Vec<Event<'_>> {
    let opts = Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_HEADING_ATTRIBUTES;
    TextMergeStream::new(Parser::new_ext(md, opts)).collect()
}

/// The text `md` renders as, when it is nothing but one paragraph of text
/// (soft breaks as spaces); else what else it made.
fn paragraph_text(md: &str) -> Result<String, String> {
    let mut text = String::new();
    for ev in events(md) {
        match ev {
            Event::Start(Tag::Paragraph) | Event::End(_) => {}
            Event::Text(t) => text.push_str(&t),
            Event::SoftBreak => text.push(' '),
            other => return Err(format!("{other:?} in {md:?}")),
        }
    }
    Ok(text)
}

/// `s` as the draft shows it: one line, a zero-width space between two
/// braces and after an `@` that starts a mention.
fn as_shown(s: &str) -> String {
    let line: Vec<char> = one_line(s).chars().collect();
    let mut out = String::new();
    for (i, &c) in line.iter().enumerate() {
        let prev = i.checked_sub(1).map(|j| line[j]);
        let scheme = prev == Some(':')
            && i >= 2
            && line[i - 2].is_alphanumeric()
            && line[i..].starts_with(&['/', '/']);
        let www = c == '.'
            && i >= 3
            && line[i - 3..i].iter().all(|w| w.eq_ignore_ascii_case(&'w'))
            && (i == 3 || !line[i - 4].is_alphanumeric());
        if (c == '{' && prev == Some('{'))
            || (prev == Some('@') && c.is_alphanumeric())
            || scheme
            || www
        {
            out.push('\u{200b}');
        }
        out.push(c);
    }
    out
}

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
    for s in [
        "{{< x >}}",
        "{{% x %}}",
        "{{</* c */>}}",
        "{{ .Title }}",
        "{{{<",
    ] {
        let out = prose(s);
        assert!(!out.contains('{'), "{out}");
    }
    assert_eq!(prose("{{< x >}}"), "&#123;&#8203;&#123;&lt; x &gt;}}");
    assert_eq!(prose("{{% x %}}"), "&#123;&#8203;&#123;% x %}}");
    assert_eq!(prose("a {b} c"), "a &#123;b} c");
    // Rendered, the braces read as written (with a zero-width space).
    assert_eq!(
        paragraph_text(&prose("{{% x %}}")).unwrap(),
        "{\u{200b}{% x %}}"
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
    assert_eq!(prose("[d](data:text/html,x)"), "[d\\](data:text/html,x)");
    // Brackets that link nothing stay.
    assert_eq!(prose("Drivers[*].Count [^1]"), "Drivers[\\*].Count [^1]");
}

#[test]
fn bare_urls_are_text() {
    assert_eq!(
        prose("see https://evil.example/x"),
        "see https:&#8203;//evil.example/x"
    );
    assert_eq!(prose("www.evil.example"), "www&#8203;.evil.example");
    assert_eq!(prose("(WWW.x.io)"), "(WWW&#8203;.x.io)");
    // Not a URL: left as written.
    assert_eq!(prose("awww.b a: //b :// x/y"), "awww.b a: //b :// x/y");
}

#[test]
fn backslashes_stay_backslashes() {
    assert_eq!(prose("a\\-b"), "a\\\\-b");
    assert_eq!(prose("\\- x"), "\\\\- x");
    assert_eq!(prose("ends with \\"), "ends with \\\\");
    assert_eq!(prose("C:\\dir"), "C:\\dir");
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
    assert_eq!(prose(" a\n\tb  c "), "a b c");
    assert_eq!(
        prose("--feature-gates, C++, -v, a | b, k: v"),
        "--feature-gates, C++, -v, a | b, k: v"
    );
    assert_eq!(prose("v1.22 ships 1.5x"), "v1.22 ships 1.5x");
}

#[test]
fn a_block_marker_in_any_word_is_text() {
    assert_eq!(prose("# Title"), "&#35; Title");
    assert_eq!(prose("- item"), "&#45; item");
    assert_eq!(prose("+ item"), "&#43; item");
    assert_eq!(prose("* item"), "&#42; item");
    assert_eq!(prose("> quote"), "&gt; quote");
    assert_eq!(prose("1. First"), "1&#46; First");
    assert_eq!(prose("1) First"), "1&#41; First");
    assert_eq!(prose("---"), "&#45;--");
    assert_eq!(prose("***"), "&#42;\\*\\*");
    assert_eq!(prose("___"), "&#95;\\_\\_");
    assert_eq!(prose("==="), "&#61;==");
    assert_eq!(prose("```go"), "\\`\\`\\`go");
    assert_eq!(prose("    code"), "code");
    assert_eq!(prose("  - x"), "&#45; x");
    // In the middle of a line too: an editor's re-wrap may start a line there.
    assert_eq!(
        prose("a - b + c 1. d 01) e"),
        "a &#45; b &#43; c 1&#46; d 01&#41; e"
    );
    // Only a list starting at 1 interrupts a paragraph.
    assert_eq!(prose("12. x"), "12&#46; x");
    assert_eq!(prose("KEP 3960. It"), "KEP 3960. It");
    assert_eq!(prose("step 1.22 #4931"), "step 1.22 #4931");
}

/// Every hostile line, alone, after `### ` or `- `, and wrapped at every
/// space (as an editor may re-wrap the paragraph), renders as one paragraph
/// (heading, item) of its own text: no HTML, link, list, heading, quote,
/// rule, code or table.
#[test]
fn hostile_lines_render_as_their_text_however_wrapped() {
    for line in hostile() {
        let out = prose(line);
        assert!(!out.contains("{{"), "{out}");
        let wrapped = out.replace(' ', "\n");
        for md in [&out, &wrapped] {
            let text = paragraph_text(md).unwrap_or_else(|e| panic!("{line:?}: {e}"));
            if !line.chars().any(crate::escape::is_control) {
                assert_eq!(text, as_shown(line), "{line:?} as {md:?}");
            }
        }
        for md in [format!("### {out}\n"), format!("- {out}\n")] {
            for ev in events(&md) {
                assert!(
                    matches!(
                        ev,
                        Event::Start(Tag::Heading { .. } | Tag::List(None) | Tag::Item)
                            | Event::End(_)
                            | Event::Text(_)
                    ),
                    "{ev:?} in {md:?}"
                );
            }
        }
    }
}
