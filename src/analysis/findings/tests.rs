//! Table-driven tests: one small repository per case, the rule ids expected.

use super::metadata::suggestion;
use super::*;
use crate::kep::domain::Release;
use crate::model::from_snapshot;
use crate::repo::RepoSnapshot;

/// Every rule over `model`, with its full analysis.
fn check(model: &Model) -> Vec<Finding> {
    check_with(
        model,
        &crate::analysis::analyze(model, model.current_release, None),
    )
}

const ALIASES: &str = "aliases:\n  prod-readiness-approvers:\n    - prr-ann\n  prod-readiness-approvers-emeritus:\n    - prr-old\n";

const GOOD: &str = "title: Good KEP
kep-number: 100
authors:
  - \"@a\"
owning-sig: sig-node
status: implementable
creation-date: 2024-02-29
reviewers:
  - \"@r\"
approvers:
  - \"@b\"
stage: beta
latest-milestone: \"v1.36\"
milestone:
  alpha: \"v1.35\"
  beta: \"v1.36\"
";

const GOOD_PRR: &str =
    "kep-number: 100\nalpha:\n  approver: \"@prr-ann\"\nbeta:\n  approver: \"@prr-old\"\n";

fn snapshot(files: &[(&str, &str)]) -> RepoSnapshot {
    RepoSnapshot::from_files(files)
}

/// Rule ids found for one KEP at keps/sig-node/100-good with `yaml`.
fn rules_for(yaml: &str, prr: Option<&str>) -> Vec<&'static str> {
    let mut files = vec![
        ("OWNERS_ALIASES", ALIASES),
        ("keps/sig-node/100-good/kep.yaml", yaml),
        ("keps/sig-node/100-good/README.md", "# Good\n"),
    ];
    if let Some(p) = prr {
        files.push(("keps/prod-readiness/sig-node/100.yaml", p));
    }
    let model = from_snapshot(snapshot(&files), None);
    // The README here is a stub: leave its questionnaire findings to the analysis tests.
    let mut ids: Vec<&'static str> = check(&model)
        .iter()
        .map(|f| f.rule)
        .filter(|r| *r != "prr-unanswered")
        .collect();
    ids.dedup();
    ids
}

#[test]
fn good_kep_has_no_findings() {
    assert_eq!(rules_for(GOOD, Some(GOOD_PRR)), Vec::<&str>::new());
}

/// A defect: its name, the text of [`GOOD`] replaced, the replacement, and
/// the rule it must raise (`None`: no finding at all).
type Defect = (
    &'static str,
    &'static str,
    &'static str,
    Option<&'static str>,
);

/// A case per rule, each made by editing [`GOOD`].
const DEFECTS: &[Defect] = &[
    (
        "missing title",
        "title: Good KEP\n",
        "",
        Some("required-field"),
    ),
    (
        "placeholder title",
        "title: Good KEP\n",
        "title: KEP Template\n",
        Some("placeholder-title"),
    ),
    (
        "missing approvers",
        "approvers:\n  - \"@b\"\n",
        "",
        Some("required-field"),
    ),
    (
        "bad status",
        "status: implementable\n",
        "status: imlpemented\n",
        Some("status-enum"),
    ),
    (
        "bad stage",
        "stage: beta\n",
        "stage: alpha (deprecated)\n",
        Some("stage-enum"),
    ),
    ("no stage", "stage: beta\n", "", Some("stage-required")),
    (
        "no latest",
        "latest-milestone: \"v1.36\"\n",
        "",
        Some("latest-milestone-required"),
    ),
    (
        "implemented beta",
        "status: implementable\n",
        "status: implemented\n",
        Some("implemented-not-stable"),
    ),
    (
        "dir mismatch",
        "kep-number: 100\n",
        "kep-number: 101\n",
        Some("dir-number-mismatch"),
    ),
    (
        "impossible date",
        "creation-date: 2024-02-29\n",
        "creation-date: 2025-30-01\n",
        Some("date-invalid"),
    ),
    (
        "placeholder date",
        "creation-date: 2024-02-29\n",
        "creation-date: yyyy-mm-dd\n",
        Some("date-invalid"),
    ),
    (
        "not a leap year",
        "creation-date: 2024-02-29\n",
        "creation-date: 2023-02-29\n",
        Some("date-invalid"),
    ),
    (
        "unpadded",
        "creation-date: 2024-02-29\n",
        "creation-date: 2024-2-9\n",
        Some("date-format"),
    ),
    (
        "order",
        "  alpha: \"v1.35\"\n",
        "  alpha: \"v1.37\"\n",
        Some("milestone-order"),
    ),
    (
        "behind",
        "latest-milestone: \"v1.36\"\n",
        "latest-milestone: \"v1.35\"\n",
        Some("latest-milestone-behind"),
    ),
    (
        "bad milestone",
        "latest-milestone: \"v1.36\"\n",
        "latest-milestone: \"next\"\n",
        Some("milestone-invalid"),
    ),
    (
        "placeholder",
        "  - \"@r\"\n",
        "  - TBD\n",
        Some("template-placeholder"),
    ),
    (
        "jane",
        "  - \"@a\"\n",
        "  - \"@jane.doe\"\n",
        Some("template-placeholder"),
    ),
    (
        "unknown",
        "stage: beta\n",
        "stage: beta\nsponsor: someone\n",
        Some("unknown-field"),
    ),
    (
        "yaml",
        "stage: beta\n",
        "stage: [beta\n",
        Some("yaml-parse"),
    ),
    (
        "provisional needs nothing",
        "status: implementable\n",
        "status: provisional\n",
        None,
    ),
];

#[test]
fn each_rule_fires_on_its_defect() {
    for (name, from, to, want) in DEFECTS {
        assert!(GOOD.contains(from), "{name}: bad case");
        let yaml = GOOD.replacen(from, to, 1);
        let got = rules_for(&yaml, Some(GOOD_PRR));
        match want {
            Some(rule) => assert!(got.contains(rule), "{name}: expected {rule}, got {got:?}"),
            None => assert!(got.is_empty(), "{name}: expected nothing, got {got:?}"),
        }
    }
}

#[test]
fn prr_rules() {
    assert!(rules_for(GOOD, None).contains(&"prr-file-missing"));
    let no_beta = "kep-number: 100\nalpha:\n  approver: \"@prr-ann\"\n";
    assert!(rules_for(GOOD, Some(no_beta)).contains(&"prr-stage-missing"));
    let bad = "kep-number: 100\nbeta:\n  approver: \"@somebody\"\n";
    assert!(rules_for(GOOD, Some(bad)).contains(&"prr-approver-invalid"));
    let numbered = "kep-number: 999\nbeta:\n  approver: \"@prr-ann\"\n";
    assert!(rules_for(GOOD, Some(numbered)).contains(&"prr-number-mismatch"));
    // Before v1.21 no PRR is needed.
    let old = GOOD
        .replace("\"v1.36\"", "\"v1.20\"")
        .replace("\"v1.35\"", "\"v1.19\"");
    assert!(!rules_for(&old, None).contains(&"prr-file-missing"));
}

#[test]
fn duplicate_numbers_and_orphans() {
    let other = GOOD.replace("Good KEP", "Other");
    let third = GOOD.replace("kep-number: 100", "kep-number: 300");
    let files = [
        ("OWNERS_ALIASES", ALIASES),
        ("keps/sig-node/100-good/kep.yaml", GOOD),
        ("keps/sig-node/100-good/README.md", "# Good\n"),
        ("keps/sig-node/100-other/kep.yaml", other.as_str()),
        ("keps/sig-node/100-other/README.md", "# Other\n"),
        ("keps/sig-node/200-lonely/README.md", "# No kep.yaml\n"),
        ("keps/sig-node/300-no-readme/kep.yaml", third.as_str()),
        ("keps/prod-readiness/sig-node/100.yaml", GOOD_PRR),
        ("keps/prod-readiness/sig-node/555.yaml", "kep-number: 555\n"),
    ];
    let model = from_snapshot(snapshot(&files), None);
    let found = check(&model);
    let count = |rule: &str| found.iter().filter(|f| f.rule == rule).count();
    assert_eq!(count("duplicate-kep-number"), 2);
    assert_eq!(count("readme-without-kep-yaml"), 1);
    assert_eq!(count("kep-yaml-without-readme"), 1);
    assert_eq!(count("prr-orphan"), 1);
}

#[test]
fn suggestions() {
    assert_eq!(suggestion("imlpemented", &statuses()), Some("implemented"));
    assert_eq!(
        suggestion("implemented (alpha)", &statuses()),
        Some("implemented")
    );
    assert_eq!(suggestion("superseded", &statuses()), None);
}

#[test]
fn every_rule_is_listed_once() {
    let mut ids: Vec<&str> = RULES.iter().map(|r| r.id).collect();
    ids.sort();
    let n = ids.len();
    ids.dedup();
    assert_eq!(ids.len(), n);
}

/// The placeholder title's finding names kep.yaml's `title:` line and the
/// README's title, which the views show instead.
#[test]
fn a_placeholder_title_is_reported_at_its_line() {
    let yaml = GOOD.replace(
        "title: Good KEP\nkep-number: 100\n",
        "kep-number: 100\ntitle: KEP Template\n",
    );
    let files = [
        ("OWNERS_ALIASES", ALIASES),
        ("keps/sig-node/100-good/kep.yaml", yaml.as_str()),
        (
            "keps/sig-node/100-good/README.md",
            "# KEP-100: Good widgets\n",
        ),
        ("keps/prod-readiness/sig-node/100.yaml", GOOD_PRR),
    ];
    let model = from_snapshot(snapshot(&files), None);
    assert_eq!(model.keps[0].title(), "Good widgets");
    let found = check(&model);
    let f = found
        .iter()
        .find(|f| f.rule == "placeholder-title")
        .expect("a placeholder-title finding");
    assert_eq!(f.path, "keps/sig-node/100-good/kep.yaml");
    assert_eq!(f.line, Some(2));
    assert!(
        f.hint.as_deref().unwrap_or("").contains("Good widgets"),
        "{f:?}"
    );
}

/// `stage` against the stage whose milestone names the release in
/// progress: beta targeted in v1.36 with `stage: alpha` is flagged at the
/// `stage:` line; `stage: beta` is not, nor is another release.
#[test]
fn stage_is_compared_with_the_targeted_stage() {
    let found_in = |yaml: &str, current: Release| {
        let files = [
            ("OWNERS_ALIASES", ALIASES),
            ("keps/sig-node/100-good/kep.yaml", yaml),
            ("keps/sig-node/100-good/README.md", "# Good\n"),
            ("keps/prod-readiness/sig-node/100.yaml", GOOD_PRR),
        ];
        let mut model = from_snapshot(snapshot(&files), None);
        model.current_release = Some(current);
        check(&model)
            .into_iter()
            .filter(|f| f.rule == "stage-vs-target")
            .collect::<Vec<_>>()
    };
    let v136 = Release::new(1, 36);
    assert!(found_in(GOOD, v136).is_empty());
    let alpha = GOOD.replace("stage: beta", "stage: alpha");
    let f = found_in(&alpha, v136);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].line, Some(12));
    assert_eq!(f[0].kep, Some(100));
    assert!(f[0].message.contains("milestone.beta names v1.36"), "{f:?}");
    assert!(found_in(&alpha, Release::new(1, 37)).is_empty());
}
