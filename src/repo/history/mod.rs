//! KEP history: a git repository path and revision (`&Path`, `&str`) to each
//! KEP's stage history (`History`: `KepHistory` per number with its `Change`s).
//!
//! The walk visits the first-parent line of the revision (the default
//! branch as it happened), oldest first, and diffs only the `keps/` subtree
//! against the first parent, so unchanged subtrees are skipped by object id.
//! A change is dated when it landed on that line; a change made and undone
//! on a side branch never happened. Renames are followed by KEP number, not
//! by rename detection. The state after the walk is cached on disk keyed by
//! the head commit, so a later run replays only the new commits.

mod cache;
mod extract;
mod walk;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use serde::{Deserialize, Serialize};

/// How to run a history walk.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HistoryOptions {
    /// Directory for the cache file (`history-v4.json`); `None` disables the cache.
    pub cache_dir: Option<PathBuf>,
    /// Show a progress bar on stderr when it is a terminal and the walk takes
    /// more than a second.
    pub progress: bool,
}

/// Every KEP's history as of one commit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct History {
    /// The commit id the walk ended at.
    pub head: String,
    /// The clone is shallow: the history stops before the repository's
    /// first commit, so timelines and past releases are partial.
    #[serde(default)]
    pub shallow: bool,
    /// Per-KEP history, by KEP number.
    pub keps: BTreeMap<u32, KepHistory>,
}

impl History {
    /// The newest commit time of any KEP (unix seconds; 0 when empty): the
    /// "now" that history is judged against, so outputs of one revision are
    /// reproducible.
    pub fn newest_time(&self) -> i64 {
        self.keps
            .values()
            .map(|k| k.last.time)
            .max()
            .unwrap_or_default()
    }
}

/// One KEP's history.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KepHistory {
    /// The KEP number.
    pub number: u32,
    /// Every kep.yaml or legacy single-file path it had, oldest first.
    pub paths: Vec<String>,
    /// Commits where (status, stage, latest-milestone) changed, oldest first;
    /// the first appearance of the metadata is always recorded.
    pub changes: Vec<Change>,
    /// The first commit that touched any file of the KEP.
    pub first: CommitRef,
    /// The last commit that touched any file of the KEP.
    pub last: CommitRef,
}

/// One recorded metadata value of a KEP.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Change {
    /// Commit id.
    pub commit: String,
    /// Committer time, unix seconds.
    pub time: i64,
    /// Committer date, `YYYY-MM-DD` UTC.
    pub date: String,
    /// The kep.yaml (or legacy markdown) path the values were read from.
    pub path: String,
    /// `status`, as written.
    pub status: Option<String>,
    /// `stage`, as written.
    pub stage: Option<String>,
    /// `latest-milestone`, as written.
    pub latest_milestone: Option<String>,
}

impl Change {
    /// The (status, stage, latest-milestone) triple this change recorded.
    pub fn values(&self) -> (Option<&str>, Option<&str>, Option<&str>) {
        (
            self.status.as_deref(),
            self.stage.as_deref(),
            self.latest_milestone.as_deref(),
        )
    }
}

/// A commit, as shown in history views.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CommitRef {
    /// Commit id.
    pub id: String,
    /// Committer time, unix seconds.
    pub time: i64,
    /// Committer date, `YYYY-MM-DD` UTC.
    pub date: String,
    /// First line of the message.
    pub summary: String,
}

impl KepHistory {
    /// Whole days from the last commit touching the KEP to `now` (unix secs).
    pub fn days_since_last_change(&self, now: i64) -> i64 {
        now.saturating_sub(self.last.time).div_euclid(86_400)
    }

    /// Whether the KEP has not been touched for at least `stale_days` days.
    pub fn is_stale(&self, now: i64, stale_days: i64) -> bool {
        self.days_since_last_change(now) >= stale_days
    }

    /// The latest recorded change, if the KEP ever had metadata.
    pub fn current(&self) -> Option<&Change> {
        self.changes.last()
    }
}

/// What a shallow clone changes, said once on stderr and in the report's and
/// the site's footers.
pub const SHALLOW_NOTICE: &str = "this clone is shallow: its history is partial, so stage \
timelines, the outcomes of past releases, report --since and freeze verdicts taken at a \
deadline before its oldest commit cover only the commits it holds; `git fetch --unshallow` \
deepens it";

/// The history of `root` at `rev` (default HEAD) when `root` is the top of a
/// git repository (a bare one only with a `rev`), with a progress bar on a
/// terminal; `None` for a plain directory or the embedded sample. A walk that
/// fails is a warning ([`crate::timing::warn`]) and treated as no history.
pub fn walk_if_git(root: &Path, rev: Option<&str>, cache_dir: Option<&Path>) -> Option<History> {
    use std::io::IsTerminal as _;
    let is_repo = git2::Repository::open(root).is_ok_and(|r| {
        (!r.is_bare() || rev.is_some())
            // A --rev that does not resolve is the load's error to report.
            && rev.is_none_or(|rev| r.revparse_single(rev).is_ok())
    });
    if !is_repo {
        return None;
    }
    let opts = HistoryOptions {
        cache_dir: cache_dir.map(Path::to_path_buf),
        progress: std::io::stderr().is_terminal(),
    };
    match walk(root, rev.unwrap_or("HEAD"), &opts) {
        Ok(h) => {
            if h.shallow {
                crate::timing::warn(format_args!("{}", SHALLOW_NOTICE));
            }
            Some(h)
        }
        Err(e) => {
            crate::timing::warn(format_args!(
                "no history for {}: {}",
                root.display(),
                crate::errors::one_line(&e)
            ));
            None
        }
    }
}

/// Walks the history of `repo_path` up to `rev`, using and refreshing the
/// cache in `opts.cache_dir`.
///
/// Errors only when the repository cannot be opened or `rev` does not name a
/// commit; a missing, corrupt or unrelated cache is silently rebuilt.
///
/// Turns off libgit2's re-hashing of every object it reads (a process-wide
/// setting, as git itself does not verify on read either): with SHA-1
/// collision detection it costs about a third of the walk.
pub fn walk(repo_path: &Path, rev: &str, opts: &HistoryOptions) -> anyhow::Result<History> {
    git2::opts::strict_hash_verification(false);
    let repo = git2::Repository::open(repo_path)
        .with_context(|| format!("opening git repository {}", repo_path.display()))?;
    let head = repo
        .revparse_single(rev)
        .and_then(|o| o.peel_to_commit())
        .map_err(|e| {
            anyhow::anyhow!(
                "resolving revision {rev:?} in {}: {}",
                repo_path.display(),
                e.message()
            )
        })?
        .id();

    let cached = opts
        .cache_dir
        .as_deref()
        .and_then(cache::load)
        .filter(|c| cache::usable(&repo, c, head));
    let (state, walked) = match cached {
        Some(c) if c.head == head.to_string() => (c.state, false),
        Some(c) => {
            let base = git2::Oid::from_str(&c.head).ok();
            let state = walk::run(&repo, repo_path, head, base, c.state, opts.progress)?;
            (state, true)
        }
        None => {
            let state = walk::State::default();
            let state = walk::run(&repo, repo_path, head, None, state, opts.progress)?;
            (state, true)
        }
    };
    let head = head.to_string();
    let shallow = cache::boundary(&repo);
    if walked && let Some(dir) = &opts.cache_dir {
        // The cache is an optimisation: failing to write it must not fail the walk.
        let _ = cache::store(dir, &head, &shallow, &state);
    }
    Ok(History {
        head,
        shallow: !shallow.is_empty(),
        keps: state.keps,
    })
}

/// Formats unix seconds as a `YYYY-MM-DD` UTC date; a time outside jiff's
/// range reads as the epoch.
pub(crate) fn format_date(secs: i64) -> String {
    jiff::Timestamp::from_second(secs)
        .map(|t| t.to_zoned(jiff::tz::TimeZone::UTC).date())
        .unwrap_or(jiff::civil::date(1970, 1, 1))
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(format_date(0), "1970-01-01");
        assert_eq!(format_date(951_782_400), "2000-02-29");
        assert_eq!(format_date(1_700_000_000), "2023-11-14");
        assert_eq!(format_date(-1), "1969-12-31");
        let _ = format_date(i64::MIN);
        let _ = format_date(i64::MAX);
    }

    #[test]
    fn staleness() {
        let c = CommitRef {
            id: String::new(),
            time: 86_400 * 10,
            date: String::new(),
            summary: String::new(),
        };
        let k = KepHistory {
            number: 1,
            paths: vec![],
            changes: vec![],
            first: c.clone(),
            last: c,
        };
        assert_eq!(k.days_since_last_change(86_400 * 40 + 5), 30);
        assert!(k.is_stale(86_400 * 40, 30));
        assert!(!k.is_stale(86_400 * 39, 30));
        assert_eq!(
            k.days_since_last_change(i64::MIN),
            i64::MIN.div_euclid(86_400)
        );
    }
}
