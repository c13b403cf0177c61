//! Issue 46: the issue comments as GitHub shows them. The comments of a
//! repository of hostile KEPs (the announcement's fixture,
//! tests/fixtures/announcement-hostile.txt, as titles, Summaries and
//! directory names) at every phase are rendered in headless Chromium by a
//! GitHub-flavoured Markdown renderer (npm `marked`, which `.ci/run`
//! installs into `target/browser-tools/`; it passes raw HTML through, as a
//! renderer without a sanitizer would): no raw HTML token, no element but
//! Markdown's own, no link but kepsite's own https links to the Kubernetes
//! repositories, and each hostile title shown as text.

use serde_json::{Value, json};

use super::Browser;
use crate::hostile::{hostile, hostile_repo};
use crate::support::kepsite;

/// marked's browser build.
fn marked_source() -> String {
    let path = super::npm_file(
        "KEPSITE_MARKED",
        "marked/lib/marked.umd.js",
        "the comments' rendering test",
        "marked@18.3.0",
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Render `arguments[0]` (Markdown) with marked, GFM on, into an inert
/// document; answer its raw HTML tokens, what is wrong with its elements
/// and links, and its text.
const RENDER: &str = r#"
var md = arguments[0], raw = [], bad = [];
var opts = {gfm: true};
var tokens = marked.lexer(md, opts);
marked.walkTokens(tokens, function (t) { if (t.type === 'html') raw.push(t.raw); });
var html = marked.parser(tokens, opts);
var doc = new DOMParser().parseFromString('<div id="c">' + html + '</div>', 'text/html');
var root = doc.getElementById('c');
var ok = ['P','UL','OL','LI','INPUT','STRONG','EM','CODE','PRE','A','H1','H2','H3','H4','H5','H6',
          'HR','BLOCKQUOTE','BR','DEL','TABLE','THEAD','TBODY','TR','TH','TD'];
root.querySelectorAll('*').forEach(function (e) {
  if (ok.indexOf(e.tagName) < 0) bad.push('element ' + e.outerHTML.slice(0, 80));
  for (var i = 0; i < e.attributes.length; i++) {
    var a = e.attributes[i].name;
    if (/^on/i.test(a) || a === 'style' || a === 'src') bad.push('attribute ' + a + ' on ' + e.tagName);
  }
  if (e.tagName === 'INPUT' && !(e.type === 'checkbox' && e.disabled)) bad.push('input ' + e.outerHTML);
  if (e.tagName === 'A') {
    var h = e.getAttribute('href') || '';
    if (!/^https:\/\/(github\.com\/kubernetes\/|kubernetes\.io\/)/.test(h)) bad.push('link ' + h);
  }
});
return {raw: raw, bad: bad, text: root.textContent};
"#;

/// `s` with the zero-width spaces the escaper adds removed and its white
/// space collapsed.
fn plain(s: &str) -> String {
    s.replace('\u{200b}', "")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
#[ignore = "needs chromium + chromedriver + marked; CI runs it with --ignored"]
fn hostile_comments_render_as_text_through_a_gfm_renderer() {
    let source = marked_source();
    let tmp = tempfile::tempdir().unwrap();
    hostile_repo(tmp.path());
    let b = Browser::start();
    b.goto("about:blank");
    b.js(&format!("{source}\n;return typeof marked;"));
    assert_eq!(b.js("return typeof marked.parse;"), json!("function"));
    let mut seen = 0;
    let mut text = String::new();
    for phase in [
        "prr",
        "enhancements",
        "enhancements-party",
        "code",
        "code-party",
    ] {
        let run = kepsite(&[
            "report",
            "--repo",
            tmp.path().to_str().unwrap(),
            "--no-history",
            "--release",
            "v1.36",
            "--format",
            "comments-json",
            "--phase",
            phase,
        ]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        let list: Vec<Value> = serde_json::from_str(&run.stdout).unwrap();
        assert_eq!(list.len(), hostile().len(), "{phase}");
        for c in &list {
            let body = c["body"].as_str().unwrap();
            let r = b.cmd(
                "POST",
                "/execute/sync",
                Some(json!({ "script": RENDER, "args": [body] })),
            );
            assert_eq!(
                r["raw"],
                json!([]),
                "{phase} KEP-{}: raw HTML\n{body}",
                c["kep"]
            );
            assert_eq!(r["bad"], json!([]), "{phase} KEP-{}\n{body}", c["kep"]);
            text.push_str(&plain(r["text"].as_str().unwrap()));
            text.push('\n');
            seen += 1;
        }
    }
    assert_eq!(seen, 5 * hostile().len());
    // What the KEPs say is shown, as text (control characters as the
    // escaper spells them out).
    for line in hostile() {
        let line = kepsite::escape::terminal(&plain(line)).into_owned();
        assert!(text.contains(&line), "{line:?} is not shown as text");
    }
}
