//! Exception requests: kubernetes/sig-release's
//! `releases/release-1.NN/exceptions.yaml` (`--exceptions FILE`) → one
//! [`Exception`] per request, with the freeze it was asked at and the
//! release team's decision.
//!
//! Two shapes are read: the current one (`enhancementFreeze:` and
//! `codeFreeze:` lists, each entry with `issue: 1234` and `status: approved`
//! or `rejected`) and the older single list (`issue:` an issue URL). An entry
//! without a decision is a request still pending.

use std::collections::BTreeMap;

use anyhow::{Result, anyhow};
use serde::Deserialize;

use super::Freeze;
use crate::kep::metadata::parse_yaml;

/// Where an exception request stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Decision {
    /// Asked for, not decided yet.
    Requested,
    /// Granted: the KEP stays in the release.
    Approved,
    /// Refused: the KEP is out of the release.
    Rejected,
}

impl Decision {
    /// For people: `requested`, `approved`, `rejected`.
    pub fn label(self) -> &'static str {
        match self {
            Decision::Requested => "requested",
            Decision::Approved => "approved",
            Decision::Rejected => "rejected",
        }
    }
}

/// One exception request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exception {
    /// The enhancement issue (= KEP number).
    pub issue: u32,
    /// The freeze it was asked at, when the file's section names one.
    pub freeze: Option<Freeze>,
    /// The decision.
    pub decision: Decision,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Shape {
    Sections(BTreeMap<String, Option<Vec<Entry>>>),
    List(Vec<Entry>),
}

#[derive(Deserialize)]
struct Entry {
    #[serde(default)]
    issue: Option<IssueRef>,
    #[serde(default)]
    status: Option<String>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum IssueRef {
    Number(u64),
    Text(String),
}

/// The freeze a section of the file is for (`enhancementFreeze`,
/// `codeFreeze`, `prrFreeze`, `kepReadiness`), in any case.
fn section_freeze(name: &str) -> Option<Freeze> {
    let n = name.to_ascii_lowercase();
    if n.contains("prr") || n.contains("readiness") {
        Some(Freeze::Prr)
    } else if n.contains("enhancement") {
        Some(Freeze::Enhancements)
    } else if n.contains("code") || n.contains("test") {
        Some(Freeze::Code)
    } else {
        None
    }
}

/// The issue number an entry names: a number, or the number at the end of
/// an enhancements issue URL.
fn issue_number(r: &IssueRef) -> Option<u32> {
    match r {
        IssueRef::Number(n) => u32::try_from(*n).ok(),
        IssueRef::Text(t) => {
            let t = t.trim().trim_end_matches('/');
            let last = t.rsplit('/').next()?;
            if t.contains('/') && !t.contains("/enhancements/issues/") {
                return None;
            }
            last.trim_start_matches('#').parse().ok()
        }
    }
}

fn decision(status: Option<&str>) -> Decision {
    match status.map(|s| s.trim().to_ascii_lowercase()).as_deref() {
        Some("approved" | "granted" | "accepted") => Decision::Approved,
        Some("rejected" | "denied" | "declined") => Decision::Rejected,
        _ => Decision::Requested,
    }
}

/// The exceptions file: how it is named, and the largest read.
pub const FILE: crate::input_file::Kind = crate::input_file::Kind {
    what: "the exceptions file",
    item: "exception",
    limit: 4 << 20,
    hint: "kubernetes/sig-release's releases/release-1.NN/exceptions.yaml",
};

/// Read and parse the exceptions file at `path`, within [`FILE`]'s limit.
pub fn read(path: &std::path::Path) -> Result<Vec<Exception>> {
    let bytes = crate::input_file::read_bytes(&FILE, path)?;
    let text = String::from_utf8_lossy(&bytes);
    parse(&text).map_err(|e| {
        anyhow!(
            "{e} ({})",
            crate::escape::terminal(&path.display().to_string())
        )
    })
}

/// Parse an exceptions file. Entries naming no enhancement issue (a
/// kubernetes/kubernetes issue in the older files) are left out.
pub fn parse(text: &str) -> Result<Vec<Exception>> {
    let shape: Shape = parse_yaml(text, 0).map_err(|e| {
        anyhow!(
            "the exceptions file does not parse{}: {}",
            e.line.map(|l| format!(" at line {l}")).unwrap_or_default(),
            e.message
        )
    })?;
    let sections: Vec<(Option<Freeze>, Vec<Entry>)> = match shape {
        Shape::List(list) => vec![(None, list)],
        Shape::Sections(map) => map
            .into_iter()
            .map(|(k, v)| (section_freeze(&k), v.unwrap_or_default()))
            .collect(),
    };
    let mut out = Vec::new();
    for (freeze, entries) in sections {
        for e in entries {
            let Some(issue) = e.issue.as_ref().and_then(issue_number) else {
                continue;
            };
            out.push(Exception {
                issue,
                freeze,
                decision: decision(e.status.as_deref()),
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_shapes_read() {
        let now = parse(
            "# comment\nenhancementFreeze:\n- name: \"A\"\n  issue: 5683\n  status: \"approved\"\n- name: B\n  issue: 12\ncodeFreeze:\n- name: C\n  issue: 4939\n  status: rejected\n",
        )
        .unwrap();
        assert_eq!(
            now,
            vec![
                Exception {
                    issue: 4939,
                    freeze: Some(Freeze::Code),
                    decision: Decision::Rejected
                },
                Exception {
                    issue: 5683,
                    freeze: Some(Freeze::Enhancements),
                    decision: Decision::Approved
                },
                Exception {
                    issue: 12,
                    freeze: Some(Freeze::Enhancements),
                    decision: Decision::Requested
                },
            ]
        );
        let old = parse(
            "- name: \"x\"\n  issue: \"https://github.com/kubernetes/enhancements/issues/265\"\n  status: \"approved\"\n- name: y\n  issue: \"https://github.com/kubernetes/kubernetes/issues/64563\"\n  status: approved\n",
        )
        .unwrap();
        assert_eq!(
            old,
            vec![Exception {
                issue: 265,
                freeze: None,
                decision: Decision::Approved
            }]
        );
        assert!(
            parse("enhancementFreeze: [")
                .unwrap_err()
                .to_string()
                .contains("does not parse")
        );
    }
}
