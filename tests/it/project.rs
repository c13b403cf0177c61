//! One `Project` for every subcommand: `check`, `query`, `export` and
//! `report` read `--repo`, `--rev`, `--current` and the git history the same
//! way, so they agree with each other.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use git2::Repository;
use serde_json::Value;

use crate::git_fixture::commit_all;
use crate::support::{Run, content_copy, kepsite, report_rows};

/// 2026-01-10 12:00 UTC: `content/` committed whole.
const JAN: i64 = 1_768_046_400;
/// 2026-02-20 12:00 UTC: KEP-4321 goes stable.
const FEB: i64 = 1_771_588_800;

/// `content/` in a git repository of two commits on different days; the
/// second (HEAD) moves KEP-4321 from beta to stable.
fn two_day_repo() -> (tempfile::TempDir, PathBuf) {
    let (tmp, root) = content_copy();
    let repo = Repository::init(&root).unwrap();
    commit_all(&repo, JAN, "snapshot");
    let yaml = root.join("keps/sig-node/4321-kubelet-image-pull-progress/kep.yaml");
    let text = std::fs::read_to_string(&yaml).unwrap();
    assert!(text.contains("stage: beta"));
    std::fs::write(&yaml, text.replace("stage: beta", "stage: stable")).unwrap();
    commit_all(&repo, FEB, "4321 to stable");
    (tmp, root)
}

/// `kepsite CMD --repo ROOT [--rev REV] ARGS...`, which must not fail.
fn run(cmd: &str, root: &Path, rev: Option<&str>, args: &[&str]) -> Run {
    let mut all = vec![cmd, "--repo", root.to_str().unwrap()];
    if let Some(rev) = rev {
        all.extend(["--rev", rev]);
    }
    all.extend(args);
    let r = kepsite(&all);
    assert!(r.code == 0 || r.code == 1, "{all:?}: {}", r.stderr);
    r
}

/// KEP number → the date of the last commit touching it, in an export.
fn export_last_changes(export: &str) -> BTreeMap<u64, String> {
    let all: Vec<Value> = serde_json::from_str(export).unwrap();
    all.iter()
        .filter_map(|k| {
            let date = k["history"]["last"]["date"].as_str()?;
            Some((k["number"].as_u64()?, date.to_string()))
        })
        .collect()
}

/// `export --history` and `report` read the history from the same Project:
/// each KEP the report lists was last changed on the day the export says, at
/// HEAD and at an earlier `--rev` alike.
#[test]
fn export_history_is_the_reports() {
    let (tmp, root) = two_day_repo();
    let cache = tmp.path().join("cache");
    let cache_args = ["--cache-dir", cache.to_str().unwrap()];
    for (rev, day_4321) in [(None, "2026-02-20"), (Some("HEAD~1"), "2026-01-10")] {
        let report_args = [&["--release", "v1.36", "--format", "json"][..], &cache_args].concat();
        let report: Value =
            serde_json::from_str(&run("report", &root, rev, &report_args).stdout).unwrap();
        let export_args = [&["--history"][..], &cache_args].concat();
        let export = export_last_changes(&run("export", &root, rev, &export_args).stdout);
        let rows = report_rows(&report);
        assert!(rows.len() > 3, "{rev:?}: {report}");
        for row in rows {
            let n = row["number"].as_u64().unwrap();
            assert_eq!(
                row["last_change"].as_str(),
                export.get(&n).map(String::as_str),
                "{rev:?}: KEP-{n}"
            );
        }
        assert_eq!(export[&4321], day_4321, "{rev:?}");
        assert_eq!(export[&5140], "2026-01-10", "{rev:?}");
    }
}

/// `--current` changes what `check`, `query` and `export` print at a git
/// revision too (with `--rev`, a changed-only check, and the history), as
/// it does for `report`.
#[test]
fn current_changes_every_subcommand_at_a_revision() {
    let (tmp, root) = two_day_repo();
    let cache = tmp.path().join("cache");
    let cache = cache.to_str().unwrap();
    let cases: [(&str, &[&str]); 5] = [
        ("check", &["--format", "md"]),
        ("check", &["--format", "md", "--changed-since", "HEAD~1"]),
        ("query", &["--format", "json"]),
        (
            "query",
            &[
                "--format",
                "json",
                "--release",
                "v1.36",
                "--cache-dir",
                cache,
            ],
        ),
        ("export", &["--history", "--cache-dir", cache]),
    ];
    for (cmd, args) in cases {
        let rev = (!args.contains(&"--changed-since")).then_some("HEAD");
        let plain = run(cmd, &root, rev, args);
        let current = run(cmd, &root, rev, &[args, &["--current", "v1.30"]].concat());
        assert_eq!(plain.code, current.code, "{cmd} {args:?}");
        assert_ne!(
            plain.stdout, current.stdout,
            "{cmd} {args:?}: --current v1.30 changed nothing"
        );
    }
    let md = run(
        "check",
        &root,
        None,
        &[
            "--format",
            "md",
            "--changed-since",
            "HEAD~1",
            "--current",
            "v1.30",
        ],
    );
    assert!(md.stdout.contains("- v1.30: "), "{}", md.stdout);
    assert!(!md.stdout.contains("- v1.36: "), "{}", md.stdout);
}
