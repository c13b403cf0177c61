//! The commits between two revisions of the repository (`--since`): the
//! older revision resolved (a revision, or `HEAD@{date}` read as the last
//! first-parent commit before that date), and each commit on the way with
//! the `keps/` paths it touched, read with git2.

use std::path::Path;

use anyhow::{Context, Result, bail};
use git2::{DiffOptions, Repository, Sort};
use serde::Serialize;

use crate::repo::history::format_date;

/// A commit between `--since` and the reported revision.
#[derive(Debug, Clone, Serialize)]
pub struct RangeCommit {
    /// Commit id.
    pub id: String,
    /// Committer date, `YYYY-MM-DD`.
    pub date: String,
    /// First line of the message.
    pub summary: String,
    /// Paths under `keps/` it changed, relative to the repository root given.
    #[serde(skip)]
    pub paths: Vec<String>,
}

/// The resolved `--since` revision and the commits after it.
#[derive(Debug, Clone)]
pub struct Range {
    /// `--since` as given.
    pub rev: String,
    /// Its commit id.
    pub commit: String,
    /// Its committer date.
    pub date: String,
    /// Commits reachable from the reported revision but not from `--since`, newest first.
    pub commits: Vec<RangeCommit>,
}

/// Resolve `since` and list the commits from it to `head` (`--rev`, else
/// HEAD) in the repository holding `root`; an error unless `since` is an
/// ancestor of (or the same as) `head`.
pub fn range(root: &Path, since: &str, head: Option<&str>) -> Result<Range> {
    let repo = Repository::discover(root).with_context(|| {
        format!(
            "--since needs a git repository; {} is not in one",
            root.display()
        )
    })?;
    let head_name = head.unwrap_or("HEAD");
    let resolve = |rev: &str, what: &str| {
        repo.revparse_single(rev)
            .and_then(|o| o.peel_to_commit())
            .with_context(|| {
                format!(
                    "{what} {rev:?} does not name a commit in {}",
                    root.display()
                )
            })
    };
    let to = resolve(head_name, "revision")?;
    let from = match since_date(since) {
        Some(cutoff) => crate::repo::before_on_first_parent(&to, cutoff).with_context(|| {
            format!("--since {since}: no commit of {head_name}'s first-parent line is older")
        })?,
        None => resolve(since, "--since")?,
    };
    if since.contains("@{") && from.id() == to.id() {
        tracing::warn!(
            "--since {since} resolved to {head_name} itself: the reflog has no entry that old \
             (a fresh clone's reflog starts at the clone), so nothing is reported as changed; \
             give a date (--since 2026-07-17) or a commit instead"
        );
    }
    if from.id() != to.id() && !repo.graph_descendant_of(to.id(), from.id())? {
        bail!(
            "--since {since:?} ({}) is not an ancestor of {head_name} ({}): a report compares a revision with an earlier one",
            short(&from.id().to_string()),
            short(&to.id().to_string())
        );
    }
    let keps = format!("{}keps", prefix(&repo, root));
    Ok(Range {
        rev: since.to_string(),
        commit: from.id().to_string(),
        date: format_date(from.time().seconds()),
        commits: commits_touching(&repo, &keps, &from, &to)?,
    })
}

/// `--since YYYY-MM-DD`: the first second of that day, UTC (never the
/// local zone, so a report reads the same everywhere).
fn since_date(since: &str) -> Option<i64> {
    if since.len() != 10 {
        return None;
    }
    let date: jiff::civil::Date = since.parse().ok()?;
    let zoned = date.to_zoned(jiff::tz::TimeZone::UTC).ok()?;
    Some(zoned.timestamp().as_second())
}

/// The commits after `from` up to `to` that changed the `keps` subtree, newest first.
fn commits_touching(
    repo: &Repository,
    keps: &str,
    from: &git2::Commit,
    to: &git2::Commit,
) -> Result<Vec<RangeCommit>> {
    let mut walk = repo.revwalk()?;
    walk.set_sorting(Sort::TOPOLOGICAL | Sort::TIME)?;
    walk.push(to.id())?;
    walk.hide(from.id())?;
    // Diff only the keps/ subtrees: unchanged directories are skipped by id.
    let subtree = |c: &git2::Commit| -> Result<Option<git2::Tree>> {
        match c.tree()?.get_path(Path::new(keps)) {
            Ok(e) => Ok(repo.find_tree(e.id()).ok()),
            Err(_) => Ok(None),
        }
    };
    let mut commits = Vec::new();
    for id in walk {
        let c = repo.find_commit(id?)?;
        let tree = subtree(&c)?;
        let parent = match c.parents().next() {
            Some(p) => subtree(&p)?,
            None => None,
        };
        if tree.as_ref().map(|t| t.id()) == parent.as_ref().map(|t| t.id()) {
            continue;
        }
        let paths = changed_paths(repo, parent.as_ref(), tree.as_ref())?;
        if paths.is_empty() {
            continue;
        }
        commits.push(RangeCommit {
            id: c.id().to_string(),
            date: format_date(c.time().seconds()),
            summary: String::from_utf8_lossy(c.summary_bytes().unwrap_or_default()).into_owned(),
            paths,
        });
    }
    Ok(commits)
}

/// The paths (`keps/…`, each once) that differ between two `keps` subtrees.
fn changed_paths(
    repo: &Repository,
    old: Option<&git2::Tree>,
    new: Option<&git2::Tree>,
) -> Result<Vec<String>> {
    let diff = repo.diff_tree_to_tree(old, new, Some(&mut DiffOptions::new()))?;
    let mut paths = Vec::new();
    for d in diff.deltas() {
        for f in [d.old_file(), d.new_file()] {
            if let Some(p) = f.path().and_then(|p| p.to_str()) {
                let rel = format!("keps/{p}");
                if !paths.contains(&rel) {
                    paths.push(rel);
                }
            }
        }
    }
    Ok(paths)
}

/// `root` relative to the repository's working directory, `/`-terminated ("" at the top).
fn prefix(repo: &Repository, root: &Path) -> String {
    let (Some(wd), Ok(root)) = (repo.workdir(), root.canonicalize()) else {
        return String::new();
    };
    let wd = wd.canonicalize().unwrap_or_else(|_| wd.to_path_buf());
    match root.strip_prefix(&wd) {
        Ok(rel) if !rel.as_os_str().is_empty() => {
            format!("{}/", rel.to_string_lossy().replace('\\', "/"))
        }
        _ => String::new(),
    }
}

/// A commit id shortened to 10 characters.
fn short(id: &str) -> &str {
    &id[..id.len().min(10)]
}
