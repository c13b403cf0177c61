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

const FILE: &str = "history-v3.json";
/// 2: the walk follows the first parent only. 3: units remember their
/// title, so legacy files migrate to directories of another name.
const VERSION: u32 = 3;

/// What the cache file holds.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct CacheFile {
    pub version: u32,
    /// The commit the state was computed for.
    pub head: String,
    pub state: State,
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
pub(crate) fn store(dir: &Path, head: &str, state: &State) -> std::io::Result<()> {
    #[derive(Serialize)]
    struct Borrowed<'a> {
        version: u32,
        head: &'a str,
        state: &'a State,
    }
    let bytes = serde_json::to_vec(&Borrowed {
        version: VERSION,
        head,
        state,
    })?;
    crate::cache_file::write(&path(dir), &bytes)
}
