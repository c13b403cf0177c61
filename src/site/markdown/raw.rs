//! Raw HTML the sanitizer need not see: phrasing tags without attributes
//! (`<code>`, `<b>`, `<sup>`, `<br>` …) opened and closed inside the
//! markdown's own inline content, as 92 of the corpus's 167 READMEs with raw
//! HTML use it. Such tags nest as they are written in any HTML parser (each
//! end tag meets its own element as the current node, no block starts
//! inside one, none is a scope boundary, `a`, `nobr` or a form control),
//! so the rendered README's tree is the one its markup says, of elements the
//! sanitizer keeps as they are: the README is written as rendered, without
//! the sanitizer's two parses (its largest cost). Anything else (an
//! attribute, an HTML block, another element, a tag left open or closed
//! out of turn) sends the whole README to the sanitizer, as before.

/// The elements kept: phrasing content the HTML parser treats as ordinary
/// or formatting elements, all on the sanitizer's allowlist.
const PHRASING: &[&str] = &[
    "abbr", "b", "cite", "code", "del", "dfn", "em", "i", "ins", "kbd", "mark", "q", "s", "samp",
    "small", "span", "strike", "strong", "sub", "sup", "tt", "u", "var",
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
    let i = PHRASING.iter().position(|p| p.eq_ignore_ascii_case(name))?;
    Some(if close { Tag::Close(i) } else { Tag::Open(i) })
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

    /// Raw HTML `h`: an HTML block (`inline` false) or inline HTML.
    pub(super) fn raw(&mut self, h: &str, inline: bool) {
        if !inline {
            self.broken = true;
            return;
        }
        match tag(h) {
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
    }

    /// Whether all raw HTML seen is kept tags, each closed in turn.
    pub(super) fn simple(&self) -> bool {
        !self.broken && self.raw_open == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_bare_phrasing_tags_and_breaks_are_kept() {
        assert_eq!(tag("<br>"), Some(Tag::Break));
        assert_eq!(tag("<BR />"), Some(Tag::Break));
        assert_eq!(tag("<Code>"), Some(Tag::Open(3)));
        assert_eq!(tag("</code>"), Some(Tag::Close(3)));
        for other in [
            "</br>",
            "<b class=x>",
            "<b >",
            "<a>",
            "<a href=\"x\">",
            "<test>",
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
                    "block" => n.raw("<b>", false),
                    raw => n.raw(raw, true),
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
