//! Queries: ([`Model`], [`Filters`]) → the matching KEPs, printed as a table,
//! JSON, YAML or CSV. Filter names follow `kepctl query`, plus what kepctl
//! lacks (PRR approver from the prod-readiness files, release, feature gate,
//! text).

use std::collections::BTreeSet;

use anyhow::{Context, Result};
use regex::Regex;

use crate::analysis::completeness::normalize_heading;
use crate::analysis::outcome::release_view;
use crate::analysis::template::Template;
use crate::analysis::{Analysis, KepAnalysis};
use crate::finding::Finding;
use crate::kep::Kep;
use crate::kep::domain::Release;
use crate::kep::prr::handle;
use crate::model::{KepId, Model};
use crate::project::Project;
use crate::view::{self, KepView};

/// Output format of `query`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum QueryFormat {
    /// Aligned columns for a terminal.
    Table,
    /// A JSON array of KEP objects (the export shape).
    Json,
    /// A YAML sequence of KEP objects.
    Yaml,
    /// One row per KEP.
    Csv,
}

/// Compiled filters; every given filter must match (values within one
/// filter are alternatives).
#[derive(Debug, Default)]
pub struct Filters {
    /// Owning SIG regexes (anchored).
    pub sig: Vec<Regex>,
    /// Statuses.
    pub status: Vec<String>,
    /// Stages; `none` matches an empty stage.
    pub stage: Vec<String>,
    /// Author handles.
    pub author: Vec<String>,
    /// Approver handles.
    pub approver: Vec<String>,
    /// Participating SIG regexes (anchored).
    pub participating_sig: Vec<Regex>,
    /// PRR approver handles, from the prod-readiness files.
    pub prr_approver: Vec<String>,
    /// Feature gate names (case-insensitive).
    pub feature_gate: Vec<String>,
    /// Case-insensitive text in the title or summary.
    pub text: Option<String>,
    /// PRR complete (questionnaire and approval) for the KEP's stage.
    pub prr_complete: Option<bool>,
    /// Template sections the README lacks or leaves unanswered.
    pub missing: Vec<String>,
}

/// Compile `--sig`-style patterns into anchored regexes.
pub fn compile_patterns(patterns: &[String]) -> Result<Vec<Regex>> {
    patterns
        .iter()
        .map(|p| Regex::new(&format!("^(?:{p})$")).with_context(|| format!("invalid regex {p:?}")))
        .collect()
}

/// Parse `--release` values.
pub fn parse_releases(values: &[String]) -> Result<Vec<Release>> {
    values
        .iter()
        .map(|v| Release::from_flag(v).map_err(anyhow::Error::msg))
        .collect()
}

/// `--release`: the KEPs in any of
/// `releases`, by the one release model (with the project's history, as
/// the release pages and the report read it).
pub fn in_releases(project: &Project, releases: &[Release]) -> BTreeSet<KepId> {
    releases
        .iter()
        .flat_map(|r| release_view(&project.sources(), *r).entries)
        .map(|e| e.id)
        .collect()
}

/// Whether a `--status` or `--stage` filter (`wanted`; empty: any) takes a
/// value: as written, or by its category (`none`, `invalid`, any case).
fn any_value(wanted: &[String], value: &str, category: &str) -> bool {
    wanted.is_empty()
        || wanted
            .iter()
            .any(|s| s == value || s.eq_ignore_ascii_case(category))
}

fn any_handle(list: &[String], wanted: &[String]) -> bool {
    wanted.iter().any(|w| {
        let w = handle(w);
        list.iter().any(|x| handle(x) == w)
    })
}

impl Filters {
    /// Whether `kep` passes every filter.
    pub fn matches(&self, model: &Model, analysis: &Analysis, id: KepId) -> bool {
        let kep = model.get(id);
        self.matches_analysis(analysis.of(id), &analysis.template)
            && self.matches_labels(kep)
            && self.matches_people(model, kep)
            && self.matches_feature_gate(kep)
            && self.matches_text(kep)
    }

    /// `--prr-complete` and `--missing`, against the KEP's analysis.
    fn matches_analysis(&self, a: Option<&KepAnalysis>, template: &Template) -> bool {
        if let Some(want) = self.prr_complete
            && a.and_then(|a| a.prr_complete_current).unwrap_or(false) != want
        {
            return false;
        }
        if !self.missing.is_empty() {
            let Some(a) = a else { return false };
            let gaps: Vec<String> = a
                .assessment
                .sections
                .iter()
                .zip(&template.sections)
                .filter(|(s, _)| !s.present || !s.answered)
                .map(|(_, t)| normalize_heading(&t.title))
                .collect();
            if !self
                .missing
                .iter()
                .any(|w| gaps.contains(&normalize_heading(w)))
            {
                return false;
            }
        }
        true
    }

    /// `--sig`, `--status`, `--stage` and `--participating-sig`.
    fn matches_labels(&self, kep: &Kep) -> bool {
        let m = &kep.meta;
        if !self.sig.is_empty() && !self.sig.iter().any(|r| r.is_match(kep.sig())) {
            return false;
        }
        if !any_value(&self.status, m.status.as_str(), m.status.category())
            || !any_value(&self.stage, m.stage.as_str(), m.stage.category())
        {
            return false;
        }
        self.participating_sig.is_empty()
            || self
                .participating_sig
                .iter()
                .any(|r| m.participating_sigs.iter().any(|s| r.is_match(s)))
    }

    /// `--author`, `--approver` and `--prr-approver`.
    fn matches_people(&self, model: &Model, kep: &Kep) -> bool {
        let m = &kep.meta;
        if !self.author.is_empty() && !any_handle(&m.authors, &self.author) {
            return false;
        }
        if !self.approver.is_empty() && !any_handle(&m.approvers, &self.approver) {
            return false;
        }
        if !self.prr_approver.is_empty() {
            let approvers: Vec<String> = model
                .prr_for(kep)
                .map(|p| p.approvals.values().map(|a| a.approver.clone()).collect())
                .unwrap_or_default();
            if !any_handle(&approvers, &self.prr_approver) {
                return false;
            }
        }
        true
    }

    /// `--feature-gate`.
    fn matches_feature_gate(&self, kep: &Kep) -> bool {
        self.feature_gate.is_empty()
            || self.feature_gate.iter().any(|g| {
                kep.meta
                    .feature_gates
                    .iter()
                    .any(|fg| fg.name.eq_ignore_ascii_case(g))
            })
    }

    /// `--text`, in the title or the README's summary.
    fn matches_text(&self, kep: &Kep) -> bool {
        let Some(text) = &self.text else { return true };
        let t = text.to_lowercase();
        kep.title().to_lowercase().contains(&t) || kep.doc().summary.to_lowercase().contains(&t)
    }
}

/// Render KEP views in a format.
pub fn render(views: &[KepView<'_>], format: QueryFormat) -> Result<String> {
    Ok(match format {
        QueryFormat::Json => serde_json::to_string_pretty(views)? + "\n",
        QueryFormat::Yaml => serde_saphyr::to_string(&views).context("writing YAML")?,
        QueryFormat::Csv => csv_rows(views)?,
        QueryFormat::Table => table(views),
    })
}

const COLUMNS: &[&str] = &["number", "title", "sig", "status", "stage", "latest", "prr"];

fn row(v: &KepView<'_>) -> [String; 7] {
    let prr = match &v.prr {
        Some(p) => p.approvals.keys().copied().collect::<Vec<_>>().join("+"),
        None => "-".into(),
    };
    [
        v.number
            .map(|n| n.to_string())
            .unwrap_or_else(|| "-".into()),
        v.title.to_string(),
        v.owning_sig.to_string(),
        v.status.to_string(),
        v.stage.to_string(),
        v.latest_milestone.to_string(),
        prr,
    ]
}

fn csv_rows(views: &[KepView<'_>]) -> Result<String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut header: Vec<&str> = COLUMNS.to_vec();
    header.extend(["authors", "approvers", "feature_gates", "path"]);
    w.write_record(&header)?;
    for v in views {
        let mut r: Vec<String> = row(v).to_vec();
        r.push(v.authors.join(" "));
        r.push(v.approvers.join(" "));
        r.push(
            v.feature_gates
                .iter()
                .map(|g| g.name.as_str())
                .collect::<Vec<_>>()
                .join(" "),
        );
        r.push(v.path.to_string());
        w.write_record(&r)?;
    }
    Ok(String::from_utf8(w.into_inner().context("writing CSV")?)?)
}

fn table(views: &[KepView<'_>]) -> String {
    // A title or path from the repository is shown, never sent: control
    // characters become `\u{1b}` before widths are measured.
    let rows: Vec<[String; 7]> = views
        .iter()
        .map(|v| row(v).map(|c| crate::escape::terminal(&c).into_owned()))
        .collect();
    let mut widths: Vec<usize> = COLUMNS.iter().map(|c| c.len()).collect();
    for r in &rows {
        for (i, cell) in r.iter().enumerate() {
            let w = cell.chars().count().min(if i == 1 { 60 } else { 40 });
            widths[i] = widths[i].max(w);
        }
    }
    let mut out = String::new();
    let line = |cells: Vec<String>, out: &mut String| {
        let mut parts = Vec::new();
        for (i, c) in cells.iter().enumerate() {
            // A cell cut to its column's width ends in `…`, so a cut title
            // never reads as a whole one.
            let c: String = if c.chars().count() > widths[i] {
                let mut cut: String = c.chars().take(widths[i] - 1).collect();
                cut.push('…');
                cut
            } else {
                c.clone()
            };
            let pad = widths[i] - c.chars().count();
            parts.push(format!("{c}{}", " ".repeat(pad)));
        }
        out.push_str(parts.join("  ").trim_end());
        out.push('\n');
    };
    line(COLUMNS.iter().map(|c| c.to_uppercase()).collect(), &mut out);
    for r in rows {
        line(r.to_vec(), &mut out);
    }
    out.push_str(&format!("{}\n", crate::view::keps(views.len())));
    out
}

/// The export: every KEP's view as pretty JSON.
pub fn export(
    model: &Model,
    analysis: &Analysis,
    findings: &[Finding],
    history: Option<view::HistoryContext<'_>>,
    trackings: &[Option<crate::analysis::board::Tracking>],
    outcomes: Vec<Vec<crate::analysis::outcome::KepOutcome>>,
) -> Result<String> {
    let mut views = view::all(model, analysis, findings, history, trackings);
    // With `--kubernetes` (issue 45): each KEP's outcome per release out.
    for (v, o) in views.iter_mut().zip(outcomes) {
        v.releases = o;
    }
    Ok(serde_json::to_string_pretty(&views)? + "\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_are_anchored() {
        let r = compile_patterns(&["sig-node".into()]).unwrap();
        assert!(r[0].is_match("sig-node"));
        assert!(!r[0].is_match("sig-node-extra"));
        assert!(compile_patterns(&["(".into()]).is_err());
    }
}
