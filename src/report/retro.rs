//! `report --format retro` / `retro-json`: the cycle's numbers for the
//! release-team meetings and the retrospective, from the report itself
//! (its summary's counts by stage and SIG, its rows' board tracking) →
//! [`Retro`], so that every figure equals the report's.

use std::fmt::Write;

use serde::Serialize;

use super::comments::tracked_rows;
use super::{Count, Report};
use crate::analysis::board::Tally;
use crate::analysis::outcome::{Counts, Phase};
use crate::analysis::readiness::Verdict;
use crate::team::{Decision, Freeze};

/// One deadline's checklist verdicts over the KEPs on the board.
#[derive(Debug, Clone, Serialize)]
pub struct DeadlineCounts {
    /// The deadline.
    pub freeze: Freeze,
    /// Its name in the release's schedule.
    pub name: &'static str,
    /// Whether the snapshot is past it.
    pub past: bool,
    /// Met (at the deadline, once passed).
    pub met: usize,
    /// Not met.
    pub not_met: usize,
    /// Met only after the deadline.
    pub met_late: usize,
    /// Not checked (Code Freeze without `--kubernetes`).
    pub not_checked: usize,
}

/// Exception requests known for the release's KEPs.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Exceptions {
    /// Requested (decided or not).
    pub requested: usize,
    /// Granted.
    pub approved: usize,
    /// Refused.
    pub rejected: usize,
}

/// The cycle's numbers.
#[derive(Debug, Clone, Serialize)]
pub struct Retro {
    /// The release.
    pub release: String,
    /// Out, in progress or planned.
    pub phase: Phase,
    /// In progress with `--issues`: the KEPs whose issue is opted in.
    pub opted_in: Option<usize>,
    /// Every outcome's count: the report's summary.
    pub totals: Counts,
    /// In progress: each deadline's verdicts.
    pub deadlines: Vec<DeadlineCounts>,
    /// In progress: exception requests.
    pub exceptions: Exceptions,
    /// By stage group: the report's.
    pub by_stage: Vec<Count>,
    /// By owning SIG: the report's.
    pub by_sig: Vec<Count>,
}

/// The numbers of `r`.
pub fn retro(r: &Report) -> Retro {
    let mut exceptions = Exceptions::default();
    for (_, t) in tracked_rows(r) {
        if let Some(d) = t.exception {
            exceptions.requested += 1;
            match d {
                Decision::Approved => exceptions.approved += 1,
                Decision::Rejected => exceptions.rejected += 1,
                Decision::Requested => {}
            }
        }
    }
    let deadlines = r
        .deadlines
        .iter()
        .map(|d| {
            let mut c = DeadlineCounts {
                freeze: d.freeze,
                name: d.name,
                past: d.past,
                met: 0,
                not_met: 0,
                met_late: 0,
                not_checked: 0,
            };
            for (_, t) in tracked_rows(r) {
                match t.phase(d.freeze).verdict() {
                    Verdict::Met => c.met += 1,
                    Verdict::NotMet => c.not_met += 1,
                    Verdict::MetLate => c.met_late += 1,
                    Verdict::NotChecked => c.not_checked += 1,
                }
            }
            c
        })
        .collect();
    let opted_in = r.issues.as_ref().map(|_| {
        tracked_rows(r)
            .filter(|(k, _)| k.issue.as_ref().is_some_and(|i| i.opted_in))
            .count()
    });
    Retro {
        release: r.release.to_string(),
        phase: r.phase,
        opted_in,
        totals: r.summary.counts,
        deadlines,
        exceptions,
        by_stage: r.summary.by_stage.clone(),
        by_sig: r.summary.by_sig.clone(),
    }
}

/// A column of the counts table: its heading and its count.
type Column = (&'static str, fn(&Counts) -> usize);

/// The columns of the counts table for a release in `phase`.
fn columns(phase: Phase) -> Vec<Column> {
    let mut c: Vec<Column> = vec![("KEPs", |c| c.total)];
    match phase {
        Phase::InProgress => c.extend([
            (
                Tally::Tracked.label(),
                (|c: &Counts| c.tracked) as fn(&Counts) -> usize,
            ),
            (Tally::AtRisk.label(), |c| c.at_risk),
            (Tally::Exception.label(), |c| c.exception),
            (Tally::Removed.label(), |c| c.removed),
            (Tally::Deferred.label(), |c| c.deferred),
        ]),
        Phase::Out => c.extend([
            ("Shipped", (|c: &Counts| c.shipped) as fn(&Counts) -> usize),
            ("Deprecated", |c| c.deprecated),
            ("Slipped", |c| c.slipped),
            ("No stage change", |c| c.latest_only),
        ]),
        Phase::Planned => c.push(("Planned", |c| c.planned)),
    }
    c
}

/// The numbers as Markdown tables.
pub fn markdown(x: &Retro) -> String {
    let mut out = format!("# {}: the cycle in numbers\n\n", x.release);
    let cols = columns(x.phase);
    let head: Vec<&str> = cols.iter().map(|(h, _)| *h).collect();
    let _ = writeln!(out, "| | {} |", head.join(" | "));
    let _ = writeln!(out, "|---|{}", "---|".repeat(cols.len()));
    let row = |label: &str, c: &Counts| {
        let cells: Vec<String> = cols.iter().map(|(_, f)| f(c).to_string()).collect();
        format!("| {} | {} |\n", super::render::md(label), cells.join(" | "))
    };
    out.push_str(&row("**all**", &x.totals).replace("\\*\\*all\\*\\*", "**all**"));
    for c in &x.by_stage {
        out.push_str(&row(&format!("stage: {}", c.label), &c.counts));
    }
    for c in &x.by_sig {
        out.push_str(&row(&c.label, &c.counts));
    }
    if let Some(n) = x.opted_in {
        let _ = writeln!(out, "\nOpted in (issues): {n}.");
    }
    if !x.deadlines.is_empty() {
        out.push_str("\n| deadline | passed | met | not met | met late | not checked |\n|---|---|---|---|---|---|\n");
        for d in &x.deadlines {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} |",
                d.name,
                if d.past { "yes" } else { "no" },
                d.met,
                d.not_met,
                d.met_late,
                d.not_checked
            );
        }
        let e = &x.exceptions;
        let _ = writeln!(
            out,
            "\nExceptions: {} requested, {} granted, {} refused.",
            e.requested, e.approved, e.rejected
        );
    }
    out
}
