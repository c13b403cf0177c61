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

mod prr;
pub(super) mod triage;

use super::charts;
use super::listing::{Ctx, Listing, cycle_json, shipped_series};
use super::view::is_open;
use crate::analysis::findings::prr_required;
use crate::analysis::outcome::{Phase, ReleaseView};
use crate::finding::Finding;
use crate::kep::domain::Stage;
use crate::kep::prr::handle;
use crate::model::KepId;
pub use prr::prr_pages;
use prr::{PrrRow, prr_row, unanswered};

/// How far back the home page's "what changed" list reaches, in days.
pub const RECENT_DAYS: i64 = 7;

/// Whether a handle can name a page (`segment::is_login`): anything else in
/// an authors list ("Jane Doe", `..`, `@TBD`) gets no page, so no value
/// from a KEP can steer a path.
use crate::kep::segment::is_login;

/// One dashboard per SIG, in parallel.
pub fn sig_pages(
    c: &Ctx,
    views: &[ReleaseView],
    sigs: &BTreeMap<&str, Vec<usize>>,
) -> Vec<Listing> {
    let found = crate::view::findings_by_kep(c.model, c.findings);
    sigs.par_iter()
        .map(|(sig, idx)| sig_page(c, views, &found, sig, idx))
        .collect()
}

/// The dashboard of SIG `sig`, whose KEPs are `idx`.
fn sig_page(
    c: &Ctx,
    views: &[ReleaseView],
    found: &[Vec<&Finding>],
    sig: &str,
    idx: &[usize],
) -> Listing {
    let keps = &c.model.keps;
    let base = c.urls.page("keps/");
    let mine: BTreeSet<KepId> = idx.iter().map(|&i| KepId(i)).collect();
    let (current, planned) = sig_releases(c, views, &mine);
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
    let by_rule = findings_by_rule(c, idx.iter().map(|&i| (i, &found[i])));
    let counted = |cat: fn(&crate::kep::Kep) -> &str, key: &str| -> Vec<Value> {
        let mut m: BTreeMap<&str, usize> = BTreeMap::new();
        for &i in idx {
            *m.entry(cat(&keps[i])).or_default() += 1;
        }
        m.into_iter()
            .map(|(l, n)| json!({ "label": l, "count": n, "url": format!("{base}?sig={sig}&{key}={l}") }))
            .collect()
    };
    Listing::new(
        format!("sigs/{sig}/index.html"),
        "sig.html",
        sig.to_string(),
        "sigs",
        json!({
            "sig": sig,
            "group": c.model.sigs.as_ref().and_then(|g| g.get(sig)),
            "count": idx.len(),
            "all_url": format!("{base}?sig={sig}"),
            "by_status": counted(|k| k.meta.status.category(), "status"),
            "by_stage": counted(|k| k.meta.stage.category(), "stage"),
            "newest": c.analysis.current.release.to_string(),
            "cycle": cycle_json(c),
            "summary": triage::summary(&current, &c.analysis.current.release.to_string()),
            "board": views.iter().find(|v| v.phase == Phase::InProgress).map(|v| super::listing::board_json(c, v)),
            "current": current,
            "planned": planned,
            "shipped_chart": chart,
            "shipped_table": shipped_table,
            "stages": series.categories,
            "prr_gaps": sig_prr_gaps(c, found, idx),
            "history": c.history.is_some(),
            "stale": sig_stale(c, idx),
            "stale_days": super::STALE_DAYS,
            "findings": by_rule,
            "findings_url": format!("{}?sig={sig}", c.urls.page("findings/")),
            "outreach": c.messages.and_then(|m| m.outreach.get(sig)),
        }),
    )
}

/// The SIG's KEPs (`mine`) in the release in progress, and per planned
/// release after it (newest first, those with none left out).
fn sig_releases<'a>(
    c: &Ctx<'a>,
    views: &'a [ReleaseView],
    mine: &BTreeSet<KepId>,
) -> (Vec<PrrRow<'a>>, Vec<Value>) {
    let of_sig = |v: &'a ReleaseView| -> Vec<PrrRow<'a>> {
        v.entries
            .iter()
            .filter(|e| mine.contains(&e.id))
            .map(|e| prr_row(c, e, &v.release.to_string()))
            .collect()
    };
    let mut current = views
        .iter()
        .find(|v| v.phase == Phase::InProgress)
        .map(of_sig)
        .unwrap_or_default();
    triage::order(&mut current);
    let planned: Vec<Value> = views
        .iter()
        .rev()
        .filter(|v| v.phase == Phase::Planned)
        .map(|v| (v, of_sig(v)))
        .filter(|(_, rows)| !rows.is_empty())
        .map(|(v, rows)| json!({ "release": v.release.to_string(), "rows": rows }))
        .collect();
    (current, planned)
}

/// The SIG's open KEPs whose PRR for their current stage is incomplete.
fn sig_prr_gaps(c: &Ctx, found: &[Vec<&Finding>], idx: &[usize]) -> Vec<Value> {
    let keps = &c.model.keps;
    idx.iter()
        .filter(|&&i| {
            prr_required(&keps[i])
                && is_open(&keps[i].meta.status)
                && c.analysis.keps[i].prr_complete_current == Some(false)
        })
        .map(|&i| {
            let stage = keps[i].meta.stage.nearest().unwrap_or(Stage::Alpha);
            json!({
                "kep": &c.refs[i],
                "missing": super::listing::prr_gap(&keps[i].meta.stage, &c.analysis.keps[i]),
                "unanswered": unanswered(c, KepId(i), &stage),
                "findings": found[i].iter().filter(|f| f.rule.starts_with("prr-") && f.rule != "prr-unanswered").collect::<Vec<_>>(),
            })
        })
        .collect()
}

/// The SIG's open KEPs untouched for the stale period, longest first (with history).
fn sig_stale(c: &Ctx, idx: &[usize]) -> Vec<Value> {
    let keps = &c.model.keps;
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
    stale.into_iter().map(|(_, v)| v).collect()
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

/// The roles a person has: author, reviewer, approver, PRR approver.
const ROLES: [&str; 4] = ["author", "reviewer", "approver", "prr-approver"];

/// `/people/<handle>/`, each handed to `out` as soon as it is built (all of
/// them together were 72 MB of page contexts on the 10x corpus), and
/// `/people/` (every person with their roles), returned.
pub fn people_pages(c: &Ctx, out: &(dyn Fn(Vec<Listing>) + Sync)) -> Listing {
    let mut people: BTreeMap<String, [BTreeSet<usize>; 4]> = BTreeMap::new();
    for (i, k) in c.model.keps.iter().enumerate() {
        let m = &k.meta;
        for (r, list) in [&m.authors, &m.reviewers, &m.approvers, &m.prr_approvers]
            .into_iter()
            .enumerate()
        {
            let role = ["authors", "reviewers", "approvers", "prr-approvers"][r];
            for a in crate::kep::segment::capped(role, list) {
                people.entry(handle(a)).or_default()[r].insert(i);
            }
        }
    }
    for f in &c.model.prr_files {
        let Some(KepId(i)) = f.number().and_then(|n| c.model.kep_at(n)) else {
            continue;
        };
        for a in f.approvals.values() {
            people.entry(handle(&a.approver)).or_default()[3].insert(i);
        }
    }
    people.retain(|h, _| is_login(h));
    people.par_iter().for_each(|(h, roles)| {
        let sections: Vec<Value> = ROLES
            .iter()
            .zip(roles)
            .filter(|(_, ks)| !ks.is_empty())
            .map(|(r, ks)| json!({ "role": r, "keps": ks.iter().map(|&i| &c.refs[i]).collect::<Vec<_>>() }))
            .collect();
        out(vec![Listing::new(
            format!("people/{h}/index.html"),
            "person.html",
            format!("@{h}"),
            "people",
            json!({
                "handle": h,
                "sections": sections,
                "prr_queue": (!roles[3].is_empty()).then(|| c.urls.page(&format!("prr/{h}/"))),
            }),
        )]);
    });
    let index: Vec<Value> = people
        .iter()
        .map(|(h, roles)| {
            let counts: Vec<usize> = roles.iter().map(BTreeSet::len).collect();
            json!({ "handle": h, "url": c.urls.page(&format!("people/{h}/")), "counts": counts })
        })
        .collect();
    Listing::new(
        "people/index.html".into(),
        "people.html",
        "People".into(),
        "people",
        json!({ "people": index, "roles": ROLES }),
    )
}

/// A path as its folder (shown small, on its own line) and its file name,
/// so the findings table's "Where" column fits beside the message.
fn split_path(path: &str) -> Value {
    match path.rsplit_once('/') {
        Some((dir, file)) => json!({ "dir": format!("{dir}/"), "file": file }),
        None => json!({ "dir": "", "file": path }),
    }
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
                "message": f.message, "path": f.path, "line": f.line, "where": split_path(&f.path),
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
            "message": f.message, "path": f.path, "line": f.line, "where": split_path(&f.path),
        }));
    }
    let set = |key: &str| -> BTreeSet<String> {
        rows.iter()
            .filter_map(|r| r[key].as_str().map(str::to_string))
            .filter(|s| !s.is_empty())
            .collect()
    };
    let (rules, sigs) = (set("rule"), set("sig"));
    Listing::new(
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
    let mut out: Vec<(i64, Value)> = Vec::new();
    for (n, kh) in &h.keps {
        let Some(KepId(i)) = c.model.kep_at(*n) else {
            continue;
        };
        let mut prev: Option<&crate::repo::history::Change> = None;
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

#[cfg(test)]
mod tests {
    use super::is_login;

    #[test]
    fn logins_name_pages_and_placeholders_do_not() {
        assert!(is_login("thockin") && is_login("jane-doe_2"));
        for h in ["", "Jane Doe", "..", "a/b", "TBD", "tbd", "todo", "None"] {
            assert!(!is_login(h), "{h:?}");
        }
    }
}
