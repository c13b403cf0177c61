//! How outcomes read and count: an [`Outcome`] → its [`Tone`] at a
//! glance; a release's outcomes → their [`Counts`], the one tally the
//! report and the pages show.

use serde::Serialize;

use super::{Landed, Outcome};
use crate::analysis::board;

/// How an outcome reads at a glance (badge colours, row marks).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Tone {
    /// Shipped, or tracked.
    Good,
    /// At risk, or waiting on an exception.
    Risk,
    /// Slipped, or removed from the release.
    Bad,
    /// No stage change, planned, deferred.
    Neutral,
}

impl Outcome {
    /// Slipped: where it went, for people ("moved to v1.32").
    pub fn went(&self) -> Option<&str> {
        match self {
            Outcome::Slipped { went, .. } => Some(went),
            _ => None,
        }
    }

    /// Shipped or deprecated: the commit where its stage landed (with
    /// history).
    pub fn landed(&self) -> Option<&Landed> {
        match self {
            Outcome::Shipped { commit } | Outcome::Deprecated { commit } => commit.as_ref(),
            _ => None,
        }
    }

    /// How it reads at a glance.
    pub fn tone(&self) -> Tone {
        match self {
            Outcome::Shipped { .. } | Outcome::Deprecated { .. } => Tone::Good,
            Outcome::Slipped { .. } => Tone::Bad,
            Outcome::LatestOnly | Outcome::Planned => Tone::Neutral,
            Outcome::Tracking { status } => match status.tally() {
                board::Tally::Tracked => Tone::Good,
                board::Tally::AtRisk | board::Tally::Exception => Tone::Risk,
                board::Tally::Removed => Tone::Bad,
                board::Tally::Deferred => Tone::Neutral,
            },
        }
    }
}

/// A release's KEPs counted by outcome: the one tally the report, the
/// release, SIG and home pages show.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    /// Every KEP counted (in progress: on the board; those listed apart
    /// are not counted).
    pub total: usize,
    /// In progress: tracked for the deadline in front of it.
    pub tracked: usize,
    /// In progress: at risk for it.
    pub at_risk: usize,
    /// In progress: needing an exception, or with one pending.
    pub exception: usize,
    /// In progress: removed from the milestone.
    pub removed: usize,
    /// In progress: deferred to a later release.
    pub deferred: usize,
    /// Out: shipped at their stage.
    pub shipped: usize,
    /// Out: deprecations and removals that went through.
    pub deprecated: usize,
    /// Out: slipped.
    pub slipped: usize,
    /// Out: only latest-milestone named the release.
    pub latest_only: usize,
    /// Later: planned.
    pub planned: usize,
}

impl Counts {
    /// The counts of `outcomes`.
    pub fn of<'a>(outcomes: impl IntoIterator<Item = &'a Outcome>) -> Counts {
        let mut c = Counts::default();
        for o in outcomes {
            c.total += 1;
            let n = match o {
                Outcome::Shipped { .. } => &mut c.shipped,
                Outcome::Deprecated { .. } => &mut c.deprecated,
                Outcome::Slipped { .. } => &mut c.slipped,
                Outcome::LatestOnly => &mut c.latest_only,
                Outcome::Planned => &mut c.planned,
                Outcome::Tracking { status } => match status.tally() {
                    board::Tally::Tracked => &mut c.tracked,
                    board::Tally::AtRisk => &mut c.at_risk,
                    board::Tally::Exception => &mut c.exception,
                    board::Tally::Removed => &mut c.removed,
                    board::Tally::Deferred => &mut c.deferred,
                },
            };
            *n += 1;
        }
        c
    }

    /// In progress: the share of the counted KEPs at risk, in percent.
    pub fn share_at_risk(&self) -> f64 {
        let live = self.tracked + self.at_risk + self.exception;
        if live == 0 {
            0.0
        } else {
            100.0 * self.at_risk as f64 / live as f64
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn where_an_outcome_went_and_where_it_landed() {
        let slipped = Outcome::Slipped {
            went: "moved to v1.32".into(),
            to: None,
            late: false,
        };
        assert_eq!(slipped.went(), Some("moved to v1.32"));
        assert_eq!(slipped.landed(), None);
        let at = Landed {
            commit: "abc".into(),
            date: "2024-08-01".into(),
        };
        for o in [
            Outcome::Shipped {
                commit: Some(at.clone()),
            },
            Outcome::Deprecated {
                commit: Some(at.clone()),
            },
        ] {
            assert_eq!(o.landed(), Some(&at));
            assert_eq!(o.went(), None);
        }
        assert_eq!(Outcome::Shipped { commit: None }.landed(), None);
        assert_eq!(Outcome::Planned.went(), None);
    }
}
