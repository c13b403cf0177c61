//! What every listing page is built from: [`Ctx`] (the model, its
//! analysis, findings, KEP references and URLs), the [`Listing`] a page
//! builder returns, and the pieces several kinds of page share (the cycle
//! line, a KEP's row in a release, the board's counts, what the SIG
//! dashboards and the home page chart). The page builders (`pages`,
//! `dashboards`, `feed`) read it; it reads none of them.

use std::collections::BTreeMap;

use rayon::prelude::*;
use serde_json::{Value, json};

mod entries;

use super::charts::{self, Series};
use super::view::{KepRef, Urls};
use crate::analysis::Analysis;
use crate::analysis::findings::prr_required;
use crate::analysis::outcome::{self, Phase, ReleaseEntry, ReleaseView};
use crate::finding::Finding;
use crate::kep::domain::{Release, Stage};
use crate::model::{KepId, Model};
use crate::repo::history::History;
#[cfg(test)]
pub(super) use entries::Failing;
pub(super) use entries::{Entry, board_json, entry};

/// What the listing pages are built from.
pub struct Ctx<'a> {
    /// The model.
    pub model: &'a Model,
    /// Its analysis.
    pub analysis: &'a Analysis,
    /// Git history, when available.
    pub history: Option<&'a History>,
    /// The clock history is judged against.
    pub now: i64,
    /// All findings.
    pub findings: &'a [Finding],
    /// One reference per KEP, in model order.
    pub refs: &'a [KepRef],
    /// URL helpers.
    pub urls: &'a Urls<'a>,
    /// Kubernetes' feature gates (`--kubernetes`).
    pub code: Option<&'a crate::analysis::code::Code>,
    /// The release team's records (`--issues`, `--prs`, …).
    pub team: Option<&'a crate::analysis::board::TeamFacts>,
    /// The team's messages for the release in progress.
    pub messages: Option<&'a crate::report::site::TeamMessages>,
}

impl<'a> Ctx<'a> {
    /// What the release views read.
    pub fn sources(&self) -> outcome::Sources<'a> {
        outcome::Sources {
            history: self.history,
            code: self.code,
            team: self.team,
            ..outcome::Sources::of(self.model, self.analysis)
        }
    }
}

/// One listing page, as a page builder hands it to the plan.
#[derive(Debug, Clone)]
pub struct Listing {
    /// Its output path (`sigs/sig-node/index.html`).
    pub path: String,
    /// The theme template that renders it.
    pub template: &'static str,
    /// Its title.
    pub title: String,
    /// The navigation section it is under (`sigs`, `releases`, …).
    pub section: &'static str,
    /// The template's context.
    pub context: Value,
}

impl Listing {
    /// A listing page: output path, template, title, nav section, context.
    pub fn new(
        path: String,
        template: &'static str,
        title: String,
        section: &'static str,
        context: Value,
    ) -> Listing {
        Listing {
            path,
            template,
            title,
            section,
            context,
        }
    }
}

/// The stage categories in display order: the stages, then `invalid`, `none`.
pub(super) fn stage_categories() -> Vec<String> {
    Stage::ALL
        .iter()
        .map(|s| s.as_str().to_string())
        .chain(["invalid".to_string(), "none".to_string()])
        .collect()
}

/// Every release's view, newest first: taken once for the listings and
/// the release reports beside them.
pub(super) fn views(src: &outcome::Sources) -> Vec<ReleaseView> {
    let mut all: Vec<ReleaseView> = outcome::releases(src.model, &src.current)
        .into_par_iter()
        .map(|r| outcome::release_view(src, r))
        .collect();
    all.reverse();
    all
}

impl Ctx<'_> {
    /// The release in progress.
    pub(super) fn current(&self) -> Release {
        self.analysis.current.release
    }

    /// The open KEPs in the release in progress (of one SIG).
    pub(super) fn in_flight<'v>(
        &self,
        view: &'v ReleaseView,
        sig: Option<&str>,
    ) -> Vec<&'v ReleaseEntry> {
        view.entries
            .iter()
            .filter(|e| sig.is_none_or(|s| self.model.keps[e.id].sig() == s))
            .collect()
    }

    pub(super) fn sigs(&self) -> BTreeMap<&str, Vec<usize>> {
        let mut m: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        // A SIG name that cannot name a directory gets no page (`check`
        // reports it as `sig-invalid`).
        for (i, k) in self.model.keps.iter().enumerate() {
            if crate::kep::segment::is_sig(k.sig()) {
                m.entry(k.sig()).or_default().push(i);
            }
        }
        m
    }

    pub(super) fn charts(&self, views: &[ReleaseView]) -> Value {
        let cats = stage_categories();
        let rows = self
            .sigs()
            .into_iter()
            .map(|(sig, idx)| {
                let mut v = vec![0; cats.len()];
                for i in idx {
                    let b = self.model.keps[i].meta.stage.category();
                    if let Some(p) = cats.iter().position(|c| c == b) {
                        v[p] += 1;
                    }
                }
                (sig.to_string(), v)
            })
            .collect();
        let by_sig = charts::horizontal(
            "KEPs by stage per SIG",
            "Stacked bars: one row per SIG, one segment per current stage (invalid values under one heading).",
            &Series {
                categories: cats,
                rows,
                colours: vec![],
            },
        );

        let by_release = charts::vertical(
            "What shipped per release, by stage",
            "Stacked columns: one per release that is out, counting KEPs that reached each stage in it.",
            &shipped_series(views, |_| true),
        );

        let cats = vec![
            "approved".to_string(),
            "stage not approved".to_string(),
            "no PRR file".to_string(),
        ];
        let rows = [Stage::Alpha, Stage::Beta, Stage::Stable]
            .iter()
            .map(|s| {
                let mut v = vec![0; 3];
                for k in self
                    .model
                    .keps
                    .iter()
                    .filter(|k| k.meta.stage == *s && prr_required(k))
                {
                    let i = match self.model.prr_for(k) {
                        Some(p) if p.approval(s).is_some() => 0,
                        Some(_) => 1,
                        None => 2,
                    };
                    v[i] += 1;
                }
                (s.to_string(), v)
            })
            .collect();
        let prr = charts::horizontal(
            "PRR approval of KEPs that need it",
            "For KEPs needing production readiness review, by current stage: approved for that stage, file without that stage, or no file.",
            &Series {
                categories: cats,
                rows,
                colours: vec![2, 3, 4],
            },
        );
        json!([by_sig, by_release, prr])
    }
}

/// Per release that is out (oldest first), the KEPs that shipped at each
/// stage, of the KEPs `keep` selects.
pub(super) fn shipped_series(views: &[ReleaseView], keep: impl Fn(KepId) -> bool) -> Series {
    let stages: Vec<Stage> = Stage::ALL.to_vec();
    let rows = views
        .iter()
        .rev()
        .filter(|v| v.phase == Phase::Out)
        .map(|v| {
            let counts = stages
                .iter()
                .map(|s| {
                    v.entries
                        .iter()
                        .filter(|e| {
                            e.stage == *s
                                && matches!(
                                    e.outcome,
                                    outcome::Outcome::Shipped { .. }
                                        | outcome::Outcome::Deprecated { .. }
                                )
                                && keep(e.id)
                        })
                        .count()
                })
                .collect();
            (v.release.to_string(), counts)
        })
        .collect();
    Series {
        categories: stages.iter().map(|s| s.to_string()).collect(),
        rows,
        colours: vec![],
    }
}

/// The cycle of the release in progress, for pages: its dates and the next
/// deadline counted from the snapshot's day.
pub(super) fn cycle_json(c: &Ctx) -> Value {
    let cur = &c.analysis.current;
    let next = cur
        .next_deadline()
        .map(|(what, date, days)| json!({ "what": what, "date": date.to_string(), "days": days }));
    json!({
        "release": cur.release.to_string(),
        "basis": cur.basis,
        "today": cur.today.map(|d| d.to_string()),
        "dates": cur.cycle,
        "next": next,
        "past_code_freeze": match (cur.today, cur.cycle.as_ref().and_then(|c| c.code_freeze)) {
            (Some(today), Some(freeze)) => today > freeze,
            _ => false,
        },
    })
}

/// What keeps a KEP's PRR from being complete for its current stage.
pub(super) fn prr_gap(stage: &Stage, a: &crate::analysis::KepAnalysis) -> Vec<String> {
    use crate::analysis::completeness::PrrTarget;
    let stage = if stage.is_unset() {
        &Stage::Alpha
    } else {
        stage
    };
    let (approved, q) = match PrrTarget::from_stage(stage) {
        Some(PrrTarget::Beta) => (a.prr_approved.beta, &a.assessment.prr.beta),
        Some(PrrTarget::Stable) => (a.prr_approved.stable, &a.assessment.prr.stable),
        _ => (a.prr_approved.alpha, &a.assessment.prr.alpha),
    };
    let mut out = Vec::new();
    if !approved {
        out.push(format!("not approved for {stage}"));
    }
    if !q.unanswered.is_empty() {
        out.push(format!(
            "{} of {} questions unanswered",
            q.unanswered.len(),
            q.required
        ));
    }
    out
}
