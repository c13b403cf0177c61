//! What a release that is out shipped, judged on its release day: each KEP's
//! status, stage and latest-milestone as they stood on the default branch at
//! the end of that day (the last first-parent change on or before it), so
//! that edits after the release do not rewrite what shipped, and a KEP
//! tracked again at the stage it already had (alpha for a second release)
//! shipped that stage again: "continued", not "slipped".

use serde::Serialize;

use super::{Landed, Outcome};
use crate::analysis::calendar::cycle;
use crate::analysis::history::{Change, KepHistory};
use crate::kep::Kep;
use crate::kep::domain::{Release, Stage, Status};

/// Whether the stage a KEP shipped in a release was new there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Step {
    /// A first stage (alpha, or the first stage the KEP ever recorded).
    Introduced,
    /// A stage after the one it had at the previous release.
    Graduated,
    /// The same stage as at the previous release: tracked again with work
    /// in this one.
    Continued,
}

impl Step {
    /// For people: `new`, `graduated`, `continued`.
    pub fn label(self) -> &'static str {
        match self {
            Step::Introduced => "new",
            Step::Graduated => "graduated",
            Step::Continued => "continued",
        }
    }
}

/// An edit after release day that says otherwise: today the stage's
/// milestone names a later release. What shipped stands; pages say so.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Later {
    /// What today's files say, for people ("milestone.alpha is v1.37").
    pub says: String,
    /// The first change after release day that moved latest-milestone
    /// past the release, when the history has one.
    pub commit: Option<Landed>,
}

/// What the release-day reading decided for one KEP in one release.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// In the release at this stage with this outcome.
    In(Stage, Outcome, Option<Step>, Option<Later>),
    /// Not in the release: today's milestones name it only because of an
    /// edit after release day, and it had shipped this stage before.
    ChangedLater,
    /// The history does not cover the release day: judge by today's files.
    Unknown,
}

/// The day `release` came out, as `YYYY-MM-DD`.
fn release_day(release: Release) -> Option<String> {
    Some(cycle(release)?.release_date?.to_string())
}

/// The KEP's recorded values at the end of `day` (`YYYY-MM-DD`).
fn state_on<'h>(hist: &'h KepHistory, day: &str) -> Option<&'h Change> {
    hist.changes.iter().rev().find(|c| c.date.as_str() <= day)
}

/// The stage a change recorded, as a stage a release tracks (an
/// implementable KEP without one targets alpha).
fn stage_of(c: &Change) -> Stage {
    match c
        .stage
        .as_deref()
        .map(Stage::parse)
        .and_then(|s| s.nearest())
    {
        Some(s) => s,
        None if c.status.as_deref().map(Status::parse) == Some(Status::Implementable) => {
            Stage::Alpha
        }
        None => Stage::Unset,
    }
}

/// Whether a change's latest-milestone is `release`.
fn names(c: &Change, release: Release) -> bool {
    c.latest_milestone.as_deref().is_some_and(|l| release.is(l))
}

/// Whether the stage shipped in `release` was new there: compared with
/// what the KEP said at the previous release's release day (or, before
/// its history begins, with today's stage milestone).
fn step(kep: &Kep, hist: &KepHistory, release: Release, stage: &Stage) -> Option<Step> {
    // What the KEP said on the previous release's day, unless it already
    // targeted this release (or a later one) then: opted in early.
    let before = Some(release.prev())
        .filter(|p| *p != release)
        .and_then(release_day)
        .and_then(|d| state_on(hist, &d))
        .filter(|c| {
            c.latest_milestone
                .as_deref()
                .and_then(Release::parse)
                .is_none_or(|l| l < release)
        })
        .map(stage_of);
    Some(match before {
        Some(b) if !b.is_unset() && b.rank() >= stage.rank() => Step::Continued,
        Some(b) if !b.is_unset() => Step::Graduated,
        // The history does not reach back (the KEP moved from a single
        // file, say): today's milestone for the stage names an earlier
        // release.
        None if kep
            .meta
            .milestone
            .release(stage)
            .is_some_and(|r| r < release) =>
        {
            Step::Continued
        }
        _ if *stage == Stage::Alpha || stage.is_unset() => Step::Introduced,
        _ => Step::Graduated,
    })
}

/// Where a shipped stage shows in the history: the first change up to
/// release day that named the release as latest-milestone at `stage`
/// (where the KEP opted in at it), else the first that recorded `stage` or
/// later (a stage written after release day), else the first that named
/// the release.
fn landed(hist: &KepHistory, release: Release, stage: &Stage, day: &str) -> Option<Landed> {
    let c = hist
        .changes
        .iter()
        .filter(|c| c.date.as_str() <= day)
        .find(|c| names(c, release) && stage_of(c) == *stage)
        .or_else(|| {
            hist.changes
                .iter()
                .find(|c| !stage_of(c).is_unset() && stage_of(c).rank() >= stage.rank())
        })
        .or_else(|| hist.changes.iter().find(|c| names(c, release)))?;
    Some(Landed {
        commit: c.commit.clone(),
        date: c.date.clone(),
    })
}

/// What shipped of a KEP whose kep.yaml named `release` as
/// latest-milestone on release day (`then`).
fn judge_named(
    kep: &Kep,
    hist: &KepHistory,
    release: Release,
    today: &Stage,
    then: &Change,
    day: &str,
) -> Verdict {
    let confirmed =
        |s: &Stage| kep.meta.milestone.release(s) == Some(release) && super::reached(kep, s);
    let closed = then
        .status
        .as_deref()
        .map(Status::parse)
        .is_some_and(|s| s != Status::Implemented && (s.is_closed() || s == Status::Deferred));
    let mut stage = stage_of(then);
    if !today.is_unset() && today.rank() > stage.rank() && confirmed(today) {
        stage = today.clone();
    }
    if stage.is_unset() {
        return Verdict::In(Stage::Unset, Outcome::LatestOnly, None, None);
    }
    if closed {
        let went = format!(
            "status was {} on release day",
            then.status.as_deref().unwrap_or_default()
        );
        return Verdict::In(stage, Outcome::Slipped { went, to: None }, None, None);
    }
    // An alpha or beta that landed keeps its milestone when it
    // continues (5055 keeps alpha v1.33 through v1.36); one whose
    // milestone was moved past the release afterwards did not land
    // there (4872: alpha v1.35 became v1.37). A stable milestone moved
    // later is follow-up work (gate removal) tracked in the next
    // release, and what shipped stands (3458, 24).
    let changed_later = later(kep, hist, release, &stage, day);
    if matches!(stage, Stage::Alpha | Stage::Beta)
        && let Some(l) = changed_later
    {
        let to = kep.meta.milestone.release(&stage);
        let when = l
            .commit
            .map(|c| format!(" on {}", c.date))
            .unwrap_or_default();
        let went = format!("{} (moved after release day{when})", l.says);
        return Verdict::In(stage, Outcome::Slipped { went, to }, None, None);
    }
    let commit = landed(hist, release, &stage, day);
    let outcome = if stage.is_deprecation() {
        Outcome::Deprecated { commit }
    } else {
        Outcome::Shipped { commit }
    };
    let step = step(kep, hist, release, &stage);
    // Stable is the last stage: tracked again at stable (removing the
    // feature gate, say) is not a second graduation.
    if stage == Stage::Stable && step == Some(Step::Continued) {
        return Verdict::In(Stage::Unset, Outcome::LatestOnly, step, None);
    }
    Verdict::In(stage, outcome, step, changed_later)
}

/// What `release` (out) shipped of `kep` with history `hist`, which today's
/// files put in the release at `today` (the stage [`super::stage_in`] gives).
/// A stage recorded after release day for work that landed in the release
/// (a KEP marked stable once the code merged: today's files say the stage
/// was reached with its milestone naming the release) counts when the
/// release day said a lower stage.
pub fn judge(kep: &Kep, hist: Option<&KepHistory>, release: Release, today: &Stage) -> Verdict {
    let (Some(hist), Some(day)) = (hist, release_day(release)) else {
        return Verdict::Unknown;
    };
    let Some(then) = state_on(hist, &day) else {
        return Verdict::Unknown;
    };
    if names(then, release) {
        return judge_named(kep, hist, release, today, then, &day);
    }
    // Named the release during its cycle, and no longer on release day.
    let opted = hist
        .changes
        .iter()
        .filter(|c| c.date.as_str() <= day.as_str())
        .rev()
        .find(|c| names(c, release));
    if let Some(opted) = opted {
        let stage = stage_of(opted);
        let to = then
            .latest_milestone
            .as_deref()
            .and_then(Release::parse)
            .filter(|r| *r > release);
        let went = match (to, then.latest_milestone.as_deref()) {
            (Some(r), _) => format!("moved to {r} before release day"),
            (None, Some(l)) => format!("latest-milestone was {l} on release day"),
            (None, None) => "latest-milestone was removed before release day".to_string(),
        };
        return Verdict::In(stage, Outcome::Slipped { went, to }, None, None);
    }
    // Today's milestones put the KEP here, but on release day it already had
    // this stage from an earlier release: a later edit, not a shipment.
    let had = stage_of(then);
    if !today.is_unset() && !had.is_unset() && had.rank() >= today.rank() {
        return Verdict::ChangedLater;
    }
    Verdict::Unknown
}

/// The edit after release day that moved `stage` of a KEP that shipped it
/// in `release` to a later release, if today's files say so.
fn later(
    kep: &Kep,
    hist: &KepHistory,
    release: Release,
    stage: &Stage,
    day: &str,
) -> Option<Later> {
    let now = kep.meta.milestone.release(stage).filter(|r| *r > release)?;
    let commit = hist
        .changes
        .iter()
        .filter(|c| c.date.as_str() > day)
        .find(|c| {
            c.latest_milestone
                .as_deref()
                .and_then(Release::parse)
                .is_some_and(|l| l > release)
        })
        .map(|c| Landed {
            commit: c.commit.clone(),
            date: c.date.clone(),
        });
    Some(Later {
        says: format!("milestone.{stage} is {now}"),
        commit,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::history::CommitRef;
    use crate::model::from_snapshot;
    use crate::repo::RepoSnapshot;

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
        let Verdict::In(stage, Outcome::Shipped { commit }, step, later) = v else {
            panic!("{v:?}");
        };
        assert_eq!(stage, Stage::Alpha);
        assert_eq!(step, Some(Step::Continued));
        assert_eq!(commit.map(|c| c.commit), Some("c1".to_string()));
        assert_eq!(later, None);
    }

    #[test]
    fn an_edit_after_release_day_does_not_unship_it() {
        // Stable in v1.29 on its release day (2023-12-13); a later commit
        // moved milestone.stable to v1.30.
        let k = kep(&yaml(
            "stable",
            "v1.30",
            "  beta: \"v1.27\"\n  stable: \"v1.30\"\n",
        ));
        let h = hist(&[
            ("2023-10-04", "implementable", "stable", "v1.29"),
            ("2024-01-23", "implementable", "stable", "v1.30"),
        ]);
        let v = judge(&k, Some(&h), V(29), &Stage::Stable);
        let Verdict::In(stage, Outcome::Shipped { .. }, step, later) = v else {
            panic!("{v:?}");
        };
        assert_eq!(stage, Stage::Stable);
        assert_eq!(step, Some(Step::Graduated));
        let later = later.expect("the later edit is shown");
        assert_eq!(later.says, "milestone.stable is v1.30");
        assert_eq!(later.commit.map(|c| c.commit), Some("c1".to_string()));
        // In v1.30 it had shipped stable already: tracked again at stable is
        // no second graduation.
        let v = judge(&k, Some(&h), V(30), &Stage::Stable);
        assert!(
            matches!(v, Verdict::In(Stage::Unset, Outcome::LatestOnly, _, _)),
            "{v:?}"
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
        let Verdict::In(Stage::Alpha, Outcome::Slipped { went, to }, None, None) = v else {
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
        let Verdict::In(stage, Outcome::Slipped { went, to }, _, _) = v else {
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
        let v = judge(&k, Some(&h), V(31), &Stage::Stable);
        assert!(
            matches!(
                v,
                Verdict::In(
                    Stage::Stable,
                    Outcome::Shipped { .. },
                    Some(Step::Graduated),
                    _
                )
            ),
            "{v:?}"
        );
    }

    #[test]
    fn no_history_on_release_day_falls_back_to_todays_files() {
        let k = kep(&yaml("alpha", "v1.35", "  alpha: \"v1.35\"\n"));
        let h = hist(&[("2026-01-10", "implementable", "alpha", "v1.35")]);
        assert_eq!(judge(&k, Some(&h), V(35), &Stage::Alpha), Verdict::Unknown);
        assert_eq!(judge(&k, None, V(35), &Stage::Alpha), Verdict::Unknown);
    }
}
