//! Deprecations and removals by withdrawal: a [`Kep`] and a [`Release`] →
//! whether the KEP is the release's removal, and (with its [`KepHistory`])
//! the commit that recorded it.

use super::Landed;
use crate::kep::Kep;
use crate::kep::domain::{Release, Status};
use crate::repo::history::KepHistory;

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
