//! The KEPs of one release before rendering: the release views'
//! [`Sources`] and a release → each KEP in it ([`Selected`]: its entry in
//! the release view and its freeze checklist), in model order, and those
//! listed apart.

use crate::analysis::Readiness;
use crate::analysis::outcome::{self, ApartEntry, ReleaseEntry, ReleaseView, Sources};
use crate::kep::domain::Release;

/// One KEP of the release before rendering: its entry in the release
/// view and its freeze checklist at its stage there (for every phase, so
/// `--since` can compare).
#[derive(Debug, Clone)]
pub struct Selected {
    /// The release view's entry (index, stage, outcome, tracking, ...).
    pub entry: ReleaseEntry,
    /// The freeze checklist: the entry's in progress, else one judged at
    /// its stage.
    pub readiness: Readiness,
}

/// Every KEP of `release`, in model order, and those listed apart; `taken`:
/// the release's view when already taken from the same sources (the site's
/// listings take every release's), else it is taken here.
pub fn select(
    src: &Sources,
    release: Release,
    taken: Option<&ReleaseView>,
) -> (Vec<Selected>, Vec<ApartEntry>) {
    let (model, analysis) = (src.model, src.analysis);
    let view = match taken {
        Some(v) if v.release == release => v.clone(),
        _ => outcome::release_view(src, release),
    };
    let mut out: Vec<Selected> = view
        .entries
        .into_iter()
        .map(|e| {
            let readiness = e.readiness.clone().unwrap_or_else(|| {
                let kep = &model.keps[e.id];
                let stage = if e.stage.is_unset() {
                    kep.meta.stage.nearest().unwrap_or_default()
                } else {
                    e.stage.clone()
                };
                crate::analysis::readiness(model, kep, &analysis.keps[e.id], release, &stage)
            });
            Selected {
                entry: e,
                readiness,
            }
        })
        .collect();
    out.sort_by_key(|s| s.entry.id);
    (out, view.apart)
}
