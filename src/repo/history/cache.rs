//! The on-disk cache: a directory to the walk state at some head
//! (`CacheFile`), and back.
//!
//! Any problem reading it (missing, corrupt, other version, unrelated history)
//! means "no cache"; writing goes through a temp file and a rename so readers
//! never see half a file.

use std::path::{Path, PathBuf};

use git2::{Oid, Repository};
use serde::{Deserialize, Serialize};

use super::walk::State;

const FILE: &str = "history-v4.json";
/// 2: the walk follows the first parent only. 3: units remember their
/// title, so legacy files migrate to directories of another name. 4: the
/// shallow boundary the walk saw is part of the key.
const VERSION: u32 = 4;

/// What the cache file holds.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct CacheFile {
    pub version: u32,
    /// The commit the state was computed for.
    pub head: String,
    /// The clone's shallow boundary when it was walked ([`boundary`]):
    /// empty for a full clone. A walk of a shallow clone saw less history
    /// than one of a full clone of the same head.
    #[serde(default)]
    pub shallow: Vec<String>,
    pub state: State,
}

/// The commits a shallow clone's history stops at (`.git/shallow`), sorted;
/// empty for a full clone.
pub(crate) fn boundary(repo: &Repository) -> Vec<String> {
    if !repo.is_shallow() {
        return Vec::new();
    }
    let text = std::fs::read_to_string(repo.path().join("shallow")).unwrap_or_default();
    let mut ids: Vec<String> = text
        .lines()
        .map(|l| l.trim().to_string())
        .filter(|l| !l.is_empty())
        .collect();
    ids.sort();
    if ids.is_empty() {
        ids.push("shallow".into());
    }
    ids
}

fn path(dir: &Path) -> PathBuf {
    dir.join(FILE)
}

/// Reads the cache, or `None` if there is no readable one.
pub(crate) fn load(dir: &Path) -> Option<CacheFile> {
    let bytes = std::fs::read(path(dir)).ok()?;
    let c: CacheFile = serde_json::from_slice(&bytes).ok()?;
    (c.version == VERSION).then_some(c)
}

/// Whether `cache` can be continued to reach `head`: its head is `head` or
/// on `head`'s first-parent line.
pub(crate) fn usable(repo: &Repository, cache: &CacheFile, head: Oid) -> bool {
    let Ok(base) = Oid::from_str(&cache.head) else {
        return false;
    };
    if cache.shallow != boundary(repo) {
        return false;
    }
    let mut cur = repo.find_commit(head).ok();
    while let Some(c) = cur {
        if c.id() == base {
            return true;
        }
        cur = c.parent(0).ok();
    }
    false
}

/// Writes the cache atomically.
pub(crate) fn store(
    dir: &Path,
    head: &str,
    shallow: &[String],
    state: &State,
) -> std::io::Result<()> {
    #[derive(Serialize)]
    struct Borrowed<'a> {
        version: u32,
        head: &'a str,
        shallow: &'a [String],
        state: &'a State,
    }
    let bytes = serde_json::to_vec(&Borrowed {
        version: VERSION,
        head,
        shallow,
        state,
    })?;
    crate::cache_file::write(&path(dir), &bytes)
}
