//! Working-tree loader: a directory on disk → [`RepoSnapshot`].
//!
//! Walks `keps/` without following directory symlinks (no loops), follows file
//! symlinks only when their target is published content (under `keps/`, never
//! in `.git`), and reads the
//! input files in parallel.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use rayon::prelude::*;

use super::{
    LoadProblem, MAX_FILE_BYTES, RepoFile, RepoSnapshot, Source, finish, is_input,
    link_target_allowed,
};

enum Walked {
    /// Read this file (possibly a symlink's in-repo target) as `path`.
    Input {
        path: String,
        disk: PathBuf,
    },
    Asset(String),
    Problem(LoadProblem),
}

pub(super) fn load(root: &Path) -> Result<RepoSnapshot> {
    let meta = fs::metadata(root).with_context(|| format!("reading {}", root.display()))?;
    if !meta.is_dir() {
        bail!("{} is not a directory", root.display());
    }
    let canon_root = root
        .canonicalize()
        .with_context(|| format!("resolving {}", root.display()))?;
    let mut entries = Vec::new();
    let aliases = root.join("OWNERS_ALIASES");
    if aliases.symlink_metadata().is_ok() {
        classify(&canon_root, &aliases, "OWNERS_ALIASES".into(), &mut entries);
    }
    let keps = root.join("keps");
    if keps.is_dir() {
        walk(&canon_root, &keps, "keps", &mut entries);
    }

    let results: Vec<Result<RepoFile, LoadProblem>> = entries
        .par_iter()
        .filter_map(|e| match e {
            Walked::Input { path, disk } => Some(read(path, disk)),
            _ => None,
        })
        .collect();
    let mut files = Vec::new();
    let mut assets = Vec::new();
    let mut problems = Vec::new();
    for r in results {
        match r {
            Ok(f) => files.push(f),
            Err(p) => problems.push(p),
        }
    }
    for e in entries {
        match e {
            Walked::Asset(a) => assets.push(a),
            Walked::Problem(p) => problems.push(p),
            Walked::Input { .. } => {}
        }
    }
    Ok(finish(
        Source {
            root: root.to_path_buf(),
            commit: None,
            time: head_time(root),
        },
        files,
        assets,
        problems,
    ))
}

/// List `dir` recursively, in name order; subdirectories are listed in parallel.
fn walk(canon_root: &Path, dir: &Path, rel: &str, out: &mut Vec<Walked>) {
    let rd = match fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) => {
            out.push(Walked::Problem(LoadProblem {
                path: rel.to_string(),
                rule: "file-unreadable",
                message: format!("cannot list directory: {e}"),
            }));
            return;
        }
    };
    let mut children: Vec<_> = rd.filter_map(|e| e.ok()).collect();
    children.sort_by_key(|e| e.file_name());
    let listed: Vec<Vec<Walked>> = children
        .par_iter()
        .map(|child| {
            let mut out = Vec::new();
            let name = match child.file_name().into_string() {
                Ok(n) => n,
                Err(n) => {
                    out.push(Walked::Problem(LoadProblem {
                        path: format!("{rel}/{}", n.to_string_lossy()),
                        rule: "file-unreadable",
                        message: "file name is not valid UTF-8".into(),
                    }));
                    return out;
                }
            };
            let path = format!("{rel}/{name}");
            let Ok(ft) = child.file_type() else {
                return out;
            };
            if ft.is_dir() {
                walk(canon_root, &child.path(), &path, &mut out);
            } else if ft.is_file() {
                // a regular file (the directory entry says so without a stat)
                push_file(path, child.path(), &mut out);
            } else {
                classify(canon_root, &child.path(), path, &mut out);
            }
            out
        })
        .collect();
    out.extend(listed.into_iter().flatten());
}

fn classify(canon_root: &Path, disk: &Path, path: String, out: &mut Vec<Walked>) {
    let Ok(lmeta) = disk.symlink_metadata() else {
        return;
    };
    if lmeta.file_type().is_symlink() {
        let inside = |t: &Path| {
            t.strip_prefix(canon_root)
                .ok()
                .and_then(|r| r.to_str())
                .is_some_and(|r| link_target_allowed(&r.replace('\\', "/")))
        };
        match disk.canonicalize() {
            Ok(target) if inside(&target) => {
                if !target.is_file() {
                    // Directory symlinks are not followed: they could loop.
                    return;
                }
            }
            Ok(_) => {
                let text = fs::read_link(disk)
                    .map(|t| t.to_string_lossy().into_owned())
                    .unwrap_or_default();
                out.push(Walked::Problem(LoadProblem {
                    path,
                    rule: "symlink-outside",
                    message: format!(
                        "symlink points outside the published part of the repository \
                         (keps/), or into .git ({text}); not followed"
                    ),
                }));
                return;
            }
            Err(_) => {
                out.push(Walked::Problem(LoadProblem {
                    path,
                    rule: "symlink-outside",
                    message: "symlink target does not exist; not followed".into(),
                }));
                return;
            }
        }
    }
    let regular = disk.metadata().map(|m| m.is_file()).unwrap_or(false);
    if !regular {
        // FIFOs, sockets and devices could block or be huge; never read them.
        out.push(Walked::Problem(LoadProblem {
            path,
            rule: "file-unreadable",
            message: "not a regular file; not read".into(),
        }));
        return;
    }
    push_file(path, disk.to_path_buf(), out);
}

fn push_file(path: String, disk: PathBuf, out: &mut Vec<Walked>) {
    if is_input(&path) {
        out.push(Walked::Input { path, disk });
    } else {
        out.push(Walked::Asset(path));
    }
}

fn read(path: &str, disk: &Path) -> Result<RepoFile, LoadProblem> {
    let problem = |rule, message| LoadProblem {
        path: path.to_string(),
        rule,
        message,
    };
    let meta = fs::metadata(disk).map_err(|e| problem("file-unreadable", e.to_string()))?;
    if meta.len() > MAX_FILE_BYTES {
        return Err(problem(
            "file-too-large",
            format!(
                "file is {} bytes, over the {} byte limit; not read",
                meta.len(),
                MAX_FILE_BYTES
            ),
        ));
    }
    let bytes = fs::read(disk).map_err(|e| problem("file-unreadable", e.to_string()))?;
    Ok(RepoFile {
        path: path.to_string(),
        bytes,
    })
}

/// The commit time of HEAD when `root` is the top of a git repository (a
/// directory inside another project's repository, such as `content/`, is
/// not a snapshot of that project).
fn head_time(root: &Path) -> Option<i64> {
    let repo = git2::Repository::open(root).ok()?;
    let head = repo.head().ok()?.peel_to_commit().ok()?;
    Some(head.time().seconds())
}
