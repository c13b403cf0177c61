//! The board status from the deadlines' checklists ([`status`]): each rule
//! of the derivation on hand-made phases.

use super::*;
use crate::analysis::readiness::AtDeadline;

const R: Release = Release::new(1, 37);

/// A phase for `freeze`: met now (`ready`), past its deadline (`frozen`)
/// and, past it, met there (`at`).
fn phase(freeze: Freeze, ready: bool, frozen: bool, at: Option<bool>) -> Readiness {
    Readiness {
        freeze,
        release: R,
        stage: Stage::Beta,
        ready,
        items: Vec::new(),
        frozen,
        prr_frozen: frozen,
        deadline: at.map(|ready| AtDeadline {
            at: "2026-06-17 12:00 UTC".into(),
            commit: "c".into(),
            ready,
            reasons: Vec::new(),
            failing: Vec::new(),
            met: None,
        }),
        not_checked: None,
    }
}

fn code_unread() -> Readiness {
    Readiness {
        not_checked: Some("needs --kubernetes".into()),
        ..phase(Freeze::Code, false, false, None)
    }
}

fn no_exception(_: Freeze) -> Option<Decision> {
    None
}

fn derive(phases: &[Readiness], prs_known: bool) -> (Status, Vec<String>) {
    let mut notes = Vec::new();
    let s = status(phases, no_exception, prs_known, &mut notes);
    (s, notes)
}

#[test]
fn before_a_deadline_the_status_is_about_it() {
    let p = [
        phase(Freeze::Prr, true, false, None),
        phase(Freeze::Enhancements, true, false, None),
        code_unread(),
    ];
    assert_eq!(derive(&p, false).0, Status::Tracked(Freeze::Prr));
    let p = [
        phase(Freeze::Prr, false, false, None),
        phase(Freeze::Enhancements, true, false, None),
        code_unread(),
    ];
    assert_eq!(derive(&p, false).0, Status::AtRisk(Freeze::Prr));
    // Past the PRR Freeze and met there: the next deadline decides.
    let p = [
        phase(Freeze::Prr, true, true, Some(true)),
        phase(Freeze::Enhancements, false, false, None),
        code_unread(),
    ];
    assert_eq!(derive(&p, false).0, Status::AtRisk(Freeze::Enhancements));
}

#[test]
fn past_a_deadline_missed_is_removed_and_met_late_needs_an_exception() {
    let p = [
        phase(Freeze::Prr, true, true, Some(true)),
        phase(Freeze::Enhancements, false, true, Some(false)),
        code_unread(),
    ];
    assert_eq!(derive(&p, false).0, Status::Removed);
    let p = [
        phase(Freeze::Prr, true, true, Some(true)),
        phase(Freeze::Enhancements, true, true, Some(false)),
        code_unread(),
    ];
    assert_eq!(
        derive(&p, false).0,
        Status::ExceptionRequired(Freeze::Enhancements)
    );
    // Met there, code unread: tracked for the last deadline judged.
    let p = [
        phase(Freeze::Prr, true, true, Some(true)),
        phase(Freeze::Enhancements, true, true, Some(true)),
        code_unread(),
    ];
    assert_eq!(derive(&p, false).0, Status::Tracked(Freeze::Enhancements));
}

#[test]
fn a_prr_freeze_missed_in_the_merged_files_is_not_held_without_the_prs() {
    let p = [
        phase(Freeze::Prr, false, true, Some(false)),
        phase(Freeze::Enhancements, true, true, Some(true)),
        code_unread(),
    ];
    let (s, notes) = derive(&p, false);
    assert_eq!(s, Status::Tracked(Freeze::Enhancements));
    assert!(notes[0].contains("give --prs"), "{notes:?}");
    // With the open PRs known, a miss is a miss.
    assert_eq!(derive(&p, true).0, Status::Removed);
}

#[test]
fn exception_decisions_change_the_status() {
    let p = [
        phase(Freeze::Prr, true, true, Some(true)),
        phase(Freeze::Enhancements, false, true, Some(false)),
        phase(Freeze::Code, false, false, None),
    ];
    let with = |d: Decision| {
        let mut notes = Vec::new();
        status(
            &p,
            |f| (f == Freeze::Enhancements).then_some(d),
            false,
            &mut notes,
        )
    };
    assert_eq!(
        with(Decision::Requested),
        Status::ExceptionRequested(Freeze::Enhancements)
    );
    assert_eq!(with(Decision::Rejected), Status::Removed);
    // Approved: on to the Code Freeze, not yet passed.
    assert_eq!(with(Decision::Approved), Status::AtRisk(Freeze::Code));
}

#[test]
fn removed_says_the_deadline_it_missed() {
    let p = [
        phase(Freeze::Prr, false, true, Some(false)),
        phase(Freeze::Enhancements, false, true, Some(false)),
        code_unread(),
    ];
    assert_eq!(
        missed(&p).as_deref(),
        Some("missed the Enhancements Freeze (2026-06-17 12:00 UTC)")
    );
    // Nothing missed: no such reason.
    let ok = [phase(Freeze::Prr, true, true, Some(true)), code_unread()];
    assert_eq!(missed(&ok), None);
}

#[test]
fn every_status_has_the_boards_words() {
    let all = [
        Status::Tracked(Freeze::Prr),
        Status::Tracked(Freeze::Enhancements),
        Status::Tracked(Freeze::Code),
        Status::AtRisk(Freeze::Prr),
        Status::AtRisk(Freeze::Enhancements),
        Status::AtRisk(Freeze::Code),
        Status::ExceptionRequired(Freeze::Enhancements),
        Status::ExceptionRequested(Freeze::Code),
        Status::Removed,
        Status::Deferred,
    ];
    let labels: Vec<String> = all.iter().map(|s| s.label(R)).collect();
    assert_eq!(
        labels,
        [
            "Tracked for PRR freeze",
            "Tracked for enhancements freeze",
            "Tracked for code freeze",
            "At risk for PRR freeze",
            "At risk for enhancements freeze",
            "At risk for code freeze",
            "Exception required",
            "Exception requested",
            "Removed from milestone",
            "Deferred",
        ]
    );
    assert_eq!(
        Status::AtRisk(Freeze::Prr).label(Release::new(1, 38)),
        "At risk for KEP readiness"
    );
    // Ids are unique apart from the exception pair, whose deadline is a field.
    let mut ids: Vec<&str> = all.iter().map(|s| s.id()).collect();
    ids.dedup();
    assert_eq!(ids.len(), all.len());
}
