//! Open pull requests (`--prs`) judged at their heads, on a copy of
//! `content/` in git dated before v1.36's PRR Freeze (2026-02-05): each
//! PR's head is a commit of the repository that the default branch does
//! not contain, as `git fetch origin 'refs/pull/*/head:refs/remotes/origin/pr/*'`
//! leaves them.

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

use crate::support::*;

/// git in `dir` at a fixed instant: 2026-01-20, before v1.36's PRR Freeze.
fn git_jan(dir: &Path, args: &[&str]) -> String {
    let date = "@1768900000 +0000";
    let out = Command::new("git")
        .env("GIT_AUTHOR_DATE", date)
        .env("GIT_COMMITTER_DATE", date)
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args([
            "-c",
            "commit.gpgsign=false",
            "-c",
            "init.defaultBranch=master",
        ])
        .args(args)
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

const JITTER: &str = "keps/sig-apps/3100-job-retry-jitter/README.md";
const PULL: &str = "keps/sig-node/4321-kubelet-image-pull-progress/README.md";

/// Commit `edit` of `file` as PR `n`'s head, on `refs/remotes/origin/pr/n`,
/// leaving the default branch where it was.
fn pr_head(root: &Path, n: u32, file: &str, from: &str, to: &str) -> String {
    let p = root.join(file);
    let text = std::fs::read_to_string(&p).unwrap();
    assert!(text.contains(from), "{file} lacks {from:?}");
    git_jan(root, &["checkout", "-q", "-b", &format!("pr-{n}")]);
    std::fs::write(&p, text.replacen(from, to, 1)).unwrap();
    git_jan(root, &["commit", "-q", "-am", &format!("PR {n}")]);
    let head = git_jan(root, &["rev-parse", "HEAD"]);
    git_jan(
        root,
        &["update-ref", &format!("refs/remotes/origin/pr/{n}"), &head],
    );
    git_jan(root, &["checkout", "-q", "master"]);
    git_jan(root, &["branch", "-q", "-D", &format!("pr-{n}")]);
    head
}

fn pr(n: u32, head: &str, files: &[&str]) -> Value {
    json!({
        "number": n,
        "title": format!("KEP update #{n}"),
        "url": format!("https://github.com/kubernetes/enhancements/pull/{n}"),
        "headRefOid": head,
        "files": files.iter().map(|f| json!({"path": f, "additions": 1, "deletions": 1})).collect::<Vec<_>>(),
        "author": {"login": "dev"},
    })
}

fn report(root: &Path, extra: &[&str]) -> Value {
    let mut args = vec![
        "report",
        "--repo",
        root.to_str().unwrap(),
        "--release",
        "v1.36",
        "--no-history",
        "--format",
        "json",
    ];
    args.extend(extra);
    let run = kepsite(&args);
    assert_eq!(run.code, 0, "{}", run.stderr);
    serde_json::from_str(&run.stdout).unwrap()
}

fn row(r: &Value, n: u64) -> Value {
    r["groups"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|g| g["sigs"].as_array().unwrap())
        .flat_map(|s| s["keps"].as_array().unwrap())
        .find(|k| k["number"] == n)
        .cloned()
        .unwrap_or_else(|| panic!("KEP-{n} not in the report"))
}

fn phase<'a>(k: &'a Value, freeze: &str) -> &'a Value {
    k["tracking"]["phases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["freeze"] == freeze)
        .unwrap()
}

fn item<'a>(p: &'a Value, id: &str) -> &'a Value {
    p["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["id"] == id)
        .unwrap_or_else(|| panic!("no {id} in {p}"))
}

#[test]
fn open_prs_are_judged_at_their_heads() {
    let (_tmp, root) = content_copy();
    git_jan(&root, &["init", "-q"]);
    git_jan(&root, &["add", "-A"]);
    git_jan(&root, &["commit", "-q", "-m", "snapshot"]);
    // #9101 answers KEP-3101's last unanswered PRR question (alpha).
    let fix = pr_head(
        &root,
        9101,
        JITTER,
        "###### Are there any tests for feature enablement/disablement?\nTODO",
        "###### Are there any tests for feature enablement/disablement?\nYes: the Job controller's unit tests run with the gate on and off.",
    );
    // #9102 touches KEP-4321's README, which meets every checklist.
    let typo = pr_head(&root, 9102, PULL, "## Summary", "## Summary\n");
    let prs = json!([
        pr(9101, &fix, &[JITTER]),
        pr(9102, &typo, &[PULL]),
        // A head never fetched into this checkout.
        pr(
            9103,
            "0123456789abcdef0123456789abcdef01234567",
            &["keps/sig-apps/5204-job-completion-hooks/kep.yaml"]
        ),
    ]);
    let file = root.parent().unwrap().join("prs.json");
    std::fs::write(&file, serde_json::to_vec(&prs).unwrap()).unwrap();

    // Without --prs: 3101 is at risk for the PRR Freeze, 4321 tracked.
    let plain = report(&root, &[]);
    let k = row(&plain, 3101);
    assert_eq!(k["outcome"], "at-risk-for-prr-freeze", "{k}");
    assert_eq!(row(&plain, 4321)["outcome"], "tracked-for-prr-freeze");

    let r = report(&root, &["--prs", file.to_str().unwrap()]);
    // The PRR Freeze counts a PR open or merged: #9101 answers the question.
    let k = row(&r, 3101);
    let q = item(phase(&k, "prr-freeze"), "prr-questionnaire");
    assert_eq!(q["ok"], true, "{q}");
    assert!(
        q["detail"].as_str().unwrap().contains("(in open PR #9101)"),
        "{q}"
    );
    assert_eq!(k["outcome"], "tracked-for-prr-freeze", "{k}");
    // The Enhancements Freeze wants it merged: tracked if it merges.
    let ef = phase(&k, "enhancements-freeze");
    assert_eq!(item(ef, "no-open-prs")["ok"], false, "{ef}");
    let notes = k["tracking"]["notes"].to_string();
    assert!(notes.contains("Tracked if #9101 merges"), "{notes}");
    assert_eq!(k["tracking"]["prs"][0]["number"], 9101);
    assert_eq!(k["tracking"]["prs"][0]["head"]["kind"], "judged");

    // An open PR on the README of a tracked KEP fails "no open PRs".
    let k = row(&r, 4321);
    let ef = phase(&k, "enhancements-freeze");
    let open = item(ef, "no-open-prs");
    assert_eq!(open["ok"], false, "{open}");
    assert!(open["detail"].as_str().unwrap().contains("#9102"), "{open}");
    assert_eq!(ef["verdict"], "not-met", "{ef}");
    // It is still tracked for the PRR Freeze, the deadline in front of it.
    assert_eq!(k["outcome"], "tracked-for-prr-freeze", "{k}");

    // A head missing from the checkout is named, with the fetch command.
    let k = row(&r, 5204);
    assert_eq!(k["tracking"]["prs"][0]["head"]["kind"], "missing", "{k}");
    let notes = k["tracking"]["notes"].to_string();
    assert!(
        notes.contains("0123456789") && notes.contains("git fetch"),
        "{notes}"
    );

    // The Markdown report shows the PR beside the KEP.
    let md = kepsite(&[
        "report",
        "--repo",
        root.to_str().unwrap(),
        "--release",
        "v1.36",
        "--no-history",
        "--prs",
        file.to_str().unwrap(),
    ]);
    assert_eq!(md.code, 0, "{}", md.stderr);
    assert!(
        md.stdout.contains(r"Tracked if \#9101 merges"),
        "{}",
        md.stdout
    );
}
