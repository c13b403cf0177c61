//! Issue 3 on content/ and the corpus: PRR completeness per stage, stage
//! tracking and readiness, the new findings and query filters.

use serde_json::Value;

use kepsite::analysis::{analyze, tracking};
use kepsite::model;

use crate::support::*;

fn export() -> Vec<Value> {
    let run = kepsite(&["export", "--repo", "content"]);
    serde_json::from_str::<Value>(&run.stdout)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

fn kep(all: &[Value], n: u64) -> Value {
    all.iter().find(|k| k["number"] == n).unwrap().clone()
}

#[test]
fn prr_completeness_and_readiness_in_the_export() {
    let all = export();
    // 1480 is fully answered and approved through stable.
    let full = kep(&all, 1480);
    assert_eq!(full["analysis"]["prrComplete"]["stable"], true);
    assert_eq!(
        full["analysis"]["assessment"]["prr"]["stable"]["percent"],
        100
    );
    // 4470 targets beta in v1.36 without a beta PRR approval: At risk, with the reason.
    let risky = kep(&all, 4470);
    let r = &risky["analysis"]["readiness"];
    assert_eq!(r["release"], "v1.36");
    assert_eq!(r["stage"], "beta");
    assert_eq!(r["ready"], false);
    let failing: Vec<&str> = r["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["ok"] == false)
        .map(|i| i["id"].as_str().unwrap())
        .collect();
    assert!(failing.contains(&"prr-approved"), "{failing:?}");
    // 4815 goes stable in v1.36, fully answered and approved: Ready.
    assert_eq!(kep(&all, 4815)["analysis"]["readiness"]["ready"], true);
    // A provisional KEP targets nothing.
    assert!(kep(&all, 5833)["analysis"]["readiness"].is_null());
}

#[test]
fn releases_list_every_stage_milestone() {
    let m = model::load(&content(), None, None).unwrap();
    let a = analyze(&m);
    let rel = tracking::releases(&m, &a);
    let v136 = rel.iter().find(|r| r.release == "v1.36").expect("v1.36");
    let stages: Vec<(Option<u32>, &str)> = v136
        .keps
        .iter()
        .map(|k| (k.number, k.stage.as_str()))
        .collect();
    assert!(stages.contains(&(Some(4815), "stable")), "{stages:?}");
    assert!(stages.contains(&(Some(2288), "removed")), "{stages:?}");
    assert!(rel.windows(2).all(|w| w[0].version < w[1].version));
}

#[test]
fn new_findings_and_filters() {
    let run = kepsite(&[
        "check",
        "--repo",
        "content",
        "--format",
        "json",
        "--rule",
        "toc-mismatch,prr-unanswered",
    ]);
    let v: Value = serde_json::from_str(&run.stdout).unwrap();
    let f = v["findings"].as_array().unwrap();
    assert!(
        f.iter()
            .any(|x| x["rule"] == "toc-mismatch" && x["path"].as_str().unwrap().contains("3390"))
    );
    assert!(
        f.iter()
            .any(|x| x["rule"] == "prr-unanswered" && x["line"].is_u64())
    );
    assert!(
        !f.iter()
            .any(|x| x["path"].as_str().unwrap().contains("1480")),
        "1480 is complete"
    );
    let q = kepsite(&[
        "query",
        "--repo",
        "content",
        "--prr-complete",
        "yes",
        "--format",
        "json",
    ]);
    let yes: Vec<u64> = serde_json::from_str::<Value>(&q.stdout)
        .unwrap()
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|k| k["number"].as_u64())
        .collect();
    assert!(yes.contains(&1480) && !yes.contains(&4470), "{yes:?}");
    let q = kepsite(&[
        "query",
        "--repo",
        "content",
        "--missing",
        "test plan",
        "--format",
        "json",
    ]);
    let missing: Vec<u64> = serde_json::from_str::<Value>(&q.stdout)
        .unwrap()
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|k| k["number"].as_u64())
        .collect();
    assert!(
        missing.contains(&5833) && !missing.contains(&1480),
        "{missing:?}"
    );
}

#[test]
fn corpus_release_v135_matches_milestones() {
    let m = model::load(corpus(), None, None).unwrap();
    let a = analyze(&m);
    let rel = tracking::releases(&m, &a);
    let v135 = rel.iter().find(|r| r.release == "v1.35").unwrap();
    let expected = m
        .keps
        .iter()
        .filter(|k| {
            k.meta
                .milestone
                .entries()
                .iter()
                .any(|(_, v)| v.trim_start_matches('v') == "1.35")
        })
        .count();
    let listed: std::collections::BTreeSet<usize> = v135.keps.iter().map(|k| k.index).collect();
    let extra: Vec<&str> = listed
        .iter()
        .map(|i| m.keps[*i].path.as_str())
        .filter(|p| {
            let k = m.keps.iter().find(|k| k.path == *p).unwrap();
            !k.meta
                .milestone
                .entries()
                .iter()
                .any(|(_, v)| v.trim_start_matches('v') == "1.35")
        })
        .collect();
    assert_eq!(listed.len(), expected, "{extra:?}");
    assert!(
        v135.keps.iter().any(|k| k.readiness.ready) || v135.keps.iter().any(|k| !k.readiness.ready)
    );
}

#[test]
fn export_with_history_from_git() {
    let (tmp, root) = content_copy();
    git_commit_all(&root);
    let yaml = root.join("keps/sig-node/4321-kubelet-image-pull-progress/kep.yaml");
    let text = std::fs::read_to_string(&yaml).unwrap();
    std::fs::write(&yaml, text.replace("stage: beta", "stage: stable")).unwrap();
    git(&root, &["commit", "-qam", "4321 to stable"]);
    let cache = tmp.path().join("cache");
    let args = [
        "export",
        "--repo",
        root.to_str().unwrap(),
        "--history",
        "--cache-dir",
        cache.to_str().unwrap(),
    ];
    let run = kepsite(&args);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let all: Vec<Value> = serde_json::from_str(&run.stdout).unwrap();
    let h = &kep(&all, 4321)["history"];
    let stages: Vec<&str> = h["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["stage"].as_str().unwrap())
        .collect();
    assert_eq!(stages, vec!["beta", "stable"]);
    assert!(
        cache.read_dir().unwrap().next().is_some(),
        "the walk is cached"
    );
    // The second run reads the cache and gives the same export.
    assert_eq!(kepsite(&args).stdout, run.stdout);
    // Without --history there is none.
    assert!(kep(&export(), 4321)["history"].is_null());
}
