//! The report's counts and its one-line summary: [`Row`]s → [`Summary`].

use std::collections::BTreeMap;

use super::{Count, Date, GROUPS, Health, Options, Row, Summary, stage_group};
use crate::analysis::outcome::{Counts, Phase};
use crate::kep::domain::Stage;

/// The outcome counts of `rows` under `label` (shipped with the
/// deprecations that went through, as the stage tables show them).
fn count(label: &str, rows: &[&Row]) -> Count {
    let mut counts = Counts::of(rows.iter().map(|r| &r.result));
    counts.shipped += counts.deprecated;
    counts.deprecated = 0;
    Count {
        label: label.to_string(),
        counts,
    }
}

/// The counts and health of the release's rows; `apart` KEPs are listed
/// apart and not counted.
pub(super) fn summarize(rows: &[Row], apart: usize, phase: Phase, opts: &Options) -> Summary {
    let counts = Counts::of(rows.iter().map(|r| &r.result));
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
    let health = match phase {
        Phase::InProgress => health(&counts, apart, opts),
        Phase::Out => Health {
            status: Phase::Out,
            line: format!(
                "released{}: {} of {} shipped, {} slipped, {} with no stage change",
                crate::analysis::calendar::cycle(opts.release)
                    .and_then(|c| c.release_date)
                    .map(|d| format!(" on {d}"))
                    .unwrap_or_default(),
                counts.shipped + counts.deprecated,
                crate::view::keps(counts.total),
                counts.slipped,
                counts.latest_only
            ),
            share_at_risk: None,
            freeze: None,
            days_to_freeze: None,
        },
        Phase::Planned => Health {
            status: Phase::Planned,
            line: format!(
                "after the release in progress ({}): {} plan{} work here",
                opts.current.release,
                crate::view::keps(counts.total),
                if counts.total == 1 { "s" } else { "" }
            ),
            share_at_risk: None,
            freeze: None,
            days_to_freeze: None,
        },
    };
    Summary {
        counts,
        apart,
        by_stage,
        by_sig,
        health,
    }
}

/// The deadline the line counts to: `--freeze`, else the schedule's next
/// deadline of the release after the snapshot (PRR, Enhancements or Code
/// Freeze, then the release), else the last one passed.
fn next_deadline(opts: &Options) -> Option<(Date, String)> {
    if let Some(f) = opts.freeze {
        return Some((f, "the freeze".into()));
    }
    let cycle = crate::analysis::calendar::cycle(opts.release)?;
    let day = |t: jiff::Timestamp| t.to_zoned(jiff::tz::TimeZone::UTC).date();
    let mut all: Vec<(Date, String)> = crate::team::Freeze::ALL
        .into_iter()
        .filter_map(|f| Some((day(cycle.deadline(f)?), f.name(opts.release).to_string())))
        .collect();
    all.extend(cycle.release_date.map(|d| (d, "the release".to_string())));
    let today = opts.today.or(opts.current.today);
    match today {
        Some(t) => all
            .iter()
            .find(|(d, _)| *d >= t)
            .or_else(|| {
                all.iter()
                    .rev()
                    .find(|(d, _)| *d < t && !d.to_string().is_empty())
            })
            .cloned(),
        None => all.first().cloned(),
    }
}

/// The release in progress in one line: how many KEPs are tracked, at
/// risk, waiting on an exception, removed or deferred, the share at risk,
/// and the days to the next deadline. (No red/yellow/green: on the board a
/// Red means the Enhancements team's own work is blocked, which the files
/// cannot tell.)
pub fn health(c: &Counts, apart: usize, opts: &Options) -> Health {
    let freeze = next_deadline(opts);
    let today = opts.today.or(opts.current.today);
    let days = match (&freeze, today) {
        (Some((f, _)), Some(t)) => Some((*f - t).get_days() as i64),
        _ => None,
    };
    let share = c.share_at_risk();
    let mut parts = vec![format!("{} tracked", c.tracked)];
    // Once nothing is at risk and KEPs were removed, the deadlines that
    // could put one at risk have passed: "0 at risk (0%)" says nothing.
    if c.at_risk > 0 || c.removed + c.exception == 0 {
        parts.push(format!("{} at risk ({share:.0}%)", c.at_risk));
    }
    for (n, what) in [
        (c.exception, "waiting on an exception"),
        (c.removed, "removed from the milestone"),
        (c.deferred, "deferred"),
    ] {
        if n > 0 {
            parts.push(format!("{n} {what}"));
        }
    }
    let mut line = format!("{}: {}", crate::view::keps(c.total), parts.join(", "));
    if apart > 0 {
        line.push_str(&format!(
            " ({} more listed apart, not counted)",
            crate::view::keps(apart)
        ));
    }
    match (&freeze, days) {
        (Some((f, what)), Some(d)) if d < 0 => {
            line.push_str(&format!("; {what} ({f}) passed {} days ago", -d))
        }
        (Some((f, what)), Some(0)) => line.push_str(&format!("; {what} is today ({f})")),
        (Some((f, what)), Some(d)) => line.push_str(&format!(
            "; {d} day{} to {what} ({f})",
            if d == 1 { "" } else { "s" }
        )),
        _ => line.push_str("; no deadline date known"),
    }
    Health {
        status: Phase::InProgress,
        line,
        share_at_risk: Some((share * 10.0).round() / 10.0),
        freeze: freeze.map(|(f, _)| f.to_string()),
        days_to_freeze: days,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::board::Status;
    use crate::analysis::calendar::{Basis, Current};
    use crate::analysis::outcome::Outcome;
    use crate::kep::domain::Release;
    use crate::report::KepLinks;
    use crate::team::Freeze;

    fn d(s: &str) -> Date {
        s.parse().unwrap()
    }

    fn opts(freeze: Option<&str>) -> Options {
        Options {
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
        }
    }

    #[test]
    fn the_line_counts_every_status_and_the_days_to_the_next_deadline() {
        let outcomes: Vec<Outcome> = [
            Status::Tracked(Freeze::Enhancements),
            Status::Tracked(Freeze::Enhancements),
            Status::AtRisk(Freeze::Enhancements),
            Status::ExceptionRequired(Freeze::Enhancements),
            Status::Removed,
        ]
        .into_iter()
        .map(|status| Outcome::Tracking { status })
        .collect();
        let c = Counts::of(&outcomes);
        assert_eq!(
            (c.total, c.tracked, c.at_risk, c.exception, c.removed),
            (5, 2, 1, 1, 1)
        );
        let h = health(&c, 2, &opts(Some("2025-10-05")));
        assert_eq!(
            h.line,
            "5 KEPs: 2 tracked, 1 at risk (25%), 1 waiting on an exception, 1 removed from the milestone (2 KEPs more listed apart, not counted); 4 days to the freeze (2025-10-05)"
        );
        assert_eq!(h.share_at_risk, Some(25.0));
        // Without --freeze the schedule's next deadline counts: v1.35's PRR
        // Freeze (2025-10-10 12:00 UTC).
        let line = health(&c, 0, &opts(None)).line;
        assert!(
            line.ends_with("9 days to PRR Freeze (2025-10-10)"),
            "{line}"
        );
    }
}
