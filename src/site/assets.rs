//! Asset files (images and the like) of KEP directories: repository paths →
//! bytes, read from the working tree or, for a model loaded from a revision,
//! from that commit's blobs. Symlinks and paths leaving the repository are
//! never followed; an unreadable asset is skipped (its link stays broken).

use std::collections::BTreeMap;
use std::path::{Component, Path};

use anyhow::{Context, Result};

use crate::repo::{MAX_FILE_BYTES, Source};

/// Read `paths` (relative, `/`-separated) from `source`. Missing or refused
/// files are left out of the result.
pub fn read(source: &Source, paths: &[String]) -> Result<BTreeMap<String, Vec<u8>>> {
    if paths.is_empty() {
        return Ok(BTreeMap::new());
    }
    match &source.commit {
        None => Ok(paths
            .iter()
            .filter_map(|p| read_worktree(&source.root, p).map(|b| (p.clone(), b)))
            .collect()),
        Some(commit) => read_git(&source.root, commit, paths),
    }
}

fn safe_relative(path: &str) -> bool {
    !path.is_empty()
        && Path::new(path)
            .components()
            .all(|c| matches!(c, Component::Normal(_)))
}

/// One file of a working tree, if it is a regular file inside it, reached
/// through no symlink and not too large.
pub(crate) fn read_worktree(root: &Path, path: &str) -> Option<Vec<u8>> {
    if !safe_relative(path) {
        return None;
    }
    // Refuse a symlink anywhere along the path.
    let mut at = root.to_path_buf();
    for part in path.split('/') {
        at.push(part);
        let meta = std::fs::symlink_metadata(&at).ok()?;
        if meta.file_type().is_symlink() {
            return None;
        }
    }
    let meta = std::fs::metadata(&at).ok()?;
    if !meta.is_file() || meta.len() > MAX_FILE_BYTES {
        return None;
    }
    std::fs::read(&at).ok()
}

fn read_git(root: &Path, commit: &str, paths: &[String]) -> Result<BTreeMap<String, Vec<u8>>> {
    let repo = git2::Repository::discover(root)
        .with_context(|| format!("{} is not inside a git repository", root.display()))?;
    let prefix = match repo.workdir() {
        Some(wd) => {
            let wd = wd.canonicalize().unwrap_or_else(|_| wd.to_path_buf());
            let r = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
            r.strip_prefix(&wd)
                .map(|p| p.to_string_lossy().replace('\\', "/"))
                .unwrap_or_default()
        }
        None => String::new(),
    };
    let oid = git2::Oid::from_str(commit).with_context(|| format!("bad commit id {commit}"))?;
    let tree = repo
        .find_commit(oid)
        .and_then(|c| c.tree())
        .with_context(|| format!("reading commit {commit}"))?;
    let mut out = BTreeMap::new();
    for p in paths {
        if !safe_relative(p) {
            continue;
        }
        let full = if prefix.is_empty() {
            p.clone()
        } else {
            format!("{prefix}/{p}")
        };
        let Ok(entry) = tree.get_path(Path::new(&full)) else {
            continue;
        };
        // Regular files only: 0o100644 / 0o100755; symlinks (0o120000) are not followed.
        if entry.filemode() & 0o170000 != 0o100000 {
            continue;
        }
        let Ok(blob) = repo.find_blob(entry.id()) else {
            continue;
        };
        if blob.size() as u64 <= MAX_FILE_BYTES {
            out.insert(p.clone(), blob.content().to_vec());
        }
    }
    Ok(out)
}
