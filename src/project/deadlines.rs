//! The checklists at the deadlines: the [`Input`] and the release in
//! progress the snapshot is past the PRR and Enhancements Freezes of → a
//! [`Deadline`] for each, the repository judged at the last first-parent
//! commit before the deadline, when that commit is at hand.

use rayon::prelude::*;

use super::{Input, Project};
use crate::analysis::board;
use crate::analysis::calendar::Current;
use crate::analysis::deadline::{self, Deadline};
use crate::kep::Kep;
use crate::kep::domain::Release;
use crate::model::Model;
use crate::repo::AtInstant;
use crate::team::Freeze;
use crate::timing::timed;

impl Project {
    /// Past the PRR and Enhancements Freezes of the release in progress,
    /// take each checklist at its deadline: the repository at the last
    /// first-parent commit before it (committer time, as git's `--before`).
    /// Without git, or when that commit is not in the clone (a shallow
    /// clone), the verdicts stay on these files, and each says so. Call it
    /// after [`Project::with_history`]: a late KEP's verdict says when it
    /// met the checklist from the history. `earlier`: judgements taken
    /// before (serve's last load), reused when of the same deadline commit,
    /// as the files there cannot have changed.
    pub(super) fn with_deadline(mut self, input: &Input, earlier: &[Deadline]) -> Self {
        let current = self.analysis.current;
        for d in timed("deadline", || {
            deadlines_of(input, &current, earlier, &self.model)
        }) {
            self.analysis
                .set_deadline(&self.model, self.history.as_ref(), d);
        }
        self
    }
}

/// The checklists at the deadlines of the release in progress the snapshot
/// is past (PRR Freeze, Enhancements Freeze), each when its commit is at hand.
pub(super) fn deadlines_of(
    input: &Input,
    current: &Current,
    earlier: &[Deadline],
    today: &Model,
) -> Vec<Deadline> {
    // The two snapshots are read side by side: each is mostly one thread
    // reading git (a report's wall time fell from about 0.24 to 0.17 s).
    [Freeze::Prr, Freeze::Enhancements]
        .into_par_iter()
        .filter(|f| board::past(current, *f))
        .filter_map(|f| deadline_of(input, current, f, earlier, today))
        .collect()
}

/// The checklist at `freeze`'s deadline of the release in progress, when
/// the snapshot is past it and the deadline's commit is at hand.
fn deadline_of(
    input: &Input,
    current: &Current,
    freeze: Freeze,
    earlier: &[Deadline],
    today: &Model,
) -> Option<Deadline> {
    if input.is_embedded() || !board::past(current, freeze) {
        return None;
    }
    let at = current.cycle?.deadline(freeze)?;
    let name = freeze.name(current.release);
    let id = match crate::repo::commit_at(&input.root, input.rev.as_deref(), at.as_second())? {
        AtInstant::Commit(id) => id,
        // The repository begins after the deadline: nothing to judge there,
        // so the verdicts stay on these files (and say so).
        AtInstant::Later { shallow: false } => return None,
        AtInstant::Later { shallow: true } => {
            tracing::warn!(
                "this clone is shallow and its oldest commit is after {}'s {name} \
                 deadline ({at}): its verdicts are taken on the snapshot's files, not the \
                 deadline's; `git fetch --unshallow` to judge them at the deadline",
                current.release
            );
            return None;
        }
    };
    if let Some(d) = earlier
        .iter()
        .find(|d| d.commit == id && d.release == current.release && d.freeze == freeze)
    {
        return Some(d.clone());
    }
    let deadline_input = Input {
        rev: Some(id.clone()),
        current: Some(current.release),
        ..input.clone()
    };
    let model = match model_at_deadline(&deadline_input, today, current.release) {
        Ok(m) => m,
        Err(e) => {
            tracing::warn!(
                "reading the repository at the {name} deadline ({id}): {}",
                crate::errors::one_line(&e)
            );
            return None;
        }
    };
    let when = at.strftime("%Y-%m-%d %H:%M UTC").to_string();
    Some(deadline::judge(model, freeze, current.release, when, id))
}

/// The repository at a deadline's revision (`input`), knowing `today`'s
/// files, with the READMEs of the KEPs in `release` there read, and of the
/// KEPs their questionnaires hand over to: a questionnaire handed over to
/// a KEP outside the release is read there, as it is on today's files.
/// Those are read in a second reading of the revision, made only when a
/// KEP of the release hands over to a KEP left unread (none did in
/// v1.33-v1.37); the other KEPs' READMEs stay unread.
fn model_at_deadline(input: &Input, today: &Model, release: Release) -> anyhow::Result<Model> {
    let in_release = move |k: &Kep| deadline::in_release_at_deadline(k, release);
    let model = input.model_knowing(Some(today), Some(&in_release))?;
    let more = crate::analysis::unread_delegates(&model, &in_release);
    if more.is_empty() {
        return Ok(model);
    }
    let reads = move |k: &Kep| in_release(k) || k.number().is_some_and(|n| more.contains(&n));
    input.model_knowing(Some(today), Some(&reads))
}

#[cfg(test)]
mod tests;
