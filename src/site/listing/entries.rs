//! The release views' entries as the pages show them: a [`ReleaseEntry`]
//! → its JSON (outcome, checklist, phases, PRs, code), and the release in
//! progress' [`ReleaseView`] → the board's JSON (counts by status, the
//! deadlines, what decided who is in it, the KEPs listed apart).

use serde_json::{Value, json};

use super::Ctx;
use crate::analysis::board::Tally;
use crate::analysis::outcome::{self, ReleaseEntry, ReleaseView};
use crate::team::Freeze;

/// One entry of a release view as the pages show it.
pub(in crate::site) fn entry_json(c: &Ctx, e: &ReleaseEntry) -> Value {
    // In progress, the checklist the status is about (the PRR Freeze's
    // before it, the Code Freeze's at the end); else the Enhancements Freeze's.
    let focus = e.tracking.as_ref().map(|t| t.focus());
    let focus = focus.or(e.readiness.as_ref());
    let reasons: Vec<&str> = focus.map(|r| r.reasons()).unwrap_or_default();
    let (went, landed) = match &e.outcome {
        outcome::Outcome::Slipped { went, .. } => (Some(went.clone()), None),
        outcome::Outcome::Shipped { commit } | outcome::Outcome::Deprecated { commit } => {
            (None, commit.clone())
        }
        _ => (None, None),
    };
    let failing: Vec<Value> = focus
        .map(|r| {
            r.failing()
                .map(|i| json!({ "id": i.id, "detail": i.detail }))
                .collect()
        })
        .unwrap_or_default();
    let advice: Vec<&str> = e.readiness.as_ref().map(|r| r.advice()).unwrap_or_default();
    let basis = focus.and_then(|r| r.basis());
    let missing: Vec<&str> = failing.iter().filter_map(|f| f["id"].as_str()).collect();
    let code = c
        .code
        .zip(e.number)
        .and_then(|(code, n)| crate::analysis::outcome::note(code, n, e.release, e.into()))
        .filter(|n| !n.says.is_empty());
    let phases: Vec<Value> = e
        .tracking
        .iter()
        .flat_map(|t| &t.phases)
        .map(|p| {
            json!({
                "name": p.freeze.name(p.release),
                "verdict": p.verdict(),
                "says": p.verdict().label(),
            })
        })
        .collect();
    json!({
        "code": code,
        "decided": e.decided,
        "kep": &c.refs[e.index],
        "stage": e.stage.as_str(),
        "open": e.outcome.needs_action(),
        "good": e.outcome.is_good(),
        "exception": e.outcome.status().is_some_and(|s| s.tally() == Tally::Exception),
        "missing": missing.join(" "),
        "failing": failing,
        "advice": advice,
        "basis": basis.filter(|_| e.outcome.tone() != outcome::Tone::Good),
        "outcome": e.outcome.id(),
        "tone": e.outcome.tone(),
        "label": e.outcome.label(e.release),
        "reasons": reasons,
        "went": went,
        "step": e.step.map(|s| s.label()),
        "phases": phases,
        "why": e.tracking.as_ref().and_then(|t| t.why.clone()),
        "notes": e.tracking.as_ref().map(|t| t.notes.clone()).unwrap_or_default(),
        "prs": e.tracking.as_ref().map(|t| t.prs.iter().map(|p| json!({
            "number": p.number,
            "title": p.title,
            "url": format!("{}/pull/{}", c.urls.repo_url, p.number),
        })).collect::<Vec<_>>()).unwrap_or_default(),
        "landed": landed.map(|l| json!({
            "date": l.date,
            "url": format!("{}/commit/{}", c.urls.repo_url, l.commit),
            "short": l.commit.chars().take(8).collect::<String>(),
        })),
    })
}

/// The board's view of the release in progress, for pages: its counts
/// by status, the deadlines by their names in the schedule, what decided
/// who is in it, and the KEPs listed apart.
pub(in crate::site) fn board_json(c: &Ctx, view: &ReleaseView) -> Value {
    let counts = view.counts();
    let of = |t: Tally| match t {
        Tally::Tracked => counts.tracked,
        Tally::AtRisk => counts.at_risk,
        Tally::Exception => counts.exception,
        Tally::Removed => counts.removed,
        Tally::Deferred => counts.deferred,
    };
    let tallies: Vec<Value> = Tally::ALL
        .into_iter()
        // "0 at risk" says something only while a deadline is ahead.
        .filter(|t| {
            of(*t) > 0 || *t == Tally::Tracked || (*t == Tally::AtRisk && view.next.is_some())
        })
        .map(|t| json!({ "id": t.id(), "label": t.label(), "count": of(t) }))
        .collect();
    let cycle = view.cycle;
    let deadlines: Vec<Value> = Freeze::ALL
        .into_iter()
        .map(|f| {
            json!({
                "name": f.name(view.release),
                "at": cycle.and_then(|c| c.deadline(f)).map(|t| t.strftime("%Y-%m-%d %H:%M UTC").to_string()),
                "past": crate::analysis::board::past(&c.analysis.current, f),
            })
        })
        .collect();
    let apart: Vec<Value> = view
        .apart
        .iter()
        .map(|a| json!({ "kep": &c.refs[a.index], "stage": a.stage.as_str(), "why": a.why.says(view.release) }))
        .collect();
    json!({
        "total": counts.total,
        "tallies": tallies,
        "share_at_risk": format!("{:.0}", counts.share_at_risk()),
        "deadlines": deadlines,
        "next": view.next.map(|f| f.name(view.release)),
        "membership": view.membership.map(|m| m.label()),
        "apart": apart,
    })
}
