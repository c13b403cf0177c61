//! The calendar's data and the release in progress.

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

#[test]
fn deadline_instants_fall_on_the_freeze_days_in_order() {
    let utc_date = |t: jiff::Timestamp| t.to_zoned(jiff::tz::TimeZone::UTC).date();
    let mut with_instants = 0;
    for c in known() {
        if let (Some(at), Some(day)) = (c.enhancements_freeze_at, c.enhancements_freeze) {
            assert_eq!(utc_date(at), day, "{c:?}");
            with_instants += 1;
        }
        if let (Some(at), Some(day)) = (c.code_freeze_at, c.code_freeze) {
            assert_eq!(utc_date(at), day, "{c:?}");
        }
        let order: Vec<jiff::Timestamp> =
            [c.prr_freeze_at, c.enhancements_freeze_at, c.code_freeze_at]
                .into_iter()
                .flatten()
                .collect();
        assert!(order.windows(2).all(|w| w[0] < w[1]), "{c:?}");
    }
    assert_eq!(with_instants, 25, "v1.14 to v1.38");
    // The schedule's AoE: Tuesday 16 June 2026, end of day = 12:00 UTC the next.
    let v137 = cycle(Release::new(1, 37)).unwrap();
    assert_eq!(
        v137.enhancements_freeze_at.unwrap().to_string(),
        "2026-06-17T12:00:00Z"
    );
    assert_eq!(
        v137.prr_freeze_at.unwrap().to_string(),
        "2026-06-10T12:00:00Z"
    );
}
