//! The home page, the KEP index and the SIG index.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

use crate::analysis::outcome::{self, ReleaseView};
use crate::site::dashboards;
use crate::site::listing::{Ctx, Entry, Listing, board_json, cycle_json, entry};
use crate::site::view::KepRef;

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

/// The home page, the KEP index and the SIG index.
pub(super) fn home_pages(
    c: &Ctx,
    views: &[ReleaseView],
    cur: &ReleaseView,
    sigs: &BTreeMap<&str, Vec<usize>>,
) -> Vec<Listing> {
    let releases: Vec<String> = views.iter().map(|v| v.release.to_string()).collect();
    let sig_names: Vec<&str> = sigs.keys().copied().collect();
    vec![
        home_page(c, views, cur, &sig_names, &releases),
        kep_index(c, views, &sig_names, &releases),
        sig_index(c, cur, sigs),
    ]
}

/// The home page: counts, the release in progress, charts and what changed.
fn home_page(
    c: &Ctx,
    views: &[ReleaseView],
    cur: &ReleaseView,
    sig_names: &[&str],
    releases: &[String],
) -> Listing {
    let keps = &c.model.keps;
    let mut flight: Vec<Entry> = c
        .in_flight(cur, None)
        .into_iter()
        .map(|e| entry(c, e))
        .collect();
    crate::site::dashboards::triage::order(&mut flight);
    let summary = crate::site::dashboards::triage::summary(&flight, &cur.release.to_string());
    let index = c.urls.page("keps/");
    let linked = |key: &str, it: Vec<Value>| -> Vec<Value> {
        it.into_iter()
            .map(|mut v| {
                let url = format!("{index}?{key}={}", v["label"].as_str().unwrap_or_default());
                v["url"] = json!(url);
                v
            })
            .collect()
    };
    Listing::new(
        "index.html".into(),
        "home.html",
        "Kubernetes Enhancement Proposals".into(),
        "home",
        json!({
            "total": keps.len(),
            "by_status": linked("status", counts(keps.iter().map(|k| k.meta.status.category()))),
            "by_stage": linked("stage", counts(keps.iter().map(|k| k.meta.stage.category()))),
            "invalid": invalid_values(c),
            "recent": dashboards::recent_changes(c),
            "recent_days": dashboards::RECENT_DAYS,
            "history": c.history.is_some(),
            "newest": c.current().to_string(),
            "cycle": cycle_json(c),
            "summary": summary,
            "in_flight": flight,
            "board": board_json(c, cur),
            // the rows the home page shows of them (the release page has all)
            "home_rows": 12,
            "sigs": sig_names,
            "releases": releases,
            "charts": c.charts(views),
            "findings": c.findings.len(),
        }),
    )
}

/// Values outside the enums, grouped: which invalid value, on which KEPs.
fn invalid_values(c: &Ctx) -> Vec<Value> {
    let mut invalid: BTreeMap<(&str, &str), Vec<&KepRef>> = BTreeMap::new();
    for (k, r) in c.model.keps.iter().zip(c.refs) {
        if k.meta.status.is_invalid() {
            invalid
                .entry(("status", k.meta.status.as_str()))
                .or_default()
                .push(r);
        }
        if k.meta.stage.is_invalid() {
            invalid
                .entry(("stage", k.meta.stage.as_str()))
                .or_default()
                .push(r);
        }
    }
    invalid
        .into_iter()
        .map(|((field, value), ks)| json!({ "field": field, "value": value, "keps": ks }))
        .collect()
}

/// The KEP index. Its Release filter uses the same membership as the
/// release pages: every release a KEP is in (without history).
fn kep_index(c: &Ctx, views: &[ReleaseView], sig_names: &[&str], releases: &[String]) -> Listing {
    let keps = &c.model.keps;
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
    Listing::new(
        "keps/index.html".into(),
        "kep_index.html",
        "All KEPs".into(),
        "keps",
        json!({
            "rows": rows, "sigs": sig_names, "statuses": statuses, "stages": stages, "releases": releases,
        }),
    )
}

/// The SIG index: each SIG with its name, KEPs and KEPs in flight.
fn sig_index(c: &Ctx, cur: &ReleaseView, sigs: &BTreeMap<&str, Vec<usize>>) -> Listing {
    let groups = c.model.sigs.as_ref();
    let sig_list: Vec<Value> = sigs
        .iter()
        .map(|(s, idx)| json!({ "dir": s, "name": groups.and_then(|g| g.get(s)).map(|g| g.name.clone()).unwrap_or_default(), "count": idx.len(), "in_flight": c.in_flight(cur, Some(s)).len() }))
        .collect();
    Listing::new(
        "sigs/index.html".into(),
        "sig_index.html",
        "SIGs".into(),
        "sigs",
        json!({ "sigs": sig_list, "newest": c.current().to_string() }),
    )
}
