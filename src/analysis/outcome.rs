//! What happened to each KEP in a release: ([`Model`], [`Analysis`], the
//! first-parent [`History`], the release in progress) and a [`Release`] →
//! [`ReleaseView`], one [`ReleaseEntry`] per KEP in the release with its
//! [`Outcome`].
//!
//! One definition of "in release R" serves the report, the release pages,
//! the SIG and home pages and the index filter: a KEP is in R when its
//! latest-milestone or a stage milestone names R now, or (with history) its
//! latest-milestone named R at some commit of the default branch. The stage
//! it has in R: with latest-milestone R, its own stage (alpha for an
//! implementable KEP without one) when that stage's milestone is R or not
//! yet written, unless a later stage's milestone is R; otherwise the latest
//! stage whose milestone is R; with neither, "no stage change" (only
//! latest-milestone moved).
//!
//! A release that is out reports what shipped and what slipped; the release
//! in progress reports Ready / At risk against the freeze checklist before
//! its Enhancements Freeze, and Tracked / Missed the freeze after it (a KEP
//! that did not meet the checklist by then is out of the release unless an
//! exception is granted); later releases report what is planned.

use serde::Serialize;

mod release_day;
mod withdrawn;

pub use release_day::Step;
pub use withdrawn::withdrawn_in;

use super::calendar::{Current, Cycle, cycle};
use super::history::{Change, History, KepHistory};
use super::tracking::{Analysis, Readiness, readiness};
use crate::kep::Kep;
use crate::kep::domain::{Release, Stage, Status};
use crate::model::Model;

/// Where a release stands at the snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Phase {
    /// Released before the snapshot.
    Out,
    /// The release in progress.
    InProgress,
    /// After the release in progress.
    Planned,
}

/// What became of one KEP in one release.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Outcome {
    /// Out: reached its stage in the release.
    Shipped {
        /// The first-parent commit where the stage was first recorded, with history.
        commit: Option<Landed>,
    },
    /// Out: a deprecation, disablement or removal that went through.
    Deprecated {
        /// As for shipped.
        commit: Option<Landed>,
    },
    /// Out: targeted the release at this stage and did not reach it there.
    Slipped {
        /// Where it went, for people ("moved to v1.32", "still beta").
        went: String,
        /// The release it moved to, when one is named.
        to: Option<Release>,
        /// The stage's milestone was moved past the release after release
        /// day (read as a slip; the files cannot tell a rewrite of a stage
        /// that shipped from it).
        #[serde(skip)]
        late: bool,
    },
    /// Out: only latest-milestone named the release; no stage changed in it.
    LatestOnly,
    /// In progress: every freeze checklist item passes.
    Ready,
    /// In progress: some item fails.
    AtRisk,
    /// In progress, past the Enhancements Freeze: every checklist item passes.
    Tracked,
    /// In progress, past the Enhancements Freeze: failed the checklist at
    /// the deadline and meets it now (it needed an exception).
    TrackedLate,
    /// In progress, past the Enhancements Freeze: some item fails, so the KEP
    /// missed the freeze (an exception request is the way back).
    MissedFreeze,
    /// After the release in progress: a planned stage (or latest-milestone).
    Planned,
}

impl Outcome {
    /// Stable id: `shipped`, `deprecated`, `slipped`, `latest-only`, `ready`,
    /// `at-risk`, `tracked`, `tracked-late`, `missed-freeze`, `planned`.
    pub fn id(&self) -> &'static str {
        match self {
            Outcome::Shipped { .. } => "shipped",
            Outcome::Deprecated { .. } => "deprecated",
            Outcome::Slipped { .. } => "slipped",
            Outcome::LatestOnly => "latest-only",
            Outcome::Ready => "ready",
            Outcome::AtRisk => "at-risk",
            Outcome::Tracked => "tracked",
            Outcome::TrackedLate => "tracked-late",
            Outcome::MissedFreeze => "missed-freeze",
            Outcome::Planned => "planned",
        }
    }

    /// The outcome of a KEP in the release in progress: its checklist's
    /// verdict (see [`Readiness::verdict`]).
    pub fn of(r: &Readiness) -> Outcome {
        match r.verdict() {
            "ready" => Outcome::Ready,
            "at-risk" => Outcome::AtRisk,
            "tracked" => Outcome::Tracked,
            "tracked-late" => Outcome::TrackedLate,
            _ => Outcome::MissedFreeze,
        }
    }

    /// For people: `Shipped`, `Slipped`, `At risk`, ...
    pub fn label(&self) -> &'static str {
        match self {
            Outcome::Shipped { .. } => "Shipped",
            Outcome::Deprecated { .. } => "Deprecated/removed",
            Outcome::Slipped { .. } => "Slipped",
            Outcome::LatestOnly => "No stage change",
            Outcome::Ready => "Ready",
            Outcome::AtRisk => "At risk",
            Outcome::Tracked => "Tracked",
            Outcome::TrackedLate => "Tracked late",
            Outcome::MissedFreeze => "Missed the freeze",
            Outcome::Planned => "Planned",
        }
    }
}

/// The commit of the default branch where a stage was first recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Landed {
    /// Commit id.
    pub commit: String,
    /// The day it landed, `YYYY-MM-DD`.
    pub date: String,
}

/// One KEP in a release.
#[derive(Debug, Clone, Serialize)]
pub struct ReleaseEntry {
    /// Index into `model.keps`.
    #[serde(skip)]
    pub index: usize,
    /// KEP number.
    pub number: Option<u32>,
    /// The release.
    #[serde(skip)]
    pub release: Release,
    /// The stage it has in the release; unset when only latest-milestone
    /// named it.
    pub stage: Stage,
    /// What became of it.
    pub outcome: Outcome,
    /// Out and shipped: whether the stage was new in the release, a
    /// graduation, or continued from the release before (with history).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub step: Option<Step>,
    /// The freeze checklist (the release in progress only).
    pub readiness: Option<Readiness>,
}

/// Every KEP in one release, with what became of it.
#[derive(Debug, Clone, Serialize)]
pub struct ReleaseView {
    /// The release.
    pub release: Release,
    /// Out, in progress or planned.
    pub phase: Phase,
    /// In progress and past its Enhancements Freeze: outcomes are Tracked /
    /// Missed the freeze instead of Ready / At risk.
    pub frozen: bool,
    /// Its dates, when the calendar has them.
    pub cycle: Option<Cycle>,
    /// KEPs by stage order, then number.
    pub entries: Vec<ReleaseEntry>,
}

impl ReleaseView {
    /// How many entries have the outcome `id`.
    pub fn count(&self, id: &str) -> usize {
        self.entries.iter().filter(|e| e.outcome.id() == id).count()
    }
}

/// The phase of `release` when `current` is in progress.
pub fn phase(current: &Current, release: Release) -> Phase {
    match release.cmp(&current.release) {
        std::cmp::Ordering::Less => Phase::Out,
        std::cmp::Ordering::Equal => Phase::InProgress,
        std::cmp::Ordering::Greater => Phase::Planned,
    }
}

/// The KEP's history, when there is one.
pub fn history_of<'h>(history: Option<&'h History>, kep: &Kep) -> Option<&'h KepHistory> {
    history.and_then(|h| h.keps.get(&kep.number()?))
}

/// The stage `kep` has in `release`, when it is in the release (see the
/// module comment). `Some(Stage::Unset)`: in the release with no stage.
pub fn stage_in(kep: &Kep, hist: Option<&KepHistory>, release: Release) -> Option<Stage> {
    let m = &kep.meta;
    let by_milestone = Stage::ALL
        .into_iter()
        .rev()
        .find(|s| m.milestone.release(s) == Some(release));
    if release.is(&m.latest_milestone) {
        if withdrawn_in(kep, release) {
            return Some(Stage::Removed);
        }
        let own = match m.stage.nearest() {
            Some(s) => s,
            None if m.status == Status::Implementable => Stage::Alpha,
            None => return Some(by_milestone.unwrap_or(Stage::Unset)),
        };
        let later = |s: &Stage| by_milestone.as_ref().is_some_and(|b| b.rank() > s.rank());
        return Some(match m.milestone.release(&own) {
            // Targets its own stage here (its milestone not yet written).
            None if !later(&own) => own,
            Some(r) if r == release && !later(&own) => own,
            // Its own stage belongs to another release.
            _ => by_milestone.unwrap_or(Stage::Unset),
        });
    }
    if by_milestone.is_some() {
        return by_milestone;
    }
    // Targeted the release once (latest-milestone named it on the default
    // branch) and moved on: the stage it had then.
    let then = hist?
        .changes
        .iter()
        .rev()
        .find(|c| c.latest_milestone.as_deref().is_some_and(|l| release.is(l)))?;
    Some(
        then.stage
            .as_deref()
            .map(Stage::parse)
            .and_then(|s| s.nearest())
            .unwrap_or(Stage::Unset),
    )
}

/// Whether the KEP's stage (or status) today is at or past `stage`.
pub(super) fn reached(kep: &Kep, stage: &Stage) -> bool {
    let now = kep.meta.stage.nearest();
    if stage.is_deprecation() {
        return now.is_some_and(|s| s.rank() >= stage.rank());
    }
    kep.meta.status == Status::Implemented || now.is_some_and(|s| s.rank() >= stage.rank())
}

/// The first change of the default branch that recorded `stage` or later
/// (or, short of a deprecation, status implemented).
fn first_at(hist: Option<&KepHistory>, stage: &Stage) -> Option<Landed> {
    let at_least = |c: &Change| {
        let implemented = !stage.is_deprecation()
            && c.status.as_deref().map(Status::parse) == Some(Status::Implemented);
        implemented
            || c.stage
                .as_deref()
                .map(Stage::parse)
                .and_then(|s| s.nearest())
                .is_some_and(|s| s.rank() >= stage.rank())
    };
    hist?.changes.iter().find(|c| at_least(c)).map(|c| Landed {
        commit: c.commit.clone(),
        date: c.date.clone(),
    })
}

/// What became of a KEP with `stage` in a release that is out.
fn out_outcome(kep: &Kep, hist: Option<&KepHistory>, release: Release, stage: &Stage) -> Outcome {
    let m = &kep.meta;
    if stage.is_unset() {
        return Outcome::LatestOnly;
    }
    let planned_here = m.milestone.release(stage) == Some(release);
    if planned_here && reached(kep, stage) {
        let commit = first_at(hist, stage);
        return if stage.is_deprecation() {
            Outcome::Deprecated { commit }
        } else {
            Outcome::Shipped { commit }
        };
    }
    let to = m
        .milestone
        .release(stage)
        .filter(|r| *r != release)
        .or_else(|| m.latest_release().filter(|r| *r > release));
    let went = match to {
        Some(r) if reached(kep, stage) => format!("{stage} in {r}"),
        Some(r) => format!("moved to {r}"),
        None if m.status.is_closed() || m.status == Status::Deferred => {
            format!("status is {}", m.status)
        }
        None => format!(
            "not {stage} yet: stage is {}",
            if m.stage.is_unset() {
                "unset"
            } else {
                m.stage.as_str()
            }
        ),
    };
    Outcome::Slipped {
        went,
        to,
        late: false,
    }
}

/// A KEP in a release that is out: its stage there, what became of it and,
/// shipped, whether the stage was new (see [`release_day`]). Stable again
/// after stable shipped is no stage change.
fn out_entry(
    kep: &Kep,
    hist: Option<&KepHistory>,
    release: Release,
) -> Option<(Stage, Outcome, Option<Step>)> {
    let j = release_day::judged(kep, hist, release)?;
    if !matches!(j.outcome, Outcome::Shipped { .. }) {
        return Some((j.stage, j.outcome, None));
    }
    let step = release_day::step(kep, hist, release, &j.stage);
    if j.stage == Stage::Stable && step == Step::Continued {
        return Some((Stage::Unset, Outcome::LatestOnly, Some(step)));
    }
    Some((j.stage, j.outcome, Some(step)))
}

/// Whether `kep` is in `release`'s view ([`release_view`]) in `phase`:
/// its files or its history name the release. The README plays no part.
pub fn in_release(kep: &Kep, hist: Option<&KepHistory>, phase: Phase, release: Release) -> bool {
    match phase {
        Phase::Out => out_entry(kep, hist, release).is_some(),
        Phase::Planned | Phase::InProgress => stage_in(kep, hist, release).is_some(),
    }
}

/// Every KEP in `release` with what became of it.
pub fn release_view(
    model: &Model,
    analysis: &Analysis,
    history: Option<&History>,
    current: &Current,
    release: Release,
) -> ReleaseView {
    let phase = phase(current, release);
    let frozen = phase == Phase::InProgress && past_enhancements_freeze(current);
    let mut entries: Vec<ReleaseEntry> = model
        .keps
        .iter()
        .enumerate()
        .filter_map(|(i, kep)| {
            let hist = history_of(history, kep);
            let (stage, outcome, step, ready) = match phase {
                Phase::Out => {
                    let (stage, outcome, step) = out_entry(kep, hist, release)?;
                    (stage, outcome, step, None)
                }
                Phase::Planned => (stage_in(kep, hist, release)?, Outcome::Planned, None, None),
                Phase::InProgress => {
                    let stage = stage_in(kep, hist, release)?;
                    let mut r = checklist(model, analysis, kep, i, release, &stage);
                    r.frozen = frozen;
                    r.prr_frozen = past_prr_freeze(current);
                    if frozen {
                        r.deadline = analysis
                            .deadline
                            .as_ref()
                            .filter(|d| d.release == release)
                            .map(|d| d.of(kep, hist, current));
                    }
                    (stage, Outcome::of(&r), None, Some(r))
                }
            };
            Some(ReleaseEntry {
                index: i,
                number: kep.number(),
                release,
                stage,
                outcome,
                step,
                readiness: ready,
            })
        })
        .collect();
    entries.sort_by_key(|e| (e.stage.is_unset(), e.stage.rank(), e.number, e.index));
    ReleaseView {
        release,
        phase,
        frozen,
        cycle: cycle(release),
        entries,
    }
}

/// Whether the snapshot is past the Enhancements Freeze deadline of the
/// release in progress: its instant after the deadline's, or (no instant)
/// its day after the freeze's day. Unknown dates: not past.
pub fn past_enhancements_freeze(current: &Current) -> bool {
    let cycle = current.cycle.as_ref();
    past(
        current,
        cycle.and_then(|c| c.enhancements_freeze_at),
        cycle.and_then(|c| c.enhancements_freeze),
    )
}

/// Whether the snapshot is past the PRR Freeze of the release in progress.
pub fn past_prr_freeze(current: &Current) -> bool {
    let at = current.cycle.as_ref().and_then(|c| c.prr_freeze_at);
    past(
        current,
        at,
        at.map(|t| t.to_zoned(jiff::tz::TimeZone::UTC).date()),
    )
}

fn past(current: &Current, at: Option<jiff::Timestamp>, day: Option<jiff::civil::Date>) -> bool {
    match (current.now, at, current.today, day) {
        (Some(now), Some(at), _, _) => now >= at.as_second(),
        (_, _, Some(today), Some(day)) => today > day,
        _ => false,
    }
}

/// The freeze checklist of a KEP in the release in progress. A KEP with no
/// stage in it (latest-milestone only) is checked at its own stage, and the
/// stage-milestone item is not held against it.
fn checklist(
    model: &Model,
    analysis: &Analysis,
    kep: &Kep,
    i: usize,
    release: Release,
    stage: &Stage,
) -> Readiness {
    let a = &analysis.keps[i];
    if !stage.is_unset() {
        return readiness(model, kep, a, release, stage);
    }
    let own = kep.meta.stage.nearest().unwrap_or_default();
    let mut r = readiness(model, kep, a, release, &own);
    // Stable in an earlier release and implemented since: nothing to
    // graduate here, so implemented is the status it should have.
    let done = kep.meta.status == Status::Implemented
        && own == Stage::Stable
        && kep
            .meta
            .milestone
            .release(&own)
            .is_some_and(|r| r < release);
    for item in &mut r.items {
        if item.id == "stage-milestone" {
            item.ok = true;
            item.detail = "no stage change in this release".into();
        }
        if item.id == "status-implementable" && done {
            item.ok = true;
            item.detail = "status is implemented: stable in an earlier release".into();
        }
    }
    r.ready = r.items.iter().all(|i| i.ok || !i.required);
    r
}

/// Every release any KEP names (latest-milestone or a stage milestone), plus
/// the release in progress, oldest first.
pub fn releases(model: &Model, current: &Current) -> Vec<Release> {
    let mut set = std::collections::BTreeSet::new();
    set.insert(current.release);
    for k in &model.keps {
        let m = &k.meta;
        set.extend(m.latest_release());
        for (_, w) in m.milestone.entries() {
            set.extend(Release::parse(w));
        }
    }
    // v0.x and other non-Kubernetes versions are typos, not releases.
    set.into_iter().filter(|r| r.is_v1()).collect()
}
