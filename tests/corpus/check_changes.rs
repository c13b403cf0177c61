//! `check --changed-in` on a range of the real history.

use serde_json::Value;

use crate::shared::corpus;
use crate::support::*;

/// Two commits of the corpus's first-parent history, picked by hash:
/// 7b71b8d (the merge of #6180) and 4c6086a (the merge of #6202). Between
/// them three merges touched three KEPs (READMEs, a kep.yaml, a PRR file)
/// and OWNERS_ALIASES.
const CORPUS_FROM: &str = "7b71b8da254402d83a7d6cbf9e65689905559ae1";

const CORPUS_TO: &str = "4c6086aefb1aadb74514ea378e21dba62d0c03ec";

/// In model order (by number).
const CORPUS_TOUCHED: &[&str] = &[
    "keps/sig-scheduling/4671-gang-scheduling",
    "keps/sig-api-machinery/5866-server-side-sharded-list-and-watch",
    "keps/sig-api-machinery/6164-internal-type-elimination",
];

fn in_touched(path: &str) -> bool {
    CORPUS_TOUCHED
        .iter()
        .any(|d| path.starts_with(&format!("{d}/")))
        || ["4671", "5866", "6164"].iter().any(|n| {
            path.starts_with("keps/prod-readiness/") && path.ends_with(&format!("/{n}.yaml"))
        })
}

#[test]
fn real_history_reports_only_the_keps_a_range_touched() {
    let repo = corpus();
    let range = format!("{CORPUS_FROM}..{CORPUS_TO}");
    let run = check_repo(repo, &["--changed-in", &range, "--format", "json"]);
    assert!(run.code == 0 || run.code == 1, "{}", run.stderr);
    let v: Value = serde_json::from_str(&run.stdout).unwrap();
    let keps: Vec<&str> = v["changes"]["keps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k.as_str().unwrap())
        .collect();
    assert_eq!(keps, CORPUS_TOUCHED);
    let changed = rules_and_paths(&run.stdout);
    assert!(!changed.is_empty(), "the touched KEPs have findings");
    // Exactly the full check's findings in those KEPs, nothing else.
    let full = check_repo(repo, &["--rev", CORPUS_TO, "--format", "json"]);
    let all = rules_and_paths(&full.stdout);
    let expected: Vec<(String, String)> =
        all.iter().filter(|(_, p)| in_touched(p)).cloned().collect();
    assert!(all.len() > expected.len() * 10, "the corpus has many more");
    assert_eq!(changed, expected);
}
