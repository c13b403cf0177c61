//! The release team's own records, exported by the user and read as
//! untrusted input beside the repository: enhancement issues (`--issues`),
//! open pull requests (`--prs`), the tracking board (`--board`) and the
//! exception requests (`--exceptions`) → [`Team`]; and the deadlines of a
//! release cycle the team works to ([`Freeze`]).
//!
//! Nothing here decides a status: the analysis does
//! (`analysis::board`), from these records and the files.

pub mod board;
pub mod exceptions;
pub mod issues;
pub mod prs;

use std::path::PathBuf;

use anyhow::Result;
use serde::Serialize;

use crate::kep::domain::Release;
pub use exceptions::{Decision, Exception};
pub use issues::Issue;
pub use prs::Pr;

/// A deadline of the release cycle, in the order the team meets them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Freeze {
    /// The PRR Freeze, called the KEP Readiness Deadline from v1.38's
    /// schedule: questionnaire, kep.yaml and PRR approval file, each in a
    /// PR open or merged.
    #[serde(rename = "prr-freeze")]
    Prr,
    /// The Enhancements Freeze: the official checklist, merged.
    #[serde(rename = "enhancements-freeze")]
    Enhancements,
    /// Code Freeze (and Test Freeze): the implementation merge-ready.
    #[serde(rename = "code-freeze")]
    Code,
}

/// The first release whose schedule calls the PRR Freeze the KEP Readiness
/// Deadline (kubernetes/sig-release `releases/release-1.38/README.md`;
/// v1.37's schedule says "Production Readiness Freeze").
pub const KEP_READINESS_FROM: Release = Release::new(1, 38);

impl Freeze {
    /// The deadlines in order.
    pub const ALL: [Freeze; 3] = [Freeze::Prr, Freeze::Enhancements, Freeze::Code];

    /// Stable id: `prr-freeze`, `enhancements-freeze`, `code-freeze`.
    pub fn id(self) -> &'static str {
        match self {
            Freeze::Prr => "prr-freeze",
            Freeze::Enhancements => "enhancements-freeze",
            Freeze::Code => "code-freeze",
        }
    }

    /// The deadline's name in `release`'s schedule.
    pub fn name(self, release: Release) -> &'static str {
        match self {
            Freeze::Prr if release >= KEP_READINESS_FROM => "KEP Readiness Deadline",
            Freeze::Prr => "PRR Freeze",
            Freeze::Enhancements => "Enhancements Freeze",
            Freeze::Code => "Code Freeze",
        }
    }

    /// The words the board's Status field uses after "Tracked for" / "At
    /// risk for" in `release`: `PRR freeze` (`KEP readiness` from v1.38),
    /// `enhancements freeze`, `code freeze`.
    pub fn board_words(self, release: Release) -> &'static str {
        match self {
            Freeze::Prr if release >= KEP_READINESS_FROM => "KEP readiness",
            Freeze::Prr => "PRR freeze",
            Freeze::Enhancements => "enhancements freeze",
            Freeze::Code => "code freeze",
        }
    }

    /// The deadline before this one, if any.
    pub fn previous(self) -> Option<Freeze> {
        match self {
            Freeze::Prr => None,
            Freeze::Enhancements => Some(Freeze::Prr),
            Freeze::Code => Some(Freeze::Enhancements),
        }
    }
}

/// Everything the team's files say, as read.
#[derive(Debug, Clone, Default)]
pub struct Team {
    /// `--issues`.
    pub issues: Option<Vec<Issue>>,
    /// `--prs`.
    pub prs: Option<Vec<Pr>>,
    /// `--board`.
    pub board: Option<Vec<board::Item>>,
    /// `--exceptions`.
    pub exceptions: Option<Vec<Exception>>,
}

/// Where the team's files are (each optional).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Files {
    /// `--issues FILE`.
    pub issues: Option<PathBuf>,
    /// `--prs FILE`.
    pub prs: Option<PathBuf>,
    /// `--board FILE`.
    pub board: Option<PathBuf>,
    /// `--exceptions FILE`.
    pub exceptions: Option<PathBuf>,
}

impl Files {
    /// Whether no file is named.
    pub fn is_empty(&self) -> bool {
        *self == Files::default()
    }

    /// Read and parse every file named; an unreadable or malformed file is
    /// an error naming it (the user asked for it, so a silent skip would be
    /// a wrong answer).
    pub fn read(&self) -> Result<Team> {
        Ok(Team {
            issues: self.issues.as_deref().map(issues::read).transpose()?,
            prs: self.prs.as_deref().map(prs::read).transpose()?,
            board: self.board.as_deref().map(board::read).transpose()?,
            exceptions: self
                .exceptions
                .as_deref()
                .map(exceptions::read)
                .transpose()?,
        })
    }
}
