//! Each `check` output format on the two-commit repository of
//! `check_changes`, compared exactly; the SARIF log validated against the
//! official SARIF 2.1.0 schema (tests/fixtures, see its NOTICE).

use std::path::Path;

use serde_json::{Value, json};

use crate::check_changes::two_commits;
use crate::support::*;

fn check(root: &Path, args: &[&str]) -> Run {
    let mut all = vec!["check", "--repo", root.to_str().unwrap()];
    all.extend_from_slice(args);
    kepsite(&all)
}

/// `--changed-since BASE --format FORMAT` on the two-commit repository:
/// (exit code, stdout, the base's short id).
fn changed(format: &str, extra: &[&str]) -> (i32, String, String) {
    let (_tmp, root, base, _head) = two_commits();
    let mut args = vec!["--changed-since", base.as_str(), "--format", format];
    args.extend_from_slice(extra);
    let run = check(&root, &args);
    assert!(run.stderr.is_empty(), "{}", run.stderr);
    (run.code, run.stdout, base[..12].to_string())
}

const APPROVER: &str =
    "alpha approver @old-approver is not in OWNERS_ALIASES prod-readiness-approvers";
const APPROVER_HELP: &str = "ask one of the prod-readiness-approvers to review and approve";
const QUESTION: &str = "What happens if we reenable the feature if it was previously rolled back?";
const UNANSWERED_HELP: &str = "answer it in the README's Production Readiness Review Questionnaire";
const DATE: &str = "creation-date `2025-30-01` is not a real date";
const DATE_HELP: &str = "write the date as YYYY-MM-DD (month before day)";

#[test]
fn human_format() {
    let (code, out, base) = changed("human", &["--color", "never"]);
    assert_eq!(code, 1);
    // The summary and the count per rule first; errors and warnings in
    // full; advice one line per file; the summary again last.
    let want = format!(
        "1 KEP changed since {base}: 2 errors, 1 warning
      1 error[date-invalid]
      1 error[prr-approver-invalid]
      1 warning[prr-unanswered] (advice)

error[prr-approver-invalid]: {APPROVER}
 --> keps/prod-readiness/sig-apps/2000.yaml:2
  |
2 | alpha:
  |
  = help: {APPROVER_HELP}

error[date-invalid]: {DATE}
 --> keps/sig-node/1000-touched/kep.yaml:7
  |
7 | creation-date: 2025-30-01
  |
  = help: {DATE_HELP}

advice (not freeze requirements; `--verbose` shows each): 1 finding in 1 file
  keps/sig-node/1000-touched/README.md: 1 prr-unanswered (line 23)

1 KEP changed since {base}: 2 errors, 1 warning
"
    );
    assert_eq!(out, want);
    // --verbose shows the advice in full, in place.
    let (_, verbose, _) = changed("human", &["--color", "never", "--verbose"]);
    assert!(
        verbose.contains(&format!(
            "warning[prr-unanswered]: PRR question not answered (required at alpha): {QUESTION}\n  --> keps/sig-node/1000-touched/README.md:23"
        )),
        "{verbose}"
    );
    assert!(!verbose.contains("advice (not freeze"), "{verbose}");
}

#[test]
fn github_format() {
    let (code, out, base) = changed("github", &[]);
    assert_eq!(code, 1);
    let want = format!(
        "::error file=keps/prod-readiness/sig-apps/2000.yaml,line=2,title=kepsite prr-approver-invalid::{APPROVER}%0Ahelp: {APPROVER_HELP}
::warning file=keps/sig-node/1000-touched/README.md,line=23,title=kepsite prr-unanswered::PRR question not answered (required at alpha): {QUESTION}%0Ahelp: {UNANSWERED_HELP}
::error file=keps/sig-node/1000-touched/kep.yaml,line=7,title=kepsite date-invalid::{DATE}%0Ahelp: {DATE_HELP}
1 KEP changed since {base}: 2 errors, 1 warning
"
    );
    assert_eq!(out, want);
}

#[test]
fn github_format_escapes_untrusted_text() {
    // A KEP title cannot reach a command, but a file name and a YAML value
    // can: a date with `%`, `,`, `:` and a newline in it.
    let (_tmp, root, base, _head) = two_commits();
    let kep = root.join("keps/sig-node/1000-touched/kep.yaml");
    let text = std::fs::read_to_string(&kep).unwrap();
    let text = text.replace("2025-30-01", "\"100%,a:b\\r\\n::error::x\"");
    std::fs::write(&kep, text).unwrap();
    let run = check(
        &root,
        &[
            "--changed-since",
            &base,
            "--format",
            "github",
            "--rule",
            "date-invalid",
        ],
    );
    let line = run.stdout.lines().next().unwrap();
    assert_eq!(
        line,
        "::error file=keps/sig-node/1000-touched/kep.yaml,line=7,title=kepsite date-invalid\
         ::creation-date `100%25,a:b%0D%0A::error::x` is not a real date%0Ahelp: write the date as YYYY-MM-DD (month before day)"
    );
    assert_eq!(run.stdout.lines().count(), 2, "{}", run.stdout);
}

#[test]
fn junit_format() {
    let (code, out, _) = changed("junit", &[]);
    assert_eq!(code, 1);
    let want = format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="kepsite check" tests="2" failures="2" errors="0">
  <testsuite name="kepsite check" tests="2" failures="2" errors="0" skipped="0">
    <testcase classname="keps.sig-node" name="KEP-1000 keps/sig-node/1000-touched">
      <failure type="date-invalid" message="1 finding: {DATE}">error[date-invalid] keps/sig-node/1000-touched/kep.yaml:7: {DATE}
  help: {DATE_HELP}</failure>
      <system-out>warning[prr-unanswered] keps/sig-node/1000-touched/README.md:23: PRR question not answered (required at alpha): {QUESTION}
  help: answer it in the README&apos;s Production Readiness Review Questionnaire</system-out>
    </testcase>
    <testcase classname="files" name="keps/prod-readiness/sig-apps/2000.yaml">
      <failure type="prr-approver-invalid" message="1 finding: {APPROVER}">error[prr-approver-invalid] keps/prod-readiness/sig-apps/2000.yaml:2: {APPROVER}
  help: {APPROVER_HELP}</failure>
    </testcase>
  </testsuite>
</testsuites>
"#
    );
    assert_eq!(out, want);
    // With --deny warnings the warning fails its case too.
    let (_, denied, _) = changed("junit", &["--deny", "warnings"]);
    assert!(
        denied.contains(
            "message=\"2 findings: PRR question not answered (required at alpha): What happens"
        ),
        "{denied}"
    );
    assert!(!denied.contains("<system-out>"));
}

#[test]
fn md_summary() {
    let (code, out, base) = changed("md", &[]);
    assert_eq!(code, 1);
    let want = format!(
        "### kepsite check

1 KEP changed since `{base}`: 2 errors, 1 warning.

#### [KEP-1000: Touched feature](https://github.com/kubernetes/enhancements/tree/master/keps/sig-node/1000-touched)

- 1 error, 1 warning
- PRR questionnaire for alpha: 4 of 5 answered; unanswered: {QUESTION} (line 23); PRR approval: approved
- v1.36: **Removed from milestone** (alpha): Test Plan lacks the checkbox \"I/we understand the owners of the involved components may require updates to existing tests\"; README lacks required sections: Test Plan; Graduation Criteria (advice, not a freeze requirement: PRR questionnaire 4/5 answered for alpha; README lacks 13 template sections: Motivation; Goals; Proposal; and 10 more)
- **warning** `prr-unanswered` keps/sig-node/1000-touched/README.md:23: PRR question not answered (required at alpha): {QUESTION} (help: {UNANSWERED_HELP})
- **error** `date-invalid` keps/sig-node/1000-touched/kep.yaml:7: creation-date \\`2025-30-01\\` is not a real date (help: {DATE_HELP})

#### Elsewhere, introduced by this change

- **error** `prr-approver-invalid` keps/prod-readiness/sig-apps/2000.yaml:2: alpha approver @&#8203;old-approver is not in OWNERS\\_ALIASES prod-readiness-approvers (help: {APPROVER_HELP})

"
    );
    assert_eq!(out, want);
    // A portal URL turns the KEP link into its page there.
    let (_, portal, _) = changed("md", &["--base-url", "https://keps.example.org/sub"]);
    assert!(
        portal
            .contains("#### [KEP-1000: Touched feature](https://keps.example.org/sub/keps/1000/)"),
        "{portal}"
    );
}

fn sarif_validator() -> jsonschema::Validator {
    let schema: Value =
        serde_json::from_str(include_str!("../fixtures/sarif-schema-2.1.0.json")).unwrap();
    jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .expect("the SARIF schema compiles")
}

fn assert_valid(v: &jsonschema::Validator, log: &Value) {
    let errors: Vec<String> = v.iter_errors(log).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:#?}");
}

#[test]
fn sarif_format() {
    let (code, out, _) = changed("sarif", &[]);
    assert_eq!(code, 1);
    let log: Value = serde_json::from_str(&out).unwrap();
    let validator = sarif_validator();
    assert_valid(&validator, &log);
    let run = &log["runs"][0];
    assert_eq!(log["version"], "2.1.0");
    assert_eq!(run["tool"]["driver"]["name"], "kepsite");
    assert_eq!(run["tool"]["driver"]["version"], env!("CARGO_PKG_VERSION"));
    // The rules are the rules table, as --list-rules prints it.
    let list = kepsite(&["check", "--list-rules"]).stdout;
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    assert_eq!(rules.len(), list.lines().count());
    for (rule, line) in rules.iter().zip(list.lines()) {
        let words: Vec<&str> = line.split_whitespace().collect();
        let summary = words[3..].join(" ");
        assert_eq!(
            (
                rule["id"].as_str().unwrap(),
                rule["defaultConfiguration"]["level"].as_str().unwrap(),
                rule["properties"]["origin"].as_str().unwrap(),
                rule["shortDescription"]["text"].as_str().unwrap(),
            ),
            (words[0], words[1], words[2], summary.as_str())
        );
    }
    let index = |id: &str| rules.iter().position(|r| r["id"] == id).unwrap();
    let result =
        |rule: &str, level: &str, text: String, uri: &str, line: u64, kep: u64, help: &str| {
            json!({
                "ruleId": rule,
                "level": level,
                "message": { "text": text },
                "locations": [{ "physicalLocation": {
                    "artifactLocation": { "uri": uri, "uriBaseId": "SRCROOT" },
                    "region": { "startLine": line },
                }}],
                "ruleIndex": index(rule),
                "properties": { "help": help, "kep": kep },
            })
        };
    let want = json!([
        result(
            "prr-approver-invalid",
            "error",
            format!("{APPROVER}\nhelp: {APPROVER_HELP}"),
            "keps/prod-readiness/sig-apps/2000.yaml",
            2,
            2000,
            APPROVER_HELP
        ),
        result(
            "prr-unanswered",
            "warning",
            format!(
                "PRR question not answered (required at alpha): {QUESTION}\nhelp: {UNANSWERED_HELP}"
            ),
            "keps/sig-node/1000-touched/README.md",
            23,
            1000,
            UNANSWERED_HELP
        ),
        result(
            "date-invalid",
            "error",
            format!("{DATE}\nhelp: {DATE_HELP}"),
            "keps/sig-node/1000-touched/kep.yaml",
            7,
            1000,
            DATE_HELP
        ),
    ]);
    assert_eq!(run["results"], want);
}

#[test]
fn sarif_of_every_finding_in_content_validates() {
    let run = kepsite(&["check", "--repo", "content", "--format", "sarif"]);
    assert_eq!(run.code, 1);
    let log: Value = serde_json::from_str(&run.stdout).unwrap();
    let results = log["runs"][0]["results"].as_array().unwrap();
    assert!(results.len() > 20, "{}", results.len());
    assert!(
        results
            .iter()
            .any(|r| r["locations"][0]["physicalLocation"]["region"].is_null()),
        "some findings have no line"
    );
    let validator = sarif_validator();
    assert_valid(&validator, &log);
    // The validator does reject a broken log.
    let mut broken = log.clone();
    broken["runs"][0]["results"][0]["level"] = json!("fatal");
    assert!(!validator.is_valid(&broken));
    broken = log;
    broken.as_object_mut().unwrap().remove("version");
    assert!(!validator.is_valid(&broken));
}
