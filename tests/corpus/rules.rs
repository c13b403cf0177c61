//! Every finding on the real corpus names a rule of `RULES`, with that
//! rule's severity (the same property `tests/it/rules.rs` checks on the
//! sample and on hostile input).

use kepsite::analysis::findings::{RULES, check};
use kepsite::model;

use crate::shared::corpus;

#[test]
fn the_real_corpus_findings_come_from_the_table() {
    let f = check(&model::load(corpus(), None, None).expect("loading the corpus"));
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
