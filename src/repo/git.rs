//! Git loader: a revision of a repository → [`RepoSnapshot`], read from the
//! object database with git2 (no checkout, no temporary files).
//!
//! Symlink blobs are resolved inside the revision's tree exactly as the
//! working-tree loader resolves them on disk, so both loaders agree.

use std::path::Path;

use anyhow::{Context, Result, anyhow};
use git2::{ObjectType, Oid, Repository, Tree, TreeWalkMode, TreeWalkResult};

use super::{
    LoadProblem, MAX_FILE_BYTES, RepoFile, RepoSnapshot, Source, finish, is_input, is_wanted,
    link_target_allowed, resolve_link,
};

const MODE_LINK: i32 = 0o120000;
const MODE_TREE: i32 = 0o040000;

/// "; this clone is shallow ..." when it is: the likely reason a revision
/// is missing.
pub(crate) fn shallow_hint(repo: &Repository) -> &'static str {
    if repo.is_shallow() {
        " (this clone is shallow, so older commits are not in it: `git fetch --unshallow`, \
         or `git fetch --deepen=N`)"
    } else {
        ""
    }
}

pub(super) fn load(
    root: &Path,
    rev: &str,
    defer: Option<super::Defer>,
    held: Option<&super::Held<'_>>,
) -> Result<RepoSnapshot> {
    load_where(root, rev, defer, held, &|_| true)
}

/// [`load`] (a revision read whole) of the paths `under` keeps (a
/// directory is entered when it, or a path below it, is kept): one KEP's
/// files at a pull request's head.
pub(super) fn load_where(
    root: &Path,
    rev: &str,
    defer: Option<super::Defer>,
    held: Option<&super::Held<'_>>,
    under: &dyn Fn(&str) -> bool,
) -> Result<RepoSnapshot> {
    let repo = Repository::discover(root)
        .with_context(|| format!("{} is not inside a git repository", root.display()))?;
    let prefix = subdir_prefix(&repo, root)?;
    let object = repo.revparse_single(rev).map_err(|_| {
        anyhow::anyhow!(
            "unknown revision {rev:?} in {}{}",
            root.display(),
            shallow_hint(&repo)
        )
    })?;
    let commit = object
        .peel_to_commit()
        .with_context(|| format!("revision {rev:?} is not a commit"))?;
    let tree = root_tree(&repo, &commit, &prefix)?;

    let mut listed: Vec<(String, Oid, i32)> = Vec::new();
    tree.walk(TreeWalkMode::PreOrder, |dir, entry| {
        let Ok(name) = entry.name() else {
            return TreeWalkResult::Skip;
        };
        let path = format!("{dir}{name}");
        if entry.filemode() == MODE_TREE {
            // Descend only where kepsite looks.
            if (path == "keps" || path.starts_with("keps/")) && under(&format!("{path}/")) {
                return TreeWalkResult::Ok;
            }
            return TreeWalkResult::Skip;
        }
        if is_wanted(&path) && under(&path) && entry.kind() != Some(ObjectType::Commit) {
            listed.push((path, entry.id(), entry.filemode()));
        }
        TreeWalkResult::Ok
    })
    .context("walking the tree")?;

    let unread = match defer {
        Some(pick) => take_deferred(&mut listed, pick),
        None => Vec::new(),
    };
    let out = read_parallel(&repo, tree.id(), listed, held)?;
    let Read {
        mut files,
        assets,
        problems,
    } = out;
    files.extend(unread.iter().map(|(path, _)| RepoFile {
        path: path.clone(),
        bytes: Vec::new(),
    }));
    let mut snapshot = finish(source_at(root, &commit), files, assets, problems);
    if defer.is_some() {
        snapshot.deferred = Some(super::Deferred(Unread {
            git_dir: repo.path().to_path_buf(),
            tree: tree.id(),
            entries: unread.into_iter().collect(),
        }));
    }
    Ok(snapshot)
}

/// The blobs `pick` defers, taken out of `listed`: (path, blob). Symbolic
/// links stay listed, to be followed as the snapshot follows them.
fn take_deferred(listed: &mut Vec<(String, Oid, i32)>, pick: super::Defer) -> Vec<(String, Oid)> {
    let paths: Vec<&str> = listed.iter().map(|(p, _, _)| p.as_str()).collect();
    let deferred = pick(&paths);
    let mut unread = Vec::new();
    listed.retain(|(p, oid, mode)| {
        let defer = *mode != MODE_LINK && deferred.contains(p);
        if defer {
            unread.push((p.clone(), *oid));
        }
        !defer
    });
    unread
}

/// Blobs of a tree left unread ([`super::Deferred`]).
#[derive(Debug, Clone)]
pub(super) struct Unread {
    git_dir: std::path::PathBuf,
    tree: Oid,
    entries: std::collections::BTreeMap<String, Oid>,
}

impl Unread {
    pub(super) fn contains(&self, path: &str) -> bool {
        self.entries.contains_key(path)
    }

    pub(super) fn take(
        &mut self,
        paths: &[&str],
        held: Option<&super::Held<'_>>,
    ) -> Result<(Vec<RepoFile>, Vec<LoadProblem>)> {
        const MODE_BLOB: i32 = 0o100644;
        let listed: Vec<(String, Oid, i32)> = paths
            .iter()
            .filter_map(|p| {
                self.entries
                    .remove(*p)
                    .map(|oid| (p.to_string(), oid, MODE_BLOB))
            })
            .collect();
        if listed.is_empty() {
            return Ok((Vec::new(), Vec::new()));
        }
        let repo = Repository::open(&self.git_dir).context("opening the repository")?;
        let read = read_parallel(&repo, self.tree, listed, held)?;
        Ok((read.files, read.problems))
    }
}

/// Read the `listed` entries of tree `tree` in parallel: each thread opens
/// the repository for itself (a handle is not shared between threads) and
/// reads a run of entries; the runs are joined in order. Inflating the
/// blobs is most of a snapshot's reading (160 ms of the corpus on one
/// thread).
fn read_parallel(
    repo: &Repository,
    tree: Oid,
    listed: Vec<(String, Oid, i32)>,
    held: Option<&super::Held<'_>>,
) -> Result<Read> {
    use rayon::prelude::*;
    let git_dir = repo.path().to_path_buf();
    let run = listed
        .len()
        .div_ceil(4 * rayon::current_num_threads())
        .max(64);
    let reads: Vec<Result<Read>> = listed
        .par_chunks(run)
        .map(|entries| {
            let repo = Repository::open(&git_dir).context("opening the repository")?;
            let tree = repo.find_tree(tree).context("reading the tree")?;
            let mut out = Read::default();
            for (path, oid, mode) in entries {
                out.read(&repo, &tree, path.clone(), *oid, *mode, held)?;
            }
            Ok(out)
        })
        .collect();
    let mut all = Read::default();
    for r in reads {
        let r = r?;
        all.files.extend(r.files);
        all.assets.extend(r.assets);
        all.problems.extend(r.problems);
    }
    Ok(all)
}

/// Files, assets and problems read from a tree, as the loader sorts them.
#[derive(Default)]
struct Read {
    files: Vec<RepoFile>,
    assets: Vec<String>,
    problems: Vec<LoadProblem>,
}

impl Read {
    /// Read one wanted tree entry: follow a symlink inside the tree, keep an
    /// asset's path, read an input file unless it is too large.
    fn read(
        &mut self,
        repo: &Repository,
        tree: &Tree,
        path: String,
        mut oid: Oid,
        mode: i32,
        held: Option<&super::Held<'_>>,
    ) -> Result<()> {
        if mode == MODE_LINK {
            match follow_link(repo, tree, &path, oid) {
                Ok(target) => oid = target,
                Err(message) => {
                    // Empty: a link to a directory, not followed, as on disk.
                    if !message.is_empty() {
                        self.problems.push(LoadProblem {
                            path,
                            rule: "symlink-outside",
                            message,
                        });
                    }
                    return Ok(());
                }
            }
        }
        if !is_input(&path) {
            self.assets.push(path);
            return Ok(());
        }
        if let Some(bytes) = held.and_then(|h| h(&path, &super::BlobId(oid))) {
            self.files.push(RepoFile { path, bytes });
            return Ok(());
        }
        let odb = repo.odb().context("opening the object database")?;
        let size = odb.read_header(oid).map(|(s, _)| s as u64).unwrap_or(0);
        if size > MAX_FILE_BYTES {
            self.problems.push(LoadProblem {
                path,
                rule: "file-too-large",
                message: format!(
                    "file is {size} bytes, over the {MAX_FILE_BYTES} byte limit; not read"
                ),
            });
            return Ok(());
        }
        match repo.find_blob(oid) {
            Ok(blob) => self.files.push(RepoFile {
                path,
                bytes: blob.content().to_vec(),
            }),
            Err(e) => self.problems.push(LoadProblem {
                path,
                rule: "file-unreadable",
                message: e.message().to_string(),
            }),
        }
        Ok(())
    }
}

/// The source of a snapshot read from `commit` of the repository at `root`.
fn source_at(root: &Path, commit: &git2::Commit) -> Source {
    Source {
        root: root.to_path_buf(),
        commit: Some(commit.id().to_string()),
        time: Some(commit.time().seconds()),
    }
}

/// The tree of `commit` at `prefix` (the snapshot root inside the work tree).
fn root_tree<'r>(
    repo: &'r Repository,
    commit: &git2::Commit<'r>,
    prefix: &str,
) -> Result<Tree<'r>> {
    let tree = commit.tree().context("reading the commit's tree")?;
    if prefix.is_empty() {
        return Ok(tree);
    }
    let id = commit.id();
    let entry = tree
        .get_path(Path::new(prefix))
        .with_context(|| format!("{prefix} does not exist at {id}"))?;
    repo.find_tree(entry.id())
        .with_context(|| format!("{prefix} is not a directory at {id}"))
}

/// Follow a symlink blob inside `tree` (up to a few hops). `Err("")` means the
/// target is a directory, which is skipped silently like on disk.
fn follow_link(repo: &Repository, tree: &Tree, path: &str, oid: Oid) -> Result<Oid, String> {
    let mut link = path.to_string();
    let mut oid = oid;
    for _ in 0..8 {
        let blob = repo.find_blob(oid).map_err(|e| e.message().to_string())?;
        let target = String::from_utf8_lossy(blob.content()).to_string();
        let Some(resolved) = resolve_link(&link, &target).filter(|r| link_target_allowed(r)) else {
            return Err(format!(
                "symlink points outside the published part of the repository \
                 (keps/), or into .git ({target}); not followed"
            ));
        };
        let entry = tree
            .get_path(Path::new(&resolved))
            .map_err(|_| "symlink target does not exist; not followed".to_string())?;
        match entry.filemode() {
            MODE_LINK => {
                link = resolved;
                oid = entry.id();
            }
            MODE_TREE => return Err(String::new()),
            _ => return Ok(entry.id()),
        }
    }
    Err("symlink chain too long; not followed".into())
}

/// The path of `root` relative to the repository's work tree ("" at the top).
pub(super) fn subdir_prefix(repo: &Repository, root: &Path) -> Result<String> {
    let Some(workdir) = repo.workdir() else {
        return Ok(String::new()); // bare repository: read from the top
    };
    let workdir = workdir
        .canonicalize()
        .with_context(|| format!("resolving {}", workdir.display()))?;
    let root = root
        .canonicalize()
        .with_context(|| format!("resolving {}", root.display()))?;
    let rel = root
        .strip_prefix(&workdir)
        .map_err(|_| anyhow!("{} is outside the work tree", root.display()))?;
    let parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    Ok(parts.join("/"))
}

/// Read one blob at `path` (relative to the snapshot root) of `commit`.
pub(super) fn read_blobs(
    root: &Path,
    commit: &str,
    paths: &[String],
) -> Result<std::collections::BTreeMap<String, Vec<u8>>> {
    let repo = Repository::discover(root)?;
    let prefix = subdir_prefix(&repo, root)?;
    let tree = repo.find_commit(Oid::from_str(commit)?)?.tree()?;
    let mut out = std::collections::BTreeMap::new();
    for path in paths {
        let full = if prefix.is_empty() {
            path.to_string()
        } else {
            format!("{prefix}/{path}")
        };
        let Ok(entry) = tree.get_path(Path::new(&full)) else {
            continue;
        };
        let oid = match entry.filemode() {
            MODE_LINK => match follow_link(&repo, &tree, &full, entry.id()) {
                Ok(oid) => oid,
                Err(_) => continue,
            },
            MODE_TREE => continue,
            _ => entry.id(),
        };
        let Ok(blob) = repo.find_blob(oid) else {
            continue;
        };
        if blob.size() as u64 <= MAX_FILE_BYTES {
            out.insert(path.clone(), blob.content().to_vec());
        }
    }
    Ok(out)
}
