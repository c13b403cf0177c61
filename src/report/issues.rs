//! Enhancement issues: the JSON of `gh issue list --json
//! number,title,labels,milestone,state,url` → [`Issue`]s, and what they say
//! about a release's KEPs ([`IssueState`] per row, flags where the issue and
//! the KEP's files disagree, [`IssueSummary`]).
//!
//! In kubernetes/enhancements a KEP's number is its tracking issue's number.

use std::collections::BTreeMap;

use anyhow::Result;
use serde::{Deserialize, Serialize};

use super::{Row, stage_group};
use crate::kep::domain::{Release, Stage};
use crate::model::Model;

/// The fields `--issues` needs in every element.
pub const FIELDS: &[&str] = &["number", "title", "labels", "milestone", "state", "url"];

/// The issues file: how it is named, and the largest read (64 MiB; the
/// enhancements repository's every issue, with these fields, is about
/// 5 MB).
pub const FILE: crate::input_file::Kind = crate::input_file::Kind {
    what: "the issues file",
    item: "issue",
    limit: 64 << 20,
    hint: "export with `gh issue list --json number,title,labels,milestone,state,url`",
};

/// One enhancement issue. Every field of [`FIELDS`] must be present
/// (`milestone` may be `null`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Issue {
    /// Issue number (= KEP number).
    pub number: u32,
    /// Title.
    pub title: String,
    /// The labels kepsite reads (`lead-opted-in`, `tracked/*`, `stage/*`);
    /// the others are dropped as they are read, so a file of a million
    /// labels costs what its issues do.
    #[serde(deserialize_with = "read_labels")]
    pub labels: Vec<Label>,
    /// Milestone, when set.
    #[serde(deserialize_with = "crate::input_file::nullable")]
    pub milestone: Option<Milestone>,
    /// `OPEN` or `CLOSED`.
    pub state: String,
    /// Web URL.
    pub url: String,
}

fn read_labels<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<Label>, D::Error> {
    crate::input_file::filtered(d, |l: &Label| {
        l.name == "lead-opted-in" || l.name.starts_with("tracked/") || l.name.starts_with("stage/")
    })
}

/// A label.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Label {
    /// Its name.
    pub name: String,
}

/// A milestone.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Milestone {
    /// Its title, `v1.35`.
    pub title: String,
}

/// Parse an issues file ([`crate::input_file::parse_list`]), naming the
/// element and field that is wrong.
pub fn parse(bytes: &[u8]) -> Result<Vec<Issue>> {
    crate::input_file::parse_list(&FILE, bytes)
}

/// Read and parse the issues file at `path`, within [`FILE`]'s limit.
pub fn read(path: &std::path::Path) -> Result<Vec<Issue>> {
    crate::input_file::read_list(&FILE, path)
}

impl Issue {
    fn has(&self, name: &str) -> bool {
        self.labels.iter().any(|l| l.name == name)
    }

    /// The `tracked/*` label's value (`yes`, `no`, `out-of-tree`).
    pub fn tracked(&self) -> Option<&str> {
        self.labels
            .iter()
            .find_map(|l| l.name.strip_prefix("tracked/"))
    }

    /// The `stage/*` label's value.
    pub fn stage(&self) -> Option<&str> {
        self.labels
            .iter()
            .find_map(|l| l.name.strip_prefix("stage/"))
    }

    /// Whether the SIG lead opted it into `release` (`lead-opted-in` and the milestone).
    pub fn opted_in(&self, release: Release) -> bool {
        self.has("lead-opted-in") && self.in_release(release)
    }

    fn in_release(&self, release: Release) -> bool {
        self.milestone
            .as_ref()
            .is_some_and(|m| release.is(&m.title))
    }
}

/// Issues by number (the first of duplicates).
pub fn index(list: &[Issue]) -> BTreeMap<u32, &Issue> {
    let mut m = BTreeMap::new();
    for i in list {
        m.entry(i.number).or_insert(i);
    }
    m
}

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

/// The release in progress, as the release team's board has it: a
/// `tracked/yes` issue on the release's milestone is Tracked; `tracked/no`,
/// or an issue taken off the milestone, is Removed (an exception request is
/// the way back). Other labels leave the files' outcome.
fn board_outcome(row: &mut Row, state: &IssueState, release: Release) {
    let on_milestone = state.milestone.as_deref().is_some_and(|m| release.is(m));
    let (outcome, label, why) = match (state.tracked.as_deref(), on_milestone) {
        (Some("yes"), true) => (
            "tracked",
            "Tracked",
            "tracked/yes on the milestone".to_string(),
        ),
        (Some("no"), _) => ("removed", "Removed", "tracked/no".to_string()),
        (Some(_), false) | (None, false)
            if state.tracked.is_some() || matches!(row.outcome, "tracked" | "tracked-late") =>
        {
            (
                "removed",
                "Removed",
                format!(
                    "the issue's milestone is {}",
                    state.milestone.as_deref().unwrap_or("none")
                ),
            )
        }
        _ => return,
    };
    // Ready and Tracked agree (the checklist met); so do At risk, Missed
    // the freeze and Removed.
    if row.ready != (outcome == "tracked") {
        row.flags.push(format!(
            "the board says {label} ({why}); the files say {}",
            row.label
        ));
    }
    row.outcome = outcome;
    row.label = label;
    row.ready = outcome == "tracked";
}

/// Link `row` to its issue and flag disagreements; in the release in
/// progress the issue's `tracked/*` label and milestone decide Tracked and
/// Removed.
pub fn annotate(row: &mut Row, idx: &BTreeMap<u32, &Issue>, release: Release, in_progress: bool) {
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
    if in_progress {
        board_outcome(row, &state, release);
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_files_name_the_problem() {
        let e = parse(b"{").unwrap_err().to_string();
        assert!(e.contains("not a JSON list"), "{e}");
        let e = parse(b"{}").unwrap_err().to_string();
        assert!(e.contains("JSON list"), "{e}");
        let e = parse(
            br#"[{"number": 1, "title": "t", "milestone": null, "state": "OPEN", "url": "u"}]"#,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("issue 0") && e.contains("`labels`"), "{e}");
        let e = parse(br#"[{"number": "x", "title": "t", "labels": [], "milestone": null, "state": "OPEN", "url": "u"}]"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("issue 0") && e.contains("invalid type"), "{e}");
        let ok = parse(br#"[{"number": 5, "title": "t", "labels": [{"name": "lead-opted-in", "color": "x"}, {"name": "tracked/yes"}, {"name": "stage/beta"}], "milestone": {"title": "v1.35", "number": 3}, "state": "OPEN", "url": "u"}]"#).unwrap();
        assert!(ok[0].opted_in(Release::new(1, 35)) && !ok[0].opted_in(Release::new(1, 36)));
        assert_eq!(
            (ok[0].tracked(), ok[0].stage()),
            (Some("yes"), Some("beta"))
        );
    }
}
