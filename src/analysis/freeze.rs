//! The Enhancements Freeze checklist, as the release team applies it: a KEP
//! README ([`Document`] and its text) → [`Facts`] (the Test Plan checkbox and
//! which of the sections the freeze requires are present), and the one
//! [`CHECKLIST`] table every view reads its items from.
//!
//! Sources, followed literally: kubernetes/sig-release
//! `releases/release_phases.md` ("Enhancements Freeze"), the Enhancements
//! role handbook (`release-team/role-handbooks/enhancements/README.md`) and
//! the KEP template's "must be completed when targeting" notes. Required
//! items decide Tracked or Missed; advice items (questionnaire answers, the
//! seed template's completeness) never do. The Enhancements team checks that
//! each required section is *present*, not its content, so headings are
//! matched by meaning: reworded, merged ("Summary and Motivation"), numbered,
//! in another case or at another level.

use serde::Serialize;

use crate::analysis::completeness::PrrTarget;
use crate::kep::document::Document;
use crate::team::Freeze;

/// Whether a checklist item decides the verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Weight {
    /// Part of the official checklist: failing it misses the freeze.
    Required,
    /// Advice for authors and reviewers; never decides.
    Advice,
}

/// The id of a checklist item: one variant per row of [`CHECKLIST`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CheckId {
    /// `status-implementable`.
    StatusImplementable,
    /// `latest-milestone`.
    LatestMilestone,
    /// `prr-approved`.
    PrrApproved,
    /// `test-plan-checkbox`.
    TestPlanCheckbox,
    /// `required-sections`.
    RequiredSections,
    /// `no-open-prs`.
    NoOpenPrs,
    /// `stage-milestone`.
    StageMilestone,
    /// `stage-matches`.
    StageMatches,
    /// `prr-questionnaire`.
    PrrQuestionnaire,
    /// `follows-template`.
    FollowsTemplate,
    /// `kep-yaml`.
    KepYaml,
    /// `code-landed`.
    CodeLanded,
}

impl CheckId {
    /// Stable id: CSV column, filter key, JSON value.
    pub fn as_str(self) -> &'static str {
        match self {
            CheckId::StatusImplementable => "status-implementable",
            CheckId::LatestMilestone => "latest-milestone",
            CheckId::PrrApproved => "prr-approved",
            CheckId::TestPlanCheckbox => "test-plan-checkbox",
            CheckId::RequiredSections => "required-sections",
            CheckId::NoOpenPrs => "no-open-prs",
            CheckId::StageMilestone => "stage-milestone",
            CheckId::StageMatches => "stage-matches",
            CheckId::PrrQuestionnaire => "prr-questionnaire",
            CheckId::FollowsTemplate => "follows-template",
            CheckId::KepYaml => "kep-yaml",
            CheckId::CodeLanded => "code-landed",
        }
    }
}

impl std::fmt::Display for CheckId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<&str> for CheckId {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// One item of the release team's checklists, with every wording the views use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Check {
    /// Stable id (CSV column, filter key).
    pub id: CheckId,
    /// Short column heading in tables.
    pub short: &'static str,
    /// What the item asks, for legends.
    pub label: &'static str,
    /// "this KEP ..." when one KEP lacks it (dashboard summary lines).
    pub one: &'static str,
    /// "these KEPs ..." when several lack it.
    pub many: &'static str,
    /// Required or advice at the Enhancements Freeze (`None`: not checked
    /// there); the tables of the report show these.
    pub weight: Option<Weight>,
    /// The deadlines that check it, with its weight at each.
    #[serde(skip)]
    pub at: &'static [(Freeze, Weight)],
    /// Where the rule comes from.
    pub source: &'static str,
}

impl Check {
    /// Its weight at `freeze`, when that deadline checks it.
    pub fn weight_at(&self, freeze: Freeze) -> Option<Weight> {
        self.at.iter().find(|(f, _)| *f == freeze).map(|(_, w)| *w)
    }
}

const PHASES: &str = "sig-release releases/release_phases.md, Enhancements Freeze";
const PRR_PHASE: &str = "sig-release Enhancements role handbook, PRR Freeze (KEP readiness) checks";
const HANDBOOK: &str = "sig-release Enhancements role handbook";
const TEMPLATE: &str = "KEP template: \"must be completed when targeting\" a stage";

const EF_REQUIRED: &[(Freeze, Weight)] = &[(Freeze::Enhancements, Weight::Required)];
const EF_ADVICE: &[(Freeze, Weight)] = &[(Freeze::Enhancements, Weight::Advice)];

/// The checklists of every deadline, one table: required items of the
/// Enhancements Freeze first, in the order tables show them, then its
/// advice, then the items only another deadline checks.
pub const CHECKLIST: &[Check] = &[
    Check {
        id: CheckId::StatusImplementable,
        short: "St",
        label: "kep.yaml status implementable (withdrawn for a deprecation or removal)",
        one: "is not implementable",
        many: "are not implementable",
        weight: Some(Weight::Required),
        at: EF_REQUIRED,
        source: PHASES,
    },
    Check {
        id: CheckId::LatestMilestone,
        short: "LM",
        label: "kep.yaml latest-milestone is the release",
        one: "names another latest-milestone",
        many: "name another latest-milestone",
        weight: Some(Weight::Required),
        at: EF_REQUIRED,
        source: PHASES,
    },
    Check {
        id: CheckId::PrrApproved,
        short: "PRR",
        label: "PRR approved: keps/prod-readiness/<sig>/<n>.yaml names an approver for the stage",
        one: "needs PRR approval",
        many: "need PRR approval",
        weight: Some(Weight::Required),
        at: &[
            (Freeze::Prr, Weight::Required),
            (Freeze::Enhancements, Weight::Required),
        ],
        source: PHASES,
    },
    Check {
        id: CheckId::TestPlanCheckbox,
        short: "TPx",
        label: "Test Plan: \"I/we understand the owners of the involved components may require updates to existing tests\" checked",
        one: "lacks the Test Plan checkbox (checked)",
        many: "lack the Test Plan checkbox (checked)",
        weight: Some(Weight::Required),
        at: EF_REQUIRED,
        source: HANDBOOK,
    },
    Check {
        id: CheckId::RequiredSections,
        short: "Sec",
        label: "README has the sections the template requires for the stage: Test Plan (unit, integration, e2e), Graduation Criteria, the PRR questionnaire's",
        one: "lacks a required section",
        many: "lack a required section",
        weight: Some(Weight::Required),
        at: EF_REQUIRED,
        source: TEMPLATE,
    },
    Check {
        id: CheckId::NoOpenPrs,
        short: "PRs",
        label: "no other outstanding (unmerged) PR modifies the KEP's README or kep.yaml (with --prs)",
        one: "has an open PR to merge",
        many: "have open PRs to merge",
        weight: Some(Weight::Required),
        at: EF_REQUIRED,
        source: HANDBOOK,
    },
    Check {
        id: CheckId::StageMilestone,
        short: "SM",
        label: "advice: milestone.<stage> is the release",
        one: "lacks a stage milestone",
        many: "lack a stage milestone",
        weight: Some(Weight::Advice),
        at: EF_ADVICE,
        source: "KEP metadata (kep.yaml milestone)",
    },
    Check {
        id: CheckId::StageMatches,
        short: "Stg",
        label: "advice: kep.yaml stage is the stage the release targets",
        one: "names another stage in kep.yaml",
        many: "name another stage in kep.yaml",
        weight: Some(Weight::Advice),
        at: EF_ADVICE,
        source: "KEP template: stage is \"the current stage this KEP is targeting\"",
    },
    Check {
        id: CheckId::PrrQuestionnaire,
        short: "Q",
        label: "advice: PRR questionnaire answered for the stage (due at the PRR Freeze; the PRR approver judges it)",
        one: "lacks PRR answers",
        many: "lack PRR answers",
        weight: Some(Weight::Advice),
        at: &[
            (Freeze::Prr, Weight::Required),
            (Freeze::Enhancements, Weight::Advice),
        ],
        source: "PRR Freeze (sig-release release_phases.md)",
    },
    Check {
        id: CheckId::FollowsTemplate,
        short: "Tpl",
        label: "advice: every section the seed template marks required is present and answered",
        one: "does not follow the whole template",
        many: "do not follow the whole template",
        weight: Some(Weight::Advice),
        at: EF_ADVICE,
        source: "completeness (the seed template's directives)",
    },
    Check {
        id: CheckId::KepYaml,
        short: "YAML",
        label: "kep.yaml has stage, latest-milestone and the milestone struct filled out for the release",
        one: "needs its kep.yaml filled out",
        many: "need their kep.yaml filled out",
        weight: None,
        at: &[(Freeze::Prr, Weight::Required)],
        source: PRR_PHASE,
    },
    Check {
        id: CheckId::CodeLanded,
        short: "Code",
        label: "the feature gates carry the targeted stage in Kubernetes' code (with --kubernetes)",
        one: "has no code landed",
        many: "have no code landed",
        weight: None,
        at: &[(Freeze::Code, Weight::Required)],
        source: "sig-release releases/release_phases.md, Code Freeze; Kubernetes' feature gates",
    },
];

/// The checklist entry of `id`.
pub fn check(id: CheckId) -> &'static Check {
    CHECKLIST
        .iter()
        .find(|c| c.id == id)
        .expect("every CheckId has its row in CHECKLIST")
}

/// The checklist entry named `id` (`prr-approved`), for a user's filter.
pub fn check_named(id: &str) -> Option<&'static Check> {
    CHECKLIST.iter().find(|c| c.id.as_str() == id)
}

/// The items the Enhancements Freeze checks, in table order (the report's
/// columns).
pub fn enhancements_checklist() -> impl Iterator<Item = &'static Check> {
    CHECKLIST.iter().filter(|c| c.weight.is_some())
}

/// The Test Plan's "I/we understand the owners ..." checkbox.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "state", content = "line")]
pub enum Checkbox {
    /// `[x]`, `[X]` or `[ x ]`, at this 1-based line.
    Checked(usize),
    /// `[ ]`, at this line.
    Unchecked(usize),
    /// Not in the README.
    #[default]
    Absent,
}

/// What the freeze reads from one README.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Facts {
    /// The Test Plan checkbox.
    pub checkbox: Checkbox,
    /// Required at every stage and missing: Test Plan, its parts, Graduation Criteria.
    pub missing: Vec<&'static str>,
    /// The questionnaire sections required from alpha, missing.
    pub missing_alpha: Vec<&'static str>,
    /// The questionnaire sections required from beta, missing.
    pub missing_beta: Vec<&'static str>,
}

impl Facts {
    /// The required sections missing for a KEP targeting `target` (alpha
    /// when it has no stage).
    pub fn missing_for(&self, target: Option<PrrTarget>) -> Vec<&'static str> {
        let mut out = self.missing.clone();
        out.extend(&self.missing_alpha);
        if target.is_some_and(|t| t >= PrrTarget::Beta) {
            out.extend(&self.missing_beta);
        }
        out
    }
}

/// A section the freeze requires and the words that name it: a heading
/// matches when its normalised text contains every word of one alternative.
struct Wanted {
    name: &'static str,
    any_of: &'static [&'static [&'static str]],
}

const TEST_PLAN: Wanted = Wanted {
    name: "Test Plan",
    any_of: &[
        &["test", "plan"],
        &["testing", "plan"],
        &["test", "strategy"],
        &["testing", "strategy"],
    ],
};
const GRADUATION: Wanted = Wanted {
    name: "Graduation Criteria",
    any_of: &[&["graduation"]],
};
const QUESTIONNAIRE: Wanted = Wanted {
    name: "Production Readiness Review Questionnaire",
    any_of: &[&["production", "readiness"], &["prr"]],
};
const FROM_ALPHA: &[Wanted] = &[Wanted {
    name: "Feature Enablement and Rollback",
    any_of: &[&["enablement"]],
}];
const FROM_BETA: &[Wanted] = &[
    Wanted {
        name: "Rollout, Upgrade and Rollback Planning",
        any_of: &[&["rollout"], &["upgrade", "rollback"], &["roll", "out"]],
    },
    Wanted {
        name: "Monitoring Requirements",
        any_of: &[&["monitoring"], &["observability"]],
    },
    Wanted {
        name: "Dependencies",
        any_of: &[&["dependencies"], &["dependency"]],
    },
    Wanted {
        name: "Scalability",
        any_of: &[&["scalability"], &["scale"]],
    },
    Wanted {
        name: "Troubleshooting",
        any_of: &[&["troubleshooting"], &["troubleshoot"]],
    },
];

/// The Test Plan's parts (headings, bold lines or mentions inside it).
const TEST_PARTS: &[(&str, &[&str])] = &[
    ("Unit tests", &["unit"]),
    ("Integration tests", &["integration"]),
    ("e2e tests", &["e2e", "end-to-end", "end to end"]),
];

/// A heading's words, lower case, numbering and punctuation dropped.
fn words(title: &str) -> Vec<String> {
    title
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty() && !w.chars().all(|c| c.is_ascii_digit()))
        .map(str::to_lowercase)
        .collect()
}

fn matches(title_words: &[String], w: &Wanted) -> bool {
    w.any_of
        .iter()
        .any(|alt| alt.iter().all(|a| title_words.iter().any(|t| t == a)))
}

/// Index of the first section whose heading names `w`.
fn find(doc: &Document, heads: &[Vec<String>], w: &Wanted) -> Option<usize> {
    (0..doc.sections.len()).find(|&i| matches(&heads[i], w))
}

/// A section's own text and every section's below it, lower case.
fn text_under(doc: &Document, i: usize) -> String {
    let mut out = String::new();
    for j in std::iter::once(i).chain(doc.descendants(i)) {
        let s = &doc.sections[j];
        out.push_str(&s.title);
        out.push('\n');
        out.push_str(&doc.body(j).text);
        out.push('\n');
    }
    out.to_lowercase()
}

/// Whether the questionnaire is delegated to another KEP's by a link.
fn delegated(body: &str) -> bool {
    let b = body.to_lowercase();
    (b.contains("kep-") || b.contains("/keps/") || b.contains("kep.k8s.io"))
        && (b.contains("see ") || b.contains("refer") || b.contains("same as"))
}

/// Read what the freeze checks from a README's parse.
pub fn facts(doc: &Document) -> Facts {
    let heads: Vec<Vec<String>> = doc.sections.iter().map(|s| words(&s.title)).collect();
    let mut missing = Vec::new();
    match find(doc, &heads, &TEST_PLAN) {
        None => missing.push(TEST_PLAN.name),
        Some(i) => {
            let under = text_under(doc, i);
            for (name, any) in TEST_PARTS {
                if !any.iter().any(|w| under.contains(w)) {
                    missing.push(*name);
                }
            }
        }
    }
    if find(doc, &heads, &GRADUATION).is_none() {
        missing.push(GRADUATION.name);
    }
    let questionnaire = find(doc, &heads, &QUESTIONNAIRE);
    let handed_over = questionnaire
        .is_some_and(|i| doc.sections[i].children.is_empty() && delegated(&doc.body(i).text));
    let absent = |set: &[Wanted]| -> Vec<&'static str> {
        if handed_over {
            return Vec::new();
        }
        set.iter()
            .filter(|w| find(doc, &heads, w).is_none())
            .map(|w| w.name)
            .collect()
    };
    Facts {
        checkbox: checkbox(doc),
        missing,
        missing_alpha: absent(FROM_ALPHA),
        missing_beta: absent(FROM_BETA),
    }
}

/// The words that identify the Test Plan checkbox's line.
const CHECKBOX_WORDS: &str = "understand the owners of the involved";

/// The Test Plan checkbox: the task-list item whose text has
/// [`CHECKBOX_WORDS`] (CommonMark's, so never in a comment or a code
/// block; its text is the whole item, however it wraps). A checked one
/// anywhere wins over an unchecked one.
pub fn checkbox(doc: &Document) -> Checkbox {
    let mut found = Checkbox::Absent;
    for t in &doc.tasks {
        if !t.text.to_lowercase().contains(CHECKBOX_WORDS) {
            continue;
        }
        if t.checked {
            return Checkbox::Checked(t.line);
        }
        if found == Checkbox::Absent {
            found = Checkbox::Unchecked(t.line);
        }
    }
    found
}

#[cfg(test)]
mod tests;
