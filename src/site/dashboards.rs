//! The dashboards above the KEP pages: [`Ctx`] and the release views → the
//! SIG dashboards, the PRR reviewer queues, the people pages, the findings
//! page and the home page's "what changed" list.
//!
//! Each answers one reader's question in one screen: a SIG lead's "where
//! does my SIG stand in the cycle", a PRR reviewer's "what is waiting for
//! me", anyone's "who works on what" and "what is wrong where".

use std::collections::{BTreeMap, BTreeSet};

use rayon::prelude::*;
use serde_json::{Value, json};

use super::charts;
use super::pages::{Ctx, Listing, cycle_json, entry_json, shipped_series};
use super::view::is_open;
use crate::analysis::completeness::Completeness;
use crate::analysis::findings::prr_required;
use crate::analysis::outcome::{Entry, Phase, ReleaseView};
use crate::finding::Finding;
use crate::kep::domain::Stage;
use crate::kep::prr::handle;

/// How far back the home page's "what changed" list reaches, in days.
pub const RECENT_DAYS: i64 = 7;

/// Whether a handle can name a page: a GitHub login (letters, digits, `-`,
/// `_`). Anything else in an authors list ("Jane Doe", `..`) gets no page,
/// so no value from a KEP can steer a path.
fn is_login(h: &str) -> bool {
    !h.is_empty()
        && h.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// KEP number → index into `model.keps` (the first KEP with the number).
fn by_number(c: &Ctx) -> BTreeMap<u32, usize> {
    let mut m = BTreeMap::new();
    for (i, k) in c.model.keps.iter().enumerate() {
        if let Some(n) = k.number() {
            m.entry(n).or_insert(i);
        }
    }
    m
}

/// The PRR questionnaire a stage answers.
fn questionnaire<'a>(c: &'a Ctx, i: usize, stage: &Stage) -> &'a Completeness {
    c.analysis.keps[i].assessment.prr.at(stage)
}

/// The unanswered PRR questions of KEP `i` at `stage`, each linked to its
/// heading on the KEP page, with a source link to the README line.
fn unanswered(c: &Ctx, i: usize, stage: &Stage) -> Vec<Value> {
    let kep = &c.model.keps[i];
    let page = &c.refs[i].url;
    let readme = kep.readme_path.as_deref().unwrap_or(&kep.metadata_path);
    questionnaire(c, i, stage)
        .unanswered
        .iter()
        .map(|u| {
            json!({
                "title": u.title,
                "url": format!("{page}#{}", crate::kep::document::slug(&u.title)),
                "source": u.line.map(|l| format!("{}?plain=1#L{l}", c.urls.blob(readme))),
            })
        })
        .collect()
}

/// The stage whose PRR a KEP needs in a release entry.
fn prr_stage(c: &Ctx, e: &Entry) -> Stage {
    match &e.readiness {
        Some(r) => r.stage.clone(),
        None if !e.stage.is_unset() => e.stage.clone(),
        None => c.model.keps[e.index]
            .meta
            .stage
            .nearest()
            .unwrap_or(Stage::Alpha),
    }
}

/// One KEP of a release with its PRR state for the stage it needs there.
fn prr_row(c: &Ctx, e: &Entry, release: &str) -> Value {
    let kep = &c.model.keps[e.index];
    let stage = prr_stage(c, e);
    let file = c.model.prr_for(kep);
    let approvals: Vec<Value> = [Stage::Alpha, Stage::Beta, Stage::Stable]
        .iter()
        .map(|s| {
            let a = file.and_then(|f| f.approval(s));
            json!({ "stage": s.as_str(), "approver": a.map(|a| handle(&a.approver)) })
        })
        .collect();
    let q = questionnaire(c, e.index, &stage);
    let mut row = entry_json(c, e);
    if let Some(m) = row.as_object_mut() {
        m.insert("release".into(), json!(release));
        m.insert("prr_stage".into(), json!(stage.as_str()));
        m.insert(
            "prr_approver".into(),
            json!(
                file.and_then(|f| f.approval(&stage))
                    .map(|a| handle(&a.approver))
            ),
        );
        m.insert("approvals".into(), json!(approvals));
        m.insert(
            "questionnaire".into(),
            json!({ "answered": q.answered, "required": q.required, "percent": q.percent }),
        );
        m.insert("unanswered".into(), json!(unanswered(c, e.index, &stage)));
    }
    row
}

/// One dashboard per SIG, in parallel.
pub fn sig_pages(
    c: &Ctx,
    views: &[ReleaseView],
    sigs: &BTreeMap<&str, Vec<usize>>,
) -> Vec<Listing> {
    let keps = &c.model.keps;
    let groups = c.model.sigs.as_ref();
    let found = crate::view::findings_by_kep(c.model, c.findings);
    let base = c.urls.page("keps/");
    sigs.par_iter()
        .map(|(sig, idx)| {
            let mine: BTreeSet<usize> = idx.iter().copied().collect();
            let of_sig = |v: &ReleaseView| -> Vec<Value> {
                v.entries
                    .iter()
                    .filter(|e| mine.contains(&e.index))
                    .map(|e| prr_row(c, e, &v.release.to_string()))
                    .collect()
            };
            let current = views
                .iter()
                .find(|v| v.phase == Phase::InProgress)
                .map(of_sig)
                .unwrap_or_default();
            let planned: Vec<Value> = views
                .iter()
                .rev()
                .filter(|v| v.phase == Phase::Planned)
                .map(|v| json!({ "release": v.release.to_string(), "rows": of_sig(v) }))
                .filter(|v| v["rows"].as_array().is_some_and(|r| !r.is_empty()))
                .collect();
            let series = shipped_series(views, |i| mine.contains(&i));
            let shipped_table: Vec<Value> = series
                .rows
                .iter()
                .filter(|(_, n)| n.iter().any(|x| *x > 0))
                .map(|(r, n)| json!({ "release": r, "counts": n, "total": n.iter().sum::<usize>() }))
                .collect();
            let chart = charts::vertical(
                "What the SIG shipped per release",
                "Stacked columns: one per release that is out, counting the SIG's KEPs that reached each stage in it.",
                &series,
            );
            let prr_gaps: Vec<Value> = idx
                .iter()
                .filter(|&&i| {
                    prr_required(&keps[i])
                        && is_open(&keps[i].meta.status)
                        && c.analysis.keps[i].prr_complete_current == Some(false)
                })
                .map(|&i| {
                    let stage = keps[i].meta.stage.nearest().unwrap_or(Stage::Alpha);
                    json!({
                        "kep": &c.refs[i],
                        "missing": super::pages::prr_gap(&keps[i].meta.stage, &c.analysis.keps[i]),
                        "unanswered": unanswered(c, i, &stage),
                        "findings": found[i].iter().filter(|f| f.rule.starts_with("prr-") && f.rule != "prr-unanswered").collect::<Vec<_>>(),
                    })
                })
                .collect();
            let mut stale: Vec<(i64, Value)> = idx
                .iter()
                .filter(|&&i| is_open(&keps[i].meta.status))
                .filter_map(|&i| {
                    let h = c.history?.keps.get(&keps[i].number()?)?;
                    h.is_stale(c.now, super::STALE_DAYS).then(|| {
                        let days = h.days_since_last_change(c.now);
                        (days, json!({ "kep": &c.refs[i], "days": days, "last": h.last.date }))
                    })
                })
                .collect();
            stale.sort_by_key(|(d, _)| std::cmp::Reverse(*d));
            let by_rule = findings_by_rule(c, idx.iter().map(|&i| (i, &found[i])));
            let link = |key: &str, v: &str| format!("{base}?sig={sig}&{key}={v}");
            let counted = |cat: fn(&crate::kep::Kep) -> &str, key: &str| -> Vec<Value> {
                let mut m: BTreeMap<&str, usize> = BTreeMap::new();
                for &i in idx {
                    *m.entry(cat(&keps[i])).or_default() += 1;
                }
                m.into_iter()
                    .map(|(l, n)| json!({ "label": l, "count": n, "url": link(key, l) }))
                    .collect()
            };
            (
                format!("sigs/{sig}/index.html"),
                "sig.html",
                sig.to_string(),
                "sigs",
                json!({
                    "sig": sig,
                    "group": groups.and_then(|g| g.get(sig)),
                    "count": idx.len(),
                    "all_url": format!("{base}?sig={sig}"),
                    "by_status": counted(|k| k.meta.status.category(), "status"),
                    "by_stage": counted(|k| k.meta.stage.category(), "stage"),
                    "newest": c.analysis.current.release.to_string(),
                    "cycle": cycle_json(c),
                    "current": current,
                    "planned": planned,
                    "shipped_chart": chart,
                    "shipped_table": shipped_table,
                    "stages": series.categories,
                    "prr_gaps": prr_gaps,
                    "history": c.history.is_some(),
                    "stale": stale.into_iter().map(|(_, v)| v).collect::<Vec<_>>(),
                    "stale_days": super::STALE_DAYS,
                    "findings": by_rule,
                    "findings_url": format!("{}?sig={sig}", c.urls.page("findings/")),
                }),
            )
        })
        .collect()
}

/// Findings grouped by rule: `[{rule, severity, count, items}]`, each item
/// linked to its KEP page's findings panel.
fn findings_by_rule<'a>(
    c: &Ctx,
    per_kep: impl Iterator<Item = (usize, &'a Vec<&'a Finding>)>,
) -> Vec<Value> {
    let mut m: BTreeMap<&str, Vec<Value>> = BTreeMap::new();
    let mut sev: BTreeMap<&str, &str> = BTreeMap::new();
    for (i, fs) in per_kep {
        for f in fs {
            sev.entry(f.rule).or_insert(f.severity.as_str());
            m.entry(f.rule).or_default().push(json!({
                "kep": &c.refs[i],
                "message": f.message,
                "line": f.line,
                "url": format!("{}#p-find", c.refs[i].url),
            }));
        }
    }
    m.into_iter()
        .map(|(rule, items)| {
            json!({ "rule": rule, "severity": sev[rule], "count": items.len(), "items": items })
        })
        .collect()
}

/// The PRR reviewer queues: `/prr/` (every approver with their counts) and
/// `/prr/<handle>/` (the KEPs assigned to them in the release in progress
/// and after, from `keps/prod-readiness/` and kep.yaml `prr-approvers`).
pub fn prr_pages(c: &Ctx, views: &[ReleaseView]) -> Vec<Listing> {
    let mut queues: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for v in views.iter().rev().filter(|v| v.phase != Phase::Out) {
        let release = v.release.to_string();
        for e in &v.entries {
            let kep = &c.model.keps[e.index];
            let mut who: BTreeSet<String> =
                kep.meta.prr_approvers.iter().map(|a| handle(a)).collect();
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
        .flat_map(|k| k.meta.prr_approvers.iter().map(|a| handle(a)))
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
    let known = |h: &str| {
        c.model
            .aliases
            .is_prr_approver_or_emeritus(&format!("@{h}"))
    };
    let mut out: Vec<Listing> = queues
        .par_iter()
        .map(|(h, rows)| {
            let open = rows
                .iter()
                .filter(|r| r["questionnaire"]["percent"] != 100 || r["prr_approver"].is_null())
                .count();
            (
                format!("prr/{h}/index.html"),
                "prr_queue.html",
                format!("PRR queue: @{h}"),
                "prr",
                json!({ "handle": h, "rows": rows, "open": open, "listed": known(h), "cycle": cycle_json(c) }),
            )
        })
        .collect();
    let index: Vec<Value> = queues
        .iter()
        .map(|(h, rows)| {
            let current = rows
                .iter()
                .filter(|r| r["release"] == c.analysis.current.release.to_string())
                .count();
            json!({
                "handle": h,
                "url": c.urls.page(&format!("prr/{h}/")),
                "total": rows.len(),
                "current": current,
                "waiting": rows.iter().filter(|r| r["prr_approver"].is_null()).count(),
                "listed": known(h),
            })
        })
        .collect();
    out.push((
        "prr/index.html".into(),
        "prr_index.html",
        "PRR reviewers".into(),
        "prr",
        json!({ "approvers": index, "cycle": cycle_json(c) }),
    ));
    out
}

/// The roles a person has: author, reviewer, approver, PRR approver.
const ROLES: [&str; 4] = ["author", "reviewer", "approver", "prr-approver"];

/// `/people/` (every person with their roles) and `/people/<handle>/`.
pub fn people_pages(c: &Ctx) -> Vec<Listing> {
    let mut people: BTreeMap<String, [BTreeSet<usize>; 4]> = BTreeMap::new();
    let numbers = by_number(c);
    for (i, k) in c.model.keps.iter().enumerate() {
        let m = &k.meta;
        for (r, list) in [&m.authors, &m.reviewers, &m.approvers, &m.prr_approvers]
            .into_iter()
            .enumerate()
        {
            for a in list {
                people.entry(handle(a)).or_default()[r].insert(i);
            }
        }
    }
    for f in &c.model.prr_files {
        let Some(&i) = f.number().and_then(|n| numbers.get(&n)) else {
            continue;
        };
        for a in f.approvals.values() {
            people.entry(handle(&a.approver)).or_default()[3].insert(i);
        }
    }
    people.retain(|h, _| is_login(h));
    let mut out: Vec<Listing> = people
        .par_iter()
        .map(|(h, roles)| {
            let sections: Vec<Value> = ROLES
                .iter()
                .zip(roles)
                .filter(|(_, ks)| !ks.is_empty())
                .map(|(r, ks)| json!({ "role": r, "keps": ks.iter().map(|&i| &c.refs[i]).collect::<Vec<_>>() }))
                .collect();
            (
                format!("people/{h}/index.html"),
                "person.html",
                format!("@{h}"),
                "people",
                json!({
                    "handle": h,
                    "sections": sections,
                    "prr_queue": (!roles[3].is_empty()).then(|| c.urls.page(&format!("prr/{h}/"))),
                }),
            )
        })
        .collect();
    let index: Vec<Value> = people
        .iter()
        .map(|(h, roles)| {
            let counts: Vec<usize> = roles.iter().map(BTreeSet::len).collect();
            json!({ "handle": h, "url": c.urls.page(&format!("people/{h}/")), "counts": counts })
        })
        .collect();
    out.push((
        "people/index.html".into(),
        "people.html",
        "People".into(),
        "people",
        json!({ "people": index, "roles": ROLES }),
    ));
    out
}

/// Every finding, filterable by rule, SIG and severity (the filters live in
/// the URL), at `/findings/`.
pub fn findings_page(c: &Ctx) -> Listing {
    let found = crate::view::findings_by_kep(c.model, c.findings);
    let mut rows: Vec<Value> = Vec::new();
    let mut bound: BTreeSet<*const Finding> = BTreeSet::new();
    for (i, fs) in found.iter().enumerate() {
        for f in fs {
            bound.insert(*f as *const Finding);
            rows.push(json!({
                "rule": f.rule, "severity": f.severity.as_str(), "sig": c.refs[i].sig,
                "kep": &c.refs[i], "url": format!("{}#p-find", c.refs[i].url),
                "message": f.message, "path": f.path, "line": f.line,
            }));
        }
    }
    for f in c
        .findings
        .iter()
        .filter(|f| !bound.contains(&(*f as *const Finding)))
    {
        let sig = f.path.split('/').nth(1).unwrap_or_default();
        rows.push(json!({
            "rule": f.rule, "severity": f.severity.as_str(), "sig": sig,
            "kep": Value::Null, "url": c.urls.blob(&f.path),
            "message": f.message, "path": f.path, "line": f.line,
        }));
    }
    let set = |key: &str| -> BTreeSet<String> {
        rows.iter()
            .filter_map(|r| r[key].as_str().map(str::to_string))
            .filter(|s| !s.is_empty())
            .collect()
    };
    let (rules, sigs) = (set("rule"), set("sig"));
    (
        "findings/index.html".into(),
        "findings.html",
        "Findings".into(),
        "findings",
        json!({ "rows": rows, "rules": rules, "sigs": sigs, "total": rows.len() }),
    )
}

/// What changed on the default branch in the `RECENT_DAYS` before the
/// snapshot's newest commit: `[{date, kep, what, url}]`, newest first.
pub fn recent_changes(c: &Ctx) -> Vec<Value> {
    let Some(h) = c.history else {
        return Vec::new();
    };
    let since = c.now - RECENT_DAYS * 86_400;
    let numbers = by_number(c);
    let mut out: Vec<(i64, Value)> = Vec::new();
    for (n, kh) in &h.keps {
        let Some(&i) = numbers.get(n) else { continue };
        let mut prev: Option<&crate::analysis::history::Change> = None;
        for ch in &kh.changes {
            if ch.time >= since {
                let (ps, pg, pm) = prev.map(|p| p.values()).unwrap_or_default();
                let mut what = Vec::new();
                for (name, old, new) in [
                    ("status", ps, ch.status.as_deref()),
                    ("stage", pg, ch.stage.as_deref()),
                    ("latest-milestone", pm, ch.latest_milestone.as_deref()),
                ] {
                    if old != new {
                        what.push(format!(
                            "{name} {} → {}",
                            old.unwrap_or("(none)"),
                            new.unwrap_or("(none)")
                        ));
                    }
                }
                if prev.is_none() {
                    what = vec!["proposed".to_string()];
                }
                out.push((
                    ch.time,
                    json!({
                        "date": ch.date, "kep": &c.refs[i], "what": what.join("; "),
                        "url": format!("{}/commit/{}", c.urls.repo_url, ch.commit),
                    }),
                ));
            }
            prev = Some(ch);
        }
    }
    out.sort_by_key(|e| std::cmp::Reverse(e.0));
    out.into_iter().map(|(_, v)| v).collect()
}
