//! `kepsite report`: release-team status reports on `content/` (a snapshot
//! per format), `--since` on a small git repository and on the real corpus,
//! `--issues` with a fixture, bad input, and the report page of the site.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::{Value, json};

use crate::support::{
    Run, content, content_copy, git, git_commit_all, kepsite, kepsite_in, load_files, report_rows,
};

const ISSUES: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/report-issues.json"
);

fn report(args: &[&str]) -> String {
    let mut all = vec!["report", "--repo", "content", "--no-history"];
    all.extend_from_slice(args);
    let run = kepsite(&all);
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.stdout
}

fn json(args: &[&str]) -> Value {
    let mut all = args.to_vec();
    all.extend(["--format", "json"]);
    serde_json::from_str(&report(&all)).expect("report JSON")
}

fn row(r: &Value, n: u64) -> &Value {
    report_rows(r)
        .into_iter()
        .find(|k| k["number"] == n)
        .unwrap_or_else(|| panic!("KEP {n} not in the report"))
}

fn numbers(entries: &Value) -> BTreeSet<u64> {
    entries
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["number"].as_u64())
        .collect()
}

#[test]
fn snapshots_per_format() {
    let args = [
        "--release",
        "v1.36",
        "--freeze",
        "2026-02-12",
        "--today",
        "2026-02-01",
    ];
    for (format, name) in [
        ("md", "report_md"),
        ("html", "report_html"),
        ("csv", "report_csv"),
        ("json", "report_json"),
    ] {
        let mut a = args.to_vec();
        a.extend(["--format", format]);
        insta::assert_snapshot!(name, report(&a));
    }
}

#[test]
fn content_v136_matches_the_sample_inventory() {
    let r = json(&["--release", "v1.36"]);
    // SAMPLE.md: v1.36 work is alpha 5140, 3101, 5204, 4590, 5588; beta 4321,
    // 4470; stable 3348, 4815; deprecated 2750; removed 2288; and with no
    // stage change 5833, 5702, 5410 and 5066 (its beta milestone names
    // v1.33: v1.36 only moved its latest-milestone). 5301 names v1.36 in
    // milestone.beta only (latest-milestone v1.34): listed apart.
    let groups: Vec<(&str, BTreeSet<u64>)> = r["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            let ns = g["sigs"]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|s| s["keps"].as_array().unwrap())
                .filter_map(|k| k["number"].as_u64())
                .collect();
            (g["id"].as_str().unwrap(), ns)
        })
        .collect();
    let want: Vec<(&str, BTreeSet<u64>)> = vec![
        ("alpha", [3101, 4590, 5140, 5204, 5588].into()),
        ("beta", [4321, 4470].into()),
        ("stable", [3348, 4815].into()),
        ("deprecation", [2288, 2750].into()),
        ("none", [5066, 5410, 5702, 5833].into()),
    ];
    assert_eq!(groups, want);
    let s = &r["summary"];
    assert_eq!(s["total"], 15);
    assert_eq!(s["apart"], 1);
    assert_eq!(r["apart"][0]["number"], 5301);
    assert!(
        r["apart"][0]["why"]
            .as_str()
            .unwrap()
            .starts_with("planned for v1.36 in kep.yaml, not updated this cycle"),
        "{}",
        r["apart"]
    );
    assert_eq!(
        s["tracked"].as_u64().unwrap() + s["at_risk"].as_u64().unwrap(),
        15
    );
    // content/ has no commit date: the release is before its first
    // deadline, the PRR Freeze. Tracked for it: questionnaire answered,
    // kep.yaml filled out, PRR approved.
    assert_eq!(r["next"], "prr-freeze");
    for n in [4321, 3348, 4815, 5204] {
        assert_eq!(row(&r, n)["label"], "Tracked for PRR freeze", "{n}");
        assert_eq!(row(&r, n)["outcome"], "tracked-for-prr-freeze", "{n}");
    }
    // At risk, with the failing items spelled out.
    let k = row(&r, 4470);
    assert_eq!(k["label"], "At risk for PRR freeze");
    assert!(
        k["failing"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f == "no PRR approver for beta"),
        "{k}"
    );
    assert!(
        row(&r, 5140)["failing"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f == "no prod-readiness file")
    );
    let keps = r["groups"].to_string() + &r["apart"].to_string();
    assert!(
        !keps.contains("\"number\":1480"),
        "1480 names v1.36 nowhere in its files: not in the release without its issue"
    );
    // Groups are ordered by SIG inside.
    let sigs: Vec<&str> = r["groups"][0]["sigs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["sig"].as_str().unwrap())
        .collect();
    let mut sorted = sigs.clone();
    sorted.sort();
    assert_eq!(sigs, sorted);
    // The line says the share at risk; no red/yellow/green.
    assert_eq!(r["summary"]["at_risk"], 8);
    assert_eq!(r["summary"]["health"]["status"], "in-progress");
    assert_eq!(r["summary"]["health"]["share_at_risk"], 53.3);
}

#[test]
fn freeze_health_and_links() {
    let r = json(&[
        "--release",
        "v1.35",
        "--current",
        "v1.35",
        "--freeze",
        "2026-03-01",
        "--today",
        "2026-02-01",
    ]);
    let h = &r["summary"]["health"];
    assert_eq!(h["days_to_freeze"], 28);
    assert!(
        h["line"]
            .as_str()
            .unwrap()
            .contains("28 days to the freeze (2026-03-01)"),
        "{h}"
    );
    // 3390 goes disabled in v1.35 and 4102 alpha; the default links point into the repository.
    let k = row(&r, 3390);
    assert_eq!(k["stage"], "disabled");
    assert_eq!(
        k["url"],
        "https://github.com/kubernetes/enhancements/tree/master/keps/sig-storage/3390-implicit-volume-ownership-change"
    );
    assert_eq!(
        k["issue_url"],
        "https://github.com/kubernetes/enhancements/issues/3390"
    );
    let r = json(&[
        "--release",
        "v1.35",
        "--site-url",
        "https://keps.example.org",
    ]);
    assert_eq!(row(&r, 4102)["url"], "https://keps.example.org/keps/4102/");
}

fn plain_files() -> Value {
    json(&["--release", "v1.36"])
}

#[test]
fn issues_fixture_flags_disagreements() {
    let r = json(&["--release", "v1.36", "--issues", ISSUES]);
    let is = &r["issues"];
    assert_eq!(is["issues"], 7);
    assert_eq!(
        is["opted_in"], 4,
        "4321, 4470, 1480, 9001 carry lead-opted-in with v1.36"
    );
    assert_eq!(is["tracked"], 2);
    let missing: Vec<(u64, &str)> = is["opted_in_without_kep_change"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["number"].as_u64().unwrap(), m["reason"].as_str().unwrap()))
        .collect();
    // 1480 is opted in on v1.36 though its files name v1.34: the issue
    // decides, so it is in the release, At risk for what its files lack.
    assert_eq!(missing.len(), 1, "{missing:?}");
    assert!(
        missing[0].0 == 9001 && missing[0].1.contains("no KEP"),
        "{missing:?}"
    );
    let k = row(&r, 1480);
    assert_eq!(k["tracking"]["source"], "issues", "{k}");
    assert_eq!(k["outcome"], "at-risk-for-prr-freeze", "{k}");
    assert!(
        k["failing"]
            .to_string()
            .contains("latest-milestone is v1.34"),
        "{k}"
    );
    // With the issues, the opted-in issues decide who is in the release:
    // 4321, 4470, 1480, and 5140 (tracked/no: removed); the rest apart.
    assert_eq!(r["membership"], "issues");
    assert_eq!(r["summary"]["total"], 4);
    // Tracked, labels agree: no flags, linked to the issue.
    let k = row(&r, 4321);
    assert_eq!(k["flags"].as_array().unwrap().len(), 0, "{k}");
    assert_eq!(k["issue"]["tracked"], "yes");
    assert_eq!(k["issue"]["opted_in"], true);
    // Tracked as stable, files say beta.
    let flags = row(&r, 4470)["flags"].to_string();
    assert!(
        flags.contains("tracked as stage/stable, but the files target beta"),
        "{flags}"
    );
    // tracked/no removes; an unsafe issue URL is not used.
    let k = row(&r, 5140);
    assert!(k["flags"].to_string().contains("not opted in"), "{k}");
    assert_eq!(
        k["issue_url"],
        "https://github.com/kubernetes/enhancements/issues/5140"
    );
    assert_eq!(
        (&k["outcome"], &k["label"]),
        (
            &json!("removed-from-milestone"),
            &json!("Removed from milestone")
        ),
        "{k}"
    );
    assert!(k["flags"].to_string().contains("tracked/no"), "{k}");
    let apart = |n: u64| {
        r["apart"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["number"] == n)
            .map(|a| a["why"].as_str().unwrap().to_string())
    };
    assert_eq!(
        apart(3101).as_deref(),
        Some("not opted in: the issue has no milestone")
    );
    assert_eq!(
        apart(5204).as_deref(),
        Some("not opted in: its issue is not in the issues file")
    );
    // The statuses come from the checklists: 4321 meets them; 4470 is
    // labelled tracked/yes but its files miss items, and the flag says so.
    assert_eq!(row(&r, 4321)["outcome"], "tracked-for-prr-freeze");
    let k = row(&r, 4470);
    assert_eq!(k["outcome"], "at-risk-for-prr-freeze");
    assert_eq!(k["outcome"], row(&plain_files(), 4470)["outcome"]);
    assert!(
        k["flags"]
            .to_string()
            .contains("the issue is labelled tracked/yes; the files say At risk for PRR freeze"),
        "{k}"
    );
    let t = &r["summary"];
    assert_eq!(
        (&t["tracked"], &t["at_risk"], &t["removed"]),
        (&json!(1), &json!(2), &json!(1)),
        "{t}"
    );
    // Without the issues file the report stands on the repository alone.
    assert!(plain_files()["issues"].is_null());
    // HTML never carries the untrusted URL or markup.
    let html = report(&["--release", "v1.36", "--issues", ISSUES, "--format", "html"]);
    assert!(!html.contains("javascript:") && !html.contains("<b>without</b>"));
    assert!(
        html.contains("&lt;b&gt;without&lt;&#x2F;b&gt;")
            || html.contains("&lt;b&gt;without&lt;/b&gt;")
    );
}

/// content/ in a git repository, then one commit that moves KEPs in and out of v1.36.
fn since_repo() -> (tempfile::TempDir, std::path::PathBuf, String, String) {
    let (tmp, root) = content_copy();
    git_commit_all(&root);
    let base = git(&root, &["rev-parse", "HEAD"]).trim().to_string();
    let edit = |rel: &str, from: &str, to: &str| {
        let p = root.join(rel);
        let s = std::fs::read_to_string(&p).unwrap();
        assert!(s.contains(from), "{rel} lacks {from:?}");
        std::fs::write(&p, s.replacen(from, to, 1)).unwrap();
    };
    edit(
        "keps/prod-readiness/sig-apps/4470.yaml",
        "alpha:",
        "beta:\n  approver: \"@wren-h\"\nalpha:",
    );
    edit(
        "keps/sig-node/5140-container-log-rotation-policy/kep.yaml",
        "latest-milestone: \"v1.36\"",
        "latest-milestone: \"v1.37\"",
    );
    edit(
        "keps/sig-node/5140-container-log-rotation-policy/kep.yaml",
        "alpha: \"v1.36\"",
        "alpha: \"v1.37\"",
    );
    edit(
        "keps/sig-node/4321-kubelet-image-pull-progress/kep.yaml",
        "status: implementable",
        "status: provisional",
    );
    edit(
        "keps/sig-node/1480-pod-restart-budget/kep.yaml",
        "latest-milestone: \"v1.34\"",
        "latest-milestone: \"v1.36\"",
    );
    edit(
        "keps/sig-apps/5204-job-completion-hooks/kep.yaml",
        "stage: alpha",
        "stage: beta",
    );
    git(&root, &["commit", "-qam", "move KEPs around v1.36"]);
    let head = git(&root, &["rev-parse", "HEAD"]).trim().to_string();
    (tmp, root, base, head)
}

#[test]
fn since_lists_what_changed() {
    let (_tmp, root, base, head) = since_repo();
    let cache = root.join("../cache");
    let run = kepsite_in(
        &root,
        &[
            "report",
            "--repo",
            ".",
            "--release",
            "v1.36",
            "--since",
            &base,
            "--format",
            "json",
            "--cache-dir",
            cache.to_str().unwrap(),
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let r: Value = serde_json::from_str(&run.stdout).unwrap();
    let s = &r["since"];
    assert_eq!(s["commit"], base);
    assert_eq!(s["commits"], 1);
    assert_eq!(numbers(&s["added"]), [1480].into());
    assert_eq!(numbers(&s["dropped"]), [5140].into());
    assert_eq!(numbers(&s["stage_changed"]), [5204].into());
    assert_eq!(numbers(&s["status_changed"]), [4321].into());
    assert_eq!(numbers(&s["prr_approved"]), [4470].into());
    assert!(numbers(&s["newly_at_risk"]).contains(&4321));
    assert_eq!(
        s["dropped"][0]["to"],
        "latest-milestone v1.37, status implementable"
    );
    assert_eq!(s["stage_changed"][0]["from"], "alpha");
    assert_eq!(s["stage_changed"][0]["to"], "beta");
    for e in s["added"].as_array().unwrap() {
        assert_eq!(e["commits"][0]["id"], head.as_str());
    }
    // History is on for a git repository: last change dates are filled in.
    assert_eq!(r["history"], true);
    assert!(row(&r, 4321)["last_change"].is_string());
    // The Markdown names the sections.
    let md = kepsite_in(
        &root,
        &[
            "report",
            "--repo",
            ".",
            "--release",
            "v1.36",
            "--since",
            "HEAD~1",
            "--no-history",
        ],
    )
    .stdout;
    for h in [
        "## Since `HEAD~1`",
        "**Newly targeting the release (1)**",
        "**Dropped out (1)**",
        "**Newly approved PRRs (1)**",
    ] {
        assert!(md.contains(h), "{h}\n{md}");
    }
    // --since equal to the revision: nothing changed.
    let same = kepsite_in(
        &root,
        &[
            "report",
            "--repo",
            ".",
            "--release",
            "v1.36",
            "--since",
            "HEAD",
            "--no-history",
        ],
    );
    assert_eq!(same.code, 0, "{}", same.stderr);
    assert!(same.stdout.contains("No changes to the release."));
}

fn assert_refused(cwd: &Path, args: &[&str], needle: &str) {
    let out = cwd.join("report-out.md");
    std::fs::write(&out, "previous").unwrap();
    let mut all = args.to_vec();
    let o = out.to_str().unwrap().to_string();
    all.extend(["--out", &o]);
    let run = kepsite_in(cwd, &all);
    assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
    assert!(run.stderr.contains(needle), "{args:?}: {}", run.stderr);
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        "previous",
        "{args:?} touched --out"
    );
    std::fs::remove_file(&out).unwrap();
    let fresh = cwd.join("fresh-out.md");
    let f = fresh.to_str().unwrap().to_string();
    let mut all = args.to_vec();
    all.extend(["--out", &f]);
    assert_eq!(kepsite_in(cwd, &all).code, 2);
    assert!(!fresh.exists(), "{args:?} wrote --out");
    let leftovers: Vec<_> = std::fs::read_dir(cwd)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains("kepsite-tmp"))
        .collect();
    assert!(leftovers.is_empty());
}

#[test]
fn bad_input_exits_2_and_writes_nothing() {
    let (_tmp, root, base, _head) = since_repo();
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    let repo = root.to_str().unwrap();
    let not_json = w.join("issues.txt");
    std::fs::write(&not_json, "number,title\n1,x\n").unwrap();
    let lacking = w.join("issues.json");
    std::fs::write(
        &lacking,
        r#"[{"number": 1, "title": "x", "labels": [], "state": "OPEN", "url": "u"}]"#,
    )
    .unwrap();
    // A commit on a side branch is not an ancestor of HEAD.
    git(&root, &["checkout", "-qb", "side", &base]);
    std::fs::write(root.join("keps/side.txt"), "x").unwrap();
    git(&root, &["add", "-A"]);
    git(&root, &["commit", "-qm", "side"]);
    let side = git(&root, &["rev-parse", "HEAD"]).trim().to_string();
    git(&root, &["checkout", "-q", "-"]);
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["report", "--repo", repo, "--release", "v9.99"],
            "unknown release v9.99",
        ),
        (
            vec!["report", "--repo", repo, "--release", "banana"],
            "invalid release",
        ),
        (
            vec![
                "report",
                "--repo",
                repo,
                "--release",
                "v1.36",
                "--since",
                &side,
            ],
            "is not an ancestor",
        ),
        (
            vec![
                "report",
                "--repo",
                repo,
                "--release",
                "v1.36",
                "--since",
                "no-such-rev",
            ],
            "does not name a commit",
        ),
        (
            vec![
                "report",
                "--repo",
                repo,
                "--release",
                "v1.36",
                "--issues",
                not_json.to_str().unwrap(),
            ],
            "the issues file is not a JSON list as expected",
        ),
        (
            vec![
                "report",
                "--repo",
                repo,
                "--release",
                "v1.36",
                "--issues",
                lacking.to_str().unwrap(),
            ],
            "issue 0 of the issues file: missing field `milestone`",
        ),
        (
            vec![
                "report",
                "--repo",
                repo,
                "--release",
                "v1.36",
                "--issues",
                "/no/such/file.json",
            ],
            "reading the issues file",
        ),
        (
            vec![
                "report",
                "--repo",
                repo,
                "--release",
                "v1.36",
                "--freeze",
                "2026-02-30",
            ],
            "invalid --freeze",
        ),
    ];
    for (args, needle) in &cases {
        assert_refused(w, args, needle);
    }
    // --since outside git.
    let plain = tempfile::tempdir().unwrap();
    crate::support::copy_tree(&content(), &plain.path().join("repo"));
    let p = plain.path().join("repo");
    assert_refused(
        w,
        &[
            "report",
            "--repo",
            p.to_str().unwrap(),
            "--release",
            "v1.36",
            "--since",
            "HEAD",
        ],
        "git repository",
    );
}

#[test]
fn out_is_written_atomically_and_equals_stdout() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.csv");
    let run = kepsite(&[
        "report",
        "--repo",
        "content",
        "--release",
        "v1.36",
        "--format",
        "csv",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.is_empty());
    let csv = std::fs::read_to_string(&out).unwrap();
    assert_eq!(csv, report(&["--release", "v1.36", "--format", "csv"]));
    assert_eq!(csv.lines().count(), 16, "a header and one row per KEP");
}

#[test]
fn site_has_a_report_page_per_release() {
    let data = load_files(&kepsite::project::Input::at(content()));
    let files =
        kepsite::site::render_to_memory(&data, &kepsite::site::SiteOptions::default()).unwrap();
    let model = &data.model;
    let page = |p: &str| {
        String::from_utf8(
            files
                .get(p)
                .unwrap_or_else(|| panic!("{p} missing"))
                .clone(),
        )
        .unwrap()
    };
    for r in kepsite::analysis::outcome::releases(model, &data.analysis.current) {
        assert!(
            files.contains_key(&format!("releases/{r}/report/index.html")),
            "{r}"
        );
        assert!(
            page(&format!("releases/{r}/index.html"))
                .contains(&format!("href=\"/releases/{r}/report/\""))
        );
    }
    let p = page("releases/v1.36/report/index.html");
    assert!(
        p.contains("href=\"/keps/4321/\""),
        "links go to the portal's KEP pages"
    );
    assert!(p.contains("Enhancements status: v1.36") && p.contains("At risk"));
}

/// `kepsite report --repo . --release v1.36 --no-history --format json --since SINCE` in `root`.
fn since_json(root: &Path, since: &str) -> Run {
    kepsite_in(
        root,
        &[
            "report",
            "--repo",
            ".",
            "--release",
            "v1.36",
            "--no-history",
            "--format",
            "json",
            "--since",
            since,
        ],
    )
}

/// `--since YYYY-MM-DD` is the first-parent commit that day began with (UTC):
/// with the change committed on 2026-03-04 and its base on 2026-03-02,
/// 2026-03-03 and 2026-03-04 name the base, 2026-03-05 the change itself,
/// and a day before the first commit is an error that says so.
#[test]
fn since_takes_a_date_on_the_first_parent_line() {
    let (_tmp, root, base, head) = since_repo();
    // Re-date the change to 2026-03-04 12:00 UTC (fixed, not the clock).
    let out = std::process::Command::new("git")
        .env("GIT_COMMITTER_DATE", "@1772625600 +0000")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(["commit", "-q", "--amend", "--no-edit"])
        .current_dir(&root)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let head_now = git(&root, &["rev-parse", "HEAD"]).trim().to_string();
    assert_ne!(head_now, head);
    for (day, want) in [
        ("2026-03-03", base.as_str()),
        ("2026-03-04", base.as_str()),
        ("2026-03-05", head_now.as_str()),
    ] {
        let run = since_json(&root, day);
        assert_eq!(run.code, 0, "{day}: {}", run.stderr);
        let r: Value = serde_json::from_str(&run.stdout).unwrap();
        assert_eq!(r["since"]["commit"], want, "{day}");
    }
    let by_date: Value = serde_json::from_str(&since_json(&root, "2026-03-03").stdout).unwrap();
    let by_hash: Value = serde_json::from_str(&since_json(&root, &base).stdout).unwrap();
    assert_eq!(by_date["since"]["added"], by_hash["since"]["added"]);
    assert_eq!(numbers(&by_date["since"]["added"]), [1480].into());
    let early = since_json(&root, "2026-03-01");
    assert_eq!(early.code, 2, "{}", early.stderr);
    assert!(early.stderr.contains("no commit"), "{}", early.stderr);
}

/// A fresh clone's reflog has one entry, the clone: `HEAD@{<a date before
/// it>}` resolves to HEAD itself, and kepsite says so instead of printing an
/// empty Since section as if nothing had changed.
#[test]
fn since_says_when_a_reflog_expression_fell_back_to_head() {
    let (tmp, root, _base, _head) = since_repo();
    let clone = tmp.path().join("clone");
    git(
        tmp.path(),
        &[
            "clone",
            "-q",
            root.to_str().unwrap(),
            clone.to_str().unwrap(),
        ],
    );
    let run = since_json(&clone, "HEAD@{2020-01-01}");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("resolved to HEAD itself") && run.stderr.contains("reflog"),
        "{}",
        run.stderr
    );
    // A plain revision says nothing of the kind.
    let plain = since_json(&clone, "HEAD~1");
    assert!(!plain.stderr.contains("reflog"), "{}", plain.stderr);
}

/// The announcement draft of the release in progress is a sneak peek:
/// deprecations and removals first, then what is planned per stage, each
/// planned KEP of the report listed once with its Summary as plain text.
#[test]
fn announcement_of_the_release_in_progress_is_a_sneak_peek() {
    let md = report(&["--release", "v1.36", "--format", "announcement"]);
    assert!(
        md.starts_with("# Kubernetes v1.36: sneak peek draft\n"),
        "{md}"
    );
    let sections: Vec<&str> = md.lines().filter(|l| l.starts_with("## ")).collect();
    assert_eq!(
        sections.first(),
        Some(&"## Deprecations and removals"),
        "{md}"
    );
    assert!(sections.contains(&"## Planned for alpha"), "{sections:?}");
    let j = json(&["--release", "v1.36"]);
    let planned: BTreeSet<u64> = j["groups"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|g| g["sigs"].as_array().unwrap())
        .flat_map(|s| s["keps"].as_array().unwrap())
        .filter(|k| !k["stage"].as_str().unwrap_or_default().is_empty())
        .filter(|k| k["tone"] != "bad")
        .filter_map(|k| k["number"].as_u64())
        .collect();
    let listed: BTreeSet<u64> = md
        .lines()
        .filter_map(|l| l.strip_prefix("### KEP-"))
        .filter_map(|l| l.split(':').next()?.parse().ok())
        .collect();
    assert_eq!(listed, planned);
    // A Summary's HTML comments (the template's guidance) and markup are gone.
    assert!(!md.contains("<!-- This section"), "{md}");
    assert_eq!(md.matches("<!--").count(), 1, "only the draft's own note");
}

/// The portal's report pages carry the announcement draft with each KEP's
/// Summary sentences: the site build takes the README texts away before it
/// plans the report pages, so the draft must not read them there.
#[test]
fn the_portal_announcement_draft_quotes_the_summaries() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("site");
    let run = kepsite(&["build", "--repo", "content", "--out", out.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let page = std::fs::read_to_string(out.join("releases/v1.36/report/index.html")).unwrap();
    let draft = page
        .split_once("id=\"announcement\"")
        .map(|(_, d)| d)
        .expect("the report page has the draft");
    assert!(
        draft.contains("### KEP-4321: Kubelet image pull progress reporting"),
        "{draft}"
    );
    assert!(
        draft.contains("Large images can take minutes to pull"),
        "the draft quotes KEP-4321's Summary: {draft}"
    );
}

/// A report built from the release view the site's listings took reads as
/// one that takes its own view; a view of another release is not read.
#[test]
fn a_report_from_a_view_taken_before_is_the_same() {
    use kepsite::analysis::outcome;
    use kepsite::report::{Inputs, KepLinks, Options, build_with_urls};
    let data = load_files(&kepsite::project::Input::at(content()));
    let src = data.sources();
    let current = data.analysis.current;
    let releases = outcome::releases(&data.model, &current);
    assert!(
        releases.len() > 3,
        "content/ has releases out, in progress and planned"
    );
    let views: Vec<outcome::ReleaseView> = releases
        .iter()
        .map(|r| outcome::release_view(&src, *r))
        .collect();
    let urls: Vec<String> = (0..data.model.keps.len())
        .map(|i| format!("/keps/{i}/"))
        .collect();
    let build = |release, view| {
        let inputs = Inputs {
            view,
            ..Inputs::of(&data)
        };
        let opts = Options {
            release,
            current,
            links: KepLinks::Site("/".into()),
            repo_url: "https://github.com/kubernetes/enhancements".into(),
            branch: "master".into(),
            freeze: None,
            today: None,
        };
        serde_json::to_value(build_with_urls(&inputs, &opts, &urls)).unwrap()
    };
    let mut rows = 0;
    for (i, r) in releases.iter().enumerate() {
        let own = build(*r, None);
        rows += own["groups"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|g| g["total"].as_u64().unwrap_or(0))
            .sum::<u64>();
        assert_eq!(build(*r, Some(&views[i])), own, "{r}");
        // another release's view: the report takes its own
        let other = &views[(i + 1) % views.len()];
        assert_eq!(
            build(*r, Some(other)),
            own,
            "{r} given {}'s view",
            other.release
        );
    }
    assert!(rows > 10, "the reports have rows to compare ({rows})");
}
