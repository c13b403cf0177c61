//! The PRR questionnaire read as a PRR reviewer reads it (issue 34, item 7),
//! measured on `tests/fixtures/prr_labels.tsv`: 24 KEPs at beta or stable
//! chosen for the hard cases (a group answered as a whole, bare "N/A",
//! reworded questions, answers in prose under the group heading, a
//! questionnaire delegated to another KEP's), all 25 questions each,
//! labelled by reading the READMEs, not kepsite's output.

use std::collections::BTreeMap;

use kepsite::project::{Input, Project};

use crate::shared::corpus;
use crate::support::load_files;

/// The corpus at HEAD, loaded as `check` loads it.
fn head() -> &'static Project {
    static P: std::sync::OnceLock<Project> = std::sync::OnceLock::new();
    P.get_or_init(|| load_files(&Input::at(corpus())))
}

/// (KEP number, question title, answered).
fn labels() -> Vec<(u32, String, bool)> {
    include_str!("../fixtures/prr_labels.tsv")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert!(f.len() >= 3, "bad label line {l:?}");
            (
                f[0].parse().expect("KEP number"),
                f[1].to_string(),
                f[2] == "1",
            )
        })
        .collect()
}

/// Agreement with the hand labels, question by question: at least 95%.
#[test]
fn prr_questions_read_as_a_reviewer_reads_them() {
    let p = head();
    let template = &p.analysis.template;
    let questions: BTreeMap<&str, usize> = template
        .prr_questions()
        .into_iter()
        .map(|i| (template.sections[i].title.as_str(), i))
        .collect();
    let labels = labels();
    assert!(labels.len() >= 20 * 25, "{} labels", labels.len());
    let mut wrong = Vec::new();
    for (n, title, answered) in &labels {
        // the analysis of `model.kep(n)`, the first KEP with the number
        let k = p
            .model
            .kep_at(*n)
            .unwrap_or_else(|| panic!("KEP-{n} is not loaded"));
        let a = &p.analysis.keps[k];
        let i = questions[title.as_str()];
        let got = a.assessment.sections[i].answered;
        if got != *answered {
            wrong.push(format!(
                "KEP-{n}: {title}: labelled {answered}, kepsite {got}"
            ));
        }
    }
    let right = labels.len() - wrong.len();
    let percent = right as f64 * 100.0 / labels.len() as f64;
    println!(
        "PRR questions read right: {right}/{} ({percent:.1}%)\n{}",
        labels.len(),
        wrong.join("\n")
    );
    assert!(percent >= 95.0, "{percent:.1}%:\n{}", wrong.join("\n"));
}
