//! Release truth on the real corpus: the release in progress, what shipped
//! and what slipped, one definition of "in release R" for every view.

use std::collections::BTreeSet;
use std::sync::OnceLock;

use kepsite::analysis::Analysis;
use kepsite::analysis::board::Freeze;
use kepsite::analysis::calendar::Basis;
use kepsite::analysis::outcome::{self, Outcome, Phase, ReleaseView, Sources};
use kepsite::kep::domain::{Release, Stage};
use kepsite::model::Model;
use kepsite::project::{Input, Project};
use kepsite::repo::history::{History, HistoryOptions, walk};

use crate::shared::corpus;
use crate::support::*;

struct Corpus {
    model: Model,
    analysis: Analysis,
    history: History,
}

fn head() -> &'static Corpus {
    static C: OnceLock<Corpus> = OnceLock::new();
    C.get_or_init(|| {
        let Project {
            model, analysis, ..
        } = load_files(&Input::at(corpus()));
        let history = walk(corpus(), "HEAD", &HistoryOptions::default()).unwrap();
        Corpus {
            model,
            analysis,
            history,
        }
    })
}

fn sources() -> Sources<'static> {
    let c = head();
    Sources {
        history: Some(&c.history),
        ..Sources::of(&c.model, &c.analysis)
    }
}

fn view(r: Release) -> ReleaseView {
    outcome::release_view(&sources(), r)
}

fn entry(v: &ReleaseView, n: u32) -> &outcome::ReleaseEntry {
    v.entries
        .iter()
        .find(|e| e.number == Some(n))
        .unwrap_or_else(|| panic!("KEP {n} not in {}", v.release))
}

/// The corpus HEAD is dated 2026-07-24, inside the v1.37 cycle; KEP-4443's
/// latest-milestone v1.38 does not move it.
#[test]
fn the_release_in_progress_at_head_is_v1_37() {
    let cur = head().analysis.current;
    assert_eq!(cur.release, Release::new(1, 37));
    assert_eq!(cur.basis, Basis::Calendar);
    assert_eq!(
        cur.today.map(|d| d.to_string()).as_deref(),
        Some("2026-07-24")
    );
    let k4443 = head().model.kep(4443).unwrap();
    assert_eq!(k4443.meta.latest_release(), Some(Release::new(1, 38)));
    // v1.38 is planned work, nothing there is at risk.
    let v138 = view(Release::new(1, 38));
    assert_eq!(v138.phase, Phase::Planned);
    assert!(v138.entries.iter().all(|e| e.outcome == Outcome::Planned));
}

/// A release that is out reports what shipped and what slipped: no Ready,
/// no At risk; a KEP that shipped a stage said so on release day (its
/// kep.yaml then named the release as latest-milestone: `step` says
/// whether the stage was new there), or, where the history does not cover
/// the release day, its stage milestone names the release and it reached
/// the stage.
#[test]
fn past_releases_report_what_shipped_and_slipped() {
    for minor in 29..=36 {
        let r = Release::new(1, minor);
        let v = view(r);
        assert_eq!(v.phase, Phase::Out, "{r}");
        assert!(!v.entries.is_empty(), "{r}");
        for e in &v.entries {
            assert!(
                !matches!(e.outcome, Outcome::Tracking { .. } | Outcome::Planned),
                "{r}: KEP {:?} is {:?}",
                e.number,
                e.outcome
            );
            if let Outcome::Shipped { commit } = &e.outcome {
                let k = &head().model.keps[e.id];
                assert!(
                    e.step.is_some() || k.meta.milestone.release(&e.stage) == Some(r),
                    "{r}: KEP {:?} shipped {} by neither reading",
                    e.number,
                    e.stage
                );
                assert!(
                    commit.is_some(),
                    "{r}: KEP {:?}: no landing commit",
                    e.number
                );
            }
        }
        let stable_shipped = v
            .entries
            .iter()
            .filter(|e| e.stage == Stage::Stable && e.outcome.id() == "shipped")
            .count();
        assert!(stable_shipped >= 8, "{r}: {stable_shipped} stable");
    }
}

/// What shipped is read on release day: a KEP tracked again at the stage
/// it had shipped that stage again ("continued", not slipped); a stage whose
/// milestone was moved past the release after release day did not ship
/// there (issue 35: the feature gates agree).
#[test]
fn what_shipped_is_read_on_release_day() {
    // DRA device taints and HPA scale to zero: alpha again in v1.35.
    assert_eq!(
        shipped(35, 5055),
        ("shipped", "alpha".into(), Some("continued"))
    );
    assert_eq!(
        shipped(35, 2021),
        ("shipped", "alpha".into(), Some("continued"))
    );
    // 3458 said stable with latest-milestone v1.29 on v1.29's release day;
    // a commit of 2024-01-23 moved milestone.stable to v1.30: stable in
    // v1.30, not v1.29.
    assert_eq!(shipped(29, 3458).0, "slipped");
    assert_eq!(
        shipped(30, 3458),
        ("shipped", "stable".into(), Some("graduated"))
    );
    // AppArmor: milestone.stable moved from v1.30 to v1.31 after v1.30.
    assert_eq!(shipped(30, 24).0, "slipped");
    assert_eq!(
        shipped(31, 24),
        ("shipped", "stable".into(), Some("graduated"))
    );
    // 4872 said alpha, latest-milestone v1.35 on v1.35's release day; a
    // commit of 2026-06-10 moved milestone.alpha (and latest-milestone) to
    // v1.37: it slipped.
    let v135 = view(Release::new(1, 35));
    let e = entry(&v135, 4872);
    let Outcome::Slipped { went, to, .. } = &e.outcome else {
        panic!("4872 in v1.35: {:?}", e.outcome);
    };
    assert_eq!(*to, Some(Release::new(1, 37)), "{went}");
    assert!(went.contains("milestone.alpha is v1.37"), "{went}");
}

/// (outcome id, stage, step) of KEP `n` in v1.`minor`.
fn shipped(minor: u32, n: u32) -> (&'static str, String, Option<&'static str>) {
    let v = view(Release::new(1, minor));
    let e = entry(&v, n);
    (
        e.outcome.id(),
        e.stage.as_str().to_string(),
        e.step.map(|s| s.label()),
    )
}

/// Issue 35's cases, on the files alone (Kubernetes' feature gates are the
/// reference: PDBUnhealthyPodEvictionPolicy GA in v1.31, and so on).
#[test]
fn stable_re_targets_ship_in_the_later_release() {
    for (n, not, is) in [
        (3017, 30, 31),
        (4009, 30, 31),
        (2831, 33, 34),
        (3939, 33, 34),
    ] {
        assert_ne!(shipped(not, n).0, "shipped", "KEP-{n} in v1.{not}");
        assert_eq!(
            shipped(is, n),
            ("shipped", "stable".into(), Some("graduated")),
            "KEP-{n} in v1.{is}"
        );
    }
    // Image volumes: stable moved from v1.35 to v1.36.
    assert_eq!(shipped(35, 4639).0, "slipped");
    assert_eq!(
        shipped(36, 4639),
        ("shipped", "stable".into(), Some("graduated"))
    );
    // DRA device status: stable moved v1.35 -> v1.36 -> v1.37.
    assert_eq!(shipped(35, 4817).0, "slipped");
    assert_eq!(shipped(36, 4817).0, "slipped");
}

/// A KEP reaches each stage once: 3973 and 4192 graduated to beta in v1.35
/// and continued in v1.36; across every release that is out, no KEP is new
/// or graduated at one stage twice.
#[test]
fn a_kep_reaches_each_stage_once() {
    for n in [3973, 4192] {
        assert_eq!(
            shipped(35, n),
            ("shipped", "beta".into(), Some("graduated")),
            "KEP-{n}"
        );
        assert_eq!(
            shipped(36, n),
            ("shipped", "beta".into(), Some("continued")),
            "KEP-{n}"
        );
    }
    let mut seen = std::collections::BTreeMap::new();
    for minor in 0..37 {
        for e in view(Release::new(1, minor)).entries {
            let Some(step) = e.step else { continue };
            if step == outcome::Step::Continued {
                continue;
            }
            if let Some(first) = seen.insert((e.id, e.stage.clone()), minor) {
                panic!(
                    "KEP {:?} reached {} in v1.{first} and again in v1.{minor}",
                    e.number, e.stage
                );
            }
        }
    }
    assert!(seen.len() > 500, "{} stage changes", seen.len());
}

/// The stage in a release: 4358 (beta v1.31, stable v1.32) is beta in v1.31;
/// 3515 (stable v1.29) is stable in v1.29 whatever its latest-milestone.
#[test]
fn the_stage_in_a_release_follows_the_stage_milestones() {
    let c = head();
    let k = c.model.kep(4358).unwrap();
    assert_eq!(
        outcome::stage_in(k, None, Release::new(1, 31)),
        Some(Stage::Beta)
    );
    assert_eq!(
        outcome::stage_in(k, None, Release::new(1, 32)),
        Some(Stage::Stable)
    );
    let k = c.model.kep(3515).unwrap();
    assert_eq!(
        k.meta.milestone.release(&Stage::Stable),
        Some(Release::new(1, 29))
    );
    assert_eq!(
        outcome::stage_in(k, None, Release::new(1, 29)),
        Some(Stage::Stable)
    );
    assert_eq!(entry(&view(Release::new(1, 31)), 4358).stage, Stage::Beta);
}

/// A KEP that targeted a release by latest-milestone on master and then
/// moved on is in that release, as slipped, with where it went.
#[test]
fn slipped_keps_say_where_they_went() {
    let mut seen = 0;
    for minor in 29..=36 {
        for e in view(Release::new(1, minor)).entries {
            if let Outcome::Slipped { went, to, .. } = &e.outcome {
                assert!(!went.is_empty());
                if let Some(to) = to {
                    assert!(to.minor > minor || went.contains("in"), "{went}");
                }
                seen += 1;
            }
        }
    }
    assert!(seen > 20, "{seen} slipped");
}

/// `query --release`, the report and the release model agree on which KEPs
/// are in a release that is out (v1.35), the release in progress (v1.37)
/// and a planned one (v1.38), with the history as the pages read it.
#[test]
fn one_definition_of_in_release_for_every_view() {
    let c = head();
    let repo = corpus().to_str().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let cache = cache.path().to_str().unwrap();
    for (minor, phase) in [(35, "out"), (37, "in-progress"), (38, "planned")] {
        let r = Release::new(1, minor);
        let name = r.to_string();
        let lib: BTreeSet<&str> = view(r)
            .entries
            .iter()
            .map(|e| c.model.keps[e.id].path.as_str())
            .collect();
        // `kepsite <cmd> --release <name> --format json`, with one cache.
        let json = |cmd: &str| -> serde_json::Value {
            let run = kepsite(&[
                cmd,
                "--repo",
                repo,
                "--release",
                &name,
                "--cache-dir",
                cache,
                "--format",
                "json",
            ]);
            assert_eq!(run.code, 0, "{cmd}: {}", run.stderr);
            serde_json::from_str(&run.stdout).unwrap()
        };
        let q = json("query");
        let q = q.as_array().unwrap();
        let queried: BTreeSet<&str> = q.iter().map(|k| k["path"].as_str().unwrap()).collect();
        assert_eq!(queried, lib, "{name}");
        let rep = json("report");
        assert_eq!(
            rep["summary"]["total"].as_u64().unwrap() as usize,
            lib.len(),
            "{name}"
        );
        assert_eq!(rep["phase"], phase);
        assert!(lib.len() > 10, "{name}: {}", lib.len());
    }
}

/// The corpus HEAD (2026-07-24) is 37 days past v1.37's Enhancements Freeze
/// (2026-06-17): its KEPs are Tracked, need an exception or were removed
/// from the milestone, never At risk for the Enhancements Freeze, on the
/// release view, the report (Markdown and JSON) and the release page's
/// words.
#[test]
fn past_the_freeze_a_kep_is_tracked_or_removed() {
    let v = view(Release::new(1, 37));
    assert_eq!(v.phase, Phase::InProgress);
    assert!(v.frozen);
    let c = v.counts();
    assert!(c.removed > 0 && c.tracked > 0, "{c:?}");
    assert_eq!(c.at_risk, 0, "{c:?}");
    let repo = corpus().to_str().unwrap();
    let args = [
        "report",
        "--repo",
        repo,
        "--release",
        "v1.37",
        "--no-history",
    ];
    let md = kepsite(&args);
    assert_eq!(md.code, 0, "{}", md.stderr);
    assert!(
        md.stdout.contains("Removed from milestone"),
        "{}",
        md.stdout
    );
    assert!(
        md.stdout.contains("Tracked for enhancements freeze"),
        "{}",
        md.stdout
    );
    assert!(!md.stdout.contains("At risk for"), "{}", md.stdout);
    let mut json_args = args.to_vec();
    json_args.extend(["--format", "json"]);
    let j: serde_json::Value = serde_json::from_str(&kepsite(&json_args).stdout).unwrap();
    assert_eq!(j["frozen"], true);
    assert_eq!(
        j["summary"]["removed"].as_u64().unwrap() as usize,
        c.removed
    );
    // The report judges at the deadline commit: the KEPs that met the
    // checklist only after it need an exception; the view without the
    // deadline counts them tracked.
    let n = |k: &str| j["summary"][k].as_u64().unwrap() as usize;
    assert!(n("exception") > 0);
    assert_eq!(n("tracked") + n("exception"), c.tracked);
    // v1.36's cycle, seen from a day before its freeze, still says At risk:
    // the words follow the snapshot's day, not the clock.
    let before = outcome::release_view(
        &Sources {
            history: None,
            current: kepsite::analysis::calendar::Current {
                today: Some("2026-01-10".parse().unwrap()),
                now: None,
                cycle: kepsite::analysis::calendar::cycle(Release::new(1, 36)),
                release: Release::new(1, 36),
                ..head().analysis.current
            },
            ..sources()
        },
        Release::new(1, 36),
    );
    assert!(!before.frozen);
    let b = before.counts();
    assert!(b.tracked + b.at_risk > 0, "{b:?}");
    assert_eq!(b.removed + b.exception, 0, "{b:?}");
    assert!(before.entries.iter().all(|e| match e.outcome {
        Outcome::Tracking { status } => status.freeze() != Some(Freeze::Code),
        _ => false,
    }));
}

/// The handbook: a deprecation or removal KEP has `status: withdrawn` and
/// latest-milestone set to the release. KEP-3503 (alpha in v1.26, withdrawn
/// with latest-milestone v1.33) is v1.33's removal, with the commit that
/// recorded it; KEP-5978, withdrawn before its alpha shipped, is no removal.
#[test]
fn a_withdrawal_after_shipping_is_the_release_removal() {
    let v133 = view(Release::new(1, 33));
    let e = entry(&v133, 3503);
    assert_eq!(e.stage, Stage::Removed);
    assert!(
        matches!(&e.outcome, Outcome::Deprecated { commit: Some(c) } if c.date.as_str() > "2025"),
        "{:?}",
        e.outcome
    );
    let k5978 = head().model.kep(5978).unwrap();
    assert!(!outcome::withdrawn_in(k5978, Release::new(1, 37)));
    let v137 = view(Release::new(1, 37));
    assert_ne!(entry(&v137, 5978).stage, Stage::Removed);
}
