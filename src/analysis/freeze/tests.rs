//! Table-driven tests of the freeze's reading of a README.

use super::*;
use crate::kep::document::parse;

fn checkbox_of(text: &str) -> Checkbox {
    checkbox(&parse(text))
}

fn facts_of(text: &str) -> Facts {
    facts(&parse(text))
}

const FULL_ALPHA: &str = "# KEP-1: x\n## Design Details\n### Test Plan\n\
[x] I/we understand the owners of the involved components may require updates to existing tests\n\
##### Unit tests\nsome\n##### Integration tests\nsome\n##### e2e tests\nsome\n\
### Graduation Criteria\nalpha\n## Production Readiness Review Questionnaire\n\
### Feature Enablement and Rollback\nfeature gate\n";

#[test]
fn checkbox_states() {
    let line = |b: &str| {
        format!(
            "intro\n- {b} I/we understand the owners of the involved components may require updates\n"
        )
    };
    for (mark, want) in [
        ("[x]", Checkbox::Checked(2)),
        ("[X]", Checkbox::Checked(2)),
        ("[ x ]", Checkbox::Checked(2)),
        ("[ ]", Checkbox::Unchecked(2)),
        ("[]", Checkbox::Unchecked(2)),
    ] {
        assert_eq!(checkbox_of(&line(mark)), want, "{mark}");
    }
    assert_eq!(checkbox_of("no box here\n"), Checkbox::Absent);
    // Inside a comment or a code fence it is not the KEP's answer.
    let commented = "<!--\n[x] I/we understand the owners of the involved components\n-->\n";
    assert_eq!(checkbox_of(commented), Checkbox::Absent);
    let fenced = "```\n[x] I/we understand the owners of the involved components\n```\n";
    assert_eq!(checkbox_of(fenced), Checkbox::Absent);
    // Wrapped over lines.
    let wrapped = "- [x] I/we understand the owners of\n  the involved components may require\n";
    assert_eq!(checkbox_of(wrapped), Checkbox::Checked(1));
    // The text without a box is not a checked box.
    assert_eq!(
        checkbox_of("I/we understand the owners of the involved components\n"),
        Checkbox::Absent
    );
}

#[test]
fn full_readme_misses_nothing_for_alpha() {
    let f = facts_of(FULL_ALPHA);
    assert_eq!(f.checkbox, Checkbox::Checked(4));
    assert!(f.missing_for(Some(PrrTarget::Alpha)).is_empty(), "{f:?}");
    assert_eq!(
        f.missing_for(Some(PrrTarget::Beta)),
        [
            "Rollout, Upgrade and Rollback Planning",
            "Monitoring Requirements",
            "Dependencies",
            "Scalability",
            "Troubleshooting"
        ]
    );
}

#[test]
fn headings_match_by_meaning() {
    // Numbered, other case, merged, one level off.
    let text = "## 3. TEST PLAN\nunit, integration and e2e tests\n\
# graduation criteria\n\
## PRR questionnaire\n#### 1) Feature enablement & rollback\n\
### Rollout / Upgrade / Rollback planning\n### Monitoring requirements\n\
### Dependencies\n### Scalability\n### Troubleshooting\n";
    let f = facts_of(text);
    assert!(f.missing_for(Some(PrrTarget::Stable)).is_empty(), "{f:?}");
}

#[test]
fn missing_parts_are_named() {
    let text = "### Test Plan\nunit tests only\n";
    let f = facts_of(text);
    assert_eq!(
        f.missing_for(Some(PrrTarget::Alpha)),
        [
            "Integration tests",
            "e2e tests",
            "Graduation Criteria",
            "Feature Enablement and Rollback"
        ]
    );
}

#[test]
fn delegated_questionnaire_counts_as_present() {
    let text = format!(
        "{}\n## Production Readiness Review Questionnaire\nSee KEP-1234's questionnaire: [link](../1234-x/README.md)\n",
        FULL_ALPHA.split("## Production").next().unwrap()
    );
    let f = facts_of(&text);
    assert!(f.missing_for(Some(PrrTarget::Stable)).is_empty(), "{f:?}");
}

#[test]
fn checklist_has_unique_ids_and_required_first() {
    let mut ids: Vec<&str> = CHECKLIST.iter().map(|c| c.id.as_str()).collect();
    let ef: Vec<&Check> = enhancements_checklist().collect();
    let first_advice = ef
        .iter()
        .position(|c| c.weight == Some(Weight::Advice))
        .unwrap();
    assert!(
        ef[first_advice..]
            .iter()
            .all(|c| c.weight == Some(Weight::Advice))
    );
    for c in CHECKLIST {
        assert_eq!(c.weight, c.weight_at(Freeze::Enhancements), "{}", c.id);
        assert!(!c.at.is_empty(), "{} is checked at no deadline", c.id);
    }
    // The PRR Freeze's three checks, as the handbook lists them.
    let prr: Vec<&str> = CHECKLIST
        .iter()
        .filter(|c| c.weight_at(Freeze::Prr) == Some(Weight::Required))
        .map(|c| c.id.as_str())
        .collect();
    assert_eq!(prr, ["prr-approved", "prr-questionnaire", "kep-yaml"]);
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), CHECKLIST.len());
    assert!(check_named("prr-approved").is_some() && check_named("nope").is_none());
    // Every id has its row, and its string is its serialized form.
    for c in CHECKLIST {
        assert_eq!(check(c.id).id, c.id);
        assert_eq!(
            serde_json::to_value(c.id).unwrap(),
            serde_json::json!(c.id.as_str())
        );
    }
}
