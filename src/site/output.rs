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

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Component, Path, PathBuf};

use anyhow::{Context, Result, bail};
use rayon::prelude::*;

use super::plan::Page;
use super::{BuildReport, MARKER, render_page};
use crate::timing::timed;

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

/// Write `pages` (rendered here, in parallel) and `files` as the new site at
/// `out`. With `reuse`, the previous build's staging tree is reused and the
/// replaced site kept as the next one; without, a fresh tree is written and
/// the replaced site deleted.
/// Files copied from the repository's working tree into the site.
pub(crate) struct Copies<'a> {
    /// The working tree.
    pub root: &'a Path,
    /// Output path, repository path.
    pub files: &'a [(String, String)],
}

pub(crate) fn write_site(
    out: &Path,
    tera: &tera::Tera,
    pages: Vec<Page>,
    files: &BTreeMap<String, Vec<u8>>,
    copies: &Copies<'_>,
    reuse: bool,
) -> Result<BuildReport> {
    let all_paths = || {
        files
            .keys()
            .chain(pages.iter().map(|p| &p.path))
            .chain(copies.files.iter().map(|(o, _)| o))
    };
    if let Some(bad) = all_paths().find(|p| !Path::new(p).components().all(is_normal)) {
        bail!("refusing to write {bad:?} outside the output directory");
    }
    let (parent, name) = parent_and_name(out);
    std::fs::create_dir_all(&parent).with_context(|| format!("creating {}", parent.display()))?;
    let stage = stage_path(out);
    let tmp = match reuse.then(|| claim(&stage, &parent, &name)).flatten() {
        Some(tmp) => tmp,
        None => tempdir_in(&parent, &format!(".{name}.kepsite-tmp"))?,
    };
    let previous = marked(out).then_some(out);
    let keep: BTreeSet<String> = all_paths().cloned().collect();
    let mut dirs: BTreeSet<String> = BTreeSet::new();
    for p in &keep {
        let mut d = Path::new(p.as_str()).parent();
        while let Some(dir) = d.and_then(Path::to_str).filter(|s| !s.is_empty()) {
            if !dirs.insert(dir.to_owned()) {
                break;
            }
            d = Path::new(dir).parent();
        }
    }
    let result = timed("render and write", || {
        prune(&tmp, &tmp, &keep, &dirs)?;
        for d in &dirs {
            let d = tmp.join(d);
            match std::fs::create_dir(&d) {
                Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => {
                    return Err(e).with_context(|| format!("creating {}", d.display()));
                }
                _ => {}
            }
        }
        write_all(&tmp, tera, pages, files, copies, previous)
    })
    .and_then(|report| {
        timed("swap", || swap(&tmp, out))?;
        Ok(report)
    });
    match &result {
        // `tmp` now holds the replaced site (or nothing, on a first build)
        Ok(_) if reuse && marked(&tmp) && std::fs::rename(&tmp, &stage).is_ok() => {}
        _ => {
            let _ = remove_tree(&tmp);
        }
    }
    if result.is_ok() && !reuse && marked(&stage) {
        let _ = remove_tree(&stage);
    }
    result
}

fn is_normal(c: Component<'_>) -> bool {
    matches!(c, Component::Normal(_))
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

/// Remove from `dir` (below `root`) everything this build does not write:
/// files not in `keep`, directories not in `dirs`, and every symlink or
/// special file, without following any.
fn prune(root: &Path, dir: &Path, keep: &BTreeSet<String>, dirs: &BTreeSet<String>) -> Result<()> {
    let entries: Vec<_> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .collect::<std::io::Result<_>>()
        .with_context(|| format!("reading {}", dir.display()))?;
    entries.par_iter().try_for_each(|e| -> Result<()> {
        let path = e.path();
        let rel = path.strip_prefix(root).ok().and_then(Path::to_str);
        let ft = e.file_type()?;
        let removed = if ft.is_dir() {
            if rel.is_some_and(|r| dirs.contains(r)) {
                return prune(root, &path, keep, dirs);
            }
            remove_tree(&path)
        } else if ft.is_file() && rel.is_some_and(|r| keep.contains(r)) {
            return Ok(());
        } else {
            std::fs::remove_file(&path)
        };
        removed.with_context(|| format!("removing {}", path.display()))
    })
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

/// Whether `path` is a regular file (not a symlink) holding exactly `bytes`.
fn same_file(path: &Path, bytes: &[u8]) -> bool {
    std::fs::symlink_metadata(path)
        .is_ok_and(|m| m.file_type().is_file() && m.len() == bytes.len() as u64)
        && std::fs::read(path).is_ok_and(|b| b == bytes)
}

/// Make `path` hold `bytes`. A file already there with those bytes is kept;
/// one identical in the previous build is hard-linked; otherwise a new file is
/// created. Whatever else is at `path` is unlinked first, never written
/// through: it may be shared with the live site.
fn put(path: &Path, bytes: &[u8], previous: Option<PathBuf>) -> std::io::Result<()> {
    if same_file(path, bytes) {
        return Ok(());
    }
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => remove_tree(path)?,
        Ok(_) => std::fs::remove_file(path)?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    if let Some(old) = previous
        && same_file(&old, bytes)
        && std::fs::hard_link(&old, path).is_ok()
    {
        return Ok(());
    }
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)?
        .write_all(bytes)
}

fn write_all(
    dir: &Path,
    tera: &tera::Tera,
    pages: Vec<Page>,
    files: &BTreeMap<String, Vec<u8>>,
    copies: &Copies<'_>,
    previous: Option<&Path>,
) -> Result<BuildReport> {
    let write = |p: &str, b: &[u8]| -> Result<()> {
        let path = dir.join(p);
        put(&path, b, previous.map(|prev| prev.join(p)))
            .with_context(|| format!("writing {}", path.display()))
    };
    // Pages are written as they are rendered, so the site is never held in
    // memory as a whole.
    let sizes: Vec<(bool, u64)> = pages
        .into_par_iter()
        .map(|p| {
            let (path, bytes) = render_page(tera, p)?;
            write(&path, &bytes)?;
            Ok((path.ends_with(".html"), bytes.len() as u64))
        })
        .collect::<Result<_>>()?;
    files
        .par_iter()
        .map(|(p, b)| write(p, b))
        .collect::<Result<()>>()?;
    let copied: Vec<u64> = copies
        .files
        .par_iter()
        .map(
            |(out, repo)| match super::assets::read_worktree(copies.root, repo) {
                Some(b) => write(out, &b).map(|()| b.len() as u64),
                // unreadable or refused: skipped (and not kept from a reused tree)
                None => {
                    let _ = std::fs::remove_file(dir.join(out));
                    Ok(u64::MAX)
                }
            },
        )
        .collect::<Result<_>>()?;
    let mut report = BuildReport {
        pages: 0,
        files: 0,
        bytes: 0,
    };
    for (html, len) in sizes
        .into_iter()
        .chain(
            files
                .iter()
                .map(|(p, b)| (p.ends_with(".html"), b.len() as u64)),
        )
        .chain(
            copied
                .into_iter()
                .filter(|&n| n != u64::MAX)
                .map(|n| (false, n)),
        )
    {
        report.files += 1;
        report.bytes += len;
        if html {
            report.pages += 1;
        }
    }
    put(&dir.join(MARKER), b"built by kepsite\n", None)
        .with_context(|| format!("writing {MARKER}"))?;
    report.files += 1;
    Ok(report)
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
