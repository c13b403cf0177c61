use super::values::{deadline, login};
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
