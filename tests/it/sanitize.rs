//! README HTML is safe as a browser parses it.
//!
//! These tests do not trust kepsite's sanitizer: they parse its output with
//! html5ever (through `scraper`, the parser browsers' HTML spec describes)
//! and check the DOM a browser would build: only harmless elements, no event
//! handlers or styles, no URL with a scheme other than http, https or
//! mailto, and nothing outside the page's `.markdown` container.

use crate::dom::*;

/// Attacks from the usual XSS cheat sheets, in markdown and raw HTML.
const VECTORS: &[&str] = &[
    "<script>alert(1)</script>",
    "<SCRIPT SRC=//x.js></SCRIPT>",
    "<img src=x onerror=alert(1)>",
    "<img src=x onerror=alert(1)//",
    "<img/src=x/onerror=alert(1)>",
    "<img src=\"x\"onerror=\"alert(1)\">",
    "<IMG SRC=\"jav&#x09;ascript:alert(1);\">",
    "<IMG SRC=&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;alert(1)>",
    "<IMG SRC=&#0000106&#0000097&#0000118&#0000097&#0000115&#0000099&#0000114&#0000105&#0000112&#0000116&#0000058alert(1)>",
    "<a href=\"&#x6A;avascript:alert(1)\">x</a>",
    "<a href=\"javascript&colon;alert(1)\">x</a>",
    "<a href=\" &#14;  javascript:alert(1)\">x</a>",
    "<a href=\"data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==\">x</a>",
    "<a href=vbscript:msgbox(1)>x</a>",
    "<svg onload=alert(1)>",
    "<svg><script>alert(1)</script></svg>",
    "<math><mi xlink:href=\"javascript:alert(1)\">x</mi></math>",
    "<iframe src=\"javascript:alert(1)\"></iframe>",
    "<iframe srcdoc=\"<script>alert(1)</script>\"></iframe>",
    "<object data=\"javascript:alert(1)\"></object>",
    "<embed src=\"javascript:alert(1)\">",
    "<form action=\"javascript:alert(1)\"><button>x</button></form>",
    "<input type=\"image\" src=\"x\" onerror=\"alert(1)\">",
    "<input onfocus=alert(1) autofocus>",
    "<details open ontoggle=alert(1)>",
    "<body onload=alert(1)>",
    "<style>@import 'http://x/x.css';</style>",
    "<div style=\"background:url(javascript:alert(1))\">x</div>",
    "<base href=\"javascript:alert(1)//\">",
    "<meta http-equiv=\"refresh\" content=\"0;url=javascript:alert(1)\">",
    "<link rel=stylesheet href=\"javascript:alert(1)\">",
    "<table background=\"javascript:alert(1)\"><tr><td>x</td></tr></table>",
    "<!--<img src=\"--><img src=x onerror=alert(1)//\">",
    "<![CDATA[<img src=x onerror=alert(1)>]]>",
    "<noscript><p title=\"</noscript><img src=x onerror=alert(1)>\"></noscript>",
    "<textarea><img src=x onerror=alert(1)></textarea>",
    "<title><img src=x onerror=alert(1)></title>",
    "<xmp><img src=x onerror=alert(1)></xmp>",
    "<template><img src=x onerror=alert(1)></template>",
    "<a href=\"https://ok\" title='\"><img src=x onerror=alert(1)>'>x</a>",
    "<a title=\"`\" onmouseover=alert(1)>x</a>",
    "<div id=\"a\" class=\"b\" onclick=\"alert(1)\" onclick=\"x\">x</div>",
    "<scr<script>ipt>alert(1)</script>",
    "<<script>script>alert(1)<</script>/script>",
    "<img src=`x` onerror=alert(1)>",
    "<img src=x:alert(alt) onerror=eval(src) alt=0>",
    "<a href=\"java\0script:alert(1)\">x</a>",
    "[x](javascript:alert(1))",
    "[x](<javascript:alert(1)>)",
    "[x](JAVASCRIPT:alert(1))",
    "[x](java&#x09;script:alert(1))",
    "![x](javascript:alert(1))",
    "[x][r]\n\n[r]: data:text/html,<script>alert(1)</script>",
    "<javascript:alert(1)>",
    "# t {onclick=alert(1)}",
    "<div>\n\n[x](javascript:alert(1))\n\n</div>",
    "- <span>item\n- </span><img src=x onerror=alert(1)>",
    "> <details><summary>s</summary>\n\n</blockquote><script>alert(1)</script>",
    "| a | b |\n|---|---|\n| <img src=x onerror=alert(1)> | <a href=javascript:x>y</a> |",
    "```html\n<script>alert(1)</script>\n```",
    "`<script>alert(1)</script>`",
    "x[^1]\n\n[^1]: <img src=x onerror=alert(1)>",
];

#[test]
fn known_attacks_leave_nothing_unsafe() {
    for v in VECTORS {
        let html = render_readme(v);
        let problems = dom_problems(&html);
        assert!(problems.is_empty(), "{v:?} → {html}\n{problems:?}");
    }
}

#[test]
fn the_checker_sees_unsafe_html() {
    // the oracle itself must be able to fail
    for bad in [
        "<img src=x onerror=alert(1)>",
        "<a href=\" java\tscript:x\">x</a>",
        "<script>x</script>",
        "<p style=\"x\">y</p>",
        "<svg></svg>",
        "<input type=text>",
    ] {
        assert!(!dom_problems(bad).is_empty(), "{bad}");
    }
    assert!(dom_problems("<p><a href=\"https://x\">y</a><img src=\"a.png\"></p>").is_empty());
}

/// A small deterministic generator (xorshift), so a failure reproduces.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[(self.next() % items.len() as u64) as usize]
    }
}

/// A random start tag: a name, attributes (dangerous ones among them) with
/// values quoted in every way, sometimes unterminated.
fn random_tag(rng: &mut Rng) -> String {
    let names = [
        "img",
        "a",
        "div",
        "svg",
        "math",
        "iframe",
        "details",
        "table",
        "td",
        "p",
        "span",
        "textarea",
        "noscript",
        "title",
        "template",
        "input",
        "script",
        "style",
        "object",
        "IMG",
        "A",
        "sCrIpT",
        "blockquote",
        "q",
        "area",
        "form",
        "base",
        "meta",
        "link",
    ];
    let attrs = [
        "src",
        "href",
        "onerror",
        "onload",
        "ONCLICK",
        "style",
        "srcdoc",
        "cite",
        "title",
        "id",
        "class",
        "alt",
        "name",
        "type",
        "action",
        "formaction",
        "xlink:href",
        "background",
        "open",
        "ontoggle",
        "/onerror",
        "\"onerror",
        "on error",
    ];
    let values = [
        "javascript:alert(1)",
        "JaVaScRiPt:alert(1)",
        " java	script:alert(1)",
        "&#106;avascript:alert(1)",
        "&#x6A;avascript&colon;alert(1)",
        "java&#0;script:x",
        "data:text/html,<script>alert(1)</script>",
        "vbscript:x",
        "alert(1)",
        "x",
        "https://ok/",
        "img.png",
        "\" onerror=alert(1) x=\"",
        "' onerror=alert(1) x='",
        "><script>alert(1)</script>",
        "checkbox",
        "text",
    ];
    let mut t = format!("<{}", rng.pick(&names));
    for _ in 0..rng.next() % 4 {
        t.push_str(rng.pick(&[" ", "/", "\n", "  "]));
        t.push_str(rng.pick(&attrs));
        match rng.next() % 4 {
            0 => {}
            1 => t.push_str(&format!("=\"{}\"", rng.pick(&values))),
            2 => t.push_str(&format!("='{}'", rng.pick(&values))),
            _ => t.push_str(&format!("={}", rng.pick(&values))),
        }
    }
    if !rng.next().is_multiple_of(8) {
        t.push_str(rng.pick(&[">", "/>", " >"]));
    }
    t
}

#[test]
fn random_tag_soup_leaves_nothing_unsafe() {
    let pieces = [
        "<",
        ">",
        "</",
        "/>",
        "=",
        "\"",
        "'",
        "`",
        " ",
        "\n",
        "\n\n",
        "\t",
        "&",
        "&#",
        "x",
        ";",
        "&#x6a;",
        "&colon;",
        "&#58;",
        "script",
        "style",
        "img",
        "a",
        "div",
        "svg",
        "onerror",
        "javascript:",
        "data:",
        "alert(1)",
        "http://x/",
        "<!--",
        "-->",
        "--!>",
        "<![CDATA[",
        "]]>",
        "<?",
        "<!",
        "[x](",
        ")",
        "![i](",
        "- ",
        "> ",
        "# ",
        "```",
        "`",
        "|",
        "---",
        "*",
        "_",
        "[^1]",
        "\\",
        "\0",
        "\u{b}",
        "\u{c}",
        "\r",
        "</script>",
        "</a>",
        "</div>",
        "</table>",
        "</textarea>",
        "</noscript>",
        "</style>",
        "</title>",
    ];
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for n in 0..4000 {
        let len = 5 + rng.next() % 40;
        let md: String = (0..len)
            .map(|_| {
                if rng.next().is_multiple_of(3) {
                    random_tag(&mut rng)
                } else {
                    rng.pick(&pieces).to_string()
                }
            })
            .collect();
        let html = render_readme(&md);
        let problems = dom_problems(&html);
        assert!(
            problems.is_empty(),
            "case {n}: {md:?} → {html}\n{problems:?}"
        );
    }
}

#[test]
fn raw_html_that_authors_write_survives() {
    let html = render_readme(
        "<details>\n<summary>More</summary>\n\n- item with **bold**\n\n</details>\n\n\
         <p align=\"center\"><img src=\"img.png\" width=\"300\" alt=\"diagram\"></p>\n\n\
         <a name=\"old-anchor\"></a>\n\nLine<br>break, H<sub>2</sub>O, x<sup>2</sup>\n\n\
         <table><tr><th colspan=\"2\">h</th></tr><tr><td>a</td><td>b</td></tr></table>\n",
    );
    for want in [
        "<details>",
        "<summary>More</summary>",
        "<li>item with <strong>bold</strong></li>",
        "</details>",
        "<p align=\"center\"><img alt=\"diagram\" src=\"img.png\" width=\"300\"></p>",
        "<a name=\"user-content-old-anchor\"></a>",
        "<br>",
        "<sub>2</sub>",
        "<th colspan=\"2\">h</th>",
    ] {
        assert!(html.contains(want), "missing {want:?} in {html}");
    }
    assert!(dom_problems(&html).is_empty());
}

#[test]
fn raw_html_cannot_break_out_of_the_readme() {
    // stray end tags would close the page's own elements
    let html = render_readme("</div></main></article></body>\n\nafter\n\n<div>\n\nunclosed");
    let opens = html.matches("<div").count();
    let closes = html.matches("</div>").count();
    assert_eq!(opens, closes, "{html}");
    assert!(
        !html.contains("</main>") && !html.contains("</article>"),
        "{html}"
    );
}

#[test]
fn the_containment_checker_sees_escapes() {
    assert!(!escapes("</div><p>out</p>").is_empty());
    assert!(!escapes("</div></div><p>out</p>").is_empty());
    // the token-balancing sanitizer's output for finding 1
    assert!(!escapes("<dd><div><dt>x</dt></div></dd><p>after</p>").is_empty());
    assert!(escapes("<div><p>in</p></div>").is_empty());
}

/// Issue 17, finding 1: the browser closes `dd`, `dt`, `li` and `p` itself,
/// so raw HTML balanced as text escaped the `.markdown` container.
#[test]
fn raw_html_stays_inside_the_container() {
    for md in [
        "<dd><div><dt>x</dt></div></dd>\n\nafter",
        "<li><div><li>x</li></div></li>\n\nafter",
        "<li><div><li>x</li></div></li><li><div><li>x</li></div></li>\n\nafter",
        "<dd><div><dt>x</dt></div></dd><dd><div><dt>x</dt></div></dd>\n\nafter",
        "<p><div><p>x</p></div></p>\n\nafter",
        "<ul><li><div><section><li>x</li></section></div></li></ul>\n\nafter",
        "<table><tr><td><div></td></tr></table></div>\n\nafter",
        "- <dd><div><dt>x\n- </dt></div></dd>\n\nafter",
        "<h1><div><h2>x</h2></div></h1></div></div>\n\nafter",
        "<a><div><a>x</a></div></a></div>\n\nafter",
    ] {
        let html = render_readme(md);
        let out = escapes(&html);
        assert!(out.is_empty(), "{md:?} → {html}\n{out:?}");
    }
}

/// Issue 17, finding 2: a character reference next to a multi-byte
/// character panicked the old sanitizer (a byte slice inside a character).
#[test]
fn character_references_beside_multibyte_text_do_not_panic() {
    for md in [
        "<a title=\"&aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaé\">x</a>",
        "<img alt=\"Q&A – 概要 &amp 設計\" src=\"img.png\">",
        "<a href=\"&#x6a;&é\">x</a>",
        "<a title='&#xé;&#é;&é'>x</a>",
    ] {
        let html = render_readme(md);
        assert!(dom_problems(&html).is_empty(), "{md:?} → {html}");
        assert!(escapes(&html).is_empty(), "{md:?} → {html}");
    }
    assert!(
        render_readme("<a title=\"&aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaé\">x</a>").contains("é")
    );
}

/// Issue 17, finding 3: these took 142 s and 3.3 s with the token-balancing
/// sanitizer (quadratic); `benches/hostile.rs` times 10 MB of them.
#[test]
fn hostile_repetition_renders() {
    let divs = "<div ".repeat(100_000);
    let html = render_readme(&divs);
    assert!(dom_problems(&html).is_empty());
    let scripts = "<script></script>".repeat(40_000);
    let html = render_readme(&format!("{scripts}\n\nafter"));
    assert!(
        !html.contains("<script"),
        "{}",
        &html[..200.min(html.len())]
    );
    assert!(html.contains("after"));
    let attrs: String = (0..50_000).map(|i| format!(" a{i}")).collect();
    let html = render_readme(&format!("<div{attrs}>x</div>\n\nafter"));
    assert!(dom_problems(&html).is_empty());
    assert!(html.contains("after"));
}

/// Issue 17, finding 8: raw HTML's classes and ids cannot reach the site's.
#[test]
fn site_classes_and_ids_are_out_of_reach() {
    let html = render_readme(
        "<div class=\"search-results kep-layout\" id=\"ks-filters\">x</div>\n\n\
         <a name=\"ks-q\"></a>\n\n# Filters {#ks-filters}\n\n## p meta\n\n[f](#ks-filters)\n",
    );
    assert!(
        !html.contains("search-results") && !html.contains("kep-layout"),
        "{html}"
    );
    assert!(
        !html.contains("id=\"ks-") && !html.contains("name=\"ks-"),
        "{html}"
    );
    assert!(!html.contains("id=\"p-"), "{html}");
    assert!(html.contains("id=\"user-content-ks-filters\""), "{html}");
}

/// Same-page links reach raw HTML's ids under their prefix, and kepsite's
/// own heading ids stay as GitHub writes them.
#[test]
fn fragment_links_follow_prefixed_ids() {
    let html = render_readme(
        "[old](#old-anchor) [h](#heading) [fn][^1]\n\n<a name=\"old-anchor\"></a>\n\n\
         ## Heading\n\n<p id=\"raw\">x</p> <a href=\"#raw\">r</a>\n\n[^1]: note\n",
    );
    for want in [
        "href=\"#user-content-old-anchor\"",
        "name=\"user-content-old-anchor\"",
        "<h2 id=\"heading\">",
        "href=\"#heading\"",
        "id=\"user-content-raw\"",
        "href=\"#user-content-raw\"",
    ] {
        assert!(html.contains(want), "missing {want:?} in {html}");
    }
    // the footnote's link and target agree
    let doc = scraper::Html::parse_fragment(&html);
    let a = scraper::Selector::parse("sup a").unwrap();
    let href = doc.select(&a).next().and_then(|a| a.attr("href")).unwrap();
    let target = scraper::Selector::parse(&format!("[id=\"{}\"]", &href[1..])).unwrap();
    assert!(doc.select(&target).next().is_some(), "{href} in {html}");
}
