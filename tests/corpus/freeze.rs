//! Freeze verdicts on the real corpus (issue 34): the official checklist,
//! judged at the deadline, every view saying the same.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use kepsite::analysis::board::{Freeze, Status};
use kepsite::analysis::outcome::{self, Outcome, ReleaseView};
use kepsite::kep::domain::Release;
use kepsite::project::{Input, Needs, Project, Walk};
use serde_json::Value;

use crate::shared::{commit_before, corpus};
use crate::support::*;

fn load(rev: Option<&str>) -> Project {
    let input = Input {
        rev: rev.map(String::from),
        ..Input::at(corpus())
    };
    Project::load(&input, &Needs::everything(Walk::Skip)).expect("the corpus loads")
}

fn at_head() -> &'static Project {
    static P: OnceLock<Project> = OnceLock::new();
    P.get_or_init(|| load(None))
}

fn view(p: &Project, r: Release) -> ReleaseView {
    outcome::release_view(&p.sources(), r)
}

/// The board status of each KEP of the release in progress.
fn verdicts(v: &ReleaseView) -> BTreeMap<u32, Status> {
    v.entries
        .iter()
        .filter_map(|e| match e.outcome {
            Outcome::Tracking { status } => Some((e.number?, status)),
            _ => None,
        })
        .collect()
}

const V137: Release = Release::new(1, 37);

/// At HEAD (2026-07-24, past the v1.37 freeze) the verdict is taken on the
/// files at the deadline commit. KEP-2837 and KEP-5366 have unanswered
/// questionnaire items and an approved PRR, KEP-5966 lacks Drawbacks and
/// Alternatives, KEP-4317 merges Summary and Motivation: none of that is on
/// the official checklist, so all four are Tracked. KEP-5683 was provisional
/// at the deadline and implementable hours later: it needs an exception.
#[test]
fn v137_verdicts_are_taken_at_the_deadline() {
    let p = at_head();
    let d = p
        .analysis
        .deadline(Freeze::Enhancements)
        .expect("a deadline at HEAD");
    assert_eq!(d.commit, commit_before("2026-06-17T12:00:00Z"));
    assert_eq!(d.at, "2026-06-17 12:00 UTC");
    let prr = p.analysis.deadline(Freeze::Prr).expect("the PRR Freeze");
    assert_eq!(prr.commit, commit_before("2026-06-10T12:00:00Z"));
    let v = verdicts(&view(p, V137));
    for n in [2837, 5366, 5966, 4317] {
        assert_eq!(v[&n], Status::Tracked(Freeze::Enhancements), "KEP-{n}");
    }
    assert_eq!(v[&5683], Status::ExceptionRequired(Freeze::Enhancements));
    let e = view(p, V137)
        .entries
        .into_iter()
        .find(|e| e.number == Some(5683))
        .unwrap();
    let basis = e.readiness.unwrap().basis().unwrap();
    assert!(
        basis.contains("only after the deadline") && basis.contains("status is provisional"),
        "{basis}"
    );
    assert!(
        basis.contains("; at the deadline: status is provisional"),
        "{basis}"
    );
    // With history, when: the first change after the deadline that made it
    // implementable (#6204, merged 2026-06-17 17:43 UTC).
    let cache = tempfile::tempdir().unwrap();
    let j = v137_json("report", &["--cache-dir", cache.path().to_str().unwrap()]);
    let row = *report_rows(&j)
        .iter()
        .find(|k| k["number"] == 5683)
        .unwrap();
    let basis = row["basis"].as_str().unwrap();
    assert!(
        basis.contains("on 2026-06-17 (commit 5c4224e483)"),
        "{basis}"
    );
    // The KEP's own readiness (KEP page, query, export) says the same.
    let q = v137_json("query", &["--cache-dir", cache.path().to_str().unwrap()]);
    let k = q
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["number"] == 5683)
        .unwrap();
    assert_eq!(k["analysis"]["readiness"]["basis"].as_str(), Some(basis));
    // The Test Plan checkbox decides: absent (4762, 4188, 6132) or
    // unchecked (4939, 5758, 5941) is Missed.
    for n in [4762, 4188, 6132, 4939, 5758, 5941] {
        assert_eq!(v[&n], Status::Removed, "KEP-{n}");
    }
    // Removed says why, in the deadline's name.
    let e = view(p, V137)
        .entries
        .into_iter()
        .find(|e| e.number == Some(4939))
        .unwrap();
    let t = e.tracking.unwrap();
    assert_eq!(
        t.why.as_deref(),
        Some("missed the Enhancements Freeze (2026-06-17 12:00 UTC)")
    );
    let at = t.phase(Freeze::Enhancements).deadline.as_ref().unwrap();
    assert_eq!(
        at.failing,
        [kepsite::analysis::freeze::CheckId::TestPlanCheckbox]
    );
}

/// At the deadline commit itself the release is not yet frozen: the four
/// are Tracked for the Enhancements Freeze, KEP-5683 At risk for it
/// (provisional), the checkbox KEPs At risk.
#[test]
fn at_the_deadline_commit_5683_is_not_ready() {
    let p = load(Some(&commit_before("2026-06-17T12:00:00Z")));
    assert!(p.analysis.deadline(Freeze::Enhancements).is_none());
    let v = verdicts(&view(&p, V137));
    for n in [2837, 5366, 5966, 4317] {
        assert_eq!(v[&n], Status::Tracked(Freeze::Enhancements), "KEP-{n}");
    }
    assert_eq!(v[&5683], Status::AtRisk(Freeze::Enhancements));
    assert_eq!(v[&4939], Status::AtRisk(Freeze::Enhancements));
}

/// At the PRR Freeze deadline commit of v1.37 (the last first-parent
/// commit before 2026-06-10 12:00 UTC), KEP-5958 has no `milestone:`
/// struct in kep.yaml: At risk for the PRR Freeze, the item named.
#[test]
fn at_the_prr_freeze_5958_is_at_risk_for_it() {
    let p = load(Some(&commit_before("2026-06-10T12:00:00Z")));
    let view = view(&p, V137);
    let v = verdicts(&view);
    assert_eq!(v[&5958], Status::AtRisk(Freeze::Prr));
    assert_eq!(
        Status::AtRisk(Freeze::Prr).label(V137),
        "At risk for PRR freeze"
    );
    let t = view
        .entries
        .iter()
        .find(|e| e.number == Some(5958))
        .and_then(|e| e.tracking.as_ref())
        .unwrap();
    let failing: Vec<&str> = t.focus().failing().map(|i| i.id.as_str()).collect();
    assert_eq!(failing, ["kep-yaml"]);
    // The board's words for the first deadline follow the schedule.
    assert_eq!(
        Status::Tracked(Freeze::Prr).label(Release::new(1, 38)),
        "Tracked for KEP readiness"
    );
}

/// No KEP of v1.36 (judged at a snapshot after its freeze) or v1.37 is
/// Missed for questionnaire answers or template headings: only required
/// items are reasons, and the only KEPs missed on sections alone lack a
/// part the template requires (checked by hand).
#[test]
fn no_kep_misses_the_freeze_on_advice_alone() {
    let v136_snapshot = load(Some(&commit_before("2026-03-01T00:00:00Z")));
    assert_eq!(v136_snapshot.analysis.current.release, Release::new(1, 36));
    let mut sections_only = Vec::new();
    for (p, r) in [(&v136_snapshot, Release::new(1, 36)), (at_head(), V137)] {
        let v = view(p, r);
        assert!(v.frozen, "{r} is past its freeze");
        for e in &v.entries {
            let Some(ready) = &e.readiness else { continue };
            if e.outcome
                != (Outcome::Tracking {
                    status: Status::Removed,
                })
            {
                continue;
            }
            let failing: Vec<&str> = ready.failing().map(|i| i.id.as_str()).collect();
            assert!(
                !failing.is_empty(),
                "{r} KEP-{:?} missed with no reason",
                e.number
            );
            assert!(
                ready.failing().all(|i| i.required),
                "{r} KEP-{:?}: {failing:?}",
                e.number
            );
            if failing == ["required-sections"] {
                sections_only.push((r.to_string(), e.number.unwrap()));
            }
        }
    }
    // Read by hand: KEP-740's Test Plan has Unit and Integration tests and
    // no e2e tests; KEP-4960's has Unit and e2e tests and no Integration tests.
    let want = [("v1.36", 740), ("v1.36", 4960), ("v1.37", 4960)];
    assert_eq!(
        sections_only,
        want.map(|(r, n)| (r.to_string(), n)).to_vec()
    );
}

/// `kepsite SUB --repo <corpus> --release v1.37 --format json EXTRA…`, parsed.
fn v137_json(sub: &str, extra: &[&str]) -> Value {
    let mut args = vec![
        sub,
        "--repo",
        corpus().to_str().unwrap(),
        "--release",
        "v1.37",
    ];
    args.extend(["--format", "json"]);
    args.extend(extra);
    let run = kepsite(&args);
    assert_eq!(run.code, 0, "{args:?}: {}", run.stderr);
    serde_json::from_str(&run.stdout).unwrap()
}

/// The KEP's row in a page: the `badge outcome-…` class after its link.
fn badge_after(html: &str, n: u32) -> Option<String> {
    let at = html.find(&format!(">KEP-{n}<"))?;
    let rest = &html[at..];
    let b = rest.find("badge outcome-")? + "badge outcome-".len();
    let end = rest[b..].find(['"', ' '])?;
    Some(rest[b..b + end].to_string())
}

/// Every view gives the same verdict for the same KEP: the home page's
/// counts, the release page, the SIG page, the PRR queue, the report's JSON
/// and `query`'s export.
#[test]
fn every_view_says_the_same_verdict() {
    let repo = corpus().to_str().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("site");
    let b = kepsite(&[
        "build",
        "--repo",
        repo,
        "--no-history",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(b.code, 0, "{}", b.stderr);
    let page = |p: &str| std::fs::read_to_string(out.join(p)).unwrap();
    let report = v137_json("report", &["--no-history"]);
    let query = v137_json("query", &["--no-history"]);
    let rows = report_rows(&report);
    // (KEP, SIG, PRR approver's queue, the board's status)
    for (n, sig, approver, want) in [
        (
            2837,
            "sig-node",
            "jpbetz",
            "tracked-for-enhancements-freeze",
        ),
        (5683, "sig-node", "soltysh", "exception-required"),
        (4939, "sig-node", "kannon92", "removed-from-milestone"),
    ] {
        let row = rows.iter().find(|r| r["number"] == n).unwrap();
        assert_eq!(row["outcome"], want, "report KEP-{n}");
        assert_eq!(row["tracking"]["status"], want, "report KEP-{n}");
        let q = query
            .as_array()
            .unwrap()
            .iter()
            .find(|k| k["number"] == n)
            .unwrap();
        assert_eq!(q["tracking"]["status"], want, "query KEP-{n}");
        let label = row["label"].as_str().unwrap();
        assert_eq!(q["tracking"]["label"], label, "query KEP-{n}");
        let release = page("releases/v1.37/index.html");
        assert_eq!(
            badge_after(&release, n).as_deref(),
            Some(want),
            "release page KEP-{n}"
        );
        let sig_page = page(&format!("sigs/{sig}/index.html"));
        assert_eq!(
            badge_after(&sig_page, n).as_deref(),
            Some(want),
            "{sig} page KEP-{n}"
        );
        let queue = page(&format!("prr/{approver}/index.html"));
        assert_eq!(
            badge_after(&queue, n).as_deref(),
            Some(want),
            "PRR queue KEP-{n}"
        );
        let kep_page = page(&format!("keps/{n}/index.html"));
        assert!(
            kep_page.contains(&format!("badge outcome-{want}")),
            "KEP-{n} page"
        );
    }
    let s = &report["summary"];
    let home = page("index.html");
    let release = page("releases/v1.37/index.html");
    for (count, id, label) in [
        (&s["tracked"], "tracked", "Tracked"),
        (&s["at_risk"], "at-risk", "At risk"),
        (&s["exception"], "exception", "Exception"),
        (&s["removed"], "removed", "Removed"),
    ] {
        let text = format!(
            "<span class=\"badge tally-{id}\">{} {label}</span>",
            count.as_u64().unwrap()
        );
        // At HEAD every deadline of v1.37 has passed: "0 At risk" would
        // say nothing, and is left out.
        if id == "at-risk" && count == 0 {
            let badge = "badge tally-at-risk";
            assert!(!home.contains(badge) && !release.contains(badge));
            continue;
        }
        assert!(home.contains(&text), "home lacks {text:?}");
        assert!(release.contains(&text), "release page lacks {text:?}");
    }
    // The export says what `query` says.
    let export = kepsite(&["export", "--repo", repo]);
    assert_eq!(export.code, 0, "{}", export.stderr);
    let export: Value = serde_json::from_str(&export.stdout).unwrap();
    let k = export
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["number"] == 4939)
        .unwrap();
    assert_eq!(k["tracking"]["status"], "removed-from-milestone");
}
