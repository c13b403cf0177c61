//! The Kubernetes release calendar: [`Release`] → its [`Cycle`] (start,
//! enhancements freeze, code freeze, release date), and a snapshot's date
//! plus its KEPs → the release in progress ([`Current`]).
//!
//! The dates are public facts, kept here as data. Sources: the release
//! schedules in kubernetes/sig-release (`releases/release-1.NN/README.md`,
//! v1.14 onward) for the cycle start and the freezes, and the release
//! announcements on kubernetes.io/blog (`/blog/YYYY/MM/DD/kubernetes-v1-NN-release/`)
//! for the release dates. Freezes are the UTC day of the deadline: the
//! schedules up to v1.23 give US Pacific end-of-day times (the UTC day is
//! the next one), v1.35 on "Anywhere on Earth" (12:00 UTC the next day).
//! Releases before v1.14 have release dates only. v1.37's dates are the
//! schedule's plan.

use jiff::civil::Date;

mod data;
use data::{CALENDAR, DEADLINES};
use serde::Serialize;

use crate::kep::Kep;
use crate::kep::domain::{Release, Status};

/// One release cycle's dates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Cycle {
    /// The release.
    pub release: Release,
    /// The first day of the cycle.
    pub start: Option<Date>,
    /// Enhancements Freeze.
    pub enhancements_freeze: Option<Date>,
    /// Code Freeze.
    pub code_freeze: Option<Date>,
    /// The day vX.Y.0 came out (or is planned to).
    pub release_date: Option<Date>,
    /// Whether the dates are a plan rather than history.
    pub planned: bool,
    /// PRR Freeze (the questionnaire's answers are due), when the schedule
    /// names one.
    pub prr_freeze_at: Option<jiff::Timestamp>,
    /// The Enhancements Freeze deadline as an instant: from the schedule,
    /// else the start of its UTC day.
    pub enhancements_freeze_at: Option<jiff::Timestamp>,
    /// The Code Freeze deadline as an instant, likewise.
    pub code_freeze_at: Option<jiff::Timestamp>,
}

impl Cycle {
    /// The next freeze or release date on or after `today`: (what, date).
    pub fn next_deadline(&self, today: Date) -> Option<(&'static str, Date)> {
        [
            ("Enhancements Freeze", self.enhancements_freeze),
            ("Code Freeze", self.code_freeze),
            ("Release", self.release_date),
        ]
        .into_iter()
        .filter_map(|(what, d)| Some((what, d?)))
        .find(|(_, d)| *d >= today)
    }

    /// The instant of `freeze`'s deadline, when the schedule gives one.
    pub fn deadline(&self, freeze: crate::team::Freeze) -> Option<jiff::Timestamp> {
        match freeze {
            crate::team::Freeze::Prr => self.prr_freeze_at,
            crate::team::Freeze::Enhancements => self.enhancements_freeze_at,
            crate::team::Freeze::Code => self.code_freeze_at,
        }
    }

    /// Whether the release is out on `today`.
    pub fn is_out(&self, today: Date) -> bool {
        self.release_date.is_some_and(|d| d <= today)
    }
}

fn day(s: &str) -> Option<Date> {
    (!s.is_empty()).then(|| s.parse().ok()).flatten()
}

/// The cycle of `release`, when the calendar has it.
pub fn cycle(release: Release) -> Option<Cycle> {
    if release.major != 1 {
        return None;
    }
    let &(minor, start, ef, cf, date, planned) =
        CALENDAR.iter().find(|row| row.0 == release.minor)?;
    let row = DEADLINES.iter().find(|row| row.0 == minor);
    let instant = |s: &str| s.parse::<jiff::Timestamp>().ok();
    let day_start = |s: &str| {
        let d = day(s)?;
        d.to_zoned(jiff::tz::TimeZone::UTC)
            .ok()
            .map(|z| z.timestamp())
    };
    Some(Cycle {
        prr_freeze_at: row.and_then(|r| instant(r.1)),
        enhancements_freeze_at: row.and_then(|r| instant(r.2)).or_else(|| day_start(ef)),
        code_freeze_at: row.and_then(|r| instant(r.3)).or_else(|| day_start(cf)),
        release: Release::new(1, minor),
        start: day(start),
        enhancements_freeze: day(ef),
        code_freeze: day(cf),
        release_date: day(date),
        planned,
    })
}

/// Every release in the calendar, oldest first.
pub fn known() -> Vec<Cycle> {
    CALENDAR
        .iter()
        .filter_map(|row| cycle(Release::new(1, row.0)))
        .collect()
}

/// How the release in progress was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Basis {
    /// `--release` named it.
    Given,
    /// The first release in the calendar not yet out at the snapshot's date.
    Calendar,
    /// Past the calendar's end (or with no date): read from the KEPs.
    Kepdata,
}

/// The release in progress at a snapshot, and the day the snapshot stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Current {
    /// The release in progress.
    pub release: Release,
    /// How it was found.
    pub basis: Basis,
    /// The snapshot's day (its commit's date), when known: what "days to the
    /// freeze" count from. Never the clock, so a build is reproducible.
    pub today: Option<Date>,
    /// The snapshot's instant (its commit's time, unix seconds), when known:
    /// what the freezes are compared with.
    pub now: Option<i64>,
    /// Its cycle's dates, when the calendar has them.
    pub cycle: Option<Cycle>,
}

impl Current {
    /// Whether `release` is out at the snapshot: before the release in
    /// progress.
    pub fn is_out(&self, release: Release) -> bool {
        release < self.release
    }

    /// Days from the snapshot's day to the cycle's next deadline: (what,
    /// date, days).
    pub fn next_deadline(&self) -> Option<(&'static str, Date, i64)> {
        let today = self.today?;
        let (what, d) = self.cycle?.next_deadline(today)?;
        let days = (d - today).get_days() as i64;
        Some((what, d, days))
    }
}

/// The release in progress: `given` when set; else the first release in the
/// calendar not yet out on `today`; past the calendar's end, or with no date,
/// the release the KEPs point at (see [`from_keps`]).
pub fn current(keps: &[Kep], today: Option<Date>, given: Option<Release>) -> Current {
    current_at(keps, today, None, given)
}

/// [`current`], with the snapshot's instant (`now`, unix seconds) beside its day.
pub fn current_at(
    keps: &[Kep],
    today: Option<Date>,
    now: Option<i64>,
    given: Option<Release>,
) -> Current {
    let (release, basis) = match (given, today) {
        (Some(r), _) => (r, Basis::Given),
        (None, Some(t)) => match known().into_iter().find(|c| !c.is_out(t)) {
            Some(c) => (c.release, Basis::Calendar),
            None => {
                let after = known().last().map(|c| c.release.next());
                (from_keps(keps, after), Basis::Kepdata)
            }
        },
        (None, None) => (from_keps(keps, None), Basis::Kepdata),
    };
    Current {
        release,
        basis,
        today,
        now,
        cycle: cycle(release),
    }
}

/// The release most implementable KEPs name as their latest-milestone, at
/// or after `at_least` (ties go to the later release). A release named by one
/// KEP alone only wins when no release is named by two, so a single
/// outlier (a KEP planning far ahead) never moves the cycle.
pub fn from_keps(keps: &[Kep], at_least: Option<Release>) -> Release {
    let mut counts: std::collections::BTreeMap<Release, usize> = Default::default();
    for k in keps {
        if k.meta.status != Status::Implementable {
            continue;
        }
        if let Some(r) = k.meta.latest_release()
            && at_least.is_none_or(|min| r >= min)
        {
            *counts.entry(r).or_default() += 1;
        }
    }
    counts
        .into_iter()
        .max_by_key(|&(r, n)| (n, r))
        .map(|(r, _)| r)
        .or(at_least)
        .unwrap_or(Release::new(1, 0))
}

/// A unix time as its UTC day.
pub fn utc_day(secs: i64) -> Option<Date> {
    let ts = jiff::Timestamp::from_second(secs).ok()?;
    Some(ts.to_zoned(jiff::tz::TimeZone::UTC).date())
}

#[cfg(test)]
mod tests;
