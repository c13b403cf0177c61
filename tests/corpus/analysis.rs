//! The corpus parts of the analysis tests: v1.35 against its milestones.

use kepsite::analysis::outcome;
use kepsite::kep::domain::Release;
use kepsite::project::Input;

use crate::shared::corpus;
use crate::support::load_files;

/// Without history, the KEPs in v1.35 are exactly those whose
/// latest-milestone or a stage milestone is v1.35; at the corpus HEAD
/// (2026-07-24) v1.35 is out, so each one shipped, slipped or only moved
/// latest-milestone.
#[test]
fn corpus_release_v135_matches_milestones() {
    let project = load_files(&Input::at(corpus()));
    let (m, a) = (&project.model, &project.analysis);
    let r = Release::new(1, 35);
    let v135 = outcome::release_view(&outcome::Sources::of(m, a), r);
    let expected: std::collections::BTreeSet<usize> = m
        .keps
        .iter()
        .enumerate()
        .filter(|(_, k)| {
            r.is(&k.meta.latest_milestone)
                || k.meta.milestone.entries().iter().any(|(_, v)| r.is(v))
        })
        .map(|(i, _)| i)
        .collect();
    let listed: std::collections::BTreeSet<usize> = v135.entries.iter().map(|e| e.id.0).collect();
    assert_eq!(listed, expected);
    assert_eq!(v135.phase, outcome::Phase::Out);
    let ids: std::collections::BTreeSet<&str> =
        v135.entries.iter().map(|e| e.outcome.id()).collect();
    assert!(
        ids.iter()
            .all(|i| ["shipped", "deprecated", "slipped", "latest-only"].contains(i)),
        "{ids:?}"
    );
    let c = v135.counts();
    assert!(c.shipped > 20 && c.slipped > 0, "{c:?}");
}
