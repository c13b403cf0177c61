//! A parsed README ([`Document`]) against the KEP [`Template`] → [`Assessment`]:
//! which template sections are present and answered, which required ones are
//! missing, and how complete the Production Readiness Review questionnaire is
//! for the alpha, beta and stable targets.
//!
//! Sections are matched by normalised heading text anywhere in the README,
//! because KEPs renumber headings, change their level and add their own.

mod answer;
mod count;
mod groups;
mod inline;
mod matching;
mod placeholders;

use crate::analysis::template::{PrrStage, Template, TemplateSection};
use crate::kep::document::Document;
use crate::kep::domain::Stage;
use serde::Serialize;
use std::cell::OnceCell;

pub use crate::analysis::template::{Guidance, normalize_heading};
pub use answer::{Reading, answers, is_answered, no_reason_given};
use count::{completeness, nearest_lines, prr_questionnaire};
pub use groups::delegated_kep;
use matching::match_sections;

/// The stage a KEP targets, for deciding which PRR questions must be answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PrrTarget {
    /// Alpha: questions marked `stage: alpha`.
    Alpha,
    /// Beta: questions marked `stage: alpha` or `stage: beta`.
    Beta,
    /// Stable (also deprecated, disabled, removed): as beta.
    Stable,
}

impl PrrTarget {
    /// The questionnaire a stage answers: stable and the deprecation
    /// stages → Stable, beta → Beta, alpha → Alpha; an invalid value is read
    /// by [`Stage::nearest`] (so `alpha (deprecated)` is Stable). Unset, or no
    /// stage word, → `None`.
    pub fn from_stage(stage: &Stage) -> Option<PrrTarget> {
        match stage.nearest()? {
            Stage::Alpha => Some(PrrTarget::Alpha),
            Stage::Beta => Some(PrrTarget::Beta),
            _ => Some(PrrTarget::Stable),
        }
    }

    /// Whether a section marked `stage` is required at this target.
    pub fn requires(self, stage: PrrStage) -> bool {
        match stage {
            PrrStage::Alpha => true,
            PrrStage::Beta => self >= PrrTarget::Beta,
        }
    }
}

/// One template section as found in the README.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SectionStatus {
    /// Template heading.
    pub title: String,
    /// Template heading level.
    pub level: u8,
    /// Required by the template directive.
    pub required: bool,
    /// Stage from which the template requires it.
    pub prr_stage: Option<PrrStage>,
    /// Part of the PRR questionnaire.
    pub in_prr: bool,
    /// A README heading matched it.
    pub present: bool,
    /// The matched section (or a custom subsection of it) has an answer.
    pub answered: bool,
    /// Answered with a bare "N/A" and no reason (a PRR question): it counts,
    /// and a reviewer may still ask why.
    pub no_reason: bool,
    /// Line of the matched README heading.
    pub line: Option<usize>,
}

/// One template section's state in a README, as an [`Assessment`] keeps it
/// (in template order; the section's title, level and directive are the
/// template's, [`Template::sections`]): sixty a KEP, so a [`SectionStatus`]
/// with a copy of the template's fields was 40 MB of the 10x corpus's
/// analysis.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct SectionState {
    /// A README heading matched it.
    pub present: bool,
    /// The matched section (or a custom subsection of it) has an answer.
    pub answered: bool,
    /// Line of the matched README heading.
    pub line: Option<usize>,
}

/// A required section or question without an answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Unanswered {
    /// Template heading (the question, for PRR).
    pub title: String,
    /// Line of the README heading (or bold question); when it is missing,
    /// the line of the nearest enclosing heading, else of the first heading
    /// (1 when there is none). Always `Some`.
    pub line: Option<usize>,
}

/// Answered versus required for one set of sections.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Completeness {
    /// Number of required sections or questions.
    pub required: usize,
    /// How many of them are answered.
    pub answered: usize,
    /// `answered * 100 / required`, rounded down; 100 when nothing is required.
    pub percent: u8,
    /// The required ones without an answer, in template order.
    pub unanswered: Vec<Unanswered>,
    /// The required ones answered only "N/A", with no reason given: they
    /// count; lighter advice for a reviewer who may ask why.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub no_reason: Vec<Unanswered>,
}

/// PRR questionnaire completeness for each target stage.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct PrrQuestionnaire {
    /// Questions required for alpha.
    pub alpha: Completeness,
    /// Questions required for beta.
    pub beta: Completeness,
    /// Questions required for stable.
    pub stable: Completeness,
}

impl PrrQuestionnaire {
    /// The questions a KEP answers going to `stage` (alpha's for an unset
    /// or unreadable stage).
    pub fn at(&self, stage: &Stage) -> &Completeness {
        match PrrTarget::from_stage(stage) {
            Some(PrrTarget::Beta) => &self.beta,
            Some(PrrTarget::Stable) => &self.stable,
            Some(PrrTarget::Alpha) | None => &self.alpha,
        }
    }
}

/// A README assessed against the template.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Assessment {
    /// The target read from the stage passed to [`assess`].
    pub target: Option<PrrTarget>,
    /// Every template section's state, in template order. Not in the JSON
    /// records (`export`, `query`, the site's `keps.json`): sixty entries a
    /// KEP, 6 MB of the corpus site, which `missing_sections`, the
    /// completeness and the questionnaire sum up.
    #[serde(skip)]
    pub sections: Vec<SectionState>,
    /// Titles of required sections (at the target) with no matching heading.
    pub missing_sections: Vec<String>,
    /// Required sections outside the PRR questionnaire (at the target).
    pub template_completeness: Completeness,
    /// The questionnaire, for every target.
    pub prr: PrrQuestionnaire,
    /// `Test Plan` or any section below it is answered.
    pub test_plan_answered: bool,
    /// `Graduation Criteria` or any section below it is answered.
    pub graduation_criteria_answered: bool,
    /// No required section is missing.
    pub follows_template: bool,
}

/// Assesses `doc` against `template` for a KEP at `stage` (a kep.yaml stage,
/// read with [`PrrTarget::from_stage`]).
///
/// Stage-gated sections (`stage: alpha|beta` directives) count as required only
/// when the stage reaches them; with no stage (`None`, empty or unknown) only
/// ungated sections are required. Callers that want alpha requirements for an
/// `implementable` KEP without a stage pass `Some("alpha")`. The PRR figures
/// are reported for all three targets whatever the stage.
pub fn assess(doc: &Document, template: &Template, stage: Option<&Stage>) -> Assessment {
    assess_sections(doc, template, stage, None).0
}

/// [`assess`] of a README whose questionnaire hands over to another KEP's
/// (`delegate`, that KEP's README; see [`delegated_kep`]): the questions it
/// does not ask itself are read from there.
pub fn assess_delegated(
    doc: &Document,
    template: &Template,
    stage: Option<&Stage>,
    delegate: Option<&Document>,
) -> Assessment {
    assess_sections(doc, template, stage, delegate).0
}

/// [`assess`], with each template section's status in full.
pub(crate) fn assess_sections(
    doc: &Document,
    template: &Template,
    stage: Option<&Stage>,
    delegate: Option<&Document>,
) -> (Assessment, Vec<SectionStatus>) {
    let target = stage.and_then(PrrTarget::from_stage);
    let norms: Vec<String> = doc
        .sections
        .iter()
        .map(|s| normalize_heading(&s.title))
        .collect();
    let keys: Vec<String> = norms
        .iter()
        .map(|n| {
            let mut k = n.clone();
            k.retain(|c| c != ' ');
            k
        })
        .collect();
    let matched = match_sections(doc, &norms, &keys, template);
    let own = OwnAnswers::new(doc);
    let mut sections = section_statuses(doc, template, &matched, &own);
    if let Some(other) = delegate {
        let (_, theirs) = assess_sections(other, template, stage, None);
        groups::adopt(doc, template, &matched, &theirs, &mut sections);
    }
    groups::answered_as_a_group(doc, template, &matched, &own, &mut sections);

    let applies = |s: &SectionStatus| {
        s.required
            && s.prr_stage
                .is_none_or(|st| target.is_some_and(|t| t.requires(st)))
    };
    let missing_sections: Vec<String> = sections
        .iter()
        .filter(|s| applies(s) && !s.present)
        .map(|s| s.title.clone())
        .collect();
    let near = nearest_lines(doc, template, &sections);
    let template_completeness = completeness(
        sections
            .iter()
            .zip(&near)
            .filter(|(s, _)| applies(s) && !s.in_prr)
            .map(|(s, &l)| (s, l)),
    );
    let assessment = Assessment {
        target,
        follows_template: missing_sections.is_empty(),
        test_plan_answered: subtree_answered(doc, &keys, "testplan", &own),
        graduation_criteria_answered: subtree_answered(doc, &keys, "graduationcriteria", &own),
        missing_sections,
        template_completeness,
        prr: prr_questionnaire(template, &sections, &near),
        sections: sections
            .iter()
            .map(|s| SectionState {
                present: s.present,
                answered: s.answered,
                line: s.line,
            })
            .collect(),
    };
    (assessment, sections)
}

/// Each template section's status in the README: present (by heading, or
/// asked inline), answered, and where.
fn section_statuses(
    doc: &Document,
    template: &Template,
    matched: &[Option<usize>],
    own: &OwnAnswers,
) -> Vec<SectionStatus> {
    let mut is_template = vec![false; doc.sections.len()];
    for &di in matched.iter().flatten() {
        is_template[di] = true;
    }
    let asked_inline = inline_answers(doc, template, matched);
    template
        .sections
        .iter()
        .zip(matched)
        .zip(&asked_inline)
        .map(|((ts, m), inline)| {
            let (present, answered, line, no_reason) = match (m, inline) {
                (Some(di), _) => (
                    true,
                    (ts.level == 1 && ts.parent.is_none())
                        || own.get_as(*di, question_reading(ts))
                        || custom_subsection_answered(doc, *di, &is_template, own),
                    Some(doc.sections[*di].line),
                    ts.in_prr && no_reason_given(&doc.body(*di).text),
                ),
                (None, Some((answered, line, bare))) => (true, *answered, Some(*line), *bare),
                (None, None) => (false, false, None, false),
            };
            SectionStatus {
                title: ts.title.clone(),
                level: ts.level,
                required: ts.required,
                prr_stage: ts.prr_stage,
                in_prr: ts.in_prr,
                present,
                answered,
                no_reason: answered && no_reason,
                line,
            }
        })
        .collect()
}

/// For each PRR question without a heading of its own, whether it is asked
/// as a bold question in the text of its nearest matched enclosing section
/// (or below it), as the questionnaire's older form has it: (answered, line,
/// answered with a bare N/A).
fn inline_answers(
    doc: &Document,
    template: &Template,
    matched: &[Option<usize>],
) -> Vec<Option<(bool, usize, bool)>> {
    let mut out = vec![None; template.sections.len()];
    // the questions found below each README section, and which are taken
    let mut asked: Vec<(usize, Vec<inline::InlineQuestion>, Vec<bool>)> = Vec::new();
    for ti in template.prr_questions() {
        if matched[ti].is_some() {
            continue;
        }
        let mut parent = template.sections[ti].parent;
        let within = loop {
            match parent {
                Some(p) => match matched[p] {
                    Some(di) => break Some(di),
                    None => parent = template.sections[p].parent,
                },
                None => break None,
            }
        };
        let Some(di) = within else {
            continue;
        };
        let at = match asked.iter().position(|(d, _, _)| *d == di) {
            Some(at) => at,
            None => {
                let qs = inline::in_subtree(doc, di);
                let n = qs.len();
                asked.push((di, qs, vec![false; n]));
                asked.len() - 1
            }
        };
        let (_, qs, used) = &mut asked[at];
        if let Some(k) = inline::find(&template.sections[ti], qs, used) {
            used[k] = true;
            let reading = question_reading(&template.sections[ti]);
            out[ti] = Some((
                answers(&qs[k].answer, reading.unwrap_or_default()),
                qs[k].line,
                no_reason_given(&qs[k].answer),
            ));
        }
    }
    out
}

/// How a PRR question's answer is read ([`Reading`]); `None` for other sections.
fn question_reading(ts: &TemplateSection) -> Option<Reading<'_>> {
    ts.in_prr.then_some(Reading {
        question: true,
        guidance: &ts.guidance,
    })
}

/// [`is_answered`] of each README section's own body, computed on first use:
/// most custom sections are never asked about.
struct OwnAnswers<'a> {
    doc: &'a Document,
    cache: Vec<OnceCell<bool>>,
}

impl<'a> OwnAnswers<'a> {
    fn new(doc: &'a Document) -> Self {
        OwnAnswers {
            doc,
            cache: vec![OnceCell::new(); doc.sections.len()],
        }
    }

    /// [`OwnAnswers::get`] for a template section read as `reading`: PRR
    /// questions are read on their own, not cached.
    fn get_as(&self, i: usize, reading: Option<Reading>) -> bool {
        match (reading, i < self.doc.sections.len()) {
            (Some(r), true) => answers(&self.doc.body(i).text, r),
            _ => self.get(i),
        }
    }

    fn get(&self, i: usize) -> bool {
        match self.cache.get(i) {
            Some(cell) => *cell.get_or_init(|| is_answered(&self.doc.body(i).text)),
            None => false,
        }
    }
}

/// Whether a README subsection of `di` that is not itself a template section
/// (e.g. `High-level design` under `Proposal`) is answered; template
/// subsections are assessed on their own and not descended into.
fn custom_subsection_answered(
    doc: &Document,
    di: usize,
    is_template: &[bool],
    own: &OwnAnswers,
) -> bool {
    let mut stack: Vec<usize> = doc.sections[di].children.clone();
    while let Some(i) = stack.pop() {
        if is_template[i] {
            continue;
        }
        if own.get(i) {
            return true;
        }
        stack.extend(doc.sections[i].children.iter().copied());
    }
    false
}

/// Whether the first README section with key `k`, or any section below it, is answered.
fn subtree_answered(doc: &Document, keys: &[String], k: &str, own: &OwnAnswers) -> bool {
    keys.iter()
        .position(|s| s == k)
        .is_some_and(|i| own.get(i) || doc.descendants(i).into_iter().any(|d| own.get(d)))
}

#[cfg(test)]
mod tests;
