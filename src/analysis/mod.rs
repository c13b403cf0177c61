//! Analysis: pure functions from the loaded [`crate::model::Model`] to
//! findings, PRR and template completeness, freeze readiness and release
//! outcomes. It reads no git and no file (the source layer, `crate::repo`,
//! does). The root holds what every part shares: [`Analysis`] and
//! [`KepAnalysis`], and `analyze`, which fills them (a step of
//! [`Project::load`](crate::project::Project::load)).
//!
//! Per-KEP analysis and stage tracking: [`Model`] → [`Analysis`] (README
//! completeness against the template, PRR completeness per stage, the
//! release and stage each KEP targets, readiness items) and
//! ([`Model`], [`Analysis`]) → per-release lists ([`Release`]).

pub mod board;
pub mod calendar;
pub mod code;
pub mod completeness;
pub mod deadline;
pub mod findings;
pub mod freeze;
pub mod outcome;
pub mod readiness;
pub mod stage;
pub mod template;

use rayon::prelude::*;
use serde::Serialize;

use self::calendar::Current;
use self::completeness::{Assessment, PrrTarget};
use self::deadline::Deadline;
use self::freeze::Facts;
use self::outcome::Phase;
pub use self::readiness::{AtDeadline, Item, Readiness, Verdict, readiness, status_ok};
use self::template::Template;
use crate::kep::Kep;
use crate::kep::document::{self, Document, TocMismatch};
use crate::kep::domain::{Release, Stage, Status};
use crate::model::{KepId, Model};
use crate::repo::history::History;
use crate::team::Freeze;

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
    /// What the Enhancements Freeze reads from the README.
    pub freeze: Facts,
}

impl KepAnalysis {
    /// [`Analysis::set_deadline`] for one KEP, `kep`: when its readiness is
    /// for the deadline's release (and frozen), how it stood at `deadline`.
    pub fn set_deadline(
        &mut self,
        kep: &Kep,
        history: Option<&History>,
        deadline: &Deadline,
        current: &Current,
    ) {
        if let Some(r) = self.readiness.as_mut()
            && r.frozen
            && r.release == deadline.release
        {
            let hist = outcome::history_of(history, kep);
            r.deadline = Some(deadline.of(kep, hist, current));
        }
    }
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
    /// The deadlines of the release in progress that have passed (PRR
    /// Freeze, Enhancements Freeze), with git: each KEP's checklist there
    /// (see [`deadline`](super::deadline)).
    pub deadlines: Vec<Deadline>,
}

impl Analysis {
    /// Take the Enhancements Freeze verdicts at `deadline`: every KEP's
    /// readiness for the deadline's release learns how it stood there (with
    /// `history`, when it met the checklist later), as the release views do.
    pub fn set_deadline(&mut self, model: &Model, history: Option<&History>, deadline: Deadline) {
        let current = self.current;
        if deadline.freeze == Freeze::Enhancements {
            for (kep, a) in model.keps.iter().zip(&mut self.keps) {
                a.set_deadline(kep, history, &deadline, &current);
            }
        }
        self.deadlines.retain(|d| d.freeze != deadline.freeze);
        self.deadlines.push(deadline);
        self.deadlines.sort_by_key(|d| d.freeze);
    }

    /// The judgement at `freeze`'s deadline, when taken.
    pub fn deadline(&self, freeze: Freeze) -> Option<&Deadline> {
        self.deadlines.iter().find(|d| d.freeze == freeze)
    }

    /// The analysis of the KEP `id` of the analysed model.
    pub fn of(&self, id: KepId) -> Option<&KepAnalysis> {
        self.keps.get(id.0)
    }
}

/// The template to assess READMEs against: the repository's own when it
/// carries DIRECTIVE markers, else the built-in table; with the guidance text
/// of the repository's template README (see [`template::for_repository`]).
pub fn template_for(model: &Model) -> (Template, &'static str) {
    template::for_repository(model.template_readme.as_deref())
}

/// Analyse every KEP in parallel, with `release` (`--current`, the
/// model's `current_release`) as the release in progress when given, else
/// the calendar's at the snapshot's date. With `readmes`, only the KEPs it
/// marks (model order) are analysed with their READMEs and the others
/// without one (an empty document): a reader of some KEPs (one release's
/// report) parses no other README. A step of `Project::load`, the public
/// way to an analysis.
pub(crate) fn analyze(
    model: &Model,
    release: Option<Release>,
    readmes: Option<&[bool]>,
) -> Analysis {
    let read = |i: usize| readmes.is_none_or(|r| r.get(i).copied().unwrap_or(false));
    analyze_each(model, release, |template, current, (i, k)| match read(i) {
        true => analyze_kep(model, template, k, current),
        false => analyze_kep_of(model, template, k, &Document::default(), current),
    })
}

/// The analysis of `model` with each KEP's made by `each` (in parallel).
fn analyze_each(
    model: &Model,
    release: Option<Release>,
    each: impl Fn(&Template, &Current, (usize, &Kep)) -> KepAnalysis + Sync,
) -> Analysis {
    let current = current_of(model, release);
    let (template, source) = template_for(model);
    let keps = model
        .keps
        .par_iter()
        .enumerate()
        .map(|k| each(&template, &current, k))
        .collect();
    Analysis {
        template_source: source,
        template,
        keps,
        current,
        deadlines: Vec::new(),
    }
}

/// What `check`'s README rules read of [`analyze`]: every KEP's table
/// of contents compared, and the README assessed against the template
/// (the questionnaire) for the KEPs `assess` picks; nothing else (no
/// readiness, freeze facts or Summary). Assessing every README was 42 ms of
/// the analysis' 130 ms of CPU on the corpus.
pub(crate) fn analyze_for_rules(
    model: &Model,
    release: Option<Release>,
    assess: impl Fn(&Kep) -> bool + Sync,
) -> Analysis {
    analyze_each(model, release, |template, _, (_, k)| {
        let mut a = toc_only(k);
        if assess(k) {
            a.assessment = assessment_of(model, template, k, k.doc());
        }
        a
    })
}

/// The release in progress at the snapshot's date (`release` when given),
/// as the analysis takes it: from the files and the calendar, no README.
pub fn current_of(model: &Model, release: Option<Release>) -> Current {
    let today = model.source.time.and_then(calendar::utc_day);
    calendar::current_at(&model.keps, today, model.source.time, release)
}

/// The number of the KEP whose questionnaire `kep`'s README (`doc`)
/// hands over to.
fn delegate_of(model: &Model, kep: &Kep, doc: &Document) -> Option<u32> {
    let template = model.template_readme.as_deref().unwrap_or_default();
    completeness::delegated_kep(doc, kep.number(), template)
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

/// The KEPs whose READMEs the load left unread and to which a KEP that
/// `picked` picks, its README read, hands its questionnaire over
/// (numbers, sorted, each once): a freeze deadline's load reads them too,
/// as a reviewer follows the link.
pub(crate) fn unread_delegates(model: &Model, picked: &(dyn Fn(&Kep) -> bool + Sync)) -> Vec<u32> {
    let mut out: Vec<u32> = model
        .keps
        .par_iter()
        .filter(|k| picked(k) && k.readme.is_read())
        .filter_map(|k| delegate_of(model, k, k.doc()))
        .filter(|&n| model.kep(n).is_some_and(|d| !d.readme.is_read()))
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// The README of the KEP whose questionnaire `kep`'s README (`doc`) hands
/// over to (read there, as a PRR reviewer follows the link), when the
/// load read it.
fn handed_over_to<'m>(model: &'m Model, kep: &Kep, doc: &Document) -> Option<&'m Document> {
    let n = delegate_of(model, kep, doc)?;
    let other = model.kep(n)?;
    other.readme.is_read().then(|| other.doc())
}

/// `kep`'s README `doc` assessed against `template` at its stage, its
/// questionnaire read where it hands it over, lines in the README's file.
fn assessment_of(model: &Model, template: &Template, kep: &Kep, doc: &Document) -> Assessment {
    let stage = effective_stage(kep);
    let delegate = handed_over_to(model, kep, doc);
    let mut assessment = completeness::assess_delegated(doc, template, stage.as_ref(), delegate);
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
    assessment
}

/// The analysis of a KEP whose README is not assessed
/// ([`analyze_for_rules`]): its table of contents compared, nothing else.
fn toc_only(kep: &Kep) -> KepAnalysis {
    KepAnalysis {
        assessment: Assessment::default(),
        prr_approved: StageFlags::default(),
        prr_complete: StageFlags::default(),
        prr_complete_current: None,
        target_release: None,
        target_stage: None,
        readiness: None,
        target_phase: None,
        summary: String::new(),
        toc_mismatches: document::toc_mismatches(kep.doc()),
        freeze: Default::default(),
    }
}

/// Analyse one KEP of `model` against `template` (from [`template_for`]);
/// `serve` re-analyses only the KEP that changed.
pub(crate) fn analyze_kep(
    model: &Model,
    template: &Template,
    kep: &Kep,
    current: &Current,
) -> KepAnalysis {
    analyze_kep_of(model, template, kep, kep.doc(), current)
}

/// [`analyze_kep`] with `doc` as its README.
fn analyze_kep_of(
    model: &Model,
    template: &Template,
    kep: &Kep,
    doc: &Document,
    current: &Current,
) -> KepAnalysis {
    let stage = effective_stage(kep);
    let assessment = assessment_of(model, template, kep, doc);
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
        summary: doc.blurb(),
        toc_mismatches: document::toc_mismatches(doc),
        freeze: freeze::facts(doc),
    };
    if let (Some(r), Some(s)) = (out.target_release, out.target_stage.clone()) {
        let mut ready = readiness(model, kep, &out, r, &s);
        ready.frozen = r == current.release && outcome::past_enhancements_freeze(current);
        ready.prr_frozen = r == current.release && outcome::past_prr_freeze(current);
        out.readiness = Some(ready);
    }
    out
}
