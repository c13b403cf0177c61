//! Loading: a working tree (`--repo DIR`) or a git revision (`--rev REV`) →
//! [`RepoSnapshot`], the bytes of every input file kepsite reads.
//!
//! Both sources produce the same snapshot for the same commit: the same paths
//! (relative, `/`-separated, sorted), the same bytes, the same problems. Files
//! that cannot be read, are larger than [`MAX_FILE_BYTES`], or are symlinks
//! to anything but published content (leaving the repository, into `.git`,
//! outside `keps/`) become [`LoadProblem`]s, never errors.
//!
//! The loaders here (`load_with`, `load_only`, the embedded sample) are the
//! first step of `Project::load`, and crate-private: outside the crate a
//! repository is loaded by `Project::load` alone.

mod assets;
mod changes;
mod embedded;
#[cfg(test)]
mod fixture;
pub use assets::{inert_svg, publishable, read_asset, read_assets};
mod text;
#[cfg(test)]
pub(crate) use fixture::git_repository;
pub use text::text;
pub mod gates;
mod git;
pub mod history;
pub mod image;
pub mod since;
mod worktree;

pub use changes::{ChangeSet, Range, changes};
pub use embedded::EMBEDDED_ROOT;
pub(crate) use embedded::load_embedded;

use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result};

/// A file's git blob id: the id git gives its bytes (`git hash-object`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlobId(git2::Oid);

/// The [`BlobId`] of `bytes`: SHA-1 of `blob <length>\0` and the bytes.
///
/// Hashed with the `sha1` crate (the processor's SHA instructions where it
/// has them) rather than libgit2's collision-detecting SHA-1, which was
/// about a quarter of a freeze deadline's reading (the ids of today's
/// READMEs: 4% of `report`'s CPU on the corpus) at about a quarter of the
/// speed. The id only tells whether a revision's blob holds today's text;
/// the blobs it is compared with were accepted by git, which refuses the
/// known collision attacks.
pub fn blob_id(bytes: &[u8]) -> BlobId {
    use sha1::Digest as _;
    let mut sha = sha1::Sha1::new();
    sha.update(format!("blob {}\0", bytes.len()).as_bytes());
    sha.update(bytes);
    let digest: [u8; 20] = sha.finalize().into();
    // 20 bytes are always an id; the zero id matches no blob
    BlobId(git2::Oid::from_bytes(&digest).unwrap_or(git2::Oid::ZERO_SHA1))
}

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
    /// The other files under `keps/` (images and the like), paths only,
    /// sorted; which of them the site may publish is [`publishable`]'s
    /// call, made when the model is first asked.
    pub assets: Vec<String>,
    /// Files that were not loaded, sorted by path.
    pub problems: Vec<LoadProblem>,
    /// KEP READMEs listed and not read yet (a revision loaded with
    /// `load_with` deferring them): each is in `files` with no bytes until
    /// [`Deferred::take`] reads it.
    pub deferred: Option<Deferred>,
}

/// The README blobs of a revision left unread: the freeze deadline's
/// snapshot reads only those of the KEPs in the release (inflating every
/// README blob was 100 ms of the corpus's 160).
#[derive(Debug, Clone)]
pub struct Deferred(git::Unread);

impl Deferred {
    /// The blobs at `paths` (those not deferred, or read already, are
    /// skipped), read as the snapshot reads its files: too large or
    /// unreadable ones are problems. Each is taken once; one `held` holds
    /// already is not read again ([`Held`]: a freeze deadline's READMEs are
    /// mostly today's, and inflating them again was about half of the
    /// deadline's reading).
    pub fn take(
        &mut self,
        paths: &[&str],
        held: Option<&Held<'_>>,
    ) -> Result<(Vec<RepoFile>, Vec<LoadProblem>)> {
        self.0.take(paths, held)
    }

    /// Whether `path` was left unread.
    pub fn contains(&self, path: &str) -> bool {
        self.0.contains(path)
    }
}

impl RepoSnapshot {
    /// A snapshot of in-memory files `(path, text)`, for tests of the
    /// layers above the loader.
    #[cfg(test)]
    pub(crate) fn from_files(files: &[(&str, &str)]) -> RepoSnapshot {
        let files = files
            .iter()
            .map(|(p, t)| RepoFile {
                path: p.to_string(),
                bytes: t.as_bytes().to_vec(),
            })
            .collect();
        let source = Source {
            root: "/nonexistent".into(),
            commit: None,
            time: None,
        };
        finish(source, files, vec![], vec![])
    }

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

/// Whether a symlink may point at `target` (repository-relative): only at
/// content kepsite publishes anyway (under `keps/`, or `OWNERS_ALIASES`),
/// never into a `.git` directory, where a checkout may keep credentials.
pub(crate) fn link_target_allowed(target: &str) -> bool {
    is_wanted(target) && !target.split('/').any(|c| c.eq_ignore_ascii_case(".git"))
}

/// Whether a path is part of the repository content kepsite looks at at all.
pub(crate) fn is_wanted(path: &str) -> bool {
    path == "OWNERS_ALIASES" || path.starts_with("keps/")
}

/// The files of revision `rev` of the repository at `root` that `under`
/// keeps: every input file for which it is true, read as [`load_with`] reads
/// them (a directory path ends in `/`, and is entered when `under` keeps
/// it). A pull request's head is read this way, its KEP's files only. A
/// revision missing from the clone is an error saying so.
pub(crate) fn load_only(
    root: &Path,
    rev: &str,
    under: &dyn Fn(&str) -> bool,
) -> Result<RepoSnapshot> {
    git::load_where(root, rev, None, None, under)
}

/// The bytes a reader holds already of the file at a path with a blob id,
/// if it does: a revision's blob with that id is not read again (a freeze
/// deadline's kep.yaml, prod-readiness files and READMEs are mostly today's).
pub type Held<'a> = dyn Fn(&str, &BlobId) -> Option<Vec<u8>> + Sync + 'a;

/// Which of a revision's listed paths a deferring load leaves unread (the
/// KEPs' READMEs: `kep::kep_readmes`, where the loader's rule is).
pub type Defer = fn(&[&str]) -> std::collections::BTreeSet<String>;

/// Load `root` as a working tree, or revision `rev` of it when given (read
/// straight from the object database; when `root` is a subdirectory of the
/// work tree, that subdirectory of the revision). Input that is not an
/// enhancements checkout is an error (see [`not_a_checkout`]), so a wrong
/// `--repo` never reads as "0 KEPs checked". `defer` picks the files of a
/// revision left unread ([`RepoSnapshot::deferred`]; a working tree's are
/// all read, which is cheap); `held` gives the bytes of the revision's
/// files the reader holds already, which are not read again.
pub(crate) fn load_with(
    root: &Path,
    rev: Option<&str>,
    defer: Option<Defer>,
    held: Option<&Held<'_>>,
) -> Result<RepoSnapshot> {
    if rev.is_none()
        && let Some(why) = not_a_checkout(root)
    {
        anyhow::bail!(why);
    }
    let snapshot = match rev {
        Some(rev) => git::load(root, rev, defer, held)?,
        None => worktree::load(root)?,
    };
    let inputs = |p: &str| {
        p.starts_with("keps/") && (p.ends_with(".yaml") || p.ends_with(".md") || p.ends_with(".MD"))
    };
    if !snapshot.files.iter().any(|f| inputs(&f.path)) {
        let at = match rev {
            Some(rev) => format!("revision {rev} of {}", root.display()),
            None => root.display().to_string(),
        };
        anyhow::bail!(
            "no KEP in {at}: its keps/ directory holds no kep.yaml or KEP markdown; \
             point --repo at the root of a kubernetes/enhancements checkout"
        );
    }
    Ok(snapshot)
}

/// Why the working tree at `root` is not an enhancements checkout, when it
/// is not: no such directory, no `keps/` directory in it; and where `root`
/// lies inside a checkout (`keps/`, a SIG's folder), where its root is.
pub fn not_a_checkout(root: &Path) -> Option<String> {
    if !root.is_dir() {
        return Some(format!(
            "--repo {}: no such directory; point --repo at the root of a kubernetes/enhancements checkout",
            root.display()
        ));
    }
    if root.join("keps").is_dir() {
        return None;
    }
    let abs = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let inside = abs
        .ancestors()
        .skip(1)
        .find(|a| a.join("keps").is_dir() && abs.starts_with(a.join("keps")));
    Some(match inside {
        Some(top) => format!(
            "--repo {} is inside an enhancements checkout; point --repo at its root: {}",
            root.display(),
            top.display()
        ),
        None => format!(
            "no keps/ directory in {}; point --repo at the root of a kubernetes/enhancements checkout",
            root.display()
        ),
    })
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
        deferred: None,
    }
}

/// Whether a commit made at `time` is part of the repository as it stood
/// at `instant` (both seconds since the epoch): committed at or before it,
/// as git's `--before` reads a date. The one cut-off of every "the branch
/// at an instant" (a freeze deadline, `report --since DATE`, Kubernetes'
/// code at a release day or a snapshot's date).
pub fn committed_before(time: i64, instant: i64) -> bool {
    time <= instant
}

/// Where the first-parent line of a revision was at an instant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AtInstant {
    /// The line's newest commit [`committed_before`] the instant.
    Commit(String),
    /// The line begins after the instant; `shallow` when that is because
    /// the clone is shallow.
    Later {
        /// The clone is shallow.
        shallow: bool,
    },
}

/// Where `rev` (HEAD when `None`) of the git repository holding `root` was
/// at `instant` (seconds since the epoch); `None` when `root` is in no git
/// repository or `rev` names no commit.
pub fn commit_at(root: &Path, rev: Option<&str>, instant: i64) -> Option<AtInstant> {
    let repo = git2::Repository::discover(root).ok()?;
    let head = repo
        .revparse_single(rev.unwrap_or("HEAD"))
        .and_then(|o| o.peel_to_commit())
        .ok()?;
    Some(match before_on_first_parent(&head, instant) {
        Ok(c) => AtInstant::Commit(c.id().to_string()),
        Err(_) => AtInstant::Later {
            shallow: repo.is_shallow(),
        },
    })
}

/// The newest commit on `head`'s first-parent line [`committed_before`]
/// `cutoff` (committer time): what the branch was at that instant
/// (`report --since`, a freeze deadline).
pub fn before_on_first_parent<'r>(
    head: &git2::Commit<'r>,
    cutoff: i64,
) -> Result<git2::Commit<'r>> {
    let mut commit = head.clone();
    while !committed_before(commit.time().seconds(), cutoff) {
        commit = commit
            .parent(0)
            .context("the first-parent line ends before that date")?;
    }
    Ok(commit)
}

#[cfg(test)]
mod deferred_tests;

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
    fn only_inert_attachments_are_published() {
        assert!(inert_svg(b"<svg xmlns=\"http://www.w3.org/2000/svg\"><rect width=\"1\"/><text>config</text></svg>"));
        for bad in [
            "<svg><script>alert(1)</script></svg>",
            "<svg><SCRIPT href=\"evil.js\"/></svg>",
            "<svg><x:script xmlns:x=\"http://www.w3.org/2000/svg\"/></svg>",
            "<svg onload=\"alert(1)\"/>",
            "<svg><rect\nONCLICK = \"x()\"/></svg>",
            "<svg><a href=\"javascript:alert(1)\"><text>x</text></a></svg>",
            "<svg><a href=\"jav&#x61;script:x\"/></svg>",
            "<svg><foreignObject><iframe src=\"x\"/></foreignObject></svg>",
            "<!DOCTYPE svg [<!ENTITY x \"y\">]><svg>&x;</svg>",
            "<?xml-stylesheet type=\"text/xsl\" href=\"x.xsl\"?><svg/>",
            "<svg><set attributeName=\"href\" to=\"x\"/></svg>",
            "<svg><a href=\"data:text/html,x\"/></svg>",
        ] {
            assert!(!inert_svg(bad.as_bytes()), "{bad}");
        }
        assert!(!inert_svg(&[0xff, 0xfe, b'<']));
        let source = Source {
            root: PathBuf::from(EMBEDDED_ROOT),
            commit: None,
            time: None,
        };
        assert!(publishable(&source, "keps/a/1-x/diagram.PNG"));
        for path in [
            "keps/a/1-x/evil.html",
            "keps/a/1-x/x.js",
            "keps/a/1-x/x.xhtml",
            "keps/a/1-x/x.pdf",
            "keps/a/1-x/OWNERS",
            "keps/a/1-x/none.svg",
        ] {
            assert!(!publishable(&source, path), "{path}");
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

/// Bound what libgit2 keeps of the packfiles in memory: by default it maps
/// a pack in windows of 1 GB and unmaps none below 8 GB mapped, so every
/// page of the pack a history walk touches stays resident. With 8 MB
/// windows and at most 64 MB mapped, the least recently used windows are
/// unmapped beyond that. The corpus's pack (54 MB) fits: at 32 MB the
/// walk's threads took turns unmapping and mapping again the windows the
/// other needed (munmap and page faults: 3% of a cold build's CPU). With
/// 64 MB and the walk before the load (`Project::load`): CPU 0.974x, wall
/// 0.970x, peak 108.5 against 118.2 MiB (21 pairs). Call once, before any
/// repository is opened.
pub fn bound_pack_windows() {
    const WINDOW: usize = 8 << 20;
    const MAPPED: usize = 64 << 20;
    // SAFETY: these only set libgit2's global options, once at start-up,
    // before any thread opens a repository.
    unsafe {
        let _ = git2::opts::set_mwindow_size(WINDOW);
        let _ = git2::opts::set_mwindow_mapped_limit(MAPPED);
    }
}

#[cfg(test)]
mod pack_window_tests {
    #[test]
    fn pack_windows_are_bounded() {
        super::bound_pack_windows();
        // SAFETY: reads libgit2's global options.
        let (window, mapped) = unsafe {
            (
                git2::opts::get_mwindow_size().unwrap(),
                git2::opts::get_mwindow_mapped_limit().unwrap(),
            )
        };
        assert_eq!((window, mapped), (8 << 20, 64 << 20));
    }
}
