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

mod allow;

/// The elements raw HTML in a README may keep (the sanitizer's allowlist).
pub const ALLOWED_ELEMENTS: &[&str] = allow::TAGS;
mod bounds;
mod url;
mod write;

use std::collections::HashSet;

use scraper::Html;

pub use url::{is_image, safe_url};
use write::{Mode, raw_ids, write_tree};

/// Prefix of ids and names written in raw HTML, so they cannot reach the
/// site's own ids (`ks-filters`, `p-meta`, …).
pub const ID_PREFIX: &str = "user-content-";

/// Whether `id` is one the site's pages use themselves (`ks-q`,
/// `ks-filters`, `ks-results`, `p-meta`, `p-find`, …): a README's heading
/// may not take it.
pub fn is_site_id(id: &str) -> bool {
    id.starts_with("ks-") || id.starts_with("p-")
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

/// Rounds of parsing the output again before giving up on a fixed point.
const ROUNDS: usize = 3;

/// Clean `html` (a rendered README with raw HTML); `None` when it is beyond
/// the [`Budget`] or its cleaned form is not stable under parsing (then
/// nothing of it may be used).
pub fn clean(html: &str, policy: &Policy, budget: &Budget) -> Option<String> {
    if !bounds::within_budget(html, budget) {
        return None;
    }
    let tree = Html::parse_fragment(html);
    let raw_ids = raw_ids(&tree, policy);
    let mut out = String::with_capacity(html.len());
    write_tree(&tree, &mut out, &Mode::Clean { policy, raw_ids });
    for _ in 0..ROUNDS {
        let again = as_parsed(&out);
        if again == out {
            return Some(out);
        }
        out = again;
    }
    None
}

/// Whether the sanitizer names element `name` (lowercase): keeps it, or
/// drops it with its content. It unwraps any other.
pub fn is_listed(name: &str) -> bool {
    allow::TAGS.binary_search(&name).is_ok() || allow::DROP_CONTENT.contains(&name)
}

/// `html` as an HTML parser reads it inside the page's container, written
/// out again as it is (nothing dropped): two strings that give the same tree
/// give the same text.
pub fn as_parsed(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    write_tree(&Html::parse_fragment(html), &mut out, &Mode::Verbatim);
    out
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
    fn the_tag_allowlist_is_sorted_for_its_binary_search() {
        assert!(allow::TAGS.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(
            clean_raw("<table><tr><td>x</td></tr></table>"),
            "<table><tbody><tr><td>x</td></tr></tbody></table>"
        );
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
}
