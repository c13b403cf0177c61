//! The README analysis on real KEPs from the seeds folder (`$KEPSITE_SHARED/seeds`):
//! questionnaires left untouched, a Design Details of only TODO, custom
//! sections and a table of contents that lists them. The same rules run in
//! the unit tests on our own template and the `content/` sample.

use kepsite::analysis::completeness::{Assessment, PrrTarget, SectionState, assess};
use kepsite::analysis::template::builtin;
use kepsite::kep::document::{TocMismatch, parse, toc_mismatches};
use kepsite::kep::domain::Stage;

use crate::shared::seed;

fn assess_seed(name: &str, stage: Option<&str>) -> Assessment {
    assess(
        &parse(&seed(name)),
        &builtin(),
        stage.map(Stage::parse).as_ref(),
    )
}

/// The state of the template's section `title` (the seeds are read with the
/// built-in template; an assessment keeps its sections in its order).
fn status<'a>(a: &'a Assessment, title: &str) -> &'a SectionState {
    let i = builtin()
        .sections
        .iter()
        .position(|s| s.title == title)
        .unwrap_or_else(|| panic!("no template section {title}"));
    &a.sections[i]
}
fn assert_prr_all_unanswered(a: &Assessment, name: &str) {
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
        a.sections
            .iter()
            .zip(&builtin().sections)
            .filter(|(_, t)| t.in_prr)
            .all(|(s, _)| !s.answered),
        "{name}: a PRR section counted as answered"
    );
}

#[test]
fn seed_keps_with_untouched_questionnaires() {
    for name in [
        "kep-5008-headlamp-sig-ui.md",
        "kep-5620-node-resizing-balloons.md",
    ] {
        let a = assess_seed(name, Some("alpha"));
        assert_prr_all_unanswered(&a, name);
        assert!(status(&a, "Summary").answered, "{name} summary");
        assert!(status(&a, "Motivation").answered, "{name} motivation");
        assert!(
            a.prr.alpha.unanswered.iter().all(|u| u.line.is_some()),
            "{name} lines"
        );
    }
}

#[test]
fn seed_kep_3920_design_details_todo() {
    let a = assess_seed("kep-3920-finish-feature-flags.md", Some("beta"));
    let dd = status(&a, "Design Details");
    assert!(dd.present && !dd.answered, "Design Details is only TODO");
    for title in [
        "Summary",
        "Motivation",
        "Goals",
        "Risks and Mitigations",
        "Proposal",
    ] {
        assert!(status(&a, title).answered, "{title} should be answered");
    }
    assert!(
        a.template_completeness
            .unanswered
            .iter()
            .any(|u| u.title == "Design Details" && u.line == Some(397))
    );
    assert_eq!(a.target, Some(PrrTarget::Beta));
    assert!(a.follows_template, "missing: {:?}", a.missing_sections);
    assert!(
        !a.graduation_criteria_answered,
        "only the commented-out example"
    );
    assert!(!a.test_plan_answered, "only placeholders");
}

#[test]
fn seed_5620_custom_sections_and_placeholder_tests() {
    let a = assess_seed("kep-5620-node-resizing-balloons.md", Some("alpha"));
    assert!(status(&a, "Design Details").answered);
    assert!(!status(&a, "Unit tests").answered || !status(&a, "e2e tests").answered);
    assert!(a.follows_template, "missing: {:?}", a.missing_sections);
}

#[test]
fn seed_kep_toc_lists_custom_sections() {
    let doc = parse(&seed("kep-5620-node-resizing-balloons.md"));
    let unknown: Vec<_> = toc_mismatches(&doc)
        .into_iter()
        .filter(|m| matches!(m, TocMismatch::UnknownAnchor { .. }))
        .collect();
    assert_eq!(unknown, vec![]);
    assert!(doc.sections.iter().any(|s| s.title == "Metrics details"));
}
