//! `report --format comments`: the comment the Enhancements team posts on
//! each KEP's issue at a deadline, from the report's rows (the board's
//! status and each deadline's checklist, as `analysis::board` judged them)
//! and the KEP's files (where each item to update is) → one [`Comment`]
//! per KEP, worded by a [`Templates`] file.
//!
//! Every KEP value goes through the announcement's escaper
//! ([`prose`](super::render::prose::prose)); the only mentions are the
//! KEP's authors or its issue's assignees, checked as GitHub logins.

mod template;
pub(crate) mod values;

use std::collections::BTreeMap;

use anyhow::{Result, bail};
use serde::Serialize;

use super::{Report, Row};
use crate::analysis::Analysis;
use crate::analysis::board::{self, Status, Tally, TeamFacts, Tracking};
use crate::analysis::calendar::Current;
use crate::analysis::outcome::Phase as ReleasePhase;
use crate::analysis::readiness::Verdict;
use crate::model::Model;
use crate::team::Freeze;
pub use template::{PLACEHOLDERS, Templates};

/// The moment a comment is for: a deadline's reminder, or (`-party`) the
/// message at the deadline itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, clap::ValueEnum, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Phase {
    /// Before the PRR Freeze (KEP readiness).
    Prr,
    /// Before the Enhancements Freeze.
    Enhancements,
    /// At the Enhancements Freeze.
    EnhancementsParty,
    /// Before Code Freeze.
    Code,
    /// At Code Freeze.
    CodeParty,
}

/// Days after the Enhancements Freeze during which its own message, not
/// Code Freeze's reminder, is the current one (the team posts it in the
/// days after the deadline).
pub const PARTY_DAYS: i64 = 7;

/// Which template a KEP gets at a phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Case {
    /// The deadline's checklist is met.
    Tracked,
    /// It is not met yet.
    AtRisk,
    /// Met only after the deadline, or an exception is pending.
    Exception,
    /// Out of the release.
    Removed,
}

impl Phase {
    /// Every phase, in the cycle's order.
    pub const ALL: [Phase; 5] = [
        Phase::Prr,
        Phase::Enhancements,
        Phase::EnhancementsParty,
        Phase::Code,
        Phase::CodeParty,
    ];

    /// Stable id, as `--phase` takes it.
    pub fn id(self) -> &'static str {
        match self {
            Phase::Prr => "prr",
            Phase::Enhancements => "enhancements",
            Phase::EnhancementsParty => "enhancements-party",
            Phase::Code => "code",
            Phase::CodeParty => "code-party",
        }
    }

    /// The deadline it is about.
    pub fn freeze(self) -> Freeze {
        match self {
            Phase::Prr => Freeze::Prr,
            Phase::Enhancements | Phase::EnhancementsParty => Freeze::Enhancements,
            Phase::Code | Phase::CodeParty => Freeze::Code,
        }
    }

    /// The message at the deadline itself.
    pub fn is_party(self) -> bool {
        matches!(self, Phase::EnhancementsParty | Phase::CodeParty)
    }

    /// The phase a snapshot is at: the reminder before the next deadline,
    /// except for [`PARTY_DAYS`] after a deadline that has a message of its
    /// own (the Enhancements Freeze, Code Freeze), which is that message;
    /// past Code Freeze, Code Freeze's message.
    pub fn current(c: &Current) -> Phase {
        let past = |f| board::past(c, f);
        let recent = |f| {
            let at = c.cycle.as_ref().and_then(|cy| cy.deadline(f));
            match (at, c.now) {
                (Some(at), Some(now)) => past(f) && now - at.as_second() < PARTY_DAYS * 86_400,
                _ => false,
            }
        };
        if !past(Freeze::Prr) {
            Phase::Prr
        } else if !past(Freeze::Enhancements) {
            Phase::Enhancements
        } else if recent(Freeze::Enhancements) {
            Phase::EnhancementsParty
        } else if !past(Freeze::Code) {
            Phase::Code
        } else {
            Phase::CodeParty
        }
    }

    /// What the phase's comment is, for people.
    pub fn title(self) -> &'static str {
        match self {
            Phase::Prr => "before the PRR Freeze (KEP readiness)",
            Phase::Enhancements => "before the Enhancements Freeze",
            Phase::EnhancementsParty => "at the Enhancements Freeze",
            Phase::Code => "before Code Freeze",
            Phase::CodeParty => "at Code Freeze",
        }
    }

    /// The reminder before the same deadline (itself, for a reminder).
    pub fn reminder(self) -> Phase {
        match self {
            Phase::EnhancementsParty => Phase::Enhancements,
            Phase::CodeParty => Phase::Code,
            p => p,
        }
    }
}

impl Case {
    /// Every case.
    pub const ALL: [Case; 4] = [Case::Tracked, Case::AtRisk, Case::Exception, Case::Removed];

    /// Stable id.
    pub fn id(self) -> &'static str {
        // The board's tally ids: one spelling for both.
        match self {
            Case::Tracked => Tally::Tracked.id(),
            Case::AtRisk => Tally::AtRisk.id(),
            Case::Exception => Tally::Exception.id(),
            Case::Removed => Tally::Removed.id(),
        }
    }
}

/// The case of a KEP at `phase`, from its board status: out or needing an
/// exception as the board says; else, at the phase's deadline, Tracked or
/// At risk as the board says (At risk at the deadline's own message is
/// removed); at another deadline, that deadline's checklist verdict.
pub fn case(phase: Phase, t: &Tracking) -> Case {
    let freeze = phase.freeze();
    let not_met = if phase.is_party() {
        Case::Removed
    } else {
        Case::AtRisk
    };
    match t.status {
        Status::Removed | Status::Deferred => Case::Removed,
        Status::ExceptionRequired(_) | Status::ExceptionRequested(_) => Case::Exception,
        Status::Tracked(f) if f >= freeze => Case::Tracked,
        Status::AtRisk(f) if f == freeze => not_met,
        _ => match t.phase(freeze).verdict() {
            Verdict::Met => Case::Tracked,
            Verdict::MetLate => Case::Exception,
            Verdict::NotMet => not_met,
            Verdict::NotChecked => Case::AtRisk,
        },
    }
}

/// One comment, for one KEP's issue.
#[derive(Debug, Clone, Serialize)]
pub struct Comment {
    /// The issue to post it on (the KEP's number).
    pub issue: u32,
    /// The KEP's number.
    pub kep: u32,
    /// The phase it is for.
    pub phase: Phase,
    /// The template's case.
    pub case: Case,
    /// The comment, Markdown.
    pub body: String,
    /// The board status to set, in the board's words.
    pub board_status: String,
    /// Its stable id.
    pub board_status_id: Status,
    /// The labels the comment's Prow commands set.
    pub labels: Vec<String>,
    /// The logins the comment mentions.
    pub mentions: Vec<String>,
    /// Whether kepsite could judge the deadline: false for an at-risk
    /// comment whose checklist it cannot check (Code Freeze without
    /// `--kubernetes`), which the team checks by hand.
    pub checked: bool,
}

/// What the comments read besides the report.
pub struct Sources<'a> {
    /// The repository.
    pub model: &'a Model,
    /// Its analysis.
    pub analysis: &'a Analysis,
    /// The team's records (`--issues` gives the assignees).
    pub team: Option<&'a TeamFacts>,
}

/// The report's rows with their board tracking, in report order.
pub fn tracked_rows(r: &Report) -> impl Iterator<Item = (&Row, &Tracking)> {
    r.groups
        .iter()
        .flat_map(|g| g.sigs.iter().flat_map(|s| &s.keps))
        .filter_map(|k| Some((k, k.tracking.as_ref()?)))
}

/// One comment per numbered KEP of the release in progress.
pub fn comments(
    r: &Report,
    src: &Sources,
    phase: Phase,
    templates: &Templates,
) -> Result<Vec<Comment>> {
    if r.phase != ReleasePhase::InProgress {
        bail!(
            "comments are for the release in progress ({}); {} is not in progress",
            r.current,
            r.release
        );
    }
    let mut out = Vec::new();
    for (row, t) in tracked_rows(r) {
        let Some(n) = row.number else { continue };
        let case = case(phase, t);
        let unchecked = t.phase(phase.freeze()).verdict() == Verdict::NotChecked;
        let v = values::values(r, src, row, t, phase, case);
        let body = templates.fill(phase, case, &v.map)?;
        out.push(Comment {
            issue: n,
            kep: n,
            phase,
            case,
            body,
            board_status: t.label.clone(),
            board_status_id: t.status,
            labels: v.labels,
            mentions: v.mentions,
            checked: !(case == Case::AtRisk && unchecked),
        });
    }
    Ok(out)
}

/// The comments as Markdown, one after the other, each under a line that
/// names its issue.
pub fn markdown(list: &[Comment]) -> String {
    let mut out = String::new();
    for c in list {
        out.push_str(&format!(
            "#### Issue #{} ({}, {})\n\n{}\n---\n\n",
            c.issue,
            c.case.id(),
            c.board_status,
            c.body
        ));
    }
    out
}

/// The comments as JSON.
pub fn json(list: &[Comment]) -> Result<String> {
    let mut s = serde_json::to_string_pretty(list)?;
    s.push('\n');
    Ok(s)
}

/// The placeholder values of one comment, and what it sets.
pub(crate) struct Values {
    pub(crate) map: BTreeMap<&'static str, String>,
    pub(crate) labels: Vec<String>,
    pub(crate) mentions: Vec<String>,
}

#[cfg(test)]
mod tests;
