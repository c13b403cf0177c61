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
use serde::Serialize;

use crate::kep::Kep;
use crate::kep::domain::{Release, Status};

/// (minor, cycle start, enhancements freeze, code freeze, release date, planned);
/// "" where not published. `planned` marks dates not yet past on the newest
/// schedule read.
const CALENDAR: &[(u32, &str, &str, &str, &str, bool)] = &[
    (0, "", "", "", "2015-07-10", false),
    (1, "", "", "", "2015-11-09", false),
    (2, "", "", "", "2016-03-16", false),
    (3, "", "", "", "2016-07-01", false),
    (4, "", "", "", "2016-09-26", false),
    (5, "", "", "", "2016-12-12", false),
    (6, "", "", "", "2017-03-28", false),
    (7, "", "", "", "2017-06-29", false),
    (8, "", "", "", "2017-09-28", false),
    (9, "", "", "", "2017-12-15", false),
    (10, "", "", "", "2018-03-26", false),
    (11, "", "", "", "2018-06-27", false),
    (12, "", "", "", "2018-09-27", false),
    (13, "", "", "", "2018-12-03", false),
    (
        14,
        "2019-01-07",
        "2019-01-30",
        "2019-03-08",
        "2019-03-25",
        false,
    ),
    (
        15,
        "2019-04-08",
        "2019-05-01",
        "2019-05-31",
        "2019-06-19",
        false,
    ),
    (
        16,
        "2019-07-01",
        "2019-07-31",
        "2019-08-30",
        "2019-09-18",
        false,
    ),
    (
        17,
        "2019-09-23",
        "2019-10-16",
        "2019-11-15",
        "2019-12-09",
        false,
    ),
    (
        18,
        "2020-01-06",
        "2020-01-29",
        "2020-03-06",
        "2020-03-25",
        false,
    ),
    (
        19,
        "2020-04-13",
        "2020-05-20",
        "2020-07-10",
        "2020-08-26",
        false,
    ),
    (
        20,
        "2020-09-14",
        "2020-10-07",
        "2020-11-13",
        "2020-12-08",
        false,
    ),
    (
        21,
        "2021-01-11",
        "2021-02-10",
        "2021-03-10",
        "2021-04-08",
        false,
    ),
    (
        22,
        "2021-04-26",
        "2021-05-14",
        "2021-07-09",
        "2021-08-04",
        false,
    ),
    (
        23,
        "2021-08-23",
        "2021-09-10",
        "2021-11-17",
        "2021-12-07",
        false,
    ),
    (
        24,
        "2022-01-10",
        "2022-02-04",
        "2022-03-30",
        "2022-05-03",
        false,
    ),
    (
        25,
        "2022-05-23",
        "2022-06-24",
        "2022-08-03",
        "2022-08-23",
        false,
    ),
    (
        26,
        "2022-09-05",
        "2022-10-07",
        "2022-11-09",
        "2022-12-09",
        false,
    ),
    (
        27,
        "2023-01-09",
        "2023-02-10",
        "2023-03-15",
        "2023-04-11",
        false,
    ),
    (
        28,
        "2023-05-15",
        "2023-06-16",
        "2023-07-19",
        "2023-08-15",
        false,
    ),
    (
        29,
        "2023-09-04",
        "2023-10-06",
        "2023-11-01",
        "2023-12-13",
        false,
    ),
    (
        30,
        "2024-01-08",
        "2024-02-09",
        "2024-03-06",
        "2024-04-17",
        false,
    ),
    (
        31,
        "2024-05-13",
        "2024-06-14",
        "2024-07-24",
        "2024-08-13",
        false,
    ),
    (
        32,
        "2024-09-09",
        "2024-10-11",
        "2024-11-08",
        "2024-12-11",
        false,
    ),
    (
        33,
        "2025-01-13",
        "2025-02-14",
        "2025-03-21",
        "2025-04-23",
        false,
    ),
    (
        34,
        "2025-05-19",
        "2025-06-20",
        "2025-07-25",
        "2025-08-27",
        false,
    ),
    (
        35,
        "2025-09-15",
        "2025-10-17",
        "2025-11-07",
        "2025-12-17",
        false,
    ),
    (
        36,
        "2026-01-12",
        "2026-02-12",
        "2026-03-19",
        "2026-04-22",
        false,
    ),
    (
        37,
        "2026-05-18",
        "2026-06-17",
        "2026-07-23",
        "2026-08-26",
        true,
    ),
];

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
    Some(Cycle {
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
mod tests {
    use super::*;

    fn d(s: &str) -> Date {
        s.parse().unwrap()
    }

    #[test]
    fn calendar_is_ordered_and_complete() {
        let all = known();
        assert_eq!(all.len(), CALENDAR.len());
        for w in all.windows(2) {
            assert_eq!(w[1].release, w[0].release.next());
            assert!(w[0].release_date < w[1].release_date, "{:?}", w[1]);
        }
        for c in &all {
            assert!(c.release_date.is_some(), "{c:?}");
            let steps = [
                c.start,
                c.enhancements_freeze,
                c.code_freeze,
                c.release_date,
            ];
            let given: Vec<Date> = steps.into_iter().flatten().collect();
            assert!(given.windows(2).all(|w| w[0] < w[1]), "{c:?}");
        }
    }

    #[test]
    fn release_in_progress_is_the_first_not_out() {
        let at = |s: &str| current(&[], Some(d(s)), None).release;
        assert_eq!(at("2024-08-12"), Release::new(1, 31));
        assert_eq!(at("2024-08-13"), Release::new(1, 32));
        assert_eq!(at("2019-03-01"), Release::new(1, 14));
        let given = current(&[], Some(d("2024-01-01")), Some(Release::new(1, 20)));
        assert_eq!(
            (given.release, given.basis),
            (Release::new(1, 20), Basis::Given)
        );
    }

    #[test]
    fn utc_days() {
        assert_eq!(utc_day(0), Some(d("1970-01-01")));
        assert_eq!(utc_day(1_700_000_000), Some(d("2023-11-14")));
        assert_eq!(utc_day(-1), Some(d("1969-12-31")));
        assert_eq!(utc_day(i64::MAX), None);
    }
}
