//! Enhancement issues: the JSON of `gh issue list --json
//! number,title,labels,milestone,state,url` (optionally with `assignees` and
//! `comments`) → [`Issue`]s. In kubernetes/enhancements a KEP's number is its
//! tracking issue's number.
//!
//! What the release team decides from them (who is opted in, `tracked/*`,
//! a cleared milestone, an exception granted in a comment) is read here, as
//! typed answers; the analysis turns them into statuses.

use std::collections::BTreeMap;

use anyhow::Result;
use serde::Deserialize;

use crate::kep::domain::Release;

/// The fields `--issues` needs in every element.
pub const FIELDS: &[&str] = &["number", "title", "labels", "milestone", "state", "url"];

/// The issues file: how it is named, and the largest read (64 MiB; the
/// enhancements repository's every issue, with these fields, is about
/// 5 MB, with comments a few times that).
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
    /// Assignees, when the export has them (`--json …,assignees`).
    #[serde(default)]
    pub assignees: Vec<Login>,
    /// The comments that speak of an exception, when the export has
    /// comments (`--json …,comments`); the others are dropped as read.
    #[serde(default, deserialize_with = "read_comments")]
    pub comments: Vec<Comment>,
}

fn read_labels<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<Label>, D::Error> {
    crate::input_file::filtered(d, |l: &Label| {
        l.name == "lead-opted-in" || l.name.starts_with("tracked/") || l.name.starts_with("stage/")
    })
}

fn read_comments<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<Comment>, D::Error> {
    crate::input_file::filtered(d, |c: &Comment| exception_word(&c.body).is_some())
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

/// A GitHub account.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct Login {
    /// Its login.
    #[serde(default)]
    pub login: String,
}

/// An issue comment.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Comment {
    /// Who wrote it.
    #[serde(default)]
    pub author: Option<Login>,
    /// What it says.
    #[serde(default)]
    pub body: String,
}

/// What an issue's comments say of an exception request, the latest first
/// (see [`Issue::exception`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExceptionWord {
    /// A comment says an exception was approved or granted.
    Approved,
    /// A comment says it was rejected, denied or declined.
    Rejected,
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

    /// Whether its milestone is `release`.
    pub fn in_release(&self, release: Release) -> bool {
        self.milestone
            .as_ref()
            .is_some_and(|m| release.is(&m.title))
    }

    /// Whether the issue is closed.
    pub fn is_closed(&self) -> bool {
        self.state.eq_ignore_ascii_case("closed")
    }

    /// The assignees' logins, in order, without empty ones.
    pub fn assignee_logins(&self) -> Vec<&str> {
        self.assignees
            .iter()
            .map(|a| a.login.as_str())
            .filter(|l| !l.is_empty())
            .collect()
    }

    /// What the newest comment that speaks of an exception's decision says:
    /// "exception … approved/granted" or "approved/granted … exception" in
    /// one sentence (rejected, denied or declined likewise). The release
    /// team's reminders ("you can file an exception request") name no
    /// decision, so they never count.
    pub fn exception(&self) -> Option<ExceptionWord> {
        self.comments
            .iter()
            .rev()
            .find_map(|c| exception_word(&c.body))
    }
}

/// The decision one comment states about an exception, if any.
pub fn exception_word(body: &str) -> Option<ExceptionWord> {
    let lower = body.to_lowercase();
    let mut found = None;
    for sentence in lower.split(['.', '!', '?', '\n']) {
        let has = |words: &[&str]| {
            sentence
                .split(|c: char| !c.is_alphanumeric())
                .any(|w| words.contains(&w))
        };
        if !has(&["exception", "exceptions"]) {
            continue;
        }
        if has(&["rejected", "denied", "declined"]) {
            found = Some(ExceptionWord::Rejected);
        } else if has(&["approved", "granted"]) {
            found = Some(ExceptionWord::Approved);
        }
    }
    found
}

/// Issues by number (the first of duplicates).
pub fn index(list: &[Issue]) -> BTreeMap<u32, &Issue> {
    let mut m = BTreeMap::new();
    for i in list {
        m.entry(i.number).or_insert(i);
    }
    m
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
        assert!(ok[0].assignees.is_empty() && ok[0].comments.is_empty());
    }

    #[test]
    fn exception_decisions_are_read_from_comments_that_state_one() {
        for (body, want) in [
            (
                "If you anticipate missing enhancements freeze, you can file an exception request in advance.",
                None,
            ),
            (
                "The exception request was approved by the release team.",
                Some(ExceptionWord::Approved),
            ),
            (
                "Exception granted! Please merge by Friday.",
                Some(ExceptionWord::Approved),
            ),
            (
                "We approved the exception for v1.37",
                Some(ExceptionWord::Approved),
            ),
            (
                "Unfortunately the exception was rejected.",
                Some(ExceptionWord::Rejected),
            ),
            ("Approved. Exception requests close Friday.", None),
            ("exceptional work, approved", None),
        ] {
            assert_eq!(exception_word(body), want, "{body}");
        }
        let mut issue = parse(br#"[{"number": 5, "title": "t", "labels": [], "milestone": null, "state": "OPEN", "url": "u",
            "comments": [{"author": {"login": "a"}, "body": "Exception approved."}, {"body": "thanks"}]}]"#)
        .unwrap()
        .remove(0);
        assert_eq!(issue.exception(), Some(ExceptionWord::Approved));
        assert_eq!(
            issue.comments.len(),
            1,
            "a comment with no decision is not kept"
        );
        issue.comments.push(Comment {
            author: None,
            body: "The exception is denied, sorry.".into(),
        });
        assert_eq!(issue.exception(), Some(ExceptionWord::Rejected));
    }
}
