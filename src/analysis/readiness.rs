//! One KEP against the Enhancements Freeze checklist ([`freeze::CHECKLIST`]):
//! ([`Model`], [`Kep`], its [`KepAnalysis`], a release and the stage it
//! targets there) → [`Readiness`], each item required or advice, and the
//! verdict (Ready / At risk before the freeze; Tracked, Tracked late or
//! Missed the freeze after it, judged at the deadline).

use serde::Serialize;

use super::completeness::PrrTarget;
use super::freeze::{self, Checkbox, Weight};
use super::tracking::KepAnalysis;
use crate::kep::Kep;
use crate::kep::domain::{Release, Stage, Status};
use crate::model::Model;

/// One item of the Enhancements Freeze checklist (see [`freeze::CHECKLIST`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Item {
    /// Stable id, e.g. `prr-approved`.
    pub id: &'static str,
    /// Whether it passes.
    pub ok: bool,
    /// Whether it decides the verdict (an official checklist item) or is
    /// advice.
    pub required: bool,
    /// What was found, for people.
    pub detail: String,
}

/// Readiness of one KEP for one (release, stage). Serialized with its
/// verdict, label and basis beside the fields, so every export says the
/// verdict the pages show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Readiness {
    /// Release.
    pub release: Release,
    /// Stage targeted in it.
    pub stage: Stage,
    /// All items pass.
    pub ready: bool,
    /// Every checklist item.
    pub items: Vec<Item>,
    /// The release is in progress and past its Enhancements Freeze.
    pub frozen: bool,
    /// The release is in progress and past its PRR Freeze: unanswered
    /// questionnaire items are flagged for the PRR reviewers.
    pub prr_frozen: bool,
    /// Past the freeze: the checklist as it stood at the deadline (`None`
    /// when the deadline's files are not at hand: judged on these files).
    pub deadline: Option<AtDeadline>,
}

impl Readiness {
    /// `ready`, `at-risk`; past the Enhancements Freeze, `tracked`,
    /// `tracked-late` or `missed-freeze`.
    pub fn verdict(&self) -> &'static str {
        if !self.frozen {
            return if self.ready { "ready" } else { "at-risk" };
        }
        match &self.deadline {
            Some(d) if d.ready => "tracked",
            Some(_) if self.ready => "tracked-late",
            Some(_) => "missed-freeze",
            None if self.ready => "tracked",
            None => "missed-freeze",
        }
    }

    /// For people: `Ready`, `At risk`, `Tracked`, `Tracked late`, `Missed
    /// the freeze`.
    pub fn label(&self) -> &'static str {
        verdict_label(self.verdict())
    }

    /// The failing required items' details: why it is not Ready or Tracked.
    pub fn reasons(&self) -> Vec<&str> {
        self.failing().map(|i| i.detail.as_str()).collect()
    }

    /// The failing required items.
    pub fn failing(&self) -> impl Iterator<Item = &Item> {
        self.items.iter().filter(|i| i.required && !i.ok)
    }

    /// The failing advice items' details (never decide the verdict).
    pub fn advice(&self) -> Vec<&str> {
        self.items
            .iter()
            .filter(|i| !i.required && !i.ok)
            .map(|i| i.detail.as_str())
            .collect()
    }

    /// One line on how the verdict was taken, past the freeze.
    pub fn basis(&self) -> Option<String> {
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
}

impl Serialize for Readiness {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Shape<'a> {
            release: &'a Release,
            stage: &'a Stage,
            ready: bool,
            items: &'a [Item],
            frozen: bool,
            prr_frozen: bool,
            deadline: &'a Option<AtDeadline>,
            verdict: &'static str,
            label: &'static str,
            basis: Option<String>,
        }
        Shape {
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

/// The label of a verdict id (see [`Readiness::verdict`]).
pub fn verdict_label(id: &str) -> &'static str {
    match id {
        "ready" => "Ready",
        "at-risk" => "At risk",
        "tracked" => "Tracked",
        "tracked-late" => "Tracked late",
        _ => "Missed the freeze",
    }
}

fn short(commit: &str) -> &str {
    commit.get(..10).unwrap_or(commit)
}

/// A KEP's checklist at the Enhancements Freeze deadline.
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
    pub failing: Vec<&'static str>,
    /// Tracked late, with history: the first change after the deadline
    /// that set the kep.yaml items that failed there, (commit, date).
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
    let mut items = milestone_items(kep, release, stage);
    items.extend(prr_items(model, kep, a, stage));
    items.extend(readme_items(kep, a, stage));
    if kep.meta.status == Status::Withdrawn && stage.is_deprecation() {
        // The handbook: a deprecation or removal by withdrawal needs status
        // and latest-milestone; "No changes are needed to the PRR", and it
        // adds no code to test.
        for i in &mut items {
            if matches!(
                i.id,
                "prr-approved" | "test-plan-checkbox" | "required-sections"
            ) {
                i.ok = true;
                i.detail = "not needed for a deprecation or removal by withdrawal".into();
            }
        }
    }
    // Table order: the one checklist's.
    items.sort_by_key(|i| freeze::CHECKLIST.iter().position(|c| c.id == i.id));
    Readiness {
        release,
        stage: stage.clone(),
        ready: items.iter().all(|i| i.ok || !i.required),
        items,
        frozen: false,
        prr_frozen: false,
        deadline: None,
    }
}

/// A checklist item whose detail is `pass` or `fail` as `ok` says; required
/// as the checklist table says.
fn item(id: &'static str, ok: bool, pass: String, fail: String) -> Item {
    let required = freeze::check(id).is_some_and(|c| c.weight == Weight::Required);
    Item {
        id,
        ok,
        required,
        detail: if ok { pass } else { fail },
    }
}

/// The status, latest-milestone and stage-milestone items.
fn milestone_items(kep: &Kep, release: Release, stage: &Stage) -> Vec<Item> {
    let m = &kep.meta;
    let stage_in_release = m.milestone.release(stage) == Some(release);
    // A KEP that went through `stage` in `release` and has since moved on
    // (latest-milestone later) still went through it there.
    let moved_on = m.latest_release().is_some_and(|l| l > release) && stage_in_release;
    vec![
        item(
            "status-implementable",
            status_ok(&m.status, stage),
            format!("status is {}", m.status),
            format!(
                "status is {}, not implementable{}",
                or_none(m.status.as_str()),
                if stage.is_deprecation() {
                    " or withdrawn"
                } else {
                    ""
                }
            ),
        ),
        item(
            "latest-milestone",
            release.is(&m.latest_milestone) || moved_on,
            if moved_on {
                format!(
                    "latest-milestone is {}, after {stage} in {release}",
                    m.latest_milestone
                )
            } else {
                format!("latest-milestone is {release}")
            },
            format!(
                "latest-milestone is {}, not {release}",
                or_none(&m.latest_milestone)
            ),
        ),
        item(
            "stage-milestone",
            stage_in_release,
            format!("milestone.{stage} is {release}"),
            if stage.is_unset() {
                "no stage set".to_string()
            } else {
                format!(
                    "milestone.{stage} is {}, not {release}",
                    or_none(m.milestone.get(stage))
                )
            },
        ),
    ]
}

/// The PRR approval and PRR questionnaire items.
fn prr_items(model: &Model, kep: &Kep, a: &KepAnalysis, stage: &Stage) -> [Item; 2] {
    let questionnaire = a.assessment.prr.at(stage);
    let q_stage = if stage.is_unset() {
        "alpha"
    } else {
        stage.as_str()
    };
    let prr_file = model.prr_for(kep);
    let approval = prr_file.and_then(|p| p.approval(stage));
    let approval_ok =
        approval.is_some_and(|ap| model.aliases.is_prr_approver_or_emeritus(&ap.approver));
    [
        item(
            "prr-approved",
            approval_ok,
            format!(
                "PRR approved for {stage} by {}",
                approval.map(|a| a.approver.as_str()).unwrap_or("")
            ),
            match (prr_file, approval) {
                (None, _) => "no prod-readiness file".to_string(),
                (Some(_), None) if stage.is_unset() => "no stage to approve".to_string(),
                (Some(_), None) => format!("no PRR approver for {stage}"),
                (Some(_), Some(ap)) => {
                    format!("PRR approver {} is not a PRR approver", ap.approver)
                }
            },
        ),
        item(
            "prr-questionnaire",
            questionnaire.unanswered.is_empty(),
            format!("PRR questionnaire answered for {q_stage}"),
            format!(
                "PRR questionnaire {}/{} answered for {q_stage}",
                questionnaire.answered, questionnaire.required
            ),
        ),
    ]
}

/// The Test Plan checkbox, the required sections and the template items of
/// the README.
fn readme_items(kep: &Kep, a: &KepAnalysis, stage: &Stage) -> [Item; 3] {
    let line = |l: usize| l + kep.readme_offset;
    let (checked, pass, fail) = match a.freeze.checkbox {
        _ if kep.readme_path.is_none() => (
            false,
            String::new(),
            "no Test Plan checkbox (no README)".to_string(),
        ),
        Checkbox::Checked(l) => (true, format!("Test Plan checkbox checked (line {})", line(l)), String::new()),
        Checkbox::Unchecked(l) => (
            false,
            String::new(),
            format!(
                "Test Plan checkbox \"I/we understand the owners of the involved components may require updates to existing tests\" is unchecked (line {})",
                line(l)
            ),
        ),
        Checkbox::Absent => (
            false,
            String::new(),
            "Test Plan lacks the checkbox \"I/we understand the owners of the involved components may require updates to existing tests\"".to_string(),
        ),
    };
    let target = if stage.is_unset() {
        Some(PrrTarget::Alpha)
    } else {
        PrrTarget::from_stage(stage)
    };
    let missing = a.freeze.missing_for(target);
    [
        item("test-plan-checkbox", checked, pass, fail),
        item(
            "required-sections",
            kep.readme_path.is_some() && missing.is_empty(),
            "README has the sections required for the stage".into(),
            if kep.readme_path.is_none() {
                "no README".to_string()
            } else {
                format!(
                    "README lacks required section{}: {}",
                    if missing.len() == 1 { "" } else { "s" },
                    missing.join("; ")
                )
            },
        ),
        item(
            "follows-template",
            a.assessment.follows_template,
            "README follows the whole template".into(),
            if kep.readme_path.is_none() {
                "no README".to_string()
            } else {
                missing_sections(&a.assessment.missing_sections)
            },
        ),
    ]
}

/// "README lacks N template sections: a; b; c; and M more".
fn missing_sections(missing: &[String]) -> String {
    let shown: Vec<&str> = missing.iter().take(3).map(String::as_str).collect();
    format!(
        "README lacks {} template section{}: {}{}",
        missing.len(),
        if missing.len() == 1 { "" } else { "s" },
        shown.join("; "),
        if missing.len() > 3 {
            format!("; and {} more", missing.len() - 3)
        } else {
            String::new()
        }
    )
}

fn or_none(s: &str) -> &str {
    if s.is_empty() { "(none)" } else { s }
}
