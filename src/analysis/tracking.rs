//! Per-KEP analysis and stage tracking: [`Model`] → [`Analysis`] (README
//! completeness against the template, PRR completeness per stage, the
//! release and stage each KEP targets, readiness items) and
//! ([`Model`], [`Analysis`]) → per-release lists ([`Release`]).

use rayon::prelude::*;
use serde::Serialize;

use super::calendar::{self, Current};
use super::completeness::{Assessment, PrrTarget, assess};
use super::outcome::{self, Phase};
use super::template::{self, Template};
use crate::kep::Kep;
use crate::kep::document::{self, TocMismatch};
use crate::kep::domain::{Release, Stage, Status};
use crate::model::Model;

/// Whether the PRR questionnaire is complete and approved, per stage.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct StageFlags {
    /// Alpha.
    pub alpha: bool,
    /// Beta.
    pub beta: bool,
    /// Stable.
    pub stable: bool,
}

/// One item of the Enhancements Freeze checklist.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Item {
    /// Stable id, e.g. `prr-approved`.
    pub id: &'static str,
    /// Whether it passes.
    pub ok: bool,
    /// What was found, for people.
    pub detail: String,
}

/// Readiness of one KEP for one (release, stage).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
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
}

impl Readiness {
    /// `Ready` or `At risk`; past the Enhancements Freeze, `Tracked` or
    /// `Missed the freeze`.
    pub fn label(&self) -> &'static str {
        match (self.ready, self.frozen) {
            (true, false) => "Ready",
            (false, false) => "At risk",
            (true, true) => "Tracked",
            (false, true) => "Missed the freeze",
        }
    }

    /// The failing items' details.
    pub fn reasons(&self) -> Vec<&str> {
        self.items
            .iter()
            .filter(|i| !i.ok)
            .map(|i| i.detail.as_str())
            .collect()
    }
}

/// Everything the analysis knows about one KEP.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct KepAnalysis {
    /// README sections against the template, PRR questionnaire coverage.
    pub assessment: Assessment,
    /// PRR approved (valid approver in the prod-readiness file) per stage.
    pub prr_approved: StageFlags,
    /// PRR complete = questionnaire complete and approved, per stage.
    pub prr_complete: StageFlags,
    /// PRR complete for the KEP's current (or targeted) stage; `None` when it has no stage.
    pub prr_complete_current: Option<bool>,
    /// The release the KEP targets next (latest-milestone of an implementable KEP).
    pub target_release: Option<Release>,
    /// The stage it targets there.
    pub target_stage: Option<Stage>,
    /// Readiness for the targeted release and stage.
    pub readiness: Option<Readiness>,
    /// Where the targeted release stands: in progress, planned, or out
    /// (a stale target).
    pub target_phase: Option<Phase>,
    /// The first sentences of the README's Summary, as plain text (read
    /// here, once, while the README text is at hand).
    #[serde(skip)]
    pub summary: String,
    /// Table-of-contents entries that no longer match the headings.
    #[serde(skip)]
    pub toc_mismatches: Vec<TocMismatch>,
}

/// The analysis of every KEP, in model order.
#[derive(Debug, Clone, Serialize)]
pub struct Analysis {
    /// `repository` when keps/NNNN-kep-template/README.md carries directives, else `builtin`.
    pub template_source: &'static str,
    /// The template used.
    #[serde(skip)]
    pub template: Template,
    /// One entry per `model.keps` entry, same order.
    pub keps: Vec<KepAnalysis>,
    /// The release in progress at the snapshot.
    pub current: Current,
}

impl Analysis {
    /// The analysis of `kep` (which must belong to the analysed model).
    pub fn of(&self, model: &Model, kep: &Kep) -> Option<&KepAnalysis> {
        // O(1): `kep` is an element of `model.keps`, so its offset is its index.
        let size = std::mem::size_of::<Kep>().max(1);
        let offset = (kep as *const Kep as usize).checked_sub(model.keps.as_ptr() as usize)?;
        let i = offset / size;
        let same = model.keps.get(i).is_some_and(|k| std::ptr::eq(k, kep));
        same.then(|| self.keps.get(i)).flatten()
    }
}

/// The template to assess READMEs against: the repository's own when it
/// carries DIRECTIVE markers, else the built-in table; with the guidance text
/// of the repository's template README (see [`template::for_repository`]).
pub fn template_for(model: &Model) -> (Template, &'static str) {
    template::for_repository(model.template_readme.as_deref())
}

/// Analyse every KEP in parallel, with the release in progress read from
/// the calendar at the snapshot's date.
pub fn analyze(model: &Model) -> Analysis {
    analyze_for(model, model.current_release)
}

/// [`analyze`], with `release` (`--release`) as the release in progress
/// when given.
pub fn analyze_for(model: &Model, release: Option<Release>) -> Analysis {
    let today = model.source.time.and_then(calendar::utc_day);
    let current = calendar::current(&model.keps, today, release);
    let (template, source) = template_for(model);
    let keps = model
        .keps
        .par_iter()
        .map(|k| analyze_kep(model, &template, k, &current))
        .collect();
    Analysis {
        template_source: source,
        template,
        keps,
        current,
    }
}

/// The stage whose requirements apply: the stage, or alpha for an
/// implementable KEP that has not named one.
fn effective_stage(kep: &Kep) -> Option<Stage> {
    let m = &kep.meta;
    if !m.stage.is_unset() {
        Some(m.stage.clone())
    } else if m.status == Status::Implementable {
        Some(Stage::Alpha)
    } else {
        None
    }
}

/// Whether the KEP has a PRR approval for `stage` by a PRR approver.
pub(crate) fn approved(model: &Model, kep: &Kep, stage: &Stage) -> bool {
    model
        .prr_for(kep)
        .and_then(|p| p.approval(stage))
        .is_some_and(|a| model.aliases.is_prr_approver_or_emeritus(&a.approver))
}

/// Analyse one KEP of `model` against `template` (from [`template_for`]);
/// `serve` re-analyses only the KEP that changed.
pub fn analyze_kep(
    model: &Model,
    template: &Template,
    kep: &Kep,
    current: &Current,
) -> KepAnalysis {
    let doc = document::parse(&kep.readme);
    let stage = effective_stage(kep);
    let mut assessment = assess(&doc, template, stage.as_ref());
    // Lines are relative to the README body; single-file KEPs have front matter before it.
    if kep.readme_offset > 0 {
        for c in [
            &mut assessment.prr.alpha,
            &mut assessment.prr.beta,
            &mut assessment.prr.stable,
            &mut assessment.template_completeness,
        ] {
            for u in &mut c.unanswered {
                u.line = u.line.map(|l| l + kep.readme_offset);
            }
        }
    }
    let prr_approved = StageFlags {
        alpha: approved(model, kep, &Stage::Alpha),
        beta: approved(model, kep, &Stage::Beta),
        stable: approved(model, kep, &Stage::Stable),
    };
    let q = &assessment.prr;
    let prr_complete = StageFlags {
        alpha: prr_approved.alpha && q.alpha.unanswered.is_empty(),
        beta: prr_approved.beta && q.beta.unanswered.is_empty(),
        stable: prr_approved.stable && q.stable.unanswered.is_empty(),
    };
    let prr_complete_current = stage
        .as_ref()
        .and_then(PrrTarget::from_stage)
        .map(|t| match t {
            PrrTarget::Alpha => prr_complete.alpha,
            PrrTarget::Beta => prr_complete.beta,
            PrrTarget::Stable => {
                // Deprecation stages are approved under their own key.
                let approved_here = match stage.as_ref().and_then(Stage::nearest) {
                    Some(key) if key.is_deprecation() => approved(model, kep, &key),
                    _ => prr_approved.stable,
                };
                approved_here && q.stable.unanswered.is_empty()
            }
        });
    let m = &kep.meta;
    let (target_release, target_stage) = match m.latest_release() {
        Some(r) if m.status == Status::Implementable && r.is_v1() => (Some(r), stage),
        _ => (None, None),
    };
    let mut out = KepAnalysis {
        assessment,
        prr_approved,
        prr_complete,
        prr_complete_current,
        target_release,
        target_stage,
        readiness: None,
        target_phase: target_release.map(|r| outcome::phase(current, r)),
        summary: document::blurb(document::summary_section(&kep.readme)),
        toc_mismatches: document::toc_mismatches(&doc),
    };
    if let (Some(r), Some(s)) = (out.target_release, out.target_stage.clone()) {
        let mut ready = readiness(model, kep, &out, r, &s);
        ready.frozen = r == current.release && outcome::past_enhancements_freeze(current);
        out.readiness = Some(ready);
    }
    out
}

/// The statuses that pass the freeze checklist for `stage`: implementable,
/// plus implemented for a KEP graduating to stable (it may be marked
/// implemented once it lands) and withdrawn for a removal.
pub fn status_ok(status: &Status, stage: &Stage) -> bool {
    match status {
        Status::Implementable => true,
        Status::Implemented => *stage == Stage::Stable,
        Status::Withdrawn => *stage == Stage::Removed,
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
    items.extend(readme_items(kep, a));
    Readiness {
        release,
        stage: stage.clone(),
        ready: items.iter().all(|i| i.ok),
        items,
        frozen: false,
    }
}

/// A checklist item whose detail is `pass` or `fail` as `ok` says.
fn item(id: &'static str, ok: bool, pass: String, fail: String) -> Item {
    Item {
        id,
        ok,
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
                if *stage == Stage::Removed {
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
            format!("PRR questionnaire complete for {q_stage}"),
            format!(
                "PRR questionnaire {}/{} answered for {q_stage}",
                questionnaire.answered, questionnaire.required
            ),
        ),
    ]
}

/// The Test Plan, Graduation Criteria and template items of the README.
fn readme_items(kep: &Kep, a: &KepAnalysis) -> [Item; 3] {
    [
        item(
            "test-plan",
            a.assessment.test_plan_answered,
            "Test Plan answered".into(),
            "Test Plan not answered".into(),
        ),
        item(
            "graduation-criteria",
            a.assessment.graduation_criteria_answered,
            "Graduation Criteria answered".into(),
            "Graduation Criteria not answered".into(),
        ),
        item(
            "follows-template",
            a.assessment.follows_template,
            "README follows the current template".into(),
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
