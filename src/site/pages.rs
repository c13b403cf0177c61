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

use super::charts::{self, Series};
use super::view::{KepRef, Urls, is_open};
use crate::analysis::Analysis;
use crate::analysis::findings::prr_required;
use crate::analysis::history::History;
use crate::analysis::outcome::{self, Entry, Phase, ReleaseView};
use crate::finding::Finding;
use crate::kep::domain::{Release, Stage};
use crate::kep::prr::handle;
use crate::model::Model;

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
}

/// `(output path, template, title, nav section, context)`.
pub type Listing = (String, &'static str, String, &'static str, Value);

/// Labels pages and charts group values by: a valid value, `invalid` or `none`.
fn counts<'a>(it: impl Iterator<Item = &'a str>) -> Vec<Value> {
    let mut m: BTreeMap<&str, usize> = BTreeMap::new();
    for s in it {
        *m.entry(s).or_insert(0) += 1;
    }
    m.into_iter()
        .map(|(k, v)| json!({ "label": k, "count": v }))
        .collect()
}

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
    let mut all: Vec<ReleaseView> = outcome::releases(c.model, current)
        .into_par_iter()
        .map(|r| outcome::release_view(c.model, c.analysis, c.history, current, r))
        .collect();
    all.reverse();
    all
}

/// One entry of a release view as the pages show it.
fn entry_json(c: &Ctx, e: &Entry) -> Value {
    let reasons: Vec<&str> = e
        .readiness
        .as_ref()
        .map(|r| r.reasons())
        .unwrap_or_default();
    let (went, landed) = match &e.outcome {
        outcome::Outcome::Slipped { went, .. } => (Some(went.clone()), None),
        outcome::Outcome::Shipped { commit } | outcome::Outcome::Deprecated { commit } => {
            (None, commit.clone())
        }
        _ => (None, None),
    };
    json!({
        "kep": &c.refs[e.index],
        "stage": e.stage.as_str(),
        "outcome": e.outcome.id(),
        "label": e.outcome.label(),
        "reasons": reasons,
        "went": went,
        "landed": landed.map(|l| json!({
            "date": l.date,
            "url": format!("{}/commit/{}", c.urls.repo_url, l.commit),
            "short": l.commit.chars().take(8).collect::<String>(),
        })),
    })
}

impl Ctx<'_> {
    /// The release in progress.
    fn current(&self) -> Release {
        self.analysis.current.release
    }

    /// The open KEPs in the release in progress (of one SIG).
    fn in_flight<'v>(&self, view: &'v ReleaseView, sig: Option<&str>) -> Vec<&'v Entry> {
        view.entries
            .iter()
            .filter(|e| sig.is_none_or(|s| self.model.keps[e.index].sig() == s))
            .collect()
    }

    fn sigs(&self) -> BTreeMap<&str, Vec<usize>> {
        let mut m: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        for (i, k) in self.model.keps.iter().enumerate() {
            m.entry(k.sig()).or_default().push(i);
        }
        m
    }

    fn group_refs(&self, idx: &[usize], key: impl Fn(usize) -> String) -> Vec<Value> {
        let mut m: BTreeMap<String, Vec<&KepRef>> = BTreeMap::new();
        for &i in idx {
            m.entry(key(i)).or_default().push(&self.refs[i]);
        }
        m.into_iter()
            .map(|(k, v)| json!({ "label": k, "keps": v }))
            .collect()
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
            &shipped_series(views, |_| true, self.model),
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
fn shipped_series(views: &[ReleaseView], keep: impl Fn(usize) -> bool, _m: &Model) -> Series {
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
                                && matches!(e.outcome.id(), "shipped" | "deprecated")
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
pub fn listing_pages(c: &Ctx) -> Vec<Listing> {
    let views = views(c);
    let cur = views
        .iter()
        .find(|v| v.phase == Phase::InProgress)
        .expect("the release in progress is always among the releases");
    let sigs = c.sigs();
    let ((mut out, by_sig), (by_release, rest)) = rayon::join(
        || {
            rayon::join(
                || home_pages(c, &views, cur, &sigs),
                || sig_pages(c, &views, cur, &sigs),
            )
        },
        || rayon::join(|| release_pages(c, &views), || other_pages(c)),
    );
    out.extend(by_sig);
    out.extend(by_release);
    out.extend(rest);
    out
}

/// The cycle of the release in progress, for pages: its dates and the next
/// deadline counted from the snapshot's day.
fn cycle_json(c: &Ctx) -> Value {
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
    })
}

/// The home page, the KEP index and the SIG index.
fn home_pages(
    c: &Ctx,
    views: &[ReleaseView],
    cur: &ReleaseView,
    sigs: &BTreeMap<&str, Vec<usize>>,
) -> Vec<Listing> {
    let mut out: Vec<Listing> = Vec::new();
    let releases: Vec<String> = views.iter().map(|v| v.release.to_string()).collect();
    let sig_names: Vec<&str> = sigs.keys().copied().collect();
    let keps = &c.model.keps;

    let flight: Vec<Value> = c
        .in_flight(cur, None)
        .into_iter()
        .map(|e| entry_json(c, e))
        .collect();
    out.push((
        "index.html".into(),
        "home.html",
        "Kubernetes Enhancement Proposals".into(),
        "home",
        json!({
            "total": keps.len(),
            "by_status": counts(keps.iter().map(|k| k.meta.status.category())),
            "by_stage": counts(keps.iter().map(|k| k.meta.stage.category())),
            "newest": c.current().to_string(),
            "cycle": cycle_json(c),
            "in_flight": flight,
            "ready": cur.count("ready"),
            "at_risk": cur.count("at-risk"),
            "sigs": sig_names,
            "releases": releases,
            "charts": c.charts(views),
            "findings": c.findings.len(),
        }),
    ));

    // The index's Release filter uses the same membership as the release
    // pages: every release a KEP is in (without history).
    let rows: Vec<Value> = keps
        .iter()
        .zip(c.refs)
        .map(|(k, r)| {
            let rels: Vec<String> = views
                .iter()
                .filter(|v| outcome::stage_in(k, None, v.release).is_some())
                .map(|v| v.release.to_string())
                .collect();
            json!({ "kep": r, "release": rels.join(" "), "status_category": k.meta.status.category(), "stage_category": k.meta.stage.category() })
        })
        .collect();
    let statuses: BTreeSet<&str> = keps.iter().map(|k| k.meta.status.category()).collect();
    let stages: BTreeSet<&str> = keps.iter().map(|k| k.meta.stage.category()).collect();
    out.push(("keps/index.html".into(), "kep_index.html", "All KEPs".into(), "keps", json!({
        "rows": rows, "sigs": sig_names, "statuses": statuses, "stages": stages, "releases": releases,
    })));

    let groups = c.model.sigs.as_ref();
    let sig_list: Vec<Value> = sigs
        .iter()
        .map(|(s, idx)| json!({ "dir": s, "name": groups.and_then(|g| g.get(s)).map(|g| g.name.clone()).unwrap_or_default(), "count": idx.len(), "in_flight": c.in_flight(cur, Some(s)).len() }))
        .collect();
    out.push((
        "sigs/index.html".into(),
        "sig_index.html",
        "SIGs".into(),
        "sigs",
        json!({ "sigs": sig_list, "newest": c.current().to_string() }),
    ));
    out
}

/// One page per SIG, in parallel.
fn sig_pages(
    c: &Ctx,
    _views: &[ReleaseView],
    cur: &ReleaseView,
    sigs: &BTreeMap<&str, Vec<usize>>,
) -> Vec<Listing> {
    let keps = &c.model.keps;
    let groups = c.model.sigs.as_ref();
    sigs.par_iter()
        .map(|(sig, idx)| {
            let numbers: BTreeSet<Option<u32>> = idx.iter().map(|&i| keps[i].number()).collect();
            let (dir, prr_dir) = (
                format!("keps/{sig}/"),
                format!("keps/prod-readiness/{sig}/"),
            );
            let gaps: Vec<&Finding> = c
                .findings
                .iter()
                .filter(|f| {
                    f.rule.starts_with("prr-")
                        && (f.path.starts_with(&dir)
                            || f.path.starts_with(&prr_dir)
                            || (f.kep.is_some() && numbers.contains(&f.kep)))
                })
                .collect();
            let incomplete: Vec<Value> = idx
                .iter()
                .filter(|&&i| {
                    prr_required(&keps[i])
                        && is_open(&keps[i].meta.status)
                        && c.analysis.keps.get(i).and_then(|a| a.prr_complete_current)
                            == Some(false)
                })
                .map(|&i| {
                    let a = &c.analysis.keps[i];
                    json!({ "kep": &c.refs[i], "missing": prr_gap(&keps[i].meta.stage, a) })
                })
                .collect();
            let mut stale: Vec<(i64, Value)> = idx
                .iter()
                .filter(|&&i| is_open(&keps[i].meta.status))
                .filter_map(|&i| {
                    let h = c.history?.keps.get(&keps[i].number()?)?;
                    h.is_stale(c.now, super::STALE_DAYS).then(|| {
                        let days = h.days_since_last_change(c.now);
                        (
                            days,
                            json!({ "kep": &c.refs[i], "days": days, "last": h.last.date }),
                        )
                    })
                })
                .collect();
            stale.sort_by_key(|(d, _)| std::cmp::Reverse(*d));
            let flight: Vec<Value> = c
                .in_flight(cur, Some(sig))
                .into_iter()
                .map(|e| entry_json(c, e))
                .collect();
            (
                format!("sigs/{sig}/index.html"),
                "sig.html",
                sig.to_string(),
                "sigs",
                json!({
                    "sig": sig,
                    "group": groups.and_then(|g| g.get(sig)),
                    "count": idx.len(),
                    "by_status": c.group_refs(idx, |i| keps[i].meta.status.category().to_string()),
                    "by_stage": c.group_refs(idx, |i| keps[i].meta.stage.category().to_string()),
                    "in_flight": flight,
                    "newest": c.current().to_string(),
                    "cycle": cycle_json(c),
                    "prr_gaps": gaps,
                    "prr_incomplete": incomplete,
                    "history": c.history.is_some(),
                    "stale": stale.into_iter().map(|(_, v)| v).collect::<Vec<_>>(),
                    "stale_days": super::STALE_DAYS,
                }),
            )
        })
        .collect()
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
                let rows: Vec<Value> = view
                    .entries
                    .iter()
                    .filter(|e| e.stage == *s)
                    .map(|e| entry_json(c, e))
                    .collect();
                let ready = rows
                    .iter()
                    .filter(|r| matches!(r["outcome"].as_str(), Some("ready" | "shipped" | "deprecated")))
                    .count();
                json!({ "stage": if s.is_unset() { "no stage change" } else { s.as_str() }, "rows": rows, "ready": ready })
            })
            .collect();
        let counts: Vec<Value> = by_stage.iter().map(|v| json!({ "stage": v["stage"], "count": v["rows"].as_array().map_or(0, Vec::len) })).collect();
        let tally = json!({
            "total": view.entries.len(),
            "ready": view.count("ready"),
            "at_risk": view.count("at-risk"),
            "shipped": view.count("shipped") + view.count("deprecated"),
            "slipped": view.count("slipped"),
            "latest_only": view.count("latest-only"),
            "planned": view.count("planned"),
        });
        rel_list.push(json!({ "name": name, "url": u.page(&format!("releases/{name}/")), "counts": counts, "phase": phase, "tally": tally, "dates": view.cycle }));
        out.push((
            format!("releases/{name}/index.html"),
            "release.html",
            format!("Release {name}"),
            "releases",
            json!({
                "release": name, "by_stage": by_stage, "phase": phase, "tally": tally,
                "dates": view.cycle,
                "cycle": if phase == Phase::InProgress { cycle_json(c) } else { Value::Null },
                "current": c.current().to_string(),
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

/// The feature-gate index, the people index and the Atom feed.
fn other_pages(c: &Ctx) -> Vec<Listing> {
    // three independent pages, side by side
    let (gates, (feed, people)) = rayon::join(
        || gates_page(c),
        || rayon::join(|| feed(c), || people_page(c)),
    );
    vec![gates, feed, people]
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
    let gates: Vec<Value> = gates
        .into_iter()
        .filter(|(n, _)| !n.is_empty())
        .map(|(n, (comp, ks))| json!({ "name": n, "components": comp, "keps": ks }))
        .collect();
    (
        "feature-gates/index.html".into(),
        "feature_gates.html",
        "Feature gates".into(),
        "gates",
        json!({ "gates": gates }),
    )
}

/// The people index: who authored and who approved which KEPs.
fn people_page(c: &Ctx) -> Listing {
    let mut people: BTreeMap<String, (BTreeSet<usize>, BTreeSet<usize>)> = BTreeMap::new();
    for (i, k) in c.model.keps.iter().enumerate() {
        for a in &k.meta.authors {
            people.entry(handle(a)).or_default().0.insert(i);
        }
        for a in &k.meta.approvers {
            people.entry(handle(a)).or_default().1.insert(i);
        }
    }
    let people: Vec<Value> = people
        .into_iter()
        .filter(|(h, _)| !h.is_empty())
        .map(|(h, (a, p))| {
            json!({
                "handle": h,
                "authored": a.iter().map(|&i| &c.refs[i]).collect::<Vec<_>>(),
                "approved": p.iter().map(|&i| &c.refs[i]).collect::<Vec<_>>(),
            })
        })
        .collect();
    (
        "people/index.html".into(),
        "people.html",
        "People".into(),
        "people",
        json!({ "people": people }),
    )
}

/// What keeps a KEP's PRR from being complete for its current stage.
fn prr_gap(stage: &Stage, a: &crate::analysis::tracking::KepAnalysis) -> Vec<String> {
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

/// Entries in the Atom feed.
const FEED_ENTRIES: usize = 50;

/// `YYYY-MM-DDThh:mm:ssZ` for a unix time.
pub fn rfc3339(t: i64) -> String {
    let secs = t.rem_euclid(86_400);
    format!(
        "{}T{:02}:{:02}:{:02}Z",
        crate::analysis::history::format_date(t),
        secs / 3600,
        secs % 3600 / 60,
        secs % 60
    )
}

/// The Atom feed: the latest stage, status and milestone changes from git,
/// or, without history, the KEPs most recently marked `last-updated`.
fn feed(c: &Ctx) -> Listing {
    let keps = &c.model.keps;
    let mut entries: Vec<(i64, String, Value)> = Vec::new();
    if let Some(h) = c.history {
        let mut seen = BTreeSet::new();
        for (i, k) in keps.iter().enumerate() {
            let Some(n) = k.number() else { continue };
            if !seen.insert(n) {
                continue;
            }
            let Some(kh) = h.keps.get(&n) else { continue };
            let mut prev: Option<&crate::analysis::history::Change> = None;
            for ch in &kh.changes {
                let describe =
                    |name: &str, old: Option<&str>, new: Option<&str>| -> Option<String> {
                        let new = new.unwrap_or("");
                        match prev {
                            None if !new.is_empty() => Some(format!("{name} {new}")),
                            Some(_) if old != Some(new) && !new.is_empty() => Some(format!(
                                "{name} {} → {new}",
                                old.filter(|o| !o.is_empty()).unwrap_or("(none)")
                            )),
                            _ => None,
                        }
                    };
                let (po_status, po_stage, po_ms) = prev.map(|p| p.values()).unwrap_or_default();
                let parts: Vec<String> = [
                    describe("status", po_status, ch.status.as_deref()),
                    describe("stage", po_stage, ch.stage.as_deref()),
                    describe("latest milestone", po_ms, ch.latest_milestone.as_deref()),
                ]
                .into_iter()
                .flatten()
                .collect();
                let what = if prev.is_none() {
                    "proposed"
                } else {
                    "updated"
                };
                prev = Some(ch);
                if parts.is_empty() {
                    continue;
                }
                let r = &c.refs[i];
                entries.push((
                    ch.time,
                    format!("{}{n}", ch.commit),
                    json!({
                        "title": format!("KEP-{n} {what}: {}", r.title),
                        "summary": parts.join("; "),
                        "url": r.url,
                        "id": format!("{}/commit/{}#kep-{n}", c.urls.repo_url, ch.commit),
                        "updated": rfc3339(ch.time),
                        "sig": r.sig,
                    }),
                ));
            }
        }
    } else {
        for (i, k) in keps.iter().enumerate() {
            let d = &k.meta.last_updated;
            if !crate::analysis::findings::is_valid_date(d) {
                continue;
            }
            let r = &c.refs[i];
            entries.push((
                date_to_unix(d).unwrap_or_default(),
                k.path.clone(),
                json!({
                    "title": format!("{}{}", r.number.map(|n| format!("KEP-{n}: ")).unwrap_or_default(), r.title),
                    "summary": format!("last-updated {d}; status {}, stage {}", r.status, if r.stage.is_empty() { "(none)" } else { &r.stage }),
                    "url": r.url,
                    "id": format!("{}/tree/{}/{}#{d}", c.urls.repo_url, c.urls.branch, k.path),
                    "updated": format!("{d}T00:00:00Z"),
                    "sig": r.sig,
                }),
            ));
        }
    }
    entries.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    entries.truncate(FEED_ENTRIES);
    let updated = entries
        .first()
        .map(|e| e.2["updated"].as_str().unwrap_or_default().to_string())
        .unwrap_or_else(|| rfc3339(c.now));
    (
        "feed.xml".into(),
        "feed.xml",
        "Latest KEP changes".into(),
        "",
        json!({
            "updated": updated,
            "entries": entries.into_iter().map(|e| e.2).collect::<Vec<_>>(),
            "from_history": c.history.is_some(),
        }),
    )
}

/// Unix time of a `YYYY-MM-DD` date (midnight UTC).
fn date_to_unix(d: &str) -> Option<i64> {
    let mut it = d.splitn(3, '-').map(|p| p.parse::<i64>().ok());
    let (y, m, day) = (it.next()??, it.next()??, it.next()??);
    // Days-from-civil, the inverse of `rfc3339`'s conversion.
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    Some((era * 146_097 + doe - 719_468) * 86_400)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_round_trip() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(1_700_000_000), "2023-11-14T22:13:20Z");
        for d in ["2019-01-31", "2020-02-29", "2024-12-31", "1999-03-01"] {
            let t = date_to_unix(d).unwrap();
            assert_eq!(rfc3339(t), format!("{d}T00:00:00Z"));
        }
        assert_eq!(date_to_unix("2020-xx-01"), None);
    }
}
