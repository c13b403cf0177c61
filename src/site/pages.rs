//! Listing pages: [`Ctx`] (model, findings, KEP references) → contexts for the
//! home page, the KEP index, SIG, release, feature-gate and people pages,
//! including the chart geometry the home page draws.

use std::collections::{BTreeMap, BTreeSet};

use rayon::prelude::*;
use serde_json::{Value, json};

use super::charts::{self, Series};
use super::view::{KepRef, Urls, is_done};
use crate::analysis::Analysis;
use crate::analysis::findings::prr_required;
use crate::analysis::history::History;
use crate::analysis::tracking;
use crate::finding::Finding;
use crate::kep::metadata::Version;
use crate::kep::prr::handle;
use crate::model::Model;

/// Stages in display order.
pub use crate::kep::metadata::STAGES;

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

fn release_of(m: &str) -> Option<Version> {
    Version::parse(m).map(|v| Version { patch: 0, ..v })
}

fn stage_bucket(stage: &str) -> &str {
    if stage.is_empty() {
        "none"
    } else if STAGES.contains(&stage) {
        stage
    } else {
        "other"
    }
}

fn counts<'a>(it: impl Iterator<Item = &'a str>) -> Vec<Value> {
    let mut m: BTreeMap<&str, usize> = BTreeMap::new();
    for s in it {
        *m.entry(if s.is_empty() { "(none)" } else { s })
            .or_insert(0) += 1;
    }
    m.into_iter()
        .map(|(k, v)| json!({ "label": k, "count": v }))
        .collect()
}

impl Ctx<'_> {
    fn releases(&self) -> BTreeSet<Version> {
        let mut r = BTreeSet::new();
        for k in &self.model.keps {
            r.extend(release_of(&k.meta.latest_milestone));
            for (_, m) in k.meta.milestone.entries() {
                r.extend(release_of(m));
            }
        }
        r
    }

    fn newest(&self) -> Option<Version> {
        self.model
            .keps
            .iter()
            .filter_map(|k| release_of(&k.meta.latest_milestone))
            .max()
    }

    fn in_flight(&self, newest: Option<Version>, sig: Option<&str>) -> Vec<&KepRef> {
        self.model
            .keps
            .iter()
            .zip(self.refs)
            .filter(|(k, _)| newest.is_some() && release_of(&k.meta.latest_milestone) == newest)
            .filter(|(k, _)| !is_done(&k.meta.status))
            .filter(|(k, _)| sig.is_none_or(|s| k.sig() == s))
            .map(|(_, r)| r)
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
        m.into_iter().map(|(k, v)| json!({ "label": if k.is_empty() { "(none)".into() } else { k }, "keps": v })).collect()
    }

    fn charts(&self) -> Value {
        let mut cats: Vec<String> = STAGES.iter().map(|s| s.to_string()).collect();
        cats.extend(["other".to_string(), "none".to_string()]);
        let rows = self
            .sigs()
            .into_iter()
            .map(|(sig, idx)| {
                let mut v = vec![0; cats.len()];
                for i in idx {
                    let b = stage_bucket(&self.model.keps[i].meta.stage);
                    if let Some(p) = cats.iter().position(|c| c == b) {
                        v[p] += 1;
                    }
                }
                (sig.to_string(), v)
            })
            .collect();
        let by_sig = charts::horizontal(
            "KEPs by stage per SIG",
            "Stacked bars: one row per SIG, one segment per current stage.",
            &Series {
                categories: cats,
                rows,
                colours: vec![],
            },
        );

        let stages: Vec<String> = STAGES.iter().map(|s| s.to_string()).collect();
        let rows = self
            .releases()
            .into_iter()
            .map(|r| {
                let v = STAGES
                    .iter()
                    .map(|s| {
                        self.model
                            .keps
                            .iter()
                            .filter(|k| release_of(k.meta.milestone.get(s)) == Some(r))
                            .count()
                    })
                    .collect();
                (r.release(), v)
            })
            .collect();
        let by_release = charts::vertical(
            "KEPs per release by stage",
            "Stacked columns: one per release, counting KEPs that reached each stage in it.",
            &Series {
                categories: stages,
                rows,
                colours: vec![],
            },
        );

        let cats = vec![
            "approved".to_string(),
            "stage not approved".to_string(),
            "no PRR file".to_string(),
        ];
        let rows = ["alpha", "beta", "stable"]
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

/// Every listing page. The home and index pages, the SIG pages, the release
/// pages and the rest are built side by side.
pub fn listing_pages(c: &Ctx) -> Vec<Listing> {
    let newest = c.newest();
    let sigs = c.sigs();
    let ((mut out, by_sig), (by_release, rest)) = rayon::join(
        || {
            rayon::join(
                || home_pages(c, newest, &sigs),
                || sig_pages(c, newest, &sigs),
            )
        },
        || rayon::join(|| release_pages(c, newest), || other_pages(c)),
    );
    out.extend(by_sig);
    out.extend(by_release);
    out.extend(rest);
    out
}

/// The home page, the KEP index and the SIG index.
fn home_pages(c: &Ctx, newest: Option<Version>, sigs: &BTreeMap<&str, Vec<usize>>) -> Vec<Listing> {
    let mut out: Vec<Listing> = Vec::new();
    let releases: Vec<String> = c
        .releases()
        .into_iter()
        .rev()
        .map(|v| v.release())
        .collect();
    let sig_names: Vec<&str> = sigs.keys().copied().collect();
    let keps = &c.model.keps;

    let flight = c.in_flight(newest, None);
    let ready = flight.iter().filter(|r| r.readiness == "Ready").count();
    let at_risk = flight.iter().filter(|r| r.readiness == "At risk").count();
    out.push((
        "index.html".into(),
        "home.html",
        "Kubernetes Enhancement Proposals".into(),
        "home",
        json!({
            "total": keps.len(),
            "by_status": counts(keps.iter().map(|k| k.meta.status.as_str())),
            "by_stage": counts(keps.iter().map(|k| k.meta.stage.as_str())),
            "newest": newest.map(|v| v.release()),
            "in_flight": flight,
            "ready": ready,
            "at_risk": at_risk,
            "sigs": sig_names,
            "releases": releases,
            "charts": c.charts(),
            "findings": c.findings.len(),
        }),
    ));

    let rows: Vec<Value> = keps
        .iter()
        .zip(c.refs)
        .map(|(k, r)| json!({ "kep": r, "release": release_of(&k.meta.latest_milestone).map(|v| v.release()).unwrap_or_default() }))
        .collect();
    let statuses: BTreeSet<&str> = keps
        .iter()
        .map(|k| k.meta.status.as_str())
        .filter(|s| !s.is_empty())
        .collect();
    let stages: BTreeSet<&str> = keps
        .iter()
        .map(|k| k.meta.stage.as_str())
        .filter(|s| !s.is_empty())
        .collect();
    out.push(("keps/index.html".into(), "kep_index.html", "All KEPs".into(), "keps", json!({
        "rows": rows, "sigs": sig_names, "statuses": statuses, "stages": stages, "releases": releases,
    })));

    let groups = c.model.sigs.as_ref();
    let sig_list: Vec<Value> = sigs
        .iter()
        .map(|(s, idx)| json!({ "dir": s, "name": groups.and_then(|g| g.get(s)).map(|g| g.name.clone()).unwrap_or_default(), "count": idx.len(), "in_flight": c.in_flight(newest, Some(s)).len() }))
        .collect();
    out.push((
        "sigs/index.html".into(),
        "sig_index.html",
        "SIGs".into(),
        "sigs",
        json!({ "sigs": sig_list, "newest": newest.map(|v| v.release()) }),
    ));
    out
}

/// One page per SIG, in parallel.
fn sig_pages(c: &Ctx, newest: Option<Version>, sigs: &BTreeMap<&str, Vec<usize>>) -> Vec<Listing> {
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
                        && !is_done(&keps[i].meta.status)
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
                .filter(|&&i| !is_done(&keps[i].meta.status))
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
            (
                format!("sigs/{sig}/index.html"),
                "sig.html",
                sig.to_string(),
                "sigs",
                json!({
                    "sig": sig,
                    "group": groups.and_then(|g| g.get(sig)),
                    "count": idx.len(),
                    "by_status": c.group_refs(idx, |i| keps[i].meta.status.clone()),
                    "by_stage": c.group_refs(idx, |i| keps[i].meta.stage.clone()),
                    "in_flight": c.in_flight(newest, Some(sig)),
                    "newest": newest.map(|v| v.release()),
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
fn release_pages(c: &Ctx, newest: Option<Version>) -> Vec<Listing> {
    let mut out: Vec<Listing> = Vec::new();
    let u = c.urls;
    let keps = &c.model.keps;
    let mut rel_list = Vec::new();
    for rel in tracking::releases(c.model, c.analysis).into_iter().rev() {
        let name = rel.release.clone();
        // Readiness is judged for the newest release and later ones; older
        // releases are history, where the checklist no longer applies.
        let assessed = newest.is_none_or(|n| rel.version >= n);
        let by_stage: Vec<Value> = STAGES
            .iter()
            .map(|s| {
                let rows: Vec<Value> = rel
                    .keps
                    .iter()
                    .filter(|k| k.stage == *s)
                    .map(|k| {
                        json!({
                            "kep": &c.refs[k.index],
                            "assessed": assessed,
                            "label": k.readiness.label(),
                            "ready": k.readiness.ready,
                            "reasons": k.readiness.reasons(),
                        })
                    })
                    .collect();
                let ready = rows.iter().filter(|r| r["ready"] == true).count();
                json!({ "stage": s, "rows": rows, "ready": ready })
            })
            .collect();
        let tracked: Vec<&KepRef> = keps
            .iter()
            .zip(c.refs)
            .filter(|(k, _)| release_of(&k.meta.latest_milestone) == Some(rel.version))
            .map(|(_, r)| r)
            .collect();
        let counts: Vec<Value> = by_stage.iter().map(|v| json!({ "stage": v["stage"], "count": v["rows"].as_array().map_or(0, Vec::len) })).collect();
        let ready = rel.keps.iter().filter(|k| k.readiness.ready).count();
        rel_list.push(json!({ "name": name, "url": u.page(&format!("releases/{name}/")), "counts": counts, "tracked": tracked.len(), "assessed": assessed, "ready": ready, "at_risk": rel.keps.len() - ready }));
        out.push((
            format!("releases/{name}/index.html"),
            "release.html",
            format!("Release {name}"),
            "releases",
            json!({
                "release": name, "by_stage": by_stage, "tracked": tracked,
                "assessed": assessed, "total": rel.keps.len(), "ready": ready, "at_risk": rel.keps.len() - ready,
            }),
        ));
    }
    out.push((
        "releases/index.html".into(),
        "releases.html",
        "Releases".into(),
        "releases",
        json!({ "releases": rel_list, "stages": STAGES }),
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
fn prr_gap(stage: &str, a: &crate::analysis::tracking::KepAnalysis) -> Vec<String> {
    use crate::analysis::completeness::PrrTarget;
    let stage = if stage.is_empty() { "alpha" } else { stage };
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
