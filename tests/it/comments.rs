//! `report --format comments` on `content/` (v1.36, before its PRR
//! Freeze): the template fixture (tests/fixtures/comment-templates.md, in
//! the shape of a release team's template page) filled for every KEP, and
//! a template with an unknown placeholder refused with exit code 2.

use serde_json::Value;

use crate::support::kepsite;

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/comment-templates.md"
);
const UNKNOWN: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/comment-templates-unknown.md"
);
const ISSUES: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/report-issues.json"
);

/// `report --release v1.36 --format FORMAT EXTRA…` on `content/`.
fn report(format: &str, extra: &[&str]) -> crate::support::Run {
    let mut args = vec![
        "report",
        "--repo",
        "content",
        "--no-history",
        "--release",
        "v1.36",
        "--format",
        format,
    ];
    args.extend_from_slice(extra);
    kepsite(&args)
}

/// `report --format FORMAT` on `content/`'s v1.36, which must succeed.
fn run_format(format: &str, extra: &[&str]) -> String {
    let run = report(format, extra);
    assert_eq!(run.code, 0, "{format} {extra:?}: {}", run.stderr);
    run.stdout
}

fn comments(extra: &[&str]) -> Vec<Value> {
    serde_json::from_str(&run_format("comments-json", extra)).unwrap()
}

fn report_rows() -> Vec<Value> {
    let j: Value = serde_json::from_str(&run_format("json", &[])).unwrap();
    crate::support::report_rows(&j)
        .into_iter()
        .cloned()
        .collect()
}

#[test]
fn the_fixture_templates_are_filled_for_every_kep() {
    let list = comments(&["--phase", "prr", "--templates", FIXTURE]);
    let rows = report_rows();
    assert_eq!(list.len(), rows.len());
    for c in &list {
        let b = c["body"].as_str().unwrap();
        let n = c["kep"].as_u64().unwrap();
        let row = rows.iter().find(|r| r["number"] == n).unwrap();
        let tracked = row["outcome"] == "tracked-for-prr-freeze";
        let head = if tracked {
            "FIXTURE ready: "
        } else {
            "FIXTURE at risk: "
        };
        assert!(b.starts_with(head), "KEP-{n}: {b}");
        assert!(b.contains(&format!("KEP-{n} ")), "{b}");
        assert!(!b.contains("This block is ignored"), "{b}");
        // Every placeholder is filled: none is left in braces.
        for p in kepsite::report::comments::PLACEHOLDERS {
            assert!(!b.contains(&format!("{{{p}}}")), "{{{p}}} left in {b}");
        }
        assert!(b.contains("in v1.36"), "{b}");
        assert!(b.contains(&format!("Board: {}", row["label"].as_str().unwrap())));
        if tracked {
            assert!(b.contains("Due ") && b.contains("UTC"), "{b}");
        }
        // The authors of kep.yaml are addressed, and nobody else is.
        for m in c["mentions"].as_array().unwrap() {
            assert!(b.contains(&format!("@{}", m.as_str().unwrap())), "{b}");
        }
        // Any other `@` is defused (a zero-width space after it).
        let ats = b.matches('@').count() - b.matches("@&#8203;").count();
        assert_eq!(ats, c["mentions"].as_array().unwrap().len(), "{b}");
    }
}

#[test]
fn the_default_templates_address_the_authors_and_the_issue_assignees() {
    let list = comments(&["--phase", "enhancements"]);
    let c2750 = list.iter().find(|c| c["kep"] == 2750).unwrap();
    assert_eq!(c2750["mentions"], serde_json::json!(["greta-l"]));
    let dir = tempfile::tempdir().unwrap();
    let mut issues: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(ISSUES).unwrap()).unwrap();
    for i in &mut issues {
        if i["number"] == 4321 {
            i["assignees"] =
                serde_json::json!([{"login": "shadow-1"}, {"login": "x](javascript:y)"}]);
        }
    }
    let path = dir.path().join("issues.json");
    std::fs::write(&path, serde_json::to_vec(&issues).unwrap()).unwrap();
    let list = comments(&[
        "--phase",
        "enhancements",
        "--issues",
        path.to_str().unwrap(),
    ]);
    let c = list.iter().find(|c| c["kep"] == 4321).unwrap();
    assert_eq!(c["mentions"], serde_json::json!(["shadow-1"]));
    let b = c["body"].as_str().unwrap();
    assert!(b.contains("@shadow-1") && !b.contains("javascript"), "{b}");
}

#[test]
fn an_unknown_placeholder_exits_2_naming_it_and_its_line() {
    let run = report(
        "comments",
        &["--phase", "enhancements", "--templates", UNKNOWN],
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stdout.is_empty());
    assert!(
        run.stderr
            .contains("comment-templates-unknown.md:7: unknown placeholder {shepherd_name}"),
        "{}",
        run.stderr
    );
}

#[test]
fn without_a_phase_the_comments_are_the_snapshots_own() {
    // content/'s snapshot is before v1.36's PRR Freeze.
    let own = comments(&[]);
    assert!(!own.is_empty());
    assert!(own.iter().all(|c| c["phase"] == "prr"), "{own:?}");
    assert_eq!(own, comments(&["--phase", "prr"]));
    assert_ne!(own, comments(&["--phase", "code-party"]));
}

/// The text of the copy box `id` on `page`, unescaped.
fn copy_box(page: &str, id: &str) -> Option<String> {
    let open = format!("<pre class=\"announcement\" id=\"{id}\"><code>");
    let start = page.find(&open)? + open.len();
    let end = start + page[start..].find("</code></pre>")?;
    Some(crate::support::unescape(&page[start..end]))
}

#[test]
fn the_portal_gives_each_keps_comment_and_each_sigs_message() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("site");
    let run = kepsite(&[
        "build",
        "--repo",
        "content",
        "--no-history",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let read = |rel: &str| std::fs::read_to_string(out.join(rel)).unwrap();
    let page = read("releases/v1.36/comments/index.html");
    let list = comments(&[]);
    for c in &list {
        let n = c["kep"].as_u64().unwrap();
        assert!(page.contains(&format!("id=\"kep-{n}\"")), "KEP-{n}");
        let body = copy_box(&page, &format!("c-{n}")).expect("a copy box");
        assert_eq!(body, c["body"].as_str().unwrap(), "KEP-{n}");
        assert!(page.contains(&format!("data-copy=\"c-{n}\"")));
    }
    // KEP values stay text on the page: no element from a title.
    assert_eq!(page.matches("<pre").count(), list.len());
    let release = read("releases/v1.36/index.html");
    assert!(
        release.contains("href=\"/releases/v1.36/comments/\""),
        "{release}"
    );
    assert!(release.contains("before the PRR Freeze"), "{release}");
    // Only the release in progress has comments.
    assert!(!out.join("releases/v1.35/comments").exists());
    assert!(!read("releases/v1.35/index.html").contains("/comments/"));

    // Each SIG with KEPs on the board has its outreach message; the others none.
    let outreach = run_format("sig-outreach", &[]);
    let on_board: std::collections::BTreeSet<String> = report_rows()
        .iter()
        .map(|r| r["sig"].as_str().unwrap().to_string())
        .collect();
    let mut sigs = 0;
    for sig in [
        "sig-apps",
        "sig-auth",
        "sig-network",
        "sig-node",
        "sig-scheduling",
        "sig-storage",
    ] {
        let html = read(&format!("sigs/{sig}/index.html"));
        match copy_box(&html, "outreach-text") {
            Some(text) => {
                sigs += 1;
                assert!(on_board.contains(sig), "{sig} has no KEP on the board");
                assert!(text.starts_with(&format!("*{sig}: ")), "{text}");
                assert!(outreach.contains(&text), "{sig}: {text}\n---\n{outreach}");
            }
            None => assert!(
                !on_board.contains(sig),
                "{sig} has KEPs on the board and no message"
            ),
        }
    }
    assert!(sigs >= 2, "{sigs} SIG pages with a message");
}

#[test]
fn the_retro_numbers_are_the_reports() {
    let retro: Value = serde_json::from_str(&run_format("retro-json", &[])).unwrap();
    let report: Value = serde_json::from_str(&run_format("json", &[])).unwrap();
    for key in [
        "total",
        "tracked",
        "at_risk",
        "exception",
        "removed",
        "shipped",
        "slipped",
    ] {
        assert_eq!(retro["totals"][key], report["summary"][key], "{key}");
    }
    assert_eq!(retro["by_sig"], report["summary"]["by_sig"]);
    let rows = report_rows();
    let prr = &retro["deadlines"][0];
    let verdicts = ["met", "not_met", "met_late", "not_checked"];
    let sum: u64 = verdicts.iter().map(|v| prr[v].as_u64().unwrap()).sum();
    assert_eq!(sum as usize, rows.len());
    let md = run_format("retro", &[]);
    let all = md.lines().find(|l| l.starts_with("| **all** |")).unwrap();
    assert!(
        all.starts_with(&format!("| **all** | {} |", rows.len())),
        "{all}"
    );
}

#[test]
fn sig_outreach_puts_what_needs_action_first_and_lists_idle_sigs() {
    let md = run_format("sig-outreach", &[]);
    let rows = report_rows();
    for msg in md.split("\n\n").filter(|m| m.starts_with("*sig-")) {
        let lines: Vec<&str> = msg.lines().skip(1).collect();
        let needs = |l: &str| l.contains("*At risk") || l.contains("*Exception");
        let first_calm = lines.iter().position(|l| !needs(l)).unwrap_or(lines.len());
        assert!(lines[first_calm..].iter().all(|l| !needs(l)), "{msg}");
    }
    let mentioned = rows
        .iter()
        .filter(|r| md.contains(&format!("KEP-{} ", r["number"])))
        .count();
    assert_eq!(mentioned, rows.len());
    assert!(md.contains("*SIGs with nothing in v1.36:*"), "{md}");
}

#[test]
fn the_freeze_announcement_counts_every_kep_on_the_board() {
    let md = run_format("freeze-announcement", &[]);
    let rows = report_rows();
    let sum: usize = ["Tracked", "At risk", "Exception", "Removed", "Deferred"]
        .iter()
        .map(|t| {
            let l = md
                .lines()
                .find(|l| l.starts_with(&format!("- {t}: ")))
                .unwrap();
            l.rsplit(' ').next().unwrap().parse::<usize>().unwrap()
        })
        .sum();
    assert_eq!(sum, rows.len(), "{md}");
    assert!(
        md.contains(&format!("the {} KEPs on the board", rows.len())),
        "{md}"
    );
}
