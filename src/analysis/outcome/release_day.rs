//! What a release that is out shipped, judged on its release day: each KEP's
//! status, stage and latest-milestone as they stood on the default branch at
//! the end of that day (the last first-parent change on or before it), and
//! whether the stage's milestone was moved past the release afterwards.
//!
//! The rules, measured against Kubernetes' own feature gates (docs/release-rules.md):
//! - A stage whose milestone names a later release today, though it named
//!   the release on release day, did not ship there: authors set
//!   `milestone.<stage>` before the release and move it when the work does
//!   not land (the gates agree for every such stable re-target).
//! - A KEP reaches each stage once: the first release that shipped it there
//!   is "new" (alpha) or "graduated"; a later release at that stage is
//!   "continued" (stable again is "no stage change").
//! - A stage recorded after release day for work that landed in the release
//!   (marked stable once the code merged, with `milestone.stable` naming the
//!   release) counts there.

use serde::Serialize;

use super::withdrawn::first_withdrawn;
use super::withdrawn_in;
use super::{Landed, Outcome};
use crate::analysis::calendar::cycle;
use crate::kep::Kep;
use crate::kep::domain::{Release, Stage, Status};
use crate::repo::history::{Change, KepHistory};

/// Whether the stage a KEP shipped in a release was new there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Step {
    /// A first stage (alpha, or the first stage the KEP ever shipped).
    Introduced,
    /// A stage after the ones it shipped in earlier releases.
    Graduated,
    /// A stage it had shipped in an earlier release: tracked again with
    /// work in this one.
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

/// What the release-day reading decided for one KEP in one release.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// In the release at this stage with this outcome.
    In(Stage, Outcome),
    /// Not in the release: today's milestones name it only because of an
    /// edit after release day, and it had shipped this stage before.
    ChangedLater,
    /// The history does not cover the release day: judge by today's files.
    Unknown,
}

/// One KEP in a release that is out: its stage there and what became of it,
/// before the step is known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Judged {
    /// The stage it had in the release.
    pub stage: Stage,
    /// What became of it.
    pub outcome: Outcome,
}

/// What `release` (out) made of `kep`: `None` when the KEP is not in it.
pub(super) fn judged(kep: &Kep, hist: Option<&KepHistory>, release: Release) -> Option<Judged> {
    let stage = super::stage_in(kep, hist, release)?;
    // Withdrawn in the release after shipping a stage earlier: the
    // release's removal, whatever release day's files said.
    if withdrawn_in(kep, release) {
        let commit = first_withdrawn(hist, release);
        return Some(Judged {
            stage,
            outcome: Outcome::Deprecated { commit },
        });
    }
    Some(match judge(kep, hist, release, &stage) {
        Verdict::In(stage, outcome) => Judged { stage, outcome },
        Verdict::ChangedLater => return None,
        Verdict::Unknown => Judged {
            outcome: super::out_outcome(kep, hist, release, &stage),
            stage,
        },
    })
}

/// Whether the stage shipped in `release` was new there: the releases
/// before it, judged as they are judged on their own pages, are the KEP's
/// record (a KEP reaches each stage once).
pub(super) fn step(kep: &Kep, hist: Option<&KepHistory>, release: Release, stage: &Stage) -> Step {
    let best = (0..release.minor)
        .filter_map(|m| judged(kep, hist, Release::new(release.major, m)))
        .filter(|j| matches!(j.outcome, Outcome::Shipped { .. }))
        .map(|j| j.stage.rank())
        .max();
    match best {
        Some(b) if b >= stage.rank() => Step::Continued,
        Some(_) => Step::Graduated,
        None if *stage == Stage::Alpha || stage.is_unset() => Step::Introduced,
        // No earlier release on record shipped a stage: a lower stage's
        // milestone naming an earlier release still says it graduated.
        None if lower_before(kep, release, stage) => Step::Graduated,
        None => Step::Introduced,
    }
}

/// Whether today's milestones put a stage below `stage` in a release
/// before `release`.
fn lower_before(kep: &Kep, release: Release, stage: &Stage) -> bool {
    [Stage::Alpha, Stage::Beta]
        .iter()
        .filter(|s| s.rank() < stage.rank())
        .any(|s| kep.meta.milestone.release(s).is_some_and(|r| r < release))
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
        return Verdict::In(Stage::Unset, Outcome::LatestOnly);
    }
    if closed {
        let went = format!(
            "status was {} on release day",
            then.status.as_deref().unwrap_or_default()
        );
        return Verdict::In(
            stage,
            Outcome::Slipped {
                went,
                to: None,
                late: false,
            },
        );
    }
    // A stage that lands keeps its milestone (5055 keeps alpha v1.33
    // through v1.36); one whose milestone was moved past the release
    // afterwards did not land there (4872: alpha v1.35 became v1.37;
    // 3017: stable v1.30 became v1.31, and the gate went GA in v1.31).
    if !stage.is_deprecation()
        && let Some(moved) = moved_later(kep, hist, release, &stage, day)
    {
        return Verdict::In(stage, moved);
    }
    let commit = landed(hist, release, &stage, day);
    Verdict::In(
        stage.clone(),
        if stage.is_deprecation() {
            Outcome::Deprecated { commit }
        } else {
            Outcome::Shipped { commit }
        },
    )
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
        return Verdict::In(
            stage,
            Outcome::Slipped {
                went,
                to,
                late: false,
            },
        );
    }
    // Today's milestones put the KEP here, but on release day it already had
    // this stage, shipped in an earlier release: a later edit, not a
    // shipment. (Had it not shipped it, the stage was recorded ahead of its
    // release and today's milestone decides: 4358 said stable with
    // latest-milestone v1.31 and milestone.stable v1.32 through v1.32.)
    let had = stage_of(then);
    let shipped_before = || {
        (0..release.minor).any(|m| {
            judged(kep, Some(hist), Release::new(release.major, m)).is_some_and(|j| {
                matches!(j.outcome, Outcome::Shipped { .. }) && j.stage.rank() >= today.rank()
            })
        })
    };
    if !today.is_unset() && !had.is_unset() && had.rank() >= today.rank() && shipped_before() {
        return Verdict::ChangedLater;
    }
    Verdict::Unknown
}

/// Slipped, when today's files move `stage`'s milestone of a KEP that
/// named `release` on release day to a later release: "milestone.stable is
/// v1.31 (moved after release day on 2024-06-06)".
fn moved_later(
    kep: &Kep,
    hist: &KepHistory,
    release: Release,
    stage: &Stage,
    day: &str,
) -> Option<Outcome> {
    let now = kep.meta.milestone.release(stage).filter(|r| *r > release)?;
    let when = hist
        .changes
        .iter()
        .filter(|c| c.date.as_str() > day)
        .find(|c| {
            c.latest_milestone
                .as_deref()
                .and_then(Release::parse)
                .is_some_and(|l| l > release)
        })
        .map(|c| format!(" on {}", c.date))
        .unwrap_or_default();
    Some(Outcome::Slipped {
        went: format!("milestone.{stage} is {now} (moved after release day{when})"),
        to: Some(now),
        late: true,
    })
}

#[cfg(test)]
mod tests;
