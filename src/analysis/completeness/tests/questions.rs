//! Where the template's sections and questions are found in a README:
//! stages, renumbered and reworded headings, the older questionnaire's bold
//! questions, and the lines of the questions not asked.

use super::*;

#[test]
fn stage_gates_required_sections() {
    let doc = parse("# KEP-1: T\n## Summary\nText.\n");
    let none = assess(&doc, &builtin(), None);
    let beta = assess(&doc, &builtin(), Some(&Stage::parse("beta")));
    assert!(
        !none
            .missing_sections
            .contains(&"Implementation History".to_string())
    );
    assert!(
        beta.missing_sections
            .contains(&"Implementation History".to_string())
    );
    assert!(none.missing_sections.contains(&"Motivation".to_string()));
    assert!(!none.missing_sections.contains(&"Summary".to_string()));
    assert!(!none.follows_template);
    assert!(status(&none, "Summary").answered);
    // No questionnaire heading: reported at the title, the nearest heading.
    assert_eq!(none.prr.beta.unanswered[0].line, Some(1));
    assert!(none.template_completeness.required < beta.template_completeness.required);
}

#[test]
fn renumbered_and_renamed_headings_match() {
    let doc = parse(
        "# KEP-2: T\n## 1. Summary\nS.\n## 2 Motivation\n### 2.1 Goals\nG.\n## Risks & Mitigations (Optional)\nR.\n",
    );
    let a = assess(&doc, &builtin(), Some(&Stage::parse("alpha")));
    for t in ["Summary", "Goals", "Risks and Mitigations"] {
        assert!(status(&a, t).answered, "{t}");
    }
    assert!(status(&a, "Motivation").present);
}

#[test]
fn empty_template_requires_nothing() {
    let a = assess(
        &parse("# T\n"),
        &Template { sections: vec![] },
        Some(&Stage::Beta),
    );
    assert_eq!(a.prr.beta.percent, 100);
    assert!(a.follows_template);
}

#[test]
fn reworded_questions_match_under_their_group() {
    let doc = parse(
        "# KEP-3: T\n## Production Readiness Review Questionnaire\n### Rollout, Upgrade and Rollback Planning\n\
         ###### How can a rollout fail? Can it impact already running workloads?\nIt cannot.\n\
         ### Monitoring Requirements\n###### What are the reasonable SLOs (Service Level Objectives) for the above SLIs?\n99% of calls.\n\
         ###### Unrelated custom question about running workloads?\nYes.\n",
    );
    let a = assess(&doc, &builtin(), Some(&Stage::parse("beta")));
    let rollout = status(
        &a,
        "How can a rollout or rollback fail? Can it impact already running workloads?",
    );
    assert_eq!((rollout.line, rollout.answered), (Some(4), true));
    let slo = status(
        &a,
        "What are the reasonable SLOs (Service Level Objectives) for the enhancement?",
    );
    assert_eq!(slo.line, Some(7));
    assert_eq!(a.prr.beta.answered, 2);
    let metrics = status(&a, "What specific metrics should inform a rollback?");
    assert!(!metrics.present, "short overlap must not match");
}

#[test]
fn bold_questions_of_the_older_questionnaire_are_questions() {
    // Our own README in the questionnaire's older form: each question a bold
    // list item under its group, answered by the text after it.
    let doc = parse(
        "# KEP-4: T\n\
         ## Production Readiness Review Questionnaire\n\
         ### Feature Enablement and Rollback\n\
         \n\
         _This section must be completed when targeting alpha._\n\
         \n\
         * **How can this feature be enabled / disabled in a live cluster?**\n\
         \x20 - [x] Feature gate\n\
         \x20   - Feature gate name: Thing\n\
         \n\
         * **Does enabling the feature change any default behavior?**\n\
         \x20 No. **Note:** the default stays.\n\
         \n\
         * **Can the feature be disabled once it has been enabled (i.e. can we roll back\n\
         \x20 the enablement)?** Yes, by turning the gate off.\n\
         \n\
         * **What happens if we reenable the feature if it was previously rolled back?**\n\
         * **Are there any tests for feature enablement/disablement?**\n\
         \x20 TBD\n\
         ### Rollout, Upgrade and Rollback Planning\n\
         **Bold emphasis that asks nothing**\n",
    );
    let a = assess(&doc, &builtin(), Some(&Stage::parse("alpha")));
    let q = |title: &str| {
        let s = status(&a, title);
        (s.present, s.answered, s.line)
    };
    assert_eq!(
        q("How can this feature be enabled / disabled in a live cluster?"),
        (true, true, Some(7))
    );
    // bold text inside an answer does not end it
    assert_eq!(
        q("Does enabling the feature change any default behavior?"),
        (true, true, Some(11))
    );
    // wrapped over two lines, answered on the line it ends
    assert_eq!(
        q(
            "Can the feature be disabled once it has been enabled (i.e. can we roll back the enablement)?"
        ),
        (true, true, Some(14))
    );
    // followed at once by the next question: unanswered
    assert_eq!(
        q("What happens if we reenable the feature if it was previously rolled back?"),
        (true, false, Some(17))
    );
    assert_eq!(
        q("Are there any tests for feature enablement/disablement?"),
        (true, false, Some(18))
    );
    assert_eq!((a.prr.alpha.answered, a.prr.alpha.required), (3, 5));
    // bold text that asks nothing is not a question: the group's text is
    // read as its answer as a whole, at the group's heading (line 20)
    let rollout = status(
        &a,
        "How can a rollout or rollback fail? Can it impact already running workloads?",
    );
    assert_eq!((rollout.answered, rollout.line), (true, Some(20)));
    // a heading still wins over a bold question of the same text
    let doc = parse(
        "# KEP-4: T\n## Production Readiness Review Questionnaire\n### Feature Enablement and Rollback\n\
         * **How can this feature be enabled / disabled in a live cluster?**\n\
         ###### How can this feature be enabled / disabled in a live cluster?\nBy a gate.\n",
    );
    let a = assess(&doc, &builtin(), Some(&Stage::parse("alpha")));
    let s = status(
        &a,
        "How can this feature be enabled / disabled in a live cluster?",
    );
    assert_eq!((s.answered, s.line), (true, Some(5)));
}

#[test]
fn older_wordings_and_lines_of_missing_questions() {
    let readme = "# KEP-1: T\n## Production Readiness Review Questionnaire\n### Rollout, Upgrade and Rollback Planning\n* **Were upgrade and rollback tested?**\n  - Yes, by hand.\n";
    let a = assess(&parse(readme), &builtin(), Some(&Stage::Beta));
    let q = status(
        &a,
        "Were upgrade and rollback tested? Was the upgrade->downgrade->upgrade path tested?",
    );
    assert_eq!((q.answered, q.line), (true, Some(4)));
    // Questions not asked are reported at their group's heading, else at the
    // questionnaire's.
    let line = |title: &str| {
        a.prr
            .beta
            .unanswered
            .iter()
            .find(|u| u.title.starts_with(title))
            .and_then(|u| u.line)
    };
    assert_eq!(
        line("What specific metrics should inform a rollback?"),
        Some(3)
    );
    assert_eq!(line("How can an operator determine"), Some(2));
    assert!(a.prr.beta.unanswered.iter().all(|u| u.line.is_some()));
}
