//! `serve`'s in-memory site, in process: what [`State`] holds is what
//! `build` writes.

use std::collections::BTreeMap;
use std::path::Path;

use kepsite::kep::Readmes;
use kepsite::project::{Input, Project, Walk};
use kepsite::serve::state::{Config, State};
use kepsite::site::{self, SiteOptions};

use crate::support::files;

fn input(root: &Path) -> Input {
    Input {
        root: root.to_path_buf(),
        rev: None,
        sigs: None,
        current: None,
        readmes: Readmes::Pages,
        kubernetes: None,
    }
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
    let data = Project::load(input, walk).unwrap();
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
