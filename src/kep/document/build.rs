//! The one pass: pulldown-cmark's events with their offsets → a
//! [`Document`].

use std::ops::Range;

use pulldown_cmark::{CodeBlockKind, Event, Parser, Tag, TagEnd};

use super::boxes::Boxes;
use super::summary::{PlainText, is_summary_heading};
use super::toc::TocReader;
use super::{
    Anchors, CodeBlock, Document, Link, Section, collapse, fence_tabs, markdown_options, slug_text,
};

/// A heading being read.
struct Heading {
    level: u8,
    /// The line it starts on.
    line: usize,
    /// Its own `{#id}`.
    id: Option<String>,
    range: Range<usize>,
    /// The parser's text of it, as written (not collapsed).
    text: String,
}

/// Where the Summary's plain text is being read.
#[derive(PartialEq, Eq)]
enum Summary {
    Before,
    /// Inside the Summary (of this level) or a section below it.
    In(u8),
    Done,
}

struct Builder<'t> {
    text: &'t str,
    /// Where the last line was looked up (lookups go forward, mostly).
    lines: LineCursor,
    /// The headings read, each with its slug.
    headings: Vec<(Heading, String)>,
    heading: Option<Heading>,
    boxes: Boxes,
    toc: TocReader,
    summary: Summary,
    plain: PlainText,
    doc: Document,
}

impl Builder<'_> {
    /// 1-based line of byte `at`.
    fn line(&self, at: usize) -> usize {
        self.lines.line(self.text, at)
    }

    fn see(&mut self, ev: &Event<'_>, range: &Range<usize>) {
        if let Some(h) = self.heading.as_mut() {
            match ev {
                Event::Text(t) | Event::Code(t) => h.text.push_str(t),
                Event::SoftBreak | Event::HardBreak => h.text.push(' '),
                Event::End(TagEnd::Heading(_)) => self.heading_end(),
                _ => {}
            }
            return;
        }
        if matches!(self.summary, Summary::In(_))
            && !matches!(ev, Event::Start(Tag::Heading { .. }))
        {
            self.plain.see(ev);
        }
        // a line is looked up only for the events that keep one
        let line = match ev {
            Event::Start(
                Tag::Heading { .. } | Tag::HtmlBlock | Tag::Link { .. } | Tag::Image { .. },
            ) => self.line(range.start),
            Event::Start(Tag::CodeBlock(_)) => self.line(range.start),
            _ => 0,
        };
        self.toc.see(ev, range, line, self.text);
        let (text, lines) = (self.text, &self.lines);
        self.boxes.see(ev, range, &|at| lines.line(text, at));
        match ev {
            Event::Start(Tag::Heading { level, id, .. }) => {
                self.open_heading(*level as u8, id.as_deref(), range, line)
            }
            Event::Start(Tag::HtmlBlock) | Event::InlineHtml(_) => self.html(range.clone()),
            Event::Start(Tag::Image { dest_url, .. })
            | Event::Start(Tag::Link { dest_url, .. }) => {
                self.doc.links.push(Link {
                    dest: dest_url.to_string(),
                    line,
                    image: matches!(ev, Event::Start(Tag::Image { .. })),
                });
            }
            Event::Start(Tag::CodeBlock(kind)) => {
                let lang = match kind {
                    CodeBlockKind::Fenced(info) => info
                        .split([' ', ',', '{', '\t'])
                        .next()
                        .unwrap_or("")
                        .to_string(),
                    CodeBlockKind::Indented => String::new(),
                };
                self.doc.code_blocks.push(CodeBlock { lang, line });
            }
            _ => {}
        }
    }

    fn open_heading(&mut self, level: u8, id: Option<&str>, range: &Range<usize>, line: usize) {
        self.toc.heading_seen();
        self.heading = Some(Heading {
            line,
            level,
            id: id.map(str::to_string),
            range: range.clone(),
            text: String::new(),
        });
    }

    /// Raw HTML at `range`: its comments, and the rest as HTML.
    fn html(&mut self, range: Range<usize>) {
        let s = &self.text[range.clone()];
        let mut any_other = false;
        let mut at = 0;
        while let Some(i) = s[at..].find("<!--") {
            any_other |= !s[at..at + i].trim().is_empty();
            let open = at + i;
            let close = s[open + 4..].find("-->").map(|j| open + 4 + j + 3);
            let end = close.unwrap_or(s.len());
            self.doc
                .comments
                .push(range.start + open..range.start + end);
            at = end;
        }
        any_other |= !s[at..].trim().is_empty();
        if any_other {
            self.doc.html.push(range);
        }
    }

    fn heading_end(&mut self) {
        let Some(h) = self.heading.take() else {
            return;
        };
        let title = collapse(&h.text);
        match self.summary {
            Summary::In(level) if h.level <= level => self.summary = Summary::Done,
            Summary::Before if is_summary_heading(&title) => self.summary = Summary::In(h.level),
            _ => {}
        }
        // GitHub's slug is of the text as written (`a   b` → `a---b`)
        let slug = h.id.clone().unwrap_or_else(|| slug_text(&h.text));
        self.headings.push((Heading { text: title, ..h }, slug));
    }

    fn finish(mut self) -> Document {
        self.doc.sections = self.sections();
        self.doc.toc = std::mem::take(&mut self.toc).finish();
        self.doc.tasks = std::mem::take(&mut self.boxes).finish();
        self.doc.summary = std::mem::take(&mut self.plain).finish();
        self.doc
    }

    /// The sections of the headings read, with their bodies and tree.
    fn sections(&mut self) -> Vec<Section> {
        let text = self.text;
        let mut anchors = Anchors::with_capacity(self.headings.len());
        let mut stack: Vec<(u8, usize)> = Vec::new();
        let mut out: Vec<Section> = Vec::with_capacity(self.headings.len());
        let starts: Vec<usize> = self.headings.iter().map(|(h, _)| h.range.start).collect();
        let mut lines: Vec<usize> = self.headings.iter().map(|(h, _)| h.line).collect();
        lines.push(self.total_lines() + 1);
        let headings = std::mem::take(&mut self.headings);
        for (index, (h, slug)) in headings.into_iter().enumerate() {
            let end = starts.get(index + 1).copied().unwrap_or(text.len());
            let line = lines[index];
            let end_line = (lines[index + 1] - 1).max(line);
            let body_start = self.after_line(h.range.end).min(end);
            let heading_lines = newlines(&text.as_bytes()[h.range.start..body_start]);
            let body_start_line = line + heading_lines.max(1);
            while stack.last().is_some_and(|&(l, _)| l >= h.level) {
                stack.pop();
            }
            let parent = stack.last().map(|&(_, i)| i);
            if let Some(p) = parent {
                out[p].children.push(index);
            }
            stack.push((h.level, index));
            out.push(Section {
                anchor: anchors.unique(slug.clone()),
                slug,
                title: h.text,
                level: h.level,
                line,
                end_line,
                range: h.range.start..end,
                body_range: body_start..end,
                body_start_line,
                parent,
                children: Vec::new(),
            });
        }
        out
    }

    /// The start of the line after the one byte `at` ends (`at` itself when
    /// it starts a line).
    fn after_line(&self, at: usize) -> usize {
        let bytes = self.text.as_bytes();
        if at == 0 || at >= bytes.len() || bytes[at - 1] == b'\n' {
            return at.min(bytes.len());
        }
        match self.text[at..].find('\n') {
            Some(i) => at + i + 1,
            None => bytes.len(),
        }
    }

    /// The number of lines (a last `\n` ends the last line).
    fn total_lines(&self) -> usize {
        let last = self.line(self.text.len());
        match self.text.ends_with('\n') {
            true => last - 1,
            false => last,
        }
    }
}

/// Parse `original`, which the document keeps.
pub(super) fn parse(original: std::sync::Arc<str>) -> Document {
    // the fix keeps every byte where it is, so the ranges read `original`
    let fixed = fence_tabs(&original);
    let mut doc = read(fixed.as_ref());
    drop(fixed);
    doc.text = original;
    doc
}

/// The document of `text` (its ranges, not the text itself).
fn read(text: &str) -> Document {
    let mut b = Builder {
        text,
        lines: LineCursor::default(),
        headings: Vec::new(),
        heading: None,
        boxes: Boxes::default(),
        toc: TocReader::default(),
        summary: Summary::Before,
        plain: PlainText::default(),
        doc: Document::default(),
    };
    for (ev, range) in Parser::new_ext(text, markdown_options()).into_offset_iter() {
        b.see(&ev, &range);
    }
    b.finish()
}

/// The `\n`s in `bytes`: byte flags summed in runs of 255, which cannot
/// overflow a byte and which the compiler turns into vector code (summing
/// into a `usize` per byte was 5% of the document pass).
fn newlines(bytes: &[u8]) -> usize {
    bytes
        .chunks(255)
        .map(|run| usize::from(run.iter().map(|&b| u8::from(b == b'\n')).sum::<u8>()))
        .sum()
}

/// 1-based line numbers of byte offsets, counted from the last offset
/// asked (the pass asks in document order, so the text is counted once,
/// not indexed line by line).
#[derive(Default)]
struct LineCursor {
    at: std::cell::Cell<usize>,
    /// The line `at` is on, minus one.
    newlines: std::cell::Cell<usize>,
}

impl LineCursor {
    fn line(&self, text: &str, at: usize) -> usize {
        let at = at.min(text.len());
        let count = |s: &str| newlines(s.as_bytes());
        let (from, to) = (self.at.get(), self.newlines.get());
        let n = match at >= from {
            true => to + count(&text[from..at]),
            false => to - count(&text[at..from]),
        };
        self.at.set(at);
        self.newlines.set(n);
        n + 1
    }
}
