//! A changed-only check: (repository root, [`Range`]) → the model after the
//! change, its analysis, the findings the change answers for and the
//! [`ChangeSet`].
//!
//! Both sides are checked whole, in one load: the snapshot after the change
//! is read once, and the base's is made from it by reading back from git
//! only the files the change touched. The base needs no README analysis
//! unless the change touched the KEP template: the README rules (a KEP's
//! table of contents and PRR answers) read only that KEP's README and
//! kep.yaml and the template, so outside the touched KEPs they find the same
//! on both sides; the base gets the metadata rules alone, and the README
//! findings of the side after stand in for its own.

use anyhow::Result;
use std::collections::HashMap;

use super::scope::{self, Scoped};
use crate::analysis::findings;
use crate::analysis::tracking::{Analysis, analyze};
use crate::finding::Finding;
use crate::kep::prr::SigList;
use crate::model::{self, Model, TEMPLATE_README};
use crate::project::Input;
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
    let (root, current) = (input.root.as_path(), input.current);
    let changes = repo::changes(root, range)?;
    let sigs: Option<SigList> = input.sigs.as_deref().map(model::load_sigs).transpose()?;
    let after = repo::load(root, changes.head.as_deref())?;
    let before = repo::at_base(&after, root, &changes)?;
    let whole_base = changes.paths.contains(TEMPLATE_README);
    let sigs_before = sigs.clone();
    let ((model, analysis, found, metadata), before) = rayon::join(
        || {
            let mut model = model::from_snapshot(after, sigs);
            model.current_release = current;
            let analysis = analyze(&model);
            let found = findings::check_with(&model, &analysis);
            let metadata = (!whole_base).then(|| findings::check_metadata(&model));
            (model, analysis, found, metadata)
        },
        || {
            let mut model = model::from_snapshot(before, sigs_before);
            model.current_release = current;
            if whole_base {
                findings::check(&model)
            } else {
                findings::check_metadata(&model)
            }
        },
    );
    let before = match metadata {
        Some(metadata) => with_readme_findings(before, &found, &metadata),
        None => before,
    };
    let scoped = scope::select(&model, found, &before, &changes.paths);
    Ok(Changed {
        model,
        analysis,
        scoped,
        changes,
    })
}

/// The base's metadata findings plus the README findings of the side after:
/// every finding in `all` that `metadata` does not hold.
fn with_readme_findings(
    mut before: Vec<Finding>,
    all: &[Finding],
    metadata: &[Finding],
) -> Vec<Finding> {
    let key = |f: &Finding| (f.rule, f.path.clone(), f.line, f.message.clone());
    let mut counts: HashMap<_, usize> = HashMap::new();
    for f in metadata {
        *counts.entry(key(f)).or_default() += 1;
    }
    for f in all {
        match counts.get_mut(&key(f)) {
            Some(n) if *n > 0 => *n -= 1,
            _ => before.push(f.clone()),
        }
    }
    before
}
