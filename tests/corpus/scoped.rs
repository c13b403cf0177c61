//! The loads that read less than everything give what the full load gives,
//! on the real corpus: `check`'s (only what its README rules read) and one
//! release's report (only that release's READMEs analysed, and so parsed).
//! A revision's model that reads the README blobs of the KEPs it picks (the
//! freeze deadline's) is a step inside `Project::load`, out of reach here:
//! its test is a unit test, `src/model/readmes/tests.rs`.

use kepsite::analysis::outcome::release_view;
use kepsite::project::{Findings, Input, Needs, Project, Readmes, Walk};
use kepsite::report::run::release_keps;

use crate::shared::corpus;

fn input() -> Input {
    Input::at(corpus())
}

#[test]
fn check_finds_what_the_full_analysis_finds() {
    let full = Project::load(&input(), &Needs::files()).unwrap();
    let rules = Project::load(&input(), &Needs::findings()).unwrap();
    // the two README rules fire on the corpus, so the comparison means something
    for rule in ["prr-unanswered", "toc-mismatch"] {
        assert!(full.findings.iter().any(|f| f.rule == rule), "{rule}");
    }
    assert_eq!(rules.findings, full.findings);
}

#[test]
fn a_release_report_reads_what_the_full_load_reads() {
    let full = Project::load(&input(), &Needs::everything(Walk::Skip)).unwrap();
    for flag in ["v1.30", "v1.35", "v1.36", "v1.37", "v1.38"] {
        // as the report loads
        let pick = |m: &_, h: Option<&_>| release_keps(m, h, flag).map(|(_, p)| p);
        let needs = Needs {
            findings: Findings::Skip,
            readmes: Readmes::Of(&pick),
            ..Needs::everything(Walk::Skip)
        };
        let picked = Project::load(&input(), &needs).unwrap();
        let (release, _) = release_keps(&full.model, None, flag).unwrap();
        let current = full.analysis.current;
        let view = release_view(&full.sources(), release);
        assert!(view.entries.len() > 20, "{flag}: {}", view.entries.len());
        let theirs = release_view(
            &kepsite::analysis::outcome::Sources {
                current,
                ..picked.sources()
            },
            release,
        );
        assert_eq!(format!("{theirs:?}"), format!("{view:?}"), "{flag}");
        for e in &view.entries {
            let (a, b) = (&picked.analysis.keps[e.id], &full.analysis.keps[e.id]);
            assert_eq!(
                format!("{a:?}"),
                format!("{b:?}"),
                "{flag}: KEP {:?}",
                e.number
            );
            assert_eq!(picked.model.keps[e.id], full.model.keps[e.id]);
        }
        // and the READMEs of KEPs outside the release are not parsed
        let parsed = picked
            .model
            .keps
            .iter()
            .filter(|k| k.readme.is_parsed())
            .count();
        assert!(
            parsed < full.model.keps.len() / 2,
            "{flag}: {parsed} parsed"
        );
    }
}
