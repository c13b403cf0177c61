//! `kepsite query` filters and formats, and `kepsite export`.

use serde_json::Value;

use crate::support::*;

fn numbers(args: &[&str]) -> Vec<u64> {
    let mut all = vec!["query", "--repo", "content", "--format", "json"];
    all.extend_from_slice(args);
    let run = kepsite(&all);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let v: Value = serde_json::from_str(&run.stdout).unwrap();
    v.as_array()
        .unwrap()
        .iter()
        .filter_map(|k| k["number"].as_u64())
        .collect()
}

#[test]
fn kepctl_filters() {
    assert_eq!(numbers(&["--sig", "sig-auth"]), vec![4102]);
    assert!(numbers(&["--sig", "sig-(node|auth)"]).contains(&1480));
    assert_eq!(numbers(&["--status", "withdrawn"]), vec![3880]);
    let none = numbers(&["--stage", "none"]);
    assert!(none.contains(&5833) && none.contains(&5702), "{none:?}");
    assert!(!none.contains(&1480));
    assert_eq!(numbers(&["--stage", "removed"]), vec![2288]);
    assert_eq!(
        numbers(&["--participating-sig", "sig-apps", "--sig", "sig-node"]),
        numbers(&["--sig", "sig-node", "--participating-sig", "sig-apps"])
    );
    assert!(
        numbers(&["--author", "greta-l"]).contains(&1480),
        "handles match with or without @"
    );
}

#[test]
fn filters_kepctl_lacks() {
    let prr = numbers(&["--prr-approver", "@not-an-approver"]);
    assert_eq!(prr, vec![4102]);
    let v136 = numbers(&["--release", "v1.36"]);
    assert!(v136.contains(&4321) && v136.contains(&2288));
    assert!(!v136.contains(&1702));
    let gate = numbers(&["--feature-gate", "PodRestartBudget"]);
    assert_eq!(gate, vec![1480]);
    let text = numbers(&["--text", "restart budget"]);
    assert!(text.contains(&1480));
    let bad = kepsite(&["query", "--release", "next"]);
    assert_eq!(bad.code, 2);
}

#[test]
fn formats() {
    let table = kepsite(&["query", "--repo", "content", "--sig", "sig-node"]);
    assert!(table.stdout.starts_with("NUMBER  TITLE"));
    assert!(table.stdout.contains("1480") && table.stdout.trim_end().ends_with("KEPs"));
    let csv = kepsite(&["query", "--repo", "content", "--format", "csv"]);
    let mut rows = csv.stdout.lines();
    assert_eq!(rows.next().unwrap().split(',').next(), Some("number"));
    let yaml = kepsite(&[
        "query", "--repo", "content", "--format", "yaml", "--sig", "sig-auth",
    ]);
    assert!(yaml.stdout.contains("title:") && yaml.stdout.contains("4102"));
}

#[test]
fn export_is_a_stable_superset_of_kepctl() {
    let a = kepsite(&["export", "--repo", "content"]);
    let b = kepsite(&["export", "--repo", "content"]);
    assert_eq!(a.stdout, b.stdout, "byte-identical");
    let v: Value = serde_json::from_str(&a.stdout).unwrap();
    let keps = v.as_array().unwrap();
    assert!(keps.len() >= 27);
    let first = keps[0].as_object().unwrap();
    for key in [
        "title",
        "kep-number",
        "authors",
        "owningSig",
        "participatingSigs",
        "reviewers",
        "approvers",
        "prrApprovers",
        "editor",
        "creationDate",
        "lastUpdated",
        "status",
        "seeAlso",
        "replaces",
        "supersededBy",
        "stage",
        "latestMilestone",
        "milestone",
        "featureGates",
        "disableSupported",
        "metrics",
        "path",
        "prr",
        "findings",
    ] {
        assert!(first.contains_key(key), "export lacks {key}");
    }
    let k1480 = keps.iter().find(|k| k["number"] == 1480).unwrap();
    assert_eq!(k1480["prr"]["approvals"]["beta"]["valid"], true);
    assert_eq!(k1480["path"], "keps/sig-node/1480-pod-restart-budget");
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("keps.json");
    let run = kepsite(&[
        "export",
        "--repo",
        "content",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(run.code, 0);
    assert_eq!(std::fs::read_to_string(out).unwrap(), a.stdout);
}

/// The table cuts a title to its column and marks the cut with `…`; a title
/// that fits is whole.
#[test]
fn table_marks_a_cut_title() {
    let run = kepsite(&["query", "--repo", "content", "--sig", "sig-storage"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let long = "Disable implicit recursive ownership change for projected volumes";
    assert!(long.chars().count() > 60);
    let line = run
        .stdout
        .lines()
        .find(|l| l.contains("3390"))
        .unwrap_or_else(|| panic!("no row for 3390:\n{}", run.stdout));
    assert!(!line.contains(long), "{line}");
    let cut: String = long.chars().take(59).collect();
    assert!(line.contains(&format!("{cut}…")), "{line}");
    let short = run.stdout.lines().find(|l| l.contains("3655")).unwrap();
    assert!(!short.contains('…'), "{short}");
}
