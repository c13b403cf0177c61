//! The KEPs of one release before rendering: the release views'
//! [`Sources`] and a release → each KEP in it ([`Selected`]: its stage
//! there, its outcome, its freeze checklist, its tracking), in model order,
//! and those listed apart.

use crate::analysis::Readiness;
use crate::analysis::board::Tracking;
use crate::analysis::outcome::{self, ApartEntry, Outcome, Sources};
use crate::kep::domain::{Release, Stage};

/// One KEP of the release before rendering: its index in the model, the
/// stage it has there, what became of it and its freeze checklist at that
/// stage (for every phase, so `--since` can compare).
#[derive(Debug, Clone)]
pub struct Selected {
    /// Index into `model.keps`.
    pub index: usize,
    /// Stage in the release (unset: no stage change).
    pub stage: Stage,
    /// What became of it.
    pub outcome: Outcome,
    /// The freeze checklist.
    pub readiness: Readiness,
    /// Shipped: whether the stage was new, a graduation or continued.
    pub step: Option<outcome::Step>,
    /// The release in progress: the board's tracking.
    pub tracking: Option<Tracking>,
    /// Out, with `--kubernetes`: which source decided.
    pub decided: Option<outcome::Decided>,
}

/// Every KEP of `release`, in model order, and those listed apart.
pub fn select(src: &Sources, release: Release) -> (Vec<Selected>, Vec<ApartEntry>) {
    let (model, analysis) = (src.model, src.analysis);
    let view = outcome::release_view(src, release);
    let mut out: Vec<Selected> = view
        .entries
        .into_iter()
        .map(|e| {
            let readiness = e.readiness.unwrap_or_else(|| {
                let kep = &model.keps[e.index];
                let stage = if e.stage.is_unset() {
                    kep.meta.stage.nearest().unwrap_or_default()
                } else {
                    e.stage.clone()
                };
                crate::analysis::readiness(model, kep, &analysis.keps[e.index], release, &stage)
            });
            Selected {
                index: e.index,
                stage: e.stage,
                outcome: e.outcome,
                readiness,
                step: e.step,
                tracking: e.tracking,
                decided: e.decided,
            }
        })
        .collect();
    out.sort_by_key(|s| s.index);
    (out, view.apart)
}
