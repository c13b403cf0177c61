//! Issue 3 on content/ and the corpus: PRR completeness per stage, stage
//! tracking and readiness, the new findings and query filters.

use kepsite::analysis::outcome;
use kepsite::kep::domain::Release;
use serde_json::Value;

use kepsite::project::Input;

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
    // the summary of the template, not its sixty sections one by one
    let assessment = full["analysis"]["assessment"].as_object().unwrap();
    assert!(assessment["missing_sections"].is_array());
    assert!(assessment["template_completeness"].is_object());
    assert!(!assessment.contains_key("sections"), "{assessment:?}");
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
    let project = load_files(&Input::at(content()));
    let (m, a) = (&project.model, &project.analysis);
    // content/ is not a git repository of its own: no snapshot date, so the
    // release in progress is the one most implementable KEPs target.
    assert_eq!(a.current.release, Release::new(1, 36));
    let rels = outcome::releases(m, &a.current);
    assert!(rels.windows(2).all(|w| w[0] < w[1]));
    let v136 = outcome::release_view(&outcome::Sources::of(m, a), Release::new(1, 36));
    let stages: Vec<(Option<u32>, &str)> = v136
        .entries
        .iter()
        .map(|e| (e.number, e.stage.as_str()))
        .collect();
    assert!(stages.contains(&(Some(4815), "stable")), "{stages:?}");
    assert!(stages.contains(&(Some(2288), "removed")), "{stages:?}");
    assert!(v136.entries.iter().all(|e| e.readiness.is_some()));
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
