//! Property-based fuzzing, on stable Rust (proptest), of everything that
//! reads untrusted repository content: the HTML sanitizer, the markdown
//! pipeline, the YAML and front-matter loader, the search tokenizer, the
//! code highlighter (whose grammars are C), and (`fuzz/inputs.rs`) the
//! `--kubernetes` gate parser and the input-file readers (`--issues`).
//!
//! Each target runs [`cases`] generated inputs: 64 in a plain `cargo test`,
//! `KEPSITE_FUZZ_CASES` of them when `.ci/run` gives each target its fixed
//! budget. Failures shrink to a small input and are reported, not stored.
//! `tests/fixtures/fuzz-hostile.txt` is the regression corpus: every entry goes
//! through every target in every run.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use kepsite::analysis::completeness::assess;
use kepsite::analysis::template::builtin;
use kepsite::kep::document::parse;
use kepsite::kep::domain::Stage;
use kepsite::kep::metadata::{parse_raw, split_front_matter};
use kepsite::site::highlight::Highlighter;
use kepsite::site::markdown::{Links, render};
use kepsite::site::sanitize::{Budget, Policy, clean};
use kepsite::site::search::BodyTerms;
use proptest::prelude::*;
use proptest::test_runner::Config;

use crate::dom::{dom_problems, escapes, render_readme};

mod inputs;

/// Generated inputs per target.
fn cases() -> u32 {
    std::env::var("KEPSITE_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64)
}

fn config() -> Config {
    Config {
        cases: cases(),
        failure_persistence: None,
        ..Config::default()
    }
}

/// The regression corpus, one entry per `%%%%` line.
fn corpus() -> Vec<String> {
    let text = include_str!("../fixtures/fuzz-hostile.txt");
    text.split("\n%%%%\n").map(str::to_string).collect()
}

const TAGS: &[&str] = &[
    "a",
    "b",
    "i",
    "p",
    "div",
    "span",
    "li",
    "ul",
    "ol",
    "dd",
    "dt",
    "dl",
    "table",
    "tr",
    "td",
    "th",
    "tbody",
    "caption",
    "details",
    "summary",
    "pre",
    "code",
    "h1",
    "h2",
    "img",
    "br",
    "script",
    "style",
    "svg",
    "math",
    "mi",
    "mtext",
    "foreignObject",
    "template",
    "noscript",
    "textarea",
    "title",
    "xmp",
    "iframe",
    "form",
    "button",
    "select",
    "option",
    "input",
    "section",
    "main",
    "article",
    "body",
    "html",
    "nobr",
    "font",
    "ruby",
    "rt",
    "object",
];
const ATTRS: &[&str] = &[
    "href",
    "src",
    "onerror",
    "onclick",
    "style",
    "class",
    "id",
    "name",
    "title",
    "srcdoc",
    "xlink:href",
    "type",
    "open",
    "ontoggle",
    "formaction",
    "cite",
    "align",
];
const VALUES: &[&str] = &[
    "javascript:window.__pwned=1",
    " JaVa\tScRiPt:x",
    "&#x6A;avascript:x",
    "data:text/html,x",
    "#summary",
    "img.png",
    "https://ok.example/",
    "ks-filters",
    "search-results",
    "text-align: left",
    "checkbox",
    "x\" onerror=\"y",
    "é&aaaaaaaaaaé",
];
const PIECES: &[&str] = &[
    "<",
    ">",
    "</",
    "/>",
    "=",
    "\"",
    "'",
    "&",
    "&#",
    ";",
    "&amp;",
    "&#x6a;",
    "<!--",
    "-->",
    "<![CDATA[",
    "]]>",
    "<?",
    "<!",
    "\n",
    "\n\n",
    "\t",
    " ",
    "\0",
    "\r",
    "x",
    "é",
    "漢",
    "- ",
    "> ",
    "# ",
    "```",
    "`",
    "|",
    "*",
    "_",
    "[^1]",
    "[^1]: n\n",
    "[x](",
    ")",
    "![i](",
    "{#ks-q}",
    "\\",
];

/// Raw HTML and markdown soup: tags with dangerous attributes, end tags of
/// the page's own elements, and bare syntax characters.
fn soup() -> impl Strategy<Value = String> {
    let tag = (
        prop::sample::select(TAGS),
        prop::bool::ANY,
        prop::collection::vec(
            (
                prop::sample::select(ATTRS),
                prop::sample::select(VALUES),
                0..4u8,
            ),
            0..4,
        ),
        prop::bool::ANY,
    )
        .prop_map(|(name, end, attrs, closed)| {
            let mut t = format!("<{}{name}", if end { "/" } else { "" });
            for (a, v, q) in attrs {
                match q {
                    0 => t.push_str(&format!(" {a}")),
                    1 => t.push_str(&format!(" {a}=\"{v}\"")),
                    2 => t.push_str(&format!(" {a}='{v}'")),
                    _ => t.push_str(&format!(" {a}={v}")),
                }
            }
            if closed {
                t.push('>');
            }
            t
        });
    let piece = prop_oneof![
        4 => tag,
        3 => prop::sample::select(PIECES).prop_map(str::to_string),
        1 => "\\PC{0,6}",
    ];
    prop::collection::vec(piece, 0..60).prop_map(|v| v.concat())
}

/// The delimiters markdown and the README analysis look for, each repeated
/// into long runs: the input that makes a search to the end per character
/// quadratic.
const DELIMITERS: &[&str] = &[
    "<", "[", "]", "`", "*", "_", "|", "<div ", "> ", "- ", "  - ", "1. ", "<!--", "-->", "](",
    "<<[", "]>>", "&", "#", "~~~", "```", "\\", "<a href=", "[x]: ",
];

/// One to three runs of a delimiter, up to 2,000 each, on one line or one per line.
fn runs() -> impl Strategy<Value = String> {
    prop::collection::vec(
        (
            prop::sample::select(DELIMITERS),
            1..2000usize,
            prop::bool::ANY,
        ),
        1..4,
    )
    .prop_map(|v| {
        v.into_iter()
            .map(|(d, n, lines)| {
                if lines {
                    format!("{d}\n")
                } else {
                    d.to_string()
                }
                .repeat(n)
            })
            .collect()
    })
}

/// Pieces of the languages kepsite highlights, for code-block soup.
const CODE: &[&str] = &[
    "- ",
    "? ",
    ": ",
    "a:",
    "  ",
    "\t",
    "\n",
    "{",
    "}",
    "[",
    "]",
    "(",
    ")",
    "\"",
    "'",
    "`",
    "$(",
    "${",
    "<<EOF\n",
    "EOF\n",
    "&a ",
    "*a ",
    "!t ",
    "|\n",
    ">\n",
    "#",
    "//",
    "/*",
    "*/",
    "func ",
    "type ",
    "if ",
    "def ",
    "return ",
    "x",
    "1",
    "@@ -1 +1 @@\n",
    "+",
    "-",
    "message M {",
    ";",
    "=",
    "\\",
    "é",
    "\u{feff}",
    "\r",
];

/// A fenced block's language and a soup of code pieces, some repeated
/// thousands of times.
fn code_soup() -> impl Strategy<Value = (&'static str, String)> {
    (
        prop::sample::select(
            &[
                "go", "yaml", "bash", "json", "python", "diff", "proto", "make", "console",
            ][..],
        ),
        prop::collection::vec((prop::sample::select(CODE), 1..600usize), 1..12),
    )
        .prop_map(|(lang, v)| (lang, v.into_iter().map(|(p, n)| p.repeat(n)).collect()))
}

/// A block highlights to balanced spans whose text is the code, escaped.
fn check_code_block(lang: &str, code: &str) {
    let html = Highlighter::new().block(lang, code);
    assert_eq!(
        html.matches("<span").count(),
        html.matches("</span>").count()
    );
    let inner = html
        .split_once("<code>")
        .and_then(|(_, r)| r.rsplit_once("</code>"))
        .expect("a code element")
        .0;
    let text: String = inner
        .split('<')
        .enumerate()
        .map(|(i, p)| {
            if i == 0 {
                p
            } else {
                p.split_once('>').map_or(p, |(_, t)| t)
            }
        })
        .collect();
    assert!(!text.contains('<') && !text.contains('>'), "{inner}");
    let text = text
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&nbsp;", "\u{a0}");
    assert_eq!(
        text.replace("&amp;", "&").len(),
        escaped_len(code),
        "{lang}"
    );
}

/// The length of `code` once control characters read as U+FFFD (as the
/// escaper writes them).
fn escaped_len(code: &str) -> usize {
    code.chars()
        .map(|c| {
            if c.is_control() && !matches!(c, '\t' | '\n' | '\r') {
                '\u{fffd}'.len_utf8()
            } else {
                c.len_utf8()
            }
        })
        .sum()
}

/// The README analysis reads `md` as a section and as a PRR answer.
fn check_answer_reader(md: &str) {
    let text = format!(
        "# KEP\n## Summary\n{md}\n## Production Readiness Review Questionnaire\n\
         ### Feature Enablement and Rollback\n\
         ###### How can this feature be enabled / disabled in a live cluster?\n{md}\n"
    );
    let doc = parse(&text);
    let template = builtin();
    let a = assess(&doc, &template, Some(&Stage::parse("beta")));
    // the README has the Summary heading whatever `md` holds
    let summary = template
        .sections
        .iter()
        .position(|s| s.title == "Summary")
        .expect("the template's Summary");
    assert!(a.sections[summary].present, "{md:?}");
}

/// The sanitizer's own oracle: html5ever's reading of the output has no
/// script, handler or unsafe URL, and nothing outside the container.
fn assert_safe(input: &str, html: &str) {
    let problems = dom_problems(html);
    assert!(problems.is_empty(), "{input:?} → {html}\n{problems:?}");
    let out = escapes(html);
    assert!(out.is_empty(), "{input:?} → {html}\n{out:?}");
}

fn check_sanitizer(raw: &str) {
    let none = HashSet::new();
    let policy = Policy {
        generated_ids: &none,
        trusted_urls: &none,
        resolve: &|u, _| u.to_string(),
    };
    if let Some(html) = clean(raw, &policy, &Budget { depth: 64 }) {
        assert_safe(raw, &html);
    }
}

fn check_markdown(md: &str) {
    let html = render_readme(md);
    assert_safe(md, &html);
    let keps = BTreeMap::new();
    let assets = BTreeSet::new();
    let links = Links {
        keps: &keps,
        local_assets: &assets,
        repo_url: "https://github.com/k/e",
        branch: "main",
    };
    let r = render(md, "keps/sig-a/1-x/README.md", &links, &Highlighter::new());
    // raw HTML may swallow a heading (an unclosed `<textarea>`, a comment);
    // without it, every table-of-contents entry has its anchor
    if md.contains('<') {
        return;
    }
    for entry in &r.toc {
        assert!(
            r.html.contains(&format!(
                " id=\"{}\"",
                entry
                    .id
                    .replace('&', "&amp;")
                    .replace('"', "&quot;")
                    .replace('<', "&lt;")
                    .replace('>', "&gt;")
            )),
            "toc id {:?} not in {}",
            entry.id,
            r.html
        );
    }
}

fn check_yaml(text: &str) {
    let _ = parse_raw(text, 0);
    if let Some((front, _, body)) = split_front_matter(text) {
        assert!(text.contains(front) && text.contains(body));
        let _ = parse_raw(front, 1);
    }
    let file = kepsite::repo::RepoFile {
        path: "keps/sig-a/1-x/kep.yaml".into(),
        bytes: text.as_bytes().to_vec(),
    };
    let _ = kepsite::kep::decode(&file);
}

fn check_tokenizer(body: &str) {
    // terms of ASCII letters and digits, one space after each, and
    // sections the best-section numbers point into
    let terms = BodyTerms::of(body, &[]);
    assert!(terms.sound());
    // and with the sections a README's headings give its text
    let keps = BTreeMap::new();
    let assets = BTreeSet::new();
    let links = Links {
        keps: &keps,
        local_assets: &assets,
        repo_url: "https://github.com/k/e",
        branch: "main",
    };
    let r = render(
        body,
        "keps/sig-a/1-x/README.md",
        &links,
        &Highlighter::new(),
    );
    let terms = BodyTerms::of(&r.text, &r.sections);
    assert!(terms.sound());
}

#[test]
fn the_regression_corpus_passes_every_target() {
    let corpus = corpus();
    assert!(corpus.len() > 50, "{} entries", corpus.len());
    for entry in &corpus {
        check_sanitizer(entry);
        check_markdown(entry);
        check_yaml(entry);
        check_tokenizer(entry);
        inputs::check_gates(entry);
        inputs::check_readers(entry.as_bytes());
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn sanitizer_output_is_safe_and_contained(raw in soup()) {
        check_sanitizer(&raw);
    }

    #[test]
    fn markdown_renders_safe_anchored_html(md in soup()) {
        check_markdown(&md);
    }

    #[test]
    fn the_yaml_and_front_matter_loader_never_panics(
        text in prop_oneof![
            "\\PC{0,200}",
            prop::collection::vec(prop::sample::select(&[
                "---\n", "title: ", "kep-number: ", "status: ", "stage: ", "- ", "  ", "&a ",
                "*a ", "!!binary ", "[", "]", "{", "}", ": ", "\"", "'", "\n", "é", "1234",
                "\u{feff}", "#", "|\n", ">\n", "? ", "%YAML 1.2\n", "<<: *a\n",
            ][..]), 0..50).prop_map(|v| v.concat()),
        ]
    ) {
        check_yaml(&text);
    }

    #[test]
    fn the_search_tokenizer_keeps_plain_terms(body in "\\PC{0,300}") {
        check_tokenizer(&body);
    }
}

proptest! {
    // Inputs of thousands of characters: a fortieth of the cases.
    #![proptest_config(Config { cases: (cases() / 40).max(8), ..config() })]

    #[test]
    fn code_blocks_highlight_to_balanced_spans_without_aborting((lang, code) in code_soup()) {
        check_code_block(lang, &code);
    }

    #[test]
    fn long_delimiter_runs_render_safely_and_read_as_answers(md in runs()) {
        check_markdown(&md);
        check_answer_reader(&md);
        check_tokenizer(&md);
    }
}
