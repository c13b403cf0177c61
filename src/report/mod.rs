//! Release-team status reports: [`Model`] + [`Analysis`] for one release
//! (plus, optionally, the stage history, an older snapshot for `--since` and
//! the enhancement issues) → [`Report`], rendered by [`render`] as Markdown,
//! HTML, CSV or JSON, and by [`site`] as a portal page.
//!
//! A KEP belongs to release R when its latest-milestone or any
//! `milestone.<stage>` is R. The freeze checklist per KEP is the analysis'
//! [`readiness`], so the report, `export` and the site agree.

pub mod issues;
pub mod render;
pub mod run;
pub mod since;
pub mod site;

use std::collections::BTreeMap;

use anyhow::{Result, bail};
use serde::Serialize;

use crate::analysis::Analysis;
use crate::analysis::history::History;
use crate::analysis::tracking::{Item, readiness, same_release};
use crate::kep::Kep;
use crate::kep::metadata::{STAGES, Version};
use crate::model::Model;
pub use issues::Issue;

/// Where a KEP's link points.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Links {
    /// The KEP's directory in the repository (`<repo>/tree/<branch>/<path>`).
    Repository,
    /// The KEP's page on a kepsite portal at this base URL (ending in `/`).
    Site(String),
}

/// How to build a report.
#[derive(Debug, Clone)]
pub struct Options {
    /// The release, `vX.Y`.
    pub release: String,
    /// Where KEP titles link to.
    pub links: Links,
    /// Repository URL for source, issue and commit links.
    pub repo_url: String,
    /// Branch for source links.
    pub branch: String,
    /// The next freeze, for the release's red/yellow/green line.
    pub freeze: Option<Date>,
    /// Today, for counting the days to the freeze.
    pub today: Option<Date>,
}

/// A calendar date, as days since 1970-01-01.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Date(pub i64);

impl Date {
    /// Parse a zero-padded `YYYY-MM-DD` that names a real day.
    pub fn parse(s: &str) -> Option<Date> {
        let b = s.as_bytes();
        if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
            return None;
        }
        let num = |r: std::ops::Range<usize>| -> Option<i64> {
            let t = &s[r];
            t.bytes()
                .all(|c| c.is_ascii_digit())
                .then(|| t.parse().ok())?
        };
        let (y, m, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
        if !(1..=12).contains(&m) || d < 1 {
            return None;
        }
        let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
        let len = [
            31,
            if leap { 29 } else { 28 },
            31,
            30,
            31,
            30,
            31,
            31,
            30,
            31,
            30,
            31,
        ];
        if d > len[(m - 1) as usize] {
            return None;
        }
        // Howard Hinnant's days_from_civil.
        let y = if m <= 2 { y - 1 } else { y };
        let era = y.div_euclid(400);
        let yoe = y - era * 400;
        let mp = (m + 9) % 12;
        let doy = (153 * mp + 2) / 5 + d - 1;
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        Some(Date(era * 146_097 + doe - 719_468))
    }

    /// Today, UTC.
    pub fn today() -> Date {
        let secs = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs() as i64)
            .unwrap_or(0);
        Date(secs.div_euclid(86_400))
    }
}

impl std::fmt::Display for Date {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&crate::analysis::history::format_date(self.0 * 86_400))
    }
}

/// The whole report.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// The release, `vX.Y`.
    pub release: String,
    /// The commit reported on, when read from git (`--rev`), else `None`.
    pub commit: Option<String>,
    /// Counts and the release's health.
    pub summary: Summary,
    /// Stage groups in order (alpha, beta, stable, deprecation/removal,
    /// none), each with its KEPs by SIG, then number.
    pub groups: Vec<Group>,
    /// What changed since `--since`.
    pub since: Option<since::Since>,
    /// What the enhancement issues say, with `--issues`.
    pub issues: Option<issues::IssueSummary>,
    /// Whether per-KEP history (last change dates) was available.
    pub history: bool,
    /// Repository URL, for commit links.
    pub repo_url: String,
}

/// The freeze checklist's items in order: (id, short heading, description).
pub const CHECKLIST: &[(&str, &str, &str)] = &[
    (
        "status-implementable",
        "St",
        "status implementable (withdrawn for a removal)",
    ),
    ("latest-milestone", "LM", "latest-milestone is the release"),
    ("stage-milestone", "SM", "milestone.<stage> is the release"),
    (
        "prr-approved",
        "PRR",
        "PRR file with an approver for the stage",
    ),
    (
        "prr-questionnaire",
        "Q",
        "PRR questionnaire complete for the stage",
    ),
    ("test-plan", "TP", "Test Plan answered"),
    ("graduation-criteria", "GC", "Graduation Criteria answered"),
    (
        "follows-template",
        "Tpl",
        "README headings follow the current template",
    ),
];

/// Counts for the release.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    /// KEPs targeting the release.
    pub total: usize,
    /// Ready.
    pub ready: usize,
    /// At risk.
    pub at_risk: usize,
    /// Per stage group, in order; groups with no KEPs are listed with zeros.
    pub by_stage: Vec<Count>,
    /// Per owning SIG, by name.
    pub by_sig: Vec<Count>,
    /// Red, yellow or green against the next freeze.
    pub health: Health,
}

/// KEPs, Ready and At risk under one label.
#[derive(Debug, Clone, Serialize)]
pub struct Count {
    /// Stage group id or SIG name.
    pub label: String,
    /// All.
    pub total: usize,
    /// Ready.
    pub ready: usize,
    /// At risk.
    pub at_risk: usize,
}

/// The release as a whole against the next freeze.
#[derive(Debug, Clone, Serialize)]
pub struct Health {
    /// `green`, `yellow` or `red`.
    pub status: &'static str,
    /// One line for people.
    pub line: String,
    /// The freeze date, when given.
    pub freeze: Option<String>,
    /// Days from today to the freeze (negative once passed).
    pub days_to_freeze: Option<i64>,
}

/// One stage group of the report.
#[derive(Debug, Clone, Serialize)]
pub struct Group {
    /// `alpha`, `beta`, `stable`, `deprecation` or `none`.
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
    /// The stage targeted in this release.
    pub stage: String,
    /// `latest-milestone`, as written.
    pub latest_milestone: String,
    /// PRR approver for the targeted stage, when there is one.
    pub prr_approver: Option<String>,
    /// Every checklist item passes.
    pub ready: bool,
    /// `Ready` or `At risk`.
    pub label: &'static str,
    /// The Enhancements Freeze checklist.
    pub checklist: Vec<Item>,
    /// What fails, for people.
    pub failing: Vec<String>,
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
    ("none", "No stage"),
];

/// The group of a stage as written.
pub fn stage_group(stage: &str) -> &'static str {
    let s = stage.to_ascii_lowercase();
    let has = |w: &str| s.contains(w);
    if has("deprecat") || has("disabl") || has("remov") {
        "deprecation"
    } else if has("stable") || s == "ga" {
        "stable"
    } else if has("beta") {
        "beta"
    } else if has("alpha") {
        "alpha"
    } else {
        "none"
    }
}

/// One KEP of the release before rendering: its index in the model, the
/// stage it targets there, and its checklist.
#[derive(Debug, Clone)]
pub struct Selected {
    /// Index into `model.keps`.
    pub index: usize,
    /// Stage targeted in the release ("" when none can be told).
    pub stage: String,
    /// The freeze checklist.
    pub readiness: crate::analysis::tracking::Readiness,
}

/// The stage `kep` targets in `release`, if it belongs to the release.
///
/// With latest-milestone in the release, the KEP's own `stage` (alpha for an
/// implementable KEP without one); otherwise the latest stage whose
/// milestone is the release.
pub fn target_stage(kep: &Kep, release: &str) -> Option<String> {
    let m = &kep.meta;
    let by_milestone = STAGES
        .iter()
        .rev()
        .find(|s| same_release(m.milestone.get(s), release))
        .map(|s| s.to_string());
    if same_release(&m.latest_milestone, release) {
        if !m.stage.trim().is_empty() {
            return Some(m.stage.trim().to_string());
        }
        return Some(by_milestone.unwrap_or_else(|| {
            if m.status == "implementable" {
                "alpha".into()
            } else {
                String::new()
            }
        }));
    }
    by_milestone
}

/// Every KEP of `release`, in model order.
pub fn select(model: &Model, analysis: &Analysis, release: &str) -> Vec<Selected> {
    model
        .keps
        .iter()
        .enumerate()
        .filter_map(|(i, kep)| {
            let stage = target_stage(kep, release)?;
            let readiness = readiness(model, kep, &analysis.keps[i], release, &stage);
            Some(Selected {
                index: i,
                stage,
                readiness,
            })
        })
        .collect()
}

/// Every release named by some KEP's latest-milestone or stage milestone, oldest first.
pub fn releases(model: &Model) -> Vec<String> {
    let mut set = std::collections::BTreeSet::new();
    for k in &model.keps {
        let m = &k.meta;
        for w in std::iter::once(m.latest_milestone.as_str())
            .chain(m.milestone.entries().into_iter().map(|(_, v)| v))
        {
            if let Some(v) = Version::parse(w) {
                set.insert((v.major, v.minor));
            }
        }
    }
    set.into_iter().map(|(a, b)| format!("v{a}.{b}")).collect()
}

/// Normalise `--release`: `1.35`, `v1.35` → `v1.35`; an error names the
/// releases the repository knows when `release` is not one of them.
pub fn check_release(model: &Model, release: &str) -> Result<String> {
    let Some(v) = Version::parse(release).filter(|v| v.patch == 0) else {
        bail!("invalid release {release:?}: expected vMAJOR.MINOR, e.g. v1.35");
    };
    let name = v.release();
    let known = releases(model);
    if !known.contains(&name) {
        let range = match (known.first(), known.last()) {
            (Some(a), Some(b)) => format!("releases in the repository: {a} to {b}"),
            _ => "no KEP names a milestone".to_string(),
        };
        bail!(
            "unknown release {name}: no KEP's latest-milestone or stage milestone is {name} ({range})"
        );
    }
    Ok(name)
}

/// The key that matches a KEP across snapshots and issues: its number, else its path.
pub(crate) fn kep_key(kep: &Kep) -> String {
    match kep.number() {
        Some(n) => format!("{n:08}"),
        None => kep.path.clone(),
    }
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
    /// Enhancement issues, from `--issues`.
    pub issues: Option<&'a [Issue]>,
}

/// Page URLs per KEP (model order).
pub fn kep_urls(model: &Model, opts: &Options) -> Vec<String> {
    match &opts.links {
        Links::Site(base) => {
            let paths = crate::site::plan::kep_paths(model, base);
            paths.dirs.iter().map(|d| format!("{base}{d}")).collect()
        }
        Links::Repository => model
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
    let release = opts.release.as_str();
    let selected = select(model, inputs.analysis, release);
    let issue_index = inputs.issues.map(issues::index);

    let mut rows: Vec<Row> = selected
        .iter()
        .map(|s| {
            let kep = &model.keps[s.index];
            let approver = model
                .prr_for(kep)
                .and_then(|p| p.approval(&s.stage))
                .map(|a| a.approver.trim().to_string());
            let hist = inputs
                .history
                .and_then(|h| kep.number().and_then(|n| h.keps.get(&n)));
            let targeting_since = hist.and_then(|h| {
                let mut since = None;
                for c in h.changes.iter().rev() {
                    match c.latest_milestone.as_deref() {
                        Some(m) if same_release(m, release) => since = Some(c.date.clone()),
                        _ => break,
                    }
                }
                since
            });
            let mut row = Row {
                number: kep.number(),
                title: kep.title().to_string(),
                path: kep.path.clone(),
                url: urls[s.index].clone(),
                issue_url: kep
                    .number()
                    .map(|n| format!("{}/issues/{n}", opts.repo_url)),
                sig: kep.sig().to_string(),
                status: kep.meta.status.clone(),
                current_stage: kep.meta.stage.clone(),
                stage: s.stage.clone(),
                latest_milestone: kep.meta.latest_milestone.clone(),
                prr_approver: approver,
                ready: s.readiness.ready,
                label: s.readiness.label(),
                checklist: s.readiness.items.clone(),
                failing: s
                    .readiness
                    .reasons()
                    .into_iter()
                    .map(str::to_string)
                    .collect(),
                last_change: hist.map(|h| h.last.date.clone()),
                targeting_since,
                issue: None,
                flags: Vec::new(),
            };
            if let Some(idx) = &issue_index {
                issues::annotate(&mut row, idx, release);
            }
            row
        })
        .collect();
    rows.sort_by(|a, b| {
        let g = |r: &Row| {
            GROUPS
                .iter()
                .position(|(id, _)| *id == stage_group(&r.stage))
        };
        (g(a), &a.sig, a.number, &a.path).cmp(&(g(b), &b.sig, b.number, &b.path))
    });

    let summary = summarize(&rows, opts);
    let since = inputs
        .since
        .as_ref()
        .map(|b| since::diff(b, model, &selected, &rows, release, urls, opts));
    let issue_summary = match (inputs.issues, &issue_index) {
        (Some(list), Some(idx)) => Some(issues::summarize(list, idx, model, &rows, release)),
        _ => None,
    };

    let mut groups: Vec<Group> = Vec::new();
    for (id, label) in GROUPS {
        let mut sigs: BTreeMap<String, Vec<Row>> = BTreeMap::new();
        for r in rows.iter().filter(|r| stage_group(&r.stage) == *id) {
            sigs.entry(r.sig.clone()).or_default().push(r.clone());
        }
        if sigs.is_empty() {
            continue;
        }
        let sigs: Vec<SigGroup> = sigs
            .into_iter()
            .map(|(sig, keps)| SigGroup { sig, keps })
            .collect();
        groups.push(Group {
            id,
            label,
            total: sigs.iter().map(|s| s.keps.len()).sum(),
            sigs,
        });
    }
    Report {
        release: release.to_string(),
        commit: model.source.commit.clone(),
        summary,
        groups,
        since,
        issues: issue_summary,
        history: inputs.history.is_some(),
        repo_url: opts.repo_url.clone(),
    }
}

fn count(label: &str, rows: &[&Row]) -> Count {
    let ready = rows.iter().filter(|r| r.ready).count();
    Count {
        label: label.to_string(),
        total: rows.len(),
        ready,
        at_risk: rows.len() - ready,
    }
}

fn summarize(rows: &[Row], opts: &Options) -> Summary {
    let all: Vec<&Row> = rows.iter().collect();
    let total = count("total", &all);
    let by_stage = GROUPS
        .iter()
        .filter(|(id, _)| *id != "none" || rows.iter().any(|r| stage_group(&r.stage) == "none"))
        .map(|(id, _)| {
            let rs: Vec<&Row> = rows
                .iter()
                .filter(|r| stage_group(&r.stage) == *id)
                .collect();
            count(id, &rs)
        })
        .collect();
    let mut sigs: BTreeMap<&str, Vec<&Row>> = BTreeMap::new();
    for r in rows {
        sigs.entry(r.sig.as_str()).or_default().push(r);
    }
    let by_sig = sigs.into_iter().map(|(s, rs)| count(s, &rs)).collect();
    Summary {
        total: total.total,
        ready: total.ready,
        at_risk: total.at_risk,
        by_stage,
        by_sig,
        health: health(total.total, total.at_risk, opts),
    }
}

/// The release's red/yellow/green line.
///
/// Before the freeze: green with at most 10 % of KEPs At risk, red above
/// 50 % (or above 25 % in the last week), yellow in between. Once the freeze
/// has passed, anything still At risk is red.
pub fn health(total: usize, at_risk: usize, opts: &Options) -> Health {
    let days = opts
        .freeze
        .map(|f| f.0 - opts.today.unwrap_or_else(Date::today).0);
    let share = if total == 0 {
        0.0
    } else {
        at_risk as f64 / total as f64
    };
    let status = match days {
        Some(d) if d < 0 => {
            if at_risk == 0 {
                "green"
            } else {
                "red"
            }
        }
        _ if share <= 0.10 => "green",
        Some(d) if d <= 7 && share > 0.25 => "red",
        _ if share > 0.50 => "red",
        _ => "yellow",
    };
    let mut line = format!(
        "{} of {total} KEPs Ready, {at_risk} At risk ({:.0}%)",
        total - at_risk,
        share * 100.0
    );
    match (opts.freeze, days) {
        (Some(f), Some(d)) if d < 0 => {
            line.push_str(&format!("; the freeze ({f}) passed {} days ago", -d))
        }
        (Some(f), Some(0)) => line.push_str(&format!("; the freeze is today ({f})")),
        (Some(f), Some(d)) => line.push_str(&format!(
            "; {d} day{} to the freeze ({f})",
            if d == 1 { "" } else { "s" }
        )),
        _ => line.push_str("; no freeze date given"),
    }
    Health {
        status,
        line,
        freeze: opts.freeze.map(|f| f.to_string()),
        days_to_freeze: days,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_round_trip() {
        for s in ["1970-01-01", "2000-02-29", "2025-10-16", "2024-12-31"] {
            assert_eq!(Date::parse(s).unwrap().to_string(), s);
        }
        for s in [
            "2025-13-01",
            "2025-02-29",
            "2025-1-01",
            "25-01-01",
            "2025-01-0x",
            "",
        ] {
            assert!(Date::parse(s).is_none(), "{s}");
        }
    }

    #[test]
    fn health_thresholds() {
        let opts = |freeze: Option<&str>| Options {
            release: "v1.35".into(),
            links: Links::Repository,
            repo_url: String::new(),
            branch: String::new(),
            freeze: freeze.and_then(Date::parse),
            today: Date::parse("2025-10-01"),
        };
        let cases = [
            (None, 10, 1, "green"),
            (None, 10, 2, "yellow"),
            (None, 10, 5, "yellow"),
            (None, 10, 6, "red"),
            (Some("2025-10-30"), 10, 3, "yellow"),
            (Some("2025-10-05"), 10, 3, "red"),
            (Some("2025-09-30"), 10, 0, "green"),
            (Some("2025-09-30"), 10, 1, "red"),
            (None, 0, 0, "green"),
        ];
        for (freeze, total, risk, want) in cases {
            assert_eq!(
                health(total, risk, &opts(freeze)).status,
                want,
                "{freeze:?} {total} {risk}"
            );
        }
        assert!(
            health(10, 3, &opts(Some("2025-10-05")))
                .line
                .contains("4 days to the freeze (2025-10-05)")
        );
    }

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
        ] {
            assert_eq!(stage_group(s), g, "{s}");
        }
    }
}
