//! `kepsite report` on the real corpus: v1.35 counts and `--since` against git log.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::shared::corpus;
use crate::support::{git, kepsite, report_rows};

fn corpus_json(args: &[&str]) -> Value {
    let repo = corpus().to_str().unwrap();
    let mut all = vec!["report", "--repo", repo, "--no-history", "--format", "json"];
    all.extend_from_slice(args);
    let run = kepsite(&all);
    assert_eq!(run.code, 0, "{}", run.stderr);
    serde_json::from_str(&run.stdout).unwrap()
}

fn is_v135(s: &str) -> bool {
    let s = s.trim().trim_start_matches('v');
    s == "1.35" || s.starts_with("1.35.")
}

#[test]
fn corpus_v135_counts_match_the_milestones() {
    let repo = corpus().to_str().unwrap();
    let export = kepsite(&["export", "--repo", repo]);
    assert_eq!(export.code, 0, "{}", export.stderr);
    let keps: Vec<Value> = serde_json::from_str(&export.stdout).unwrap();
    let expected: BTreeSet<String> = keps
        .iter()
        .filter(|k| {
            k["latestMilestone"].as_str().is_some_and(is_v135)
                || k["milestone"]
                    .as_object()
                    .is_some_and(|m| m.values().any(|v| v.as_str().is_some_and(is_v135)))
        })
        .map(|k| k["path"].as_str().unwrap().to_string())
        .collect();
    let r = corpus_json(&["--release", "v1.35"]);
    let got: BTreeSet<String> = report_rows(&r)
        .iter()
        .map(|k| k["path"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(got, expected);
    let s = &r["summary"];
    assert_eq!(s["total"].as_u64().unwrap() as usize, expected.len());
    let sum = |key: &str| -> u64 {
        s[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["total"].as_u64().unwrap())
            .sum()
    };
    assert_eq!(sum("by_stage"), s["total"].as_u64().unwrap());
    assert_eq!(sum("by_sig"), s["total"].as_u64().unwrap());
    // v1.35 is out at the corpus HEAD (2026-07-24): what shipped and what
    // slipped, nothing at risk.
    assert_eq!(r["phase"], "out");
    assert_eq!(s["at_risk"], 0);
    let outcomes = ["shipped", "deprecated", "slipped", "latest_only"];
    assert_eq!(
        outcomes.iter().map(|k| s[k].as_u64().unwrap()).sum::<u64>(),
        s["total"].as_u64().unwrap()
    );
}

#[test]
fn corpus_since_matches_git_log() {
    let repo = corpus();
    // A commit that moved a kep.yaml's latest-milestone to v1.35 from a release
    // that was not v1.35 anywhere in the file before.
    let log = git(
        repo,
        &[
            "log",
            "--format=%H",
            "-G",
            "latest-milestone: \"?v1\\.35",
            "--",
            "keps",
        ],
    );
    let (commit, path) =
        log.lines()
            .find_map(|c| {
                let files = git(repo, &["show", "--format=", "--name-only", c]);
                let yaml = files
                    .lines()
                    .find(|f| f.ends_with("/kep.yaml"))?
                    .to_string();
                let before = std::process::Command::new("git")
                    .current_dir(repo)
                    .args(["show", &format!("{c}^:{yaml}")])
                    .output()
                    .ok()?;
                let after = git(repo, &["show", &format!("{c}:{yaml}")]);
                let before = String::from_utf8_lossy(&before.stdout);
                (before.lines().count() > 0 && !before.contains("1.35") && after.contains("1.35"))
                    .then(|| {
                        (
                            c.to_string(),
                            yaml.trim_end_matches("/kep.yaml").to_string(),
                        )
                    })
            })
            .expect("a commit moving a KEP into v1.35");
    let r = corpus_json(&[
        "--release",
        "v1.35",
        "--rev",
        &commit,
        "--since",
        &format!("{commit}^"),
    ]);
    let added = r["since"]["added"].as_array().unwrap();
    let entry = added
        .iter()
        .find(|e| e["url"].as_str().unwrap().ends_with(&path))
        .unwrap_or_else(|| panic!("{path} not added at {commit}: {added:?}"));
    assert_eq!(entry["commits"][0]["id"], commit.as_str());
    // git log agrees the commit touched the KEP in that range.
    let touched = git(
        repo,
        &[
            "log",
            "--format=%H",
            &format!("{commit}^..{commit}"),
            "--",
            &path,
        ],
    );
    assert_eq!(touched.trim(), commit);
    assert_eq!(r["since"]["commits"], 1);
}
