//! What the kep.yaml history says about a release's edges: a [`Kep`] and a
//! [`Release`] → whether the KEP is the release's removal by withdrawal, and
//! (with its [`KepHistory`]) the commit that recorded it; for a KEP that met
//! the freeze checklist late, the change that set its kep.yaml right.

use super::Landed;
use crate::analysis::calendar::Current;
use crate::analysis::history::KepHistory;
use crate::kep::Kep;
use crate::kep::domain::{Release, Status};

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

/// The first change of the default branch that recorded the KEP withdrawn
/// with latest-milestone `release`.
pub(super) fn first_withdrawn(hist: Option<&KepHistory>, release: Release) -> Option<Landed> {
    hist?
        .changes
        .iter()
        .find(|c| {
            c.status.as_deref().map(Status::parse) == Some(Status::Withdrawn)
                && c.latest_milestone.as_deref().is_some_and(|l| release.is(l))
        })
        .map(|c| Landed {
            commit: c.commit.clone(),
            date: c.date.clone(),
        })
}

/// The first change after the release's Enhancements Freeze deadline that
/// set the kep.yaml items failing there (`failing`: status, latest-milestone)
/// to what the checklist asks, as (commit, date); `None` when something else
/// failed there (the README, the PRR file), which the history does not hold.
pub(super) fn met_after(
    kep: &Kep,
    hist: Option<&KepHistory>,
    current: &Current,
    release: Release,
    failing: &[&str],
) -> Option<(String, String)> {
    let kep_yaml = ["status-implementable", "latest-milestone"];
    if failing.is_empty() || !failing.iter().all(|f| kep_yaml.contains(f)) {
        return None;
    }
    let at = current.cycle?.enhancements_freeze_at?.as_second();
    let stage = kep.meta.stage.clone();
    hist?
        .changes
        .iter()
        .filter(|c| c.time >= at)
        .find(|c| {
            let status = c.status.as_deref().map(Status::parse).unwrap_or_default();
            crate::analysis::readiness::status_ok(&status, &stage)
                && c.latest_milestone.as_deref().is_some_and(|l| release.is(l))
        })
        .map(|c| (c.commit.clone(), c.date.clone()))
}
