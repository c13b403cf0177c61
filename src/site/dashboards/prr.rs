//! The PRR reviewer queues, and each KEP's PRR state for the stage it needs
//! in a release (also shown on the SIG dashboards).

use std::collections::{BTreeMap, BTreeSet};

use rayon::prelude::*;
use serde::Serialize;
use serde_json::{Value, json};

use crate::model::KepId;

use super::is_login;
use super::triage::{Row, todo};
use crate::analysis::completeness::Completeness;
use crate::analysis::outcome::{Phase, ReleaseEntry, ReleaseView};
use crate::kep::domain::Stage;
use crate::kep::prr::handle;
use crate::site::listing::{Ctx, Entry, Listing, cycle_json, entry};

/// The PRR questionnaire a stage answers.
fn questionnaire<'a>(c: &Ctx<'a>, i: KepId, stage: &Stage) -> &'a Completeness {
    c.analysis.keps[i].assessment.prr.at(stage)
}

/// An unanswered PRR question, linked to its heading on the KEP page and,
/// with `source`, to the README line.
#[derive(Debug, Clone, Serialize)]
pub(super) struct Question<'a> {
    title: &'a str,
    url: String,
    source: Option<String>,
}

/// A PRR question answered only "N/A", linked to its heading.
#[derive(Debug, Clone, Serialize)]
pub(super) struct NoReason<'a> {
    title: &'a str,
    url: String,
}

/// The unanswered PRR questions of KEP `i` at `stage`, each linked to its
/// heading on the KEP page, with a source link to the README line.
pub(super) fn unanswered<'a>(c: &Ctx<'a>, i: KepId, stage: &Stage) -> Vec<Question<'a>> {
    let kep = &c.model.keps[i];
    let page = &c.refs[i].url;
    let readme = kep.readme_path.as_deref().unwrap_or(&kep.metadata_path);
    questionnaire(c, i, stage)
        .unanswered
        .iter()
        .map(|u| Question {
            title: &u.title,
            url: format!("{page}#{}", crate::kep::document::slug(&u.title)),
            source: u
                .line
                .map(|l| format!("{}?plain=1#L{l}", c.urls.blob(readme))),
        })
        .collect()
}

/// The PRR questions of KEP `i` at `stage` answered only "N/A" (advice).
fn no_reason<'a>(c: &Ctx<'a>, i: KepId, stage: &Stage) -> Vec<NoReason<'a>> {
    let page = &c.refs[i].url;
    questionnaire(c, i, stage)
        .no_reason
        .iter()
        .map(|u| NoReason {
            title: &u.title,
            url: format!("{page}#{}", crate::kep::document::slug(&u.title)),
        })
        .collect()
}

/// The stage whose PRR a KEP needs in a release entry.
fn prr_stage(c: &Ctx, e: &ReleaseEntry) -> Stage {
    match &e.readiness {
        Some(r) => r.stage.clone(),
        None if !e.stage.is_unset() => e.stage.clone(),
        None => c.model.keps[e.id]
            .meta
            .stage
            .nearest()
            .unwrap_or(Stage::Alpha),
    }
}

/// One KEP of a release with its PRR state for the stage it needs there:
/// the release entry's fields, then these.
#[derive(Debug, Clone, Serialize)]
pub(super) struct PrrRow<'a> {
    #[serde(flatten)]
    entry: Entry<'a>,
    release: String,
    prr_stage: String,
    prr_approver: Option<String>,
    approvals: Vec<Approval>,
    questionnaire: Answered,
    unanswered: Vec<Question<'a>>,
    no_reason: Vec<NoReason<'a>>,
    prr_frozen: bool,
    todo: String,
    /// 0: the reviewer can act now, 1: waiting on the authors, 2: done.
    urgency: u8,
}

/// A stage's PRR approval.
#[derive(Debug, Clone, Serialize)]
struct Approval {
    stage: String,
    approver: Option<String>,
}

/// How much of a questionnaire is answered.
#[derive(Debug, Clone, Serialize)]
struct Answered {
    answered: usize,
    required: usize,
    percent: u8,
}

impl Row for PrrRow<'_> {
    fn entry(&self) -> &Entry<'_> {
        &self.entry
    }

    fn unanswered(&self) -> usize {
        self.unanswered.len()
    }
}

impl PrrRow<'_> {
    /// Whether it is in `release`.
    fn is_in(&self, release: &str) -> bool {
        self.release == release
    }

    /// Whether its reviewer still has something to do: approve, or see the
    /// questionnaire answered.
    fn open(&self) -> bool {
        self.questionnaire.percent != 100 || self.prr_approver.is_none()
    }
}

/// One KEP of a release with its PRR state for the stage it needs there.
pub(super) fn prr_row<'a>(c: &Ctx<'a>, e: &'a ReleaseEntry, release: &str) -> PrrRow<'a> {
    let kep = &c.model.keps[e.id];
    let stage = prr_stage(c, e);
    let file = c.model.prr_for(kep);
    let approvals = [Stage::Alpha, Stage::Beta, Stage::Stable]
        .iter()
        .map(|s| Approval {
            stage: s.as_str().to_string(),
            approver: file
                .and_then(|f| f.approval(s))
                .map(|a| handle(&a.approver)),
        })
        .collect();
    let q = questionnaire(c, e.id, &stage);
    let prr_approver = file
        .and_then(|f| f.approval(&stage))
        .map(|a| handle(&a.approver));
    let unanswered = unanswered(c, e.id, &stage);
    let (urgency, todo) = todo(stage.as_str(), prr_approver.is_some(), unanswered.len());
    PrrRow {
        entry: entry(c, e),
        release: release.to_string(),
        prr_stage: stage.as_str().to_string(),
        prr_approver,
        approvals,
        questionnaire: Answered {
            answered: q.answered,
            required: q.required,
            percent: q.percent,
        },
        unanswered,
        no_reason: no_reason(c, e.id, &stage),
        prr_frozen: e.readiness.as_ref().is_some_and(|r| r.prr_frozen),
        todo,
        urgency,
    }
}

/// The PRR reviewer queues: `/prr/` (every approver with their counts) and
/// `/prr/<handle>/` (the KEPs assigned to them in the release in progress
/// and after, from `keps/prod-readiness/` and kep.yaml `prr-approvers`).
pub fn prr_pages(c: &Ctx, views: &[ReleaseView]) -> Vec<Listing> {
    let queues = prr_queues(c, views);
    let mut out: Vec<Listing> = queues
        .par_iter()
        .map(|(h, rows)| {
            let open = rows.iter().filter(|r| r.open()).count();
            Listing::new(
                format!("prr/{h}/index.html"),
                "prr_queue.html",
                format!("PRR queue: @{h}"),
                "prr",
                json!({ "handle": h, "rows": rows, "open": open, "listed": known_prr(c, h), "cycle": cycle_json(c), "summary": queue_summary(c, rows) }),
            )
        })
        .collect();
    out.push(prr_index(c, &queues));
    out
}

/// The summary line of a queue: its rows in the release in progress.
fn queue_summary(c: &Ctx, rows: &[PrrRow]) -> Value {
    let now = c.analysis.current.release.to_string();
    super::triage::summary(rows.iter().filter(|r| r.is_in(&now)), &now)
}

/// Whether `h` is a PRR approver (or emeritus) in OWNERS_ALIASES.
fn known_prr(c: &Ctx, h: &str) -> bool {
    c.model
        .aliases
        .is_prr_approver_or_emeritus(&format!("@{h}"))
}

/// PRR approver handle → the rows of the KEPs assigned to them in the
/// release in progress and after; every approver named anywhere has one.
fn prr_queues<'a>(c: &Ctx<'a>, views: &'a [ReleaseView]) -> BTreeMap<String, Vec<PrrRow<'a>>> {
    let mut queues: BTreeMap<String, Vec<PrrRow>> = BTreeMap::new();
    for v in views.iter().rev().filter(|v| v.phase != Phase::Out) {
        let release = v.release.to_string();
        for e in &v.entries {
            let kep = &c.model.keps[e.id];
            let mut who: BTreeSet<String> =
                crate::kep::segment::capped("prr-approvers", &kep.meta.prr_approvers)
                    .iter()
                    .map(|a| handle(a))
                    .collect();
            if let Some(f) = c.model.prr_for(kep) {
                who.extend(f.approvals.values().map(|a| handle(&a.approver)));
            }
            for h in who.into_iter().filter(|h| is_login(h)) {
                queues.entry(h).or_default().push(prr_row(c, e, &release));
            }
        }
    }
    // Every PRR approver named anywhere has a queue page, empty or not, so
    // that the people pages can link to it.
    let named = c
        .model
        .keps
        .iter()
        .flat_map(|k| {
            crate::kep::segment::capped("prr-approvers", &k.meta.prr_approvers)
                .iter()
                .map(|a| handle(a))
        })
        .chain(
            c.model
                .prr_files
                .iter()
                .flat_map(|f| f.approvals.values().map(|a| handle(&a.approver))),
        );
    for h in named {
        if is_login(&h) {
            queues.entry(h).or_default();
        }
    }
    // The release in progress first, then the planned ones in order (the
    // order they were pushed in); within one, what the reviewer can act on
    // now, then what waits on the authors, then what is done.
    let rank: BTreeMap<String, usize> = views
        .iter()
        .rev()
        .filter(|v| v.phase != Phase::Out)
        .enumerate()
        .map(|(i, v)| (v.release.to_string(), i))
        .collect();
    for rows in queues.values_mut() {
        super::triage::order(rows);
        rows.sort_by_key(|r| (rank.get(&r.release).copied(), r.urgency));
    }
    queues
}

/// `/prr/`: every approver with their counts.
fn prr_index(c: &Ctx, queues: &BTreeMap<String, Vec<PrrRow>>) -> Listing {
    let now = c.analysis.current.release.to_string();
    let mut index = Vec::new();
    // The reviewers with KEPs of the release in progress awaiting them.
    let mut busiest = Vec::new();
    for (h, rows) in queues {
        let url = c.urls.page(&format!("prr/{h}/"));
        index.push(json!({
            "handle": h,
            "url": url,
            "total": rows.len(),
            "current": rows.iter().filter(|r| r.is_in(&now)).count(),
            "waiting": rows.iter().filter(|r| r.prr_approver.is_none()).count(),
            "listed": known_prr(c, h),
        }));
        let awaiting: Vec<&PrrRow> = rows
            .iter()
            .filter(|r| r.is_in(&now) && r.urgency != 2)
            .collect();
        if !awaiting.is_empty() {
            let act_now = awaiting.iter().filter(|r| r.urgency == 0).count();
            busiest.push((act_now, h, url, awaiting));
        }
    }
    // Most to act on now first, then most awaiting (stable: by handle).
    busiest.sort_by_key(|(act_now, _, _, awaiting)| {
        (
            std::cmp::Reverse(*act_now),
            std::cmp::Reverse(awaiting.len()),
        )
    });
    let busiest: Vec<Value> = busiest
        .into_iter()
        .map(|(act_now, h, url, awaiting)| {
            json!({ "handle": h, "url": url, "awaiting": awaiting, "act_now": act_now })
        })
        .collect();
    Listing::new(
        "prr/index.html".into(),
        "prr_index.html",
        "PRR reviewers".into(),
        "prr",
        json!({ "approvers": index, "busiest": busiest, "cycle": cycle_json(c) }),
    )
}
