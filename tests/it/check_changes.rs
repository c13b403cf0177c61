//! `kepsite check --changed-since / --changed-in` and the CI formats, on a
//! repository of two commits: the second touches KEP 1000 (new defects) and
//! OWNERS_ALIASES (which breaks KEP 2000's PRR approval); KEP 2000 keeps its
//! old defects untouched. Also shallow clones and the real history.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::support::*;

const ALIASES_BASE: &str = "aliases:
  prod-readiness-approvers:
    - wren-h
    - old-approver
";

const ALIASES_HEAD: &str = "aliases:
  prod-readiness-approvers:
    - wren-h
";

const KEP_1000_BASE: &str = "title: Touched feature
kep-number: 1000
authors:
  - \"@ana\"
owning-sig: sig-node
status: implementable
creation-date: 2025-01-30
last-updated: 2025-02-01
reviewers:
  - \"@bo\"
approvers:
  - \"@cy\"
stage: alpha
latest-milestone: \"v1.36\"
milestone:
  alpha: \"v1.36\"
";

const README_1000: &str = "# KEP-1000: Touched feature

## Summary

Adds a thing.

## Production Readiness Review Questionnaire

### Feature Enablement and Rollback

###### How can this feature be enabled / disabled in a live cluster?

Feature gate `Touched`.

###### Does enabling the feature change any default behavior?

No.

###### Can the feature be disabled once it has been enabled (i.e. can we roll back the enablement)?

Yes.

###### What happens if we reenable the feature if it was previously rolled back?

It works again.

###### Are there any tests for feature enablement/disablement?

Unit tests.
";

const KEP_2000: &str = "title: Untouched feature
kep-number: 2000
authors:
  - \"@dee\"
owning-sig: sig-apps
status: implementable
creation-date: 2024-1-5
last-updated: 2024-02-01
reviewers:
  - \"@eve\"
approvers:
  - \"@fay\"
sponsor: \"@gus\"
stage: alpha
latest-milestone: \"v1.35\"
milestone:
  alpha: \"v1.35\"
";

/// git with a fixed identity and fixed dates, so commit ids are stable; on
/// 2026-03-02 the release calendar has v1.36 in progress.
fn git_at(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args([
            "-c",
            "commit.gpgsign=false",
            "-c",
            "init.defaultBranch=master",
        ])
        .args(["-c", "protocol.file.allow=always"])
        .args(args)
        .env("GIT_AUTHOR_DATE", "2026-03-02T12:00:00Z")
        .env("GIT_COMMITTER_DATE", "2026-03-02T12:00:00Z")
        .current_dir(dir)
        .output()
        .expect("running git");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn write(root: &Path, path: &str, text: &str) {
    let p = root.join(path);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// The two-commit repository: (tempdir, root, base commit, head commit).
pub fn two_commits() -> (tempfile::TempDir, PathBuf, String, String) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("enhancements");
    std::fs::create_dir_all(&root).unwrap();
    write(&root, "OWNERS_ALIASES", ALIASES_BASE);
    write(&root, "keps/sig-node/1000-touched/kep.yaml", KEP_1000_BASE);
    write(&root, "keps/sig-node/1000-touched/README.md", README_1000);
    let prr = "kep-number: 1000\nalpha:\n  approver: \"@wren-h\"\n";
    write(&root, "keps/prod-readiness/sig-node/1000.yaml", prr);
    write(&root, "keps/sig-apps/2000-untouched/kep.yaml", KEP_2000);
    let readme = README_1000.replace("Unit tests.", "TBD");
    write(&root, "keps/sig-apps/2000-untouched/README.md", &readme);
    let prr = "kep-number: 2000\nalpha:\n  approver: \"@old-approver\"\n";
    write(&root, "keps/prod-readiness/sig-apps/2000.yaml", prr);
    git_at(&root, &["init", "-q"]);
    git_at(&root, &["add", "-A"]);
    git_at(&root, &["commit", "-q", "-m", "base"]);
    let base = git_at(&root, &["rev-parse", "HEAD"]);
    // The change: a bad date and an unanswered PRR question in KEP 1000,
    // and an approver dropped from OWNERS_ALIASES.
    let kep = KEP_1000_BASE.replace("2025-01-30", "2025-30-01");
    write(&root, "keps/sig-node/1000-touched/kep.yaml", &kep);
    let readme = README_1000.replace("It works again.", "TBD");
    write(&root, "keps/sig-node/1000-touched/README.md", &readme);
    write(&root, "OWNERS_ALIASES", ALIASES_HEAD);
    git_at(&root, &["commit", "-q", "-am", "change"]);
    let head = git_at(&root, &["rev-parse", "HEAD"]);
    (tmp, root, base, head)
}

#[test]
fn only_the_touched_kep_and_what_the_change_introduced_are_reported() {
    let (_tmp, root, base, head) = two_commits();
    // The whole repository has KEP 2000's old defects too.
    let full = check_repo(&root, &["--format", "json"]);
    let all = rules_and_paths(&full.stdout);
    let old = (
        "unknown-field".to_string(),
        "keps/sig-apps/2000-untouched/kep.yaml".to_string(),
    );
    assert!(all.contains(&old), "{all:?}");
    let old_readme = (
        "prr-unanswered".to_string(),
        "keps/sig-apps/2000-untouched/README.md".to_string(),
    );
    assert!(all.contains(&old_readme), "{all:?}");
    let want = vec![
        (
            "prr-approver-invalid".to_string(),
            "keps/prod-readiness/sig-apps/2000.yaml".to_string(),
        ),
        (
            "prr-unanswered".to_string(),
            "keps/sig-node/1000-touched/README.md".to_string(),
        ),
        (
            "date-invalid".to_string(),
            "keps/sig-node/1000-touched/kep.yaml".to_string(),
        ),
    ];
    let since = check_repo(&root, &["--changed-since", &base, "--format", "json"]);
    assert_eq!(since.code, 1, "{}", since.stderr);
    assert_eq!(rules_and_paths(&since.stdout), want);
    let range = format!("{base}..{head}");
    let within = check_repo(&root, &["--changed-in", &range, "--format", "json"]);
    assert_eq!(rules_and_paths(&within.stdout), want);
    let v: Value = serde_json::from_str(&within.stdout).unwrap();
    assert_eq!(v["summary"]["keps"], 1);
    assert_eq!(v["changes"]["base"], base.as_str());
    assert_eq!(v["changes"]["head"], head.as_str());
    assert_eq!(
        v["changes"]["keps"],
        serde_json::json!(["keps/sig-node/1000-touched"])
    );
    // Nothing changed since HEAD: nothing to report, exit 0.
    let none = check_repo(&root, &["--changed-since", "HEAD", "--format", "json"]);
    assert_eq!(none.code, 0);
    assert_eq!(rules_and_paths(&none.stdout), vec![]);
}

#[test]
fn an_uncommitted_edit_counts_as_a_change() {
    let (_tmp, root, _base, head) = two_commits();
    let kep = std::fs::read_to_string(root.join("keps/sig-apps/2000-untouched/kep.yaml")).unwrap();
    write(
        &root,
        "keps/sig-apps/2000-untouched/kep.yaml",
        &kep.replace("Untouched feature", "Edited feature"),
    );
    let run = check_repo(&root, &["--changed-since", &head, "--format", "json"]);
    let found = rules_and_paths(&run.stdout);
    assert!(
        found.iter().all(|(_, p)| p.contains("2000")),
        "only KEP 2000: {found:?}"
    );
    assert!(found.contains(&(
        "unknown-field".to_string(),
        "keps/sig-apps/2000-untouched/kep.yaml".to_string()
    )));
}

#[test]
fn a_missing_base_says_what_to_fetch() {
    let (_tmp, root, _base, _head) = two_commits();
    let run = check_repo(&root, &["--changed-since", "origin/master"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("revision \"origin/master\" is not in this clone")
            && run.stderr.contains("git fetch --depth=50 origin master"),
        "{}",
        run.stderr
    );
    let bad = check_repo(&root, &["--changed-in", "HEAD"]);
    assert_eq!(bad.code, 2);
    assert!(bad.stderr.contains("REV1..REV2"), "{}", bad.stderr);
    let plain = tempfile::tempdir().unwrap();
    copy_tree(&root.join("keps"), &plain.path().join("keps"));
    let run = check_repo(plain.path(), &["--changed-since", "HEAD"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("not inside a git repository"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_shallow_clone_works_once_the_base_is_fetched() {
    let (tmp, root, base, _head) = two_commits();
    let url = format!("file://{}", root.display());
    let clone = tmp.path().join("shallow");
    git_at(
        tmp.path(),
        &["clone", "-q", "--depth=1", &url, clone.to_str().unwrap()],
    );
    // The base is not there.
    let run = check_repo(&clone, &["--changed-since", &base]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("git fetch --depth=50 origin"),
        "{}",
        run.stderr
    );
    // Fetched alone, it is there but HEAD's history does not reach it.
    git_at(&clone, &["fetch", "-q", "--depth=1", "origin", &base]);
    let run = check_repo(&clone, &["--changed-since", &base]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("no common ancestor in this shallow clone")
            && run.stderr.contains("git fetch --deepen"),
        "{}",
        run.stderr
    );
    git_at(&clone, &["fetch", "-q", "--deepen=1", "origin"]);
    let run = check_repo(&clone, &["--changed-since", &base, "--format", "json"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(rules_and_paths(&run.stdout).len(), 3, "{}", run.stdout);
}

#[test]
fn a_template_change_checks_the_base_readmes_too() {
    let (_tmp, root, _base, head) = two_commits();
    // A template whose only required question no KEP answers: both KEPs'
    // READMEs gain a finding, introduced by the change (an uncommitted
    // template), though neither KEP was touched.
    let template = "# KEP-NNNN: Title

## Production Readiness Review Questionnaire
<!--DIRECTIVE: required: true-->

### Feature Enablement and Rollback
<!--DIRECTIVE: required: true, stage: alpha-->

###### Is there a new question?
<!--DIRECTIVE: required: true, stage: alpha-->
";
    write(&root, "keps/NNNN-kep-template/README.md", template);
    let run = check_repo(&root, &["--changed-since", &head, "--format", "json"]);
    let v: Value = serde_json::from_str(&run.stdout).unwrap();
    let found: Vec<(&str, &str)> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["path"].as_str().unwrap(), f["message"].as_str().unwrap()))
        .collect();
    let message = "PRR question not answered (required at alpha): Is there a new question?";
    assert_eq!(
        found,
        vec![
            ("keps/sig-apps/2000-untouched/README.md", message),
            ("keps/sig-node/1000-touched/README.md", message),
        ]
    );
}
