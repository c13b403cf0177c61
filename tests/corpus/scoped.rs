//! The loads that read less than everything give what the full load gives,
//! on the real corpus: `check`'s (only what its README rules read), one
//! release's report (only that release's READMEs) and a revision's model
//! whose README blobs are read when asked (the freeze deadline's).

use kepsite::analysis::outcome::release_view;
use kepsite::kep::Readmes;
use kepsite::model;
use kepsite::project::{Input, Needs, Project, Walk};
use kepsite::report::run::release_keps;

use crate::shared::corpus;

fn input() -> Input {
    Input {
        root: corpus().to_path_buf(),
        rev: None,
        sigs: None,
        current: None,
        kubernetes: None,
        readmes: Readmes::Analysis,
        team: Default::default(),
    }
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
        let (picked, release) =
            Project::load_picked(&input(), &Walk::Skip, |m, h| release_keps(m, h, flag)).unwrap();
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
            let (a, b) = (&picked.analysis.keps[e.index], &full.analysis.keps[e.index]);
            assert_eq!(
                format!("{a:?}"),
                format!("{b:?}"),
                "{flag}: KEP {:?}",
                e.number
            );
            assert_eq!(picked.model.keps[e.index], full.model.keps[e.index]);
        }
        // and the READMEs of KEPs outside the release are not parsed
        let parsed = picked.model.keps.iter().filter(|k| k.readme_parsed).count();
        assert!(
            parsed < full.model.keps.len() / 2,
            "{flag}: {parsed} parsed"
        );
    }
}

#[test]
fn readme_blobs_read_when_asked_are_the_files_read_at_once() {
    let rev = Some("HEAD~200");
    let at_once = model::load(corpus(), rev, None).unwrap();
    // the kep.yaml files unchanged since take today's parse, as a freeze
    // deadline's revision does
    let today = model::load(corpus(), None, None).unwrap();
    let mut later = model::load_for(corpus(), rev, None, Readmes::Deferred, Some(&today)).unwrap();
    assert!(later.keps.iter().all(|k| !k.readme_parsed));
    assert!(later.keps.iter().filter(|k| k.readme().is_empty()).count() > 500);
    let n = later.keps.len();
    // half now, the rest later: each blob is read once, when first asked
    let first: Vec<bool> = (0..n).map(|i| i % 2 == 0).collect();
    later.parse_readmes(&first, None);
    later.parse_readmes(&vec![true; n], Some(&at_once));
    assert_eq!(later.keps, at_once.keps);
}
