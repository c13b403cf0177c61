//! The issue comments (`report --format comments-json --phase …`) on the
//! real corpus: v1.37 at its Enhancements Freeze deadline commit (the last
//! first-parent commit before 2026-06-17 12:00 UTC, chosen by git as in
//! freeze.rs) and at HEAD.

use std::process::Command;

use serde_json::Value;

use crate::shared::{commit_before, corpus};
use crate::support::*;

/// The comment for KEP `n` at `phase`, at `rev` (HEAD when none).
fn comment(rev: Option<&str>, phase: &str, n: u64) -> Value {
    let mut args = vec!["report", "--repo", corpus().to_str().unwrap()];
    if let Some(r) = rev {
        args.extend(["--rev", r]);
    }
    args.extend([
        "--release",
        "v1.37",
        "--no-history",
        "--format",
        "comments-json",
        "--phase",
        phase,
    ]);
    let run = kepsite(&args);
    assert_eq!(run.code, 0, "{args:?}: {}", run.stderr);
    let all: Vec<Value> = serde_json::from_str(&run.stdout).unwrap();
    all.into_iter()
        .find(|c| c["kep"] == n)
        .unwrap_or_else(|| panic!("no comment for KEP-{n}"))
}

fn body(c: &Value) -> &str {
    c["body"].as_str().unwrap()
}

/// The task-list lines of a body: (ticked, text).
fn tasks(body: &str) -> Vec<(bool, &str)> {
    body.lines()
        .filter_map(|l| {
            l.strip_prefix("- [x] ")
                .map(|t| (true, t))
                .or_else(|| l.strip_prefix("- [ ] ").map(|t| (false, t)))
        })
        .collect()
}

#[test]
fn at_the_enhancements_freeze_2837_is_ticked_throughout_and_labelled_tracked() {
    let ef = commit_before("2026-06-17T12:00:00Z");
    let c = comment(Some(&ef), "enhancements-party", 2837);
    let b = body(&c);
    let t = tasks(b);
    assert_eq!(t.len(), 5, "the five required items: {b}");
    assert!(t.iter().all(|(ticked, _)| *ticked), "{b}");
    assert!(b.lines().any(|l| l == "/label tracked/yes"), "{b}");
    assert_eq!(c["labels"], serde_json::json!(["tracked/yes"]));
    assert_eq!(c["board_status"], "Tracked for enhancements freeze");
    assert!(
        b.contains("2026-06-17 12:00 UTC") && b.contains("AoE"),
        "{b}"
    );
    // Its authors are addressed, from kep.yaml.
    assert!(b.starts_with("Hello @"), "{b}");
}

#[test]
fn at_the_enhancements_freeze_4939_misses_the_test_plan_checkbox_at_its_line() {
    let ef = commit_before("2026-06-17T12:00:00Z");
    let c = comment(Some(&ef), "enhancements", 4939);
    let b = body(&c);
    let unticked: Vec<&str> = tasks(b)
        .into_iter()
        .filter(|(ticked, _)| !ticked)
        .map(|(_, t)| t)
        .collect();
    assert_eq!(unticked.len(), 1, "{b}");
    assert!(unticked[0].starts_with("Test Plan"), "{b}");
    // The line the update list names holds the unchecked box there.
    let readme = "keps/sig-node/4939-grpc-probe-with-tls/README.md";
    let update = b
        .lines()
        .find(|l| l.starts_with(&format!("- {readme}, line ")))
        .unwrap_or_else(|| panic!("no update naming the README's line: {b}"));
    let line: usize = update[readme.len() + 9..]
        .split(':')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let out = Command::new("git")
        .arg("-C")
        .arg(corpus())
        .args(["show", &format!("{ef}:{readme}")])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let at = text.lines().nth(line - 1).unwrap();
    assert!(at.starts_with("[ ]") || at.starts_with("- [ ]"), "{at}");
    assert!(at.contains("understand the owners"), "{at}");
    assert!(c["labels"].as_array().unwrap().is_empty());
}

#[test]
fn at_head_5683_met_the_checklist_late_and_is_pointed_to_the_exception_process() {
    let c = comment(None, "enhancements-party", 5683);
    let b = body(&c);
    assert_eq!(c["case"], "exception");
    assert_eq!(c["board_status"], "Exception required");
    assert!(b.contains("only after its deadline"), "{b}");
    assert!(b.contains("releases/EXCEPTIONS.md"), "{b}");
    assert!(!b.contains("/label tracked/yes"), "{b}");
}
