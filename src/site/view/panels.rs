//! The panels of a KEP page that analysis fills in: the PRR questionnaire,
//! release readiness and the stage history.

use serde::Serialize;

use super::Urls;
use crate::analysis::completeness::Completeness;
use crate::analysis::{KepAnalysis, Readiness};
use crate::kep::Kep;
use crate::kep::domain::Status;
use crate::repo::history::KepHistory;
use crate::site::STALE_DAYS;

/// A question or section with where it is in the README.
#[derive(Debug, Clone, Serialize)]
pub struct LineLink {
    /// Its title.
    pub title: String,
    /// Its line, when the heading exists.
    pub line: Option<usize>,
    /// A link to the line in the repository source (`?plain=1#L<n>`, so
    /// GitHub shows the line rather than the rendered file), or to the file.
    pub url: String,
    /// The heading's anchor on the KEP's own page, when the page has it.
    pub anchor: Option<String>,
}

/// Questionnaire completeness of one stage.
#[derive(Debug, Clone, Serialize)]
pub struct StageCompleteness {
    /// `alpha`, `beta` or `stable`.
    pub stage: &'static str,
    /// Questions required at this stage.
    pub required: usize,
    /// Of those, answered.
    pub answered: usize,
    /// Percent answered.
    pub percent: u8,
    /// Approved for this stage by a PRR approver.
    pub approved: bool,
    /// Whether this is the stage the KEP is at (or targets).
    pub current: bool,
    /// Unanswered questions.
    pub unanswered: Vec<LineLink>,
    /// Answered only "N/A", with no reason (advice).
    pub no_reason: Vec<LineLink>,
}

/// The PRR questionnaire panel.
#[derive(Debug, Clone, Serialize)]
pub struct QuestionnaireView {
    /// Per stage, alpha to stable.
    pub stages: Vec<StageCompleteness>,
    /// PRR complete for the current stage (approved and answered), when it applies.
    pub complete: Option<bool>,
    /// Required template sections outside the questionnaire that are unanswered.
    pub template_unanswered: Vec<LineLink>,
    /// Required template sections that are missing.
    pub missing_sections: Vec<String>,
}

/// The unanswered headings of `c` as links; `on_page` says whether the
/// KEP's page has a heading with an anchor.
fn line_links(c: &Completeness, blob: &str, on_page: &dyn Fn(&str) -> bool) -> Vec<LineLink> {
    links_to(&c.unanswered, blob, on_page)
}

/// [`line_links`] of any list of questions.
fn links_to(
    list: &[crate::analysis::completeness::Unanswered],
    blob: &str,
    on_page: &dyn Fn(&str) -> bool,
) -> Vec<LineLink> {
    list.iter()
        .map(|u| LineLink {
            title: u.title.clone(),
            line: u.line,
            url: match u.line {
                Some(l) => format!("{blob}?plain=1#L{l}"),
                None => blob.to_string(),
            },
            anchor: u
                .line
                .map(|_| crate::kep::document::slug(&u.title))
                .filter(|a| on_page(a)),
        })
        .collect()
}

/// The questionnaire panel of a KEP; `blob` links to its README, and
/// `on_page` says whether its page has a heading with an anchor.
pub fn questionnaire(
    a: &KepAnalysis,
    blob: &str,
    on_page: &dyn Fn(&str) -> bool,
) -> QuestionnaireView {
    let q = &a.assessment.prr;
    let target = a.assessment.target;
    let current = |s: &str| {
        target.is_some_and(|t| {
            matches!(
                (t, s),
                (crate::analysis::completeness::PrrTarget::Alpha, "alpha")
                    | (crate::analysis::completeness::PrrTarget::Beta, "beta")
                    | (crate::analysis::completeness::PrrTarget::Stable, "stable")
            )
        })
    };
    let stages = [
        ("alpha", &q.alpha, a.prr_approved.alpha),
        ("beta", &q.beta, a.prr_approved.beta),
        ("stable", &q.stable, a.prr_approved.stable),
    ]
    .into_iter()
    .map(|(stage, c, approved)| StageCompleteness {
        stage,
        required: c.required,
        answered: c.answered,
        percent: c.percent,
        approved,
        current: current(stage),
        unanswered: line_links(c, blob, on_page),
        no_reason: links_to(&c.no_reason, blob, on_page),
    })
    .collect();
    QuestionnaireView {
        stages,
        complete: a.prr_complete_current,
        template_unanswered: line_links(&a.assessment.template_completeness, blob, on_page),
        missing_sections: a.assessment.missing_sections.clone(),
    }
}

/// Release readiness as a KEP page shows it.
#[derive(Debug, Clone, Serialize)]
pub struct ReadinessView<'a> {
    /// The checklist.
    #[serde(flatten)]
    pub readiness: &'a Readiness,

    /// The release page.
    pub release_url: String,
}

/// The readiness panel.
pub fn readiness_view<'a>(r: &'a Readiness, urls: &Urls) -> ReadinessView<'a> {
    ReadinessView {
        readiness: r,
        release_url: urls.page(&format!("releases/{}/", r.release)),
    }
}

/// One recorded change in a KEP's timeline.
#[derive(Debug, Clone, Serialize)]
pub struct ChangeView {
    /// `YYYY-MM-DD`.
    pub date: String,
    /// Status after the change.
    pub status: String,
    /// Stage after the change.
    pub stage: String,
    /// Latest milestone after the change.
    pub latest_milestone: String,
    /// Which of the three changed (all three for the first entry).
    pub changed: Vec<&'static str>,
    /// Abbreviated commit id.
    pub short: String,
    /// The commit in the repository.
    pub commit_url: String,
}

/// The stage-history panel.
#[derive(Debug, Clone, Serialize)]
pub struct HistoryPanel {
    /// Changes, newest first.
    pub changes: Vec<ChangeView>,
    /// First commit touching the KEP.
    pub first_date: String,
    /// Last commit touching the KEP.
    pub last_date: String,
    /// Its summary line.
    pub last_summary: String,
    /// Its URL.
    pub last_url: String,
    /// Days from the last commit to the newest commit in the repository.
    pub days_since: i64,
    /// Open and untouched for [`STALE_DAYS`] days.
    pub stale: bool,
    /// Earlier paths of the KEP, when it moved.
    pub moved_from: Vec<String>,
}

/// Whether work on a KEP is open: provisional or implementable. Closed,
/// deferred, unset and invalid statuses are not.
pub fn is_open(status: &Status) -> bool {
    matches!(status, Status::Provisional | Status::Implementable)
}

/// The history panel of a KEP.
pub fn history_panel(kep: &Kep, h: &KepHistory, now: i64, urls: &Urls) -> HistoryPanel {
    let commit = |id: &str| format!("{}/commit/{id}", urls.repo_url);
    let mut prev: (Option<&str>, Option<&str>, Option<&str>) = (None, None, None);
    let mut changes = Vec::with_capacity(h.changes.len());
    for (i, c) in h.changes.iter().enumerate() {
        let v = c.values();
        let mut changed = Vec::new();
        if i == 0 || v.0 != prev.0 {
            changed.push("status");
        }
        if i == 0 || v.1 != prev.1 {
            changed.push("stage");
        }
        if i == 0 || v.2 != prev.2 {
            changed.push("latest-milestone");
        }
        prev = v;
        changes.push(ChangeView {
            date: c.date.clone(),
            status: c.status.clone().unwrap_or_default(),
            stage: c.stage.clone().unwrap_or_default(),
            latest_milestone: c.latest_milestone.clone().unwrap_or_default(),
            changed,
            short: c.commit.chars().take(10).collect(),
            commit_url: commit(&c.commit),
        });
    }
    changes.reverse();
    let current = [kep.metadata_path.as_str(), kep.path.as_str()];
    HistoryPanel {
        changes,
        first_date: h.first.date.clone(),
        last_date: h.last.date.clone(),
        last_summary: h.last.summary.clone(),
        last_url: commit(&h.last.id),
        days_since: h.days_since_last_change(now),
        stale: is_open(&kep.meta.status) && h.is_stale(now, STALE_DAYS),
        moved_from: h
            .paths
            .iter()
            .filter(|p| !current.contains(&p.as_str()))
            .cloned()
            .collect(),
    }
}
