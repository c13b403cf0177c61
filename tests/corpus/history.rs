//! The history walk on the real corpus, checked against `git log -p`, and the on-disk cache.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::sync::OnceLock;

use git2::Repository;

use crate::git_fixture::{T0, commit, kep_yaml};
use kepsite::repo::history::{History, HistoryOptions, walk};

use crate::shared::corpus;

/// The cold walk of the corpus at HEAD, shared by the tests.
fn corpus_history() -> &'static History {
    static H: OnceLock<History> = OnceLock::new();
    H.get_or_init(|| walk(corpus(), "HEAD", &HistoryOptions::default()).expect("cold walk"))
}

fn clean(v: &str) -> Option<String> {
    let mut v = v.trim();
    if let Some(i) = v.find(" #") {
        v = v[..i].trim();
    }
    let v = v.trim_matches('"').trim_matches('\'').trim();
    (!v.is_empty() && !v.starts_with('#')).then(|| v.to_string())
}

type Values = (Option<String>, Option<String>, Option<String>);

fn flush_section(
    cur: &mut Values,
    plus: &mut BTreeMap<&'static str, Option<String>>,
    minus: &mut Vec<&'static str>,
) {
    for k in minus.drain(..) {
        plus.entry(k).or_insert(None);
    }
    for (k, v) in std::mem::take(plus) {
        match k {
            "status" => cur.0 = v,
            "stage" => cur.1 = v,
            _ => cur.2 = v,
        }
    }
}

fn record(commit: &str, cur: &Values, out: &mut Vec<(String, Values)>) {
    if !commit.is_empty() && out.last().map(|l| &l.1) != Some(cur) {
        out.push((commit.to_string(), cur.clone()));
    }
}

/// (commit, values) transitions of the files at `paths`, from `git log -p`.
fn git_transitions(repo: &Path, paths: &[String]) -> Vec<(String, Values)> {
    let out = Command::new("git")
        .current_dir(repo)
        .args([
            "log",
            "-p",
            "--first-parent",
            "--reverse",
            "--no-renames",
            "--format=COMMIT %H",
            "--",
        ])
        .args(paths)
        .output()
        .expect("git log");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let mut cur: Values = (None, None, None);
    let mut out: Vec<(String, Values)> = vec![];
    let mut commit = String::new();
    // Per file section: keys set by `+` lines, keys removed by `-` lines.
    let mut plus: BTreeMap<&'static str, Option<String>> = BTreeMap::new();
    let mut minus: Vec<&'static str> = vec![];
    let mut deleting = false;
    for line in text.lines() {
        if let Some(c) = line.strip_prefix("COMMIT ") {
            flush_section(&mut cur, &mut plus, &mut minus);
            record(&commit, &cur, &mut out);
            commit = c.to_string();
        } else if line.starts_with("diff --git ") {
            flush_section(&mut cur, &mut plus, &mut minus);
            deleting = false;
        } else if line == "--- /dev/null" {
            cur = (None, None, None);
        } else if line == "+++ /dev/null" {
            deleting = true;
        } else if !deleting && !line.starts_with("+++") && !line.starts_with("---") {
            for key in ["status", "stage", "latest-milestone"] {
                if let Some(v) = line
                    .strip_prefix('+')
                    .and_then(|l| l.strip_prefix(key))
                    .and_then(|l| l.strip_prefix(':'))
                {
                    plus.insert(key, clean(v));
                } else if line
                    .strip_prefix('-')
                    .and_then(|l| l.strip_prefix(key))
                    .is_some_and(|l| l.starts_with(':'))
                {
                    minus.push(key);
                }
            }
        }
    }
    flush_section(&mut cur, &mut plus, &mut minus);
    record(&commit, &cur, &mut out);
    out
}

fn assert_matches_git(number: u32, expected_path: &str) {
    let k = &corpus_history().keps[&number];
    assert!(
        k.paths.iter().any(|p| p == expected_path),
        "{number}: {:?}",
        k.paths
    );
    let want = git_transitions(corpus(), &k.paths);
    let got: Vec<(String, Values)> = k
        .changes
        .iter()
        .map(|c| {
            (
                c.commit.clone(),
                (
                    c.status.clone(),
                    c.stage.clone(),
                    c.latest_milestone.clone(),
                ),
            )
        })
        .collect();
    assert!(
        want.len() >= 2,
        "KEP {number}: too few transitions to be a useful check"
    );
    assert_eq!(got, want, "KEP {number} ({:?})", k.paths);
    assert_eq!(k.last.id, k.last.id.trim());
    assert!(
        k.first.time <= k.changes[0].time && k.changes.last().expect("changes").time <= k.last.time
    );
}

/// The walk follows the first parent: what `git log --first-parent -p`
/// shows. On side branches 177 went beta → stable → beta → stable (a
/// "Merge branch 'master' into …" commit and a clean-up); on master it went
/// beta → stable once. 4358 and 3104 likewise.
#[test]
fn corpus_history_is_the_first_parent_line() {
    assert_matches_git(177, "keps/sig-storage/177-volume-snapshot/kep.yaml");
    assert_matches_git(
        4358,
        "keps/sig-api-machinery/4358-custom-resource-field-selectors/kep.yaml",
    );
    assert_matches_git(3104, "keps/sig-cli/3104-introduce-kuberc/kep.yaml");
    let stages: Vec<Option<&str>> = corpus_history().keps[&177]
        .changes
        .iter()
        .map(|c| c.stage.as_deref())
        .collect();
    let stable_moves = stages
        .windows(2)
        .filter(|w| w[1] == Some("stable") && w[0] != Some("stable"))
        .count();
    assert_eq!(stable_moves, 1, "{stages:?}");
    // Every KEP's changes are in landing order.
    for (n, k) in &corpus_history().keps {
        assert!(
            k.changes.windows(2).all(|w| w[0].time <= w[1].time),
            "KEP {n}: change dates out of order"
        );
    }
}

/// A change is dated when it landed on master, not when it was written:
/// KEP-2033's side commit 4dd9fef3 (2026-02-18) reached master with merge
/// b9fabd86 (2026-04-07 in the committer's zone, 2026-04-06 UTC; dates are UTC).
#[test]
fn corpus_changes_are_dated_when_they_landed() {
    assert_matches_git(
        2033,
        "keps/sig-node/2033-kubelet-in-userns-aka-rootless/kep.yaml",
    );
    let k = &corpus_history().keps[&2033];
    assert!(
        k.changes.iter().all(|c| !c.commit.starts_with("4dd9fef3")),
        "a side-branch commit is not a change"
    );
    let landed = k
        .changes
        .iter()
        .find(|c| c.commit.starts_with("b9fabd86"))
        .expect("the merge that brought the side commit's change");
    assert_eq!(landed.date, "2026-04-06");
}

#[test]
fn corpus_node_swap_matches_git() {
    assert_matches_git(2400, "keps/sig-node/2400-node-swap/kep.yaml");
}

#[test]
fn corpus_paginated_lists_matches_git() {
    assert_matches_git(365, "keps/sig-api-machinery/365-paginated-lists/kep.yaml");
}

#[test]
fn corpus_moved_kep_matches_git() {
    // Moved from sig-network to sig-node; its kep.yaml says `kep-number: 1792`.
    // On a side branch it first sat in sig-network; on master it only ever
    // lived in sig-node, so that is its one path.
    assert_matches_git(
        1797,
        "keps/sig-node/1797-configure-fqdn-as-hostname-for-pods/kep.yaml",
    );
    let k = &corpus_history().keps[&1797];
    assert!(
        k.paths.iter().all(|p| p.starts_with("keps/sig-node/")),
        "{:?}",
        k.paths
    );
    assert!(
        !corpus_history()
            .keps
            .get(&1792)
            .is_some_and(|k| k.paths.iter().any(|p| p.contains("1797-")))
    );
}

#[test]
fn corpus_migrated_legacy_kep_keeps_its_past() {
    // keps/sig-release/20200122-...md had no kep-number; it became 1498-... .
    let k = &corpus_history().keps[&1498];
    assert_eq!(
        k.paths[0],
        "keps/sig-release/20200122-kubernetes-yearly-support-period.md"
    );
    // Written on a branch in January, it reached master when #1497 merged.
    assert_eq!(k.first.date, "2020-04-29");
    assert_eq!(
        k.changes.last().expect("changes").stage.as_deref(),
        Some("stable")
    );
}

#[test]
fn corpus_cache_round_trip_and_incremental() {
    let cold = corpus_history();
    let cache = tempfile::tempdir().expect("tempdir");
    let opts = HistoryOptions {
        cache_dir: Some(cache.path().to_path_buf()),
        progress: false,
    };
    let file = cache.path().join("history-v4.json");

    // Cache at HEAD~40, then continue to HEAD: equals the cold walk.
    let old = walk(corpus(), "HEAD~40", &opts).expect("walk HEAD~40");
    assert_ne!(old.head, cold.head);
    assert!(file.exists());
    let inc = walk(corpus(), "HEAD", &opts).expect("incremental walk");
    assert_eq!(&inc, cold);

    // Second walk from the cache at HEAD.
    let warm = walk(corpus(), "HEAD", &opts).expect("warm walk");
    assert_eq!(&warm, cold);

    // A corrupt cache is ignored and rewritten.
    std::fs::write(&file, b"{\"version\":1,\"head\":\"zz").expect("corrupt");
    assert_eq!(
        &walk(corpus(), "HEAD", &opts).expect("walk over corrupt cache"),
        cold
    );
    assert!(
        serde_json::from_slice::<serde_json::Value>(&std::fs::read(&file).expect("read")).is_ok()
    );

    // A cache from an unrelated history is ignored.
    let other = tempfile::tempdir().expect("tempdir");
    let repo = Repository::init(other.path()).expect("init");
    let y = kep_yaml("1", "provisional", "alpha", "v1.0");
    commit(&repo, T0, "x", &[("keps/sig-x/1-a/kep.yaml", Some(&y))]);
    let unrelated = walk(other.path(), "HEAD", &opts).expect("unrelated walk");
    assert_eq!(unrelated.keps.len(), 1);
    assert_eq!(
        &walk(corpus(), "HEAD", &opts).expect("walk over unrelated cache"),
        cold
    );
}
