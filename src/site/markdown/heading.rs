//! Headings: anchor ids (their own `{#id}` or GitHub's slug, made unique),
//! the table of contents and search sections, and same-page links whose
//! fragment differs from its heading's id only in case.

use std::collections::HashSet;

use pulldown_cmark::{CowStr, Event, HeadingLevel, Tag, TagEnd};

use super::{Stream, TocEntry};
use crate::site::sanitize::{self, ID_PREFIX};
use crate::site::search::Section;

/// Level 1 becomes level 2: the page's title is its only h1.
fn demote(level: HeadingLevel) -> HeadingLevel {
    match level {
        HeadingLevel::H1 => HeadingLevel::H2,
        l => l,
    }
}

/// `level`, or the level one below `before` when it is deeper than that.
fn shown(level: HeadingLevel, before: u8) -> HeadingLevel {
    match (level as u8).min(before.saturating_add(1)) {
        ..=2 => HeadingLevel::H2,
        3 => HeadingLevel::H3,
        4 => HeadingLevel::H4,
        5 => HeadingLevel::H5,
        _ => HeadingLevel::H6,
    }
}

impl<'a> Stream<'a, '_> {
    /// A heading: its events up to its end are held until its text gives
    /// the anchor id (its own `{#id}` or a GitHub slug, made unique); levels
    /// 1–3 go into the table of contents.
    pub(super) fn heading(&mut self, level: HeadingLevel) {
        self.text.see(&Event::Start(Tag::Heading {
            level,
            id: None,
            classes: Vec::new(),
            attrs: Vec::new(),
        }));
        let mut inner = Vec::new();
        let mut end = None;
        while let Some(ev) = self.pull() {
            if let Event::End(TagEnd::Heading(_)) = ev {
                end = Some(ev);
                break;
            }
            self.text.see(&ev);
            inner.push(ev);
        }
        // the parse's own reading of this heading (its text and slug)
        let section = self.doc.sections.get(self.heading);
        self.heading += 1;
        let text = section.map_or("", |s| s.title.as_str());
        let slug = section.map_or_else(String::new, |s| s.slug.clone());
        let unique = self.anchor(slug);
        // a heading without an anchor (only punctuation: `# ;`) has
        // nothing for the table of contents to link to
        if level <= HeadingLevel::H3 && !text.is_empty() && !unique.is_empty() {
            self.toc.push(TocEntry {
                level: level as u8,
                id: unique.clone(),
                text: text.to_string(),
            });
        }
        self.sections.push(Section {
            start: self.text.text.len(),
            level: level as u8,
            id: unique.clone(),
            title: text.to_string(),
        });
        // the page's title is its one h1: a README's own h1 is shown as h2;
        // and a heading is never more than one level below the one before
        // it (`###` then `#####` is shown as h3, h4), so that the page's
        // outline has no holes (axe `heading-order`); its id, its place in
        // the table of contents and its section stay the author's
        let level = shown(demote(level), self.shown_level);
        self.shown_level = level as u8;
        // an empty id is no id (HTML allows none); the sanitizer drops it
        self.queue(Event::Start(Tag::Heading {
            level,
            id: (!unique.is_empty()).then(|| CowStr::from(unique)),
            classes: Vec::new(),
            attrs: Vec::new(),
        }));
        for ev in inner {
            self.queue(ev);
        }
        if let Some(ev) = end {
            self.text.see(&ev);
            let ev = match ev {
                Event::End(TagEnd::Heading(_)) => Event::End(TagEnd::Heading(level)),
                ev => ev,
            };
            self.queue(ev);
        }
    }

    /// The anchor id of a heading whose slug (its own `{#id}` or GitHub's)
    /// is `base`: never one of the page's own ids, made unique.
    fn anchor(&mut self, base: String) -> String {
        // never one of the page's own ids
        let base = match sanitize::is_site_id(&base) {
            true => format!("{ID_PREFIX}{base}"),
            false => base,
        };
        self.anchors.unique(base)
    }
}

/// GitHub finds the heading a `#fragment` names whatever its case
/// (`#Dispatching` goes to `dispatching`); a browser needs the id's own case.
/// A same-page link whose fragment names no id of the page, but whose
/// lowercase does, is given the lowercase. `headings` are the heading ids.
pub(super) fn fragment_case(html: String, headings: &HashSet<String>) -> String {
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
