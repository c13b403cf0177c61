//! A KEP's Summary section: which heading names it, its plain text, and
//! the first sentences of that (what the announcement draft quotes; read
//! once per KEP with the README's parse, so it outlives the README text
//! the site build takes away).
//!
//! The section is found among the parse's headings: `Summary`, `Summary
//! and Motivation`, `Abstract` ([`is_summary_heading`]); [`PlainText`]
//! reads its text and its subsections' from the same pass's events
//! ([`super::Document::summary`]), so Markdown escapes
//! (`\#`), entities (`&amp;`) and markup are resolved by the parser, never by
//! string edits of the Markdown.

mod sentences;

use pulldown_cmark::{Event, Tag, TagEnd};

#[cfg(test)]
use sentences::MAX_CHARS;
pub use sentences::first_sentences;

/// Whether a heading names a KEP's Summary: `Summary` (also numbered,
/// `1. Summary`, or with a colon), `Summary and Motivation` (`&`, `/`), or
/// `Abstract` (the name some early KEPs give it). `Summary of changes` and
/// the like are other sections.
pub fn is_summary_heading(title: &str) -> bool {
    let t = title
        .trim()
        .trim_start_matches(|c: char| c.is_ascii_digit() || matches!(c, '.' | ')' | '-' | ' '))
        .trim_end_matches([':', ' '])
        .to_ascii_lowercase();
    let mut words = t.split_whitespace();
    matches!(
        (words.next(), words.next()),
        (Some("summary" | "abstract"), None) | (Some("summary"), Some("and" | "&" | "/"))
    )
}

/// The plain text of parser events, one at a time: text and code spans
/// (escapes and entities resolved by the parser); HTML, images, code
/// blocks, tables, headings, footnotes and their references (also written
/// as text, `[^1]`, when their definition is elsewhere) left out;
/// whitespace collapsed by [`PlainText::finish`].
#[derive(Default)]
pub(super) struct PlainText {
    text: String,
    /// Consecutive text events: a footnote reference the parser did not
    /// recognise comes as several (`[`, `^1`, `]`).
    run: String,
    skip: usize,
}

impl PlainText {
    pub(super) fn see(&mut self, ev: &Event<'_>) {
        if !matches!(ev, Event::Text(_)) {
            push_run(&mut self.text, &mut self.run);
        }
        match ev {
            Event::Start(
                Tag::Image { .. }
                | Tag::CodeBlock(_)
                | Tag::Table(_)
                | Tag::Heading { .. }
                | Tag::FootnoteDefinition(_)
                | Tag::HtmlBlock,
            ) => self.skip += 1,
            Event::End(
                TagEnd::Image
                | TagEnd::CodeBlock
                | TagEnd::Table
                | TagEnd::Heading(_)
                | TagEnd::FootnoteDefinition
                | TagEnd::HtmlBlock,
            ) => self.skip = self.skip.saturating_sub(1),
            Event::Text(t) if self.skip == 0 => self.run.push_str(t),
            Event::Code(t) if self.skip == 0 => self.text.push_str(t),
            Event::SoftBreak | Event::HardBreak => self.text.push(' '),
            Event::End(TagEnd::Paragraph | TagEnd::Item) => self.text.push(' '),
            _ => {}
        }
    }

    pub(super) fn finish(mut self) -> String {
        push_run(&mut self.text, &mut self.run);
        super::collapse(&self.text)
    }
}

/// The plain text of Markdown (see [`PlainText`]), for the tests.
#[cfg(test)]
pub(super) fn plain_text(markdown: &str) -> String {
    let mut plain = PlainText::default();
    for ev in pulldown_cmark::Parser::new_ext(markdown, super::markdown_options()) {
        plain.see(&ev);
    }
    plain.finish()
}

/// `run` appended to `text` without footnote references (`[^label]`).
fn push_run(text: &mut String, run: &mut String) {
    let mut rest = run.as_str();
    while let Some(i) = rest.find("[^") {
        let label_end = rest[i + 2..]
            .find(|c: char| c == ']' || c == '[' || c.is_whitespace())
            .map(|j| i + 2 + j);
        match label_end {
            Some(j) if j > i + 2 && rest[j..].starts_with(']') => {
                text.push_str(rest[..i].trim_end_matches(' '));
                rest = &rest[j + 1..];
            }
            _ => {
                text.push_str(&rest[..i + 2]);
                rest = &rest[i + 2..];
            }
        }
    }
    text.push_str(rest);
    run.clear();
}

#[cfg(test)]
mod tests;
