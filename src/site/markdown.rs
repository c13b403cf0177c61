//! Markdown rendering: a KEP's README text and a [`Links`] resolver →
//! [`Rendered`] (sanitized HTML, table of contents, summary text).
//!
//! The event stream is rewritten before HTML is emitted: headings get
//! GitHub-style ids, fenced code is highlighted into CSS classes, and links to
//! other KEPs or repository files are pointed at their pages, link and image
//! destinations are checked, and raw HTML goes through [`super::sanitize`], so
//! nothing the README author wrote can run script.

use std::borrow::Cow;
use std::collections::{HashSet, VecDeque};

use pulldown_cmark::{CodeBlockKind, CowStr, Event, HeadingLevel, Parser, Tag, TagEnd};
use serde::Serialize;

use super::highlight::Highlighter;
pub use super::links::{Links, normalize};
use super::sanitize::{self, Budget, ID_PREFIX, Policy, is_image, safe_url};
use super::search::Section;
use crate::kep::document::{Anchors, markdown_options, slug_text};

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
    /// Highlight-cache keys of its code blocks (see [`Highlighter::keep`]).
    pub code_keys: Vec<u64>,
    /// The search terms of `text`, once someone has worked them out.
    pub body_terms: Option<std::sync::Arc<super::search::BodyTerms>>,
    /// Where each heading's section starts in `text` (not kept in the
    /// README cache: the search terms made from them are).
    pub sections: Vec<Section>,
}

use crate::urls::Titles;

/// Whether raw HTML is only comments and whitespace (renders to nothing).
fn is_comment_only(html: &str) -> bool {
    let mut rest = html.trim_start();
    while !rest.is_empty() {
        let Some(body) = rest.strip_prefix("<!--") else {
            return false;
        };
        match body.find("-->") {
            Some(end) => rest = body[end + 3..].trim_start(),
            None => return false,
        }
    }
    true
}

/// A link or image destination made safe: relative paths resolved (to KEP
/// pages, copied assets or the repository), schemes other than http, https
/// and mailto dropped.
fn safe_dest(links: &Links, from: &str, dest: &str, image: bool) -> String {
    match safe_url(dest) {
        Some(url) => links.resolve(from, &url, image),
        None => String::new(),
    }
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
    let markdown = fence_tabs(markdown);
    let markdown = markdown.as_ref();
    let (mut html, mut done) = stream(markdown, from, links, titles, hl, false);
    if done.raw {
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
            None => (html, done) = stream(markdown, from, links, titles, hl, true),
        }
    }
    let html = fragment_case(html, &done.seen);
    Rendered {
        html,
        toc: done.toc,
        summary: done
            .summary
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" "),
        text: done.text,
        code_keys: done.code_keys,
        body_terms: None,
        sections: done.sections,
    }
}

/// What rendering through a [`Stream`] found out besides the HTML.
struct Done {
    raw: bool,
    raw_lt: usize,
    max_depth: usize,
    seen: HashSet<String>,
    urls: HashSet<String>,
    toc: Vec<TocEntry>,
    summary: String,
    text: String,
    code_keys: Vec<u64>,
    sections: Vec<Section>,
}

/// Render through a [`Stream`]; raw HTML as text when `raw_as_text`.
fn stream(
    markdown: &str,
    from: &str,
    links: &Links,
    titles: &Titles,
    hl: &Highlighter,
    raw_as_text: bool,
) -> (String, Done) {
    let mut stream = Stream {
        parser: Parser::new_ext(markdown, markdown_options()),
        pending: None,
        out: VecDeque::new(),
        done: false,
        from,
        links,
        titles,
        relabel: None,
        hl,
        code: None,
        raw_as_text,
        raw: false,
        raw_lt: 0,
        depth: 0,
        max_depth: 0,
        urls: HashSet::new(),
        anchors: Anchors::default(),
        toc: Vec::new(),
        text: TextOf::default(),
        code_keys: Vec::new(),
        sections: Vec::new(),
    };
    let mut html = String::with_capacity(markdown.len() * 3 / 2);
    pulldown_cmark::html::push_html(&mut html, &mut stream);
    let TextOf { summary, text, .. } = stream.text;
    let done = Done {
        raw: stream.raw,
        raw_lt: stream.raw_lt,
        max_depth: stream.max_depth,
        seen: stream.anchors.into_taken(),
        urls: stream.urls,
        toc: stream.toc,
        summary,
        text,
        code_keys: stream.code_keys,
        sections: stream.sections,
    };
    (html, done)
}

/// `markdown` with the trailing spaces and tabs of its fence-only lines
/// removed. CommonMark (since 0.30) and GitHub close a code block at a fence
/// followed by a tab; pulldown-cmark does not, and renders the rest of the
/// README as code. The whitespace after a fence means nothing otherwise.
fn fence_tabs(markdown: &str) -> Cow<'_, str> {
    if !markdown.contains("```\t") && !markdown.contains("~~~\t") {
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
            out.push_str(body.trim_end_matches([' ', '\t']));
            out.push_str(&line[body.len()..]);
        } else {
            out.push_str(line);
        }
    }
    Cow::Owned(out)
}

/// GitHub finds the heading a `#fragment` names whatever its case
/// (`#Dispatching` goes to `dispatching`); a browser needs the id's own case.
/// A same-page link whose fragment names no id of the page, but whose
/// lowercase does, is given the lowercase. `headings` are the heading ids.
fn fragment_case(html: String, headings: &HashSet<String>) -> String {
    const HREF: &str = "href=\"#";
    let fragments = || {
        html.match_indices(HREF).map(|(i, _)| {
            let rest = &html[i + HREF.len()..];
            (
                i + HREF.len(),
                &rest[..rest.find('"').unwrap_or(rest.len())],
            )
        })
    };
    let suspect = |f: &str| {
        f.bytes().any(|b| b.is_ascii_uppercase())
            && !headings.contains(f)
            && headings.contains(&f.to_ascii_lowercase())
    };
    if !fragments().any(|(_, f)| suspect(f)) {
        return html;
    }
    // every id of the page (footnotes too), so no link that works is changed
    let ids: HashSet<&str> = html
        .match_indices(" id=\"")
        .map(|(i, m)| {
            let rest = &html[i + m.len()..];
            &rest[..rest.find('"').unwrap_or(rest.len())]
        })
        .collect();
    let mut out = String::with_capacity(html.len());
    let mut copied = 0;
    for (at, f) in fragments() {
        if suspect(f) && !ids.contains(f) {
            out.push_str(&html[copied..at]);
            out.push_str(&f.to_ascii_lowercase());
            copied = at + f.len();
        }
    }
    out.push_str(&html[copied..]);
    out
}

/// The parser's events made safe and anchored, one at a time: an HTML
/// block's lines joined (so a comment spanning lines is judged whole),
/// comments dropped, headings given ids, code highlighted, links resolved,
/// raw HTML passed on (for [`sanitize::clean`]) or made text. The plain text
/// is collected on the way.
struct Stream<'a, 'l> {
    parser: Parser<'a>,
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
    /// Write raw HTML as text.
    raw_as_text: bool,
    /// Whether there was raw HTML (other than comments).
    raw: bool,
    /// The number of `<` in raw HTML.
    raw_lt: usize,
    /// Markdown elements open, and the most ever open.
    depth: usize,
    max_depth: usize,
    /// Link and image destinations written (checked and resolved).
    urls: HashSet<String>,
    /// Heading and footnote ids given so far.
    anchors: Anchors,
    toc: Vec<TocEntry>,
    text: TextOf,
    code_keys: Vec<u64>,
    sections: Vec<Section>,
}

impl<'a> Iterator for Stream<'a, '_> {
    type Item = Event<'a>;

    fn next(&mut self) -> Option<Event<'a>> {
        loop {
            if let Some(ev) = self.out.pop_front() {
                return Some(ev);
            }
            if self.done {
                return None;
            }
            match self.pull() {
                Some(Event::Start(Tag::Heading { level, id, .. })) => self.heading(level, id),
                Some(ev) => {
                    self.text.see(&ev);
                    // most events come out as they are, past the queue
                    if let Some(ev) = self.emit(ev) {
                        return Some(ev);
                    }
                }
                None => self.done = true,
            }
        }
    }
}

impl<'a> Stream<'a, '_> {
    /// The next event with consecutive HTML lines joined, and without HTML
    /// that is only comments.
    fn pull(&mut self) -> Option<Event<'a>> {
        loop {
            let ev = match self.pending.take() {
                Some(ev) => ev,
                None => self.parser.next()?,
            };
            let ev = match ev {
                Event::Html(first) => {
                    let mut joined: Option<String> = None;
                    loop {
                        match self.parser.next() {
                            Some(Event::Html(more)) => joined
                                .get_or_insert_with(|| first.to_string())
                                .push_str(&more),
                            other => {
                                self.pending = other;
                                break;
                            }
                        }
                    }
                    Event::Html(joined.map_or(first, CowStr::from))
                }
                ev => ev,
            };
            match &ev {
                Event::Html(h) | Event::InlineHtml(h) if is_comment_only(h) => {}
                _ => return Some(ev),
            }
        }
    }

    /// A heading: its events up to its end are held until its text gives
    /// the anchor id (its own `{#id}` or a GitHub slug, made unique); levels
    /// 1–3 go into the table of contents.
    fn heading(&mut self, level: HeadingLevel, given: Option<CowStr<'a>>) {
        self.text.see(&Event::Start(Tag::Heading {
            level,
            id: None,
            classes: Vec::new(),
            attrs: Vec::new(),
        }));
        let mut inner = Vec::new();
        let mut text = String::new();
        let mut end = None;
        while let Some(ev) = self.pull() {
            if let Event::End(TagEnd::Heading(_)) = ev {
                end = Some(ev);
                break;
            }
            if let Event::Text(t) | Event::Code(t) = &ev {
                text.push_str(t);
            }
            self.text.see(&ev);
            inner.push(ev);
        }
        let base = given
            .map(|g| g.to_string())
            .unwrap_or_else(|| slug_text(&text));
        // never one of the page's own ids
        let base = match sanitize::is_site_id(&base) {
            true => format!("{ID_PREFIX}{base}"),
            false => base,
        };
        let unique = self.anchors.unique(base);
        if level <= HeadingLevel::H3 && !text.trim().is_empty() {
            self.toc.push(TocEntry {
                level: level as u8,
                id: unique.clone(),
                text: text.trim().to_string(),
            });
        }
        self.sections.push(Section {
            start: self.text.text.len(),
            id: unique.clone(),
            title: text.trim().to_string(),
        });
        // the page's title is its one h1: a README's own h1 is shown as h2
        let level = demote(level);
        self.queue(Event::Start(Tag::Heading {
            level,
            id: Some(CowStr::from(unique)),
            classes: Vec::new(),
            attrs: Vec::new(),
        }));
        for ev in inner {
            self.queue(ev);
        }
        if let Some(ev) = end {
            self.text.see(&ev);
            let ev = match ev {
                Event::End(TagEnd::Heading(l)) => Event::End(TagEnd::Heading(demote(l))),
                ev => ev,
            };
            self.queue(ev);
        }
    }

    /// [`Stream::emit`] into the queue.
    fn queue(&mut self, ev: Event<'a>) {
        if let Some(ev) = self.emit(ev) {
            self.out.push_back(ev);
        }
    }

    /// A link or image destination made safe, remembered as kepsite's own.
    fn dest(&mut self, dest: &str, image: bool) -> CowStr<'a> {
        let url = safe_dest(self.links, self.from, dest, image);
        self.urls.insert(url.clone());
        url.into()
    }

    /// A footnote label as its id: prefixed like an author's id.
    fn footnote(&mut self, label: &str) -> CowStr<'a> {
        let id = format!("{ID_PREFIX}fn-{label}");
        self.anchors.take(id.clone());
        id.into()
    }

    /// Rewrite one event for the writer: the event to write next, if any.
    fn emit(&mut self, ev: Event<'a>) -> Option<Event<'a>> {
        if let Some((lang, buf)) = self.code.as_mut() {
            match ev {
                Event::Text(t) => buf.push_str(&t),
                Event::End(TagEnd::CodeBlock) if lang.eq_ignore_ascii_case("mermaid") => {
                    // drawn in the browser by the theme's mermaid script,
                    // shown as text until then (and without script)
                    let html = format!(
                        "<pre class=\"mermaid\" data-lang=\"mermaid\" tabindex=\"0\">{}</pre>",
                        crate::escape::text(buf)
                    );
                    self.code = None;
                    return Some(Event::Html(html.into()));
                }
                Event::End(TagEnd::CodeBlock) => {
                    self.code_keys
                        .extend(super::highlight::cache_key(lang, buf));
                    // a block wider than the page scrolls: keyboard users
                    // reach it with Tab (axe scrollable-region-focusable)
                    let html =
                        self.hl
                            .block(lang, buf)
                            .replacen("<pre ", "<pre tabindex=\"0\" ", 1);
                    self.code = None;
                    return Some(Event::Html(html.into()));
                }
                _ => {}
            }
            return None;
        }
        match ev {
            Event::Start(Tag::CodeBlock(kind)) => {
                let lang = match kind {
                    CodeBlockKind::Fenced(l) => {
                        l.split([' ', ',', '{']).next().unwrap_or("").to_string()
                    }
                    CodeBlockKind::Indented => String::new(),
                };
                self.code = Some((lang, String::new()));
                None
            }
            // an HTML block is not an element: raw HTML may open an element
            // in one block and close it in a later one
            Event::Start(Tag::HtmlBlock) | Event::End(TagEnd::HtmlBlock) => Some(ev),
            Event::Start(tag) => {
                self.depth += 1;
                self.max_depth = self.max_depth.max(self.depth);
                Some(Event::Start(match tag {
                    Tag::Heading {
                        level, id, classes, ..
                    } => Tag::Heading {
                        level,
                        id,
                        classes,
                        attrs: Vec::new(),
                    },
                    Tag::Link {
                        link_type,
                        dest_url,
                        title,
                        id,
                    } => {
                        let dest = self.dest(&dest_url, is_image(&dest_url));
                        let label = dest.split_once('#').map_or(&*dest, |(page, _)| page);
                        let label = self.titles.get(label).cloned();
                        let title = match (&label, title.is_empty()) {
                            (Some(l), true) => CowStr::from(l.clone()),
                            _ => title,
                        };
                        self.relabel = label.map(|l| (dest_url.to_string(), l));
                        Tag::Link {
                            link_type,
                            dest_url: dest,
                            title,
                            id,
                        }
                    }
                    Tag::Image {
                        link_type,
                        dest_url,
                        title,
                        id,
                    } => Tag::Image {
                        link_type,
                        dest_url: self.dest(&dest_url, true),
                        title,
                        id,
                    },
                    Tag::FootnoteDefinition(label) => {
                        Tag::FootnoteDefinition(self.footnote(&label))
                    }
                    tag => tag,
                }))
            }
            // a checkbox needs a name (axe `label`): say what it shows
            Event::TaskListMarker(done) => Some(Event::InlineHtml(
                if done {
                    "<input type=\"checkbox\" disabled checked aria-label=\"done\"> "
                } else {
                    "<input type=\"checkbox\" disabled aria-label=\"not done\"> "
                }
                .into(),
            )),
            Event::Text(t) if self.relabel.is_some() => {
                let (dest, label) = self.relabel.as_ref()?;
                let bare = t.trim();
                let is_address = bare == dest
                    || bare.starts_with("http")
                    || (!bare.contains(' ') && bare.contains('/'));
                Some(Event::Text(if is_address {
                    CowStr::from(label.clone())
                } else {
                    t
                }))
            }
            Event::End(tag) => {
                if matches!(tag, TagEnd::Link) {
                    self.relabel = None;
                }
                self.depth = self.depth.saturating_sub(1);
                Some(Event::End(tag))
            }
            Event::FootnoteReference(label) => {
                Some(Event::FootnoteReference(self.footnote(&label)))
            }
            Event::Html(h) | Event::InlineHtml(h) if self.raw_as_text => Some(Event::Text(h)),
            Event::Html(h) | Event::InlineHtml(h) => {
                self.raw = true;
                self.raw_lt += h.bytes().filter(|b| *b == b'<').count();
                Some(Event::InlineHtml(h))
            }
            ev => Some(ev),
        }
    }
}

/// Level 1 becomes level 2: the page's title is its only h1.
fn demote(level: HeadingLevel) -> HeadingLevel {
    match level {
        HeadingLevel::H1 => HeadingLevel::H2,
        l => l,
    }
}

/// The plain text of the whole document and of its `Summary` section, from
/// the events as they pass.
#[derive(Default)]
struct TextOf {
    summary: String,
    text: String,
    in_summary: bool,
    /// The text of the heading being read.
    heading: Option<String>,
}

impl TextOf {
    fn see(&mut self, ev: &Event) {
        match ev {
            Event::Start(Tag::Heading { .. }) => self.heading = Some(String::new()),
            Event::End(TagEnd::Heading(_)) => {
                if let Some(h) = self.heading.take() {
                    self.in_summary = h.trim().eq_ignore_ascii_case("summary");
                    self.text.push_str(&h);
                    self.text.push('\n');
                }
            }
            Event::Text(t) | Event::Code(t) => match self.heading.as_mut() {
                Some(h) => h.push_str(t),
                None => {
                    self.text.push_str(t);
                    if self.in_summary {
                        self.summary.push_str(t);
                    }
                }
            },
            Event::SoftBreak | Event::HardBreak | Event::End(TagEnd::Paragraph | TagEnd::Item) => {
                self.text.push(' ');
                if self.in_summary {
                    self.summary.push(' ');
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::{BTreeMap, BTreeSet};

    fn render_plain(md: &str) -> String {
        let keps = BTreeMap::from([("keps/sig-a/1-x".to_string(), "/keps/1/".to_string())]);
        let assets = BTreeSet::from(["img.png".to_string()]);
        let links = Links {
            keps: &keps,
            local_assets: &assets,
            repo_url: "https://github.com/k/e",
            branch: "master",
        };
        let hl = Highlighter::new();
        render(md, "keps/sig-a/2-y/README.md", &links, &hl).html
    }

    #[test]
    fn a_fence_followed_by_a_tab_closes_its_block() {
        for fence in ["```", "~~~"] {
            let md = format!("{fence}\n\tcode\n{fence}\t \r\n\n## After\n\nText.\n");
            let html = render_plain(&md);
            assert!(html.contains("<h2 id=\"after\">"), "{html}");
            assert!(html.contains("<p>Text.</p>"), "{html}");
            assert!(!html.contains("After\n"), "{html}");
        }
        // no fence line: the text is not copied
        assert!(matches!(fence_tabs("a\tb\n``` x\t\n"), Cow::Borrowed(_)));
        // an info string after a tab is left alone
        assert_eq!(fence_tabs("```\tgo\nx\n```\t\n"), "```\tgo\nx\n```\n");
    }

    #[test]
    fn fragments_find_their_heading_whatever_the_case() {
        let html = render_plain(
            "[d](#Dispatching) [e](#Exact) [n](#Nowhere) [f](#Note)\n\n\
             ## Dispatching\n\n## Exact\n\n<a id=\"Exact\"></a>\n\n## Note\n",
        );
        assert!(html.contains("href=\"#dispatching\""), "{html}");
        assert!(html.contains("href=\"#Nowhere\""), "{html}");
        assert!(html.contains("href=\"#note\""), "{html}");
        // a link to an author's id that exists as written follows its prefix
        assert!(html.contains(" id=\"user-content-Exact\""), "{html}");
        assert!(html.contains("href=\"#user-content-Exact\""), "{html}");
    }

    #[test]
    fn markdown_is_made_safe_in_the_event_stream() {
        for (md, bad) in [
            ("[a](javascript:alert(1))", "javascript"),
            ("[a](JavaScript:alert(1))", "alert"),
            ("[a]( vbscript:msgbox )", "vbscript"),
            ("![i](data:image/svg+xml;base64,PHN2Zz4=)", "data:"),
            ("[a][r]\n\n[r]: javascript:alert(1)", "javascript"),
            ("<javascript:alert(1)>", "href=\"javascript"),
            ("# Title {onclick=alert(1)}", "onclick"),
            ("[a](java&#09;script:alert(1))", "href=\"java"),
        ] {
            let html = render_plain(md);
            assert!(!html.contains(bad), "{md:?} → {html}");
        }
        let html = render_plain(
            "[k](../../sig-a/1-x/README.md) [m](mailto:a@b.c) ![p](img.png) [f](other.md#x) <!-- note -->",
        );
        assert!(html.contains(r#"href="/keps/1/""#), "{html}");
        assert!(html.contains(r#"href="mailto:a@b.c""#), "{html}");
        assert!(html.contains(r#"src="img.png""#), "{html}");
        assert!(
            html.contains("https://github.com/k/e/blob/master/keps/sig-a/2-y/other.md#x"),
            "{html}"
        );
        assert!(!html.contains("note"), "comments are dropped: {html}");
    }

    #[test]
    fn a_comment_over_several_lines_hides_nothing_after_it() {
        // keps/sig-storage/1979: `>` instead of `-->` on the first line; the
        // comment ends on the next line, as on GitHub.
        let html = render_plain(
            "<!-- update with hack/update-toc.sh >\n<!-- toc -->\n- [Summary](#summary)\n<!-- /toc -->\n\n## Summary\n\nText.\n",
        );
        assert!(html.contains("<h2 id=\"summary\">"), "{html}");
        assert!(html.contains("href=\"#summary\""), "{html}");
    }

    #[test]
    fn raw_html_goes_through_the_sanitizer() {
        let html = render_plain(
            "<div onclick=\"x()\">hi <script>alert(1)</script><a href=\"javascript:y\">l</a></div>\n\n<img src=\"img.png\" onerror=\"z()\">",
        );
        assert!(
            !html.contains("onclick")
                && !html.contains("<script")
                && !html.contains("javascript")
                && !html.contains("onerror"),
            "{html}"
        );
        assert!(html.contains(r#"src="img.png""#), "{html}");
    }

    #[test]
    fn raw_html_left_open_closes_inside_its_markdown_element() {
        let html = render_plain("## Title <b>bold\n\nText <i>open\n\n* item <span>x\n");
        assert!(
            html.contains(r#"<h2 id="title-bold">Title <b>bold</b></h2>"#),
            "{html}"
        );
        assert!(html.contains("<p>Text <i>open</i></p>"), "{html}");
        assert!(html.contains("<li>item <span>x</span></li>"), "{html}");
        let r = render(
            "# A\n\n## Summary\n\nThe *short* story.\n\n## A\n\n```yaml\nk: v\n```\n",
            "keps/sig-a/2-y/README.md",
            &Links {
                keps: &BTreeMap::new(),
                local_assets: &BTreeSet::new(),
                repo_url: "https://github.com/k/e",
                branch: "master",
            },
            &Highlighter::new(),
        );
        assert_eq!(r.summary, "The short story.");
        let ids: Vec<&str> = r.toc.iter().map(|t| t.id.as_str()).collect();
        assert_eq!(ids, ["a", "summary", "a-1"]);
        assert!(r.text.contains("k: v"), "{:?}", r.text);
        assert!(r.html.contains(r#"data-lang="yaml""#), "{}", r.html);
    }

    #[test]
    fn raw_html_readmes_keep_what_keyboards_and_screen_readers_need() {
        // raw HTML sends the whole README through the tree sanitizer
        let md = "<b>raw</b>\n\n- [x] done\n- [ ] open\n\n```mermaid\ngraph TD; A-->B\n```\n\n```go\nx := 1\n```\n\n<pre tabindex=\"7\">p</pre>\n";
        let html = render_plain(md);
        assert!(html.contains("aria-label=\"done\""), "{html}");
        assert!(html.contains("aria-label=\"not done\""), "{html}");
        assert!(html.contains("class=\"mermaid\""), "{html}");
        assert_eq!(html.matches("tabindex=\"0\"").count(), 3, "{html}");
        assert!(!html.contains("tabindex=\"7\""), "{html}");
    }
}
