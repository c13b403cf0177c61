//! Who is in v1.37 and how its board reads, on the real corpus at HEAD:
//! KEPs planned ahead are listed apart, an opted-in issue (`--issues`)
//! brings a KEP in, and a board export (`--board`) is compared with the
//! files. The issue and board files are written here, in the shape `gh`
//! exports them.

use std::path::Path;

use serde_json::{Value, json};

use crate::shared::corpus;
use crate::support::*;

/// `kepsite report --release v1.37 --format json --no-history EXTRA…` at HEAD.
fn v137(extra: &[&str]) -> Value {
    let mut args = vec![
        "report",
        "--repo",
        corpus().to_str().unwrap(),
        "--release",
        "v1.37",
        "--no-history",
        "--format",
        "json",
    ];
    args.extend(extra);
    let run = kepsite(&args);
    assert_eq!(run.code, 0, "{args:?}: {}", run.stderr);
    serde_json::from_str(&run.stdout).unwrap()
}

fn numbers(rows: &[&Value]) -> Vec<u64> {
    let mut n: Vec<u64> = rows.iter().filter_map(|r| r["number"].as_u64()).collect();
    n.sort_unstable();
    n
}

/// An issue as `gh issue list --json number,title,labels,milestone,state,url` writes it.
fn issue(n: u32, labels: &[&str], milestone: Option<&str>) -> Value {
    json!({
        "number": n,
        "title": format!("KEP-{n}"),
        "labels": labels.iter().map(|l| json!({"name": l})).collect::<Vec<_>>(),
        "milestone": milestone.map(|m| json!({"title": m})),
        "state": "OPEN",
        "url": format!("https://github.com/kubernetes/enhancements/issues/{n}"),
    })
}

fn write(dir: &Path, name: &str, v: &Value) -> String {
    let p = dir.join(name);
    std::fs::write(&p, serde_json::to_vec(v).unwrap()).unwrap();
    p.to_str().unwrap().to_string()
}

/// KEP-5325 (untouched since 2025-07-24, latest-milestone v1.35,
/// milestone.stable v1.37) and the other KEPs whose latest-milestone is an
/// earlier release were planned, not opted in: listed apart, outside the
/// totals, never "Removed from milestone".
#[test]
fn keps_planned_ahead_are_listed_apart() {
    let j = v137(&[]);
    assert_eq!(j["membership"], "files");
    let apart: Vec<&Value> = j["apart"].as_array().unwrap().iter().collect();
    let a5325 = apart
        .iter()
        .find(|a| a["number"] == 5325)
        .expect("5325 apart");
    let why = a5325["why"].as_str().unwrap();
    assert!(
        why.contains("not updated this cycle") && why.contains("v1.35"),
        "{why}"
    );
    let rows = report_rows(&j);
    let on_board = numbers(&rows);
    let m = load_files(&kepsite::project::Input::at(corpus())).model;
    for a in &apart {
        let n = a["number"].as_u64().unwrap();
        assert!(
            !on_board.contains(&n),
            "KEP-{n} both apart and on the board"
        );
        let latest = &m.kep(n as u32).unwrap().meta.latest_milestone;
        assert!(
            latest == "v1.35" || latest == "v1.36",
            "KEP-{n}: latest-milestone {latest}"
        );
    }
    assert!(apart.len() >= 12, "{}", apart.len());
    let s = &j["summary"];
    assert_eq!(s["apart"].as_u64().unwrap() as usize, apart.len());
    let tallied: u64 = ["tracked", "at_risk", "exception", "removed", "deferred"]
        .iter()
        .map(|k| s[k].as_u64().unwrap())
        .sum();
    assert_eq!(tallied, s["total"].as_u64().unwrap());
    assert_eq!(tallied as usize, rows.len());
}

/// With `--issues`, the opted-in tracking issues decide who is in: an
/// issue for KEP-5325 with `lead-opted-in` and the v1.37 milestone brings
/// it in, judged on its files; KEPs with no opted-in issue are apart.
#[test]
fn an_opted_in_issue_decides_membership() {
    let tmp = tempfile::tempdir().unwrap();
    let issues = json!([
        issue(5325, &["lead-opted-in", "sig/node"], Some("v1.37")),
        issue(2837, &["lead-opted-in", "tracked/yes"], Some("v1.37")),
        // Opted in for another release: not in v1.37.
        issue(4939, &["lead-opted-in"], Some("v1.36")),
    ]);
    let path = write(tmp.path(), "issues.json", &issues);
    let j = v137(&["--issues", &path]);
    assert_eq!(j["membership"], "issues");
    let rows = report_rows(&j);
    assert_eq!(numbers(&rows), [2837, 5325]);
    let r5325 = rows.iter().find(|r| r["number"] == 5325).unwrap();
    assert_eq!(r5325["tracking"]["source"], "issues");
    // Its files, judged at the Enhancements Freeze: the label follows
    // the status.
    let status = r5325["tracking"]["status"].as_str().unwrap();
    assert!(
        [
            "tracked-for-enhancements-freeze",
            "removed-from-milestone",
            "exception-required"
        ]
        .contains(&status),
        "{status}"
    );
    assert_eq!(r5325["outcome"], status);
    let apart = j["apart"].as_array().unwrap();
    let a4939 = apart
        .iter()
        .find(|a| a["number"] == 4939)
        .expect("4939 apart");
    assert!(
        a4939["why"].as_str().unwrap().contains("opted in"),
        "{a4939}"
    );
}

/// `node` → `Node`, `api-machinery` → `Api Machinery`.
fn title_case(s: &str) -> String {
    s.split('-')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
                .unwrap_or_default()
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// `--board`: of four items, two carry a Status the files contradict
/// (KEP-4939 missed the Enhancements Freeze, KEP-5683 met it only after
/// its deadline); exactly those two are listed, each with the value to set.
#[test]
fn the_board_lists_exactly_the_items_that_disagree() {
    let tmp = tempfile::tempdir().unwrap();
    let item = |n: u32, status: &str, stage: &str, sig: String| {
        json!({
            "id": format!("PVTI_{n}"),
            "content": {"type": "Issue", "number": n, "repository": "kubernetes/enhancements", "title": format!("KEP-{n}")},
            "status": status,
            "stage": stage,
            "sIG": sig,
        })
    };
    let j = v137(&[]);
    let rows = report_rows(&j);
    let row = |n: u32| rows.iter().find(|r| r["number"] == n).copied().unwrap();
    let stage_of = |n: u32| title_case(row(n)["stage"].as_str().unwrap_or(""));
    // The SIG as the board writes it: "SIG Node" for sig-node.
    let sig_of = |n: u32| {
        let s = row(n)["sig"].as_str().unwrap().trim_start_matches("sig-");
        format!("SIG {}", title_case(s))
    };
    let board = json!({"items": [
        item(2837, "Tracked for enhancements freeze", &stage_of(2837), sig_of(2837)),
        // Spelled as people do: the comparison folds case and "enhancement".
        item(5366, "tracked for Enhancement Freeze", &stage_of(5366), row(5366)["sig"].as_str().unwrap().to_string()),
        item(4939, "Tracked for enhancements freeze", &stage_of(4939), sig_of(4939)),
        item(5683, "Tracked for enhancements freeze", &stage_of(5683), sig_of(5683)),
    ], "totalCount": 4});
    let path = write(tmp.path(), "board.json", &board);
    let j = v137(&["--board", &path]);
    let diffs = j["board"].as_array().expect("a board comparison");
    let listed: Vec<u64> = diffs
        .iter()
        .map(|d| d["number"].as_u64().unwrap())
        .collect();
    assert_eq!(listed, [4939, 5683], "{diffs:?}");
    for (n, want) in [
        (4939, "Removed from milestone"),
        (5683, "Exception required"),
    ] {
        let d = diffs.iter().find(|d| d["number"] == n).unwrap();
        let f = &d["fields"][0];
        assert_eq!(f[0], "Status", "{d}");
        assert_eq!(f[1], "Tracked for enhancements freeze", "{d}");
        assert_eq!(f[2], want, "{d}");
    }
    // The Markdown report says what to change on the board.
    let md = kepsite(&[
        "report",
        "--repo",
        corpus().to_str().unwrap(),
        "--release",
        "v1.37",
        "--no-history",
        "--board",
        &path,
    ]);
    assert_eq!(md.code, 0, "{}", md.stderr);
    assert!(
        md.stdout.contains("Removed from milestone"),
        "{}",
        md.stdout
    );
}
