//! The announcement draft is pasted into the Kubernetes blog (Hugo): read
//! back with pulldown-cmark (raw HTML parsed), a draft of hostile KEPs
//! (tests/fixtures/announcement-hostile.txt as titles, Summaries and
//! directory names) and of `content/` has no HTML, no link but https ones,
//! no shortcode in its text, and exactly the sections it writes; on the CLI
//! and on the portal's report page, its KEP links are absolute.

use std::path::Path;

use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TextMergeStream};

use crate::hostile::{hostile, hostile_repo};
use crate::support::{kepsite, unescape};

/// What is wrong with `md` as a blog post's Markdown.
fn problems(md: &str) -> Vec<String> {
    let mut bad = Vec::new();
    let opts = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_FOOTNOTES;
    let (mut h2, mut h3) = (0, 0);
    let ours = "<!-- Drafted by kepsite";
    for ev in TextMergeStream::new(Parser::new_ext(md, opts)) {
        match ev {
            Event::Html(h) | Event::InlineHtml(h) if !h.starts_with(ours) => {
                bad.push(format!("HTML {h:?}"))
            }
            Event::Start(Tag::Link { dest_url: u, .. } | Tag::Image { dest_url: u, .. }) => {
                let u = u.trim().to_ascii_lowercase();
                if u.starts_with("javascript:")
                    || u.starts_with("data:")
                    || !u.starts_with("https://")
                {
                    bad.push(format!("link {u:?}"));
                }
            }
            Event::Start(Tag::Heading { level, .. }) => match level {
                HeadingLevel::H2 => h2 += 1,
                HeadingLevel::H3 => h3 += 1,
                _ => {}
            },
            Event::Text(t) if t.contains("{{<") || t.contains("{{%") => {
                bad.push(format!("shortcode in {t:?}"))
            }
            _ => {}
        }
    }
    if md.contains("{{<") || md.contains("{{%") {
        bad.push("a shortcode in the Markdown".into());
    }
    let lines = |p: &str| md.lines().filter(|l| l.starts_with(p)).count();
    if (h2, h3) != (lines("## "), lines("### ")) {
        bad.push(format!(
            "{h2} h2, {h3} h3 for {} and {} lines",
            lines("## "),
            lines("### ")
        ));
    }
    bad
}

/// The draft of `release` from `repo` (none: the embedded `content/`).
fn draft(repo: Option<&Path>, release: &str, extra: &[&str]) -> String {
    let mut args = vec!["report", "--no-history"];
    if let Some(r) = repo {
        args.extend(["--repo", r.to_str().unwrap()]);
    }
    args.extend(["--release", release, "--format", "announcement"]);
    args.extend_from_slice(extra);
    let run = kepsite(&args);
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.stdout
}

/// The KEP links of a draft.
fn kep_links(md: &str) -> Vec<String> {
    Parser::new(md)
        .filter_map(|ev| match ev {
            Event::Start(Tag::Link { dest_url, .. }) if !dest_url.contains("/issues/") => {
                Some(dest_url.to_string())
            }
            _ => None,
        })
        .collect()
}

#[test]
fn a_draft_of_hostile_keps_is_text_with_https_links() {
    let tmp = tempfile::tempdir().unwrap();
    hostile_repo(tmp.path());
    let md = draft(Some(tmp.path()), "v1.36", &[]);
    assert_eq!(problems(&md), Vec::<String>::new(), "{md}");
    let entries = md.lines().filter(|l| l.starts_with("### KEP-")).count();
    assert_eq!(entries, hostile().len(), "{md}");
    let links = kep_links(&md);
    assert_eq!(links.len(), entries);
    let tree = "https://github.com/kubernetes/enhancements/tree/master/keps/sig-x/";
    assert!(links.iter().all(|l| l.starts_with(tree)), "{links:?}");
    // A portal at an https URL: the KEP links are its pages.
    let md = draft(
        Some(tmp.path()),
        "v1.36",
        &["--site-url", "https://kep.example.org"],
    );
    assert_eq!(problems(&md), Vec::<String>::new(), "{md}");
    let links = kep_links(&md);
    assert!(
        links
            .iter()
            .all(|l| l.starts_with("https://kep.example.org/keps/")),
        "{links:?}"
    );
    // A site-relative or http portal: the repository's directories.
    for site in ["/", "http://localhost:1313/"] {
        let md = draft(Some(tmp.path()), "v1.36", &["--site-url", site]);
        assert!(kep_links(&md).iter().all(|l| l.starts_with(tree)), "{md}");
    }
}

#[test]
fn the_content_drafts_are_text_with_https_links() {
    for release in ["v1.34", "v1.35", "v1.36"] {
        let md = draft(None, release, &[]);
        assert_eq!(problems(&md), Vec::<String>::new(), "{md}");
        assert!(md.contains("](https://github.com/kubernetes/enhancements/tree/master/keps/"));
    }
}

/// The portal's copy of the draft (site-relative links everywhere else on
/// the page) links KEPs absolutely: the repository, or the portal itself
/// when its base URL is https.
#[test]
fn the_portal_draft_links_absolutely() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    hostile_repo(&repo);
    for (base, prefix) in [
        (
            "/",
            "https://github.com/kubernetes/enhancements/tree/master/keps/sig-x/",
        ),
        ("https://kep.example.org/", "https://kep.example.org/keps/"),
    ] {
        let out = tmp.path().join("site");
        let run = kepsite(&[
            "build",
            "--repo",
            repo.to_str().unwrap(),
            "--no-history",
            "--out",
            out.to_str().unwrap(),
            "--base-url",
            base,
        ]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        let page = std::fs::read_to_string(out.join("releases/v1.36/report/index.html")).unwrap();
        let (_, rest) = page
            .split_once("<pre class=\"announcement\"><code>")
            .unwrap();
        let md = unescape(rest.split_once("</code></pre>").unwrap().0);
        assert_eq!(problems(&md), Vec::<String>::new(), "{md}");
        let links = kep_links(&md);
        assert_eq!(links.len(), hostile().len());
        assert!(
            links.iter().all(|l| l.starts_with(prefix)),
            "{base}: {links:?}"
        );
        std::fs::remove_dir_all(&out).unwrap();
    }
}
