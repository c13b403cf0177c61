//! The event stream itself: events pulled from the parser (HTML lines
//! joined, comments dropped) and rewritten one at a time for the writer —
//! links and images made safe and resolved, links to KEP pages titled,
//! footnotes prefixed, task-list checkboxes named, raw HTML passed on or made
//! text.

use pulldown_cmark::{CowStr, Event, LinkType, Tag, TagEnd};

use super::{RawHtml, Stream};
use crate::site::links::Links;
use crate::site::sanitize::{ID_PREFIX, is_image, safe_url};

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

/// A task-list checkbox. A checkbox needs a name (axe `label`): it says
/// what it shows.
fn task_marker<'a>(done: bool) -> Event<'a> {
    Event::InlineHtml(
        if done {
            "<input type=\"checkbox\" disabled checked aria-label=\"done\"> "
        } else {
            "<input type=\"checkbox\" disabled aria-label=\"not done\"> "
        }
        .into(),
    )
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
                Some(Event::Start(Tag::Heading { level, .. })) => self.heading(level),
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
    pub(super) fn pull(&mut self) -> Option<Event<'a>> {
        loop {
            let ev = match self.pending.take() {
                Some(ev) => ev,
                None => self.parser.next()?,
            };
            let ev = match ev {
                Event::Html(first) => Event::Html(self.join_html(first)),
                ev => ev,
            };
            match &ev {
                Event::Html(h) | Event::InlineHtml(h) if is_comment_only(h) => {}
                _ => return Some(ev),
            }
        }
    }

    /// An HTML block's line `first` with the lines that follow it; the event
    /// after them is kept for [`Stream::pull`].
    fn join_html(&mut self, first: CowStr<'a>) -> CowStr<'a> {
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
        joined.map_or(first, CowStr::from)
    }

    /// [`Stream::emit`] into the queue.
    pub(super) fn queue(&mut self, ev: Event<'a>) {
        if let Some(ev) = self.emit(ev) {
            self.out.push_back(ev);
        }
    }

    /// Rewrite one event for the writer: the event to write next, if any.
    fn emit(&mut self, ev: Event<'a>) -> Option<Event<'a>> {
        if self.code.is_some() {
            return self.code_event(ev);
        }
        match ev {
            Event::Start(Tag::CodeBlock(kind)) => {
                self.nesting.block();
                self.code_start(kind);
                None
            }
            // an HTML block is not an element: raw HTML may open an element
            // in one block and close it in a later one
            Event::Start(Tag::HtmlBlock) | Event::End(TagEnd::HtmlBlock) => Some(ev),
            Event::Start(tag) => Some(Event::Start(self.start(tag))),
            Event::TaskListMarker(done) => Some(task_marker(done)),
            Event::Text(t) if self.relabel.is_some() => Some(Event::Text(self.relabel_text(t))),
            Event::End(tag) => Some(self.end(tag)),
            Event::FootnoteReference(label) => {
                Some(Event::FootnoteReference(self.footnote(&label)))
            }
            Event::Html(h) => Some(self.raw_html(h, false)),
            Event::InlineHtml(h) => Some(self.raw_html(h, true)),
            ev => Some(ev),
        }
    }

    /// A markdown element opens: counted for the nesting depth; heading
    /// attributes dropped, link, image and footnote targets rewritten.
    fn start(&mut self, tag: Tag<'a>) -> Tag<'a> {
        self.depth += 1;
        self.max_depth = self.max_depth.max(self.depth);
        let inline = matches!(
            tag,
            Tag::Emphasis
                | Tag::Strong
                | Tag::Strikethrough
                | Tag::Superscript
                | Tag::Subscript
                | Tag::Link { .. }
                | Tag::Image { .. }
        );
        self.nesting.start(!inline);
        match tag {
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
            } => self.link(link_type, dest_url, title, id),
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
            Tag::FootnoteDefinition(label) => Tag::FootnoteDefinition(self.footnote(&label)),
            tag => tag,
        }
    }

    /// A link with its destination made safe. A link to a KEP page is
    /// titled with the KEP's label, and its text is relabelled while it is
    /// open (see [`Stream::relabel_text`]).
    fn link(
        &mut self,
        link_type: LinkType,
        dest_url: CowStr<'a>,
        title: CowStr<'a>,
        id: CowStr<'a>,
    ) -> Tag<'a> {
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

    /// Text inside a link to a KEP page: the KEP's label when the text is
    /// only the address.
    fn relabel_text(&self, t: CowStr<'a>) -> CowStr<'a> {
        let Some((dest, label)) = &self.relabel else {
            return t;
        };
        let bare = t.trim();
        let is_address =
            bare == dest || bare.starts_with("http") || (!bare.contains(' ') && bare.contains('/'));
        if is_address {
            CowStr::from(label.clone())
        } else {
            t
        }
    }

    /// A markdown element closes.
    fn end(&mut self, tag: TagEnd) -> Event<'a> {
        if matches!(tag, TagEnd::Link) {
            self.relabel = None;
        }
        self.depth = self.depth.saturating_sub(1);
        self.nesting.end();
        Event::End(tag)
    }

    /// Raw HTML (an HTML block's, or inline): passed on for the sanitizer
    /// (and counted for its budget, and for whether it may skip it), or
    /// made text.
    fn raw_html(&mut self, h: CowStr<'a>, inline: bool) -> Event<'a> {
        if self.raw_mode == RawHtml::AsText {
            return Event::Text(h);
        }
        self.raw = true;
        if self.nesting.raw(&h, inline) && self.raw_mode == RawHtml::KeepSimple {
            self.dropped = true;
            return Event::Text(CowStr::Borrowed(""));
        }
        self.raw_lt += h.bytes().filter(|b| *b == b'<').count();
        Event::InlineHtml(h)
    }

    /// A link or image destination made safe, remembered as kepsite's own.
    fn dest(&mut self, dest: &str, image: bool) -> CowStr<'a> {
        let url = safe_dest(self.links, self.from, dest, image);
        if url.starts_with('#') && url.bytes().any(|b| b.is_ascii_uppercase()) {
            self.upper_fragment = true;
        }
        self.urls.insert(url.clone());
        url.into()
    }

    /// A footnote label as its id: prefixed like an author's id.
    fn footnote(&mut self, label: &str) -> CowStr<'a> {
        let id = format!("{ID_PREFIX}fn-{label}");
        self.anchors.take(id.clone());
        id.into()
    }
}
