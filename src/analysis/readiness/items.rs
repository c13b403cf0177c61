//! The checklist's items from the files: one KEP ([`Model`], [`Kep`], its
//! [`KepAnalysis`]), a release and the stage it targets there → every
//! [`Item`] the files answer (kep.yaml, the PRR approval and questionnaire,
//! the README), unweighted: [`weigh`](super::weigh) keeps and weighs them
//! for a deadline.

use super::{Item, status_ok};
use crate::analysis::KepAnalysis;
use crate::analysis::completeness::PrrTarget;
use crate::analysis::freeze::{CheckId, Checkbox};
use crate::kep::Kep;
use crate::kep::domain::{Release, Stage, Status};
use crate::model::Model;

/// Every item the files answer, for any deadline (unweighted).
pub(super) fn facts(
    model: &Model,
    kep: &Kep,
    a: &KepAnalysis,
    release: Release,
    stage: &Stage,
) -> Vec<Item> {
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
                CheckId::PrrApproved
                    | CheckId::TestPlanCheckbox
                    | CheckId::RequiredSections
                    | CheckId::PrrQuestionnaire
            ) {
                i.ok = true;
                i.detail = "not needed for a deprecation or removal by withdrawal".into();
            }
        }
    }
    items
}

/// A checklist item whose detail is `pass` or `fail` as `ok` says; required
/// as the checklist table says.
fn item(id: CheckId, ok: bool, pass: String, fail: String) -> Item {
    Item {
        id,
        ok,
        required: false,
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
            CheckId::StatusImplementable,
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
            CheckId::LatestMilestone,
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
            CheckId::StageMilestone,
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
        stage_matches(kep, release, stage),
        kep_yaml(
            kep,
            release,
            stage,
            stage_in_release,
            release.is(&m.latest_milestone) || moved_on,
        ),
    ]
}

/// Whether kep.yaml's `stage` is the stage the KEP targets in the release
/// (the template: "the current stage this KEP is targeting"); a withdrawal
/// and a KEP with no stage change have nothing to match.
fn stage_matches(kep: &Kep, release: Release, stage: &Stage) -> Item {
    let m = &kep.meta;
    let own = m.stage.nearest();
    let nothing_to_match =
        stage.is_unset() || (m.status == Status::Withdrawn && stage.is_deprecation());
    let ok = nothing_to_match || own.as_ref() == stage.nearest().as_ref();
    item(
        CheckId::StageMatches,
        ok,
        if nothing_to_match {
            "no stage to match".to_string()
        } else {
            format!("stage is {stage}")
        },
        format!(
            "stage is {}, but the KEP targets {stage} in {release} (set `stage: {stage}`)",
            or_none(m.stage.as_str())
        ),
    )
}

/// The PRR Freeze's kep.yaml check: `stage`, `latest-milestone` and the
/// `milestone` struct filled out for the release.
fn kep_yaml(
    kep: &Kep,
    release: Release,
    stage: &Stage,
    milestone_ok: bool,
    latest_ok: bool,
) -> Item {
    let m = &kep.meta;
    let withdrawal = m.status == Status::Withdrawn && stage.is_deprecation();
    let mut gaps: Vec<String> = Vec::new();
    if !latest_ok {
        gaps.push(format!(
            "latest-milestone is {}, not {release}",
            or_none(&m.latest_milestone)
        ));
    }
    if !withdrawal && !stage.is_unset() {
        if m.stage.is_unset() {
            gaps.push(format!("no `stage` (the KEP targets {stage})"));
        } else if m.stage.nearest().as_ref() != stage.nearest().as_ref() {
            gaps.push(format!("stage is {}, not {stage}", m.stage));
        }
        if m.milestone.entries().is_empty() {
            gaps.push(format!(
                "no `milestone:` struct (milestone.{stage}: {release})"
            ));
        } else if !milestone_ok {
            gaps.push(format!(
                "milestone.{stage} is {}, not {release}",
                or_none(m.milestone.get(stage))
            ));
        }
    }
    item(
        CheckId::KepYaml,
        gaps.is_empty(),
        format!("kep.yaml has stage, latest-milestone and milestone for {release}"),
        format!("kep.yaml: {}", gaps.join("; ")),
    )
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
            CheckId::PrrApproved,
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
            CheckId::PrrQuestionnaire,
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
        item(CheckId::TestPlanCheckbox, checked, pass, fail),
        item(
            CheckId::RequiredSections,
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
            CheckId::FollowsTemplate,
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
