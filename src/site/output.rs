//! Putting a built site on disk.
//!
//! A build never writes into `--out`. It fills a staging tree beside it and
//! swaps the two when every file is written: atomically on Linux
//! (`renameat2(RENAME_EXCHANGE)`), with two renames elsewhere. A failed build
//! leaves `--out` as it was.
//!
//! The replaced site is kept as `.<out>.kepsite-stage` and becomes the staging
//! tree of the next build: its directories already exist and its unchanged
//! files are kept, so a rebuild creates and deletes almost nothing. On ext4
//! without a journal, creating thousands of directories right after deleting
//! thousands cost more than rendering the whole site. Everything in a reused
//! tree is checked before it is kept: a file stays only if its bytes equal the
//! new ones, anything the build does not write is removed, and symlinks are
//! never followed or kept. Files are never rewritten in place (the two trees
//! share the inodes of files that did not change), only unlinked and created.
//! With a [`Manifest`] a file's bytes are vouched for by its inode, ctime and
//! a hash recorded when it was written, and read back only when they are not.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use anyhow::{Context, Result, bail};
use rayon::prelude::*;

use super::manifest::{self, Manifest};
use super::{BuildReport, MARKER};
use crate::timing::timed;
use file::{Content, create, put, reuse};
use tree::{claim, remove, scrub, swap, tempdir_in};

mod file;
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

/// The staging tree kept beside `out` between builds.
pub fn stage_path(out: &Path) -> PathBuf {
    let (parent, name) = parent_and_name(out);
    parent.join(format!(".{name}.kepsite-stage"))
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

/// Files copied from the repository's working tree into the site.
pub(crate) struct Copies<'a> {
    /// The working tree.
    pub root: &'a Path,
    /// Output path, repository path.
    pub files: &'a [(String, String)],
}

/// A site being written: a staging tree beside `out` that files are put into
/// (from any thread) and that [`Stage::finish`] swaps in.
///
/// Opening it scrubs a reused tree of every symlink and special file before
/// anything is written, so no write can follow one; what the build does not
/// write is removed when it finishes.
pub(crate) struct Stage {
    tmp: PathBuf,
    out: PathBuf,
    reuse: bool,
    /// The live site, when kepsite built it: unchanged files are hard-linked from it.
    previous: Option<PathBuf>,
    /// The tree was created empty for this build and there is no live site
    /// to link from (a build from nothing): files are created without
    /// looking for what is there first.
    fresh: bool,
    /// Regular files and directories found in the reused tree (relative paths).
    found: Vec<(String, bool)>,
    /// Directories known to exist in the tree.
    dirs: std::sync::Mutex<std::collections::HashSet<String>>,
    /// What was written: (is HTML, bytes).
    written: std::sync::Mutex<BTreeMap<String, (bool, u64)>>,
    /// What the files of the last builds held, saved when the build is done.
    manifest: Option<Manifest>,
}

impl Stage {
    /// Claim the staging tree for a build of `out` (the kept one with
    /// `reuse`, else a fresh one), with the manifest kept in `manifest`.
    pub(crate) fn open(out: &Path, reuse: bool, manifest: Option<PathBuf>) -> Result<Stage> {
        let (parent, name) = parent_and_name(out);
        std::fs::create_dir_all(&parent)
            .with_context(|| format!("creating {}", parent.display()))?;
        let stage = stage_path(out);
        let tmp = match reuse.then(|| claim(&stage, &parent, &name)).flatten() {
            Some(tmp) => tmp,
            None => tempdir_in(&parent, &format!(".{name}.kepsite-tmp"))?,
        };
        let mut found = Vec::new();
        if let Err(e) = scrub(&tmp, &tmp, &mut found) {
            let _ = remove_tree(&tmp);
            return Err(e);
        }
        let dirs = found
            .iter()
            .filter(|(_, dir)| *dir)
            .map(|(p, _)| p.clone())
            .collect();
        let previous = marked(out).then(|| out.to_path_buf());
        Ok(Stage {
            tmp,
            out: out.to_path_buf(),
            reuse,
            fresh: found.is_empty() && previous.is_none(),
            previous,
            found,
            dirs: std::sync::Mutex::new(dirs),
            written: std::sync::Mutex::new(BTreeMap::new()),
            manifest: manifest.map(|m| Manifest::load(m, &parent)),
        })
    }

    /// Put `bytes` at `rel` in the tree, creating its directories. A file
    /// already there with those bytes is kept; one identical in the live
    /// site is hard-linked; anything else there is unlinked first, never
    /// written through.
    pub(crate) fn write(&self, rel: &str, bytes: &[u8]) -> Result<()> {
        self.write_hashed(rel, bytes).map(drop)
    }

    /// [`Stage::write`], returning the hash of `bytes` when the manifest
    /// needed it.
    fn write_hashed(&self, rel: &str, bytes: &[u8]) -> Result<Option<u128>> {
        self.make_parents(rel)?;
        let path = self.tmp.join(rel);
        let previous = self.previous.as_ref().map(|prev| prev.join(rel));
        let manifest = self.manifest.as_ref();
        let hash = match self.fresh {
            true => create(&path, bytes, manifest),
            false => put(&path, bytes, previous, manifest),
        }
        .with_context(|| format!("writing {}", path.display()))?;
        self.lock_written().insert(
            rel.to_string(),
            (rel.ends_with(".html"), bytes.len() as u64),
        );
        Ok(hash)
    }

    /// Put the rendering of a page at `rel`, as [`Stage::write`] does, and
    /// remember that the page's inputs (`key`) rendered to these bytes.
    pub(crate) fn write_rendered(&self, rel: &str, bytes: &[u8], key: u128) -> Result<()> {
        let hash = self.write_hashed(rel, bytes)?;
        if let Some(man) = &self.manifest {
            let hash = hash.unwrap_or_else(|| manifest::digest(bytes));
            man.record_rendering(key, hash, bytes.len() as u64);
        }
        Ok(())
    }

    /// Keep the page at `rel` without rendering it, when an earlier build
    /// rendered the same inputs (`key`) and the manifest vouches that the
    /// file there, or the live site's (then hard-linked), holds what they
    /// rendered to. Returns whether it did; if not, the page must be written.
    pub(crate) fn keep_rendered(&self, rel: &str, key: u128) -> Result<bool> {
        let Some(man) = &self.manifest else {
            return Ok(false);
        };
        let Some((hash, len)) = man.rendered(key) else {
            return Ok(false);
        };
        self.make_parents(rel)?;
        let path = self.tmp.join(rel);
        let content = Content::known(hash, len, man);
        let previous = self.previous.as_ref().map(|prev| prev.join(rel));
        if !reuse(&path, &content, previous)
            .with_context(|| format!("writing {}", path.display()))?
        {
            return Ok(false);
        }
        man.record_rendering(key, hash, len);
        self.lock_written()
            .insert(rel.to_string(), (rel.ends_with(".html"), len));
        Ok(true)
    }

    /// Copy each working-tree file of `copies` into the tree; an unreadable
    /// or refused one is skipped.
    pub(crate) fn copy(&self, copies: &Copies<'_>) -> Result<()> {
        copies.files.par_iter().try_for_each(|(out, repo)| {
            match super::assets::read_worktree(copies.root, repo) {
                Some(b) => self.write(out, &b),
                None => Ok(()),
            }
        })
    }

    fn lock_written(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, (bool, u64)>> {
        self.written.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Create the directories above `rel` that do not exist yet; a file where
    /// a directory belongs is removed.
    fn make_parents(&self, rel: &str) -> Result<()> {
        if !Path::new(rel).components().all(is_normal) {
            bail!("refusing to write {rel:?} outside the output directory");
        }
        let mut dir = String::new();
        let mut parts = rel.split('/').peekable();
        while let Some(part) = parts.next() {
            if parts.peek().is_none() {
                break; // the file itself
            }
            if !dir.is_empty() {
                dir.push('/');
            }
            dir.push_str(part);
            let mut dirs = self.dirs.lock().unwrap_or_else(|e| e.into_inner());
            if dirs.contains(&dir) {
                continue;
            }
            let path = self.tmp.join(&dir);
            // In a fresh tree nothing is there yet: one mkdir, no look first.
            if self.fresh && std::fs::create_dir(&path).is_ok() {
                dirs.insert(dir.clone());
                continue;
            }
            match std::fs::symlink_metadata(&path) {
                Ok(m) if m.is_dir() => {}
                Ok(_) => {
                    std::fs::remove_file(&path)
                        .and_then(|()| std::fs::create_dir(&path))
                        .with_context(|| format!("creating {}", path.display()))?;
                }
                Err(_) => std::fs::create_dir(&path)
                    .with_context(|| format!("creating {}", path.display()))?,
            }
            dirs.insert(dir.clone());
        }
        Ok(())
    }

    /// Remove what this build did not write, mark the tree as a build and
    /// swap it in. The replaced site is kept as the next staging tree (with
    /// `reuse`) or deleted.
    pub(crate) fn finish(mut self) -> Result<BuildReport> {
        let result = timed("prune", || self.prune()).and_then(|report| {
            put(&self.tmp.join(MARKER), b"built by kepsite\n", None, None)
                .with_context(|| format!("writing {MARKER}"))?;
            timed("swap", || swap(&self.tmp, &self.out))?;
            Ok(BuildReport {
                files: report.files + 1,
                ..report
            })
        });
        let stage = stage_path(&self.out);
        match &result {
            // `tmp` now holds the replaced site (or nothing, on a first build)
            Ok(_)
                if self.reuse
                    && marked(&self.tmp)
                    && std::fs::rename(&self.tmp, &stage).is_ok() => {}
            _ => {
                let _ = remove_tree(&self.tmp);
            }
        }
        if result.is_ok() && !self.reuse && marked(&stage) {
            let _ = remove_tree(&stage);
        }
        if let (Ok(_), Some(m)) = (&result, self.manifest.take()) {
            crate::timing::note("files vouched for by the manifest", m.vouched());
            if let Err(e) = m.save() {
                crate::timing::warn(format_args!("could not save the site manifest: {e}"));
            }
        }
        result
    }

    /// Give up: delete the tree.
    pub(crate) fn abandon(self) {
        let _ = remove_tree(&self.tmp);
    }

    /// Remove the files and directories found in the reused tree that this
    /// build did not write, and count what it did.
    fn prune(&self) -> Result<BuildReport> {
        let written = self.lock_written();
        let mut keep_dirs: std::collections::HashSet<&str> = std::collections::HashSet::new();
        for p in written.keys() {
            let mut d = p.as_str();
            while let Some(i) = d.rfind('/') {
                d = &d[..i];
                if !keep_dirs.insert(d) {
                    break;
                }
            }
        }
        // A path found as a file may now be a directory of this build, and
        // the other way round: either way it is kept.
        self.found
            .par_iter()
            .filter(|(p, _)| !keep_dirs.contains(p.as_str()) && !written.contains_key(p))
            .try_for_each(|(p, dir)| {
                let path = self.tmp.join(p);
                match remove(&path, *dir) {
                    // already gone with a directory above it, or that
                    // directory was replaced by a file
                    Err(e)
                        if matches!(
                            e.kind(),
                            std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
                        ) =>
                    {
                        Ok(())
                    }
                    r => r.with_context(|| format!("removing {}", path.display())),
                }
            })?;
        let mut report = BuildReport {
            pages: 0,
            files: 0,
            bytes: 0,
        };
        for &(html, len) in written.values() {
            report.files += 1;
            report.bytes += len;
            report.pages += usize::from(html);
        }
        Ok(report)
    }
}

fn is_normal(c: Component<'_>) -> bool {
    matches!(c, Component::Normal(_))
}

#[cfg(all(test, unix))]
mod tests;
