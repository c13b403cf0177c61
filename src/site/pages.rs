//! Listing pages: [`Ctx`] (model, findings, KEP references) → contexts for the
//! home page, the KEP index, SIG, release, feature-gate and people pages,
//! including the chart geometry the home page draws.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

use super::charts::{self, Series};
use super::view::{KepRef, Urls};
use crate::analysis::findings::prr_required;
use crate::finding::Finding;
use crate::kep::metadata::Version;
use crate::kep::prr::handle;
use crate::model::Model;

/// Stages in display order.
pub use crate::kep::metadata::STAGES;
const DONE: &[&str] = &[
    "implemented",
    "withdrawn",
    "rejected",
    "replaced",
    "deferred",
];

/// What the listing pages are built from.
pub struct Ctx<'a> {
    /// The model.
    pub model: &'a Model,
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
            .filter(|(k, _)| !DONE.contains(&k.meta.status.as_str()))
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

/// Every listing page.
pub fn listing_pages(c: &Ctx) -> Vec<Listing> {
    let mut out: Vec<Listing> = Vec::new();
    let u = c.urls;
    let newest = c.newest();
    let releases: Vec<String> = c
        .releases()
        .into_iter()
        .rev()
        .map(|v| v.release())
        .collect();
    let sigs = c.sigs();
    let sig_names: Vec<&str> = sigs.keys().copied().collect();
    let keps = &c.model.keps;

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
            "in_flight": c.in_flight(newest, None),
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
    for (sig, idx) in &sigs {
        let numbers: BTreeSet<Option<u32>> = idx.iter().map(|&i| keps[i].number()).collect();
        let gaps: Vec<&Finding> = c
            .findings
            .iter()
            .filter(|f| {
                f.rule.starts_with("prr-")
                    && (f.path.starts_with(&format!("keps/{sig}/"))
                        || f.path.starts_with(&format!("keps/prod-readiness/{sig}/"))
                        || (f.kep.is_some() && numbers.contains(&f.kep)))
            })
            .collect();
        out.push((
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
            }),
        ));
    }

    let mut rel_list = Vec::new();
    for r in c.releases().into_iter().rev() {
        let name = r.release();
        let by_stage: Vec<Value> = STAGES
            .iter()
            .map(|s| {
                let ks: Vec<&KepRef> = keps
                    .iter()
                    .zip(c.refs)
                    .filter(|(k, _)| release_of(k.meta.milestone.get(s)) == Some(r))
                    .map(|(_, r)| r)
                    .collect();
                json!({ "stage": s, "keps": ks })
            })
            .collect();
        let tracked: Vec<&KepRef> = keps
            .iter()
            .zip(c.refs)
            .filter(|(k, _)| release_of(&k.meta.latest_milestone) == Some(r))
            .map(|(_, r)| r)
            .collect();
        let counts: Vec<Value> = by_stage.iter().map(|v| json!({ "stage": v["stage"], "count": v["keps"].as_array().map_or(0, Vec::len) })).collect();
        rel_list.push(json!({ "name": name, "url": u.page(&format!("releases/{name}/")), "counts": counts, "tracked": tracked.len() }));
        out.push((
            format!("releases/{name}/index.html"),
            "release.html",
            format!("Release {name}"),
            "releases",
            json!({
                "release": name, "by_stage": by_stage, "tracked": tracked,
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

    let mut gates: BTreeMap<String, (BTreeSet<String>, Vec<&KepRef>)> = BTreeMap::new();
    for (k, r) in keps.iter().zip(c.refs) {
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
    out.push((
        "feature-gates/index.html".into(),
        "feature_gates.html",
        "Feature gates".into(),
        "gates",
        json!({ "gates": gates }),
    ));

    let mut people: BTreeMap<String, (BTreeSet<usize>, BTreeSet<usize>)> = BTreeMap::new();
    for (i, k) in keps.iter().enumerate() {
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
    out.push((
        "people/index.html".into(),
        "people.html",
        "People".into(),
        "people",
        json!({ "people": people }),
    ));
    out
}
