//! One KEP against a deadline's checklist ([`freeze::CHECKLIST`]): ([`Model`],
//! [`Kep`], its [`KepAnalysis`], a release, the stage it targets there and
//! the [`Freeze`]) → [`Readiness`], each item required or advice at that
//! deadline, and its [`Verdict`] (met, not met, met only after the
//! deadline). The board's status is taken from these in `analysis::board`.

mod items;

use serde::Serialize;

use super::KepAnalysis;
use super::freeze::{self, CheckId, Weight};
use crate::kep::Kep;
use crate::kep::domain::{Release, Stage, Status};
use crate::model::Model;
use crate::team::Freeze;
use items::facts;

/// One item of a checklist (see [`freeze::CHECKLIST`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Item {
    /// Stable id, e.g. `prr-approved`.
    pub id: CheckId,
    /// Whether it passes.
    pub ok: bool,
    /// Whether it decides the verdict at this deadline (an official
    /// checklist item) or is advice.
    pub required: bool,
    /// What was found, for people.
    pub detail: String,
}

/// A deadline's checklist judged for one KEP.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Every required item passes (at the deadline, once it has passed).
    Met,
    /// Some required item fails.
    NotMet,
    /// Past the deadline: failed there, passes now (it needs an exception).
    MetLate,
    /// The facts this deadline needs are not at hand (Code Freeze without
    /// `--kubernetes`).
    NotChecked,
}

impl Verdict {
    /// Stable id: `met`, `not-met`, `met-late`, `not-checked`.
    pub fn id(self) -> &'static str {
        match self {
            Verdict::Met => "met",
            Verdict::NotMet => "not-met",
            Verdict::MetLate => "met-late",
            Verdict::NotChecked => "not-checked",
        }
    }

    /// For people: `met`, `not met`, `met after the deadline`, `not checked`.
    pub fn label(self) -> &'static str {
        match self {
            Verdict::Met => "met",
            Verdict::NotMet => "not met",
            Verdict::MetLate => "met after the deadline",
            Verdict::NotChecked => "not checked",
        }
    }
}

/// Readiness of one KEP for one (release, stage) at one deadline.
/// Serialized with its verdict, label and basis beside the fields, so
/// every export says the verdict the pages show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Readiness {
    /// The deadline whose checklist this is.
    pub freeze: Freeze,
    /// Release.
    pub release: Release,
    /// Stage targeted in it.
    pub stage: Stage,
    /// All required items pass.
    pub ready: bool,
    /// Every checklist item.
    pub items: Vec<Item>,
    /// The release is in progress and past this deadline.
    pub frozen: bool,
    /// The release is in progress and past its PRR Freeze: unanswered
    /// questionnaire items are flagged for the PRR reviewers.
    pub prr_frozen: bool,
    /// Past the deadline: the checklist as it stood there (`None` when the
    /// deadline's files are not at hand: judged on these files).
    pub deadline: Option<AtDeadline>,
    /// Why the checklist could not be judged ([`Verdict::NotChecked`]):
    /// the reason alone (`needs --kubernetes`); [`Readiness::basis`] names
    /// the deadline.
    pub not_checked: Option<String>,
}

impl Readiness {
    /// The checklist's verdict: before the deadline on these files; after
    /// it, as the files stood at the deadline.
    pub fn verdict(&self) -> Verdict {
        if self.not_checked.is_some() {
            return Verdict::NotChecked;
        }
        match (&self.deadline, self.frozen) {
            (Some(d), true) if d.ready => Verdict::Met,
            (Some(_), true) if self.ready => Verdict::MetLate,
            _ if self.ready => Verdict::Met,
            _ => Verdict::NotMet,
        }
    }

    /// For people: "Meets the Enhancements Freeze checklist", "Met the PRR
    /// Freeze checklist only after its deadline", ...
    pub fn label(&self) -> String {
        let name = self.freeze.name(self.release);
        match self.verdict() {
            Verdict::Met if self.frozen => format!("Met the {name} checklist"),
            Verdict::Met => format!("Meets the {name} checklist"),
            Verdict::NotMet if self.frozen => format!("Did not meet the {name} checklist"),
            Verdict::NotMet => format!("Does not meet the {name} checklist yet"),
            Verdict::MetLate => format!("Met the {name} checklist only after its deadline"),
            Verdict::NotChecked => format!("{name}: not checked"),
        }
    }

    /// The failing required items' details: why it is not met.
    pub fn reasons(&self) -> Vec<&str> {
        self.failing().map(|i| i.detail.as_str()).collect()
    }

    /// The failing required items.
    pub fn failing(&self) -> impl Iterator<Item = &Item> {
        self.items.iter().filter(|i| i.required && !i.ok)
    }

    /// The failing advice items' details (never decide), for people.
    pub fn advice(&self) -> Vec<&str> {
        self.items
            .iter()
            .filter(|i| !i.required && !i.ok)
            .map(|i| i.detail.as_str())
            .collect()
    }

    /// The item `id`, when this checklist has it.
    pub fn item(&self, id: CheckId) -> Option<&Item> {
        self.items.iter().find(|i| i.id == id)
    }

    /// One line on how the verdict was taken, past the deadline.
    pub fn basis(&self) -> Option<String> {
        if let Some(why) = &self.not_checked {
            let name = self.freeze.name(self.release);
            return Some(format!("{name} not checked: {why}"));
        }
        if !self.frozen {
            return None;
        }
        let Some(d) = &self.deadline else {
            return Some(
                "Judged on these files: the files at the deadline are not in this repository"
                    .to_string(),
            );
        };
        let at = format!("the deadline ({}, commit {})", d.at, short(&d.commit));
        Some(if d.ready {
            format!("Met the checklist at {at}")
        } else if self.ready {
            format!(
                "Met the checklist only after {at}{}, so it needed an exception; at the deadline: {}",
                match &d.met {
                    Some((commit, date)) => format!(", on {date} (commit {})", short(commit)),
                    None => String::new(),
                },
                d.reasons.join("; ")
            )
        } else if d.reasons.iter().map(String::as_str).eq(self.reasons()) {
            format!("Did not meet the checklist at {at}")
        } else {
            format!(
                "Did not meet the checklist at {at}; there: {}",
                d.reasons.join("; ")
            )
        })
    }

    /// This checklist at another deadline: the same facts, each item kept
    /// when `freeze` checks it and weighted as `freeze` weighs it.
    pub fn at(&self, freeze: Freeze) -> Readiness {
        let items = weigh(self.items.clone(), freeze);
        Readiness {
            freeze,
            ready: meets(&items),
            items,
            frozen: false,
            deadline: None,
            not_checked: None,
            ..self.clone()
        }
    }
}

impl Serialize for Readiness {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Shape<'a> {
            freeze: Freeze,
            name: &'static str,
            release: &'a Release,
            stage: &'a Stage,
            ready: bool,
            items: &'a [Item],
            frozen: bool,
            prr_frozen: bool,
            deadline: &'a Option<AtDeadline>,
            verdict: Verdict,
            label: String,
            basis: Option<String>,
        }
        Shape {
            freeze: self.freeze,
            name: self.freeze.name(self.release),
            release: &self.release,
            stage: &self.stage,
            ready: self.ready,
            items: &self.items,
            frozen: self.frozen,
            prr_frozen: self.prr_frozen,
            deadline: &self.deadline,
            verdict: self.verdict(),
            label: self.label(),
            basis: self.basis(),
        }
        .serialize(s)
    }
}

fn short(commit: &str) -> &str {
    commit.get(..10).unwrap_or(commit)
}

/// A KEP's checklist at a deadline.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AtDeadline {
    /// The deadline, `YYYY-MM-DD HH:MM UTC`.
    pub at: String,
    /// The last first-parent commit before it.
    pub commit: String,
    /// Every required item passed there.
    pub ready: bool,
    /// What failed there.
    pub reasons: Vec<String>,
    /// The ids of the items that failed there.
    pub failing: Vec<CheckId>,
    /// Met late, with history: the first change after the deadline that
    /// set the kep.yaml items that failed there, (commit, date).
    pub met: Option<(String, String)>,
}

/// The statuses that pass the freeze checklist for `stage`: implementable;
/// withdrawn for a deprecation or removal (the handbook: such a KEP has
/// `status: withdrawn` and latest-milestone set to the release).
pub fn status_ok(status: &Status, stage: &Stage) -> bool {
    match status {
        Status::Implementable => true,
        Status::Withdrawn => stage.is_deprecation(),
        _ => false,
    }
}

/// The Enhancements Freeze checklist for `kep` going `stage` in `release`.
pub fn readiness(
    model: &Model,
    kep: &Kep,
    a: &KepAnalysis,
    release: Release,
    stage: &Stage,
) -> Readiness {
    checklist(model, kep, a, release, stage, Freeze::Enhancements)
}

/// `freeze`'s checklist for `kep` going `stage` in `release`.
pub fn checklist(
    model: &Model,
    kep: &Kep,
    a: &KepAnalysis,
    release: Release,
    stage: &Stage,
    freeze: Freeze,
) -> Readiness {
    let items = weigh(facts(model, kep, a, release, stage), freeze);
    Readiness {
        freeze,
        release,
        stage: stage.clone(),
        ready: meets(&items),
        items,
        frozen: false,
        prr_frozen: false,
        deadline: None,
        not_checked: None,
    }
}

/// Whether a checklist of `items` is met: every required item passes
/// (advice never decides).
pub fn meets(items: &[Item]) -> bool {
    items.iter().all(passes)
}

/// Whether `items` would be met but for item `aside` (an open pull request
/// that would fix the rest: the one item its merge clears).
pub fn meets_but_for(items: &[Item], aside: CheckId) -> bool {
    items.iter().all(|i| passes(i) || i.id == aside)
}

/// Whether an item lets its checklist pass: it passes, or it is advice.
fn passes(i: &Item) -> bool {
    i.ok || !i.required
}

/// `items` as `freeze` checks them: those it checks, weighted as it weighs
/// them, in the table's order.
pub fn weigh(mut items: Vec<Item>, freeze: Freeze) -> Vec<Item> {
    items.retain_mut(|i| match freeze::check(i.id).weight_at(freeze) {
        Some(w) => {
            i.required = w == Weight::Required;
            true
        }
        None => false,
    });
    items.sort_by_key(|i| freeze::CHECKLIST.iter().position(|c| c.id == i.id));
    items
}

/// The checklist at `freeze` of a KEP of the release in progress that has
/// `stage` there. A KEP with no stage in it (latest-milestone only) is
/// checked at its own stage, and the milestone items are not held against
/// it.
pub fn checklist_in(
    model: &Model,
    kep: &Kep,
    a: &KepAnalysis,
    release: Release,
    stage: &Stage,
    freeze: Freeze,
) -> Readiness {
    if !stage.is_unset() {
        let mut r = checklist(model, kep, a, release, stage, freeze);
        if stage.is_deprecation() {
            // The questionnaire is about a feature going live; a
            // deprecation's PRR is its approval under `deprecated:`.
            for item in r
                .items
                .iter_mut()
                .filter(|i| i.id == CheckId::PrrQuestionnaire)
            {
                item.ok = true;
                item.detail = "a deprecation or removal: no questionnaire to fill out".into();
            }
            r.ready = meets(&r.items);
        }
        return r;
    }
    let own = kep.meta.stage.nearest().unwrap_or_default();
    let mut r = checklist(model, kep, a, release, &own, freeze);
    // Stable in an earlier release and implemented since: nothing to
    // graduate here, so implemented is the status it should have.
    let done = kep.meta.status == Status::Implemented
        && own == Stage::Stable
        && kep
            .meta
            .milestone
            .release(&own)
            .is_some_and(|r| r < release);
    for item in &mut r.items {
        match item.id {
            CheckId::StageMilestone
            | CheckId::StageMatches
            | CheckId::KepYaml
            | CheckId::PrrQuestionnaire
                if release.is(&kep.meta.latest_milestone) =>
            {
                item.ok = true;
                item.detail = "no stage change in this release".into();
            }
            CheckId::StatusImplementable if done => {
                item.ok = true;
                item.detail = "status is implemented: stable in an earlier release".into();
            }
            _ => {}
        }
    }
    r.ready = meets(&r.items);
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(id: CheckId, ok: bool, required: bool) -> Item {
        Item {
            id,
            ok,
            required,
            detail: String::new(),
        }
    }

    #[test]
    fn a_checklist_is_met_when_every_required_item_passes() {
        let advice = item(CheckId::LatestMilestone, false, false);
        let prs = item(CheckId::NoOpenPrs, false, true);
        assert!(meets(std::slice::from_ref(&advice)));
        assert!(!meets(&[advice.clone(), prs.clone()]));
        // an open PR that would fix the rest: met but for that item alone
        assert!(meets_but_for(
            &[advice.clone(), prs.clone()],
            CheckId::NoOpenPrs
        ));
        let status = item(CheckId::StatusImplementable, false, true);
        assert!(!meets_but_for(&[prs, status], CheckId::NoOpenPrs));
    }
}
