//! A model read knowing one read before (a freeze deadline's, knowing
//! today's): what it takes and what it parses again.

use super::*;

const YAML: &str =
    "title: Swap\nkep-number: 2400\nstatus: implementable\nstage: alpha\nlatest-milestone: v1.35\n";

fn model_of(yaml: &str, known: Option<&Model>) -> Model {
    let files = [
        ("keps/sig-node/2400-swap/kep.yaml", yaml),
        ("keps/sig-node/2400-swap/README.md", "# Swap\n"),
    ];
    from_snapshot_for(RepoSnapshot::from_files(&files), None, known, None)
}

#[test]
fn a_known_kep_yaml_is_taken_only_with_the_same_text() {
    let today = model_of(YAML, None);
    // the same text: the same KEP as a parse of its own
    assert_eq!(model_of(YAML, Some(&today)), today);
    // another text at the same path is parsed, not taken
    let beta = YAML.replace("stage: alpha", "stage: beta");
    let later = model_of(&beta, Some(&today));
    assert_eq!(later, model_of(&beta, None));
    assert_ne!(later.keps[0].meta.stage, today.keps[0].meta.stage);
    // a kep.yaml that did not parse is never taken: its findings come again
    let broken = model_of("title: [", None);
    let again = model_of("title: [", Some(&broken));
    assert!(!again.keps[0].meta_ok);
    assert_eq!(again, broken);
}

fn with_prr(prr: &str, known: Option<&Model>) -> Model {
    let files = [
        ("keps/prod-readiness/sig-node/2400.yaml", prr),
        ("keps/sig-node/2400-swap/kep.yaml", YAML),
        ("keps/sig-node/2400-swap/README.md", "# Swap\n"),
    ];
    from_snapshot_for(RepoSnapshot::from_files(&files), None, known, None)
}

#[test]
fn a_known_prr_file_is_taken_only_with_the_same_bytes() {
    const PRR: &str = "kep-number: 2400\nalpha:\n  approver: \"@wren-h\"\n";
    let today = with_prr(PRR, None);
    assert_eq!(today.prr_files.len(), 1);
    assert_eq!(with_prr(PRR, Some(&today)), today);
    // another approver at the same path is read, not taken
    let other = PRR.replace("@wren-h", "@ash-k");
    let later = with_prr(&other, Some(&today));
    assert_eq!(later, with_prr(&other, None));
    let approver = |m: &Model| {
        m.prr_files[0]
            .approval(&crate::kep::domain::Stage::Alpha)
            .map(|a| a.approver.clone())
    };
    assert_eq!(approver(&later).as_deref(), Some("@ash-k"));
    assert_eq!(approver(&today).as_deref(), Some("@wren-h"));
    // one that does not parse keeps its finding
    let broken = with_prr("alpha: [", None);
    let again = with_prr("alpha: [", Some(&broken));
    assert!(again.prr_files[0].error.is_some());
    assert_eq!(again.load_findings, broken.load_findings);
}
