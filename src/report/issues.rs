//! What the enhancement issues (`--issues`) say beside a release report's
//! rows: each row's [`IssueState`], flags where the issue and the KEP's
//! files disagree, and the [`IssueSummary`] (opted-in issues whose KEP files
//! do not name the release among them).

use std::collections::BTreeMap;

use serde::Serialize;

use super::{Row, stage_group};
use crate::kep::domain::{Release, Stage};
use crate::model::Model;
use crate::team::issues::Issue;

/// What a KEP's issue says.
#[derive(Debug, Clone, Serialize)]
pub struct IssueState {
    /// Issue number.
    pub number: u32,
    /// `OPEN` or `CLOSED`.
    pub state: String,
    /// Milestone title.
    pub milestone: Option<String>,
    /// Opted in for this release by the SIG lead.
    pub opted_in: bool,
    /// `tracked/*` value.
    pub tracked: Option<String>,
    /// `stage/*` value.
    pub stage: Option<String>,
}

/// Link `row` to its issue and flag where the issue and the files
/// disagree (who is in the release and its status are the analysis'
/// decision, from the same issue).
pub fn annotate(row: &mut Row, idx: &BTreeMap<u32, &Issue>, release: Release) {
    let Some(issue) = row.number.and_then(|n| idx.get(&n)) else {
        row.flags
            .push("not opted in: its issue is not in the issues file".to_string());
        return;
    };
    // The issue's link only to the repository's host (https): the file
    // is input like any KEP.
    let host = row.issue_url.as_deref().and_then(super::render::link::host);
    if let Some(u) = host.and_then(|h| super::render::link::destination(issue.url.trim(), &[h])) {
        row.issue_url = Some(u);
    }
    let state = IssueState {
        number: issue.number,
        state: issue.state.clone(),
        milestone: issue.milestone.as_ref().map(|m| m.title.clone()),
        opted_in: issue.opted_in(release),
        tracked: issue.tracked().map(str::to_string),
        stage: issue.stage().map(str::to_string),
    };
    let mut flags = Vec::new();
    match &state.milestone {
        None => flags.push("issue has no milestone".to_string()),
        Some(m) if !release.is(m) => flags.push(format!("issue milestone is {m}, not {release}")),
        Some(_) if !state.opted_in => {
            flags.push("not opted in (no lead-opted-in label)".to_string())
        }
        Some(_) => {}
    }
    if state.tracked.as_deref() == Some("yes") {
        if row.tone != crate::analysis::outcome::Tone::Good {
            flags.push(format!(
                "the issue is labelled tracked/yes; the files say {}",
                row.label
            ));
        }
        match &state.stage {
            None => flags.push(format!(
                "tracked, but the issue has no stage/* label (files: {})",
                or_none(&row.stage)
            )),
            Some(s) if stage_group(&Stage::parse(s)) != stage_group(&Stage::parse(&row.stage)) => {
                flags.push(format!(
                    "tracked as stage/{s}, but the files target {}",
                    or_none(&row.stage)
                ))
            }
            Some(_) => {}
        }
        if !release.is(&row.latest_milestone) {
            flags.push(format!(
                "tracked, but latest-milestone is {}",
                or_none(&row.latest_milestone)
            ));
        }
    } else if let Some(t) = &state.tracked {
        flags.push(format!("tracked/{t}"));
    }
    if state.state.eq_ignore_ascii_case("closed") && !row.status.starts_with("implement") {
        flags.push("issue is closed".to_string());
    }
    row.flags.extend(flags);
    row.issue = Some(state);
}

/// An issue URL from the file, only when it is http(s): the file is untrusted input.
/// An issue's link where no repository host is at hand: https only.
fn safe_url(u: &str) -> Option<String> {
    let u = u.trim();
    u.get(..8)
        .is_some_and(|s| s.eq_ignore_ascii_case("https://"))
        .then(|| u.to_string())
}

fn or_none(s: &str) -> &str {
    if s.is_empty() { "no stage" } else { s }
}

/// An opted-in issue whose KEP files do not (yet) target the release.
#[derive(Debug, Clone, Serialize)]
pub struct Missing {
    /// Issue number.
    pub number: u32,
    /// Issue title.
    pub title: String,
    /// Issue URL.
    pub url: String,
    /// `stage/*` value.
    pub stage: Option<String>,
    /// Why it is not in the report.
    pub reason: String,
}

/// The issues' view of the release.
#[derive(Debug, Clone, Serialize)]
pub struct IssueSummary {
    /// Issues in the file.
    pub issues: usize,
    /// Opted in for the release.
    pub opted_in: usize,
    /// Labelled `tracked/yes` with the release's milestone.
    pub tracked: usize,
    /// KEPs in the report carrying at least one flag.
    pub flagged: usize,
    /// Opted-in issues whose KEP files do not target the release.
    pub opted_in_without_kep_change: Vec<Missing>,
}

/// Summarise the issues against the report's rows.
pub fn summarize(
    list: &[Issue],
    idx: &BTreeMap<u32, &Issue>,
    model: &Model,
    rows: &[Row],
    release: Release,
) -> IssueSummary {
    let in_report: std::collections::BTreeSet<u32> = rows.iter().filter_map(|r| r.number).collect();
    let missing = idx
        .values()
        .filter(|i| i.opted_in(release) && !in_report.contains(&i.number))
        .map(|i| {
            let reason = match model.kep(i.number) {
                None => "no KEP with this number in the repository".to_string(),
                Some(k) => format!(
                    "the KEP's files do not name {release}: latest-milestone is {}{}",
                    if k.meta.latest_milestone.is_empty() {
                        "(none)"
                    } else {
                        &k.meta.latest_milestone
                    },
                    if k.meta.status.is_unset() {
                        String::new()
                    } else {
                        format!(", status {}", k.meta.status)
                    }
                ),
            };
            Missing {
                number: i.number,
                title: i.title.clone(),
                url: safe_url(&i.url).unwrap_or_default(),
                stage: i.stage().map(str::to_string),
                reason,
            }
        })
        .collect();
    IssueSummary {
        issues: list.len(),
        opted_in: idx.values().filter(|i| i.opted_in(release)).count(),
        tracked: idx
            .values()
            .filter(|i| i.in_release(release) && i.tracked() == Some("yes"))
            .count(),
        flagged: rows
            .iter()
            .filter(|r| r.issue.is_some() && !r.flags.is_empty())
            .count(),
        opted_in_without_kep_change: missing,
    }
}
