//! The code decides (issue 45): with the kubernetes-features bundle, a
//! gated KEP's outcome in a release that is out comes from its gates, and
//! says so; the files' reading stays beside it where it differs.

use kepsite::analysis::outcome::{self, Decider, Outcome, ReleaseEntry, ReleaseView};
use kepsite::kep::domain::{Release, Stage};

use crate::code::both;

/// The release view with the code at hand.
pub(crate) fn decided_view(minor: u32) -> ReleaseView {
    let c = both();
    let src = outcome::Sources {
        history: Some(&c.history),
        code: Some(&c.code),
        ..outcome::Sources::of(&c.model, &c.analysis)
    };
    outcome::release_view(&src, Release::new(1, minor))
}

fn entry(v: &ReleaseView, n: u32) -> Option<&ReleaseEntry> {
    v.entries.iter().find(|e| e.number == Some(n))
}

/// KEP `n` shipped `stage` in 1.`minor`, as the code decided.
fn shipped_from_code(minor: u32, n: u32, stage: Stage) -> ReleaseEntry {
    let v = decided_view(minor);
    let e = entry(&v, n).unwrap_or_else(|| panic!("KEP-{n} not in v1.{minor}"));
    assert!(
        matches!(e.outcome, Outcome::Shipped { .. }) && e.stage == stage,
        "KEP-{n} in v1.{minor}: {:?} {}",
        e.outcome,
        e.stage
    );
    let d = e.decided.as_ref().expect("decided with the code");
    assert_eq!(d.by, Decider::Code, "KEP-{n} v1.{minor}");
    assert_eq!(d.says, "from the code");
    e.clone()
}

#[test]
fn pod_level_resources_shipped_alpha_in_v1_32_from_the_code() {
    let e = shipped_from_code(32, 2837, Stage::Alpha);
    let d = e.decided.unwrap();
    assert_eq!(d.gate.as_deref(), Some("PodLevelResources"));
    assert_eq!(
        d.files.as_deref(),
        Some("kep.yaml: alpha v1.33, moved after release day")
    );
    // The next release is no second alpha by the code.
    let v = decided_view(33);
    let next = entry(&v, 2837).expect("in v1.33 by the files");
    assert_ne!(next.step, Some(outcome::Step::Introduced), "{next:?}");
}

#[test]
fn image_volumes_beta_in_v1_33_and_stable_in_v1_36_not_v1_35() {
    let beta = shipped_from_code(33, 4639, Stage::Beta);
    assert_eq!(beta.decided.unwrap().gate.as_deref(), Some("ImageVolume"));
    shipped_from_code(36, 4639, Stage::Stable);
    let v = decided_view(35);
    if let Some(e) = entry(&v, 4639) {
        assert!(
            !(matches!(e.outcome, Outcome::Shipped { .. }) && e.stage == Stage::Stable),
            "{e:?}"
        );
        assert_eq!(e.decided.as_ref().unwrap().by, Decider::Code);
    }
}

#[test]
fn resource_claim_device_status_is_not_stable_in_v1_35() {
    let v = decided_view(35);
    let e = entry(&v, 4817);
    assert!(
        e.is_none_or(
            |e| !(matches!(e.outcome, Outcome::Shipped { .. }) && e.stage == Stage::Stable)
        ),
        "{e:?}"
    );
    if let Some(e) = e {
        assert_eq!(e.decided.as_ref().unwrap().by, Decider::Code);
    }
}

#[test]
fn kubelet_and_cdi_keps_are_stable_in_v1_31_from_the_code() {
    shipped_from_code(31, 3017, Stage::Stable);
    shipped_from_code(31, 4009, Stage::Stable);
}

/// Every entry of a release out says who decided, and a KEP without gates
/// in the code is decided by its files, unchanged.
/// KEP-2589 (Portworx CSI migration, GA in v1.33): both its gates left
/// the code in v1.36, the GA one with the beta `InTreePluginPortworxUnregister`.
/// That is the GA feature's clean-up, not a removal: the KEP continued at
/// stable there, as the v1.36 post lists it.
#[test]
fn gates_dropped_after_ga_are_clean_up_not_a_removal() {
    let v = decided_view(36);
    let e = entry(&v, 2589).expect("KEP-2589 in v1.36");
    assert!(
        matches!(e.outcome, Outcome::LatestOnly) && e.step == Some(outcome::Step::Continued),
        "{e:?}"
    );
}

#[test]
fn every_entry_says_who_decided() {
    let c = both();
    let v = decided_view(34);
    let plain = {
        let src = outcome::Sources {
            history: Some(&c.history),
            ..outcome::Sources::of(&c.model, &c.analysis)
        };
        outcome::release_view(&src, Release::new(1, 34))
    };
    assert!(plain.entries.iter().all(|e| e.decided.is_none()));
    let mut files = 0;
    for e in &v.entries {
        let d = e.decided.as_ref().expect("decided");
        let gated = e.number.is_some_and(|n| c.code.gates_of.contains_key(&n));
        if !gated {
            assert_eq!(d.by, Decider::Files, "KEP {:?}", e.number);
            let p = entry(&plain, e.number.unwrap_or(0)).expect("same KEPs without gates");
            assert_eq!(
                (p.outcome.id(), &p.stage, p.step),
                (e.outcome.id(), &e.stage, e.step)
            );
            files += 1;
        }
    }
    assert!(files > 10, "{files}");
    assert!(
        v.entries
            .iter()
            .any(|e| e.decided.as_ref().unwrap().by == Decider::Code)
    );
}

/// The agreement test's twin: with the code deciding, the stage changes of
/// v1.31-v1.36 agree both ways for KEPs with gates (`-- --nocapture`
/// prints the table docs/release-rules.md gives, and what is left).
#[test]
fn with_the_code_deciding_the_changes_agree() {
    let c = both();
    let views: Vec<_> = (0..=36)
        .map(|m| (Release::new(1, m), decided_view(m).entries))
        .collect();
    let a = outcome::agreement(&c.model, Some(&c.history), &c.code, &views, 31..=36);
    println!("| stage | files | gates | both | precision | recall |");
    let (mut files, mut gates, mut agreed) = (0, 0, 0);
    for (s, n) in &a.stages {
        println!(
            "| {s} | {} | {} | {} | {:.1}% | {:.1}% |",
            n.files,
            n.code,
            n.both,
            100.0 * n.precision(),
            100.0 * n.recall()
        );
        files += n.files;
        gates += n.code;
        agreed += n.both;
    }
    println!("\nset aside ({}):", a.excluded.len());
    for e in &a.excluded {
        let d = &e.change;
        println!(
            "- KEP-{} {} {} ({}): {}",
            d.kep, d.stage, d.release, d.side, e.reason
        );
        assert!(!e.reason.is_empty());
    }
    println!("\ndisagreements ({}):", a.disagreements.len());
    for d in &a.disagreements {
        // What is left: deprecations kep.yaml records that no gate shows
        // (a gate is not always touched when a feature is deprecated); the
        // files decide those, by the rule (outcome/decide.rs).
        let why = "a deprecation no gate shows: the files decide it";
        println!(
            "- KEP-{} {} {} ({} only): {}; {why}",
            d.kep, d.stage, d.release, d.side, d.says
        );
        assert!(
            d.side == "files" && d.stage.is_deprecation(),
            "a disagreement the rule does not explain: {d:?}"
        );
    }
    let precision = 100.0 * agreed as f64 / files.max(1) as f64;
    let recall = 100.0 * agreed as f64 / gates.max(1) as f64;
    println!("\nall stages: precision {precision:.1}%, recall {recall:.1}%");
    assert!(precision >= 99.0, "precision {precision:.1}%");
    assert!(recall >= 99.0, "recall {recall:.1}%");
    for s in ["alpha", "beta", "stable"] {
        let n = &a.stages[s];
        assert!(
            100.0 * n.precision() >= 99.0 && 100.0 * n.recall() >= 99.0,
            "{s}: {n:?}"
        );
    }
}
