//! Deprecations and removals by withdrawal: with a KEP's [`KepHistory`],
//! the commit that recorded it withdrawn for a release (whether it is the
//! release's removal is `stage::withdrawn_in`).

use super::Landed;
use crate::kep::domain::{Release, Status};
use crate::repo::history::KepHistory;

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
