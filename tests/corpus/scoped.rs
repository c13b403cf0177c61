//! The loads that read less than everything give what the full load gives,
//! on the real corpus: `check`'s (only what its README rules read), one
//! release's report (only that release's READMEs analysed, and so parsed)
//! and a revision's model that reads the README blobs of the KEPs it picks
//! (the freeze deadline's).

use kepsite::analysis::outcome::release_view;
use kepsite::model;
use kepsite::project::{Findings, Input, Needs, Project, Readmes, Walk};
use kepsite::report::run::release_keps;

use crate::shared::corpus;

fn input() -> Input {
    Input {
        root: corpus().to_path_buf(),
        rev: None,
        sigs: None,
        current: None,
        kubernetes: None,
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

#[test]
fn a_revision_reads_the_readme_blobs_of_the_keps_it_picks() {
    let rev = Some("HEAD~200");
    let at_once = model::load(corpus(), rev, None).unwrap();
    // knowing today's files, as a freeze deadline's revision is read
    let today = model::load(corpus(), None, None).unwrap();
    let even = |k: &kepsite::kep::Kep| k.number().is_some_and(|n| n % 2 == 0);
    let later = model::load_for(corpus(), rev, None, Some(&today), Some(&even)).unwrap();
    assert_eq!(later.keps.len(), at_once.keps.len());
    let (mut read, mut shared) = (0, 0);
    for (k, whole) in later.keps.iter().zip(&at_once.keps) {
        assert_eq!(k.meta, whole.meta, "{}", k.path);
        // a single file is read whole: its README is its metadata's file
        let deferred = k.format == kepsite::kep::KepFormat::Directory && k.readme_path.is_some();
        assert_eq!(k.readme.is_read(), even(k) || !deferred, "{}", k.path);
        if k.readme.is_read() {
            assert_eq!(k, whole);
            read += usize::from(deferred);
        } else {
            assert_eq!(k.readme(), "", "{}", k.path);
        }
        // a README unchanged since is today's, parsed once for both
        let mine = today.keps.iter().find(|t| t.readme_path == k.readme_path);
        shared += usize::from(mine.is_some_and(|t| std::sync::Arc::ptr_eq(&t.readme, &k.readme)));
    }
    assert!(read > 250 && read < later.keps.len() - 250, "{read} read");
    assert!(shared > 150, "{shared} shared");
    // the load parsed none but those whose title it takes from the README
    for k in &later.keps {
        let placeholder = kepsite::kep::is_placeholder_title(&k.meta.title);
        assert!(!k.readme.is_parsed() || placeholder, "{}", k.path);
    }
}
