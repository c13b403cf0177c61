//! Markdown rendering: a KEP's README text and a [`Links`] resolver →
//! [`Rendered`] (sanitized HTML, table of contents, summary text).
//!
//! The event stream is rewritten before HTML is emitted: headings get
//! GitHub-style ids, fenced code is highlighted into CSS classes, and links to
//! other KEPs or repository files are pointed at their pages, link and image
//! destinations are checked, and raw HTML goes through [`super::sanitize`], so
//! nothing the README author wrote can run script.
//!
//! The parts: `events` rewrites the parser's events (links, images, raw
//! HTML, footnotes), `heading` gives headings their ids and the table of
//! contents, `code` highlights code blocks, and `text` collects the plain
//! text for search and the summary.

mod code;
mod events;
mod heading;
mod raw;
mod text;

use std::collections::{HashSet, VecDeque};

use pulldown_cmark::Event;
use serde::Serialize;

use super::highlight::Highlighter;
pub use super::links::{Links, normalize};
use super::sanitize::{self, Budget, Policy};
use super::search::Section;
use crate::kep::document::{self, Anchors, Document};
use crate::urls::Titles;
use text::TextOf;

/// One table-of-contents entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TocEntry {
    /// Heading level, 1–6.
    pub level: u8,
    /// The heading's anchor id.
    pub id: String,
    /// The heading's plain text.
    pub text: String,
}

/// A rendered README.
#[derive(Debug, Clone, Default)]
pub struct Rendered {
    /// Sanitized HTML.
    pub html: String,
    /// Headings of levels 1–3, in order.
    pub toc: Vec<TocEntry>,
    /// Plain text of the `Summary` section (empty when there is none).
    pub summary: String,
    /// Plain text of the whole document, for the search index.
    pub text: String,
    /// The search terms of `text`, once someone has worked them out.
    pub body_terms: Option<std::sync::Arc<super::search::BodyTerms>>,
    /// Where each heading's section starts in `text`.
    pub sections: Vec<Section>,
    /// Whether `html` has a mermaid diagram (`<pre class="mermaid"`), for
    /// the page to load the script that draws it.
    pub diagrams: bool,
    /// The README's size when `html` is only its start (a README over
    /// `kep::document::MAX_PAGE_BYTES`).
    pub cut_from: Option<usize>,
}

/// Render `markdown` (the file at repository path `from`).
///
/// Markdown alone cannot produce script: the only URLs are link and image
/// destinations, which `safe_dest` rewrites, and heading attributes are
/// dropped. A README with raw HTML is rendered whole and then cleaned on a
/// tree by [`sanitize::clean`]; when that refuses it (beyond its budget), the
/// raw HTML is rendered as text.
pub fn render(markdown: &str, from: &str, links: &Links, hl: &Highlighter) -> Rendered {
    render_titled(markdown, from, links, &Titles::new(), hl)
}

/// [`render`], with links to KEP pages titled from `titles`.
pub fn render_titled(
    markdown: &str,
    from: &str,
    links: &Links,
    titles: &Titles,
    hl: &Highlighter,
) -> Rendered {
    let doc = document::parse(markdown);
    render_checked(&doc, from, links, titles, hl, RawHtml::KeepSimple)
}

/// [`render_titled`] from a README's parse (`doc`): its sections are the
/// page's, and its text's events are written as they are read.
pub fn render_document(
    doc: &Document,
    from: &str,
    links: &Links,
    titles: &Titles,
    hl: &Highlighter,
) -> Rendered {
    render_checked(doc, from, links, titles, hl, RawHtml::KeepSimple)
}

/// [`render_titled`], with any raw HTML cleaned by the sanitizer, even
/// tags [`raw`] would keep as they are (the tests check that keeping them
/// changes no page's tree).
pub fn render_sanitized(
    markdown: &str,
    from: &str,
    links: &Links,
    titles: &Titles,
    hl: &Highlighter,
) -> Rendered {
    let doc = document::parse(markdown);
    render_checked(&doc, from, links, titles, hl, RawHtml::Sanitize)
}

/// [`render_titled`]; raw HTML of only kept tags ([`raw`]) is written as
/// it is with [`RawHtml::KeepSimple`], and cleaned by the sanitizer with
/// [`RawHtml::Sanitize`].
fn render_checked(
    doc: &Document,
    from: &str,
    links: &Links,
    titles: &Titles,
    hl: &Highlighter,
    raw: RawHtml,
) -> Rendered {
    let (mut html, mut done) = stream(doc, from, links, titles, hl, raw);
    if done.raw && !(raw == RawHtml::KeepSimple && done.simple) {
        // a tag written as nothing may still act on a tree that is not
        // nested in turn (it reconstructs formatting elements): rendered
        // again, all of the raw HTML for the sanitizer
        if done.dropped {
            (html, done) = stream(doc, from, links, titles, hl, RawHtml::Sanitize);
        }
        let resolve = |url: &str, image: bool| links.resolve(from, url, image);
        let policy = Policy {
            generated_ids: &done.seen,
            trusted_urls: &done.urls,
            resolve: &resolve,
        };
        let budget = Budget {
            depth: done.max_depth + done.raw_lt,
        };
        match sanitize::clean(&html, &policy, &budget) {
            Some(clean) => html = clean,
            None => (html, done) = stream(doc, from, links, titles, hl, RawHtml::AsText),
        }
    }
    // only a same-page link with a capital can need it (raw HTML's links
    // are not counted)
    let html = match done.raw || done.upper_fragment {
        true => heading::fragment_case(html, &done.seen),
        false => html,
    };
    let diagrams = done.diagrams || (done.raw && html.contains("<pre class=\"mermaid\""));
    Rendered {
        diagrams,
        html,
        toc: done.toc,
        summary: done
            .summary
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" "),
        text: done.text,
        body_terms: None,
        sections: done.sections,
        cut_from: None,
    }
}

/// What rendering through a [`Stream`] found out besides the HTML.
struct Done {
    raw: bool,
    /// The raw HTML is only tags [`raw`] keeps, well nested.
    simple: bool,
    /// A link or image to `#` and a fragment with a capital was written.
    upper_fragment: bool,
    /// A raw tag was written as nothing ([`RawHtml::KeepSimple`]).
    dropped: bool,
    /// A mermaid block was written.
    diagrams: bool,
    raw_lt: usize,
    max_depth: usize,
    seen: HashSet<String>,
    urls: HashSet<String>,
    toc: Vec<TocEntry>,
    summary: String,
    text: String,
    sections: Vec<Section>,
}

/// What a [`Stream`] does with raw HTML.
#[derive(Clone, Copy, PartialEq, Eq)]
enum RawHtml {
    /// Passes it on, writing the tags [`raw`] drops as nothing.
    KeepSimple,
    /// Passes it all on, for the sanitizer.
    Sanitize,
    /// Writes it as text.
    AsText,
}

/// Render through a [`Stream`], raw HTML as `raw` says.
fn stream(
    doc: &Document,
    from: &str,
    links: &Links,
    titles: &Titles,
    hl: &Highlighter,
    raw: RawHtml,
) -> (String, Done) {
    // The events are read from the text as they are written, never kept
    // (keeping every README's was 90 MB of the corpus build's peak).
    let fixed = document::fence_tabs(&doc.text);
    let mut stream = Stream {
        parser: pulldown_cmark::Parser::new_ext(&fixed, document::markdown_options()),
        doc,
        heading: 0,
        pending: None,
        out: VecDeque::new(),
        done: false,
        from,
        links,
        titles,
        relabel: None,
        hl,
        code: None,
        code_budget: super::highlight::README_BUDGET,
        raw_mode: raw,
        raw: false,
        raw_lt: 0,
        nesting: raw::Nesting::default(),
        upper_fragment: false,
        dropped: false,
        diagrams: false,
        depth: 0,
        max_depth: 0,
        urls: HashSet::new(),
        anchors: Anchors::default(),
        shown_level: 2,
        toc: Vec::new(),
        text: TextOf::default(),
        sections: Vec::new(),
    };
    let size = doc.sections.last().map_or(0, |s| s.range.end);
    let mut html = String::with_capacity(size * 3 / 2);
    pulldown_cmark::html::push_html(&mut html, &mut stream);
    let TextOf { summary, text, .. } = stream.text;
    let done = Done {
        raw: stream.raw,
        simple: stream.nesting.simple(),
        upper_fragment: stream.upper_fragment,
        dropped: stream.dropped,
        diagrams: stream.diagrams,
        raw_lt: stream.raw_lt,
        max_depth: stream.max_depth,
        seen: stream.anchors.into_taken(),
        urls: stream.urls,
        toc: stream.toc,
        summary,
        text,
        sections: stream.sections,
    };
    (html, done)
}

/// The parser's events made safe and anchored, one at a time: an HTML
/// block's lines joined (so a comment spanning lines is judged whole),
/// comments dropped, headings given ids, code highlighted, links resolved,
/// raw HTML passed on (for [`sanitize::clean`]) or made text. The plain text
/// is collected on the way.
struct Stream<'a, 'l> {
    /// The README's events, read from its text as they are written.
    parser: pulldown_cmark::Parser<'a>,
    /// The README's parse.
    doc: &'a Document,
    /// The number of headings read so far (the next one's index in
    /// `doc.sections`).
    heading: usize,
    /// An event read ahead while joining HTML lines.
    pending: Option<Event<'a>>,
    /// Events ready for the writer.
    out: VecDeque<Event<'a>>,
    done: bool,
    from: &'l str,
    links: &'l Links<'l>,
    titles: &'l Titles,
    /// Inside a link to a KEP page: the destination as written and the
    /// KEP's label, which replaces link text that is only the address.
    relabel: Option<(String, String)>,
    hl: &'l Highlighter,
    /// Inside a code block: its language and text so far.
    code: Option<(String, String)>,
    /// Bytes of code still to be highlighted in this README; blocks past
    /// it are escaped as they are.
    code_budget: usize,
    /// What to do with raw HTML.
    raw_mode: RawHtml,
    /// Whether a tag [`raw`] drops was written as nothing.
    dropped: bool,
    /// Whether a mermaid block was written.
    diagrams: bool,
    /// Whether there was raw HTML (other than comments).
    raw: bool,
    /// The number of `<` in raw HTML.
    raw_lt: usize,
    /// The elements open, and whether the raw HTML may skip the sanitizer.
    nesting: raw::Nesting,
    /// A link or image to `#` and a fragment with a capital was written.
    upper_fragment: bool,
    /// Markdown elements open, and the most ever open.
    depth: usize,
    max_depth: usize,
    /// Link and image destinations written (checked and resolved).
    urls: HashSet<String>,
    /// Heading and footnote ids given so far.
    anchors: Anchors,
    /// The level the last heading was shown at (2 before the first: the
    /// page's panels above the README are h2).
    shown_level: u8,
    toc: Vec<TocEntry>,
    text: TextOf,
    sections: Vec<Section>,
}

#[cfg(test)]
mod tests;
