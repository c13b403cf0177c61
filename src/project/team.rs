//! The release team's records: the files an [`Input`] names (`--issues`,
//! `--prs`, `--board`, `--exceptions`) → [`TeamFacts`], each open PR
//! judged at its head ([`heads`]).

use anyhow::Result;

use super::{Input, Project, heads};
use crate::analysis::Analysis;
use crate::analysis::board::TeamFacts;
use crate::model::Model;
use crate::timing::timed;

impl Project {
    /// Read the release team's files named in `input` and judge each open
    /// PR at its head (see [`heads`]).
    pub(super) fn with_team(mut self, input: &Input) -> Result<Self> {
        self.team = team_facts(input, &self.model, &self.analysis)?;
        Ok(self)
    }
}

/// The team's records of `input` (none when no file is named), each open
/// PR judged at its head.
pub(super) fn team_facts(
    input: &Input,
    model: &Model,
    analysis: &Analysis,
) -> Result<Option<TeamFacts>> {
    if input.team.is_empty() {
        return Ok(None);
    }
    let team = input.team.read()?;
    let prs = match &team.prs {
        Some(list) if !input.is_embedded() => timed("pull requests", || {
            heads::judge(&input.root, list, model, analysis)
        }),
        _ => Default::default(),
    };
    Ok(Some(TeamFacts { team, prs }))
}
