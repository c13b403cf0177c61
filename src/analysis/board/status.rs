//! The board's status from the deadlines' checklists: the [`Readiness`]
//! of each deadline, in order, and the exception decisions → the one
//! [`Status`] every view reads, and (removed) why the KEP is out.

use super::{Freeze, Status, Tally};
use crate::analysis::readiness::{Readiness, Verdict};
use crate::team::Decision;

/// The board's status from the deadlines' checklists, in order: the first
/// deadline not yet passed says Tracked or At risk for it; a deadline
/// passed and missed removes the KEP, unless an exception was requested
/// (pending) or approved; one met only after it needs an exception. The
/// PRR Freeze asks for "a PR open or merged": without `--prs`, a KEP that
/// missed it in the merged files is not removed for it (a PR may have been
/// open), and a note says so.
pub fn status(
    phases: &[Readiness],
    exception: impl Fn(Freeze) -> Option<Decision>,
    prs_known: bool,
    notes: &mut Vec<String>,
) -> Status {
    // Notes on a lenient PRR Freeze matter only for a KEP that stays in
    // without an exception: one that needs one is judged by the team.
    let mut lenient = Vec::new();
    let s = derive(phases, exception, prs_known, &mut lenient);
    if matches!(s.tally(), Tally::Tracked | Tally::AtRisk) {
        notes.extend(lenient);
    }
    s
}

fn derive(
    phases: &[Readiness],
    exception: impl Fn(Freeze) -> Option<Decision>,
    prs_known: bool,
    notes: &mut Vec<String>,
) -> Status {
    let mut last: Option<Freeze> = None;
    for p in phases {
        let f = p.freeze;
        let name = f.name(p.release);
        let v = p.verdict();
        if v == Verdict::NotChecked {
            break;
        }
        if !p.frozen {
            return if v == Verdict::Met {
                Status::Tracked(f)
            } else {
                Status::AtRisk(f)
            };
        }
        let prr_lenient = f == Freeze::Prr;
        match (v, exception(f)) {
            (Verdict::Met, _) | (_, Some(Decision::Approved)) => last = Some(f),
            (_, Some(Decision::Rejected)) => return Status::Removed,
            (_, Some(Decision::Requested)) => return Status::ExceptionRequested(f),
            (Verdict::MetLate, None) if prr_lenient => {
                notes.push(format!(
                    "met the {name} checks only after its deadline in the merged files: fine if a PR with them was open by then"
                ));
                last = Some(f);
            }
            (Verdict::MetLate, None) => return Status::ExceptionRequired(f),
            (_, None) if prr_lenient && !prs_known => {
                notes.push(format!(
                    "missed the {name} in the merged files; a PR open by its deadline would count (give --prs to see open PRs)"
                ));
            }
            (_, None) => return Status::Removed,
        }
    }
    match last {
        Some(f) => Status::Tracked(f),
        None => Status::AtRisk(phases.first().map_or(Freeze::Prr, |p| p.freeze)),
    }
}

/// Why a KEP the checklists removed is out: the last deadline passed
/// and missed (a PRR Freeze missed is only held against a KEP when the
/// later one is met). What was missing there is in that phase's items,
/// which every view lists beside it.
pub(super) fn missed(phases: &[Readiness]) -> Option<String> {
    let p = phases
        .iter()
        .rev()
        .find(|p| p.frozen && matches!(p.verdict(), Verdict::NotMet | Verdict::MetLate))?;
    let at = p
        .deadline
        .as_ref()
        .map(|d| format!(" ({})", d.at))
        .unwrap_or_default();
    Some(format!("missed the {}{at}", p.freeze.name(p.release)))
}
