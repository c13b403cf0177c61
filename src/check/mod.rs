//! `kepsite check`: [`Options`] → the repository's findings, or with a
//! change range only those the change answers for ([`scope`]), → text in one
//! of the [`CheckFormat`]s: rustc-style, JSON, GitHub workflow commands, SARIF,
//! JUnit XML or a Markdown pull-request summary.
//!
//! A changed-only check ([`changed`]) still checks the whole repository
//! (rules such as duplicate numbers need every KEP), after the change and at
//! its base.

pub mod changed;
pub mod github;
pub mod junit;
pub mod sarif;
pub mod scope;
pub mod summary;

use anyhow::Result;
use clap::ValueEnum;
use regex::Regex;
use serde::Serialize;

use crate::analysis::Analysis;
use crate::diagnostics::{self, Summary};
use crate::finding::{Finding, Severity};
use crate::model::Model;
use crate::project::{Input, Needs, Project};
use crate::repo::{ChangeSet, Range};
use scope::Scoped;

/// Output of `check`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CheckFormat {
    /// rustc-style diagnostics.
    Human,
    /// `{ "summary": ..., "findings": [...] }`.
    Json,
    /// GitHub Actions workflow commands: annotations on the pull request.
    Github,
    /// SARIF 2.1.0, for code-scanning dashboards.
    Sarif,
    /// JUnit XML, for GitLab and Prow.
    Junit,
    /// A short Markdown summary per KEP, for a pull-request comment.
    Md,
}

/// Everything `check` needs, validated.
#[derive(Debug, Clone)]
pub struct Options {
    /// The repository, `--rev`, sigs.yaml and `--current`, as every
    /// subcommand reads them.
    pub input: Input,
    /// Report only what this change answers for.
    pub range: Option<Range>,
    /// Output format.
    pub format: CheckFormat,
    /// Only these rules (empty: all).
    pub rules: Vec<String>,
    /// Only KEPs whose owning SIG matches.
    pub sig: Option<Regex>,
    /// Warnings fail too.
    pub deny_warnings: bool,
    /// Colour (human format).
    pub color: bool,
    /// Advice findings in full (human format), not one line per KEP.
    pub verbose: bool,
    /// Where the Markdown summary links.
    pub links: summary::SummaryLinks,
}

/// The checked repository and what to report.
pub struct Checked {
    /// The repository (after the change).
    pub model: Model,
    /// Its analysis.
    pub analysis: Analysis,
    /// The findings to report, canonical order.
    pub findings: Vec<Finding>,
    /// The KEPs reported on: the touched ones, or all.
    pub keps: Vec<usize>,
    /// The change, for a changed-only check.
    pub changes: Option<ChangeSet>,
}

/// Load, check, and keep what `opts` asks to report.
pub fn collect(opts: &Options) -> Result<Checked> {
    let (model, analysis, found, keps, changes) = match &opts.range {
        None => {
            // The one Project every subcommand loads (check needs no history
            // and judges no freeze at its deadline); only the Markdown
            // summary reads more of the analysis than the findings do.
            let needs = match opts.format {
                CheckFormat::Md => Needs::files(),
                _ => Needs::findings(),
            };
            let Project {
                model,
                analysis,
                findings: found,
                ..
            } = Project::load(&opts.input, &needs)?;
            let all = (0..model.keps.len()).collect();
            (model, analysis, found, all, None)
        }
        Some(range) => {
            let range = match (range, &opts.input.rev) {
                (Range::Since { base, head: None }, Some(rev)) => Range::Since {
                    base: base.clone(),
                    head: Some(rev.clone()),
                },
                (r, _) => r.clone(),
            };
            let c = changed::check(&opts.input, &range)?;
            let Scoped { findings, touched } = c.scoped;
            (c.model, c.analysis, findings, touched, Some(c.changes))
        }
    };
    let mut found = found;
    let mut keps = keps;
    if !opts.rules.is_empty() {
        found.retain(|f| opts.rules.iter().any(|r| r == f.rule));
    }
    if let Some(sig) = &opts.sig {
        found.retain(|f| sig.is_match(&sig_of(&model, f)));
        keps.retain(|&i| sig.is_match(model.keps[i].sig()));
    }
    Ok(Checked {
        model,
        analysis,
        findings: found,
        keps,
        changes,
    })
}

/// The SIG a finding belongs to: its KEP's owning SIG, else the directory.
fn sig_of(model: &Model, f: &Finding) -> String {
    let kep = model.keps.iter().find(|k| {
        f.path == k.metadata_path
            || f.path.starts_with(&format!("{}/", k.path))
            || (f.kep.is_some() && f.kep == k.number())
    });
    kep.map(|k| k.sig().to_string())
        .unwrap_or_else(|| f.path.split('/').nth(1).unwrap_or_default().to_string())
}

#[derive(Serialize)]
struct ChangesJson<'a> {
    base: &'a str,
    head: Option<&'a str>,
    paths: Vec<&'a str>,
    keps: Vec<&'a str>,
}

/// The report in `opts.format`.
pub fn render(c: &Checked, opts: &Options) -> String {
    let summary = Summary::of(c.keps.len(), &c.findings);
    let since = c.changes.as_ref().map(|ch| ch.base[..12].to_string());
    let line = |color| diagnostics::summary_line(summary, since.as_deref(), color);
    match opts.format {
        CheckFormat::Human => diagnostics::human_report(
            &c.model,
            &c.findings,
            &line(opts.color),
            opts.color,
            opts.verbose,
        ),
        CheckFormat::Json => {
            let changes = c.changes.as_ref().map(|ch| ChangesJson {
                base: &ch.base,
                head: ch.head.as_deref(),
                paths: ch.paths.iter().map(String::as_str).collect(),
                keps: c
                    .keps
                    .iter()
                    .map(|&i| c.model.keps[i].path.as_str())
                    .collect(),
            });
            let changes = changes.and_then(|ch| serde_json::to_value(ch).ok());
            diagnostics::json(summary, &c.findings, changes)
        }
        CheckFormat::Github => github::render(&c.findings, &line(false)),
        CheckFormat::Sarif => sarif::render(&c.findings),
        CheckFormat::Junit => junit::render(&junit_cases(c), opts.deny_warnings),
        CheckFormat::Md => summary::render(
            &summary::Input {
                model: &c.model,
                analysis: &c.analysis,
                findings: &c.findings,
                keps: &c.keps,
                since: since.as_deref(),
            },
            &opts.links,
        ),
    }
}

/// One JUnit case per reported KEP, then one per other file with findings.
fn junit_cases(c: &Checked) -> Vec<junit::Case<'_>> {
    let mut by_kep = crate::view::findings_by_kep(&c.model, &c.findings);
    let mut cases: Vec<junit::Case> = c
        .keps
        .iter()
        .map(|&i| {
            let k = &c.model.keps[i];
            junit::Case {
                class: format!("keps.{}", k.sig()),
                name: match k.number() {
                    Some(n) => format!("KEP-{n} {}", k.path),
                    None => k.path.clone(),
                },
                findings: std::mem::take(&mut by_kep[i]),
            }
        })
        .collect();
    let owned: std::collections::HashSet<*const Finding> = cases
        .iter()
        .flat_map(|c| c.findings.iter().map(|f| *f as *const Finding))
        .collect();
    let mut other: std::collections::BTreeMap<&str, Vec<&Finding>> = Default::default();
    for f in &c.findings {
        if !owned.contains(&(f as *const Finding)) {
            other.entry(f.path.as_str()).or_default().push(f);
        }
    }
    cases.extend(other.into_iter().map(|(path, findings)| junit::Case {
        class: "files".into(),
        name: path.to_string(),
        findings,
    }));
    cases
}

/// 1 when a reported finding is an error (or a warning, with `deny_warnings`).
pub fn exit_code(findings: &[Finding], deny_warnings: bool) -> i32 {
    let failing = findings.iter().any(|f| {
        f.severity == Severity::Error || (deny_warnings && f.severity == Severity::Warning)
    });
    i32::from(failing)
}
