//! The directory operations of a build: creating the staging directory,
//! swapping it with the live site, and removing trees.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use rayon::prelude::*;

use super::parent_and_name;

pub(super) fn tempdir_in(parent: &Path, stem: &str) -> Result<PathBuf> {
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
pub(super) fn swap(tmp: &Path, out: &Path) -> Result<()> {
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
