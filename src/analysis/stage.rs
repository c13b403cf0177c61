//! A KEP's stage in a release, from its files (and, for a release it
//! targeted once and left, its history): what the freeze checklists and the
//! release outcomes both start from.

use crate::kep::Kep;
use crate::kep::domain::{Release, Stage, Status};
use crate::repo::history::KepHistory;

/// The stage `kep` has in `release`, when it is in the release (see `outcome`'s
/// module comment). `Some(Stage::Unset)`: in the release with no stage.
pub fn stage_in(kep: &Kep, hist: Option<&KepHistory>, release: Release) -> Option<Stage> {
    let m = &kep.meta;
    let by_milestone = Stage::ALL
        .into_iter()
        .rev()
        .find(|s| m.milestone.release(s) == Some(release));
    if release.is(&m.latest_milestone) {
        if withdrawn_in(kep, release) {
            return Some(Stage::Removed);
        }
        let own = match m.stage.nearest() {
            Some(s) => s,
            None if m.status == Status::Implementable => Stage::Alpha,
            None => return Some(by_milestone.unwrap_or(Stage::Unset)),
        };
        let later = |s: &Stage| by_milestone.as_ref().is_some_and(|b| b.rank() > s.rank());
        return Some(match m.milestone.release(&own) {
            // Targets its own stage here (its milestone not yet written).
            None if !later(&own) => own,
            Some(r) if r == release && !later(&own) => own,
            // Its own stage belongs to another release.
            _ => by_milestone.unwrap_or(Stage::Unset),
        });
    }
    if by_milestone.is_some() {
        return by_milestone;
    }
    // Targeted the release once (latest-milestone named it on the default
    // branch) and moved on: the stage it had then.
    let then = hist?
        .changes
        .iter()
        .rev()
        .find(|c| c.latest_milestone.as_deref().is_some_and(|l| release.is(l)))?;
    Some(
        then.stage
            .as_deref()
            .map(Stage::parse)
            .and_then(|s| s.nearest())
            .unwrap_or(Stage::Unset),
    )
}

/// Whether `kep` is a deprecation or removal in `release` by withdrawal:
/// the handbook's "`status` set to `withdrawn`, and the `latest-milestone`
/// updated to the current release", for a KEP that shipped a stage in an
/// earlier release (a proposal withdrawn before it shipped removes nothing).
pub fn withdrawn_in(kep: &Kep, release: Release) -> bool {
    let m = &kep.meta;
    m.status == Status::Withdrawn
        && release.is(&m.latest_milestone)
        && m.milestone
            .entries()
            .into_iter()
            .filter_map(|(_, w)| Release::parse(w))
            .any(|r| r < release)
}
