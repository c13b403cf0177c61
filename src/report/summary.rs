//! The report's counts and its red/yellow/green line: [`Row`]s → [`Summary`].

use std::collections::BTreeMap;

use super::{Count, Date, GROUPS, Health, Options, Row, Summary, stage_group};
use crate::analysis::outcome::Phase;
use crate::kep::domain::Stage;

/// The outcome counts of `rows` under `label`.
fn count(label: &str, rows: &[&Row]) -> Count {
    let n = |ids: &[&str]| rows.iter().filter(|r| ids.contains(&r.outcome)).count();
    Count {
        label: label.to_string(),
        total: rows.len(),
        // Past the Enhancements Freeze these are Tracked and Missed the
        // freeze: the same test (the checklist met or not), other words;
        // with the issues, the board's Removed counts with Missed.
        ready: n(&["ready", "tracked"]),
        tracked_late: n(&["tracked-late"]),
        at_risk: n(&["at-risk", "missed-freeze", "removed"]),
        shipped: n(&["shipped", "deprecated"]),
        slipped: n(&["slipped"]),
        latest_only: n(&["latest-only"]),
        planned: n(&["planned"]),
    }
}

/// The counts and health of the release's rows.
pub(super) fn summarize(rows: &[Row], phase: Phase, opts: &Options) -> Summary {
    let all: Vec<&Row> = rows.iter().collect();
    let total = count("total", &all);
    let group_of = |r: &Row| stage_group(&Stage::parse(&r.stage));
    let by_stage = GROUPS
        .iter()
        .filter(|(id, _)| *id != "none" || rows.iter().any(|r| group_of(r) == "none"))
        .map(|(id, _)| {
            let rs: Vec<&Row> = rows.iter().filter(|r| group_of(r) == *id).collect();
            count(id, &rs)
        })
        .collect();
    let mut sigs: BTreeMap<&str, Vec<&Row>> = BTreeMap::new();
    for r in rows {
        sigs.entry(r.sig.as_str()).or_default().push(r);
    }
    let by_sig = sigs.into_iter().map(|(s, rs)| count(s, &rs)).collect();
    let n = |id: &str| rows.iter().filter(|r| r.outcome == id).count();
    let health = match phase {
        Phase::InProgress => health(total.total, total.at_risk, total.tracked_late, opts),
        Phase::Out => Health {
            status: "out",
            line: format!(
                "released{}: {} of {} shipped, {} slipped, {} with no stage change",
                crate::analysis::calendar::cycle(opts.release)
                    .and_then(|c| c.release_date)
                    .map(|d| format!(" on {d}"))
                    .unwrap_or_default(),
                total.shipped,
                crate::view::keps(total.total),
                total.slipped,
                total.latest_only
            ),
            freeze: None,
            days_to_freeze: None,
        },
        Phase::Planned => Health {
            status: "planned",
            line: format!(
                "after the release in progress ({}): {} plan{} work here",
                opts.current.release,
                crate::view::keps(total.total),
                if total.total == 1 { "s" } else { "" }
            ),
            freeze: None,
            days_to_freeze: None,
        },
    };
    Summary {
        total: total.total,
        ready: total.ready,
        tracked_late: total.tracked_late,
        at_risk: total.at_risk,
        shipped: n("shipped"),
        deprecated: n("deprecated"),
        slipped: total.slipped,
        latest_only: total.latest_only,
        planned: total.planned,
        by_stage,
        by_sig,
        health,
    }
}

/// The freeze the checklist is judged against: `--freeze`, else the
/// calendar's Enhancements Freeze of the release (the checklist is that
/// freeze's), else its next deadline after the snapshot's day.
fn next_freeze(opts: &Options) -> Option<(Date, &'static str)> {
    if let Some(f) = opts.freeze {
        return Some((f, "the freeze"));
    }
    let cycle = crate::analysis::calendar::cycle(opts.release)?;
    if let Some(ef) = cycle.enhancements_freeze {
        return Some((ef, "Enhancements Freeze"));
    }
    let today = opts.today.or(opts.current.today)?;
    let (what, d) = cycle.next_deadline(today)?;
    Some((d, what))
}

/// The release's red/yellow/green line.
///
/// Before the freeze: green with at most 10 % of KEPs At risk, red above
/// 50 % (or above 25 % in the last week), yellow in between. Once the freeze
/// has passed, anything still At risk is red.
pub fn health(total: usize, at_risk: usize, late: usize, opts: &Options) -> Health {
    let freeze = next_freeze(opts);
    let today = opts.today.or(opts.current.today);
    let days = match (freeze, today) {
        (Some((f, _)), Some(t)) => Some((f - t).get_days() as i64),
        _ => None,
    };
    let share = if total == 0 {
        0.0
    } else {
        at_risk as f64 / total as f64
    };
    let status = match days {
        Some(d) if d < 0 => {
            if at_risk == 0 {
                "green"
            } else {
                "red"
            }
        }
        _ if share <= 0.10 => "green",
        Some(d) if d <= 7 && share > 0.25 => "red",
        _ if share > 0.50 => "red",
        _ => "yellow",
    };
    let frozen = opts.release == opts.current.release
        && crate::analysis::outcome::past_enhancements_freeze(&opts.current);
    let (met, missed) = match frozen {
        true => ("Tracked", "Missed the freeze"),
        false => ("Ready", "At risk"),
    };
    let late_part = if late > 0 {
        format!(", {late} Tracked late (after the deadline, by exception)")
    } else {
        String::new()
    };
    let mut line = format!(
        "{} of {} {met}{late_part}, {at_risk} {missed} ({:.0}%)",
        total.saturating_sub(at_risk + late),
        crate::view::keps(total),
        share * 100.0
    );
    match (freeze, days) {
        (Some((f, what)), Some(d)) if d < 0 => {
            line.push_str(&format!("; {what} ({f}) passed {} days ago", -d))
        }
        (Some((f, what)), Some(0)) => line.push_str(&format!("; {what} is today ({f})")),
        (Some((f, what)), Some(d)) => line.push_str(&format!(
            "; {d} day{} to {what} ({f})",
            if d == 1 { "" } else { "s" }
        )),
        _ => line.push_str("; no freeze date known"),
    }
    Health {
        status,
        line,
        freeze: freeze.map(|(f, _)| f.to_string()),
        days_to_freeze: days,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::calendar::{Basis, Current};
    use crate::kep::domain::Release;
    use crate::report::KepLinks;

    fn d(s: &str) -> Date {
        s.parse().unwrap()
    }

    #[test]
    fn health_thresholds() {
        let opts = |freeze: Option<&str>| Options {
            release: Release::new(1, 35),
            current: Current {
                release: Release::new(1, 35),
                basis: Basis::Given,
                today: Some(d("2025-10-01")),
                now: None,
                cycle: None,
            },
            links: KepLinks::Repository,
            repo_url: String::new(),
            branch: String::new(),
            freeze: freeze.map(d),
            today: None,
        };
        let cases = [
            (None, 10, 1, "green"),
            (None, 10, 2, "yellow"),
            (None, 10, 5, "yellow"),
            (None, 10, 6, "red"),
            (Some("2025-10-30"), 10, 3, "yellow"),
            (Some("2025-10-05"), 10, 3, "red"),
            (Some("2025-09-30"), 10, 0, "green"),
            (Some("2025-09-30"), 10, 1, "red"),
            (None, 0, 0, "green"),
        ];
        for (freeze, total, risk, want) in cases {
            assert_eq!(
                health(total, risk, 0, &opts(freeze)).status,
                want,
                "{freeze:?} {total} {risk}"
            );
        }
        assert!(
            health(10, 3, 0, &opts(Some("2025-10-05")))
                .line
                .contains("4 days to the freeze (2025-10-05)")
        );
        // Without --freeze the calendar's next deadline of v1.35 counts.
        let line = health(10, 3, 0, &opts(None)).line;
        assert!(
            line.contains("16 days to Enhancements Freeze (2025-10-17)"),
            "{line}"
        );
    }
}
