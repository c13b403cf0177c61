//! A KEP's Summary section: its Markdown text, and the first sentences of it
//! as plain text (what the announcement draft quotes; read once per KEP by
//! the analysis, so it outlives the README text the site build takes away).

use pulldown_cmark::{Event, Parser, Tag, TagEnd};

/// The text of the README's Summary section (first `## Summary` up to the next heading).
pub fn summary_section(readme: &str) -> &str {
    let mut start = None;
    let mut offset = 0;
    for line in readme.split_inclusive('\n') {
        let t = line.trim_start();
        if t.starts_with('#') {
            if let Some(s) = start {
                return readme[s..offset].trim();
            }
            let title = t.trim_start_matches('#').trim();
            if title.eq_ignore_ascii_case("summary") {
                start = Some(offset + line.len());
            }
        }
        offset += line.len();
    }
    start.map(|s| readme[s..].trim()).unwrap_or("")
}

/// Sentences of a KEP's Summary the draft quotes, and a bound on its length.
const SENTENCES: usize = 3;
const MAX_CHARS: usize = 480;

/// The plain text of a Summary section written in Markdown: text and code
/// spans only (HTML, comments with the template's guidance, images and
/// link targets are left out), whitespace collapsed, cut after a few
/// sentences.
pub fn blurb(markdown: &str) -> String {
    let mut text = String::new();
    let mut skip = 0usize;
    for ev in Parser::new(markdown) {
        match ev {
            Event::Start(Tag::Image { .. } | Tag::CodeBlock(_) | Tag::Table(_)) => skip += 1,
            Event::End(TagEnd::Image | TagEnd::CodeBlock | TagEnd::Table) => {
                skip = skip.saturating_sub(1)
            }
            Event::Text(t) | Event::Code(t) if skip == 0 => text.push_str(&t),
            Event::SoftBreak | Event::HardBreak => text.push(' '),
            Event::End(TagEnd::Paragraph | TagEnd::Item | TagEnd::Heading(_)) => text.push(' '),
            _ => {}
        }
    }
    let words: Vec<&str> = text.split_whitespace().collect();
    let text = words.join(" ");
    let mut out = String::new();
    let mut sentences = 0;
    for (i, c) in text.char_indices() {
        out.push(c);
        let end = matches!(c, '.' | '!' | '?')
            && text[i + c.len_utf8()..]
                .chars()
                .next()
                .is_none_or(char::is_whitespace);
        if end {
            sentences += 1;
            if sentences == SENTENCES {
                break;
            }
        }
        if out.len() >= MAX_CHARS {
            out = out.trim_end().to_string();
            out.push('…');
            break;
        }
    }
    out.trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_section_is_the_text_under_its_heading() {
        let md = "# KEP\n\n## Summary\n\nShort text.\n\n## Motivation\n\nWhy.\n";
        assert_eq!(summary_section(md), "Short text.");
        assert_eq!(summary_section("# none\n"), "");
    }

    #[test]
    fn a_blurb_is_the_first_sentences_in_plain_text() {
        let md = "<!--\nThis section is incredibly important.\n-->\n\nThis KEP adds **user\nnamespaces** to [pods](https://x). It maps IDs. It is safe. It is fast.\n\n![img](a.png)\n";
        assert_eq!(
            blurb(md),
            "This KEP adds user namespaces to pods. It maps IDs. It is safe."
        );
        assert_eq!(blurb("v1.2 is out. Next"), "v1.2 is out. Next");
        let long = "word ".repeat(200);
        assert!(blurb(&long).ends_with('…'));
        assert!(blurb(&long).len() <= MAX_CHARS + 4);
    }
}
