//! Markdown rendering: a KEP's README text and a [`Links`] resolver →
//! [`Rendered`] (sanitized HTML, table of contents, summary text).
//!
//! The event stream is rewritten before HTML is emitted: headings get
//! GitHub-style ids, fenced code is highlighted into CSS classes, and links to
//! other KEPs or repository files are pointed at their pages, link and image
//! destinations are checked, and raw HTML goes through [`super::sanitize`], so
//! nothing the README author wrote can run script.
//!
//! The parts: `events` rewrites the parser's events (links, images, raw
//! HTML, footnotes), `heading` gives headings their ids and the table of
//! contents, `code` highlights code blocks, and `text` collects the plain
//! text for search and the summary.

mod code;
mod events;
mod heading;
mod raw;
mod text;

use std::collections::{HashSet, VecDeque};

use pulldown_cmark::{Event, Parser};
use serde::Serialize;

use super::highlight::Highlighter;
pub use super::links::{Links, normalize};
use super::sanitize::{self, Budget, Policy};
use super::search::Section;
use crate::kep::document::{Anchors, markdown_options};
use crate::urls::Titles;
use text::TextOf;

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
    /// The search terms of `text`, once someone has worked them out.
    pub body_terms: Option<std::sync::Arc<super::search::BodyTerms>>,
    /// Where each heading's section starts in `text`.
    pub sections: Vec<Section>,
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
    render_checked(markdown, from, links, titles, hl, true)
}

/// [`render_titled`], with any raw HTML cleaned by the sanitizer, even
/// tags [`raw`] would keep as they are (the tests check that keeping them
/// changes no page's tree).
pub fn render_sanitized(
    markdown: &str,
    from: &str,
    links: &Links,
    titles: &Titles,
    hl: &Highlighter,
) -> Rendered {
    render_checked(markdown, from, links, titles, hl, false)
}

/// [`render_titled`]; raw HTML of only kept tags ([`raw`]) is written as
/// it is when `trust_simple`, and cleaned by the sanitizer otherwise.
fn render_checked(
    markdown: &str,
    from: &str,
    links: &Links,
    titles: &Titles,
    hl: &Highlighter,
    trust_simple: bool,
) -> Rendered {
    let markdown = code::fence_tabs(markdown);
    let markdown = markdown.as_ref();
    let (mut html, mut done) = stream(markdown, from, links, titles, hl, false);
    if done.raw && !(trust_simple && done.simple) {
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
    // only a same-page link with a capital can need it (raw HTML's links
    // are not counted)
    let html = match done.raw || done.upper_fragment {
        true => heading::fragment_case(html, &done.seen),
        false => html,
    };
    Rendered {
        html,
        toc: done.toc,
        summary: done
            .summary
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" "),
        text: done.text,
        body_terms: None,
        sections: done.sections,
    }
}

/// What rendering through a [`Stream`] found out besides the HTML.
struct Done {
    raw: bool,
    /// The raw HTML is only tags [`raw`] keeps, well nested.
    simple: bool,
    /// A link or image to `#` and a fragment with a capital was written.
    upper_fragment: bool,
    raw_lt: usize,
    max_depth: usize,
    seen: HashSet<String>,
    urls: HashSet<String>,
    toc: Vec<TocEntry>,
    summary: String,
    text: String,
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
        code_budget: super::highlight::README_BUDGET,
        raw_as_text,
        raw: false,
        raw_lt: 0,
        nesting: raw::Nesting::default(),
        upper_fragment: false,
        depth: 0,
        max_depth: 0,
        urls: HashSet::new(),
        anchors: Anchors::default(),
        toc: Vec::new(),
        text: TextOf::default(),
        sections: Vec::new(),
    };
    let mut html = String::with_capacity(markdown.len() * 3 / 2);
    pulldown_cmark::html::push_html(&mut html, &mut stream);
    let TextOf { summary, text, .. } = stream.text;
    let done = Done {
        raw: stream.raw,
        simple: stream.nesting.simple(),
        upper_fragment: stream.upper_fragment,
        raw_lt: stream.raw_lt,
        max_depth: stream.max_depth,
        seen: stream.anchors.into_taken(),
        urls: stream.urls,
        toc: stream.toc,
        summary,
        text,
        sections: stream.sections,
    };
    (html, done)
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
    /// Bytes of code still to be highlighted in this README; blocks past
    /// it are escaped as they are.
    code_budget: usize,
    /// Write raw HTML as text.
    raw_as_text: bool,
    /// Whether there was raw HTML (other than comments).
    raw: bool,
    /// The number of `<` in raw HTML.
    raw_lt: usize,
    /// The elements open, and whether the raw HTML may skip the sanitizer.
    nesting: raw::Nesting,
    /// A link or image to `#` and a fragment with a capital was written.
    upper_fragment: bool,
    /// Markdown elements open, and the most ever open.
    depth: usize,
    max_depth: usize,
    /// Link and image destinations written (checked and resolved).
    urls: HashSet<String>,
    /// Heading and footnote ids given so far.
    anchors: Anchors,
    toc: Vec<TocEntry>,
    text: TextOf,
    sections: Vec<Section>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::borrow::Cow;
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
        assert!(matches!(
            code::fence_tabs("a\tb\n``` x\t\n"),
            Cow::Borrowed(_)
        ));
        // an info string after a tab is left alone
        assert_eq!(code::fence_tabs("```\tgo\nx\n```\t\n"), "```\tgo\nx\n```\n");
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
        // without raw HTML too
        let html = render_plain("[d](#Design) [s](#summary)\n\n## Design\n");
        assert!(html.contains("href=\"#design\""), "{html}");
        assert!(html.contains("href=\"#summary\""), "{html}");
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
    fn a_readme_highlights_at_most_its_budget_of_code() {
        let block = format!("```go\n{}```\n\n", "func f() { return }\n".repeat(1000));
        let md = block.repeat(super::super::highlight::README_BUDGET / (block.len() - 12) + 1);
        let html = render_plain(&md);
        let pres: Vec<&str> = html.split("<pre ").skip(1).collect();
        assert!(pres.len() >= 7, "{}", pres.len());
        let (lit, plain) = pres.split_at(pres.len() - 1);
        assert!(
            lit.iter()
                .all(|p| p.contains("<span class=\"hl-k\">func</span>"))
        );
        assert!(!plain[0].contains("<span"), "past the budget: escaped only");
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

    #[test]
    fn raw_tags_kept_as_written_give_the_tree_the_sanitizer_gives() {
        let keps = BTreeMap::new();
        let assets = BTreeSet::from(["img.png".to_string()]);
        let links = Links {
            keps: &keps,
            local_assets: &assets,
            repo_url: "https://github.com/k/e",
            branch: "master",
        };
        let (hl, titles) = (Highlighter::new(), Titles::new());
        let pieces = [
            "text ",
            "*",
            "**",
            "`c`",
            "<b>",
            "</b>",
            "<code>",
            "</code>",
            "<SUP>",
            "</sup>",
            "<br>",
            "<br />",
            "[l](x.md)",
            "\n",
            "\n\n",
            "- ",
            "~~",
            "# ",
            "> ",
            "<i>",
            "</i>",
            "![i](img.png)",
            "[^1]",
            "\n\n[^1]: n\n",
            "| a | b |\n|---|---|\n| ",
            " |",
            "&amp; ",
            "<em>",
            "</em>",
            "1. ",
            "    ",
            "```go\nx\n```\n",
            "<u>",
            "</u>",
            "x\\\n",
        ];
        let (mut seed, mut kept, mut differ) = (7u64, 0, 0);
        for _ in 0..12_000 {
            let mut md = String::new();
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            for _ in 0..(seed >> 60) + 1 {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                md.push_str(pieces[(seed >> 33) as usize % pieces.len()]);
            }
            let (_, done) = stream(&md, "keps/a/1-x/README.md", &links, &titles, &hl, false);
            let fast = render_checked(&md, "keps/a/1-x/README.md", &links, &titles, &hl, true);
            let slow = render_sanitized(&md, "keps/a/1-x/README.md", &links, &titles, &hl);
            if done.raw && done.simple {
                kept += 1;
                differ += usize::from(fast.html != slow.html);
                assert_eq!(sanitize::as_parsed(&fast.html), slow.html, "{md:?}");
            } else {
                assert_eq!(fast.html, slow.html, "{md:?}");
            }
        }
        // both kinds are met, and written differently (the same trees)
        assert!(kept > 250 && differ > 0, "{kept} kept, {differ} differ");
    }
}
