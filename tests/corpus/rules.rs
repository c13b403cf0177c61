//! Every finding on the real corpus names a rule of `RULES`, with that
//! rule's severity (the same property `tests/it/rules.rs` checks on the
//! sample and on hostile input).

use kepsite::analysis::findings::RULES;
use kepsite::project::Input;

use crate::shared::corpus;
use crate::support::load_files;

#[test]
fn the_real_corpus_findings_come_from_the_table() {
    let f = load_files(&Input::at(corpus())).findings;
    assert!(
        f.len() > 500,
        "the corpus has its many findings: {}",
        f.len()
    );
    let strays: Vec<String> = f
        .iter()
        .filter(|f| {
            !RULES
                .iter()
                .any(|r| r.id == f.rule && r.severity == f.severity)
        })
        .map(|f| format!("{} {:?} {}", f.rule, f.severity, f.path))
        .collect();
    assert_eq!(strays, Vec::<String>::new());
}

/// `check` on the real corpus is read by people: its summary comes first,
/// the advice (unanswered PRR questions) one line per KEP, and the whole
/// under 2,000 lines; `--verbose` shows every finding (issue 38).
#[test]
fn check_on_the_corpus_reads_summary_first() {
    let repo = corpus().to_str().unwrap();
    let run = crate::support::kepsite(&["check", "--repo", repo, "--color", "never"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let first = run.stdout.lines().next().unwrap_or_default();
    assert!(first.starts_with("654 KEPs checked: "), "{first}");
    let lines = run.stdout.lines().count();
    assert!(lines < 2_000, "{lines} lines");
    assert!(run.stdout.contains("(advice)"), "advice counted");
    let verbose = crate::support::kepsite(&["check", "--repo", repo, "--color", "never", "-v"]);
    let unanswered = verbose.stdout.matches("warning[prr-unanswered]:").count();
    assert!(unanswered > 500, "{unanswered}");
}
