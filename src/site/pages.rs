//! Listing pages: [`Ctx`] (model, findings, KEP references) → contexts for the
//! home page, the KEP index, SIG, release, feature-gate and people pages,
//! including the chart geometry the home page draws.
//!
//! Every page that says which KEPs are "in" a release reads the analysis'
//! [`outcome`] views, so the home page, SIG pages, release pages, the index
//! filter and the report agree.

use std::collections::{BTreeMap, BTreeSet};

use rayon::prelude::*;
use serde_json::{Value, json};

mod entries;
mod home;

use super::charts::{self, Series};
use super::dashboards;
use super::view::{KepRef, Urls};
use crate::analysis::Analysis;
use crate::analysis::findings::prr_required;
use crate::analysis::history::History;
use crate::analysis::outcome::{self, Phase, ReleaseEntry, ReleaseView};
use crate::finding::Finding;
use crate::kep::domain::{Release, Stage};
use crate::model::Model;
pub(super) use entries::{board_json, entry_json};
use home::home_pages;

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

/// `(output path, template, title, nav section, context)`.
pub type Listing = (String, &'static str, String, &'static str, Value);

/// The stage categories in display order: the stages, then `invalid`, `none`.
fn stage_categories() -> Vec<String> {
    Stage::ALL
        .iter()
        .map(|s| s.as_str().to_string())
        .chain(["invalid".to_string(), "none".to_string()])
        .collect()
}

/// Every release's view, newest first.
fn views(c: &Ctx) -> Vec<ReleaseView> {
    let current = &c.analysis.current;
    let src = c.sources();
    let mut all: Vec<ReleaseView> = outcome::releases(c.model, current)
        .into_par_iter()
        .map(|r| outcome::release_view(&src, r))
        .collect();
    all.reverse();
    all
}

impl Ctx<'_> {
    /// The release in progress.
    fn current(&self) -> Release {
        self.analysis.current.release
    }

    /// The open KEPs in the release in progress (of one SIG).
    fn in_flight<'v>(&self, view: &'v ReleaseView, sig: Option<&str>) -> Vec<&'v ReleaseEntry> {
        view.entries
            .iter()
            .filter(|e| sig.is_none_or(|s| self.model.keps[e.index].sig() == s))
            .collect()
    }

    fn sigs(&self) -> BTreeMap<&str, Vec<usize>> {
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

    fn charts(&self, views: &[ReleaseView]) -> Value {
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
pub(super) fn shipped_series(views: &[ReleaseView], keep: impl Fn(usize) -> bool) -> Series {
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
                                && keep(e.index)
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

/// Every listing page. The home and index pages, the SIG pages, the release
/// pages and the rest are built side by side.
///
/// Each kind of page goes to `out` as soon as it is built (the home pages,
/// the SIG pages, …), so that a build can write it and let it go before the
/// others are done (on the 10x corpus they hold 234 MB of context together).
pub fn listing_pages(c: &Ctx, out: &(dyn Fn(Vec<Listing>) + Sync)) {
    let views = views(c);
    let cur = views
        .iter()
        .find(|v| v.phase == Phase::InProgress)
        .expect("the release in progress is always among the releases");
    let sigs = c.sigs();
    rayon::join(
        || {
            rayon::join(
                || out(home_pages(c, &views, cur, &sigs)),
                || out(dashboards::sig_pages(c, &views, &sigs)),
            )
        },
        || {
            rayon::join(
                || {
                    rayon::join(
                        || out(release_pages(c, &views)),
                        || out(dashboards::prr_pages(c, &views)),
                    )
                },
                || out(other_pages(c, out)),
            )
        },
    );
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

/// One page per release, and the release index.
fn release_pages(c: &Ctx, views: &[ReleaseView]) -> Vec<Listing> {
    let mut out: Vec<Listing> = Vec::new();
    let u = c.urls;
    let mut rel_list = Vec::new();
    for view in views {
        let name = view.release.to_string();
        let phase = view.phase;
        let by_stage: Vec<Value> = Stage::ALL
            .iter()
            .chain([&Stage::Unset])
            .map(|s| {
                let mut rows: Vec<Value> = view
                    .entries
                    .iter()
                    .filter(|e| e.stage == *s)
                    .map(|e| entry_json(c, e))
                    .collect();
                dashboards::triage::order(&mut rows);
                let ready = rows.iter().filter(|r| r["good"] == true).count();
                json!({ "stage": if s.is_unset() { "no stage change" } else { s.as_str() }, "rows": rows, "ready": ready })
            })
            .collect();
        let counts: Vec<Value> = by_stage.iter().map(|v| json!({ "stage": v["stage"], "count": v["rows"].as_array().map_or(0, Vec::len) })).collect();
        let n = view.counts();
        let tally = json!({
            "total": n.total,
            "frozen": view.frozen,
            "shipped": n.shipped + n.deprecated,
            "slipped": n.slipped,
            "latest_only": n.latest_only,
            "planned": n.planned,
            "tracked": n.tracked,
            "at_risk": n.at_risk,
        });
        let board = (phase == Phase::InProgress).then(|| board_json(c, view));
        rel_list.push(json!({ "name": name, "url": u.page(&format!("releases/{name}/")), "counts": counts, "phase": phase, "tally": tally, "board": board, "dates": view.cycle }));
        out.push((
            format!("releases/{name}/index.html"),
            "release.html",
            format!("Release {name}"),
            "releases",
            json!({
                "summary": (phase == Phase::InProgress).then(|| {
                    let all: Vec<Value> = by_stage.iter().flat_map(|g| g["rows"].as_array().cloned().unwrap_or_default()).collect();
                    dashboards::triage::summary(&all, &name)
                }),
                "board": board,
                "release": name, "by_stage": by_stage, "phase": phase, "tally": tally,
                "dates": view.cycle,
                "cycle": if phase == Phase::InProgress { cycle_json(c) } else { Value::Null },
                "current": c.current().to_string(),
                "comments": c.messages.filter(|m| m.release == view.release).map(|m| json!({
                    "url": u.page(&format!("releases/{name}/comments/")),
                    "phase": m.phase.title(),
                })),
            }),
        ));
    }
    out.push((
        "releases/index.html".into(),
        "releases.html",
        "Releases".into(),
        "releases",
        json!({ "releases": rel_list, "stages": stage_categories(), "current": c.current().to_string() }),
    ));

    out
}

/// The feature-gate index, the findings page, the people pages and the Atom feed.
fn other_pages(c: &Ctx, out: &(dyn Fn(Vec<Listing>) + Sync)) -> Vec<Listing> {
    let ((gates, findings), (feed, people)) = rayon::join(
        || rayon::join(|| gates_page(c), || dashboards::findings_page(c)),
        || rayon::join(|| super::feed::feed(c), || dashboards::people_pages(c, out)),
    );
    vec![people, gates, findings, feed]
}

/// The feature-gate index.
fn gates_page(c: &Ctx) -> Listing {
    let mut gates: BTreeMap<String, (BTreeSet<String>, Vec<&KepRef>)> = BTreeMap::new();
    for (k, r) in c.model.keps.iter().zip(c.refs) {
        for g in &k.meta.feature_gates {
            let e = gates.entry(g.name.clone()).or_default();
            e.0.extend(g.components.iter().cloned());
            e.1.push(r);
        }
    }
    // With --kubernetes: every gate the code declares for a KEP too, and
    // each gate's stages per release as the code read them.
    if let Some(code) = c.code {
        let by_number: BTreeMap<u32, &KepRef> = c
            .model
            .keps
            .iter()
            .zip(c.refs)
            .filter_map(|(k, r)| Some((k.number()?, r)))
            .collect();
        for (g, ns) in &code.keps_of {
            let e = gates.entry(g.clone()).or_default();
            for n in ns {
                if let Some(r) = by_number
                    .get(n)
                    .filter(|r| !e.1.iter().any(|x| std::ptr::eq(*x, **r)))
                {
                    e.1.push(r);
                }
            }
        }
    }
    let gates: Vec<Value> = gates
        .into_iter()
        .filter(|(n, _)| !n.is_empty())
        .map(|(n, (comp, ks))| {
            let code = c
                .code
                .map(|code| crate::analysis::code::gate_steps(code, &n));
            json!({ "name": n, "components": comp, "keps": ks, "code": code })
        })
        .collect();
    (
        "feature-gates/index.html".into(),
        "feature_gates.html",
        "Feature gates".into(),
        "gates",
        json!({ "gates": gates, "code": c.code.map(|x| &x.source) }),
    )
}

/// What keeps a KEP's PRR from being complete for its current stage.
pub(super) fn prr_gap(stage: &Stage, a: &crate::analysis::tracking::KepAnalysis) -> Vec<String> {
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
