//! Loading: a working tree (`--repo DIR`) or a git revision (`--rev REV`) →
//! [`RepoSnapshot`], the bytes of every input file kepsite reads.
//!
//! Both sources produce the same snapshot for the same commit: the same paths
//! (relative, `/`-separated, sorted), the same bytes, the same problems. Files
//! that cannot be read, are larger than [`MAX_FILE_BYTES`], or are symlinks
//! leaving the repository become [`LoadProblem`]s, never errors.

mod embedded;
mod git;
mod worktree;

pub use embedded::{EMBEDDED_ROOT, load_embedded};

use std::path::{Path, PathBuf};

use anyhow::Result;

/// Files larger than this are refused with a problem instead of being read.
pub const MAX_FILE_BYTES: u64 = 10 * 1024 * 1024;

/// Where a snapshot was read from.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Source {
    /// The directory given with `--repo`.
    pub root: PathBuf,
    /// The commit id when read from git with `--rev`, `None` for a working tree.
    pub commit: Option<String>,
    /// The commit time (unix seconds) of the snapshot: the `--rev` commit,
    /// or HEAD of the repository a working tree is in; `None` for a plain
    /// directory and the embedded sample. The day the snapshot stands for
    /// (the release in progress, days to a freeze) is read from it, never
    /// from the clock.
    pub time: Option<i64>,
}

/// One input file: its path relative to the repository root and its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepoFile {
    /// Relative path with `/` separators, e.g. `keps/sig-node/2400-node-swap/kep.yaml`.
    pub path: String,
    /// Raw contents; decoding is the parser's job so a bad encoding becomes a finding.
    pub bytes: Vec<u8>,
}

/// Why a file under `keps/` was not loaded.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct LoadProblem {
    /// Relative path of the file.
    pub path: String,
    /// Rule id for the finding this turns into (`file-unreadable`, `file-too-large`, `symlink-outside`).
    pub rule: &'static str,
    /// Human explanation.
    pub message: String,
}

/// Every input of one repository state.
#[derive(Debug, Clone)]
pub struct RepoSnapshot {
    /// Where it came from.
    pub source: Source,
    /// Input files (kep.yaml, markdown, prod-readiness YAML, OWNERS_ALIASES), sorted by path.
    pub files: Vec<RepoFile>,
    /// Every other file under `keps/` (images, diagrams), paths only, sorted.
    pub assets: Vec<String>,
    /// Files that were not loaded, sorted by path.
    pub problems: Vec<LoadProblem>,
}

impl RepoSnapshot {
    /// The file at `path`, if it was loaded.
    pub fn file(&self, path: &str) -> Option<&RepoFile> {
        self.files
            .binary_search_by(|f| f.path.as_str().cmp(path))
            .ok()
            .map(|i| &self.files[i])
    }
}

/// Whether a path is an input file (read into memory) rather than an asset.
pub(crate) fn is_input(path: &str) -> bool {
    if path == "OWNERS_ALIASES" {
        return true;
    }
    if !path.starts_with("keps/") {
        return false;
    }
    let name = path.rsplit('/').next().unwrap_or(path);
    let lower = name.to_ascii_lowercase();
    lower.ends_with(".md")
        || name == "kep.yaml"
        || (path.starts_with("keps/prod-readiness/") && lower.ends_with(".yaml"))
}

/// Whether a path is part of the repository content kepsite looks at at all.
pub(crate) fn is_wanted(path: &str) -> bool {
    path == "OWNERS_ALIASES" || path.starts_with("keps/")
}

/// Load the working tree at `root`.
pub fn load_worktree(root: &Path) -> Result<RepoSnapshot> {
    worktree::load(root)
}

/// Load revision `rev` of the git repository containing `root`, straight from
/// the object database. When `root` is a subdirectory of the repository's work
/// tree, that subdirectory of the revision is read.
pub fn load_git(root: &Path, rev: &str) -> Result<RepoSnapshot> {
    git::load(root, rev)
}

/// Load `root` as a working tree, or revision `rev` of it when given.
pub fn load(root: &Path, rev: Option<&str>) -> Result<RepoSnapshot> {
    match rev {
        Some(rev) => load_git(root, rev),
        None => load_worktree(root),
    }
}

/// Read a non-input file (an image beside a README) from wherever the
/// snapshot came from: the embedded sample, a git commit, or the working tree
/// (only when it stays inside the repository). `None` when it cannot be read.
pub fn read_asset(source: &Source, path: &str) -> Option<Vec<u8>> {
    if !is_wanted(path) || path.split('/').any(|c| c == ".." || c.is_empty()) {
        return None;
    }
    if source.root == Path::new(EMBEDDED_ROOT) {
        return embedded::read(path);
    }
    if let Some(commit) = &source.commit {
        return git::read_blob(&source.root, commit, path).ok();
    }
    let root = source.root.canonicalize().ok()?;
    let full = root.join(path).canonicalize().ok()?;
    if !full.starts_with(&root) {
        return None;
    }
    let meta = std::fs::metadata(&full).ok()?;
    if !meta.is_file() || meta.len() > MAX_FILE_BYTES {
        return None;
    }
    std::fs::read(full).ok()
}

/// Resolve `target` (a symlink's text) relative to the directory of `link`
/// (both repository-relative). `None` when it climbs out of the repository or
/// is absolute.
pub(crate) fn resolve_link(link: &str, target: &str) -> Option<String> {
    if target.starts_with('/') || target.contains('\\') {
        return None;
    }
    let mut parts: Vec<&str> = link.split('/').collect();
    parts.pop();
    for comp in target.split('/') {
        match comp {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            c => parts.push(c),
        }
    }
    Some(parts.join("/"))
}

fn finish(
    source: Source,
    mut files: Vec<RepoFile>,
    mut assets: Vec<String>,
    mut problems: Vec<LoadProblem>,
) -> RepoSnapshot {
    files.sort_by(|a, b| a.path.cmp(&b.path));
    assets.sort();
    problems.sort_by(|a, b| a.path.cmp(&b.path));
    RepoSnapshot {
        source,
        files,
        assets,
        problems,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn link_resolution_stays_inside() {
        let cases = [
            ("keps/a/x.md", "1-x/README.md", Some("keps/a/1-x/README.md")),
            ("keps/a/x.md", "../b/y.md", Some("keps/b/y.md")),
            ("keps/a/x.md", "../../../etc/passwd", None),
            ("keps/a/x.md", "/etc/passwd", None),
            ("keps/a/x.md", "./y.md", Some("keps/a/y.md")),
        ];
        for (link, target, want) in cases {
            assert_eq!(
                resolve_link(link, target).as_deref(),
                want,
                "{link} -> {target}"
            );
        }
    }

    #[test]
    fn input_classification() {
        assert!(is_input("keps/sig-a/1-x/kep.yaml"));
        assert!(is_input("keps/sig-a/1-x/README.MD"));
        assert!(is_input("keps/prod-readiness/sig-a/1.yaml"));
        assert!(is_input("OWNERS_ALIASES"));
        assert!(!is_input("keps/sig-a/1-x/diagram.png"));
        assert!(!is_input("keps/sig-a/1-x/other.yaml"));
        assert!(!is_input("docs/README.md"));
    }
}
