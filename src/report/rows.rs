//! The report's rows: each KEP of the release → a [`Row`], sorted, and
//! grouped by stage and SIG.

use std::collections::BTreeMap;

use super::{
    ApartRow, GROUPS, Group, Inputs, Options, Row, Selected, SigGroup, issues, select, stage_group,
};
use crate::analysis::board::{self, BoardDiff};
use crate::analysis::code::Code;
use crate::analysis::outcome::{self, KepRow, Phase};
use crate::kep::domain::{Release, Stage};
use crate::repo::history::KepHistory;
use crate::team::board::Item;
use crate::team::issues::Issue;

/// Every KEP of the release as a row, in report order (stage group, SIG,
/// number, path), annotated from the issues when given; and the KEPs
/// listed apart.
pub(super) fn rows(
    inputs: &Inputs,
    opts: &Options,
    urls: &[String],
    phase: Phase,
    issue_index: Option<&BTreeMap<u32, &Issue>>,
) -> (Vec<Row>, Vec<ApartRow>) {
    let (selected, apart) = select(&inputs.sources(), opts.release, inputs.view);
    let mut rows: Vec<Row> = selected
        .iter()
        .map(|s| {
            let mut row = row(inputs, opts, urls, phase, s);
            if let Some(idx) = issue_index {
                issues::annotate(&mut row, idx, opts.release);
            }
            row
        })
        .collect();
    let apart = apart
        .iter()
        .map(|a| {
            let kep = &inputs.model.keps[a.id];
            ApartRow {
                number: kep.number(),
                title: kep.title().to_string(),
                url: urls[a.id].clone(),
                sig: kep.sig().to_string(),
                stage: a.stage.to_string(),
                why: a.why.says(opts.release),
            }
        })
        .collect();
    rows.sort_by(|a, b| {
        let g = |r: &Row| GROUPS.iter().position(|(id, _)| *id == group_of(r));
        (g(a), &a.sig, a.number, &a.path).cmp(&(g(b), &b.sig, b.number, &b.path))
    });
    (rows, apart)
}

/// The board's items whose Status, Stage or SIG differ from the rows.
pub(super) fn board_diff(items: &[Item], rows: &[Row], release: Release) -> Vec<BoardDiff> {
    let stages: Vec<Stage> = rows.iter().map(|r| Stage::parse(&r.stage)).collect();
    let said: Vec<board::compare::Said> = rows
        .iter()
        .zip(&stages)
        .filter_map(|(r, stage)| {
            Some(board::compare::Said {
                number: r.number?,
                status: r.result.status()?,
                stage,
                sig: &r.sig,
            })
        })
        .collect();
    board::compare(items, &said, release)
}

/// `lines`, owned, for the release in progress; nothing otherwise.
fn owned_if(in_progress: bool, lines: Vec<&str>) -> Vec<String> {
    match in_progress {
        true => lines.into_iter().map(str::to_string).collect(),
        false => Vec::new(),
    }
}

/// The stage group of a row.
fn group_of(r: &Row) -> &'static str {
    stage_group(&Stage::parse(&r.stage))
}

/// The row of one selected KEP, before the issues annotate it: what the
/// site's listings show of it too ([`KepRow`]), and what only the report
/// has (the files' fields, the PRR approver, the history's dates).
fn row(inputs: &Inputs, opts: &Options, urls: &[String], phase: Phase, s: &Selected) -> Row {
    let e = &s.entry;
    let kep = &inputs.model.keps[e.id];
    let approver = inputs
        .model
        .prr_for(kep)
        .and_then(|p| p.approval(&s.readiness.stage))
        .map(|a| a.approver.trim().to_string());
    let hist = outcome::history_of(inputs.history, kep);
    let in_progress = phase == Phase::InProgress;
    let k = KepRow::of(e, inputs.code);
    Row {
        number: kep.number(),
        title: kep.title().to_string(),
        path: kep.path.clone(),
        url: urls[e.id].clone(),
        issue_url: kep
            .number()
            .map(|n| format!("{}/issues/{n}", opts.repo_url)),
        sig: kep.sig().to_string(),
        status: kep.meta.status.to_string(),
        current_stage: kep.meta.stage.to_string(),
        stage: k.stage.to_string(),
        outcome: k.outcome,
        result: e.outcome.clone(),
        tone: k.tone,
        went: k.went.map(str::to_string),
        landed: k.landed.cloned(),
        step: k.step,
        summary: inputs.analysis.keps[e.id].summary.clone(),
        feature_gates: feature_gates(kep, inputs.code),
        code: k.code,
        decided: k.decided.cloned(),
        latest_milestone: kep.meta.latest_milestone.clone(),
        prr_approver: approver,
        ready: k.good,
        label: k.label,
        checklist: if in_progress {
            s.readiness.items.clone()
        } else {
            Vec::new()
        },
        tracking: e.tracking.clone(),
        failing: owned_if(in_progress, k.reasons),
        advice: owned_if(in_progress, k.advice),
        basis: k.basis.filter(|_| in_progress),
        last_change: hist.map(|h| h.last.date.clone()),
        targeting_since: hist.and_then(|h| targeting_since(h, opts.release)),
        issue: None,
        flags: Vec::new(),
    }
}

/// The names of the feature gates kep.yaml lists, each once, in order.
fn feature_gates(kep: &crate::kep::Kep, code: Option<&Code>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let from_code = kep
        .number()
        .and_then(|n| code?.gates_of.get(&n))
        .into_iter()
        .flatten()
        .map(String::as_str);
    for name in kep
        .meta
        .feature_gates
        .iter()
        .map(|g| g.name.trim())
        .chain(from_code)
    {
        if !name.is_empty() && !out.iter().any(|n| n == name) {
            out.push(name.to_string());
        }
    }
    out
}

/// Since when latest-milestone has been `release`, without a break up to now.
fn targeting_since(h: &KepHistory, release: Release) -> Option<String> {
    let mut since = None;
    for c in h.changes.iter().rev() {
        match c.latest_milestone.as_deref() {
            Some(m) if release.is(m) => since = Some(c.date.clone()),
            _ => break,
        }
    }
    since
}

/// The rows (in report order) by stage group, then SIG; empty groups left out.
pub(super) fn groups(rows: &[Row]) -> Vec<Group> {
    let mut groups: Vec<Group> = Vec::new();
    for (id, label) in GROUPS {
        let mut sigs: BTreeMap<String, Vec<Row>> = BTreeMap::new();
        for r in rows.iter().filter(|r| group_of(r) == *id) {
            sigs.entry(r.sig.clone()).or_default().push(r.clone());
        }
        if sigs.is_empty() {
            continue;
        }
        let sigs: Vec<SigGroup> = sigs
            .into_iter()
            .map(|(sig, keps)| SigGroup { sig, keps })
            .collect();
        groups.push(Group {
            id,
            label,
            total: sigs.iter().map(|s| s.keps.len()).sum(),
            sigs,
        });
    }
    groups
}
