//! Who is in the release in progress: a KEP the release view names (its
//! latest-milestone, a stage milestone or its history names the release) →
//! [`Membership`]. With `--issues` the opted-in enhancement issue decides
//! (the `lead-opted-in` label and the release's milestone), as the board
//! is filled from it; without, the files do (`latest-milestone` is the
//! release). A KEP whose only link to the release is a stage milestone
//! written ahead of time is listed apart, never counted.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::analysis::calendar::Current;
use crate::kep::Kep;
use crate::kep::domain::{Release, Status};
use crate::repo::history::KepHistory;
use crate::team::issues::Issue;

/// What decided a KEP is in the release.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Source {
    /// kep.yaml: `latest-milestone` is the release.
    Files,
    /// The enhancement issue: opted in on the release's milestone.
    Issues,
}

impl Source {
    /// For people: how membership was decided.
    pub fn label(self) -> &'static str {
        match self {
            Source::Files => "kep.yaml: latest-milestone is the release",
            Source::Issues => "the enhancement issue: lead-opted-in on the release's milestone",
        }
    }
}

/// A KEP the files tie to the release that is not counted in it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Apart {
    /// Only a stage milestone names the release; latest-milestone is an
    /// earlier release (or none): planned in kep.yaml, not updated this cycle.
    PlannedAhead {
        /// latest-milestone as written.
        latest: String,
    },
    /// latest-milestone names a later release.
    LaterLatest {
        /// latest-milestone as written.
        latest: String,
    },
    /// `--issues`: the files name the release, and no opted-in issue does.
    NotOptedIn {
        /// Why, for people.
        why: String,
    },
}

impl Apart {
    /// For people, with the release: "planned for v1.37 in kep.yaml, not
    /// updated this cycle (latest-milestone v1.35)".
    pub fn says(&self, release: Release) -> String {
        match self {
            Apart::PlannedAhead { latest } => format!(
                "planned for {release} in kep.yaml, not updated this cycle (latest-milestone {})",
                if latest.is_empty() { "unset" } else { latest }
            ),
            Apart::LaterLatest { latest } => {
                format!("a stage milestone names {release}, latest-milestone names {latest}")
            }
            Apart::NotOptedIn { why } => format!("not opted in: {why}"),
        }
    }
}

/// Whether and how a KEP is in the release in progress.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Membership {
    /// In the release.
    In(Source),
    /// On the board, taken off the release's milestone.
    Removed {
        /// What decided it.
        source: Source,
        /// Why, for people.
        why: String,
    },
    /// On the board, moved to a later release.
    Deferred {
        /// Why, for people.
        why: String,
    },
    /// Tied to the release by its files only; listed apart, not counted.
    Apart(Apart),
}

impl Membership {
    /// What decided it (files for a deferral or a KEP apart).
    pub fn source(&self) -> Source {
        match self {
            Membership::In(s) | Membership::Removed { source: s, .. } => *s,
            Membership::Deferred { .. } => Source::Files,
            Membership::Apart(Apart::NotOptedIn { .. }) => Source::Issues,
            Membership::Apart(_) => Source::Files,
        }
    }
}

/// Whether `kep`, which the release view ties to `current`'s release (its
/// files or history name it), is in the release: decided by `issues` when
/// given (by number), else by its files. `None`: its history alone names
/// the release, from before the cycle began.
pub fn membership(
    kep: &Kep,
    hist: Option<&KepHistory>,
    current: &Current,
    issues: Option<&BTreeMap<u32, &Issue>>,
) -> Option<Membership> {
    let release = current.release;
    let m = &kep.meta;
    let names_latest = release.is(&m.latest_milestone);
    let names_stage = m.milestone.entries().iter().any(|(_, w)| release.is(w));
    let deferred = || moved_away(hist, current);
    if let Some(idx) = issues {
        let issue = kep.number().and_then(|n| idx.get(&n).copied());
        if let Some(i) = issue
            && let Some(m) = by_issue(i, release, names_latest)
        {
            return Some(m);
        }
        if let Some(why) = deferred() {
            return Some(Membership::Deferred { why });
        }
        if names_latest {
            return Some(Membership::Apart(Apart::NotOptedIn {
                why: not_opted_in(issue, release),
            }));
        }
    } else if names_latest {
        if m.status == Status::Deferred {
            return Some(Membership::Deferred {
                why: "kep.yaml status is deferred".into(),
            });
        }
        return Some(Membership::In(Source::Files));
    } else if let Some(why) = deferred() {
        return Some(Membership::Deferred { why });
    }
    if !names_stage {
        return None;
    }
    let latest = m.latest_milestone.clone();
    Some(Membership::Apart(match m.latest_release() {
        Some(l) if l > release => Apart::LaterLatest { latest },
        _ => Apart::PlannedAhead { latest },
    }))
}

/// What the issue alone decides: opted in (or taken off: `tracked/no`, the
/// milestone cleared after tracking).
fn by_issue(i: &Issue, release: Release, files_name_it: bool) -> Option<Membership> {
    let removed = |why: String| {
        Some(Membership::Removed {
            source: Source::Issues,
            why,
        })
    };
    match i.tracked() {
        Some("no") if i.opted_in(release) || i.in_release(release) || files_name_it => {
            removed("the issue is labelled tracked/no".into())
        }
        Some(_) if !i.in_release(release) && files_name_it => removed(format!(
            "the issue's milestone is {} (cleared from {release})",
            i.milestone.as_ref().map_or("none", |m| m.title.as_str())
        )),
        _ if i.opted_in(release) => Some(Membership::In(Source::Issues)),
        _ => None,
    }
}

/// Why a KEP whose files name the release is not opted in.
fn not_opted_in(issue: Option<&Issue>, release: Release) -> String {
    match issue {
        None => "its issue is not in the issues file".into(),
        Some(i) => match &i.milestone {
            None => "the issue has no milestone".into(),
            Some(m) if !release.is(&m.title) => format!("the issue's milestone is {}", m.title),
            Some(_) => "the issue lacks the lead-opted-in label".into(),
        },
    }
}

/// With history: the change during the release's cycle that moved
/// latest-milestone from the release to a later one, said for people.
fn moved_away(hist: Option<&KepHistory>, current: &Current) -> Option<String> {
    let release = current.release;
    let start = current
        .cycle
        .and_then(|c| c.start)
        .and_then(|d| d.to_zoned(jiff::tz::TimeZone::UTC).ok())
        .map(|z| z.timestamp().as_second())?;
    let changes = &hist?.changes;
    let last_named = changes
        .iter()
        .rposition(|c| c.latest_milestone.as_deref().is_some_and(|l| release.is(l)))?;
    let moved = changes.get(last_named + 1)?;
    let to = moved.latest_milestone.as_deref().and_then(Release::parse)?;
    (moved.time >= start && to > release).then(|| {
        format!(
            "latest-milestone moved from {release} to {to} on {} (commit {})",
            moved.date,
            moved.commit.get(..10).unwrap_or(&moved.commit)
        )
    })
}
