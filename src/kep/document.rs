//! KEP README text (`&str`) → [`Document`]: one pulldown-cmark pass over
//! the text, with offsets, gives everything both sides read. The analysis
//! reads the sections (title, level, lines, byte range, own text without
//! HTML comments), the `<!-- toc -->` list, the task-list checkboxes, the
//! links, code blocks, comments and raw HTML, and the Summary's plain text;
//! the page is written with the same sections (the renderer reads the
//! text's events again as it writes, and keeps none), so what the analysis
//! calls a section is what the page shows as one.
//!
//! Headings are CommonMark's: ATX and setext, never inside a code block or
//! an HTML block (an unterminated `<!--` hides the rest of the text, as it
//! does on GitHub). Problems in the text are tolerated, never errors:
//! skipped heading levels attach to the nearest shallower heading,
//! duplicated headings get GitHub's `-1`, `-2` anchors.

mod anchor;
mod boxes;
mod build;
mod summary;
mod toc;

use serde::Serialize;
use std::ops::Range;

pub use anchor::{Anchors, heading_text, markdown_options, slug, slug_text};
pub use summary::{first_sentences, is_summary_heading};
pub use toc::{Toc, TocEntry, TocMismatch, toc_mismatches};

/// One heading and the text that follows it up to the next heading.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Section {
    /// Heading text as GitHub shows it: the parser's text (markup, escapes
    /// and entities resolved), whitespace collapsed.
    pub title: String,
    /// GitHub's anchor before it is made unique: the heading's own
    /// `{#id}`, else [`slug_text`] of its text.
    #[serde(skip)]
    pub slug: String,
    /// The heading's anchor on GitHub: [`Section::slug`], with `-1`, `-2`
    /// for repeats.
    pub anchor: String,
    /// Heading level, 1 (`#`) to 6 (`######`).
    pub level: u8,
    /// 1-based line of the heading.
    pub line: usize,
    /// 1-based last line of the section's own text (before the next heading of
    /// any level, or the last line of the file).
    pub end_line: usize,
    /// Bytes of the text from the heading to the next heading.
    #[serde(skip)]
    pub range: Range<usize>,
    /// Bytes of the section's own text: from the line after the heading to
    /// the next heading ([`Document::body`] reads it).
    #[serde(skip)]
    pub body_range: Range<usize>,
    /// 1-based line `body_range` starts on.
    #[serde(skip)]
    pub body_start_line: usize,
    /// Index in [`Document::sections`] of the nearest preceding shallower heading.
    pub parent: Option<usize>,
    /// Indices of the sections whose parent this is, in document order.
    pub children: Vec<usize>,
}

/// A checkbox: a task-list item (`- [x] text`), or a box at the start of
/// a line (`[x] text`, as the KEP template writes them).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Task {
    /// Whether the box is ticked.
    pub checked: bool,
    /// 1-based line of the box.
    pub line: usize,
    /// The text after the box up to the end of its paragraph or item (or
    /// the next box), whitespace collapsed.
    pub text: String,
}

/// A link or image destination as written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Link {
    /// The destination (URL or path).
    pub dest: String,
    /// 1-based line.
    pub line: usize,
    /// Whether it is an image.
    pub image: bool,
}

/// A code block.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CodeBlock {
    /// The info string's first word (`go`, `mermaid`), "" when none.
    pub lang: String,
    /// 1-based line of its first line (the fence).
    pub line: usize,
}

/// A section's own text ([`Document::body`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Body<'a> {
    /// HTML comments removed (their lines kept empty), `\n` line endings,
    /// without leading blank lines and trailing whitespace.
    pub text: std::borrow::Cow<'a, str>,
    /// 1-based line of its first line.
    pub line: usize,
}

/// A parsed README.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Document {
    /// The README as written, which every range here is of. Section
    /// bodies are read from it when asked ([`Document::body`]), not kept:
    /// copies of every body were 20 MB of the corpus and 10% of `check`'s
    /// time.
    #[serde(skip)]
    pub text: std::sync::Arc<str>,
    /// Every heading, in document order.
    pub sections: Vec<Section>,
    /// The `<!-- toc -->` … `<!-- /toc -->` list, when the markers are present.
    pub toc: Option<Toc>,
    /// Every checkbox, in order.
    pub tasks: Vec<Task>,
    /// Every link and image, in order.
    pub links: Vec<Link>,
    /// Every code block, in order.
    pub code_blocks: Vec<CodeBlock>,
    /// Bytes of every HTML comment (`<!--` to `-->`, or to the end of its
    /// HTML when unterminated).
    #[serde(skip)]
    pub comments: Vec<Range<usize>>,
    /// Bytes of raw HTML other than comments.
    #[serde(skip)]
    pub html: Vec<Range<usize>>,
    /// The plain text of the Summary section and its subsections (see
    /// [`is_summary_heading`]), whitespace collapsed; "" when there is none.
    pub summary: String,
}

impl Document {
    /// The own text of section `index` (empty when there is none): without
    /// its comments, `\r`, leading blank lines and trailing whitespace. A
    /// body without comments or `\r` is borrowed.
    pub fn body(&self, index: usize) -> Body<'_> {
        use std::borrow::Cow;
        let Some(s) = self.sections.get(index) else {
            return Body {
                text: Cow::Borrowed(""),
                line: 0,
            };
        };
        let range = s.body_range.clone();
        let raw = self.text.get(range.clone()).unwrap_or_default();
        let first = self.comments.partition_point(|c| c.end <= range.start);
        let commented = self.comments[first..]
            .first()
            .is_some_and(|c| c.start < range.end);
        let text: Cow<str> = match commented || raw.contains('\r') {
            false => Cow::Borrowed(raw),
            true => Cow::Owned(self.without_comments(range, first)),
        };
        let skipped = text.len() - text.trim_start_matches('\n').len();
        let kept = text.trim_end().len();
        let line = s.body_start_line + skipped;
        let text = match text {
            Cow::Borrowed(t) => Cow::Borrowed(&t[skipped.min(kept)..kept]),
            Cow::Owned(mut t) => {
                t.truncate(kept);
                t.drain(..skipped.min(kept));
                Cow::Owned(t)
            }
        };
        Body { text, line }
    }

    /// The text of `range` with its comments (the first at `first`) cut out,
    /// their newlines kept, and `\r` removed.
    fn without_comments(&self, range: Range<usize>, first: usize) -> String {
        let text = &self.text;
        let mut out = String::with_capacity(range.len());
        let mut at = range.start;
        for c in &self.comments[first..] {
            if c.start >= range.end {
                break;
            }
            let (from, to) = (c.start.max(range.start), c.end.min(range.end));
            if from > at {
                out.push_str(&text[at..from]);
            }
            out.extend(text[from..to].matches('\n'));
            at = to.max(at);
        }
        if range.end > at {
            out.push_str(&text[at..range.end]);
        }
        if out.as_bytes().contains(&b'\r') {
            out = out.replace("\r\n", "\n").replace('\r', "");
        }
        out
    }

    /// Indices of every section below `index` in the heading tree, in order.
    pub fn descendants(&self, index: usize) -> Vec<usize> {
        let mut out = Vec::new();
        let mut stack: Vec<usize> = match self.sections.get(index) {
            Some(s) => s.children.iter().rev().copied().collect(),
            None => return out,
        };
        while let Some(i) = stack.pop() {
            out.push(i);
            if let Some(s) = self.sections.get(i) {
                stack.extend(s.children.iter().rev().copied());
            }
        }
        out
    }

    /// The first two or three sentences of the Summary, as plain text.
    pub fn blurb(&self) -> String {
        first_sentences(&self.summary)
    }
}

/// Parse README markdown.
pub fn parse(text: &str) -> Document {
    build::parse(text.into())
}

/// Parse `text`, which the document keeps (shared, not copied).
pub fn parse_shared(text: std::sync::Arc<str>) -> Document {
    build::parse(text)
}

/// The most bytes of a README a KEP's page shows: six times the corpus's
/// largest (170 KB). A 5.8 MB README of 128,706 headings made a 23.5 MB
/// page; past this the page shows the README's start, says so, and links
/// to the whole file (`check` warns: `readme-too-large`).
pub const MAX_PAGE_BYTES: usize = 1 << 20;

/// The part of README `text` its page shows: all of it up to
/// [`MAX_PAGE_BYTES`], else its start, ending before the last heading line
/// (`#` at a line's start) within the limit, or at the last line's end.
pub fn page_part(text: &str) -> &str {
    if text.len() <= MAX_PAGE_BYTES {
        return text;
    }
    let head = &text.as_bytes()[..MAX_PAGE_BYTES];
    let line_end = head.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let heading = memchr::memmem::rfind(&head[..line_end], b"\n#").map(|i| i + 1);
    let end = heading
        .filter(|&h| h > MAX_PAGE_BYTES / 2)
        .unwrap_or(line_end);
    &text[..end]
}

/// `s` with its runs of whitespace made one space, trimmed (without a copy
/// of its words when there is nothing to collapse, as in most headings).
fn collapse(s: &str) -> String {
    let t = s.trim();
    let b = t.as_bytes();
    let to_collapse = |(i, &c): (usize, &u8)| {
        matches!(c, b'\t' | b'\n' | b'\r' | b'\x0B' | b'\x0C')
            || (c == b' ' && b.get(i + 1) == Some(&b' '))
    };
    let plain = !b.iter().enumerate().any(to_collapse);
    if plain && t.is_ascii() {
        return t.to_string();
    }
    t.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `markdown` with the tabs after the fence of its fence-only lines made
/// spaces. CommonMark (since 0.30) and GitHub close a code block at a fence
/// followed by a tab; pulldown-cmark does not, and reads the rest of the
/// README as code. The whitespace after a fence means nothing otherwise,
/// and every byte stays where it is, so ranges of the result are ranges of
/// `markdown`.
pub fn fence_tabs(markdown: &str) -> std::borrow::Cow<'_, str> {
    use std::borrow::Cow;
    // two vector searches for a fence's last mark before a tab: code
    // blocks are full of tabs, and a search that stopped at each was 2% of
    // the document pass
    let bytes = markdown.as_bytes();
    if memchr::memmem::find(bytes, b"`\t").is_none()
        && memchr::memmem::find(bytes, b"~\t").is_none()
    {
        return Cow::Borrowed(markdown);
    }
    let fence_only = |line: &str| {
        let t = line.trim_start_matches([' ', '\t']);
        let Some(ch) = t.chars().next().filter(|c| *c == '`' || *c == '~') else {
            return false;
        };
        let run = t.len() - t.trim_start_matches(ch).len();
        run >= 3 && t[run..].bytes().all(|b| b == b' ' || b == b'\t') && t[run..].contains('\t')
    };
    let mut out = String::with_capacity(markdown.len());
    for line in markdown.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        if fence_only(body) {
            let fence = body.trim_end_matches([' ', '\t']);
            out.push_str(fence);
            out.extend(std::iter::repeat_n(' ', body.len() - fence.len()));
            out.push_str(&line[body.len()..]);
        } else {
            out.push_str(line);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests;
