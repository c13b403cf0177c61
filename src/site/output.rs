//! Putting a built site on disk: the build's sink.
//!
//! A build never writes into `--out`. It fills a fresh staging directory
//! beside it, file by file as the pages are rendered, and swaps the two when
//! every file is written: atomically on Linux (`renameat2(RENAME_EXCHANGE)`),
//! with two renames elsewhere. The replaced site is then deleted. A failed
//! build leaves `--out` as it was. Only a missing or empty directory, or one
//! holding the [`MARKER`] file, is ever replaced.

use std::collections::{BTreeMap, HashSet};
use std::io::Write;
use std::path::{Component, Path, PathBuf};
use std::sync::Mutex;

use anyhow::{Context, Result, bail};

use super::{BuildReport, MARKER, Sink, lock};
use crate::timing::timed;
use tree::{swap, tempdir_in};

mod tree;

pub(crate) use tree::remove_tree;

/// Refuse `out` unless it is missing, empty, or a site kepsite built.
pub(crate) fn check_replaceable(out: &Path) -> Result<()> {
    let meta = match std::fs::symlink_metadata(out) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e).with_context(|| format!("reading {}", out.display())),
    };
    if !meta.is_dir() {
        bail!("{} exists and is not a directory", out.display());
    }
    let empty = std::fs::read_dir(out)
        .with_context(|| format!("reading {}", out.display()))?
        .next()
        .is_none();
    if !empty && !marked(out) {
        bail!(
            "{} is not empty and was not built by kepsite (no {MARKER}); refusing to replace it",
            out.display()
        );
    }
    Ok(())
}

/// Whether `dir` is a real directory holding kepsite's marker file.
fn marked(dir: &Path) -> bool {
    std::fs::symlink_metadata(dir).is_ok_and(|m| m.is_dir())
        && std::fs::symlink_metadata(dir.join(MARKER)).is_ok_and(|m| m.is_file())
}

fn parent_and_name(out: &Path) -> (PathBuf, String) {
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = out
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "site".into());
    (parent, name)
}

/// A site being written: a fresh staging directory beside `out` that files
/// are put into (from any thread) and that [`Stage::finish`] swaps in.
pub(crate) struct Stage {
    tmp: PathBuf,
    out: PathBuf,
    /// Directories created in the tree.
    dirs: Mutex<HashSet<String>>,
    /// What was written: (is HTML, bytes).
    written: Mutex<BTreeMap<String, (bool, u64)>>,
    /// Bytes written so far, and the most the build may write.
    total: std::sync::atomic::AtomicU64,
    limit: u64,
}

impl Sink for Stage {
    /// Put `bytes` at `rel` in the tree, creating its directories; a file
    /// already there (a path written twice) is replaced.
    fn put(&self, rel: &str, bytes: &[u8]) -> Result<()> {
        let len = bytes.len() as u64;
        let total = self
            .total
            .fetch_add(len, std::sync::atomic::Ordering::Relaxed)
            + len;
        if total > self.limit {
            bail!(
                "the site passed --max-output ({} MB) at {rel}: the repository makes far more \
                 output than its size suggests (check's findings say where); raise --max-output \
                 if this is expected",
                self.limit >> 20
            );
        }
        self.make_parents(rel)?;
        let path = self.tmp.join(rel);
        create(&path, bytes).with_context(|| format!("writing {}", path.display()))?;
        lock(&self.written).insert(
            rel.to_string(),
            (rel.ends_with(".html"), bytes.len() as u64),
        );
        Ok(())
    }
}

/// Create `path` holding `bytes`, replacing a file already there.
fn create(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let open = || {
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)
    };
    let mut file = match open() {
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            std::fs::remove_file(path)?;
            open()?
        }
        r => r?,
    };
    file.write_all(bytes)
}

impl Stage {
    /// A fresh staging directory for a build of `out`.
    pub(crate) fn open(out: &Path) -> Result<Stage> {
        let (parent, name) = parent_and_name(out);
        std::fs::create_dir_all(&parent)
            .with_context(|| format!("creating {}", parent.display()))?;
        // The staging directory is an implementation detail: an error names
        // the --out the user gave.
        let tmp = tempdir_in(&parent, &format!(".{name}.kepsite-tmp")).map_err(|e| {
            anyhow::anyhow!(
                "cannot write the site to {}: cannot create files in {} ({})",
                out.display(),
                parent.display(),
                e.root_cause()
            )
        })?;
        Ok(Stage {
            tmp,
            out: out.to_path_buf(),
            dirs: Mutex::new(HashSet::new()),
            written: Mutex::new(BTreeMap::new()),
            total: std::sync::atomic::AtomicU64::new(0),
            limit: u64::MAX,
        })
    }

    /// Stop writing (an error) once `limit` bytes are written.
    pub(crate) fn limited(mut self, limit: u64) -> Stage {
        self.limit = limit;
        self
    }

    /// Create the directories above `rel` that do not exist yet.
    fn make_parents(&self, rel: &str) -> Result<()> {
        if !Path::new(rel)
            .components()
            .all(|c| matches!(c, Component::Normal(_)))
        {
            bail!("refusing to write {rel:?} outside the output directory");
        }
        let Some((dir, _)) = rel.rsplit_once('/') else {
            return Ok(());
        };
        if lock(&self.dirs).contains(dir) {
            return Ok(());
        }
        let path = self.tmp.join(dir);
        std::fs::create_dir_all(&path).with_context(|| format!("creating {}", path.display()))?;
        lock(&self.dirs).insert(dir.to_string());
        Ok(())
    }

    /// Mark the tree as a build, swap it in and delete the replaced site.
    pub(crate) fn finish(self) -> Result<BuildReport> {
        let result = create(&self.tmp.join(MARKER), b"built by kepsite\n")
            .with_context(|| format!("writing {MARKER}"))
            .and_then(|()| timed("swap", || swap(&self.tmp, &self.out)));
        // `tmp` now holds the replaced site (or nothing, on a first build)
        if std::fs::symlink_metadata(&self.tmp).is_ok() {
            let _ = remove_tree(&self.tmp);
        }
        result?;
        let mut report = BuildReport {
            pages: 0,
            files: 1,
            bytes: 0,
            keps: 0,
        };
        for &(html, len) in lock(&self.written).values() {
            report.files += 1;
            report.bytes += len;
            report.pages += usize::from(html);
        }
        Ok(report)
    }

    /// Give up: delete the tree.
    pub(crate) fn abandon(self) {
        let _ = remove_tree(&self.tmp);
    }
}

#[cfg(all(test, unix))]
mod tests;
