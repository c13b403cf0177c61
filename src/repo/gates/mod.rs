//! Kubernetes' feature gates, read from a kubernetes/kubernetes checkout or
//! its history with tree-sitter's Go grammar: which gates exist, the KEP
//! each names in its `// kep:` comment, and its specs (default, stage and
//! lock, per release in the versioned format).
//!
//! The files read ([`is_gate_file`]): every non-test `.go` file under
//! `pkg/features/`, and under `staging/src/k8s.io/<module>/` those in a
//! directory named `features` or named `*features.go`
//! (`component-base/logs/api/v1/kube_features.go`). Both spec formats are
//! read: `map[featuregate.Feature]featuregate.FeatureSpec` (unversioned,
//! before 1.32; `{Default: false, PreRelease: featuregate.Alpha}`) and
//! `map[featuregate.Feature]featuregate.VersionedSpecs`, also client-go's
//! own `map[Feature]VersionedSpecs`. Staging gates listed again in
//! `pkg/features` (`genericfeatures.X: {…}`) are resolved to their
//! constant's name and kept once (see `build.rs`).
//!
//! [`Kubernetes`] opens a checkout and reads any revision: files are read
//! from git's object database and parsed once per blob, so a file that did
//! not change between two commits is not parsed again, and a changed one is
//! reparsed incrementally from its previous version's syntax tree
//! (`incremental.rs`). Reading all 116 master snapshots of the
//! kubernetes-features corpus (199 distinct blobs, 9.8 MB of Go; a full
//! parse of `kube_features.go` alone is ~24 ms) took 1.25–1.8 s wall, under
//! 1 s of CPU, in `tests/corpus/gates.rs` (which prints it) on the shared
//! 2-core machine at a load average of 6; that is the test profile, whose
//! dependencies (tree-sitter, libgit2) are optimized but kepsite's own code
//! is not; a release build was not measured separately. Without the
//! incremental reparse it was 2.8 s. A snapshot read before costs a lookup.
//!
//! Nothing here panics on bad input: what cannot be read is a [`Problem`].

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use serde::Serialize;

mod build;
mod incremental;
mod kep;
mod parse;
mod repo;
#[cfg(test)]
mod tests;

pub use repo::{CommitInfo, Kubernetes, MAX_DEPTH, MAX_FILE_BYTES, TagInfo, landed};

/// The errors of this module (opening a checkout, reading git).
pub type Error = anyhow::Error;

/// A gate's maturity, featuregate's `PreRelease`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum PreRelease {
    /// `featuregate.Alpha`.
    Alpha,
    /// `featuregate.Beta`.
    Beta,
    /// `featuregate.GA` (also a spec without `PreRelease`: GA is `""`).
    #[serde(rename = "GA")]
    Ga,
    /// `featuregate.Deprecated`.
    Deprecated,
}

impl PreRelease {
    /// The label Kubernetes uses: `Alpha`, `Beta`, `GA`, `Deprecated`.
    pub fn as_str(self) -> &'static str {
        match self {
            PreRelease::Alpha => "Alpha",
            PreRelease::Beta => "Beta",
            PreRelease::Ga => "GA",
            PreRelease::Deprecated => "Deprecated",
        }
    }

    /// The stage a Go identifier names (`Alpha`, `Beta`, `GA`,
    /// `Deprecated`), without its package.
    pub fn from_go(ident: &str) -> Option<PreRelease> {
        match ident {
            "Alpha" => Some(PreRelease::Alpha),
            "Beta" => Some(PreRelease::Beta),
            "GA" => Some(PreRelease::Ga),
            "Deprecated" => Some(PreRelease::Deprecated),
            _ => None,
        }
    }
}

impl std::fmt::Display for PreRelease {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One spec of a gate: from release 1.`minor` on, its default, stage and lock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Spec {
    /// The release 1.minor the spec starts at (`"1.0"` is 0); 0 for an
    /// unversioned spec, which holds for every release.
    pub minor: u32,
    /// `Default`.
    pub default: bool,
    /// `PreRelease`.
    pub pre_release: PreRelease,
    /// `LockToDefault`.
    pub locked: bool,
}

/// A feature gate.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Gate {
    /// Its name: the constant's string value (what `--feature-gates` takes).
    pub name: String,
    /// The first KEP number its `// kep:` comment names.
    pub kep: Option<u32>,
    /// Every KEP number that comment names (`kep: A, B`), in order.
    pub keps: Vec<u32>,
    /// The comment's text after `kep:`, as written.
    pub kep_text: Option<String>,
    /// The file declaring its constant (the first in path order), or the
    /// spec's file when no file declares it.
    pub file: String,
    /// 1-based line of that declaration.
    pub line: usize,
    /// Other files declaring a constant with the same name.
    pub also_in: Vec<String>,
    /// Its specs, sorted by minor (stable: the file's order for equal minors).
    pub specs: Vec<Spec>,
    /// Whether the specs are versioned (`VersionedSpecs`).
    pub versioned: bool,
}

impl Gate {
    /// The spec in force in release 1.`minor`: the last whose minor is at
    /// most `minor` (an unversioned spec holds for every release); `None`
    /// before the gate's first spec.
    pub fn stage_at(&self, minor: u32) -> Option<&Spec> {
        if !self.versioned {
            return self.specs.last();
        }
        self.specs.iter().rev().find(|s| s.minor <= minor)
    }
}

/// Something in a file that could not be read as a gate or spec.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// The file (or directory), relative to the checkout's root.
    pub file: String,
    /// 1-based line; 0 for the whole file or directory.
    pub line: usize,
    /// What is wrong.
    pub message: String,
    /// Whether gates may be missing because of it: the file, a part of it
    /// or a directory could not be read (a syntax error, a file over
    /// [`MAX_FILE_BYTES`], a tree deeper than [`MAX_DEPTH`]). What the code
    /// says of a release read with such a problem cannot be trusted to be
    /// complete.
    pub unread: bool,
}

impl Problem {
    fn new(file: &str, line: usize, message: String) -> Problem {
        Problem {
            file: file.to_string(),
            line,
            message,
            unread: false,
        }
    }

    fn unread(file: &str, line: usize, message: String) -> Problem {
        Problem {
            unread: true,
            ..Problem::new(file, line, message)
        }
    }
}

/// The feature gates of one revision (or of the files given to [`parse_file`]).
#[derive(Clone, Debug, Default)]
pub struct Snapshot {
    /// The gates by name.
    pub gates: BTreeMap<String, Gate>,
    /// What could not be read, by file and line.
    pub problems: Vec<Problem>,
    /// Every file's facts by path, to resolve names across files.
    files: Vec<(String, Arc<parse::FileFacts>)>,
}

/// Adds the file at `path` (relative to the checkout's root, `/`-separated)
/// with `text` to `into`, and resolves the gates again across all of its
/// files: a staging gate listed in `pkg/features` finds its constant
/// whichever file comes first. Never panics: what it cannot read becomes a
/// [`Problem`].
pub fn parse_file(path: &str, text: &str, into: &mut Snapshot) {
    into.add(path, Arc::new(parse::read(text)));
}

impl Snapshot {
    fn add(&mut self, path: &str, facts: Arc<parse::FileFacts>) {
        self.files.retain(|(p, _)| p != path);
        self.files.push((path.to_string(), facts));
        self.files.sort_by(|a, b| a.0.cmp(&b.0));
        (self.gates, self.problems) = build::build(&self.files);
    }

    /// The snapshot of `files`, with `walk`: the problems of the walk that
    /// found them (directories not read).
    fn from_facts(mut files: Vec<(String, Arc<parse::FileFacts>)>, walk: &[Problem]) -> Snapshot {
        files.sort_by(|a, b| a.0.cmp(&b.0));
        let (gates, mut problems) = build::build(&files);
        problems.extend(walk.iter().cloned());
        problems.sort_by(|a, b| (&a.file, a.line).cmp(&(&b.file, b.line)));
        Snapshot {
            gates,
            problems,
            files,
        }
    }

    /// The gate files of a directory tree (a checkout's working directory).
    pub fn from_dir(root: &Path) -> Result<Snapshot, Error> {
        let mut files = Vec::new();
        let (paths, walk) = repo::gate_files_on_disk(root)?;
        for path in paths {
            let full = root.join(&path);
            let size = std::fs::metadata(&full).map(|m| m.len()).unwrap_or(0);
            let facts = if size > MAX_FILE_BYTES as u64 {
                parse::too_large(size)
            } else {
                let text = std::fs::read(&full)
                    .map_err(|e| anyhow::anyhow!("reading {}: {e}", full.display()))?;
                parse::read_bytes(&text)
            };
            files.push((path, Arc::new(facts)));
        }
        Ok(Snapshot::from_facts(files, &walk))
    }

    /// The gate files of a git tree (a commit's root tree).
    pub fn from_tree(repo: &git2::Repository, tree: &git2::Tree) -> Result<Snapshot, Error> {
        let mut files = Vec::new();
        let listing = repo::gate_files_in_tree(repo, tree, &mut Default::default())?;
        for (path, oid) in &listing.files {
            let blob = repo::find_blob(repo, *oid, path)?;
            files.push((path.clone(), Arc::new(parse::read_bytes(blob.content()))));
        }
        Ok(Snapshot::from_facts(files, &listing.problems))
    }

    /// The problems that mean gates may be missing (see [`Problem::unread`]).
    pub fn unread(&self) -> impl Iterator<Item = &Problem> {
        self.problems.iter().filter(|p| p.unread)
    }

    /// The paths of the files read, sorted.
    pub fn files(&self) -> impl Iterator<Item = &str> {
        self.files.iter().map(|(p, _)| p.as_str())
    }

    /// The gates whose `// kep:` comment names KEP `n`, by name.
    pub fn for_kep(&self, n: u32) -> impl Iterator<Item = &Gate> {
        self.gates.values().filter(move |g| g.keps.contains(&n))
    }
}

/// Whether `path` (relative to a kubernetes checkout, `/`-separated) is a
/// file that may declare gates: a non-test `.go` file under `pkg/features/`,
/// or under `staging/src/k8s.io/<module>/` with a directory component
/// `features` or a name ending `features.go`.
pub fn is_gate_file(path: &str) -> bool {
    if !path.ends_with(".go") || path.ends_with("_test.go") {
        return false;
    }
    if path.starts_with("pkg/features/") {
        return true;
    }
    let Some(rest) = path.strip_prefix("staging/src/k8s.io/") else {
        return false;
    };
    let mut parts: Vec<&str> = rest.split('/').collect();
    let Some(name) = parts.pop() else {
        return false;
    };
    !parts.is_empty() && (parts[1..].contains(&"features") || name.ends_with("features.go"))
}
