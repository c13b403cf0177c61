//! Listing pages: [`Ctx`] (model, findings, KEP references) → contexts for the
//! home page, the KEP index, SIG, release, feature-gate and people pages,
//! including the chart geometry the home page draws.
//!
//! Every page that says which KEPs are "in" a release reads the analysis'
//! [`outcome`] views, so the home page, SIG pages, release pages, the index
//! filter and the report agree.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

mod home;

use super::dashboards;
use super::listing::{Ctx, Entry, Listing, board_json, cycle_json, entry, stage_categories};
use super::view::KepRef;
use crate::analysis::outcome::{Phase, ReleaseView};
use crate::kep::domain::Stage;
use home::home_pages;

/// Every listing page. The home and index pages, the SIG pages, the release
/// pages and the rest are built side by side.
///
/// Each kind of page goes to `out` as soon as it is built (the home pages,
/// the SIG pages, …), so that a build can write it and let it go before the
/// others are done (on the 10x corpus they hold 234 MB of context together).
pub fn listing_pages(c: &Ctx, views: &[ReleaseView], out: &(dyn Fn(Vec<Listing>) + Sync)) {
    let cur = views
        .iter()
        .find(|v| v.phase == Phase::InProgress)
        .expect("the release in progress is always among the releases");
    let sigs = c.sigs();
    rayon::join(
        || {
            rayon::join(
                || out(home_pages(c, views, cur, &sigs)),
                || out(dashboards::sig_pages(c, views, &sigs)),
            )
        },
        || {
            rayon::join(
                || {
                    rayon::join(
                        || out(release_pages(c, views)),
                        || out(dashboards::prr_pages(c, views)),
                    )
                },
                || out(other_pages(c, out)),
            )
        },
    );
}

/// One page per release, and the release index.
fn release_pages(c: &Ctx, views: &[ReleaseView]) -> Vec<Listing> {
    let mut out: Vec<Listing> = Vec::new();
    let u = c.urls;
    let mut rel_list = Vec::new();
    for view in views {
        let name = view.release.to_string();
        let phase = view.phase;
        let groups = stage_groups(c, view);
        let by_stage: Vec<Value> = groups
            .iter()
            .map(|(stage, rows)| {
                let ready = rows.iter().filter(|r| r.good).count();
                json!({ "stage": stage, "rows": rows, "ready": ready })
            })
            .collect();
        let counts: Vec<Value> = groups
            .iter()
            .map(|(stage, rows)| json!({ "stage": stage, "count": rows.len() }))
            .collect();
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
        out.push(Listing::new(
            format!("releases/{name}/index.html"),
            "release.html",
            format!("Release {name}"),
            "releases",
            json!({
                "summary": (phase == Phase::InProgress).then(|| {
                    dashboards::triage::summary(groups.iter().flat_map(|(_, rows)| rows), &name)
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
    out.push(Listing::new(
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
    Listing::new(
        "feature-gates/index.html".into(),
        "feature_gates.html",
        "Feature gates".into(),
        "gates",
        json!({ "gates": gates, "code": c.code.map(|x| &x.source) }),
    )
}

/// A release view's entries by stage (no stage change last), each group
/// in dashboard order.
fn stage_groups<'a>(c: &Ctx<'a>, view: &'a ReleaseView) -> Vec<(&'a str, Vec<Entry<'a>>)> {
    Stage::ALL
        .iter()
        .chain([&Stage::Unset])
        .map(|s| {
            let mut rows: Vec<Entry> = view
                .entries
                .iter()
                .filter(|e| e.stage == *s)
                .map(|e| entry(c, e))
                .collect();
            dashboards::triage::order(&mut rows);
            (
                if s.is_unset() {
                    "no stage change"
                } else {
                    s.as_str()
                },
                rows,
            )
        })
        .collect()
}
