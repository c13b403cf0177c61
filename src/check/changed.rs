//! A changed-only check: (the [`Input`], a [`Range`]) → the model after the
//! change, its analysis, the findings the change answers for and the
//! [`ChangeSet`].
//!
//! Both sides are checked whole, each a [`Project`] loaded as every
//! subcommand loads one ([`Project::load`] with [`Needs::files`]): the files after the
//! change (its head commit, or the working tree) and at its base commit,
//! side by side.

use anyhow::{Context, Result};

use super::scope::{self, Scoped};
use crate::analysis::Analysis;
use crate::model::Model;
use crate::project::{Input, Needs, Project};
use crate::repo::{self, ChangeSet, Range};

/// What a changed-only check found.
pub struct Changed {
    /// The repository after the change.
    pub model: Model,
    /// Its analysis.
    pub analysis: Analysis,
    /// What to report, and the touched KEPs.
    pub scoped: Scoped,
    /// The change.
    pub changes: ChangeSet,
}

/// Check the change in `range` of the repository `input` reads (its root,
/// sigs.yaml, and `--current` as the release in progress when given; the
/// range names the revisions).
pub fn check(input: &Input, range: &Range) -> Result<Changed> {
    let changes = repo::changes(&input.root, range)?;
    // The same input on both sides, at the change's two ends. A
    // changed-only check reads no feature gates (`--kubernetes`), as before.
    let side = |rev: Option<String>| Input {
        rev,
        kubernetes: None,
        ..input.clone()
    };
    let (after, before) = rayon::join(
        || Project::load(&side(changes.head.clone()), &Needs::files()),
        || Project::load(&side(Some(changes.base.clone())), &Needs::files()),
    );
    let after = after?;
    let before = before.with_context(|| format!("loading the change's base {}", changes.base))?;
    let scoped = scope::select(
        &after.model,
        after.findings,
        &before.findings,
        &changes.paths,
    );
    Ok(Changed {
        model: after.model,
        analysis: after.analysis,
        scoped,
        changes,
    })
}
