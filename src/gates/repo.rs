//! A kubernetes/kubernetes checkout and its history: snapshots of the gate
//! files at any commit, parsed once per blob.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use anyhow::{Context, anyhow, bail};
use git2::{ObjectType, Oid, Repository};
use serde::Serialize;

use super::incremental::{self, Last};
use super::parse::{self, FileFacts};
use super::{Error, PreRelease, Snapshot, is_gate_file};

const HINT: &str = "point --kubernetes at the root of a kubernetes/kubernetes checkout";
const MODE_LINK: i32 = 0o120000;

/// A commit on the first-parent line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CommitInfo {
    /// The full hex id.
    pub id: String,
    /// Committer time, seconds since the Unix epoch.
    pub time: i64,
    /// The committer date in the commit's own offset, `YYYY-MM-DD` (what
    /// `git log --date=short` shows).
    pub date: String,
}

impl CommitInfo {
    fn of(commit: &git2::Commit) -> CommitInfo {
        let t = commit.time();
        let offset = jiff::tz::Offset::from_seconds(t.offset_minutes() * 60)
            .unwrap_or(jiff::tz::Offset::UTC);
        let date = jiff::Timestamp::from_second(t.seconds())
            .map(|ts| ts.to_zoned(offset.to_time_zone()).date().to_string())
            .unwrap_or_default();
        CommitInfo {
            id: commit.id().to_string(),
            time: t.seconds(),
            date,
        }
    }
}

/// A release's tag (or, without one, its release branch).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TagInfo {
    /// `v1.35.4`, or the branch's ref (`refs/remotes/origin/release-1.35`).
    pub name: String,
    /// The patch number of a tag.
    pub patch: Option<u32>,
    /// The commit it points at.
    pub commit: CommitInfo,
}

/// Subtree listings (by tree id and path) and parsed blobs.
type TreeMemo = HashMap<(Oid, String), Arc<Vec<(String, Oid)>>>;

#[derive(Default)]
struct Cache {
    trees: TreeMemo,
    blobs: HashMap<Oid, Arc<FileFacts>>,
    /// Each path's last parsed version, to parse the next from.
    last: HashMap<String, Last>,
    snapshots: HashMap<Oid, Arc<Snapshot>>,
}

struct Git {
    repo: Mutex<Repository>,
    head: Oid,
    commits: OnceLock<Vec<CommitInfo>>,
    cache: Mutex<Cache>,
}

/// An opened kubernetes/kubernetes checkout: a git repository at a revision
/// (HEAD by default), or a plain directory of its files.
pub struct Kubernetes {
    root: PathBuf,
    git: Option<Git>,
}

impl Kubernetes {
    /// Opens the checkout at `path` (its root) at revision `rev`. Errors
    /// when `path` is not a directory, has no `pkg/features` (at `rev`),
    /// `rev` is unknown, or `rev` is given for a directory that is not a
    /// git repository.
    pub fn open(path: &Path, rev: Option<&str>) -> Result<Self, Error> {
        if !path.is_dir() {
            bail!("{} is not a directory: {HINT}", path.display());
        }
        let Ok(repo) = Repository::open(path) else {
            if let Some(rev) = rev {
                bail!(
                    "{} is not a git repository, so it has no revision {rev:?}",
                    path.display()
                );
            }
            if !path.join("pkg/features").is_dir() {
                bail!("{} has no pkg/features: {HINT}", path.display());
            }
            return Ok(Kubernetes {
                root: path.to_path_buf(),
                git: None,
            });
        };
        let name = rev.unwrap_or("HEAD");
        let commit = repo
            .revparse_single(name)
            .and_then(|o| o.peel_to_commit())
            .map_err(|e| {
                anyhow!(
                    "unknown revision {name:?} in {}: {}",
                    path.display(),
                    e.message()
                )
            })?;
        if commit.tree()?.get_path(Path::new("pkg/features")).is_err() {
            bail!("{} has no pkg/features at {name}: {HINT}", path.display());
        }
        let head = commit.id();
        drop(commit);
        let git = Git {
            repo: Mutex::new(repo),
            head,
            commits: OnceLock::new(),
            cache: Mutex::new(Cache::default()),
        };
        Ok(Kubernetes {
            root: path.to_path_buf(),
            git: Some(git),
        })
    }

    /// The checkout's root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The gates at the revision opened (HEAD by default), or in the
    /// working directory when the checkout is not a git repository.
    pub fn head(&self) -> Result<Arc<Snapshot>, Error> {
        match &self.git {
            Some(git) => self.snapshot_at(&git.head.to_string()),
            None => Ok(Arc::new(Snapshot::from_dir(&self.root)?)),
        }
    }

    /// The first-parent history of the revision opened, oldest first
    /// (empty without git).
    pub fn master_commits(&self) -> Vec<CommitInfo> {
        self.commits().to_vec()
    }

    fn commits(&self) -> &[CommitInfo] {
        let Some(git) = &self.git else {
            return &[];
        };
        git.commits.get_or_init(|| {
            let repo = lock(&git.repo);
            let mut out = Vec::new();
            let mut next = repo.find_commit(git.head).ok();
            while let Some(commit) = next {
                out.push(CommitInfo::of(&commit));
                next = commit.parent(0).ok();
            }
            out.reverse();
            out
        })
    }

    /// The last first-parent commit committed at or before `time`.
    pub fn last_before(&self, time: i64) -> Option<CommitInfo> {
        self.commits()
            .iter()
            .rev()
            .find(|c| c.time <= time)
            .cloned()
    }

    /// Release 1.`minor`'s highest patch tag `v1.minor.N` (release
    /// candidates and other suffixes are not releases), else its branch
    /// `release-1.minor` (remote `origin`, then local).
    pub fn release_tag(&self, minor: u32) -> Option<TagInfo> {
        let repo = lock(&self.git.as_ref()?.repo);
        let prefix = format!("v1.{minor}.");
        let names = repo.tag_names(Some(&format!("{prefix}*"))).ok()?;
        let best = names
            .iter()
            .filter_map(|n| {
                let n = n.ok()??;
                Some((n.strip_prefix(&prefix)?.parse::<u32>().ok()?, n))
            })
            .max();
        if let Some((patch, name)) = best {
            let commit = repo.revparse_single(name).ok()?.peel_to_commit().ok()?;
            let commit = CommitInfo::of(&commit);
            return Some(TagInfo {
                name: name.to_string(),
                patch: Some(patch),
                commit,
            });
        }
        ["refs/remotes/origin/", "refs/heads/"]
            .iter()
            .find_map(|r| {
                let name = format!("{r}release-1.{minor}");
                let commit = repo.revparse_single(&name).ok()?.peel_to_commit().ok()?;
                Some(TagInfo {
                    name,
                    patch: None,
                    commit: CommitInfo::of(&commit),
                })
            })
    }

    /// The gates at `commit` (any revision git understands). Snapshots are
    /// kept by tree id and parsed files by blob id, so asking again, or for
    /// a commit that shares files with one read before, parses nothing new.
    pub fn snapshot_at(&self, commit: &str) -> Result<Arc<Snapshot>, Error> {
        let git = self
            .git
            .as_ref()
            .context("not a git repository: no history to read")?;
        let repo = lock(&git.repo);
        let tree = repo
            .revparse_single(commit)
            .and_then(|o| o.peel_to_commit())
            .and_then(|c| c.tree())
            .map_err(|e| anyhow!("unknown revision {commit:?}: {}", e.message()))?;
        let mut cache = lock(&git.cache);
        if let Some(hit) = cache.snapshots.get(&tree.id()) {
            return Ok(hit.clone());
        }
        let listing = gate_files_in_tree(&repo, &tree, &mut cache.trees)?;
        let mut files = Vec::with_capacity(listing.len());
        for (path, oid) in listing.iter() {
            let facts = match cache.blobs.get(oid) {
                Some(f) => f.clone(),
                None => {
                    let facts = Arc::new(parse_blob(&repo, &mut cache.last, path, *oid)?);
                    cache.blobs.insert(*oid, facts.clone());
                    facts
                }
            };
            files.push((path.clone(), facts));
        }
        let snapshot = Arc::new(Snapshot::from_facts(files));
        cache.snapshots.insert(tree.id(), snapshot.clone());
        Ok(snapshot)
    }
}

/// When gate `gate`'s code for release 1.`minor` at stage `stage` landed
/// on the first-parent line, as it stood at `until`: the oldest commit of
/// the unbroken run of commits, ending with the last one at or before
/// `until`, in which [`super::Gate::stage_at`]`(minor)` is `stage` from a
/// spec written for 1.`minor` (its `Version` is `minor`; an unversioned
/// spec, which names no release, holds for any).
///
/// `None` when the last commit at or before `until` does not have it (not
/// landed yet, reverted, or a gate that kept an older spec: a Beta in 1.36
/// still Beta in 1.37 landed nothing for 1.37). The run is then only as
/// long as the spec is new, so the walk reads a few commits, not the whole
/// line. Commits that cannot be read end the run.
pub fn landed(
    k: &Kubernetes,
    gate: &str,
    minor: u32,
    stage: PreRelease,
    until: i64,
) -> Option<CommitInfo> {
    let commits = k.commits();
    let last = commits.iter().rposition(|c| c.time <= until)?;
    let holds = |c: &CommitInfo| {
        k.snapshot_at(&c.id).ok().is_some_and(|s| {
            s.gates.get(gate).is_some_and(|g| {
                g.stage_at(minor).is_some_and(|spec| {
                    spec.pre_release == stage && (spec.minor == minor || !g.versioned)
                })
            })
        })
    };
    let mut first = None;
    for c in commits[..=last].iter().rev() {
        if !holds(c) {
            break;
        }
        first = Some(c.clone());
    }
    first
}

/// Blob `oid` at `path`, parsed from the path's last version when it is
/// UTF-8 (byte offsets must be the text's), else in full.
fn parse_blob(
    repo: &Repository,
    last: &mut HashMap<String, Last>,
    path: &str,
    oid: Oid,
) -> Result<FileFacts, Error> {
    let blob = repo.find_blob(oid)?;
    let Ok(text) = std::str::from_utf8(blob.content()) else {
        last.remove(path);
        return Ok(parse::read(&String::from_utf8_lossy(blob.content())));
    };
    let (facts, next) = incremental::parse_next(repo, last.get(path), &blob, text);
    match next {
        Some(next) => last.insert(path.to_string(), next),
        None => last.remove(path),
    };
    Ok(facts)
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Whether the walk descends into directory `path`.
fn wanted_dir(path: &str) -> bool {
    matches!(
        path,
        "pkg" | "staging" | "staging/src" | "staging/src/k8s.io"
    ) || path == "pkg/features"
        || path.starts_with("pkg/features/")
        || path.starts_with("staging/src/k8s.io/")
}

/// The gate files of `tree` (paths from the root) and their blob ids,
/// sorted by path. Subtree listings are kept in `memo` by tree id, so an
/// unchanged subtree is read once however many commits share it.
pub(super) fn gate_files_in_tree(
    repo: &Repository,
    tree: &git2::Tree,
    memo: &mut TreeMemo,
) -> Result<Arc<Vec<(String, Oid)>>, Error> {
    let mut out = list_tree(repo, tree.id(), "", memo)?;
    Arc::make_mut(&mut out).sort();
    Ok(out)
}

fn list_tree(
    repo: &Repository,
    id: Oid,
    prefix: &str,
    memo: &mut TreeMemo,
) -> Result<Arc<Vec<(String, Oid)>>, Error> {
    if let Some(hit) = memo.get(&(id, prefix.to_string())) {
        return Ok(hit.clone());
    }
    let tree = repo.find_tree(id)?;
    let mut out = Vec::new();
    for entry in tree.iter() {
        let Ok(name) = entry.name() else { continue };
        let path = format!("{prefix}{name}");
        match entry.kind() {
            Some(ObjectType::Tree) if wanted_dir(&path) => {
                let sub = list_tree(repo, entry.id(), &format!("{path}/"), memo)?;
                out.extend(sub.iter().cloned());
            }
            Some(ObjectType::Blob) if entry.filemode() != MODE_LINK && is_gate_file(&path) => {
                out.push((path, entry.id()));
            }
            _ => {}
        }
    }
    let out = Arc::new(out);
    memo.insert((id, prefix.to_string()), out.clone());
    Ok(out)
}

/// The gate files under `root` on disk, relative and sorted (symbolic
/// links are not followed).
pub(super) fn gate_files_on_disk(root: &Path) -> Result<Vec<String>, Error> {
    let mut out = Vec::new();
    let mut stack = vec![String::new()];
    while let Some(rel) = stack.pop() {
        let dir = root.join(&rel);
        let entries = match std::fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) if rel.is_empty() => return Err(anyhow!("reading {}: {e}", dir.display())),
            Err(_) => continue,
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let path = if rel.is_empty() {
                name
            } else {
                format!("{rel}/{name}")
            };
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() && wanted_dir(&path) {
                stack.push(path);
            } else if kind.is_file() && is_gate_file(&path) {
                out.push(path);
            }
        }
    }
    out.sort();
    Ok(out)
}
