//! The sanitizer for README HTML with raw HTML in it.
//!
//! Markdown's own output is made safe in the event stream (see
//! [`super::markdown`]); a README that also has raw HTML is rendered whole and
//! then cleaned here, on a tree:
//!
//! 1. html5ever (through `scraper`) parses the rendered README as browsers
//!    parse the inside of the page's `.markdown` container (the HTML spec's
//!    fragment parsing), implied end tags, foster parenting and all.
//! 2. The tree is written out again from scratch: allowlisted elements with
//!    allowlisted attributes, every value escaped, URLs checked (http, https,
//!    mailto or relative) and resolved, author ids and names prefixed with
//!    `user-content-` (as GitHub does) with same-page `#fragment` links
//!    following them, and none of the site's own class names. Script, style,
//!    SVG, MathML, forms' controls, frames and the like go with their
//!    content; other unknown elements are unwrapped.
//! 3. Containment is checked, not assumed: the output is parsed again and
//!    must serialize to itself. Every end tag then closes the element it was
//!    written for, so in the page no end tag can reach past the container.
//!    Output that is no fixed point after a few rounds is refused.
//!
//! The work is linear in the input: html5ever is only given input whose
//! tags are bounded ([`Budget`]); a README beyond the bounds is refused, and
//! the caller renders its raw HTML as text. A refusal is never a panic.

use std::collections::HashSet;

use scraper::{Html, Node};

/// Prefix of ids and names written in raw HTML, so they cannot reach the
/// site's own ids (`ks-filters`, `p-meta`, …).
pub const ID_PREFIX: &str = "user-content-";

/// Whether `id` is one the site's pages use themselves (`ks-q`,
/// `ks-filters`, `ks-results`, `p-meta`, `p-find`, …): a README's heading
/// may not take it.
pub fn is_site_id(id: &str) -> bool {
    id.starts_with("ks-") || id.starts_with("p-")
}

/// Elements raw HTML may use.
const TAGS: &[&str] = &[
    "a",
    "abbr",
    "acronym",
    "area",
    "article",
    "aside",
    "b",
    "bdi",
    "bdo",
    "blockquote",
    "br",
    "caption",
    "center",
    "cite",
    "code",
    "col",
    "colgroup",
    "data",
    "dd",
    "del",
    "details",
    "dfn",
    "div",
    "dl",
    "dt",
    "em",
    "figcaption",
    "figure",
    "footer",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hgroup",
    "hr",
    "i",
    "img",
    "input",
    "ins",
    "kbd",
    "li",
    "map",
    "mark",
    "nav",
    "ol",
    "p",
    "pre",
    "q",
    "rp",
    "rt",
    "rtc",
    "ruby",
    "s",
    "samp",
    "small",
    "span",
    "strike",
    "strong",
    "sub",
    "summary",
    "sup",
    "table",
    "tbody",
    "td",
    "tfoot",
    "th",
    "thead",
    "time",
    "tr",
    "tt",
    "u",
    "ul",
    "var",
    "wbr",
];

/// Elements without content or end tag.
const VOID: &[&str] = &["area", "br", "col", "hr", "img", "input", "wbr"];

/// Elements dropped together with their content: script and style, embedded
/// documents and foreign content, form controls, and elements whose content
/// the browser does not parse as markup.
const DROP_CONTENT: &[&str] = &[
    "script",
    "style",
    "template",
    "svg",
    "math",
    "iframe",
    "frame",
    "frameset",
    "object",
    "embed",
    "applet",
    "noscript",
    "noembed",
    "noframes",
    "textarea",
    "select",
    "button",
    "option",
    "optgroup",
    "datalist",
    "title",
    "xmp",
    "plaintext",
    "head",
    "meta",
    "link",
    "base",
    "audio",
    "video",
    "canvas",
    "portal",
    "dialog",
];

/// Attributes allowed on every allowed element.
const GENERIC_ATTRS: &[&str] = &["id", "class", "align", "lang", "title"];

/// Attributes allowed on one element.
fn tag_attr(tag: &str, attr: &str) -> bool {
    let allowed: &[&str] = match tag {
        "a" => &["href", "hreflang", "name"],
        "area" => &["href", "alt", "shape", "coords"],
        "bdo" => &["dir"],
        "blockquote" | "q" => &["cite"],
        "col" | "colgroup" => &["span", "char", "charoff"],
        "del" | "ins" => &["cite", "datetime"],
        "details" => &["open"],
        "hr" => &["size", "width"],
        "img" => &["alt", "height", "src", "width"],
        "input" => &["aria-label", "checked", "disabled", "type"],
        "map" => &["name"],
        "ol" => &["start", "type", "reversed"],
        "table" => &["summary", "char", "charoff"],
        "tbody" | "tfoot" | "thead" | "tr" => &["char", "charoff"],
        "td" => &["colspan", "headers", "rowspan", "char", "charoff", "style"],
        "th" => &[
            "abbr", "colspan", "headers", "rowspan", "scope", "char", "charoff", "style",
        ],
        "time" | "data" => &["datetime", "value"],
        "pre" => &["data-lang", "tabindex"],
        _ => &[],
    };
    allowed.contains(&attr) || GENERIC_ATTRS.contains(&attr)
}

/// The class names README HTML may carry, per element: those of highlighted
/// code, mermaid diagrams and footnotes (what kepsite's own rendering
/// writes). Every other class, the site's layout classes among them, is
/// dropped.
fn allowed_class(tag: &str, class: &str) -> bool {
    match tag {
        "pre" => matches!(class, "code" | "hl-code" | "mermaid"),
        "span" => class.starts_with("hl-"),
        "sup" => matches!(class, "footnote-reference" | "footnote-definition-label"),
        "div" => class == "footnote-definition",
        _ => false,
    }
}

/// Attributes holding a URL.
fn is_url_attr(attr: &str) -> bool {
    matches!(attr, "href" | "src" | "cite")
}

/// URL schemes raw HTML may use; anything else with a scheme is dropped.
const SCHEMES: &[&str] = &["http", "https", "mailto"];

/// A URL as a browser reads it: ASCII tabs and newlines removed, leading and
/// trailing control characters and spaces trimmed. `None` when it has a
/// scheme other than http, https or mailto.
pub fn safe_url(url: &str) -> Option<String> {
    let cleaned: String = url
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    let cleaned = cleaned.trim_matches(|c: char| c <= ' ');
    let end = cleaned.find(['/', '?', '#']).unwrap_or(cleaned.len());
    match cleaned[..end].find(':') {
        None => Some(cleaned.to_string()),
        Some(i) if SCHEMES.iter().any(|s| cleaned[..i].eq_ignore_ascii_case(s)) => {
            Some(cleaned.to_string())
        }
        Some(_) => None,
    }
}

/// Whether a URL points at an image (by its extension).
pub fn is_image(url: &str) -> bool {
    let path = url
        .split(['#', '?'])
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    [".png", ".svg", ".jpg", ".jpeg", ".gif", ".webp"]
        .iter()
        .any(|e| path.ends_with(e))
}

/// What kepsite's own rendering vouches for in the HTML to clean.
pub struct Policy<'a> {
    /// Ids kepsite generated (heading anchors, footnotes): kept as they are.
    /// Any other id or name is prefixed with [`ID_PREFIX`].
    pub generated_ids: &'a HashSet<String>,
    /// URLs the markdown stream already checked and resolved: kept as they are.
    pub trusted_urls: &'a HashSet<String>,
    /// Rewrites a raw URL (already checked to be safe); the flag says whether
    /// it is an image.
    pub resolve: &'a dyn Fn(&str, bool) -> String,
}

/// Bounds on the work html5ever may be given.
///
/// html5ever's tokenizer compares each new attribute with the tag's earlier
/// ones, and its tree builder walks the stack of open elements for some
/// tokens: both superlinear on hostile input (a tag with a million
/// attributes, ten thousand unclosed elements and then many tokens).
pub struct Budget {
    /// An upper bound on the nesting depth: markdown's deepest nesting plus
    /// the number of `<` in the raw HTML.
    pub depth: usize,
}

/// At most this many attributes in any tag (by [`max_attributes`]).
const MAX_ATTRIBUTES: usize = 256;

/// At most this many tree-builder steps: tokens times nesting depth.
const MAX_STEPS: usize = 400_000_000;

/// Rounds of parsing the output again before giving up on a fixed point.
const ROUNDS: usize = 3;

/// Clean `html` (a rendered README with raw HTML); `None` when it is beyond
/// the [`Budget`] or its cleaned form is not stable under parsing (then
/// nothing of it may be used).
pub fn clean(html: &str, policy: &Policy, budget: &Budget) -> Option<String> {
    if !within_budget(html, budget) {
        return None;
    }
    let tree = Html::parse_fragment(html);
    let raw_ids = raw_ids(&tree, policy);
    let mut out = String::with_capacity(html.len());
    write_tree(&tree, &mut out, &Mode::Clean { policy, raw_ids });
    for _ in 0..ROUNDS {
        let mut again = String::with_capacity(out.len());
        write_tree(&Html::parse_fragment(&out), &mut again, &Mode::Verbatim);
        if again == out {
            return Some(out);
        }
        out = again;
    }
    None
}

/// Whether html5ever's work on `html` stays within bounds: no tag with more
/// than [`MAX_ATTRIBUTES`] attributes, and tokens times depth at most
/// [`MAX_STEPS`].
fn within_budget(html: &str, budget: &Budget) -> bool {
    let tokens = 1 + html
        .bytes()
        .filter(|b| matches!(b, b'<' | b'&' | b'\n'))
        .count();
    tokens.saturating_mul(budget.depth + 1) <= MAX_STEPS
        && max_attributes(html.as_bytes(), MAX_ATTRIBUTES) <= MAX_ATTRIBUTES
}

/// The states of the HTML tokenizer inside a tag (WHATWG 13.2.5.8–13.2.5.40).
#[derive(Clone, Copy)]
enum In {
    TagName,
    BeforeName,
    Name,
    AfterName,
    BeforeValue,
    Double,
    Single,
    Unquoted,
    AfterQuoted,
    SelfClosing,
}

const STATES: usize = 10;

/// An upper bound on the number of attributes of any tag as an HTML
/// tokenizer reads `s`, in one pass (stops counting once past `limit`).
///
/// The tokenizer may be outside any tag (text, comments, raw text), so every
/// `<` followed by a letter may start one: each such start is followed as a
/// hypothesis through the tag states, and hypotheses in the same state are
/// merged keeping the larger count. The real tokenizer's tag is always one of
/// the hypotheses, so its count is never more than the one returned.
fn max_attributes(s: &[u8], limit: usize) -> usize {
    let mut live: [Option<usize>; STATES] = [None; STATES];
    let mut max = 0;
    let mut i = 0;
    while i < s.len() {
        if live.iter().all(Option::is_none) {
            match s[i..].iter().position(|&b| b == b'<') {
                Some(at) => i += at,
                None => break,
            }
        }
        let c = s[i];
        let mut next: [Option<usize>; STATES] = [None; STATES];
        for (state, count) in live.iter().enumerate() {
            let Some(count) = *count else { continue };
            if let Some((to, n)) = step(state_of(state), c, count) {
                let slot = &mut next[to as usize];
                *slot = Some(slot.map_or(n, |m| m.max(n)));
                max = max.max(n);
            }
        }
        // a tag name starts after `<` or `</` when a letter follows
        let opens = match c {
            b'<' => true,
            b'/' => i > 0 && s[i - 1] == b'<',
            _ => false,
        };
        if opens && s.get(i + 1).is_some_and(u8::is_ascii_alphabetic) {
            next[In::TagName as usize].get_or_insert(0);
        }
        live = next;
        if max > limit {
            return max;
        }
        i += 1;
    }
    max
}

fn state_of(i: usize) -> In {
    [
        In::TagName,
        In::BeforeName,
        In::Name,
        In::AfterName,
        In::BeforeValue,
        In::Double,
        In::Single,
        In::Unquoted,
        In::AfterQuoted,
        In::SelfClosing,
    ][i]
}

/// One character in a tag: the next state and attribute count, `None` when
/// the tag ends.
fn step(state: In, c: u8, n: usize) -> Option<(In, usize)> {
    let ws = matches!(c, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ');
    Some(match state {
        In::TagName | In::Unquoted if ws => (In::BeforeName, n),
        In::TagName if c == b'/' => (In::SelfClosing, n),
        In::TagName | In::Unquoted => match c {
            b'>' => return None,
            _ => (state, n),
        },
        In::BeforeName | In::AfterName if ws => (state, n),
        In::BeforeName | In::AfterName | In::Name | In::AfterQuoted | In::SelfClosing
            if c == b'/' =>
        {
            (In::SelfClosing, n)
        }
        In::BeforeName
        | In::AfterName
        | In::Name
        | In::BeforeValue
        | In::AfterQuoted
        | In::SelfClosing
            if c == b'>' =>
        {
            return None;
        }
        In::Name if ws => (In::AfterName, n),
        In::Name | In::AfterName if c == b'=' => (In::BeforeValue, n),
        In::Name => (In::Name, n),
        In::BeforeName | In::AfterName | In::SelfClosing => (In::Name, n + 1),
        In::AfterQuoted if ws => (In::BeforeName, n),
        In::AfterQuoted => (In::Name, n + 1),
        In::BeforeValue if ws => (In::BeforeValue, n),
        In::BeforeValue => match c {
            b'"' => (In::Double, n),
            b'\'' => (In::Single, n),
            _ => (In::Unquoted, n),
        },
        In::Double if c == b'"' => (In::AfterQuoted, n),
        In::Single if c == b'\'' => (In::AfterQuoted, n),
        In::Double | In::Single => (state, n),
    })
}

/// The ids and names written in raw HTML (not generated by kepsite), as
/// written: same-page links to them are pointed at their prefixed form.
fn raw_ids(tree: &Html, policy: &Policy) -> HashSet<String> {
    tree.tree
        .values()
        .filter_map(Node::as_element)
        .flat_map(|e| e.attrs())
        .filter(|(a, v)| {
            matches!(*a, "id" | "name") && !v.is_empty() && !policy.generated_ids.contains(*v)
        })
        .map(|(_, v)| v.to_string())
        .collect()
}

/// How a tree is written out.
enum Mode<'a> {
    /// Through the allowlist.
    Clean {
        policy: &'a Policy<'a>,
        raw_ids: HashSet<String>,
    },
    /// As it is (to check that cleaned output parses back to itself).
    Verbatim,
}

/// Write the fragment `tree` to `out`, without recursion.
fn write_tree(tree: &Html, out: &mut String, mode: &Mode) {
    use ego_tree::iter::Edge;
    let mut skip: Option<ego_tree::NodeId> = None;
    let mut attrs = String::new();
    // the fragment's nodes are the children of its root `<html>` element
    let Some(root) = tree.tree.root().first_child() else {
        return;
    };
    for edge in root.traverse() {
        match edge {
            Edge::Open(node) if node.id() == root.id() || skip.is_some() => {}
            Edge::Close(node) if skip == Some(node.id()) => skip = None,
            Edge::Close(node) if node.id() == root.id() || skip.is_some() => {}
            Edge::Open(node) => match node.value() {
                Node::Text(t) => crate::escape::push_text(out, t),
                Node::Element(e) => {
                    let name = e.name();
                    let html = is_html(e);
                    let keep = match mode {
                        Mode::Verbatim => true,
                        Mode::Clean { .. } => html && TAGS.contains(&name),
                    };
                    if !keep {
                        if !html || DROP_CONTENT.contains(&name) {
                            skip = Some(node.id());
                        }
                        continue;
                    }
                    attrs.clear();
                    if !write_attrs(&mut attrs, name, e, mode) {
                        skip = Some(node.id());
                        continue;
                    }
                    out.push('<');
                    out.push_str(name);
                    out.push_str(&attrs);
                    out.push('>');
                    // the parser drops a newline right after these start tags
                    if matches!(name, "pre" | "listing" | "textarea")
                        && node
                            .first_child()
                            .and_then(|c| c.value().as_text())
                            .is_some_and(|t| t.starts_with('\n'))
                    {
                        out.push('\n');
                    }
                }
                _ => {}
            },
            Edge::Close(node) => {
                if let Node::Element(e) = node.value() {
                    let name = e.name();
                    let kept = match mode {
                        Mode::Verbatim => true,
                        Mode::Clean { .. } => is_html(e) && TAGS.contains(&name),
                    };
                    if kept && !VOID.contains(&name) {
                        out.push_str("</");
                        out.push_str(name);
                        out.push('>');
                    }
                }
            }
        }
    }
}

/// Whether an element is in the HTML namespace (not SVG or MathML).
fn is_html(e: &scraper::node::Element) -> bool {
    &*e.name.ns == "http://www.w3.org/1999/xhtml"
}

/// The attributes of element `e` (named `tag`) as written: ` name="value"`
/// each. `false` when the element itself must go (an input that is not a
/// checkbox).
fn write_attrs(out: &mut String, tag: &str, e: &scraper::node::Element, mode: &Mode) -> bool {
    let (policy, raw_ids) = match mode {
        Mode::Verbatim => {
            for (name, value) in e.attrs() {
                push_attr(out, name, value);
            }
            return true;
        }
        Mode::Clean { policy, raw_ids } => (policy, raw_ids),
    };
    if tag == "input"
        && !e
            .attr("type")
            .is_some_and(|t| t.eq_ignore_ascii_case("checkbox"))
    {
        return false;
    }
    for (name, value) in e.attrs() {
        if !tag_attr(tag, name) {
            continue;
        }
        let value: String = match name {
            "id" | "name" if value.is_empty() => continue,
            "id" if policy.generated_ids.contains(value) => value.to_string(),
            "id" | "name" => format!("{ID_PREFIX}{value}"),
            "class" => {
                let kept: Vec<&str> = value
                    .split_ascii_whitespace()
                    .filter(|c| allowed_class(tag, c))
                    .collect();
                if kept.is_empty() {
                    continue;
                }
                kept.join(" ")
            }
            "style" => match value {
                "text-align: left" | "text-align: center" | "text-align: right" => {
                    value.to_string()
                }
                _ => continue,
            },
            "type" if tag == "input" => "checkbox".to_string(),
            // a code block scrolls: reachable with Tab, never out of order
            "tabindex" => "0".to_string(),
            n if is_url_attr(n) => match url(tag, value, policy, raw_ids) {
                Some(u) => u,
                None => continue,
            },
            _ => value.to_string(),
        };
        push_attr(out, name, &value);
    }
    if tag == "input" && e.attr("disabled").is_none() {
        push_attr(out, "disabled", "");
    }
    true
}

/// A URL attribute's value: kept when kepsite made it, else checked and
/// resolved; a same-page link to a raw id follows the id's prefix.
fn url(tag: &str, value: &str, policy: &Policy, raw_ids: &HashSet<String>) -> Option<String> {
    let url = if policy.trusted_urls.contains(value) {
        value.to_string()
    } else {
        let safe = safe_url(value)?;
        (policy.resolve)(&safe, tag == "img" || is_image(&safe))
    };
    match url.strip_prefix('#') {
        Some(frag) if !policy.generated_ids.contains(frag) && raw_ids.contains(frag) => {
            Some(format!("#{ID_PREFIX}{frag}"))
        }
        _ => Some(url),
    }
}

fn push_attr(out: &mut String, name: &str, value: &str) {
    out.push(' ');
    out.push_str(name);
    out.push_str("=\"");
    crate::escape::push_html(out, value);
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clean_raw(raw: &str) -> String {
        let none = HashSet::new();
        let policy = Policy {
            generated_ids: &none,
            trusted_urls: &none,
            resolve: &|u, _| u.to_string(),
        };
        clean(raw, &policy, &Budget { depth: 64 }).expect("within budget")
    }

    #[test]
    fn allowed_markup_is_rewritten_and_the_rest_dropped() {
        for (raw, want) in [
            ("<b>x</b>", "<b>x</b>"),
            ("<B CLASS=big>x</b>", "<b>x</b>"),
            ("<div onclick=\"x()\">y</div>", "<div>y</div>"),
            ("<img src=a.png onerror=alert(1)>", "<img src=\"a.png\">"),
            ("<script>alert(1)</script>after", "after"),
            ("<style>p{}</style>x", "x"),
            ("<iframe src=x>y</iframe>z", "z"),
            ("<!-- c -->x<!-- unterminated", "x"),
            ("a < b > c", "a &lt; b &gt; c"),
            ("<a href=\"javascript:alert(1)\">l</a>", "<a>l</a>"),
            ("<a href=\"java&#x73;cript:x\">l</a>", "<a>l</a>"),
            ("<a href=\"java\tscript:x\">l</a>", "<a>l</a>"),
            ("<a href=\"javascript&colon;x\">l</a>", "<a>l</a>"),
            (
                "<a href=\"https://x.io/?a=1&amp;b=2\">l</a>",
                "<a href=\"https://x.io/?a=1&amp;b=2\">l</a>",
            ),
            (
                "<a title='say \"hi\"'>l</a>",
                "<a title=\"say &quot;hi&quot;\">l</a>",
            ),
            ("<a id=a id=b>l</a>", "<a id=\"user-content-a\">l</a>"),
            ("<div>unclosed", "<div>unclosed</div>"),
            ("</div></main>stray", "stray"),
            ("<svg><script>alert(1)</script></svg>", ""),
            (
                "<details open><summary>s</summary>",
                "<details open=\"\"><summary>s</summary></details>",
            ),
            ("<input type=text>x", "x"),
            (
                "<input type=checkbox checked>",
                "<input checked=\"\" disabled=\"\" type=\"checkbox\">",
            ),
            ("<p style=\"color:red\">x</p>", "<p>x</p>"),
            ("<pre>\n\nx</pre>", "<pre>\n\nx</pre>"),
            (
                "<span class=\"hl-k search-results\">x</span>",
                "<span class=\"hl-k\">x</span>",
            ),
        ] {
            assert_eq!(clean_raw(raw), want, "{raw:?}");
        }
    }

    #[test]
    fn ids_and_same_page_links_are_prefixed_together() {
        let generated = HashSet::from(["summary".to_string()]);
        let trusted = HashSet::from(["#old".to_string()]);
        let policy = Policy {
            generated_ids: &generated,
            trusted_urls: &trusted,
            resolve: &|u, _| u.to_string(),
        };
        let out = clean(
            "<a href=\"#old\">o</a><a href=\"#summary\">s</a><a name=\"old\"></a>\
             <h2 id=\"summary\">S</h2><div id=\"ks-filters\"></div><a href=\"#nowhere\">n</a>",
            &policy,
            &Budget { depth: 8 },
        )
        .unwrap();
        assert_eq!(
            out,
            "<a href=\"#user-content-old\">o</a><a href=\"#summary\">s</a>\
             <a name=\"user-content-old\"></a><h2 id=\"summary\">S</h2>\
             <div id=\"user-content-ks-filters\"></div><a href=\"#nowhere\">n</a>"
        );
    }

    #[test]
    fn attribute_bound_follows_the_tokenizer() {
        assert_eq!(max_attributes(b"<a b c d>", 99), 3);
        assert_eq!(max_attributes(b"<a b='x y z' c=\"1 2\"d>", 99), 3);
        assert_eq!(max_attributes(b"text <b>x</b> more", 99), 0);
        // a quoted `>` does not end the tag
        assert_eq!(max_attributes(b"<a x='>' y='>' z>", 99), 3);
        // `<` inside a tag may start another: both are followed
        assert!(max_attributes(b"<!-- <a b c d -->", 99) >= 3);
        let many = "<div ".to_string() + &"a1 ".repeat(1000) + ">";
        assert!(max_attributes(many.as_bytes(), 256) > 256);
        // utf-8 everywhere, never a panic
        assert_eq!(max_attributes("<a title=\"&aaaaé\" é=1>".as_bytes(), 99), 2);
    }

    #[test]
    fn urls() {
        assert_eq!(safe_url("  https://x "), Some("https://x".into()));
        assert_eq!(safe_url("mailto:a@b"), Some("mailto:a@b".into()));
        assert_eq!(safe_url("/a:b"), Some("/a:b".into()));
        assert_eq!(safe_url("vbscript:x"), None);
        assert_eq!(safe_url("\u{1}javascript:x"), None);
        assert_eq!(safe_url("é:x"), None);
    }
}
