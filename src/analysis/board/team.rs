//! The team's records as the board reads them: [`Team`] (issues, PRs,
//! exceptions, the board file) and each open PR judged at its head →
//! [`TeamFacts`], with lookups by KEP.

use std::collections::BTreeMap;

use super::prs::PrCheck;
use crate::kep::Kep;
use crate::kep::KepKey;
use crate::team::issues::{self, Issue};
use crate::team::{Exception, Team};

/// The team's records, with each open PR's checks per KEP it touches.
#[derive(Debug, Clone, Default)]
pub struct TeamFacts {
    /// What the files said.
    pub team: Team,
    /// KEP key (see [`KepKey`]) → the open PRs touching it, judged at their heads.
    pub prs: BTreeMap<KepKey, Vec<PrCheck>>,
}

impl TeamFacts {
    /// The issues by number, when `--issues` was given.
    pub fn issue_index(&self) -> Option<BTreeMap<u32, &Issue>> {
        self.team.issues.as_deref().map(issues::index)
    }

    /// The issue of KEP `n`.
    pub fn issue(&self, n: u32) -> Option<&Issue> {
        self.team.issues.as_ref()?.iter().find(|i| i.number == n)
    }

    /// The exception requests (`--exceptions`), or none.
    pub fn exceptions(&self) -> &[Exception] {
        self.team.exceptions.as_deref().unwrap_or_default()
    }

    /// Whether the open PRs are known (`--prs`).
    pub fn prs_known(&self) -> bool {
        self.team.prs.is_some()
    }

    /// The open PRs touching `kep`, when the PRs are known.
    pub fn checks_of(&self, kep: &Kep) -> Option<Vec<PrCheck>> {
        self.prs_known()
            .then(|| self.prs.get(&kep.key()).cloned().unwrap_or_default())
    }
}
