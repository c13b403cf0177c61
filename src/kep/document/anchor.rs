//! Heading anchors, the one implementation: a heading's markdown → the text
//! a renderer shows ([`heading_text`]) → GitHub's anchor ([`slug`],
//! [`slug_text`]), made unique the way GitHub numbers repeated headings
//! ([`Anchors`]). The site's heading ids and the `toc-mismatch` rule both
//! come from here, so a TOC link the rule accepts lands on a rendered id.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use pulldown_cmark::{Event, Options, Parser, Tag};

/// The markdown dialect READMEs are rendered in (GitHub's extensions that
/// pulldown-cmark has), so a heading's text is read as the site renders it.
pub fn markdown_options() -> Options {
    Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_HEADING_ATTRIBUTES
}

/// Bytes after which a heading's text may differ from its markdown.
fn has_markup(raw: &str) -> bool {
    raw.bytes().any(|b| {
        matches!(
            b,
            b'*' | b'`' | b'~' | b'_' | b'\\' | b'<' | b'[' | b'!' | b'&' | b'{' | b'\t'
        )
    })
}

/// The id a heading gives itself (`{#id}`) and its text as rendered: the
/// text and code of its inline markdown, entities decoded, tags, link
/// destinations and emphasis markers dropped.
fn read_heading(raw: &str) -> (Option<String>, Cow<'_, str>) {
    let raw = raw.trim();
    if !has_markup(raw) {
        return (None, Cow::Borrowed(raw));
    }
    let line = format!("# {}", raw.replace(['\n', '\r'], " "));
    let mut id = None;
    let mut text = String::new();
    for ev in Parser::new_ext(&line, markdown_options()) {
        match ev {
            Event::Start(Tag::Heading {
                id: Some(given), ..
            }) => id = Some(given.to_string()),
            Event::Text(t) | Event::Code(t) => text.push_str(&t),
            _ => {}
        }
    }
    (id, Cow::Owned(text))
}

/// A heading's markdown (`` `kubectl` **flags** ``) → the text a reader
/// sees (`kubectl flags`).
pub fn heading_text(raw: &str) -> Cow<'_, str> {
    read_heading(raw).1
}

/// GitHub's anchor for a heading written in markdown: its own `{#id}`, else
/// [`slug_text`] of its rendered text.
pub fn slug(heading: &str) -> String {
    match read_heading(heading) {
        (Some(id), _) => id,
        (None, text) => slug_text(&text),
    }
}

/// GitHub's anchor for a heading's rendered text: lowercased (the whole
/// string, so a final Greek sigma stays `ς`), characters other than letters,
/// digits, `_`, `-` and spaces removed, spaces turned into `-`.
pub fn slug_text(text: &str) -> String {
    let text = text.trim();
    if text.is_ascii() {
        // one pass, one allocation (most headings)
        let mut out = String::with_capacity(text.len());
        for b in text.bytes() {
            match b {
                b' ' => out.push('-'),
                b'-' | b'_' => out.push(b as char),
                b if b.is_ascii_alphanumeric() => out.push(b.to_ascii_lowercase() as char),
                _ => {}
            }
        }
        return out;
    }
    lower(text)
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            '-' | '_' => Some(c),
            c if c.is_alphanumeric() => Some(c),
            _ => None,
        })
        .collect()
}

/// Lowercase ASCII quickly, other text fully.
pub(super) fn lower(s: &str) -> String {
    if s.is_ascii() {
        s.to_ascii_lowercase()
    } else {
        s.to_lowercase()
    }
}

/// The ids of one page: GitHub numbers a repeated anchor `a`, `a-1`, `a-2`,
/// …, skipping any id already taken.
#[derive(Debug, Default)]
pub struct Anchors {
    /// Every id taken, with the last number given to it as a base (0 while
    /// it has not been repeated), so repeats cost linear time. One map, sized
    /// up front, with foldhash (seeded per process): the hash lookups and
    /// inserts per heading were 4% of `check`'s CPU with two SipHash maps.
    taken: HashMap<String, usize, foldhash::fast::RandomState>,
}

impl Anchors {
    /// Room for `n` ids.
    pub fn with_capacity(n: usize) -> Self {
        Anchors {
            taken: HashMap::with_capacity_and_hasher(n, Default::default()),
        }
    }

    /// `base`, or the first free `base-N`; taken from now on.
    pub fn unique(&mut self, base: String) -> String {
        let Some(&last) = self.taken.get(&base) else {
            // the first of its name (most)
            self.taken.insert(base.clone(), 0);
            return base;
        };
        let mut n = last;
        let id = loop {
            n += 1;
            let id = format!("{base}-{n}");
            if !self.taken.contains_key(&id) {
                break id;
            }
        };
        self.taken.insert(id.clone(), 0);
        self.taken.insert(base, n);
        id
    }

    /// Marks an id given by something other than a heading as taken.
    pub fn take(&mut self, id: String) {
        self.taken.entry(id).or_insert(0);
    }

    /// Every id taken.
    pub fn into_taken(self) -> HashSet<String> {
        self.taken.into_keys().collect()
    }
}
