//! The Atom feed: [`Ctx`] → `feed.xml`'s context, from the first-parent
//! history (the latest status, stage and milestone changes) or, without
//! history, the KEPs most recently marked `last-updated`.

use std::collections::BTreeSet;

use serde_json::{Value, json};

use super::listing::{Ctx, Listing};
use crate::repo::history::{Change, History};

/// Entries in the Atom feed.
const FEED_ENTRIES: usize = 50;

/// `YYYY-MM-DDThh:mm:ssZ` for a unix time (the epoch when out of range).
pub fn rfc3339(t: i64) -> String {
    jiff::Timestamp::from_second(t)
        .unwrap_or(jiff::Timestamp::UNIX_EPOCH)
        .strftime("%Y-%m-%dT%H:%M:%SZ")
        .to_string()
}

/// A feed entry: (time, tie-breaking key, the entry's context).
type FeedEntry = (i64, String, Value);

/// The Atom feed: the latest stage, status and milestone changes from git,
/// or, without history, the KEPs most recently marked `last-updated`.
pub fn feed(c: &Ctx) -> Listing {
    let mut entries = match c.history {
        Some(h) => history_entries(c, h),
        None => last_updated_entries(c),
    };
    entries.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    entries.truncate(FEED_ENTRIES);
    let updated = entries
        .first()
        .map(|e| e.2["updated"].as_str().unwrap_or_default().to_string())
        .unwrap_or_else(|| rfc3339(c.now));
    Listing::new(
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

/// An entry per recorded change of each KEP (the first KEP with a number only).
fn history_entries(c: &Ctx, h: &History) -> Vec<FeedEntry> {
    let mut entries = Vec::new();
    let mut seen = BTreeSet::new();
    for (i, k) in c.model.keps.iter().enumerate() {
        let Some(n) = k.number() else { continue };
        if !seen.insert(n) {
            continue;
        }
        let Some(kh) = h.keps.get(&n) else { continue };
        let mut prev: Option<&Change> = None;
        for ch in &kh.changes {
            let parts = change_parts(prev, ch);
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
    entries
}

/// What `ch` changed after `prev` (or set, for a KEP's first change):
/// "status a → b", "stage b", "latest milestone …".
fn change_parts(prev: Option<&Change>, ch: &Change) -> Vec<String> {
    let describe = |name: &str, old: Option<&str>, new: Option<&str>| -> Option<String> {
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
    [
        describe("status", po_status, ch.status.as_deref()),
        describe("stage", po_stage, ch.stage.as_deref()),
        describe("latest milestone", po_ms, ch.latest_milestone.as_deref()),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// An entry per KEP with a valid `last-updated` date (without history).
fn last_updated_entries(c: &Ctx) -> Vec<FeedEntry> {
    let mut entries = Vec::new();
    for (i, k) in c.model.keps.iter().enumerate() {
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
    entries
}

/// Unix time of a `YYYY-MM-DD` date (midnight UTC).
fn date_to_unix(d: &str) -> Option<i64> {
    let day: jiff::civil::Date = d.parse().ok()?;
    let t = day.to_zoned(jiff::tz::TimeZone::UTC).ok()?.timestamp();
    Some(t.as_second())
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
