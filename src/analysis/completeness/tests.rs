//! What counts as an answer: the answer, heading and stage tables, the seed
//! KEPs and the template itself, and bad or random input. Where sections and
//! questions are found is in `questions`.

use super::*;
use crate::analysis::template::{builtin, parse_directives};
use crate::kep::document::parse;
use crate::kep::domain::Stage;

/// Our own KEP template (the sample repository's), with the upstream
/// template's sections and DIRECTIVE markers.
const TEMPLATE: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/content/keps/NNNN-kep-template/README.md"
));

mod questions;

/// An assessment with each template section's status in full.
struct Assessed {
    assessment: Assessment,
    sections: Vec<SectionStatus>,
}

impl std::ops::Deref for Assessed {
    type Target = Assessment;
    fn deref(&self) -> &Assessment {
        &self.assessment
    }
}

/// [`super::assess`], keeping the full statuses for the tests to read.
fn assess(doc: &Document, template: &Template, stage: Option<&Stage>) -> Assessed {
    let (assessment, sections) = assess_sections(doc, template, stage, None);
    // what an Assessment keeps is what the statuses say
    assert_eq!(assessment.sections.len(), sections.len());
    for (kept, full) in assessment.sections.iter().zip(&sections) {
        assert_eq!(
            (kept.present, kept.answered, kept.line),
            (full.present, full.answered, full.line)
        );
    }
    Assessed {
        assessment,
        sections,
    }
}

fn status<'a>(a: &'a Assessed, title: &str) -> &'a SectionStatus {
    a.sections
        .iter()
        .find(|s| s.title == title)
        .unwrap_or_else(|| panic!("no template section {title}"))
}

/// The shape of the template's option checklist, in our own words.
const SKELETON_CHECKLIST: &str = "- [ ] Feature gate (see `kep.yaml`)
  - Feature gate name:
  - Components depending on the gate:
- [ ] Other
  - Describe the mechanism:
  - Will turning it off need downtime of the
    control plane?";

/// `text` as the own text of a section (the parse's reading of it).
fn section_body(text: &str) -> String {
    let doc = crate::kep::document::parse(&format!("# S\n{text}"));
    doc.body(0).text.to_string()
}

#[test]
fn is_answered_table() {
    let cases: &[(&str, bool)] = &[
        ("", false),
        ("   \n\t\n", false),
        ("TODO", false),
        ("TBD.", false),
        ("To be done", false),
        ("TODO: describe the rollout", false),
        ("_TBD_", false),
        ("<!-- only a comment -->", false),
        ("<!-- unterminated\nNo.", false),
        (SKELETON_CHECKLIST, false),
        ("- `<package>`: `<date>` - `<test coverage>`", false),
        ("- <test>: <link to test coverage>", false),
        (
            "[ ] I/we understand the owners of the involved components may\nrequire updates",
            false,
        ),
        (
            "- [ ] Metrics\n  - Metric name:\n  - [Optional] Aggregation method:\n  - Components exposing the metric:\n- [ ] Other (treat as last resort)\n  - Details:",
            false,
        ),
        (
            "- [ ] Events\n  - Event Reason: \n- [ ] API .status\n  - Condition name: \n  - Other field: ",
            false,
        ),
        ("- [Metric name]", false),
        ("<<[UNRESOLVED]>>\n<<[/UNRESOLVED]>>", false),
        ("```\n```", false),
        ("No.", true),
        ("Yes", true),
        ("None.", true),
        ("N/A — no new API calls", true),
        ("Yes, via the feature gate.", true),
        ("**No.**", true),
        ("- [x] Feature gate\n  - Feature gate name: MyGate", true),
        ("- [ ] Feature gate\n  - Feature gate name: `MyGate`", true),
        ("- Metric name: `foo_total`", true),
        ("- [ ] Add e2e tests for the new field", true),
        ("TODO\n\nThe feature is disabled by default.", true),
        ("Todos los nodos", true),
        ("```yaml\nkind: Pod\n```", true),
        (
            "Two risks:\n\n1. Tenancy. How is it passed on?\n2. Which cloud?",
            true,
        ),
        ("The kubelet records these metrics:", true),
        ("- [NUMA awareness][numa-issue]", true),
        ("- [design doc](https://example.com)", true),
        ("- Conditions:\n  - Ready", true),
        (
            "- A very long bullet that explains what the component logs:",
            true,
        ),
        ("See <https://example.com/design>", true),
        (
            "<!-- intro -->\nDisabling the gate restores the old behaviour.",
            true,
        ),
    ];
    for (text, want) in cases {
        // as a section's own text: the parse takes its comments out
        let body = section_body(text);
        assert_eq!(is_answered(&body), *want, "body {text:?}");
    }
}

#[test]
fn normalize_heading_table() {
    let cases = [
        ("Risks and Mitigations", "risks and mitigations"),
        ("Risks & Mitigations (Optional)", "risks and mitigations"),
        ("3.2 Risks and mitigations", "risks and mitigations"),
        (
            "Notes/Constraints/Caveats (Optional)",
            "notes constraints caveats",
        ),
        ("Upgrade / Downgrade Strategy", "upgrade downgrade strategy"),
        ("e2e tests", "e2e tests"),
        ("  Non-Goals  ", "non goals"),
        ("", ""),
        ("1.", ""),
    ];
    for (heading, want) in cases {
        assert_eq!(normalize_heading(heading), want, "heading {heading:?}");
    }
}

#[test]
fn stage_table() {
    let cases = [
        ("alpha", Some(PrrTarget::Alpha)),
        ("Beta", Some(PrrTarget::Beta)),
        ("stable", Some(PrrTarget::Stable)),
        ("deprecated", Some(PrrTarget::Stable)),
        ("disabled", Some(PrrTarget::Stable)),
        ("removed", Some(PrrTarget::Stable)),
        ("alpha (deprecated)", Some(PrrTarget::Stable)),
        ("", None),
        ("alphabet", None),
    ];
    for (stage, want) in cases {
        assert_eq!(
            PrrTarget::from_stage(&Stage::parse(stage)),
            want,
            "stage {stage:?}"
        );
    }
}

fn assert_prr_all_unanswered(a: &Assessed, name: &str) {
    let prr = &a.prr;
    for (target, c, n) in [
        ("alpha", &prr.alpha, 5),
        ("beta", &prr.beta, 25),
        ("stable", &prr.stable, 25),
    ] {
        assert_eq!(
            (c.required, c.answered, c.percent),
            (n, 0, 0),
            "{name} {target}"
        );
        assert_eq!(c.unanswered.len(), n, "{name} {target}");
    }
    assert!(
        a.sections.iter().filter(|s| s.in_prr).all(|s| !s.answered),
        "{name}: a PRR section counted as answered"
    );
}

#[test]
fn seed_template_bodies_are_skeleton() {
    let doc = parse(TEMPLATE);
    for (i, s) in doc.sections.iter().enumerate() {
        if s.level > 1 && s.title != "Release Signoff Checklist" {
            let body = doc.body(i).text;
            assert!(
                !is_answered(&body),
                "{} counted as answered:\n{body}",
                s.title,
            );
        }
    }
    let q = "How can this feature be enabled / disabled in a live cluster?";
    assert!(
        doc.sections
            .iter()
            .enumerate()
            .any(|(i, s)| s.title == q && doc.body(i).text.contains("- [ ] Other")),
        "the seed checklist should be in the body"
    );
}

#[test]
fn template_against_itself() {
    let text = TEMPLATE.to_string();
    let template = parse_directives(&text).expect("directives");
    let a = assess(&parse(&text), &template, Some(&Stage::parse("stable")));
    assert_prr_all_unanswered(&a, "template");
    assert!(a.follows_template, "missing: {:?}", a.missing_sections);
    assert!(a.sections.iter().all(|s| s.present));
    assert!(!status(&a, "Summary").answered);
    assert!(!a.test_plan_answered);
    assert_eq!(a.template_completeness.answered, 1, "only the title");
}

#[test]
fn bad_input_does_not_panic() {
    let mut long = String::from("## Design Details\n");
    long.push_str(&"x\n".repeat(50_000));
    let inputs = [
        String::new(),
        "no headings at all".to_string(),
        "# A\n# A\n## Summary\n## Summary\ntext\n".to_string(),
        "# A\n###### Deep\n## Summary\n<!-- unterminated\n## Motivation\n".to_string(),
        "# T\r\n## Summary\r\nYes.\r\n".to_string(),
        long,
    ];
    for text in &inputs {
        for stage in [None, Some(""), Some("alpha"), Some("stable"), Some("???")] {
            let a = assess(&parse(text), &builtin(), stage.map(Stage::parse).as_ref());
            assert_eq!(a.sections.len(), builtin().sections.len());
            assert!(a.prr.stable.percent <= 100);
        }
    }
    let crlf = assess(&parse("# T\r\n## Summary\r\nYes.\r\n"), &builtin(), None);
    assert!(status(&crlf, "Summary").answered);
    let dup = assess(&parse(&inputs[2]), &builtin(), None);
    assert_eq!(status(&dup, "Summary").line, Some(3));
}

#[test]
fn random_markdown_never_panics() {
    const TOKENS: &[&str] = &[
        "#",
        "## ",
        "###### ",
        "\n",
        "\r\n",
        " ",
        "<!--",
        "-->",
        "<!-- toc -->",
        "<!-- /toc -->",
        "<!--DIRECTIVE: required: true,stage: beta",
        ">",
        "```",
        "~~~",
        "- ",
        "[ ] ",
        "[x] ",
        "[",
        "](#",
        ")",
        "<",
        "`",
        "*",
        "_",
        "\\",
        "TODO",
        "No.",
        "é",
        "—",
        "Summary",
        "1.",
        ":",
        "?",
        "&",
        "(Optional)",
        "Test Plan",
        "<<[UNRESOLVED]>>",
    ];
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let template = builtin();
    for _ in 0..2_000 {
        let mut text = String::new();
        for _ in 0..(state % 200) {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            text.push_str(TOKENS[(state >> 33) as usize % TOKENS.len()]);
        }
        let doc = parse(&text);
        let _ = crate::kep::document::toc_mismatches(&doc);
        let _ = crate::analysis::template::parse_directives(&text);
        for (i, s) in doc.sections.iter().enumerate() {
            let _ = is_answered(&doc.body(i).text);
            assert!(s.line <= s.end_line, "{text:?}");
        }
        let a = assess(&doc, &template, Some(&Stage::parse("stable")));
        assert!(a.prr.stable.answered <= a.prr.stable.required);
    }
}

/// The template's guidance and question sentences (read with
/// `Template::with_guidance`), and that guidance pasted as an answer is no
/// answer: one fixture for both, here, where both are read.
#[test]
fn guidance_and_sentences_of_questions() {
    // A template README in our own words: guidance under two headings.
    let readme = "# KEP\n## Production Readiness Review Questionnaire\n\
        ### Monitoring Requirements\n<!-- Fill this group in from beta onwards. -->\n\
        ###### Are there any missing metrics that would be useful to have to improve observability of this feature?\n\
        <!--\nName the metrics you would like to have, and say why\nthey were left out.\n-->\n";
    let t = builtin().with_guidance(readme);
    let find = |title: &str| {
        t.sections
            .iter()
            .find(|s| s.title.starts_with(title))
            .unwrap()
    };
    let q = find("Were upgrade and rollback tested?");
    assert_eq!(
        q.sentences,
        vec![
            "were upgrade and rollback tested",
            "was the upgrade downgrade upgrade path tested"
        ]
    );
    assert!(
        find("What are other known failure modes?")
            .sentences
            .is_empty()
    );
    // The question's own guidance, and its group's.
    let metrics = find("Are there any missing metrics");
    let pasted = |text: &str| {
        let reading = Reading {
            question: true,
            guidance: &metrics.guidance,
        };
        !answers(text, reading)
    };
    assert!(pasted(
        "Name the metrics you would like to have, and say why they were left out."
    ));
    assert!(pasted("Fill this group in from beta onwards."));
    assert!(!pasted("None beyond the existing apiserver metrics."));
    assert!(
        find("What are other known failure modes?")
            .guidance
            .is_empty()
    );
    assert!(builtin().sections.iter().all(|s| s.guidance.is_empty()));
}
