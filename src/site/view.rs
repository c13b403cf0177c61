//! Template views: [`Model`] + findings → serde structs the templates and JSON
//! files see ([`KepPage`], [`KepRef`], [`KepJson`]). Templates never see raw YAML.
//!
//! Analysis results that later stages compute (PRR questionnaire completeness,
//! release readiness, stage history) are optional fields here; they are
//! omitted when `None` and the KEP page shows an empty, labelled panel.

use serde::Serialize;
use serde_json::Value;

use crate::analysis::KepAnalysis;
use crate::analysis::board::Tracking;
use crate::analysis::findings::prr_required;
use crate::analysis::outcome::{self, Phase};
use crate::finding::Finding;
use crate::kep::Kep;
use crate::kep::domain::{Release, Stage};
use crate::kep::metadata::{FeatureGate, Metadata};
use crate::model::Model;

mod panels;

pub use panels::{
    ChangeView, HistoryPanel, LineLink, QuestionnaireView, ReadinessView, StageCompleteness,
    history_panel, is_open, questionnaire, readiness_view,
};

/// A short reference to a KEP, for tables and lists.
#[derive(Debug, Clone, Serialize)]
pub struct KepRef {
    /// KEP number, when known.
    pub number: Option<u32>,
    /// Title (or path).
    pub title: String,
    /// Owning SIG.
    pub sig: String,
    /// Status as written.
    pub status: String,
    /// Stage as written.
    pub stage: String,
    /// Latest milestone as written.
    pub latest_milestone: String,
    /// The KEP's page URL.
    pub url: String,
    /// PRR file state: `alpha, beta` (stages approved), `missing`, or `` (not needed).
    pub prr_state: String,
    /// PRR for the current stage: `complete` (approved and questionnaire
    /// answered), `incomplete`, or `` when the KEP needs none.
    pub prr_complete: String,
    /// Its status on the board of the release in progress ("Tracked for
    /// enhancements freeze"), `Planned` for a later target, or ``.
    pub readiness: String,
    /// How that status reads at a glance, in the release in progress.
    pub tone: Option<outcome::Tone>,
    /// The target release of that readiness (`v1.36`), or ``.
    pub target_release: String,
}

/// A link with a label, internal or to the repository.
#[derive(Debug, Clone, Serialize)]
pub struct LinkView {
    /// What to show.
    pub label: String,
    /// Where it goes.
    pub url: String,
}

/// One stage and its milestone.
#[derive(Debug, Clone, Serialize)]
pub struct StageMilestone {
    /// `alpha`, `beta`, ...
    pub stage: String,
    /// `v1.30`.
    pub milestone: String,
    /// The release page URL, when the milestone parses.
    pub url: Option<String>,
}

/// The PRR approval of one stage.
#[derive(Debug, Clone, Serialize)]
pub struct PrrStageView {
    /// Stage.
    pub stage: String,
    /// Approver as written ("" when none).
    pub approver: String,
    /// Whether the approver is in `prod-readiness-approvers` (or emeritus).
    pub known_approver: bool,
}

/// A KEP's prod-readiness file.
#[derive(Debug, Clone, Serialize)]
pub struct PrrView {
    /// Repository path of the file.
    pub path: String,
    /// Link to it in the repository.
    pub url: String,
    /// Approvals in stage order.
    pub approvals: Vec<PrrStageView>,
}

/// Everything a KEP page shows.
#[derive(Debug, Clone, Serialize)]
pub struct KepPage {
    /// The short form.
    #[serde(flatten)]
    pub summary: KepRef,
    /// Directory or file path in the repository.
    pub path: String,
    /// Whether kep.yaml parsed.
    pub meta_ok: bool,
    /// Participating SIGs, each with its page URL ("" when the SIG has no page).
    pub participating_sigs: Vec<LinkView>,
    /// Owning SIG page URL.
    pub sig_url: String,
    /// Milestone per stage.
    pub milestones: Vec<StageMilestone>,
    /// Authors.
    pub authors: Vec<String>,
    /// Reviewers.
    pub reviewers: Vec<String>,
    /// Approvers.
    pub approvers: Vec<String>,
    /// PRR approvers listed in kep.yaml.
    pub prr_approvers: Vec<String>,
    /// Creation date as written.
    pub creation_date: String,
    /// Last updated as written.
    pub last_updated: String,
    /// Feature gates with components.
    pub feature_gates: Vec<FeatureGate>,
    /// `disable-supported`.
    pub disable_supported: Option<bool>,
    /// Metrics.
    pub metrics: Vec<String>,
    /// see-also, as links.
    pub see_also: Vec<LinkView>,
    /// Other KEPs with the same number, as links (`duplicate-kep-number`).
    pub same_number: Vec<LinkView>,
    /// replaces, as links.
    pub replaces: Vec<LinkView>,
    /// superseded-by, as links.
    pub superseded_by: Vec<LinkView>,
    /// The PRR file, when there is one.
    pub prr: Option<PrrView>,
    /// Whether a PRR file is required (implementable/implemented, recent milestone).
    pub prr_required: bool,
    /// This KEP's findings.
    pub findings: Vec<Finding>,
    /// README in the repository.
    pub source_url: String,
    /// Edit link in the repository.
    pub edit_url: String,
    /// Per-stage PRR questionnaire completeness (filled in by analysis later).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prr_completeness: Option<Value>,
    /// Stage history from git (filled in by analysis later).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub history: Option<Value>,
    /// Its feature gates in Kubernetes' code, per release, and where
    /// kep.yaml's milestones disagree with them (`--kubernetes`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<Value>,
    /// Release readiness, Ready / At risk (filled in by analysis later).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub readiness: Option<Value>,
    /// In the release in progress: the board's status and every
    /// deadline's checklist.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tracking: Option<Value>,
}

/// One entry of `keps.json` and `/keps/<n>/kep.json`.
#[derive(Debug, Clone, Serialize)]
pub struct KepJson<'a> {
    /// KEP number.
    pub number: Option<u32>,
    /// Repository path.
    pub path: &'a str,
    /// Page URL.
    pub url: &'a str,
    /// kep.yaml as parsed.
    pub metadata: &'a Metadata,
    /// Stage → PRR approver.
    pub prr_approvals: Vec<PrrStageView>,
    /// Findings about this KEP.
    pub findings: &'a [Finding],
}

/// Site-wide naming shared by the views.
pub struct Urls<'a> {
    /// `base_url`, ending in `/`.
    pub base: &'a str,
    /// Repository URL.
    pub repo_url: &'a str,
    /// Branch for links.
    pub branch: &'a str,
}

impl Urls<'_> {
    /// `{base}{path}`.
    pub fn page(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }

    /// A file in the repository.
    pub fn blob(&self, path: &str) -> String {
        format!("{}/blob/{}/{path}", self.repo_url, self.branch)
    }

    /// The release page of a milestone, when it parses.
    pub fn release(&self, milestone: &str) -> Option<String> {
        Release::parse(milestone)
            .filter(|r| r.is_v1())
            .map(|v| self.page(&format!("releases/{v}/")))
    }
}

/// The PRR file state column.
pub fn prr_state(model: &Model, kep: &Kep) -> String {
    match model.prr_for(kep) {
        Some(p) => {
            let stages: Vec<&str> = Stage::ALL
                .iter()
                .filter(|s| p.approval(s).is_some())
                .map(Stage::as_str)
                .collect();
            if stages.is_empty() {
                "empty".to_string()
            } else {
                stages.join(", ")
            }
        }
        None if prr_required(kep) => "missing".to_string(),
        None => String::new(),
    }
}

/// The short form of a KEP.
pub fn kep_ref(
    model: &Model,
    kep: &Kep,
    a: Option<&KepAnalysis>,
    t: Option<&Tracking>,
    url: &str,
) -> KepRef {
    let prr_complete = match a.and_then(|a| a.prr_complete_current) {
        Some(_) if !prr_required(kep) => "",
        Some(true) => "complete",
        Some(false) => "incomplete",
        None => "",
    };
    // Readiness is judged for the release in progress only: a later target
    // is a plan, an earlier one a stale latest-milestone.
    let readiness = a.and_then(|a| Some((a.readiness.as_ref()?, a.target_phase?)));
    KepRef {
        prr_complete: prr_complete.to_string(),
        readiness: match (t, readiness) {
            (Some(t), _) => t.label.clone(),
            (None, Some((_, Phase::Planned))) => "Planned".to_string(),
            _ => String::new(),
        },
        tone: t.map(|t| outcome::Outcome::Tracking { status: t.status }.tone()),
        target_release: readiness
            .map(|(r, _)| r.release.to_string())
            .unwrap_or_default(),
        number: kep.number(),
        title: kep.title().to_string(),
        sig: kep.sig().to_string(),
        status: kep.meta.status.to_string(),
        stage: kep.meta.stage.to_string(),
        latest_milestone: kep.meta.latest_milestone.clone(),
        url: url.to_string(),
        prr_state: prr_state(model, kep),
    }
}

/// The PRR approvals of a KEP, in stage order.
pub fn prr_approvals(model: &Model, kep: &Kep) -> Vec<PrrStageView> {
    let Some(p) = model.prr_for(kep) else {
        return Vec::new();
    };
    Stage::ALL
        .iter()
        .filter_map(|s| {
            p.approval(s).map(|a| PrrStageView {
                stage: s.to_string(),
                approver: a.approver.clone(),
                known_approver: model.aliases.is_prr_approver_or_emeritus(&a.approver),
            })
        })
        .collect()
}

/// A kep.yaml reference (`see-also`, `replaces`, `superseded-by`) as a link,
/// or as text (no `url`) when it names nothing: `n/a`, `none`, `TBD`, `-`,
/// empty.
fn reference(value: &str, link: &dyn Fn(&str) -> LinkView) -> LinkView {
    let v = value
        .trim()
        .trim_matches(|c| c == '"' || c == '\'' || c == '`');
    let lower = v.to_ascii_lowercase();
    let nothing = [
        "", "n/a", "na", "none", "tbd", "tba", "todo", "-", "nil", "null", "~",
    ];
    if nothing.contains(&lower.trim_end_matches('.')) {
        return LinkView {
            label: if v.is_empty() {
                "none".into()
            } else {
                v.to_string()
            },
            url: String::new(),
        };
    }
    link(value)
}

/// Links to the other KEPs with `kep`'s number.
fn same_number(model: &Model, kep: &Kep, link: &dyn Fn(&str) -> LinkView) -> Vec<LinkView> {
    let Some(n) = kep.number() else {
        return Vec::new();
    };
    // from the model's index: a scan of every KEP per page was quadratic
    // (428,000 number parses on the corpus, 43 million at 10x)
    model
        .keps_numbered(n)
        .filter(|k| !std::ptr::eq(*k, kep))
        .map(|k| link(&format!("/{}", k.path)))
        .collect()
}

/// The full view of a KEP. `link` turns a kep.yaml reference
/// (`/keps/sig-x/123-foo`) into a labelled link; `on_page` says whether
/// the KEP's page has a heading with an anchor.
#[allow(clippy::too_many_arguments)]
pub fn kep_view(
    model: &Model,
    kep: &Kep,
    a: Option<&KepAnalysis>,
    t: Option<&Tracking>,
    url: &str,
    findings: Vec<Finding>,
    urls: &Urls,
    link: &dyn Fn(&str) -> LinkView,
    on_page: &dyn Fn(&str) -> bool,
) -> KepPage {
    let m = &kep.meta;
    let readme = kep.readme_path.as_deref().unwrap_or(&kep.metadata_path);
    // No link for a SIG name that has no page (see `segment::is_sig`).
    let sig_url = |s: &str| {
        if crate::kep::segment::is_sig(s) {
            urls.page(&format!("sigs/{s}/"))
        } else {
            String::new()
        }
    };
    KepPage {
        summary: kep_ref(model, kep, a, t, url),
        path: kep.path.clone(),
        meta_ok: kep.meta_ok,
        participating_sigs: m
            .participating_sigs
            .iter()
            .map(|s| LinkView {
                label: s.clone(),
                url: sig_url(s),
            })
            .collect(),
        sig_url: sig_url(kep.sig()),
        milestones: milestones(kep, urls),
        authors: m.authors.clone(),
        reviewers: m.reviewers.clone(),
        approvers: m.approvers.clone(),
        prr_approvers: m.prr_approvers.clone(),
        creation_date: m.creation_date.clone(),
        last_updated: m.last_updated.clone(),
        feature_gates: m.feature_gates.clone(),
        disable_supported: m.disable_supported,
        metrics: m.metrics.clone(),
        see_also: m.see_also.iter().map(|s| reference(s, link)).collect(),
        same_number: same_number(model, kep, link),
        replaces: m.replaces.iter().map(|s| reference(s, link)).collect(),
        superseded_by: m.superseded_by.iter().map(|s| reference(s, link)).collect(),
        prr: model.prr_for(kep).map(|p| PrrView {
            path: p.path.clone(),
            url: urls.blob(&p.path),
            approvals: prr_approvals(model, kep),
        }),
        prr_required: prr_required(kep),
        findings,
        source_url: urls.blob(readme),
        edit_url: format!("{}/edit/{}/{readme}", urls.repo_url, urls.branch),
        prr_completeness: a.map(|a| {
            serde_json::to_value(questionnaire(a, &urls.blob(readme), on_page)).unwrap_or_default()
        }),
        history: None,
        code: None,
        readiness: a
            .and_then(|a| a.readiness.as_ref())
            .map(|r| serde_json::to_value(readiness_view(r, urls)).unwrap_or_default()),
        tracking: t.map(|t| tracking_json(t, urls)),
    }
}

/// The KEP's stage milestones, each linked to its release's page.
fn milestones(kep: &Kep, urls: &Urls) -> Vec<StageMilestone> {
    kep.meta
        .milestone
        .entries()
        .into_iter()
        .map(|(s, v)| StageMilestone {
            stage: s.to_string(),
            milestone: v.to_string(),
            url: urls.release(v),
        })
        .collect()
}

/// The KEP's tracking in the release in progress as its page shows it:
/// with its tone, its release page's URL and links to its open PRs.
fn tracking_json(t: &Tracking, urls: &Urls) -> serde_json::Value {
    let mut v = serde_json::to_value(t).unwrap_or_default();
    v["tone"] = serde_json::json!(outcome::Outcome::Tracking { status: t.status }.tone());
    v["release_url"] = serde_json::json!(urls.page(&format!(
        "releases/{}/",
        t.phase(crate::team::Freeze::Prr).release
    )));
    v["prs"] = serde_json::json!(
        t.prs
            .iter()
            .map(|p| serde_json::json!({
                "number": p.number,
                "title": p.title,
                "url": format!("{}/pull/{}", urls.repo_url, p.number),
            }))
            .collect::<Vec<_>>()
    );
    v
}
