//! A deadline of the release in progress taken when it passed (the PRR
//! Freeze, the Enhancements Freeze): the [`Model`] as it stood at the last
//! first-parent commit before the deadline, the release and the [`Freeze`]
//! → [`Deadline`], each KEP's checklist there. After the deadline, what
//! counts is the state there: a KEP that met the checklist only later
//! needed an exception, one that met it there stays met whatever happened
//! since.

use std::collections::BTreeMap;

use serde::Serialize;

use super::calendar::Current;
use super::freeze::CheckId;
use super::readiness::checklist_in;
use super::readiness::{AtDeadline, status_ok};
use super::stage::stage_in;
use super::{analyze_kep, current_of, template_for};
use crate::kep::Kep;
use crate::kep::KepKey;
use crate::kep::domain::{Release, Status};
use crate::model::Model;
use crate::repo::history::KepHistory;
use crate::team::Freeze;

/// Every KEP's checklist at one deadline of one release.
#[derive(Debug, Clone, Serialize)]
pub struct Deadline {
    /// The deadline.
    pub freeze: Freeze,
    /// The release.
    pub release: Release,
    /// The deadline, `YYYY-MM-DD HH:MM UTC`.
    pub at: String,
    /// The last first-parent commit before it.
    pub commit: String,
    /// KEP key → whether it met the checklist there, for the KEPs in the
    /// release at the deadline.
    #[serde(skip)]
    pub keps: BTreeMap<KepKey, (bool, Vec<String>, Vec<CheckId>)>,
    /// KEP key → latest-milestone at the deadline, for every KEP then.
    #[serde(skip)]
    pub latest: BTreeMap<KepKey, String>,
}

impl Deadline {
    /// How `kep` (of a later snapshot, with its history `hist` when there
    /// is one) stood at the deadline; `current` is the later snapshot's
    /// release in progress. Every view reads this one answer.
    pub fn of(&self, kep: &Kep, hist: Option<&KepHistory>, current: &Current) -> AtDeadline {
        let k = kep.key();
        let (ready, reasons, failing) = match (self.keps.get(&k), self.latest.get(&k)) {
            (Some((ready, reasons, failing)), _) => (*ready, reasons.clone(), failing.clone()),
            (None, Some(lm)) => (
                false,
                vec![format!(
                    "not in {} yet: latest-milestone was {}",
                    self.release,
                    if lm.is_empty() { "(none)" } else { lm }
                )],
                vec![CheckId::LatestMilestone],
            ),
            (None, None) => (
                false,
                vec!["not in the repository yet".into()],
                vec![CheckId::StatusImplementable, CheckId::LatestMilestone],
            ),
        };
        let met = (!ready && self.freeze == Freeze::Enhancements)
            .then(|| met_after(kep, hist, current, self.release, &failing))
            .flatten();
        AtDeadline {
            at: self.at.clone(),
            commit: self.commit.clone(),
            ready,
            reasons,
            failing,
            met,
        }
    }
}

/// The first change after the release's Enhancements Freeze deadline that
/// set the kep.yaml items failing there (`failing`: status, latest-milestone)
/// to what the checklist asks, as (commit, date); `None` when something else
/// failed there (the README, the PRR file), which the history does not hold.
fn met_after(
    kep: &Kep,
    hist: Option<&KepHistory>,
    current: &Current,
    release: Release,
    failing: &[CheckId],
) -> Option<(String, String)> {
    let kep_yaml = [CheckId::StatusImplementable, CheckId::LatestMilestone];
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
            status_ok(&status, &stage)
                && c.latest_milestone.as_deref().is_some_and(|l| release.is(l))
        })
        .map(|c| (c.commit.clone(), c.date.clone()))
}

/// Whether `kep` is in `release` at a deadline: the KEPs whose READMEs a
/// deadline's load reads.
pub fn in_release_at_deadline(kep: &Kep, release: Release) -> bool {
    stage_in(kep, None, release).is_some()
}

/// Judge `release`'s checklist at `freeze` on `model`, the repository at
/// the deadline commit `commit` (taken at `at`, the deadline as text),
/// loaded with the READMEs of the KEPs in the release there only
/// ([`in_release_at_deadline`]). Only those KEPs are analysed.
pub fn judge(
    model: Model,
    freeze: Freeze,
    release: Release,
    at: String,
    commit: String,
) -> Deadline {
    use rayon::prelude::*;
    let latest = model
        .keps
        .iter()
        .map(|k| (k.key(), k.meta.latest_milestone.clone()))
        .collect();
    let current = current_of(&model, Some(release));
    let (template, _) = template_for(&model);
    let keps = crate::timing::timed("deadline: analyze", || {
        model
            .keps
            .par_iter()
            .filter_map(|kep| {
                let stage = stage_in(kep, None, release)?;
                let a = analyze_kep(&model, &template, kep, &current);
                let r = checklist_in(&model, kep, &a, release, &stage, freeze);
                let reasons = r.reasons().into_iter().map(String::from).collect();
                let failing = r.failing().map(|i| i.id).collect();
                Some((kep.key(), (r.ready, reasons, failing)))
            })
            .collect()
    });
    Deadline {
        freeze,
        release,
        at,
        commit,
        keps,
        latest,
    }
}
