//! KEP README text (`&str`) → [`Document`]: the ATX heading sections, each with
//! its own text (HTML comments removed), and the `<!-- toc -->` list.
//!
//! Problems in the text are tolerated, never errors: unterminated comments drop
//! the rest of the text, skipped heading levels attach to the nearest shallower
//! heading, duplicated headings get GitHub's `-1`, `-2` anchors. The parser is
//! one pass over the lines with substring scans, no regex, so the whole corpus
//! parses in milliseconds.

mod anchor;
mod summary;
mod toc;

use serde::Serialize;
use std::borrow::Cow;

pub use anchor::{Anchors, heading_text, markdown_options, slug, slug_text};
pub use summary::{
    blurb, first_sentences, is_summary_heading, plain_text, summary_index, summary_markdown,
    summary_section,
};
pub use toc::{Toc, TocEntry, TocMismatch, toc_mismatches};

/// One ATX heading and the text that follows it up to the next heading.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Section {
    /// Heading text with inline markup (emphasis, code, links, tags) stripped.
    pub title: String,
    /// The heading as written (markdown), closing `#`s removed; its anchor
    /// is [`slug`] of it.
    #[serde(skip)]
    pub raw_title: String,
    /// Heading level, 1 (`#`) to 6 (`######`).
    pub level: u8,
    /// 1-based line of the heading.
    pub line: usize,
    /// 1-based last line of the section's own text (before the next heading of
    /// any level, or the last line of the file).
    pub end_line: usize,
    /// The section's own text, HTML comments removed, `\n` line endings,
    /// without leading and trailing blank lines.
    pub body: String,
    /// 1-based line of the first line of `body`.
    #[serde(skip)]
    pub body_line: usize,
    /// Index in [`Document::sections`] of the nearest preceding shallower heading.
    pub parent: Option<usize>,
    /// Indices of the sections whose parent this is, in document order.
    pub children: Vec<usize>,
}

/// A parsed README: its sections in document order and its table of contents.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Document {
    /// Every heading outside code fences and HTML comments, in document order.
    pub sections: Vec<Section>,
    /// The `<!-- toc -->` … `<!-- /toc -->` list, when the markers are present.
    pub toc: Option<Toc>,
}

impl Document {
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
}

/// An open code fence: its character (`` ` `` or `~`) and length.
#[derive(Clone, Copy)]
struct Fence {
    ch: u8,
    len: usize,
}

/// Parses README markdown into sections and its table of contents.
pub fn parse(text: &str) -> Document {
    let mut sections: Vec<Section> = Vec::new();
    let mut stack: Vec<(u8, usize)> = Vec::new();
    let mut in_comment = false;
    let mut fence: Option<Fence> = None;
    let mut toc = toc::TocBuilder::default();
    // The current section's text, copied once into its `body` when it ends.
    let mut scratch = String::new();

    let trimmed = text.strip_suffix('\n').unwrap_or(text);
    let mut line_count = 0;
    for (idx, raw) in trimmed.split('\n').enumerate() {
        let line_no = idx + 1;
        line_count = line_no;
        let line = raw.strip_suffix('\r').unwrap_or(raw);

        if let Some(f) = fence {
            if closes_fence(line, f) {
                fence = None;
            }
            push_body(&mut scratch, &sections, line);
            continue;
        }
        if !in_comment && toc.marker(line, line_no) {
            continue;
        }
        let started_in_comment = in_comment;
        let visible = strip_comments(line, &mut in_comment);
        if !started_in_comment {
            if let Some(f) = opens_fence(&visible) {
                fence = Some(f);
                push_body(&mut scratch, &sections, &visible);
                continue;
            }
            if let Some((level, raw_title)) = atx_heading(&visible) {
                toc.heading_seen();
                if let Some(prev) = sections.last_mut() {
                    prev.end_line = line_no - 1;
                    (prev.body, prev.body_line) = finish_body(&scratch, prev.line);
                    scratch.clear();
                }
                while stack.last().is_some_and(|&(l, _)| l >= level) {
                    stack.pop();
                }
                let index = sections.len();
                let parent = stack.last().map(|&(_, i)| i);
                if let Some(p) = parent {
                    sections[p].children.push(index);
                }
                stack.push((level, index));
                sections.push(Section {
                    title: plain_title(raw_title),
                    raw_title: raw_title.to_string(),
                    level,
                    line: line_no,
                    end_line: line_no,
                    body: String::new(),
                    body_line: line_no + 1,
                    parent,
                    children: Vec::new(),
                });
                continue;
            }
        }
        toc.line(&visible, line_no);
        push_body(&mut scratch, &sections, &visible);
    }
    if let Some(last) = sections.last_mut() {
        last.end_line = line_count.max(last.line);
        (last.body, last.body_line) = finish_body(&scratch, last.line);
    }
    Document {
        sections,
        toc: toc.finish(),
    }
}

fn push_body(scratch: &mut String, sections: &[Section], line: &str) {
    if !sections.is_empty() {
        scratch.push_str(line);
        scratch.push('\n');
    }
}

/// The body without leading blank lines and trailing whitespace, and the
/// line its first line is on (the heading is on line `heading`).
fn finish_body(scratch: &str, heading: usize) -> (String, usize) {
    let body = scratch.trim_start_matches('\n');
    let skipped = scratch.len() - body.len();
    (body.trim_end().to_string(), heading + 1 + skipped)
}

/// Removes `<!-- ... -->` from one line, carrying the open state across lines.
///
/// A `<!--DIRECTIVE ...` marker without `-->` ends at the end of its line: the
/// KEP template has such malformed markers, and swallowing the following
/// headings would lose template sections.
pub(crate) fn strip_comments<'a>(line: &'a str, in_comment: &mut bool) -> Cow<'a, str> {
    // A byte search (memchr) first: most lines have no `<` at all.
    let may_open = line.as_bytes().contains(&b'<') && line.contains("<!--");
    if !*in_comment && !may_open {
        return Cow::Borrowed(line);
    }
    if *in_comment && !line.as_bytes().contains(&b'>') {
        return Cow::Borrowed("");
    }
    let mut out = String::new();
    let mut rest = line;
    loop {
        if *in_comment {
            match rest.find("-->") {
                Some(i) => {
                    rest = &rest[i + 3..];
                    *in_comment = false;
                }
                None => return Cow::Owned(out),
            }
        } else {
            match rest.find("<!--") {
                Some(i) => {
                    out.push_str(&rest[..i]);
                    let after = &rest[i + 4..];
                    if is_directive(after) && !after.contains("-->") {
                        return Cow::Owned(out);
                    }
                    rest = after;
                    *in_comment = true;
                }
                None => {
                    out.push_str(rest);
                    return Cow::Owned(out);
                }
            }
        }
    }
}

fn is_directive(after_open: &str) -> bool {
    let t = after_open.trim_start().as_bytes();
    t.len() >= 9 && t[..9].eq_ignore_ascii_case(b"DIRECTIVE")
}

/// Up to three spaces of indentation, as CommonMark allows for block starts.
fn block_indent(line: &str) -> Option<&str> {
    let n = line.bytes().take_while(|&b| b == b' ').count();
    (n <= 3).then(|| &line[n..])
}

fn opens_fence(line: &str) -> Option<Fence> {
    let rest = block_indent(line)?;
    let ch = *rest.as_bytes().first()?;
    if ch != b'`' && ch != b'~' {
        return None;
    }
    let len = rest.bytes().take_while(|&b| b == ch).count();
    if len < 3 || (ch == b'`' && rest[len..].contains('`')) {
        return None;
    }
    Some(Fence { ch, len })
}

fn closes_fence(line: &str, fence: Fence) -> bool {
    let Some(rest) = block_indent(line) else {
        return false;
    };
    let len = rest.bytes().take_while(|&b| b == fence.ch).count();
    len >= fence.len && rest[len..].trim().is_empty()
}

/// An ATX heading: level and raw title (closing `#`s removed), if `line` is one.
fn atx_heading(line: &str) -> Option<(u8, &str)> {
    let rest = block_indent(line)?;
    let hashes = rest.bytes().take_while(|&b| b == b'#').count();
    if !(1..=6).contains(&hashes) {
        return None;
    }
    let after = &rest[hashes..];
    if !(after.is_empty() || after.starts_with(' ') || after.starts_with('\t')) {
        return None;
    }
    let mut title = after.trim();
    let without_closing = title.trim_end_matches('#');
    if without_closing.is_empty() {
        title = "";
    } else if without_closing.len() != title.len()
        && (without_closing.ends_with(' ') || without_closing.ends_with('\t'))
    {
        title = without_closing.trim_end();
    }
    Some((hashes as u8, title))
}

/// Heading text as GitHub renders it: emphasis, code ticks, link targets,
/// HTML tags and backslash escapes removed; whitespace collapsed.
pub(crate) fn plain_title(raw: &str) -> String {
    let needs_work = raw.bytes().any(|b| {
        matches!(
            b,
            b'*' | b'`' | b'~' | b'_' | b'\\' | b'<' | b'[' | b']' | b'!' | b'\t' | b'\n' | b'\r'
        )
    }) || raw.contains("  ")
        || raw.starts_with(' ')
        || raw.ends_with(' ');
    if !needs_work {
        return raw.to_string();
    }
    let mut out = String::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(c) = rest.chars().next() {
        let n = c.len_utf8();
        match c {
            '*' | '`' => rest = &rest[n..],
            '~' if rest.starts_with("~~") => rest = &rest[2..],
            '_' if rest.starts_with("__") => rest = &rest[2..],
            '\\' => {
                rest = &rest[n..];
                if let Some(e) = rest.chars().next().filter(|e| e.is_ascii_punctuation()) {
                    out.push(e);
                    rest = &rest[1..];
                }
            }
            '<' if html_tag_len(rest).is_some() => {
                rest = &rest[html_tag_len(rest).unwrap_or(n)..];
            }
            ']' if rest.starts_with("](") => match rest.find(')') {
                Some(i) => rest = &rest[i + 1..],
                None => rest = &rest[n..],
            },
            '[' => rest = &rest[n..],
            '!' if rest.starts_with("![") => rest = &rest[n..],
            c if c.is_whitespace() => {
                if !out.is_empty() && !out.ends_with(' ') {
                    out.push(' ');
                }
                rest = &rest[n..];
            }
            c => {
                out.push(c);
                rest = &rest[n..];
            }
        }
    }
    if out.ends_with(' ') {
        out.pop();
    }
    out
}

/// Length of an HTML tag (`<a name="x">`, `</a>`) at the start of `s`.
fn html_tag_len(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    let first = *b.get(1)?;
    if !(first.is_ascii_alphabetic() || (first == b'/' && b.get(2)?.is_ascii_alphabetic())) {
        return None;
    }
    let end = s.find('>')?;
    (!s[1..end].contains('<')).then_some(end + 1)
}

#[cfg(test)]
mod tests;
