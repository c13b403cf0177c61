//! Raw HTML the sanitizer need not see: phrasing tags without attributes
//! (`<code>`, `<b>`, `<sup>`, `<br>` …) opened and closed inside the
//! markdown's own inline content, as 92 of the corpus's 167 READMEs with raw
//! HTML use it. Such tags nest as they are written in any HTML parser (each
//! end tag meets its own element as the current node, no block starts
//! inside one, none is a scope boundary, `a`, `nobr` or a form control),
//! so the rendered README's tree is the one its markup says, of elements the
//! sanitizer keeps as they are: the README is written as rendered, without
//! the sanitizer's two parses (its largest cost). Start tags that no
//! parser acts on and the sanitizer unwraps or drops ([`Tag::Dropped`]:
//! 41 more READMEs) are written as nothing. Anything else (an
//! attribute, an HTML block, another element, a tag left open or closed
//! out of turn) sends the whole README to the sanitizer, as before.

/// The elements kept: phrasing content the HTML parser treats as ordinary
/// or formatting elements, all on the sanitizer's allowlist.
const PHRASING: &[&str] = &[
    "abbr", "b", "cite", "code", "del", "dfn", "em", "i", "ins", "kbd", "mark", "q", "s", "samp",
    "small", "span", "strike", "strong", "sub", "sup", "tt", "u", "var",
];

/// The element names that WHATWG HTML's tree construction (13.2.6) acts on
/// by name, besides [`PHRASING`] and the sanitizer's own lists: a start tag
/// of any other name opens an ordinary element, which closes with its
/// parent and changes nothing around it.
const PARSER_NAMES: &[&str] = &[
    "address",
    "applet",
    "area",
    "article",
    "aside",
    "base",
    "basefont",
    "bgsound",
    "big",
    "blockquote",
    "body",
    "br",
    "button",
    "caption",
    "center",
    "col",
    "colgroup",
    "dd",
    "details",
    "dialog",
    "dir",
    "div",
    "dl",
    "dt",
    "embed",
    "fieldset",
    "figcaption",
    "figure",
    "font",
    "footer",
    "form",
    "frame",
    "frameset",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "head",
    "header",
    "hgroup",
    "hr",
    "html",
    "iframe",
    "image",
    "img",
    "input",
    "isindex",
    "keygen",
    "li",
    "link",
    "listing",
    "main",
    "marquee",
    "math",
    "menu",
    "menuitem",
    "meta",
    "nav",
    "nobr",
    "noembed",
    "noframes",
    "noscript",
    "object",
    "ol",
    "optgroup",
    "option",
    "p",
    "param",
    "plaintext",
    "pre",
    "rb",
    "rp",
    "rt",
    "rtc",
    "ruby",
    "sarcasm",
    "script",
    "search",
    "section",
    "select",
    "selectedcontent",
    "source",
    "style",
    "summary",
    "svg",
    "table",
    "tbody",
    "td",
    "template",
    "textarea",
    "tfoot",
    "th",
    "thead",
    "title",
    "tr",
    "track",
    "ul",
    "wbr",
    "xmp",
];

/// A raw tag the README may keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tag {
    /// `<br>`, `<br/>`, `<br />`.
    Break,
    /// A start tag of [`PHRASING`]`[i]`.
    Open(usize),
    /// Its end tag.
    Close(usize),
    /// A start tag the sanitizer drops and no parser acts on: of an element
    /// no one knows (the template's `<test>`, `<some concrete RV>`), which
    /// the sanitizer unwraps, or `link` (void), which it drops; its
    /// attributes only bare words. It is written as nothing.
    Dropped,
}

/// Whether `w` is a bare tag or attribute name: a letter, then letters,
/// digits and hyphens.
fn bare(w: &str) -> bool {
    w.bytes().next().is_some_and(|b| b.is_ascii_alphabetic())
        && w.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
}

/// A start tag's inside `inner` (without `<>`) as [`Tag::Dropped`], if it
/// is one.
fn dropped(inner: &str) -> Option<Tag> {
    let mut words = inner.split(' ');
    let name = words.next()?.to_ascii_lowercase();
    if !bare(&name) || !words.all(bare) {
        return None;
    }
    let unknown = !PARSER_NAMES.contains(&name.as_str())
        && !PHRASING.contains(&name.as_str())
        && !crate::site::sanitize::is_listed(&name);
    (unknown || name == "link").then_some(Tag::Dropped)
}

/// `h` (one inline raw HTML event) as a [`Tag`] kept, if it is one.
fn tag(h: &str) -> Option<Tag> {
    let inner = h.strip_prefix('<')?.strip_suffix('>')?;
    let (close, name) = match inner.strip_prefix('/') {
        Some(name) => (true, name),
        None => (false, inner),
    };
    if !close
        && ["br", "br/", "br /"]
            .iter()
            .any(|b| b.eq_ignore_ascii_case(name))
    {
        return Some(Tag::Break);
    }
    match PHRASING.iter().position(|p| p.eq_ignore_ascii_case(name)) {
        Some(i) => Some(if close { Tag::Close(i) } else { Tag::Open(i) }),
        None if !close => dropped(inner),
        None => None,
    }
}

/// The elements open as a README's events go by (markdown's and raw ones),
/// and whether its raw HTML is still only kept tags, well nested.
#[derive(Debug, Default)]
pub(super) struct Nesting {
    /// 0: a markdown element; `i + 1`: raw [`PHRASING`]`[i]`.
    open: Vec<usize>,
    /// How many raw elements are open.
    raw_open: usize,
    /// Raw HTML the sanitizer must see was met.
    broken: bool,
}

impl Nesting {
    /// A markdown element opens (`block`: not inline content).
    pub(super) fn start(&mut self, block: bool) {
        if block && self.raw_open > 0 {
            self.broken = true;
        }
        self.open.push(0);
    }

    /// A markdown element closes: a raw element still open in it breaks
    /// the nesting.
    pub(super) fn end(&mut self) {
        while let Some(top) = self.open.pop() {
            if top == 0 {
                return;
            }
            self.broken = true;
            self.raw_open -= 1;
        }
    }

    /// A block opens that is not counted as an element (a code block).
    pub(super) fn block(&mut self) {
        if self.raw_open > 0 {
            self.broken = true;
        }
    }

    /// Raw HTML `h`: an HTML block (`inline` false) or inline HTML. Whether
    /// it is a tag written as nothing ([`Tag::Dropped`]).
    pub(super) fn raw(&mut self, h: &str, inline: bool) -> bool {
        if !inline {
            self.broken = true;
            return false;
        }
        match tag(h) {
            Some(Tag::Dropped) => return true,
            Some(Tag::Break) => {}
            Some(Tag::Open(i)) => {
                self.open.push(i + 1);
                self.raw_open += 1;
            }
            Some(Tag::Close(i)) if self.open.last() == Some(&(i + 1)) => {
                self.open.pop();
                self.raw_open -= 1;
            }
            _ => self.broken = true,
        }
        false
    }

    /// Whether all raw HTML seen is kept tags, each closed in turn.
    pub(super) fn simple(&self) -> bool {
        !self.broken && self.raw_open == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fast path keeps a subset of the one list of allowed elements.
    #[test]
    fn the_kept_tags_are_on_the_sanitizers_allowlist() {
        for t in PHRASING {
            assert!(crate::site::sanitize::ALLOWED_ELEMENTS.contains(t), "{t}");
        }
    }

    #[test]
    fn only_bare_phrasing_tags_and_breaks_are_kept() {
        assert_eq!(tag("<br>"), Some(Tag::Break));
        assert_eq!(tag("<BR />"), Some(Tag::Break));
        assert_eq!(tag("<Code>"), Some(Tag::Open(3)));
        assert_eq!(tag("</code>"), Some(Tag::Close(3)));
        for dropped in [
            "<test>",
            "<link to test coverage>",
            "<some concrete RV>",
            "<ipv4-cidr>",
        ] {
            assert_eq!(tag(dropped), Some(Tag::Dropped), "{dropped}");
        }
        for other in [
            "</test>",
            "<test x=1>",
            "<test \"x\">",
            "<test/>",
            "<dir>",
            "<image>",
            "<video>",
            "<b x>",
            "</br>",
            "<b class=x>",
            "<b >",
            "<a>",
            "<a href=\"x\">",
            "<div>",
            "<nobr>",
            "<button>",
            "<script>",
            "<b><i>",
            "b",
            "<>",
        ] {
            assert_eq!(tag(other), None, "{other}");
        }
    }

    #[test]
    fn raw_elements_must_close_in_turn_inside_inline_content() {
        let run = |steps: &[&str]| {
            let mut n = Nesting::default();
            for s in steps {
                match *s {
                    "(" => n.start(false),
                    "[" => n.start(true),
                    ")" => n.end(),
                    "pre" => n.block(),
                    "block" => {
                        n.raw("<b>", false);
                    }
                    raw => {
                        n.raw(raw, true);
                    }
                }
            }
            n.simple()
        };
        assert!(run(&[
            "[", "<b>", "(", "<i>", "</i>", ")", "</b>", "<br>", ")"
        ]));
        assert!(run(&["[", ")"]));
        // left open at the paragraph's end
        assert!(!run(&["[", "<b>", ")"]));
        // closed out of turn, or across a markdown element
        assert!(!run(&["[", "<b>", "<i>", "</b>", "</i>", ")"]));
        assert!(!run(&["[", "<b>", "(", "</b>", ")", ")"]));
        assert!(!run(&["[", "</b>", ")"]));
        // a block inside a raw element
        assert!(!run(&["[", "<b>", "[", ")", "</b>", ")"]));
        assert!(!run(&["[", "<b>", "pre", "</b>", ")"]));
        // an HTML block, or a tag not kept
        assert!(!run(&["[", "block", ")"]));
        assert!(!run(&["[", "<div>", ")"]));
        // open at the end
        assert!(!run(&["<b>"]));
    }
}
