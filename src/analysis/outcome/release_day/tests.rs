//! Release-day reading and the once-per-stage rule, on small histories.

use super::super::out_entry;
use super::*;
use crate::model::from_snapshot;
use crate::repo::RepoSnapshot;
use crate::repo::history::CommitRef;

/// A KEP whose kep.yaml today is `yaml`.
fn kep(yaml: &str) -> Kep {
    let snap = RepoSnapshot::from_files(&[
        ("keps/sig-node/100-x/README.md", "# X\n"),
        ("keps/sig-node/100-x/kep.yaml", yaml),
    ]);
    from_snapshot(snap, None).keps.remove(0)
}

/// A history of (date, status, stage, latest-milestone) changes.
fn hist(changes: &[(&str, &str, &str, &str)]) -> KepHistory {
    let at = |i: usize, d: &str| CommitRef {
        id: format!("c{i}"),
        time: 0,
        date: d.into(),
        summary: String::new(),
    };
    KepHistory {
        number: 100,
        paths: vec!["keps/sig-node/100-x/kep.yaml".into()],
        changes: changes
            .iter()
            .enumerate()
            .map(|(i, (d, status, stage, latest))| Change {
                commit: format!("c{i}"),
                time: 0,
                date: d.to_string(),
                path: "keps/sig-node/100-x/kep.yaml".into(),
                status: Some(status.to_string()),
                stage: Some(stage.to_string()),
                latest_milestone: Some(latest.to_string()),
            })
            .collect(),
        first: at(0, changes[0].0),
        last: at(changes.len() - 1, changes[changes.len() - 1].0),
    }
}

const V: fn(u32) -> Release = |m| Release::new(1, m);

fn yaml(stage: &str, latest: &str, milestones: &str) -> String {
    format!(
        "title: X\nkep-number: 100\nowning-sig: sig-node\nstatus: implementable\n\
         stage: {stage}\nlatest-milestone: \"{latest}\"\nmilestone:\n{milestones}"
    )
}

/// What the release view says of the KEP in `r`: (stage, outcome id, step).
fn out(k: &Kep, h: &KepHistory, r: Release) -> Option<(Stage, &'static str, Option<Step>)> {
    out_entry(k, Some(h), r).map(|(s, o, st)| (s, o.id(), st))
}

#[test]
fn an_alpha_tracked_again_ships_alpha_continued() {
    // Alpha since v1.33 (released 2025-04-23), tracked again in v1.35
    // (released 2025-12-17) and still alpha then: shipped, continued.
    let k = kep(&yaml("alpha", "v1.36", "  alpha: \"v1.33\"\n"));
    let h = hist(&[
        ("2025-02-01", "implementable", "alpha", "v1.33"),
        ("2025-10-15", "implementable", "alpha", "v1.35"),
        ("2026-02-01", "implementable", "alpha", "v1.36"),
    ]);
    let v = judge(&k, Some(&h), V(35), &Stage::Alpha);
    let Verdict::In(stage, Outcome::Shipped { commit }) = v else {
        panic!("{v:?}");
    };
    assert_eq!(stage, Stage::Alpha);
    assert_eq!(commit.map(|c| c.commit), Some("c1".to_string()));
    assert_eq!(
        out(&k, &h, V(33)),
        Some((Stage::Alpha, "shipped", Some(Step::Introduced)))
    );
    assert_eq!(
        out(&k, &h, V(35)),
        Some((Stage::Alpha, "shipped", Some(Step::Continued)))
    );
}

#[test]
fn a_stable_moved_after_release_day_shipped_in_the_later_release() {
    // Stable with latest v1.29 on v1.29's release day (2023-12-13); a
    // commit of 2024-01-23 moved milestone.stable to v1.30: the work did
    // not land in v1.29, and v1.30 is its graduation.
    let k = kep(&yaml(
        "stable",
        "v1.30",
        "  beta: \"v1.27\"\n  stable: \"v1.30\"\n",
    ));
    let h = hist(&[
        ("2023-03-01", "implementable", "beta", "v1.27"),
        ("2023-10-04", "implementable", "stable", "v1.29"),
        ("2024-01-23", "implementable", "stable", "v1.30"),
    ]);
    let v = judge(&k, Some(&h), V(29), &Stage::Stable);
    let Verdict::In(Stage::Stable, Outcome::Slipped { went, to, .. }) = v else {
        panic!("{v:?}");
    };
    assert_eq!(to, Some(V(30)));
    assert_eq!(
        went,
        "milestone.stable is v1.30 (moved after release day on 2024-01-23)"
    );
    assert_eq!(
        out(&k, &h, V(30)),
        Some((Stage::Stable, "shipped", Some(Step::Graduated)))
    );
    assert_eq!(
        out(&k, &h, V(27)),
        Some((Stage::Beta, "shipped", Some(Step::Introduced)))
    );
}

#[test]
fn a_stage_is_reached_once() {
    // Said alpha with latest v1.35 and milestone.beta v1.35 on v1.35's
    // day, then beta with latest v1.36 keeping milestone.beta v1.35:
    // beta graduated in v1.35 and continued in v1.36.
    let k = kep(&yaml(
        "beta",
        "v1.36",
        "  alpha: \"v1.33\"\n  beta: \"v1.35\"\n",
    ));
    let h = hist(&[
        ("2025-02-01", "implementable", "alpha", "v1.33"),
        ("2025-09-25", "implementable", "alpha", "v1.35"),
        ("2026-02-09", "implementable", "beta", "v1.36"),
    ]);
    assert_eq!(
        out(&k, &h, V(35)),
        Some((Stage::Beta, "shipped", Some(Step::Graduated)))
    );
    assert_eq!(
        out(&k, &h, V(36)),
        Some((Stage::Beta, "shipped", Some(Step::Continued)))
    );
}

#[test]
fn stable_again_is_no_stage_change() {
    let k = kep(&yaml(
        "stable",
        "v1.32",
        "  beta: \"v1.29\"\n  stable: \"v1.31\"\n",
    ));
    let h = hist(&[
        ("2024-01-10", "implementable", "beta", "v1.29"),
        ("2024-06-01", "implemented", "stable", "v1.31"),
        ("2024-10-01", "implemented", "stable", "v1.32"),
    ]);
    assert_eq!(
        out(&k, &h, V(31)),
        Some((Stage::Stable, "shipped", Some(Step::Graduated)))
    );
    assert_eq!(
        out(&k, &h, V(32)),
        Some((Stage::Unset, "latest-only", Some(Step::Continued)))
    );
}

#[test]
fn an_alpha_whose_milestone_moved_after_release_day_slipped() {
    // Alpha with latest v1.35 on v1.35's day; moved to v1.37 later.
    let k = kep(&yaml("alpha", "v1.37", "  alpha: \"v1.37\"\n"));
    let h = hist(&[
        ("2025-10-02", "implementable", "alpha", "v1.35"),
        ("2026-06-10", "implementable", "alpha", "v1.37"),
    ]);
    let v = judge(&k, Some(&h), V(35), &Stage::Alpha);
    let Verdict::In(Stage::Alpha, Outcome::Slipped { went, to, .. }) = v else {
        panic!("{v:?}");
    };
    assert_eq!(to, Some(V(37)));
    assert_eq!(
        went,
        "milestone.alpha is v1.37 (moved after release day on 2026-06-10)"
    );
}

#[test]
fn moved_to_a_later_release_before_release_day_is_slipped() {
    let k = kep(&yaml("beta", "v1.36", "  beta: \"v1.36\"\n"));
    let h = hist(&[
        ("2025-09-01", "implementable", "beta", "v1.35"),
        ("2025-11-01", "implementable", "beta", "v1.36"),
    ]);
    let v = judge(&k, Some(&h), V(35), &Stage::Beta);
    let Verdict::In(stage, Outcome::Slipped { went, to, .. }) = v else {
        panic!("{v:?}");
    };
    assert_eq!(stage, Stage::Beta);
    assert_eq!(to, Some(V(36)));
    assert_eq!(went, "moved to v1.36 before release day");
}

#[test]
fn a_stage_recorded_after_the_code_landed_counts() {
    // Said beta with latest v1.31 on v1.31's release day (2024-08-13);
    // marked stable afterwards with milestone.stable v1.31.
    let k = kep(&yaml(
        "stable",
        "v1.31",
        "  beta: \"v1.29\"\n  stable: \"v1.31\"\n",
    ));
    let h = hist(&[
        ("2024-01-10", "implementable", "beta", "v1.29"),
        ("2024-06-01", "implementable", "beta", "v1.31"),
        ("2024-09-01", "implemented", "stable", "v1.31"),
    ]);
    assert_eq!(
        out(&k, &h, V(31)),
        Some((Stage::Stable, "shipped", Some(Step::Graduated)))
    );
}

#[test]
fn no_history_on_release_day_falls_back_to_todays_files() {
    let k = kep(&yaml("alpha", "v1.35", "  alpha: \"v1.35\"\n"));
    let h = hist(&[("2026-01-10", "implementable", "alpha", "v1.35")]);
    assert_eq!(judge(&k, Some(&h), V(35), &Stage::Alpha), Verdict::Unknown);
    assert_eq!(judge(&k, None, V(35), &Stage::Alpha), Verdict::Unknown);
}

#[test]
fn a_stage_recorded_ahead_of_its_release_ships_there() {
    // Set stable with milestone.stable v1.32 in September 2024 and left
    // latest-milestone at v1.31: stable is v1.32's (released 2024-12-11),
    // not an edit after an earlier release shipped it.
    let k = kep(&yaml(
        "stable",
        "v1.31",
        "  alpha: \"v1.30\"\n  beta: \"v1.31\"\n  stable: \"v1.32\"\n",
    ));
    let h = hist(&[
        ("2024-01-18", "implementable", "alpha", "v1.30"),
        ("2024-04-24", "implementable", "beta", "v1.31"),
        ("2024-09-24", "implementable", "stable", "v1.31"),
    ]);
    assert_eq!(
        out(&k, &h, V(31)),
        Some((Stage::Beta, "shipped", Some(Step::Graduated)))
    );
    assert_eq!(
        out(&k, &h, V(32)),
        Some((Stage::Stable, "shipped", Some(Step::Graduated)))
    );
}
