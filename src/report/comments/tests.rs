use super::values::{deadline, login, without_line};
use super::*;

#[test]
fn logins_are_checked() {
    assert_eq!(login("@jpbetz"), Some("jpbetz"));
    assert_eq!(login("kannon92"), Some("kannon92"));
    for bad in ["@", "a b", "@x](y)", "-a", "a--b", "<script>", "@a/b"] {
        assert_eq!(login(bad), None, "{bad}");
    }
}

#[test]
fn an_aoe_deadline_reads_as_the_schedule_writes_it() {
    let at: jiff::Timestamp = "2026-06-17T12:00:00Z".parse().unwrap();
    assert_eq!(
        deadline(at),
        "Tuesday 16 June 2026, end of day AoE (2026-06-17 12:00 UTC)"
    );
    let pdt: jiff::Timestamp = "2024-06-14T02:00:00Z".parse().unwrap();
    assert_eq!(deadline(pdt), "2024-06-14 02:00 UTC");
}

#[test]
fn phases_name_their_deadline_and_reminder() {
    assert_eq!(Phase::EnhancementsParty.freeze(), Freeze::Enhancements);
    assert_eq!(Phase::CodeParty.reminder(), Phase::Code);
    assert!(!Phase::Prr.is_party());
    let ids: Vec<&str> = Phase::ALL.iter().map(|p| p.id()).collect();
    assert_eq!(
        ids,
        [
            "prr",
            "enhancements",
            "enhancements-party",
            "code",
            "code-party"
        ]
    );
}

#[test]
fn the_current_phase_follows_the_deadlines() {
    use crate::analysis::calendar::{Basis, cycle};
    use crate::kep::domain::Release;
    let cy = cycle(Release::new(1, 37)).expect("v1.37 is in the calendar");
    let at = |f| cy.deadline(f).unwrap().as_second();
    let c = |now: i64| Current {
        release: Release::new(1, 37),
        basis: Basis::Calendar,
        today: crate::analysis::calendar::utc_day(now),
        now: Some(now),
        cycle: Some(cy),
    };
    let day = 86_400;
    let prr = at(Freeze::Prr);
    let enh = at(Freeze::Enhancements);
    let code = at(Freeze::Code);
    assert!(prr < enh && enh + PARTY_DAYS * day < code);
    let cases = [
        (prr - 1, Phase::Prr),
        (prr, Phase::Enhancements),
        (enh - 1, Phase::Enhancements),
        (enh, Phase::EnhancementsParty),
        (enh + PARTY_DAYS * day - 1, Phase::EnhancementsParty),
        (enh + PARTY_DAYS * day, Phase::Code),
        (code - 1, Phase::Code),
        (code, Phase::CodeParty),
    ];
    for (now, want) in cases {
        assert_eq!(Phase::current(&c(now)), want, "at {now}");
    }
}

#[test]
fn an_update_names_its_line_once() {
    let place = "keps/sig-node/4939-x/README.md, line 246";
    assert_eq!(
        without_line("checkbox \"x\" is unchecked (line 246)", place),
        "checkbox \"x\" is unchecked"
    );
    assert_eq!(
        without_line("unchecked (line 12)", place),
        "unchecked (line 12)"
    );
    assert_eq!(without_line("no line", place), "no line");
}
