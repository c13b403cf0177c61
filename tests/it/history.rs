//! History walk: a tiny repository built with git2, the real corpus checked
//! against `git log -p`, and the on-disk cache.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::sync::OnceLock;

use git2::{Repository, Signature, Time};
use kepsite::analysis::history::{History, HistoryOptions, walk};

use crate::support::corpus;

// ---------------------------------------------------------------- tiny repo

/// Commits the given files (path → content, `None` deletes) on top of HEAD.
fn commit(repo: &Repository, time: i64, msg: &str, files: &[(&str, Option<&str>)]) -> String {
    let root = repo.workdir().expect("workdir").to_path_buf();
    let mut index = repo.index().expect("index");
    for (path, content) in files {
        let full = root.join(path);
        match content {
            Some(c) => {
                std::fs::create_dir_all(full.parent().expect("parent")).expect("mkdir");
                std::fs::write(&full, c).expect("write");
                index.add_path(Path::new(path)).expect("add");
            }
            None => {
                std::fs::remove_file(&full).expect("rm");
                index.remove_path(Path::new(path)).expect("remove");
            }
        }
    }
    index.write().expect("index write");
    let tree = repo
        .find_tree(index.write_tree().expect("write tree"))
        .expect("tree");
    let sig = Signature::new("T", "t@example.com", &Time::new(time, 0)).expect("sig");
    let parents: Vec<_> = repo
        .head()
        .ok()
        .and_then(|h| h.peel_to_commit().ok())
        .into_iter()
        .collect();
    let parents: Vec<_> = parents.iter().collect();
    repo.commit(Some("HEAD"), &sig, &sig, msg, &tree, &parents)
        .expect("commit")
        .to_string()
}

fn kep_yaml(number: &str, status: &str, stage: &str, milestone: &str) -> String {
    format!(
        "title: Foo\nkep-number: {number}\nauthors:\n  - \"@a\"\nstatus: {status}\n\
         stage: {stage} # graduating\nlatest-milestone: \"{milestone}\"\nmilestone:\n  alpha: \"v1.20\"\n"
    )
}

const DAY: i64 = 86_400;
const T0: i64 = 1_600_000_000; // 2020-09-13

#[test]
fn tiny_repository_stage_history() {
    let dir = tempfile::tempdir().expect("tempdir");
    let repo = Repository::init(dir.path()).expect("init");
    let old = "keps/sig-node/1234-foo";
    let new = "keps/sig-apps/1234-foo-renamed";
    let y1 = kep_yaml("1234", "implementable", "alpha", "v1.20");
    let y2 = kep_yaml("1234", "implementable", "beta", "v1.20");
    let y3 = kep_yaml("1234", "implementable", "beta", "v1.21");
    let c1 = commit(
        &repo,
        T0,
        "Create KEP 1234\n\nbody",
        &[
            (&format!("{old}/kep.yaml"), Some(&y1)),
            (&format!("{old}/README.md"), Some("# Foo\n")),
            (
                "keps/NNNN-kep-template/kep.yaml",
                Some(&kep_yaml("NNNN", "provisional", "alpha", "v1.1")),
            ),
            (
                "keps/prod-readiness/sig-node/1234.yaml",
                Some("kep-number: 1234\n"),
            ),
            (
                "keps/sig-api-machinery/20190101-legacy.md",
                Some("---\nkep-number: 77\nstatus: implemented\n---\n# L\n"),
            ),
            (
                "keps/sig-api-machinery/20180101-nonumber.md",
                Some("---\nstatus: provisional\n---\n"),
            ),
        ],
    );
    let c2 = commit(
        &repo,
        T0 + DAY,
        "Beta",
        &[(&format!("{old}/kep.yaml"), Some(&y2))],
    );
    let c3 = commit(
        &repo,
        T0 + 2 * DAY,
        "Move to sig-apps",
        &[
            (&format!("{old}/kep.yaml"), None),
            (&format!("{old}/README.md"), None),
            (&format!("{new}/kep.yaml"), Some(&y2)),
            (&format!("{new}/README.md"), Some("# Foo\n")),
        ],
    );
    let c4 = commit(
        &repo,
        T0 + 3 * DAY,
        "Bump milestone",
        &[(&format!("{new}/kep.yaml"), Some(&y3))],
    );
    let c5 = commit(
        &repo,
        T0 + 4 * DAY,
        "Edit README",
        &[(&format!("{new}/README.md"), Some("# Foo\nmore\n"))],
    );
    let _c6 = commit(
        &repo,
        T0 + 5 * DAY,
        "Unrelated",
        &[
            ("OWNERS", Some("approvers: []\n")),
            (
                "keps/prod-readiness/sig-node/1234.yaml",
                Some("kep-number: 1234\nalpha:\n"),
            ),
        ],
    );

    let h = walk(dir.path(), "HEAD", &HistoryOptions::default()).expect("walk");
    assert_eq!(h.keps.keys().copied().collect::<Vec<_>>(), vec![77, 1234]);
    let k = &h.keps[&1234];
    assert_eq!(k.number, 1234);
    assert_eq!(
        k.paths,
        vec![format!("{old}/kep.yaml"), format!("{new}/kep.yaml")]
    );
    let got: Vec<_> = k
        .changes
        .iter()
        .map(|c| {
            (
                c.commit.as_str(),
                c.path.as_str(),
                c.date.as_str(),
                c.values(),
            )
        })
        .collect();
    let (oy, ny) = (format!("{old}/kep.yaml"), format!("{new}/kep.yaml"));
    let v = |s, st, m| (Some(s), Some(st), Some(m));
    assert_eq!(
        got,
        vec![
            (
                c1.as_str(),
                oy.as_str(),
                "2020-09-13",
                v("implementable", "alpha", "v1.20")
            ),
            (
                c2.as_str(),
                oy.as_str(),
                "2020-09-14",
                v("implementable", "beta", "v1.20")
            ),
            (
                c4.as_str(),
                ny.as_str(),
                "2020-09-16",
                v("implementable", "beta", "v1.21")
            ),
        ]
    );
    assert_eq!(k.changes[0].time, T0);
    assert_eq!(
        (k.first.id.as_str(), k.first.summary.as_str()),
        (c1.as_str(), "Create KEP 1234")
    );
    assert_eq!(
        (k.last.id.as_str(), k.last.summary.as_str(), k.last.time),
        (c5.as_str(), "Edit README", T0 + 4 * DAY)
    );
    assert_eq!(k.days_since_last_change(T0 + 14 * DAY + 5), 10);
    assert!(k.is_stale(T0 + 14 * DAY, 10) && !k.is_stale(T0 + 14 * DAY, 11));
    assert_ne!(c3, c4);

    let legacy = &h.keps[&77];
    assert_eq!(
        legacy.paths,
        vec!["keps/sig-api-machinery/20190101-legacy.md"]
    );
    assert_eq!(
        legacy.changes[0].values(),
        (Some("implemented"), None, None)
    );
    assert_eq!(legacy.last.id, c1);

    // Walking to an older revision sees only its past.
    let h2 = walk(dir.path(), &c2, &HistoryOptions::default()).expect("walk c2");
    assert_eq!(h2.head, c2);
    assert_eq!(h2.keps[&1234].changes.len(), 2);
    assert_eq!(h2.keps[&1234].last.id, c2);
}

#[test]
fn errors_are_reported_not_panics() {
    let dir = tempfile::tempdir().expect("tempdir");
    let err = walk(dir.path(), "HEAD", &HistoryOptions::default()).expect_err("not a repo");
    assert!(
        format!("{err:#}").contains("opening git repository"),
        "{err:#}"
    );
    let repo = Repository::init(dir.path()).expect("init");
    // An empty repository has no HEAD commit.
    assert!(walk(dir.path(), "HEAD", &HistoryOptions::default()).is_err());
    commit(&repo, T0, "init", &[("README.md", Some("x"))]);
    let err = walk(dir.path(), "no-such-branch", &HistoryOptions::default()).expect_err("bad rev");
    assert!(format!("{err:#}").contains("no-such-branch"), "{err:#}");
    // A repository without keps/ has no history, and that is not an error.
    let h = walk(dir.path(), "HEAD", &HistoryOptions::default()).expect("walk");
    assert!(h.keps.is_empty());
}

// ------------------------------------------------------------------- corpus

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
    let file = cache.path().join("history-v2.json");

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
