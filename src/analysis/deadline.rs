//! The Enhancements Freeze taken at its deadline: the [`Model`] as it stood
//! at the last first-parent commit before the deadline, and the release →
//! [`Deadline`], each KEP's checklist there. After the freeze, what counts is
//! the state at the deadline: a KEP that met the checklist only later is
//! "Tracked late" (it needed an exception), one that met it there stays
//! Tracked whatever happened since.

use std::collections::BTreeMap;

use serde::Serialize;

use super::calendar::Current;
use super::outcome::{release_view, stage_in};
use super::readiness::AtDeadline;
use super::tracking::analyze_for;
use crate::kep::Kep;
use crate::kep::domain::Release;
use crate::model::Model;

/// Every KEP's checklist at one release's Enhancements Freeze deadline.
#[derive(Debug, Clone, Serialize)]
pub struct Deadline {
    /// The release.
    pub release: Release,
    /// The deadline, `YYYY-MM-DD HH:MM UTC`.
    pub at: String,
    /// The last first-parent commit before it.
    pub commit: String,
    /// KEP key → whether it met the checklist there, for the KEPs in the
    /// release at the deadline.
    #[serde(skip)]
    pub keps: BTreeMap<String, (bool, Vec<String>, Vec<&'static str>)>,
    /// KEP key → latest-milestone at the deadline, for every KEP then.
    #[serde(skip)]
    pub latest: BTreeMap<String, String>,
}

/// How a KEP is known across two snapshots: its number, else its path.
pub fn key(kep: &Kep) -> String {
    match kep.number() {
        Some(n) => n.to_string(),
        None => kep.path.clone(),
    }
}

impl Deadline {
    /// How `kep` (of a later snapshot) stood at the deadline.
    pub fn of(&self, kep: &Kep) -> AtDeadline {
        let k = key(kep);
        let (ready, reasons, failing) = match (self.keps.get(&k), self.latest.get(&k)) {
            (Some((ready, reasons, failing)), _) => (*ready, reasons.clone(), failing.clone()),
            (None, Some(lm)) => (
                false,
                vec![format!(
                    "not in {} yet: latest-milestone was {}",
                    self.release,
                    if lm.is_empty() { "(none)" } else { lm }
                )],
                vec!["latest-milestone"],
            ),
            (None, None) => (
                false,
                vec!["not in the repository yet".into()],
                vec!["status-implementable", "latest-milestone"],
            ),
        };
        AtDeadline {
            at: self.at.clone(),
            commit: self.commit.clone(),
            ready,
            reasons,
            failing,
            met: None,
        }
    }
}

/// Judge `release`'s checklist on `model`, the repository at the deadline
/// commit `commit` (taken at `at`, the deadline as text). Only the KEPs in
/// the release there are analysed.
pub fn judge(mut model: Model, release: Release, at: String, commit: String) -> Deadline {
    let latest = model
        .keps
        .iter()
        .map(|k| (key(k), k.meta.latest_milestone.clone()))
        .collect();
    model.keps.retain(|k| stage_in(k, None, release).is_some());
    let analysis = analyze_for(&model, Some(release));
    // The release in progress, before its freeze: Ready / At risk.
    let current = Current {
        release,
        today: None,
        now: None,
        ..analysis.current
    };
    let view = release_view(&model, &analysis, None, &current, release);
    let keps = view
        .entries
        .iter()
        .filter_map(|e| {
            let r = e.readiness.as_ref()?;
            let kep = &model.keps[e.index];
            let reasons = r.reasons().into_iter().map(String::from).collect();
            let failing = r.failing().map(|i| i.id).collect();
            Some((key(kep), (r.ready, reasons, failing)))
        })
        .collect();
    Deadline {
        release,
        at,
        commit,
        keps,
        latest,
    }
}
