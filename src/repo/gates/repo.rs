//! A kubernetes/kubernetes checkout and its history: snapshots of the gate
//! files at any commit, parsed once per blob.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use anyhow::{anyhow, bail};
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
type TreeMemo = HashMap<(Oid, String), Arc<Listing>>;

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

/// An opened kubernetes/kubernetes checkout: a git repository at a
/// revision (HEAD by default).
pub struct Kubernetes {
    root: PathBuf,
    git: Git,
}

impl Kubernetes {
    /// Opens the checkout at `path` (its root) at revision `rev`. Errors
    /// when `path` is not a directory, is not a git repository (each
    /// release is read at its tag, the release in progress at a commit of
    /// the history: a plain directory has neither, and reading it would
    /// compare nothing while saying the code was read), has no
    /// `pkg/features` (at `rev`), or `rev` is unknown.
    pub fn open(path: &Path, rev: Option<&str>) -> Result<Self, Error> {
        let shown = crate::escape::terminal(&path.display().to_string()).into_owned();
        if !path.is_dir() {
            bail!("{shown} is not a directory: {HINT}");
        }
        let Ok(repo) = Repository::open(path) else {
            if Repository::discover(path).is_ok() {
                bail!("{shown} is inside a git repository, not its root: {HINT}");
            }
            bail!(
                "{shown} is not a git repository: --kubernetes reads each release at its tag \
                 and the release in progress at a commit of the history, which a plain \
                 directory does not have (a sparse or blob-less clone will do: \
                 `git clone --filter=blob:none https://github.com/kubernetes/kubernetes`)"
            );
        };
        let name = rev.unwrap_or("HEAD");
        let commit = repo
            .revparse_single(name)
            .and_then(|o| o.peel_to_commit())
            .map_err(|e| {
                anyhow!(
                    "unknown revision {} in {shown}: {}",
                    crate::escape::terminal(&format!("{name:?}")),
                    crate::escape::terminal(e.message())
                )
            })?;
        if commit.tree()?.get_path(Path::new("pkg/features")).is_err() {
            bail!(
                "{shown} has no pkg/features at {}: {HINT}",
                crate::escape::terminal(name)
            );
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
            git,
        })
    }

    /// The checkout's root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The gates at the revision opened (HEAD by default).
    pub fn head(&self) -> Result<Arc<Snapshot>, Error> {
        self.snapshot_at(&self.git.head.to_string())
    }

    /// The first-parent history of the revision opened, oldest first.
    pub fn master_commits(&self) -> Vec<CommitInfo> {
        self.commits().to_vec()
    }

    fn commits(&self) -> &[CommitInfo] {
        let git = &self.git;
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

    /// The last first-parent commit [`committed_before`](crate::repo::committed_before) `time`.
    pub fn last_before(&self, time: i64) -> Option<CommitInfo> {
        self.commits()
            .iter()
            .rev()
            .find(|c| crate::repo::committed_before(c.time, time))
            .cloned()
    }

    /// The minors of the releases the checkout has a tag `v1.N.P` or a
    /// branch `release-1.N` of: what exists, so that no loop over releases
    /// is bounded by a number read from input.
    pub fn release_minors(&self) -> std::collections::BTreeSet<u32> {
        let repo = lock(&self.git.repo);
        let mut out = std::collections::BTreeSet::new();
        if let Ok(names) = repo.tag_names(Some("v1.*")) {
            out.extend(names.iter().filter_map(|n| {
                let (minor, _) = n.ok()??.strip_prefix("v1.")?.split_once('.')?;
                minor.parse::<u32>().ok()
            }));
        }
        if let Ok(branches) = repo.branches(None) {
            out.extend(branches.flatten().filter_map(|(b, _)| {
                let name = b.name().ok()??;
                let minor = name.rsplit('/').next()?.strip_prefix("release-1.")?;
                minor.parse::<u32>().ok()
            }));
        }
        out
    }

    /// Release 1.`minor`'s highest patch tag `v1.minor.N` (release
    /// candidates and other suffixes are not releases), else its branch
    /// `release-1.minor` (remote `origin`, then local).
    pub fn release_tag(&self, minor: u32) -> Option<TagInfo> {
        let repo = lock(&self.git.repo);
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
        let git = &self.git;
        let repo = lock(&git.repo);
        let tree = repo
            .revparse_single(commit)
            .and_then(|o| o.peel_to_commit())
            .and_then(|c| c.tree())
            .map_err(|e| {
                anyhow!(
                    "unknown revision {}: {}",
                    crate::escape::terminal(&format!("{commit:?}")),
                    crate::escape::terminal(e.message())
                )
            })?;
        let mut cache = lock(&git.cache);
        if let Some(hit) = cache.snapshots.get(&tree.id()) {
            return Ok(hit.clone());
        }
        let listing = gate_files_in_tree(&repo, &tree, &mut cache.trees)?;
        let mut files = Vec::with_capacity(listing.files.len());
        for (path, oid) in &listing.files {
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
        let snapshot = Arc::new(Snapshot::from_facts(files, &listing.problems));
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
    let last = commits
        .iter()
        .rposition(|c| crate::repo::committed_before(c.time, until))?;
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
    let blob = find_blob(repo, oid, path)?;
    let Ok(text) = std::str::from_utf8(blob.content()) else {
        last.remove(path);
        return Ok(parse::read_bytes(blob.content()));
    };
    if text.len() > MAX_FILE_BYTES {
        last.remove(path);
        return Ok(parse::too_large(text.len() as u64));
    }
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

/// Blob `oid` of gate file `path`; a blob the object store lacks (a
/// blob-less clone that did not fetch the gate files' history) is an
/// error naming the file and the way to fetch it, not git's bare "object
/// not found".
pub(super) fn find_blob<'r>(
    repo: &'r Repository,
    oid: Oid,
    path: &str,
) -> Result<git2::Blob<'r>, Error> {
    repo.find_blob(oid).map_err(|e| match e.code() {
        git2::ErrorCode::NotFound => anyhow!(
            "{} (blob {oid}) is not in the checkout: a partial (blob-less) clone \
             lacks the feature-gate files' history; fetch their blobs as \
             docs/install.md says (\"The code, in one command\")",
            crate::escape::terminal(path)
        ),
        _ => anyhow!(e),
    })
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

/// How many directories deep the walks go: kubernetes' deepest gate file
/// is 7 directories down (`staging/src/k8s.io/component-base/logs/api/v1`).
/// A deeper tree is not read below this depth, and says so ([`Listing::problems`]),
/// so a checkout of 20,000 nested directories costs 32 levels, not a stack
/// overflow.
pub const MAX_DEPTH: usize = 32;

/// The largest gate file read, in bytes: `kube_features.go` is 120 KB. A
/// larger file is not parsed (a problem says so): tree-sitter's tree of a
/// 50 MB file took 1.4 GB.
pub const MAX_FILE_BYTES: usize = 4 << 20;

/// The gate files found under a tree and what could not be walked.
#[derive(Clone, Debug, Default)]
pub(super) struct Listing {
    /// (path from the root, blob id), sorted by path.
    pub files: Vec<(String, Oid)>,
    /// Directories not read: deeper than [`MAX_DEPTH`].
    pub problems: Vec<super::Problem>,
}

fn too_deep(path: &str) -> super::Problem {
    super::Problem::unread(
        path,
        0,
        format!("directories nest deeper than {MAX_DEPTH} levels: nothing below this one is read"),
    )
}

/// The gate files of `tree` (paths from the root) and their blob ids,
/// sorted by path. Subtree listings are kept in `memo` by tree id, so an
/// unchanged subtree is read once however many commits share it.
pub(super) fn gate_files_in_tree(
    repo: &Repository,
    tree: &git2::Tree,
    memo: &mut TreeMemo,
) -> Result<Arc<Listing>, Error> {
    let mut out = list_tree(repo, tree.id(), "", 0, memo)?;
    let listing = Arc::make_mut(&mut out);
    listing.files.sort();
    listing.problems.sort_by(|a, b| a.file.cmp(&b.file));
    Ok(out)
}

/// The listing of tree `id` at `prefix`, `depth` directories below the
/// root. Recursive, but never deeper than [`MAX_DEPTH`].
fn list_tree(
    repo: &Repository,
    id: Oid,
    prefix: &str,
    depth: usize,
    memo: &mut TreeMemo,
) -> Result<Arc<Listing>, Error> {
    if let Some(hit) = memo.get(&(id, prefix.to_string())) {
        return Ok(hit.clone());
    }
    let tree = repo.find_tree(id)?;
    let mut out = Listing::default();
    for entry in tree.iter() {
        let Ok(name) = entry.name() else { continue };
        let path = format!("{prefix}{name}");
        match entry.kind() {
            Some(ObjectType::Tree) if wanted_dir(&path) && depth >= MAX_DEPTH => {
                out.problems.push(too_deep(&path));
            }
            Some(ObjectType::Tree) if wanted_dir(&path) => {
                let sub = list_tree(repo, entry.id(), &format!("{path}/"), depth + 1, memo)?;
                out.files.extend(sub.files.iter().cloned());
                out.problems.extend(sub.problems.iter().cloned());
            }
            Some(ObjectType::Blob) if entry.filemode() != MODE_LINK && is_gate_file(&path) => {
                out.files.push((path, entry.id()));
            }
            _ => {}
        }
    }
    let out = Arc::new(out);
    memo.insert((id, prefix.to_string()), out.clone());
    Ok(out)
}

/// The gate files under `root` on disk, relative and sorted (symbolic
/// links are not followed), and the directories deeper than [`MAX_DEPTH`],
/// which are not read.
pub(super) fn gate_files_on_disk(root: &Path) -> Result<(Vec<String>, Vec<super::Problem>), Error> {
    let mut out = Vec::new();
    let mut problems = Vec::new();
    let mut stack = vec![(String::new(), 0)];
    while let Some((rel, depth)) = stack.pop() {
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
                if depth >= MAX_DEPTH {
                    problems.push(too_deep(&path));
                } else {
                    stack.push((path, depth + 1));
                }
            } else if kind.is_file() && is_gate_file(&path) {
                out.push(path);
            }
        }
    }
    out.sort();
    problems.sort_by(|a, b| a.file.cmp(&b.file));
    Ok((out, problems))
}
