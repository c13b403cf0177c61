//! Release-team status reports: [`Model`] + [`Analysis`] for one release
//! (plus, optionally, the stage history, an older snapshot for `--since` and
//! the enhancement issues) → [`Report`], rendered by [`render`] as Markdown,
//! HTML, CSV or JSON, and by [`site`] as a portal page.
//!
//! Which KEPs are in release R, and what became of each, is the analysis'
//! [`outcome`](crate::analysis::outcome) (one definition for the report,
//! `query`, `export` and the site): a release that is out reports what
//! shipped and what slipped, the release in progress Ready / At risk against
//! the freeze checklist, a later release what is planned.

pub mod comments;
pub mod issues;
pub mod outreach;
pub mod render;
pub mod retro;
mod rows;
pub mod run;
mod select;
pub mod since;
pub mod site;
mod summary;

use anyhow::{Result, bail};
use serde::Serialize;

use crate::analysis::Analysis;
use crate::analysis::Item;
use crate::analysis::board::{BoardDiff, TeamFacts, Tracking};
use crate::analysis::calendar::{Current, Cycle};
use crate::analysis::outcome::{self, Counts, Landed, Outcome, Phase, Sources, Tone};
use crate::kep::domain::{Release, Stage};
use crate::model::Model;
use crate::repo::history::History;
use crate::team::Freeze;
pub use crate::team::Issue;
pub use jiff::civil::Date;
pub use select::{Selected, select};
pub use summary::health;

/// Where a KEP's link points.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KepLinks {
    /// The KEP's directory in the repository (`<repo>/tree/<branch>/<path>`).
    Repository,
    /// The KEP's page on a kepsite portal at this base URL (ending in `/`).
    Site(String),
}

/// How to build a report.
#[derive(Debug, Clone)]
pub struct Options {
    /// The release.
    pub release: Release,
    /// The release in progress at the snapshot, and the snapshot's day.
    pub current: Current,
    /// Where KEP titles link to.
    pub links: KepLinks,
    /// Repository URL for source, issue and commit links.
    pub repo_url: String,
    /// Branch for source links.
    pub branch: String,
    /// The next freeze, for the release's red/yellow/green line (default:
    /// the calendar's next deadline of the release in progress).
    pub freeze: Option<Date>,
    /// The day to count from (default: the snapshot's day); never the clock.
    pub today: Option<Date>,
}

/// The whole report.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// The release.
    pub release: Release,
    /// Out, in progress or planned, at the snapshot.
    pub phase: Phase,
    /// In progress and past its Enhancements Freeze.
    pub frozen: bool,
    /// In progress: the next deadline (`prr-freeze`, `enhancements-freeze`,
    /// `code-freeze`; none past Code Freeze).
    pub next: Option<Freeze>,
    /// In progress: what decided who is in the release (`files`, `issues`).
    pub membership: Option<crate::analysis::board::Source>,
    /// In progress: the names of the deadlines in this release's schedule,
    /// in order (the first is "PRR Freeze" or "KEP Readiness Deadline").
    pub deadlines: Vec<DeadlineName>,
    /// In progress: KEPs the files tie to the release, not counted in it.
    pub apart: Vec<ApartRow>,
    /// `--board`: the board's items whose Status, Stage or SIG differ.
    pub board: Option<Vec<BoardDiff>>,
    /// The release in progress at the snapshot.
    pub current: Release,
    /// The release's dates, when the calendar has them.
    pub cycle: Option<Cycle>,
    /// The commit reported on, when read from git (`--rev`), else `None`.
    pub commit: Option<String>,
    /// Counts and the release's health.
    pub summary: Summary,
    /// Stage groups in order (alpha, beta, stable, deprecation/removal, no
    /// stage change), each with its KEPs by SIG, then number.
    pub groups: Vec<Group>,
    /// What changed since `--since`.
    pub since: Option<since::Since>,
    /// What the enhancement issues say, with `--issues`.
    pub issues: Option<issues::IssueSummary>,
    /// Whether per-KEP history (last change dates) was available.
    pub history: bool,
    /// The history is a shallow clone's: partial.
    pub shallow: bool,
    /// Repository URL, for commit links.
    pub repo_url: String,
    /// Branch for source links.
    #[serde(skip)]
    pub branch: String,
    /// Where KEP links point (the announcement draft's are absolute: the
    /// portal's when it is at an https URL, else the repository's).
    #[serde(skip)]
    pub links: KepLinks,
}

/// The freeze checklist's items in order (one table, in the analysis).
pub use crate::analysis::freeze::CHECKLIST;

/// A deadline of the release's schedule, by name.
#[derive(Debug, Clone, Serialize)]
pub struct DeadlineName {
    /// Its id.
    pub freeze: Freeze,
    /// Its name in the release's schedule.
    pub name: &'static str,
    /// Its instant, `YYYY-MM-DD HH:MM UTC`, when the schedule gives one.
    pub at: Option<String>,
    /// Whether the snapshot is past it.
    pub past: bool,
}

/// A KEP listed apart from the release in progress.
#[derive(Debug, Clone, Serialize)]
pub struct ApartRow {
    /// KEP number.
    pub number: Option<u32>,
    /// Title.
    pub title: String,
    /// Link to the KEP.
    pub url: String,
    /// Owning SIG.
    pub sig: String,
    /// The stage a milestone names for the release.
    pub stage: String,
    /// Why it is apart, for people.
    pub why: String,
}

/// Counts for the release.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    /// Every outcome's count (in progress: the KEPs on the board; those
    /// listed apart are not counted).
    #[serde(flatten)]
    pub counts: Counts,
    /// In progress: KEPs listed apart (planned in kep.yaml, not opted in).
    pub apart: usize,
    /// Per stage group, in order; groups with no KEPs are listed with zeros.
    pub by_stage: Vec<Count>,
    /// Per owning SIG, by name.
    pub by_sig: Vec<Count>,
    /// Red, yellow or green against the next freeze (in progress); for a
    /// release that is out or planned, a line saying so.
    pub health: Health,
}

/// KEPs per outcome under one label.
#[derive(Debug, Clone, Serialize)]
pub struct Count {
    /// Stage group id or SIG name.
    pub label: String,
    /// Every outcome's count (shipped with the deprecations that went through).
    #[serde(flatten)]
    pub counts: Counts,
}

/// The release as a whole, in one line.
#[derive(Debug, Clone, Serialize)]
pub struct Health {
    /// `in-progress`, `out` or `planned`.
    pub status: Phase,
    /// One line for people.
    pub line: String,
    /// In progress: the share of the KEPs in the release at risk, percent.
    pub share_at_risk: Option<f64>,
    /// The deadline the line counts to (`--freeze`, else the schedule's next).
    pub freeze: Option<String>,
    /// Days from today to it (negative once passed).
    pub days_to_freeze: Option<i64>,
}

/// One stage group of the report.
#[derive(Debug, Clone, Serialize)]
pub struct Group {
    /// `alpha`, `beta`, `stable`, `deprecation`, `none` or `invalid`.
    pub id: &'static str,
    /// Heading.
    pub label: &'static str,
    /// KEPs by SIG.
    pub sigs: Vec<SigGroup>,
    /// KEPs in the group.
    pub total: usize,
}

/// The KEPs of one SIG in one stage group.
#[derive(Debug, Clone, Serialize)]
pub struct SigGroup {
    /// Owning SIG.
    pub sig: String,
    /// Its KEPs, by number.
    pub keps: Vec<Row>,
}

/// One KEP in the report.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    /// KEP number.
    pub number: Option<u32>,
    /// Title.
    pub title: String,
    /// Directory (or file) in the repository.
    pub path: String,
    /// Link to the KEP's page (`--site-url`) or its directory in the repository.
    pub url: String,
    /// Link to its enhancement issue.
    pub issue_url: Option<String>,
    /// Owning SIG.
    pub sig: String,
    /// `status`, as written.
    pub status: String,
    /// `stage`, as written.
    pub current_stage: String,
    /// The stage it has in this release ("" for no stage change).
    pub stage: String,
    /// What became of it: `shipped`, `deprecated`, `slipped`,
    /// `latest-only`, `planned`, or in progress the board's status
    /// (`tracked-for-enhancements-freeze`, `removed-from-milestone`, ...).
    pub outcome: &'static str,
    /// The same, typed.
    #[serde(skip)]
    pub result: Outcome,
    /// How it reads at a glance: `good`, `risk`, `bad`, `neutral`.
    pub tone: Tone,
    /// Where a slipped KEP went ("moved to v1.32").
    pub went: Option<String>,
    /// The commit of the default branch where a shipped stage was recorded.
    pub landed: Option<Landed>,
    /// Shipped: `new`, `graduated` or `continued` (with history).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub step: Option<&'static str>,
    /// The first sentences of the README's Summary, as plain text.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub summary: String,
    /// The feature gates the KEP names (kep.yaml's `feature-gates`, in
    /// order, each once), then those Kubernetes' code ties to it (its
    /// `// kep:` comments, with `--kubernetes`).
    pub feature_gates: Vec<String>,
    /// What Kubernetes' code says (with `--kubernetes`): the release out,
    /// whether the gates agree with the files; the release in progress,
    /// whether the code for the targeted stage has landed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<crate::analysis::outcome::CodeNote>,
    /// Out, with `--kubernetes`: which source decided the outcome (`code`
    /// or `files`) and what the files say where the code decided otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decided: Option<outcome::Decided>,
    /// `latest-milestone`, as written.
    pub latest_milestone: String,
    /// PRR approver for the targeted stage, when there is one.
    pub prr_approver: Option<String>,
    /// Tracked (in progress), or shipped (out).
    pub ready: bool,
    /// The outcome for people: `Shipped`, `Slipped`, `Tracked for
    /// enhancements freeze`, `Removed from milestone`, ...
    pub label: String,
    /// The Enhancements Freeze checklist (the release in progress only).
    pub checklist: Vec<Item>,
    /// The release in progress: the board's status with every deadline's
    /// checklist, the open PRs and the notes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tracking: Option<Tracking>,
    /// What fails, for people (required items only).
    pub failing: Vec<String>,
    /// Failing advice items (never decide), for people.
    pub advice: Vec<String>,
    /// Past the freeze: how the verdict was taken (at the deadline, or on
    /// these files), and for Tracked late when and why.
    pub basis: Option<String>,
    /// Date of the last commit touching the KEP (with history).
    pub last_change: Option<String>,
    /// Since when latest-milestone has been this release (with history).
    pub targeting_since: Option<String>,
    /// The enhancement issue, with `--issues`.
    pub issue: Option<issues::IssueState>,
    /// Disagreements between the issue and the files, with `--issues`.
    pub flags: Vec<String>,
}

/// The stage groups, in report order: (id, heading).
pub const GROUPS: &[(&str, &str)] = &[
    ("alpha", "Alpha"),
    ("beta", "Beta"),
    ("stable", "Stable"),
    ("deprecation", "Deprecation/removal"),
    ("none", "No stage change"),
];

/// The group of a stage (an invalid one by the stage it most likely means).
pub fn stage_group(stage: &Stage) -> &'static str {
    match stage.nearest() {
        Some(Stage::Alpha) => "alpha",
        Some(Stage::Beta) => "beta",
        Some(Stage::Stable) => "stable",
        Some(_) => "deprecation",
        None => "none",
    }
}

/// Normalise `--release`: `1.35`, `v1.35` → v1.35; an error names the
/// releases the repository knows when `release` is not one of them.
pub fn check_release(model: &Model, current: &Current, release: &str) -> Result<Release> {
    let r = Release::from_flag(release).map_err(anyhow::Error::msg)?;
    let known = outcome::releases(model, current);
    if !known.contains(&r) {
        let range = match (known.first(), known.last()) {
            (Some(a), Some(b)) => format!("releases in the repository: {a} to {b}"),
            _ => "no KEP names a milestone".to_string(),
        };
        bail!("unknown release {r}: no KEP's latest-milestone or stage milestone is {r} ({range})");
    }
    Ok(r)
}

/// What a report is built from.
pub struct Inputs<'a> {
    /// The repository at the reported revision.
    pub model: &'a Model,
    /// Its analysis.
    pub analysis: &'a Analysis,
    /// Stage history, when the input is a git repository.
    pub history: Option<&'a History>,
    /// The older snapshot for `--since`.
    pub since: Option<since::Baseline<'a>>,
    /// The release team's records (`--issues`, `--prs`, `--board`,
    /// `--exceptions`).
    pub team: Option<&'a TeamFacts>,
    /// Kubernetes' feature gates, from `--kubernetes`.
    pub code: Option<&'a crate::analysis::code::Code>,
    /// The release's view, when the site's listings took it from these inputs.
    pub view: Option<&'a crate::analysis::outcome::ReleaseView>,
}

impl<'a> Inputs<'a> {
    /// A loaded project's inputs: no older snapshot, no view taken before.
    pub fn of(project: &'a crate::project::Project) -> Self {
        Inputs {
            model: &project.model,
            analysis: &project.analysis,
            history: project.history.as_ref(),
            since: None,
            team: project.team.as_ref(),
            code: project.code.as_ref(),
            view: None,
        }
    }

    /// What the release views read.
    pub fn sources(&self) -> Sources<'a> {
        Sources {
            history: self.history,
            code: self.code,
            team: self.team,
            ..Sources::of(self.model, self.analysis)
        }
    }
}

/// Page URLs per KEP (model order).
pub fn kep_urls(model: &Model, opts: &Options) -> Vec<String> {
    match &opts.links {
        KepLinks::Site(base) => {
            let paths = crate::urls::kep_paths(model, base);
            paths.dirs.iter().map(|d| format!("{base}{d}")).collect()
        }
        KepLinks::Repository => model
            .keps
            .iter()
            .map(|k| format!("{}/tree/{}/{}", opts.repo_url, opts.branch, k.path))
            .collect(),
    }
}

/// Build the report.
pub fn build(inputs: &Inputs, opts: &Options) -> Report {
    build_with_urls(inputs, opts, &kep_urls(inputs.model, opts))
}

/// Build the report with each KEP's link already worked out (one per KEP, in
/// model order, as `opts.links` asks), so that many reports share one list.
pub fn build_with_urls(inputs: &Inputs, opts: &Options, urls: &[String]) -> Report {
    let model = inputs.model;
    let release = opts.release;
    let phase = outcome::phase(&opts.current, release);
    let issue_index = inputs.team.and_then(TeamFacts::issue_index);
    let (rows, apart) = rows::rows(inputs, opts, urls, phase, issue_index.as_ref());
    let summary = summary::summarize(&rows, apart.len(), phase, opts);
    let since = inputs
        .since
        .as_ref()
        .map(|b| since::diff(b, model, inputs.analysis, &rows, urls, opts));
    let issue_summary = match (
        inputs.team.and_then(|t| t.team.issues.as_deref()),
        &issue_index,
    ) {
        (Some(list), Some(idx)) => Some(issues::summarize(list, idx, model, &rows, release)),
        _ => None,
    };
    let in_progress = phase == Phase::InProgress;
    let board = inputs
        .team
        .and_then(|t| t.team.board.as_deref())
        .filter(|_| in_progress)
        .map(|items| rows::board_diff(items, &rows, release));
    let cycle = crate::analysis::calendar::cycle(release);
    Report {
        release,
        phase,
        frozen: in_progress && outcome::past_enhancements_freeze(&opts.current),
        next: in_progress
            .then(|| {
                Freeze::ALL
                    .into_iter()
                    .find(|f| !crate::analysis::board::past(&opts.current, *f))
            })
            .flatten(),
        membership: in_progress.then(|| {
            if issue_index.is_some() {
                crate::analysis::board::Source::Issues
            } else {
                crate::analysis::board::Source::Files
            }
        }),
        deadlines: if in_progress {
            Freeze::ALL
                .into_iter()
                .map(|f| DeadlineName {
                    freeze: f,
                    name: f.name(release),
                    at: cycle
                        .and_then(|c| c.deadline(f))
                        .map(|t| t.strftime("%Y-%m-%d %H:%M UTC").to_string()),
                    past: crate::analysis::board::past(&opts.current, f),
                })
                .collect()
        } else {
            Vec::new()
        },
        apart,
        board,
        current: opts.current.release,
        cycle,
        commit: model.source.commit.clone(),
        summary,
        groups: rows::groups(&rows),
        since,
        issues: issue_summary,
        history: inputs.history.is_some(),
        shallow: inputs.history.is_some_and(|h| h.shallow),
        repo_url: opts.repo_url.clone(),
        branch: opts.branch.clone(),
        links: opts.links.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stage_groups() {
        for (s, g) in [
            ("alpha", "alpha"),
            ("beta", "beta"),
            ("stable", "stable"),
            ("deprecated", "deprecation"),
            ("disabled", "deprecation"),
            ("removed", "deprecation"),
            ("alpha (deprecated)", "deprecation"),
            ("", "none"),
            ("soon", "none"),
        ] {
            assert_eq!(stage_group(&Stage::parse(s)), g, "{s}");
        }
    }
}
