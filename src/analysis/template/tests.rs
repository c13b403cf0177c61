use super::*;

/// Our own KEP template (the sample repository's): the upstream
/// template's sections and DIRECTIVE markers, in our words.
fn seed_template() -> String {
    include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/content/keps/NNNN-kep-template/README.md"
    ))
    .to_string()
}

#[test]
fn builtin_matches_the_seed_template() {
    let parsed = parse_directives(&seed_template()).expect("seed has directives");
    assert_eq!(
        parsed.to_tsv(),
        include_str!("../template_default.tsv"),
        "template_default.tsv is stale: regenerate it with Template::to_tsv"
    );
    assert_eq!(builtin(), parsed);
}

#[test]
fn directive_table() {
    let req = |required, stage| Some(Directive { required, stage });
    let cases = [
        ("<!--DIRECTIVE: required: true-->", req(true, None)),
        ("<!--DIRECTIVE: required: false>", req(false, None)),
        (
            "<!--DIRECTIVE: required: true,stage: alpha-->",
            req(true, Some(PrrStage::Alpha)),
        ),
        (
            "  <!-- directive: required: TRUE, stage: Beta -->",
            req(true, Some(PrrStage::Beta)),
        ),
        (
            "<!--DIRECTIVE: stage: gamma, colour: red-->",
            req(false, None),
        ),
        ("<!--DIRECTIVE", req(false, None)),
        ("<!-- a comment -->", None),
        ("text", None),
        ("", None),
    ];
    for (line, want) in cases {
        assert_eq!(parse_directive(line), want, "line {line:?}");
    }
}

#[test]
fn seed_template_shape() {
    let t = builtin();
    let find = |title: &str| {
        t.sections
            .iter()
            .find(|s| s.title == title)
            .unwrap_or_else(|| panic!("template lacks {title}"))
    };
    assert!(find("Summary").required);
    assert!(!find("Non-Goals").required);
    assert!(
        !find("User Stories (Optional)").required,
        "malformed marker"
    );
    assert!(!find("Release Signoff Checklist").required, "no marker");
    let q = find("How can this feature be enabled / disabled in a live cluster?");
    assert_eq!(
        (q.level, q.prr_stage, q.in_prr),
        (6, Some(PrrStage::Alpha), true)
    );
    assert_eq!(
        q.parent_title.as_deref(),
        Some("Feature Enablement and Rollback")
    );
    let q = find("What are other known failure modes?");
    assert_eq!((q.prr_stage, q.in_prr), (Some(PrrStage::Beta), true));
    assert!(!find("Implementation History").in_prr);
    assert_eq!(
        find("Story 1").parent_title.as_deref(),
        Some("User Stories (Optional)")
    );
    let questions = t.prr_questions();
    // the questionnaire's headings that no heading has as parent
    let leaves: Vec<usize> = (0..t.sections.len())
        .filter(|&i| t.sections[i].in_prr && !t.sections.iter().any(|s| s.parent == Some(i)))
        .collect();
    assert_eq!(questions, leaves);
    let alpha = questions
        .iter()
        .filter(|&&i| t.sections[i].prr_stage == Some(PrrStage::Alpha))
        .count();
    assert_eq!((questions.len(), alpha), (25, 5));
}

#[test]
fn no_directives_is_none() {
    assert_eq!(parse_directives("# T\n## Summary\ntext\n"), None);
    assert_eq!(parse_directives(""), None);
}

#[test]
fn tsv_round_trip_and_bad_rows() {
    let t = builtin();
    assert_eq!(Template::from_tsv(&t.to_tsv()), t);
    let odd = Template::from_tsv("x\tbad\n9\tToo deep\ttrue\n2\tOk\ttrue\tbeta\n3\tShort\n");
    let rows: Vec<_> = odd
        .sections
        .iter()
        .map(|s| (s.level, s.title.as_str(), s.required, s.prr_stage))
        .collect();
    assert_eq!(
        rows,
        vec![
            (2, "Ok", true, Some(PrrStage::Beta)),
            (3, "Short", false, None)
        ]
    );
}
