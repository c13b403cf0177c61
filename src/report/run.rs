//! The `report` subcommand's pipeline: a [`Request`] (what the command line
//! asked for) → the rendered report text. Loads the model, the analysis, the
//! history (when the input is a git repository), the `--since` baseline and
//! the issues file, and validates all of it before anything is written.

use std::path::PathBuf;

use anyhow::{Context, Result, bail};

use super::comments::{self, Phase, Templates};
use super::render::{self, ReportFormat};
use super::since::{self, Baseline};
use super::{Date, Inputs, KepLinks, Options, build, check_release};
use crate::analysis::{self, outcome};
use crate::kep::domain::Release;
use crate::model::Model;
use crate::project::{Findings, Input, Needs, Project, Readmes, Walk};
use crate::repo::history::History;

/// Everything `kepsite report` was asked for.
#[derive(Debug, Clone)]
pub struct Request {
    /// The repository, revision, sigs.yaml and `--current`.
    pub input: Input,
    /// `--release`.
    pub release: String,
    /// `--since`.
    pub since: Option<String>,
    /// `--format`.
    pub format: ReportFormat,
    /// `--freeze`.
    pub freeze: Option<String>,
    /// `--today`.
    pub today: Option<String>,
    /// `--site-url`: KEP links go to a kepsite portal there.
    pub site_url: Option<String>,
    /// `--repo-url`.
    pub repo_url: String,
    /// `--branch`.
    pub branch: String,
    /// Whether to read the stage history from git (when the input is a git
    /// repository), and where the walk is cached.
    pub history: Walk,
    /// `--theme`.
    pub theme: Option<PathBuf>,
    /// `--phase`, for the comments.
    pub phase: Option<Phase>,
    /// `--templates`: the comments' wording (default: kepsite's own).
    pub templates: Option<PathBuf>,
}

/// The report in `req.format`: the comments (with their templates and
/// phase) read the project besides the report.
fn render_text(
    req: &Request,
    report: &super::Report,
    project: &Project,
    comments: Option<(&Templates, Phase)>,
) -> Result<String> {
    match comments {
        Some((t, p)) if req.format.is_comments() => {
            let src = comments::Sources {
                model: &project.model,
                analysis: &project.analysis,
                team: project.team.as_ref(),
            };
            let list = comments::comments(report, &src, p, t)?;
            match req.format {
                ReportFormat::CommentsJson => comments::json(&list),
                _ => Ok(comments::markdown(&list)),
            }
        }
        _ if req.format == ReportFormat::SigOutreach => {
            let mut sigs: Vec<String> = project
                .model
                .keps
                .iter()
                .map(|k| k.meta.owning_sig.clone())
                .filter(|s| !s.is_empty())
                .collect();
            sigs.sort();
            sigs.dedup();
            Ok(super::outreach::sig_outreach(report, &sigs))
        }
        _ => render::render(report, req.format, req.theme.as_deref()),
    }
}

/// The comment templates `--templates` names, else kepsite's own.
/// The `--since` side of a report: a Project too, read from the files at
/// the range's commit (no history, no gates: only its KEPs are compared).
fn baseline(
    input: &Input,
    r: &since::Range,
    current: Release,
) -> Result<(Model, analysis::Analysis)> {
    let baseline = Input {
        rev: Some(r.commit.clone()),
        current: Some(current),
        kubernetes: None,
        team: Default::default(),
        ..input.clone()
    };
    let p = Project::load(&baseline, &Needs::files())
        .with_context(|| format!("loading --since {}", r.rev))?;
    Ok((p.model, p.analysis))
}

fn templates(path: Option<&std::path::Path>) -> Result<Templates> {
    match path {
        None => Ok(Templates::builtin()),
        Some(p) => {
            const TEMPLATES: crate::input_file::Kind = crate::input_file::Kind {
                what: "the --templates file",
                item: "template",
                limit: 4 << 20,
                hint: "a Markdown file of headed sections with fenced blocks",
            };
            let bytes = crate::input_file::read_bytes(&TEMPLATES, p)?;
            let text = String::from_utf8(bytes)
                .with_context(|| format!("--templates {}: not UTF-8", p.display()))?;
            Templates::parse(&text, &p.display().to_string())
        }
    }
}

fn date(flag: &str, s: &Option<String>) -> Result<Option<Date>> {
    s.as_deref()
        .map(|v| {
            v.parse::<Date>()
                .with_context(|| format!("invalid {flag} {v:?}: expected YYYY-MM-DD"))
        })
        .transpose()
}

/// The project of the report's input, with only the release's KEPs'
/// READMEs parsed (the report reads no other), and the release.
fn load(req: &Request) -> Result<(Project, Release)> {
    // The opted-in issues name KEPs whose files may not name the release.
    let team = req.input.team.read()?;
    let opted: Vec<u32> = team
        .issues
        .iter()
        .flatten()
        .filter(|i| i.labels.iter().any(|l| l.name == "lead-opted-in"))
        .map(|i| i.number)
        .collect();
    let pick = |model: &Model, history: Option<&History>| {
        let (_, mut picked) = release_keps(model, history, &req.release)?;
        for n in &opted {
            if let Some(i) = model.kep_at(*n) {
                picked[i] = true;
            }
        }
        Ok(picked)
    };
    // the report reads no finding
    let needs = Needs {
        findings: Findings::Skip,
        readmes: Readmes::Of(&pick),
        ..Needs::everything(req.history.clone())
    };
    let project = Project::load(&req.input, &needs)?;
    // the pick checked it already, on the same model and release in progress
    let release = check_release(&project.model, &project.analysis.current, &req.release)?;
    Ok((project, release))
}

/// `--release` checked against `model` (see [`check_release`]), and which
/// KEPs are in it, in model order: those its report reads the READMEs of.
pub fn release_keps(
    model: &Model,
    history: Option<&History>,
    release: &str,
) -> Result<(Release, Vec<bool>)> {
    let current = analysis::current_of(model, model.current_release);
    let release = check_release(model, &current, release)?;
    let phase = outcome::phase(&current, release);
    let picked = model
        .keps
        .iter()
        .map(|k| outcome::in_release(k, outcome::history_of(history, k), phase, release))
        .collect();
    Ok((release, picked))
}

/// A report's text, and the project it was built from: handed back for the
/// caller to free or leave to the exit, and not to be read (outside the
/// crate, [`Project::load`] is the way to a loaded project).
pub struct Written {
    /// The rendered report.
    pub text: String,
    /// The project the report was built from.
    pub(crate) project: Project,
}

/// Build and render the report.
pub fn run(req: &Request) -> Result<Written> {
    // Read before the repository: a bad template file fails fast.
    let templates = req
        .format
        .is_comments()
        .then(|| templates(req.templates.as_deref()))
        .transpose()?;
    let freeze = date("--freeze", &req.freeze)?;
    let today = date("--today", &req.today)?;
    let input = &req.input;
    if req.since.is_some() && input.is_embedded() {
        bail!("--since needs --repo DIR, a git repository");
    }
    let (project, release) = load(req)?;
    let current = project.analysis.current;
    let range = req
        .since
        .as_deref()
        .map(|s| since::range(&input.root, s, input.rev.as_deref()))
        .transpose()?;
    let old = range
        .as_ref()
        .map(|r| baseline(input, r, current.release))
        .transpose()?;
    let inputs = Inputs {
        since: match (&old, &range) {
            (Some((m, a)), Some(r)) => Some(Baseline {
                model: m,
                analysis: a,
                range: r,
            }),
            _ => None,
        },
        ..Inputs::of(&project)
    };
    let repo_url = crate::urls::repo_url(&req.repo_url);
    let links = match &req.site_url {
        Some(u) => KepLinks::Site(if u.ends_with('/') {
            u.clone()
        } else {
            format!("{u}/")
        }),
        None => KepLinks::Repository,
    };
    let opts = Options {
        release,
        current,
        links,
        repo_url,
        branch: req.branch.clone(),
        freeze,
        today,
    };
    let report = build(&inputs, &opts);
    // Without --phase, the comments are the snapshot's own phase's.
    let phase = req.phase.unwrap_or_else(|| Phase::current(&current));
    let text = render_text(
        req,
        &report,
        &project,
        templates.as_ref().map(|t| (t, phase)),
    )?;
    Ok(Written { text, project })
}
