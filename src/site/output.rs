//! Putting a built site on disk.
//!
//! A build never writes into `--out`. It fills a staging tree beside it and
//! swaps the two when every file is written: atomically on Linux
//! (`renameat2(RENAME_EXCHANGE)`), with two renames elsewhere. A failed build
//! leaves `--out` as it was.
//!
//! The replaced site is kept as `.<out>.kepsite-stage` and becomes the
//! staging tree of the next build: its directories already exist and a file
//! whose bytes are unchanged is kept, so a rebuild creates and deletes almost
//! nothing. On this project's machines (ext4 without a journal, mounted with
//! `discard`) deleting the ~4,700 files and directories of a corpus site
//! takes seconds of wall time, and creating as many soon after a delete
//! pays for a scan of the recently deleted inodes: more than building the
//! site. Everything in a reused tree is checked before it is kept: symlinks
//! and special files are removed before anything is written (none is ever
//! followed), a file stays only if its bytes equal the new ones (read back
//! and compared), anything the build does not write is removed, and files
//! are never rewritten in place, only unlinked and created.

use std::collections::{BTreeMap, HashSet};
use std::io::Write;
use std::path::{Component, Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use anyhow::{Context, Result, bail};
use rayon::prelude::*;

use super::{BuildReport, MARKER};
use crate::timing::timed;

/// The staging tree kept beside `out` between builds.
pub fn stage_path(out: &Path) -> PathBuf {
    let (parent, name) = parent_and_name(out);
    parent.join(format!(".{name}.kepsite-stage"))
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
pub(crate) struct Stage {
    tmp: PathBuf,
    out: PathBuf,
    /// Regular files and directories found in the reused tree (relative paths).
    found: Vec<(String, bool)>,
    /// Directories known to exist in the tree (relative paths).
    dirs: Mutex<HashSet<String>>,
    /// What was written: (is HTML, bytes), by relative path.
    written: Mutex<BTreeMap<String, (bool, u64)>>,
}

impl Stage {
    /// Claim the staging tree for a build of `out`: the one kept beside it,
    /// scrubbed of symlinks and special files, else a fresh one.
    pub(crate) fn open(out: &Path) -> Result<Stage> {
        let (parent, name) = parent_and_name(out);
        std::fs::create_dir_all(&parent)
            .with_context(|| format!("creating {}", parent.display()))?;
        let tmp = match claim(&stage_path(out), &parent, &name) {
            Some(tmp) => tmp,
            None => tempdir_in(&parent, &format!(".{name}.kepsite-tmp"))?,
        };
        let mut found = Vec::new();
        if let Err(e) = timed("scrub", || scrub(&tmp, &tmp, &mut found)) {
            let _ = remove_tree(&tmp);
            return Err(e);
        }
        let dirs = found
            .iter()
            .filter(|(_, dir)| *dir)
            .map(|(p, _)| p.clone())
            .collect();
        Ok(Stage {
            tmp,
            out: out.to_path_buf(),
            found,
            dirs: Mutex::new(dirs),
            written: Mutex::new(BTreeMap::new()),
        })
    }

    /// Put `bytes` at `rel` in the tree, creating its directories. A file
    /// already there with those bytes is kept; anything else there is
    /// unlinked first, never written through.
    pub(crate) fn write(&self, rel: &str, bytes: &[u8]) -> Result<()> {
        self.make_parents(rel)?;
        let path = self.tmp.join(rel);
        put(&path, bytes).with_context(|| format!("writing {}", path.display()))?;
        self.lock_written().insert(
            rel.to_string(),
            (rel.ends_with(".html"), bytes.len() as u64),
        );
        Ok(())
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

    fn lock_written(&self) -> MutexGuard<'_, BTreeMap<String, (bool, u64)>> {
        self.written.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Create the directories above `rel` that do not exist yet; a file where
    /// a directory belongs is removed.
    fn make_parents(&self, rel: &str) -> Result<()> {
        if !Path::new(rel).components().all(is_normal) {
            bail!("refusing to write {rel:?} outside the output directory");
        }
        let Some((parent, _)) = rel.rsplit_once('/') else {
            return Ok(());
        };
        let mut dirs = self.dirs.lock().unwrap_or_else(|e| e.into_inner());
        let mut end = 0;
        for part in parent.split('/') {
            end += part.len();
            let dir = &parent[..end];
            end += 1;
            if dirs.contains(dir) {
                continue;
            }
            let path = self.tmp.join(dir);
            match std::fs::symlink_metadata(&path) {
                Ok(m) if m.is_dir() => Ok(()),
                Ok(_) => std::fs::remove_file(&path).and_then(|()| std::fs::create_dir(&path)),
                Err(_) => std::fs::create_dir(&path),
            }
            .with_context(|| format!("creating {}", path.display()))?;
            dirs.insert(dir.to_string());
        }
        Ok(())
    }

    /// Remove what this build did not write, mark the tree as a build and
    /// swap it in. The replaced site is kept as the next staging tree.
    pub(crate) fn finish(self) -> Result<BuildReport> {
        let result = timed("prune", || self.prune()).and_then(|report| {
            put(&self.tmp.join(MARKER), b"built by kepsite\n")
                .with_context(|| format!("writing {MARKER}"))?;
            timed("swap", || swap(&self.tmp, &self.out))?;
            Ok(BuildReport {
                files: report.files + 1,
                ..report
            })
        });
        // `tmp` now holds the replaced site (or nothing, on a first build);
        // on failure, the unfinished tree
        let kept = result.is_ok()
            && marked(&self.tmp)
            && std::fs::rename(&self.tmp, stage_path(&self.out)).is_ok();
        if !kept && std::fs::symlink_metadata(&self.tmp).is_ok() {
            let _ = remove_tree(&self.tmp);
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
                let removed = match dir {
                    true => remove_tree(&path),
                    false => std::fs::remove_file(&path),
                };
                match removed {
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

/// Make `path` hold `bytes`: a regular file already there with those bytes
/// is kept; whatever else is there is unlinked first, never written through
/// (a tree kept by an older kepsite may share files with the live site).
fn put(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Ok(m) = std::fs::symlink_metadata(path) {
        let same = m.file_type().is_file()
            && m.len() == bytes.len() as u64
            && std::fs::read(path).is_ok_and(|b| b == bytes);
        if same {
            return Ok(());
        }
        unlink(path)?;
    }
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)?;
    file.write_all(bytes)
}

/// Remove whatever is at `path` (a directory with what is in it), without
/// following it; nothing there is fine.
fn unlink(path: &Path) -> std::io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => remove_tree(path),
        Ok(_) => std::fs::remove_file(path),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

/// Take the staging tree for this build by renaming it to a name of our own
/// (so two builds never share one). `None` when there is none to take.
fn claim(stage: &Path, parent: &Path, name: &str) -> Option<PathBuf> {
    if !marked(stage) {
        return None;
    }
    for i in 0..1000u32 {
        let p = parent.join(format!(".{name}.kepsite-tmp-{}-{i}", std::process::id()));
        if std::fs::symlink_metadata(&p).is_ok() {
            continue;
        }
        if std::fs::rename(stage, &p).is_err() {
            return None;
        }
        // until it is complete again, the tree is not a build
        if std::fs::remove_file(p.join(MARKER)).is_err() {
            let _ = remove_tree(&p);
            return None;
        }
        return Some(p);
    }
    None
}

/// Remove every symlink and special file from `dir` (below `root`), without
/// following any, and list the regular files and directories left (relative
/// to `root`).
fn scrub(root: &Path, dir: &Path, found: &mut Vec<(String, bool)>) -> Result<()> {
    let entries: Vec<_> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .collect::<std::io::Result<_>>()
        .with_context(|| format!("reading {}", dir.display()))?;
    let lists: Vec<Vec<(String, bool)>> = entries
        .par_iter()
        .map(|e| -> Result<Vec<(String, bool)>> {
            let path = e.path();
            let ft = e.file_type()?;
            let rel = path
                .strip_prefix(root)
                .ok()
                .and_then(Path::to_str)
                .map(str::to_string);
            match rel {
                Some(rel) if ft.is_dir() => {
                    let mut below = vec![(rel, true)];
                    scrub(root, &path, &mut below)?;
                    Ok(below)
                }
                Some(rel) if ft.is_file() => Ok(vec![(rel, false)]),
                // symlinks, special files, names that are not UTF-8
                _ => {
                    let removed = match ft.is_dir() {
                        true => remove_tree(&path),
                        false => std::fs::remove_file(&path),
                    };
                    removed.with_context(|| format!("removing {}", path.display()))?;
                    Ok(Vec::new())
                }
            }
        })
        .collect::<Result<_>>()?;
    found.extend(lists.into_iter().flatten());
    Ok(())
}

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

fn tempdir_in(parent: &Path, stem: &str) -> Result<PathBuf> {
    for i in 0..1000u32 {
        let p = parent.join(format!("{stem}-{}-{i}", std::process::id()));
        match std::fs::create_dir(&p) {
            Ok(()) => return Ok(p),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e).with_context(|| format!("creating {}", p.display())),
        }
    }
    bail!(
        "could not create a temporary directory in {}",
        parent.display()
    )
}

/// Put the new site `tmp` at `out`; afterwards `tmp` holds the replaced site
/// (or does not exist, when there was none).
fn swap(tmp: &Path, out: &Path) -> Result<()> {
    if std::fs::symlink_metadata(out).is_err() {
        return std::fs::rename(tmp, out)
            .with_context(|| format!("moving the new site to {}", out.display()));
    }
    if exchange(tmp, out)? {
        return Ok(());
    }
    let (parent, name) = parent_and_name(out);
    let old = tempdir_in(&parent, &format!(".{name}.kepsite-old"))?;
    std::fs::remove_dir(&old)?;
    std::fs::rename(out, &old)
        .with_context(|| format!("moving the previous site {} aside", out.display()))?;
    if let Err(e) = std::fs::rename(tmp, out) {
        let _ = std::fs::rename(&old, out);
        return Err(e).with_context(|| format!("moving the new site to {}", out.display()));
    }
    std::fs::rename(&old, tmp).with_context(|| format!("moving {}", old.display()))
}

/// Swap two directories in one step. `Ok(false)`: not supported here.
#[cfg(target_os = "linux")]
fn exchange(a: &Path, b: &Path) -> Result<bool> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    let c = |p: &Path| CString::new(p.as_os_str().as_bytes()).context("NUL in a path");
    let (ca, cb) = (c(a)?, c(b)?);
    // SAFETY: both are valid NUL-terminated strings that outlive the call.
    let rc = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            ca.as_ptr(),
            libc::AT_FDCWD,
            cb.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    if rc == 0 {
        return Ok(true);
    }
    let e = std::io::Error::last_os_error();
    match e.raw_os_error() {
        Some(libc::EINVAL | libc::ENOSYS | libc::ENOTSUP) => Ok(false),
        _ => Err(e).with_context(|| format!("swapping {} into {}", a.display(), b.display())),
    }
}

#[cfg(not(target_os = "linux"))]
fn exchange(_: &Path, _: &Path) -> Result<bool> {
    Ok(false)
}

/// `remove_dir_all`, with the files of each directory removed in parallel
/// (a site has thousands). Symlinks are removed, never followed.
pub(crate) fn remove_tree(dir: &Path) -> std::io::Result<()> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d)? {
            let e = e?;
            if e.file_type()?.is_dir() {
                stack.push(e.path());
            } else {
                files.push(e.path());
            }
        }
    }
    files
        .par_iter()
        .map(std::fs::remove_file)
        .collect::<std::io::Result<()>>()?;
    std::fs::remove_dir_all(dir)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    /// One build of `files` into `out`: the report.
    fn build(out: &Path, files: &[(&str, &str)]) -> BuildReport {
        let stage = Stage::open(out).unwrap();
        for (rel, text) in files {
            stage.write(rel, text.as_bytes()).unwrap();
        }
        stage.finish().unwrap()
    }

    #[test]
    fn the_replaced_site_is_the_next_staging_tree_and_is_checked() {
        use std::os::unix::fs::MetadataExt;
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("public");
        let files = [("index.html", "home"), ("keps/1/index.html", "one")];
        let report = build(&out, &files);
        assert_eq!((report.pages, report.files, report.bytes), (2, 3, 7));
        assert!(
            !stage_path(&out).exists(),
            "nothing to keep after a first build"
        );
        let ino = |rel: &str| std::fs::metadata(out.join(rel)).unwrap().ino();
        let first = ino("keps/1/index.html");
        build(&out, &files);
        assert!(marked(&stage_path(&out)), "the replaced site is kept");
        // the third build fills the first one's tree: an unchanged file is
        // kept; a tampered one (same length) and a stale one are not
        let kept = stage_path(&out);
        std::fs::write(kept.join("index.html"), "HOME").unwrap();
        std::fs::write(kept.join("stale.html"), "old").unwrap();
        std::os::unix::fs::symlink(tmp.path(), kept.join("keps/link")).unwrap();
        let report = build(&out, &files);
        assert_eq!((report.pages, report.files), (2, 3));
        assert_eq!(ino("keps/1/index.html"), first);
        assert_eq!(std::fs::read(out.join("index.html")).unwrap(), b"home");
        assert!(!out.join("stale.html").exists());
        assert!(std::fs::symlink_metadata(out.join("keps/link")).is_err());
        // a path outside the tree is refused; an abandoned tree is removed
        let stage = Stage::open(&out).unwrap();
        assert!(stage.write("../x", b"x").is_err());
        assert!(stage.write("/abs", b"x").is_err());
        stage.write("x/y", b"1").unwrap();
        stage.write("x/y", b"22").unwrap();
        assert_eq!(std::fs::read(stage.tmp.join("x/y")).unwrap(), b"22");
        stage.abandon();
        let names: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "only the site is left: {names:?}");
    }
}
