//! The README and `docs/`: the README stays short (at most 300 lines), links
//! every docs page, keeps the two set-up commands CI runs, and every relative
//! link in either (a file, a file's heading, a heading of the same page)
//! leads somewhere. Headings and links are read with pulldown-cmark; anchors
//! follow GitHub's rules.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

/// The "Set-up on a fresh machine" section, byte for byte: the main job on
/// the embedded `content/` and the test command.
const SET_UP: &str = "## Set-up on a fresh machine

```sh
cargo run --release -- serve      # the main job: preview the portal of content/ at the URL it prints, live-reloading
cargo test                        # the test suite; needs nothing outside this repository
```
";

const README_MAX_LINES: usize = 300;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// README.md and every `docs/*.md`, README first.
fn pages(root: &Path) -> Vec<PathBuf> {
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    let mut all = vec![root.join("README.md")];
    all.extend(docs);
    all
}

/// GitHub's anchor for a heading's text: lowercase, punctuation dropped
/// (letters, digits, `-`, `_` and spaces kept), each space a `-`.
fn slug(text: &str) -> String {
    text.to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' '))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// A link of a page: its destination and line.
struct Link {
    dest: String,
    line: usize,
}

/// A page's heading anchors (repeats numbered `-1`, `-2`, as GitHub does)
/// and its links and images, with `src`/`href` of raw HTML.
fn read(text: &str) -> (BTreeSet<String>, Vec<Link>) {
    let line = |at: usize| text[..at].matches('\n').count() + 1;
    let mut anchors = BTreeSet::new();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut links = Vec::new();
    let mut heading: Option<String> = None;
    let options =
        Options::ENABLE_TABLES | Options::ENABLE_FOOTNOTES | Options::ENABLE_STRIKETHROUGH;
    for (event, range) in Parser::new_ext(text, options).into_offset_iter() {
        match event {
            Event::Start(Tag::Heading { .. }) => heading = Some(String::new()),
            Event::End(TagEnd::Heading(_)) => {
                let base = slug(&heading.take().unwrap_or_default());
                let n = seen.entry(base.clone()).or_insert(0);
                anchors.insert(if *n == 0 {
                    base.clone()
                } else {
                    format!("{base}-{n}")
                });
                *n += 1;
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some(h) = heading.as_mut() {
                    h.push_str(&t);
                }
            }
            Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. }) => {
                links.push(Link {
                    dest: dest_url.to_string(),
                    line: line(range.start),
                })
            }
            Event::Html(html) | Event::InlineHtml(html) => {
                for attr in ["src=\"", "href=\""] {
                    for (at, _) in html.match_indices(attr) {
                        let rest = &html[at + attr.len()..];
                        let dest = rest.split('"').next().unwrap_or("");
                        links.push(Link {
                            dest: dest.to_string(),
                            line: line(range.start),
                        });
                    }
                }
            }
            _ => {}
        }
    }
    (anchors, links)
}

/// Whether a destination is off the repository (a URL, mail).
fn external(dest: &str) -> bool {
    dest.contains("://") || dest.starts_with("mailto:")
}

/// The file a relative destination names from `page`, and its anchor.
fn target(page: &Path, dest: &str) -> (PathBuf, Option<String>) {
    let (path, anchor) = match dest.split_once('#') {
        Some((p, a)) => (p, Some(a.to_string())),
        None => (dest, None),
    };
    let file = if path.is_empty() {
        page.to_path_buf()
    } else {
        page.parent().unwrap().join(path)
    };
    (file, anchor)
}

/// Every relative link of `files` that leads nowhere: a missing file, or an
/// anchor that is no heading of its Markdown page. One line each.
fn broken_links(files: &[PathBuf]) -> Vec<String> {
    let mut anchors: BTreeMap<PathBuf, BTreeSet<String>> = BTreeMap::new();
    let mut read_anchors = |file: &Path| -> BTreeSet<String> {
        let key = std::fs::canonicalize(file).unwrap();
        anchors
            .entry(key.clone())
            .or_insert_with(|| read(&std::fs::read_to_string(&key).unwrap()).0)
            .clone()
    };
    let mut broken = Vec::new();
    for page in files {
        let (_, links) = read(&std::fs::read_to_string(page).unwrap());
        let name = page.display();
        for Link { dest, line } in links.iter().filter(|l| !external(&l.dest)) {
            let (file, anchor) = target(page, dest);
            if !file.exists() {
                broken.push(format!("{name}:{line}: {dest}: no file {}", file.display()));
                continue;
            }
            let Some(anchor) = anchor else { continue };
            if file.extension().is_none_or(|e| e != "md") {
                continue;
            }
            if !read_anchors(&file).contains(&anchor) {
                broken.push(format!(
                    "{name}:{line}: {dest}: no heading #{anchor} in {}",
                    file.display()
                ));
            }
        }
    }
    broken
}

#[test]
fn the_readme_is_at_most_300_lines() {
    let text = std::fs::read_to_string(root().join("README.md")).unwrap();
    let lines = text.lines().count();
    assert!(
        lines <= README_MAX_LINES,
        "README.md has {lines} lines; move detail into docs/"
    );
}

#[test]
fn the_readme_keeps_the_set_up_commands() {
    let text = std::fs::read_to_string(root().join("README.md")).unwrap();
    assert!(
        text.contains(SET_UP),
        "README.md lost its set-up section as CI runs it:\n{SET_UP}"
    );
}

#[test]
fn every_docs_page_is_linked_from_the_readme() {
    let root = root();
    let readme = root.join("README.md");
    let (_, links) = read(&std::fs::read_to_string(&readme).unwrap());
    let linked: BTreeSet<PathBuf> = links
        .iter()
        .filter(|l| !external(&l.dest))
        .filter_map(|l| std::fs::canonicalize(target(&readme, &l.dest).0).ok())
        .collect();
    let pages = pages(&root);
    assert!(pages.len() > 5, "docs/ has no pages: {pages:?}");
    let missing: Vec<_> = pages[1..]
        .iter()
        .filter(|p| !linked.contains(&std::fs::canonicalize(p).unwrap()))
        .map(|p| p.display().to_string())
        .collect();
    assert!(
        missing.is_empty(),
        "docs pages the README does not link: {missing:#?}"
    );
}

#[test]
fn every_relative_link_in_the_readme_and_docs_resolves() {
    let broken = broken_links(&pages(&root()));
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn anchors_follow_github() {
    assert_eq!(
        slug("What the code shipped: `--kubernetes DIR`"),
        "what-the-code-shipped---kubernetes-dir"
    );
    assert_eq!(
        slug("S3 (with or without CloudFront)"),
        "s3-with-or-without-cloudfront"
    );
    assert_eq!(
        slug("The sample repository (`content/`)"),
        "the-sample-repository-content"
    );
    let (anchors, _) = read("# A\n\n## A\n\n### `x_y`, and z\n");
    assert_eq!(
        anchors,
        BTreeSet::from(["a".into(), "a-1".into(), "x_y-and-z".into()])
    );
}

/// The check fails where it should: a missing file, a missing heading on
/// another page and on the same page; a heading, a URL and mail pass.
#[test]
fn a_broken_link_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.md");
    let b = dir.path().join("b.md");
    std::fs::write(
        &a,
        "# Here\n\n[1](b.md#yes) [2](#here) [3](https://x.org/#no) [4](mailto:a@b.c)\n\n\
         [5](missing.md) [6](b.md#nope) [7](#gone) <img src=\"nope.png\">\n",
    )
    .unwrap();
    std::fs::write(&b, "# Yes\n").unwrap();
    let broken = broken_links(&[a, b]);
    assert_eq!(broken.len(), 4, "{broken:#?}");
    for (want, got) in ["missing.md", "b.md#nope", "#gone", "nope.png"]
        .iter()
        .zip(&broken)
    {
        assert!(got.contains(want), "{got} should name {want}");
    }
}
