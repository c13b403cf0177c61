//! The sanitizer for raw HTML in READMEs.
//!
//! Markdown's own output is made safe in the event stream (see
//! [`super::markdown`]); what is left is the raw HTML an author wrote: HTML
//! blocks and inline tags. Each piece is tokenized here and written back out
//! from scratch. Only allowlisted elements and attributes survive, every
//! attribute value is decoded, checked (URLs: http, https, mailto or relative)
//! and re-escaped, text is escaped, and comments, doctypes and processing
//! instructions are dropped, as are `<script>` and `<style>` with their
//! content. Whatever the input, the output is made of tags this module wrote
//! and escaped text, so how a browser would have read the input does not
//! matter.
//!
//! Elements opened by raw HTML are tracked together with the markdown elements
//! around them, so that raw HTML cannot close an element it did not open (the
//! page's own layout, or markdown's) and is closed before the markdown element
//! it was opened in ends.
//!
//! This replaces ammonia, which parsed each README with raw HTML into a DOM
//! and serialized it again: on the real corpus that was the single most
//! expensive step of the build.

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
const VOID: &[&str] = &["area", "br", "col", "hr", "img", "wbr"];

/// Elements dropped together with everything up to their end tag.
const DROP_CONTENT: &[&str] = &["script", "style"];

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
        "map" => &["name"],
        "ol" => &["start", "type", "reversed"],
        "table" => &["summary", "char", "charoff"],
        "tbody" | "tfoot" | "thead" | "tr" => &["char", "charoff"],
        "td" => &["colspan", "headers", "rowspan", "char", "charoff"],
        "th" => &[
            "abbr", "colspan", "headers", "rowspan", "scope", "char", "charoff",
        ],
        "time" | "data" => &["datetime", "value"],
        "pre" => &["data-lang"],
        _ => &[],
    };
    allowed.contains(&attr) || GENERIC_ATTRS.contains(&attr)
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

/// One open element: opened by markdown, or by raw HTML (its name).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Open {
    Markdown,
    Raw(&'static str),
}

/// The sanitizer's state over one document.
#[derive(Debug, Default)]
pub struct Sanitizer {
    open: Vec<Open>,
}

impl Sanitizer {
    /// A new document.
    pub fn new() -> Self {
        Self::default()
    }

    /// Markdown opened an element.
    pub fn markdown_start(&mut self) {
        self.open.push(Open::Markdown);
    }

    /// Markdown is about to close its innermost element: the end tags of the
    /// raw elements still open inside it (to write before markdown's).
    pub fn markdown_end(&mut self) -> String {
        let mut out = String::new();
        while let Some(Open::Raw(tag)) = self.open.last() {
            close(&mut out, tag);
            self.open.pop();
        }
        self.open.pop();
        out
    }

    /// End tags for every raw element still open (at the end of the document).
    pub fn finish(&mut self) -> String {
        let mut out = String::new();
        while let Some(top) = self.open.pop() {
            if let Open::Raw(tag) = top {
                close(&mut out, tag);
            }
        }
        out
    }

    /// Sanitize one piece of raw HTML. `resolve` rewrites a URL attribute's
    /// value (already checked to be safe); `image` says whether it is an image.
    pub fn html(&mut self, raw: &str, resolve: &dyn Fn(&str, bool) -> String) -> String {
        let mut out = String::with_capacity(raw.len());
        let mut rest = raw;
        while let Some(lt) = rest.find('<') {
            escape_text(&mut out, &rest[..lt]);
            rest = &rest[lt..];
            rest = match self.markup(&mut out, rest, resolve) {
                Some(after) => after,
                None => {
                    out.push_str("&lt;");
                    &rest[1..]
                }
            };
        }
        escape_text(&mut out, rest);
        out
    }

    /// Handle the markup at the start of `s` (which starts with `<`); the
    /// input after it, or `None` when it is not markup (a lone `<`).
    fn markup<'s>(
        &mut self,
        out: &mut String,
        s: &'s str,
        resolve: &dyn Fn(&str, bool) -> String,
    ) -> Option<&'s str> {
        let b = s.as_bytes();
        if let Some(body) = s.strip_prefix("<!--") {
            // a comment, dropped; unterminated, it hides the rest
            return Some(match body.find("-->") {
                Some(i) => &body[i + 3..],
                None => "",
            });
        }
        if s.starts_with("<!") || s.starts_with("<?") {
            return Some(s.find('>').map_or("", |i| &s[i + 1..]));
        }
        let (end_tag, name_at) = match b.get(1) {
            Some(b'/') => (true, 2),
            _ => (false, 1),
        };
        if !b.get(name_at).is_some_and(u8::is_ascii_alphabetic) {
            return None;
        }
        let tag = parse_tag(&s[name_at..])?;
        let after = &s[name_at + tag.len..];
        let name = tag.name.to_ascii_lowercase();
        if end_tag {
            if let Some(t) = TAGS.iter().find(|t| **t == name) {
                self.raw_end(out, t);
            }
            return Some(after);
        }
        if DROP_CONTENT.contains(&name.as_str()) {
            return Some(skip_past_end_tag(after, &name));
        }
        let Some(t) = TAGS.iter().find(|t| **t == name) else {
            return Some(after);
        };
        out.push('<');
        out.push_str(t);
        let mut seen: Vec<String> = Vec::new();
        for (attr, value) in &tag.attrs {
            let attr = attr.to_ascii_lowercase();
            // the first of duplicate attributes wins, as in browsers
            if seen.contains(&attr) {
                continue;
            }
            seen.push(attr.clone());
            if !tag_attr(t, &attr) {
                continue;
            }
            let value = decode_entities(value);
            let value = if is_url_attr(&attr) {
                match safe_url(&value) {
                    Some(url) => resolve(&url, *t == "img" || is_image(&url)),
                    None => continue,
                }
            } else {
                value
            };
            out.push(' ');
            out.push_str(&attr);
            out.push_str("=\"");
            escape_attr(out, &value);
            out.push('"');
        }
        out.push('>');
        if !VOID.contains(t) {
            self.open.push(Open::Raw(t));
        }
        Some(after)
    }

    /// A raw end tag: closes the element if raw HTML opened it inside the
    /// current markdown element (and any raw elements opened after it).
    fn raw_end(&mut self, out: &mut String, tag: &'static str) {
        let mut depth = None;
        for (i, o) in self.open.iter().enumerate().rev() {
            match o {
                Open::Markdown => break,
                Open::Raw(t) if *t == tag => {
                    depth = Some(i);
                    break;
                }
                Open::Raw(_) => {}
            }
        }
        if let Some(i) = depth {
            for o in self.open.drain(i..).rev() {
                if let Open::Raw(t) = o {
                    close(out, t);
                }
            }
        }
    }
}

fn close(out: &mut String, tag: &str) {
    out.push_str("</");
    out.push_str(tag);
    out.push('>');
}

/// A tag's name and attributes, and its length from the name to past `>`.
struct ParsedTag<'s> {
    name: &'s str,
    attrs: Vec<(&'s str, &'s str)>,
    len: usize,
}

/// Parse a tag starting at its name, as an HTML tokenizer does; `None` when
/// the input ends before the tag does.
fn parse_tag(s: &str) -> Option<ParsedTag<'_>> {
    let b = s.as_bytes();
    let is_space = |c: u8| matches!(c, b' ' | b'\t' | b'\n' | b'\r' | b'\x0c');
    let mut i = 0;
    while i < b.len() && !is_space(b[i]) && b[i] != b'/' && b[i] != b'>' {
        i += 1;
    }
    let name = &s[..i];
    let mut attrs = Vec::new();
    loop {
        while i < b.len() && (is_space(b[i]) || b[i] == b'/') {
            i += 1;
        }
        match b.get(i) {
            None => return None,
            Some(b'>') => {
                return Some(ParsedTag {
                    name,
                    attrs,
                    len: i + 1,
                });
            }
            _ => {}
        }
        let start = i;
        // the first character of a name may be `=`
        i += 1;
        while i < b.len() && !is_space(b[i]) && !matches!(b[i], b'/' | b'>' | b'=') {
            i += 1;
        }
        let attr = &s[start..i];
        while i < b.len() && is_space(b[i]) {
            i += 1;
        }
        if b.get(i) != Some(&b'=') {
            attrs.push((attr, ""));
            continue;
        }
        i += 1;
        while i < b.len() && is_space(b[i]) {
            i += 1;
        }
        let value = match b.get(i) {
            None => return None,
            Some(&q @ (b'"' | b'\'')) => {
                let end = i + 1 + s[i + 1..].find(q as char)?;
                let v = &s[i + 1..end];
                i = end + 1;
                v
            }
            Some(_) => {
                let start = i;
                while i < b.len() && !is_space(b[i]) && b[i] != b'>' {
                    i += 1;
                }
                &s[start..i]
            }
        };
        attrs.push((attr, value));
    }
}

/// The input after `</name ...>`; empty when there is none.
fn skip_past_end_tag<'s>(s: &'s str, name: &str) -> &'s str {
    let lower = s.to_ascii_lowercase();
    let needle = format!("</{name}");
    let mut from = 0;
    while let Some(i) = lower[from..].find(&needle) {
        let at = from + i + needle.len();
        match lower.as_bytes().get(at) {
            Some(b'>' | b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' | b'/') => {
                return s[at..].find('>').map_or("", |j| &s[at + j + 1..]);
            }
            None => return "",
            _ => from = at,
        }
    }
    ""
}

/// Text between tags: `<` and `>` escaped; character references kept (they
/// can only ever produce text).
fn escape_text(out: &mut String, s: &str) {
    escape_with(out, s, |c| match c {
        '<' => Some("&lt;"),
        '>' => Some("&gt;"),
        _ => None,
    });
}

/// An attribute value, double-quoted.
fn escape_attr(out: &mut String, s: &str) {
    escape_with(out, s, |c| match c {
        '&' => Some("&amp;"),
        '"' => Some("&quot;"),
        '\'' => Some("&#39;"),
        '<' => Some("&lt;"),
        '>' => Some("&gt;"),
        _ => None,
    });
}

/// Append `s` to `out` with each character `rep` names replaced.
fn escape_with(out: &mut String, s: &str, rep: impl Fn(char) -> Option<&'static str>) {
    let mut last = 0;
    for (i, c) in s.char_indices() {
        if let Some(r) = rep(c) {
            out.push_str(&s[last..i]);
            out.push_str(r);
            last = i + c.len_utf8();
        }
    }
    out.push_str(&s[last..]);
}

/// Decode the character references in an attribute value: numeric ones and
/// the few named ones URLs and titles use. Others stay as written; since the
/// value is re-escaped, a browser then reads them literally too, so the value
/// checked here is exactly the value the browser sees.
pub fn decode_entities(s: &str) -> String {
    if !s.contains('&') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        rest = &rest[amp..];
        match decode_one(rest) {
            Some((c, len)) => {
                out.push(c);
                rest = &rest[len..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The character a reference at the start of `s` stands for, and its length.
fn decode_one(s: &str) -> Option<(char, usize)> {
    let semi = s[..s.len().min(40)].find(';')?;
    let body = &s[1..semi];
    let c = if let Some(num) = body.strip_prefix('#') {
        let n = match num.strip_prefix(['x', 'X']) {
            Some(hex) => u32::from_str_radix(hex, 16).ok()?,
            None => num.parse::<u32>().ok()?,
        };
        match char::from_u32(n) {
            Some('\0') | None => '\u{FFFD}',
            Some(c) => c,
        }
    } else {
        match body {
            "amp" => '&',
            "lt" => '<',
            "gt" => '>',
            "quot" => '"',
            "apos" => '\'',
            "nbsp" => '\u{a0}',
            "colon" => ':',
            "sol" => '/',
            "Tab" => '\t',
            "NewLine" => '\n',
            "lpar" => '(',
            "rpar" => ')',
            "period" => '.',
            "num" => '#',
            "quest" => '?',
            "equals" => '=',
            _ => return None,
        }
    };
    Some((c, semi + 1))
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

#[cfg(test)]
mod tests {
    use super::*;

    fn clean(raw: &str) -> String {
        let mut s = Sanitizer::new();
        let mut out = s.html(raw, &|u, _| u.to_string());
        out.push_str(&s.finish());
        out
    }

    #[test]
    fn allowed_markup_is_rewritten_and_the_rest_dropped() {
        for (raw, want) in [
            ("<b>x</b>", "<b>x</b>"),
            ("<B CLASS=big>x</b>", "<b class=\"big\">x</b>"),
            ("<div onclick=\"x()\">y</div>", "<div>y</div>"),
            ("<img src=a.png onerror=alert(1)>", "<img src=\"a.png\">"),
            ("<script>alert(1)</script>after", "after"),
            ("<SCRIPT >alert(1)</SCRIPT >after", "after"),
            ("<style>p{}</style>x", "x"),
            ("<iframe src=x>y</iframe>", "y"),
            ("<!-- c -->x<!-- unterminated", "x"),
            ("a < b > c", "a &lt; b &gt; c"),
            ("<a href=\"javascript:alert(1)\">l</a>", "<a>l</a>"),
            ("<a href=\"java&#x73;cript:x\">l</a>", "<a>l</a>"),
            ("<a href=\"java\tscript:x\">l</a>", "<a>l</a>"),
            ("<a href=\" JAVASCRIPT:x\">l</a>", "<a>l</a>"),
            ("<a href=\"javascript&colon;x\">l</a>", "<a>l</a>"),
            (
                "<a href=\"https://x.io/?a=1&amp;b=2\">l</a>",
                "<a href=\"https://x.io/?a=1&amp;b=2\">l</a>",
            ),
            (
                "<a title='say \"hi\"'>l</a>",
                "<a title=\"say &quot;hi&quot;\">l</a>",
            ),
            ("<a id=a id=b>l</a>", "<a id=\"a\">l</a>"),
            ("<div>unclosed", "<div>unclosed</div>"),
            ("</div></main>stray", "stray"),
            ("<img src=\"x.png\"", "&lt;img src=\"x.png\""),
            ("<svg><script>alert(1)</script></svg>", ""),
            (
                "<details open><summary>s</summary>",
                "<details open=\"\"><summary>s</summary></details>",
            ),
            ("<a name=\"anchor\"></a>", "<a name=\"anchor\"></a>"),
            ("<input type=text>x", "x"),
            ("<p style=\"color:red\">x</p>", "<p>x</p>"),
        ] {
            assert_eq!(clean(raw), want, "{raw:?}");
        }
    }

    #[test]
    fn raw_html_cannot_close_what_it_did_not_open() {
        let mut s = Sanitizer::new();
        let id = |u: &str, _| u.to_string();
        let mut out = s.html("<div>", &id);
        s.markdown_start(); // a list item inside the raw div
        out.push_str(&s.html("<span>", &id));
        out.push_str(&s.html("</div>", &id)); // not the item's: ignored
        out.push_str(&s.markdown_end()); // the item ends: its span closes
        out.push_str(&s.html("</div>", &id));
        out.push_str(&s.finish());
        assert_eq!(out, "<div><span></span></div>");
    }

    #[test]
    fn urls_are_resolved_only_when_safe() {
        let mut s = Sanitizer::new();
        let out = s.html(
            "<a href=\"../x.md\">a</a><img src=\"p.png\"><a href=\"data:text/html,x\">d</a>",
            &|u, image| format!("/r/{u}{}", if image { "?img" } else { "" }),
        );
        assert_eq!(
            out,
            "<a href=\"/r/../x.md\">a</a><img src=\"/r/p.png?img\"><a>d</a>"
        );
    }

    #[test]
    fn entities_decode_as_a_browser_reads_them() {
        assert_eq!(
            decode_entities("a&amp;b&#60;&#x3E;&bogus;&"),
            "a&b<>&bogus;&"
        );
        assert_eq!(decode_entities("&#0;&#xFFFFFFFF;"), "\u{FFFD}\u{FFFD}");
        assert_eq!(safe_url("  https://x "), Some("https://x".into()));
        assert_eq!(safe_url("mailto:a@b"), Some("mailto:a@b".into()));
        assert_eq!(safe_url("/a:b"), Some("/a:b".into()));
        assert_eq!(safe_url("vbscript:x"), None);
        assert_eq!(safe_url("\u{1}javascript:x"), None);
    }
}
