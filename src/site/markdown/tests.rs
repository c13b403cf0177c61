use super::*;
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

/// `f` with the tests' links: one KEP page (`keps/sig-a/1-x`) and one
/// asset (`img.png`).
fn with_links<R>(f: impl FnOnce(&Links) -> R) -> R {
    let keps = BTreeMap::from([("keps/sig-a/1-x".to_string(), "/keps/1/".to_string())]);
    let assets = BTreeSet::from(["img.png".to_string()]);
    f(&Links {
        keps: &keps,
        local_assets: &assets,
        repo_url: "https://github.com/k/e",
        branch: "master",
    })
}

fn rendered(md: &str) -> Rendered {
    with_links(|links| render(md, "keps/sig-a/2-y/README.md", links, &Highlighter::new()))
}

fn render_plain(md: &str) -> String {
    rendered(md).html
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
        crate::kep::document::fence_tabs("a\tb\n``` x\t\n"),
        Cow::Borrowed(_)
    ));
    // an info string after a tab is left alone; no byte moves
    assert_eq!(
        crate::kep::document::fence_tabs("```\tgo\nx\n```\t\n"),
        "```\tgo\nx\n``` \n"
    );
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
        "<test>",
        "<link to x>",
        "<N>",
        "<a href=\"#x\">",
        "</a>",
        "<some-thing rv>",
    ];
    let (mut seed, mut kept, mut differ) = (7u64, 0, 0);
    let mut next = || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        seed
    };
    let from = "keps/a/1-x/README.md";
    with_links(|links| {
        for _ in 0..12_000 {
            let md: String = (0..=next() >> 60)
                .map(|_| pieces[(next() >> 33) as usize % pieces.len()])
                .collect();
            let doc = crate::kep::document::parse(&md);
            let (_, done) = stream(&doc, from, links, &titles, &hl, RawHtml::KeepSimple);
            let fast = render_checked(&doc, from, links, &titles, &hl, RawHtml::KeepSimple);
            let slow = render_sanitized(&md, from, links, &titles, &hl);
            if done.raw && done.simple {
                kept += 1;
                differ += usize::from(fast.html != slow.html);
                assert_eq!(sanitize::as_parsed(&fast.html), slow.html, "{md:?}");
            } else {
                assert_eq!(fast.html, slow.html, "{md:?}");
            }
        }
    });
    // both kinds are met, and written differently (the same trees)
    assert!(kept > 250 && differ > 0, "{kept} kept, {differ} differ");
}

#[test]
fn a_page_knows_whether_it_has_a_diagram_to_draw() {
    let has = |md: &str| rendered(md).diagrams;
    assert!(has("Text.\n\n```mermaid\ngraph TD; A-->B\n```\n"));
    assert!(has(
        "<div>\n<pre class=\"mermaid\">graph TD; A-->B</pre>\n</div>\n"
    ));
    assert!(!has(
        "```go\nx := 1\n```\n\n<b>mermaid</b> `<pre class=\"mermaid\">`\n"
    ));
    assert!(!has("<div>\n<pre class=\"other\">graph</pre>\n</div>\n"));
}

#[test]
fn a_heading_without_an_anchor_has_no_id_and_no_contents_entry() {
    let r = rendered("# ;\n\n## Real\n");
    assert!(r.html.contains("<h2>;</h2>"), "{}", r.html);
    let ids: Vec<&str> = r.toc.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids, ["real"]);
}
