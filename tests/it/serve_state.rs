//! `serve`'s in-memory site, in process: what [`State`] holds is what
//! `build` writes, for the whole site and for the quick preview of a README
//! edit.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use kepsite::project::{Input, Needs, Project, Walk};
use kepsite::serve::state::{Changed, Config, State};
use kepsite::site::{self, SiteOptions};

use crate::support::{content_copy, files, git_commit_all};

const KEP: &str = "keps/sig-node/1480-pod-restart-budget";
const PAGE: &str = "keps/1480/index.html";

fn input(root: &Path) -> Input {
    Input::at(root)
}

fn state(input: &Input, walk: Walk) -> State {
    State::new(Config {
        input: input.clone(),
        theme: None,
        site: SiteOptions::default(),
        walk,
    })
    .unwrap()
}

/// A fresh `build` of `input` into `out`: every file written, by path.
fn build(input: &Input, walk: &Walk, out: &Path) -> BTreeMap<String, Vec<u8>> {
    let data = Project::load(input, &Needs::everything(walk.clone())).unwrap();
    let opts = SiteOptions {
        out: out.to_path_buf(),
        ..SiteOptions::default()
    };
    site::build(data, &opts).unwrap();
    files(out)
}

/// A built file as serve links it: serve links each static file by its
/// plain URL, a build by its content-hashed copy.
fn plain(b: &[u8]) -> Vec<u8> {
    match std::str::from_utf8(b) {
        Ok(text) => hashed_static()
            .replace_all(text, "static/$1")
            .into_owned()
            .into_bytes(),
        Err(_) => b.to_vec(),
    }
}

fn hashed_static() -> regex::Regex {
    regex::Regex::new(r#"static/immutable/([^"'\s)]*?)\.[0-9a-f]{10}\b"#).unwrap()
}

/// The first line where `a` and `b` differ, for a failure message.
fn first_difference(a: &[u8], b: &[u8]) -> String {
    let (a, b) = (String::from_utf8_lossy(a), String::from_utf8_lossy(b));
    match a
        .lines()
        .zip(b.lines())
        .enumerate()
        .find(|(_, (x, y))| x != y)
    {
        Some((n, (x, y))) => format!("line {}:\n  {x}\n  {y}", n + 1),
        None => format!("{} lines against {}", a.lines().count(), b.lines().count()),
    }
}

/// Every file `state` serves is the file of `built` (a build's files), byte
/// for byte, and it serves every file built (static files are linked by
/// their plain URL in serve and by their content-hashed copy in a build;
/// the build alone has those copies and its marker file).
fn assert_serves_the_build(state: &State, built: &BTreeMap<String, Vec<u8>>) {
    let served = state.files();
    assert!(served.len() > 80, "{}", served.len());
    // a build has each static file only as its content-hashed copy
    let by_plain: BTreeMap<String, &Vec<u8>> = built
        .iter()
        .filter(|(p, _)| p.starts_with("static/immutable/"))
        .map(|(p, b)| (hashed_static().replace_all(p, "static/$1").into_owned(), b))
        .collect();
    for (path, entry) in served {
        let b = built
            .get(path)
            .or_else(|| by_plain.get(path).copied())
            .unwrap_or_else(|| panic!("{path} is served but not built"));
        assert!(
            plain(b) == entry.bytes,
            "{path} differs between serve and build"
        );
    }
    let only_built: Vec<&String> = built
        .keys()
        .filter(|p| !served.contains_key(*p))
        .filter(|p| *p != site::MARKER && !p.starts_with("static/immutable/"))
        .collect();
    assert!(only_built.is_empty(), "built, not served: {only_built:?}");
}

/// One engine, two sinks: what `serve` holds in memory is what `build`
/// writes to disk, byte for byte, for every file of `content/`.
#[test]
fn serve_and_build_render_the_same_bytes() {
    let input = input(&crate::support::content());
    let state = state(&input, Walk::Skip);
    let tmp = tempfile::tempdir().unwrap();
    let built = build(&input, &Walk::Skip, &tmp.path().join("public"));
    assert_serves_the_build(&state, &built);
}

/// Issue 36: the quick preview of a README edit renders the KEP's page as a
/// build of the edited files does, byte for byte: the README, and all the
/// page reads from it (the analysis panel, the findings, the diagrams
/// script), not the README's HTML alone. The repository is a git one, so
/// the page has its history panel too.
#[test]
fn a_readme_preview_is_the_page_a_build_writes() {
    let (tmp, root) = content_copy();
    git_commit_all(&root);
    let input = input(&root);
    let mut state = state(&input, Walk::Uncached);
    let before = state.files()[PAGE].bytes.clone();
    let readme = format!("{KEP}/README.md");
    let text = std::fs::read_to_string(root.join(&readme)).unwrap();
    // A PRR answer taken away (the analysis panel), a heading the table of
    // contents no longer names (a toc-mismatch finding), and a diagram.
    let edited = text
        .replace(
            "No. Pods without `restartBudget` behave exactly as before.\n",
            "",
        )
        .replace("## Drawbacks\n", "## Downsides\n")
        .replace(
            "## Alternatives\n",
            "## Alternatives\n\n```mermaid\ngraph TD; A-->B\n```\n",
        );
    assert_eq!(edited.matches("Downsides").count(), 1);
    assert!(edited.contains("mermaid") && !edited.contains("behave exactly as before"));
    std::fs::write(root.join(&readme), &edited).unwrap();
    let changed = Changed {
        repo: BTreeSet::from([readme]),
        ..Changed::default()
    };
    assert_eq!(state.preview(&changed), [PAGE]);
    let previewed = state.files()[PAGE].bytes.clone();
    let text = String::from_utf8_lossy(&previewed);
    // what the old preview (the README's HTML patched into the page) missed
    for (what, shown) in [
        (
            "the finding",
            "heading `Downsides` is missing from the table of contents",
        ),
        ("the diagrams script", "diagrams.js"),
        ("the analysis", "PRR incomplete for the current stage"),
    ] {
        assert!(text.contains(shown), "the preview lacks {what}");
        assert!(
            !String::from_utf8_lossy(&before).contains(shown),
            "{what} was there before"
        );
    }
    let built = build(&input, &Walk::Uncached, &tmp.path().join("public"));
    let page = plain(&built[PAGE]);
    assert!(
        previewed == page,
        "the preview differs from the build at {}",
        first_difference(&previewed, &page)
    );
    // The preview left the project as it was: the full update that follows
    // sees the edit, and then serves the whole build (the search index too).
    let outcome = state.apply(&changed);
    assert!(outcome.full_reload);
    assert!(
        outcome.files.iter().any(|f| f.starts_with("search/")),
        "{:?}",
        outcome.files
    );
    assert_serves_the_build(&state, &built);
}
