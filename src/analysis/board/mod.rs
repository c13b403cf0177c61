//! The release in progress as the Enhancements team tracks it on its board:
//! for one KEP of the release, its checklist at each deadline ([`Freeze`]:
//! PRR Freeze, Enhancements Freeze, Code Freeze), its enhancement issue,
//! its open pull requests, its code and the exception requests →
//! [`Tracking`], whose [`Status`] is the board's Status field in the board's
//! own words ("Tracked for enhancements freeze", "Removed from milestone").
//!
//! Who is in the release is decided in [`member`]; each deadline's
//! checklist in [`phases`]; the status from them in [`status()`], one place
//! every view reads.

mod code;
pub mod compare;
mod member;
pub mod prs;
mod status;
mod team;

use serde::Serialize;

pub use compare::{BoardDiff, compare};
pub use member::{Apart, Membership, Source, membership};
pub use prs::{HeadCheck, PrCheck};
pub use status::status;
pub use team::TeamFacts;

use code::code_phase;
use status::missed;

use super::KepAnalysis;
use super::calendar::Current;
use super::code::Code;
use super::deadline::Deadline;
use super::readiness::{Readiness, Verdict, checklist_in};
use crate::kep::Kep;
use crate::kep::domain::{Release, Stage};
use crate::model::Model;
use crate::repo::history::KepHistory;
pub use crate::team::Freeze;
use crate::team::issues::{ExceptionWord, Issue};
use crate::team::{Decision, Exception};

/// The board's Status field for one KEP of the release in progress.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Status {
    /// Meets the deadline's checklist ("Tracked for enhancements freeze").
    Tracked(Freeze),
    /// Does not meet it yet ("At risk for enhancements freeze").
    AtRisk(Freeze),
    /// Met the deadline's checklist only after it, and no exception is
    /// known: it needs one ("Exception required").
    ExceptionRequired(Freeze),
    /// An exception was requested for the deadline and is not decided.
    ExceptionRequested(Freeze),
    /// Missed a deadline, or the team took it off ("Removed from milestone").
    Removed,
    /// Bumped to a later release by its SIG ("Deferred").
    Deferred,
}

/// How a status counts in a release's totals.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Tally {
    /// Tracked for the deadline in front of it.
    Tracked,
    /// At risk for it.
    AtRisk,
    /// Needs an exception, or one is pending.
    Exception,
    /// Out of the release.
    Removed,
    /// Moved to a later release.
    Deferred,
}

impl Status {
    /// Stable id: `tracked-for-enhancements-freeze`, `at-risk-for-prr-freeze`,
    /// `exception-required`, `exception-requested`, `removed-from-milestone`,
    /// `deferred`.
    pub fn id(self) -> &'static str {
        match self {
            Status::Tracked(Freeze::Prr) => "tracked-for-prr-freeze",
            Status::Tracked(Freeze::Enhancements) => "tracked-for-enhancements-freeze",
            Status::Tracked(Freeze::Code) => "tracked-for-code-freeze",
            Status::AtRisk(Freeze::Prr) => "at-risk-for-prr-freeze",
            Status::AtRisk(Freeze::Enhancements) => "at-risk-for-enhancements-freeze",
            Status::AtRisk(Freeze::Code) => "at-risk-for-code-freeze",
            Status::ExceptionRequired(_) => "exception-required",
            Status::ExceptionRequested(_) => "exception-requested",
            Status::Removed => "removed-from-milestone",
            Status::Deferred => "deferred",
        }
    }

    /// The board's words in `release` (the first deadline's name follows
    /// the release's schedule: "Tracked for PRR freeze" in v1.37, "Tracked
    /// for KEP readiness" from v1.38).
    pub fn label(self, release: Release) -> String {
        match self {
            Status::Tracked(f) => format!("Tracked for {}", f.board_words(release)),
            Status::AtRisk(f) => format!("At risk for {}", f.board_words(release)),
            Status::ExceptionRequired(_) => "Exception required".into(),
            Status::ExceptionRequested(_) => "Exception requested".into(),
            Status::Removed => "Removed from milestone".into(),
            Status::Deferred => "Deferred".into(),
        }
    }

    /// How it counts in totals.
    pub fn tally(self) -> Tally {
        match self {
            Status::Tracked(_) => Tally::Tracked,
            Status::AtRisk(_) => Tally::AtRisk,
            Status::ExceptionRequired(_) | Status::ExceptionRequested(_) => Tally::Exception,
            Status::Removed => Tally::Removed,
            Status::Deferred => Tally::Deferred,
        }
    }

    /// Whether someone has to act on the KEP (the authors, or the team on
    /// an exception): At risk and the exception statuses.
    pub fn needs_action(self) -> bool {
        matches!(self.tally(), Tally::AtRisk | Tally::Exception)
    }

    /// The deadline the status is about, when it is about one.
    pub fn freeze(self) -> Option<Freeze> {
        match self {
            Status::Tracked(f)
            | Status::AtRisk(f)
            | Status::ExceptionRequired(f)
            | Status::ExceptionRequested(f) => Some(f),
            Status::Removed | Status::Deferred => None,
        }
    }
}

impl Tally {
    /// Every tally, in the order summaries show them.
    pub const ALL: [Tally; 5] = [
        Tally::Tracked,
        Tally::AtRisk,
        Tally::Exception,
        Tally::Removed,
        Tally::Deferred,
    ];

    /// Stable id: `tracked`, `at-risk`, `exception`, `removed`, `deferred`.
    pub fn id(self) -> &'static str {
        match self {
            Tally::Tracked => "tracked",
            Tally::AtRisk => "at-risk",
            Tally::Exception => "exception",
            Tally::Removed => "removed",
            Tally::Deferred => "deferred",
        }
    }

    /// For people, as a column heading.
    pub fn label(self) -> &'static str {
        match self {
            Tally::Tracked => "Tracked",
            Tally::AtRisk => "At risk",
            Tally::Exception => "Exception",
            Tally::Removed => "Removed",
            Tally::Deferred => "Deferred",
        }
    }
}

impl Serialize for Status {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.id())
    }
}

/// One KEP of the release in progress as the team tracks it.
#[derive(Debug, Clone, Serialize)]
pub struct Tracking {
    /// The board's status.
    pub status: Status,
    /// The board's words for it.
    pub label: String,
    /// Who decided the KEP is in the release.
    pub source: Source,
    /// Why the team took it off, or deferred it, when it did.
    pub why: Option<String>,
    /// The checklist at each deadline, in order: PRR Freeze, Enhancements
    /// Freeze, Code Freeze.
    pub phases: Vec<Readiness>,
    /// An exception request, when one is known (`--exceptions`, or the
    /// issue's comments).
    pub exception: Option<Decision>,
    /// The open pull requests that touch the KEP (`--prs`).
    pub prs: Vec<PrCheck>,
    /// What else the team should know, for people ("Tracked if #6201
    /// merges", "met the PRR Freeze checks only after its deadline").
    pub notes: Vec<String>,
}

impl Tracking {
    /// The checklist the status is about: its deadline's (the PRR
    /// Freeze's before it, the Code Freeze's when the code was read), else
    /// the Enhancements Freeze's. What a view lists as missing.
    pub fn focus(&self) -> &Readiness {
        let f = self
            .status
            .freeze()
            .filter(|f| self.phase(*f).verdict() != Verdict::NotChecked)
            .unwrap_or(Freeze::Enhancements);
        self.phase(f)
    }

    /// The checklist at `freeze`.
    pub fn phase(&self, freeze: Freeze) -> &Readiness {
        &self.phases[Freeze::ALL.iter().position(|f| *f == freeze).unwrap_or(0)]
    }
}

/// What the board reads besides the files: the KEPs' histories, the
/// judgements at the deadlines, the code, and the team's own records.
#[derive(Debug, Clone, Copy, Default)]
pub struct Facts<'a> {
    /// The checklists judged at the PRR and Enhancements Freeze deadlines.
    pub deadlines: &'a [Deadline],
    /// Kubernetes' feature gates (`--kubernetes`).
    pub code: Option<&'a Code>,
    /// The issues, PRs, exceptions and board the team exported.
    pub team: Option<&'a TeamFacts>,
}

/// Whether the snapshot is past `freeze`'s deadline for the release in
/// progress: its instant after the deadline's, or (no instant) its day
/// after the deadline's day. Unknown dates: not past.
pub fn past(current: &Current, freeze: Freeze) -> bool {
    let Some(at) = current.cycle.as_ref().and_then(|c| c.deadline(freeze)) else {
        return false;
    };
    match (current.now, current.today) {
        (Some(now), _) => now >= at.as_second(),
        (None, Some(today)) => today > at.to_zoned(jiff::tz::TimeZone::UTC).date(),
        _ => false,
    }
}

/// One KEP of the release in progress: everything [`track`] reads.
pub struct Kept<'a> {
    /// The model it is in.
    pub model: &'a Model,
    /// The KEP.
    pub kep: &'a Kep,
    /// Its analysis.
    pub analysis: &'a KepAnalysis,
    /// Its history, with git.
    pub hist: Option<&'a KepHistory>,
    /// The release in progress at the snapshot.
    pub current: &'a Current,
    /// The stage it has in the release (unset: no stage change).
    pub stage: &'a Stage,
    /// Who decided it is in the release.
    pub membership: &'a Membership,
}

/// The KEP's tracking on the board: each deadline's checklist and the one
/// status they give.
pub fn track(k: &Kept, facts: &Facts) -> Tracking {
    let number = k.kep.number();
    let prs = facts
        .team
        .and_then(|t| t.checks_of(k.kep))
        .unwrap_or_default();
    let mut notes = Vec::new();
    let phases = phases(k, facts, &prs, &mut notes);
    let issue = number.and_then(|n| facts.team?.issue(n));
    let exception = exception(facts.team.map(TeamFacts::exceptions), issue, number);
    let (status, why) = match k.membership {
        Membership::Removed { why, .. } => (Status::Removed, Some(why.clone())),
        Membership::Deferred { why } => (Status::Deferred, Some(why.clone())),
        _ => {
            let prs_known = facts.team.is_some_and(TeamFacts::prs_known);
            let exc = |f: Freeze| {
                exception
                    .filter(|(at, _)| at.is_none_or(|a| a == f))
                    .map(|(_, d)| d)
            };
            let s = status(&phases, exc, prs_known, &mut notes);
            (s, (s == Status::Removed).then(|| missed(&phases)).flatten())
        }
    };
    Tracking {
        status,
        label: status.label(k.current.release),
        source: k.membership.source(),
        why,
        phases,
        exception: exception.map(|(_, d)| d),
        prs,
        notes,
    }
}

/// The decision on an exception request for KEP `number`: the exceptions
/// file first, then the issue's comments; with the deadline it was asked
/// at, when known.
fn exception(
    list: Option<&[Exception]>,
    issue: Option<&Issue>,
    number: Option<u32>,
) -> Option<(Option<Freeze>, Decision)> {
    let n = number?;
    let from_file = list
        .unwrap_or_default()
        .iter()
        .rfind(|e| e.issue == n)
        .map(|e| (e.freeze, e.decision));
    from_file.or_else(|| {
        issue?.exception().map(|w| {
            let d = match w {
                ExceptionWord::Approved => Decision::Approved,
                ExceptionWord::Rejected => Decision::Rejected,
            };
            (None, d)
        })
    })
}

/// Each deadline's checklist for the KEP, as it stands now and (past the
/// deadline) as it stood there.
fn phases(k: &Kept, facts: &Facts, prs: &[PrCheck], notes: &mut Vec<String>) -> Vec<Readiness> {
    let release = k.current.release;
    let mut out: Vec<Readiness> = [Freeze::Prr, Freeze::Enhancements]
        .into_iter()
        .map(|f| {
            let mut r = checklist_in(k.model, k.kep, k.analysis, release, k.stage, f);
            r.frozen = past(k.current, f);
            r.prr_frozen = past(k.current, Freeze::Prr);
            if r.frozen
                && let Some(d) = facts
                    .deadlines
                    .iter()
                    .find(|d| d.freeze == f && d.release == release)
            {
                r.deadline = Some(d.of(k.kep, k.hist, k.current));
            }
            r
        })
        .collect();
    prs::apply(
        &mut out,
        prs,
        facts.team.is_some_and(TeamFacts::prs_known),
        notes,
    );
    out.push(code_phase(k, facts));
    out
}

#[cfg(test)]
mod tests;
