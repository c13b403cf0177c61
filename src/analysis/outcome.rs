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
//! in progress reports each KEP as the Enhancements team's board does (see
//! [`board`](super::board): who is in the release, and the board's status
//! from each deadline's checklist); later releases report what is planned.

use serde::Serialize;

mod agreement;
mod code_note;
mod counts;
mod decide;
mod in_progress;
mod release_day;
mod row;
mod withdrawn;

pub use super::stage::{stage_in, withdrawn_in};
pub use agreement::{Agreement, Disagreement, Excluded, StageCount, agreement};
pub use code_note::{CodeNote, Said, note};
pub use counts::{Counts, Tone};
pub use decide::{Decided, Decider, KepOutcome, outcomes_by_kep};
pub use in_progress::{past_enhancements_freeze, past_prr_freeze};
pub use release_day::Step;
pub use row::KepRow;

use in_progress::in_progress_view;

use super::board::{self, Apart, Source, Status as Board, TeamFacts, Tracking};
use super::calendar::{Current, Cycle, cycle};
use super::code::Code;
use super::{Analysis, Readiness};
use crate::kep::Kep;
use crate::kep::domain::{Release, Stage, Status};
use crate::model::{KepId, Model};
use crate::repo::history::{Change, History, KepHistory};
use crate::team::Freeze;

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
    /// In progress: the board's status.
    Tracking {
        /// The status.
        status: Board,
    },
    /// After the release in progress: a planned stage (or latest-milestone).
    Planned,
}

impl Outcome {
    /// Stable id: `shipped`, `deprecated`, `slipped`, `latest-only`,
    /// `planned`, and in progress the board status's id
    /// (`tracked-for-enhancements-freeze`, ...; see [`Board::id`]).
    pub fn id(&self) -> &'static str {
        match self {
            Outcome::Shipped { .. } => "shipped",
            Outcome::Deprecated { .. } => "deprecated",
            Outcome::Slipped { .. } => "slipped",
            Outcome::LatestOnly => "latest-only",
            Outcome::Tracking { status } => status.id(),
            Outcome::Planned => "planned",
        }
    }

    /// For people, in `release`: `Shipped`, `Slipped`, `Tracked for
    /// enhancements freeze`, ...
    pub fn label(&self, release: Release) -> String {
        match self {
            Outcome::Shipped { .. } => "Shipped".into(),
            Outcome::Deprecated { .. } => "Deprecated/removed".into(),
            Outcome::Slipped { .. } => "Slipped".into(),
            Outcome::LatestOnly => "No stage change".into(),
            Outcome::Tracking { status } => status.label(release),
            Outcome::Planned => "Planned".into(),
        }
    }

    /// The board's status, in progress.
    pub fn status(&self) -> Option<Board> {
        match self {
            Outcome::Tracking { status } => Some(*status),
            _ => None,
        }
    }

    /// Whether it went well: shipped, deprecated as planned, or tracked.
    pub fn is_good(&self) -> bool {
        match self {
            Outcome::Shipped { .. } | Outcome::Deprecated { .. } => true,
            Outcome::Tracking { status } => status.tally() == board::Tally::Tracked,
            _ => false,
        }
    }

    /// Whether someone has to act (in progress: at risk, an exception).
    pub fn needs_action(&self) -> bool {
        self.status().is_some_and(Board::needs_action)
    }

    /// Whether it went badly: slipped, or out of the release in progress.
    pub fn is_bad(&self) -> bool {
        match self {
            Outcome::Slipped { .. } => true,
            Outcome::Tracking { status } => {
                matches!(
                    status.tally(),
                    board::Tally::Removed | board::Tally::AtRisk | board::Tally::Exception
                )
            }
            _ => false,
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
    /// The KEP.
    #[serde(skip)]
    pub id: KepId,
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
    /// The Enhancements Freeze checklist (the release in progress only).
    pub readiness: Option<Readiness>,
    /// The release in progress: the board's status and every deadline's
    /// checklist.
    pub tracking: Option<Tracking>,
    /// Out, with `--kubernetes`: which source decided, and what the files
    /// say where the code decided otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decided: Option<Decided>,
}

/// A KEP the files tie to the release in progress, not counted in it.
#[derive(Debug, Clone, Serialize)]
pub struct ApartEntry {
    /// The KEP.
    #[serde(skip)]
    pub id: KepId,
    /// KEP number.
    pub number: Option<u32>,
    /// The stage a milestone names for the release.
    pub stage: Stage,
    /// Why it is apart.
    pub why: Apart,
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
    /// The release in progress: what decided who is in it.
    pub membership: Option<Source>,
    /// The release in progress: the next deadline (none past Code Freeze).
    pub next: Option<Freeze>,
    /// The release in progress: KEPs the files tie to it that are not
    /// counted (a stage milestone written ahead, not opted in).
    pub apart: Vec<ApartEntry>,
}

impl ReleaseView {
    /// Its KEPs counted by outcome.
    pub fn counts(&self) -> Counts {
        Counts::of(self.entries.iter().map(|e| &e.outcome))
    }
}

/// What the release views read: the model and its analysis, and the
/// history, the code and the team's records when at hand.
#[derive(Clone, Copy)]
pub struct Sources<'a> {
    /// The repository.
    pub model: &'a Model,
    /// Its analysis (with the deadlines judged).
    pub analysis: &'a Analysis,
    /// The stage history, with git.
    pub history: Option<&'a History>,
    /// Kubernetes' feature gates (`--kubernetes`).
    pub code: Option<&'a Code>,
    /// The release team's records (`--issues`, `--prs`, …).
    pub team: Option<&'a TeamFacts>,
    /// The release in progress the views are judged in (the analysis', or
    /// another snapshot's to compare two alike).
    pub current: Current,
}

impl<'a> Sources<'a> {
    /// The model and its analysis alone.
    pub fn of(model: &'a Model, analysis: &'a Analysis) -> Self {
        Sources {
            model,
            analysis,
            history: None,
            code: None,
            team: None,
            current: analysis.current,
        }
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
pub fn release_view(src: &Sources, release: Release) -> ReleaseView {
    let current = &src.current;
    let phase = phase(current, release);
    if phase == Phase::InProgress {
        return in_progress_view(src, release);
    }
    let mut entries: Vec<ReleaseEntry> = src
        .model
        .keps
        .iter()
        .enumerate()
        .filter_map(|(i, kep)| {
            let hist = history_of(src.history, kep);
            let (stage, outcome, step, decided) = match (phase, src.code) {
                (Phase::Out, Some(c)) => {
                    let (s, o, st, d) = decide::out_decided(c, kep, hist, release)?;
                    (s, o, st, Some(d))
                }
                (Phase::Out, None) => {
                    let (s, o, st) = out_entry(kep, hist, release)?;
                    (s, o, st, None)
                }
                _ => (stage_in(kep, hist, release)?, Outcome::Planned, None, None),
            };
            Some(ReleaseEntry {
                id: KepId(i),
                number: kep.number(),
                release,
                stage,
                outcome,
                step,
                readiness: None,
                tracking: None,
                decided,
            })
        })
        .collect();
    entries.sort_by_key(|e| (e.stage.is_unset(), e.stage.rank(), e.number, e.id));
    ReleaseView {
        release,
        phase,
        frozen: false,
        cycle: cycle(release),
        entries,
        membership: None,
        next: None,
        apart: Vec::new(),
    }
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
