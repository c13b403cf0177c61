//! The allowlist: the elements and attributes raw HTML may use, the
//! elements that go with their content, and the class names kept.

/// Elements raw HTML may use: the one list of them (the markdown fast path
/// keeps a subset, the tests read it through [`super::ALLOWED_ELEMENTS`]).
/// Sorted: [`super::write`] looks names up by binary search.
pub(super) const TAGS: &[&str] = &[
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
pub(super) const VOID: &[&str] = &["area", "br", "col", "hr", "img", "input", "wbr"];

/// Elements dropped together with their content: script and style, embedded
/// documents and foreign content, form controls, and elements whose content
/// the browser does not parse as markup.
pub(super) const DROP_CONTENT: &[&str] = &[
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
pub(super) fn tag_attr(tag: &str, attr: &str) -> bool {
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
pub(super) fn allowed_class(tag: &str, class: &str) -> bool {
    match tag {
        "pre" => matches!(class, "code" | "hl-code" | "mermaid"),
        "span" => class.starts_with("hl-"),
        "sup" => matches!(class, "footnote-reference" | "footnote-definition-label"),
        "div" => class == "footnote-definition",
        _ => false,
    }
}

/// Attributes holding a URL.
pub(super) fn is_url_attr(attr: &str) -> bool {
    matches!(attr, "href" | "src" | "cite")
}
