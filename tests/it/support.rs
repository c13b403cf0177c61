//! Helpers: run the binary, copy `content/` into a temp dir, clone the corpus.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The bundle of the real kubernetes/enhancements history.
pub const BUNDLE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../shared/corpus/enhancements.bundle"
);

/// The sample repository.
pub fn content() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("content")
}

/// Output of one kepsite run.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Run the kepsite binary with `args` in `cwd`.
pub fn kepsite_in(cwd: &Path, args: &[&str]) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_kepsite"))
        .args(args)
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .output()
        .expect("running kepsite");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Run kepsite from the crate root.
pub fn kepsite(args: &[&str]) -> Run {
    kepsite_in(Path::new(env!("CARGO_MANIFEST_DIR")), args)
}

/// Copy a directory tree (files and directories only).
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let t = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &t);
        } else {
            std::fs::copy(e.path(), &t).unwrap();
        }
    }
}

/// A temp copy of `content/`; the TempDir must be kept alive.
pub fn content_copy() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("repo");
    copy_tree(&content(), &root);
    (dir, root)
}

/// Run git in `dir`, panicking on failure.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@example.com",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("running git");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Turn a directory into a git repository with one commit of everything.
pub fn git_commit_all(dir: &Path) {
    git(dir, &["init", "-q"]);
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", "snapshot"]);
}

/// One clone of the corpus bundle per test binary.
pub fn corpus() -> &'static Path {
    static CLONE: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    &CLONE
        .get_or_init(|| {
            assert!(
                Path::new(BUNDLE).exists(),
                "corpus bundle missing at {BUNDLE}: the acceptance tests need ../shared/corpus"
            );
            let dir = tempfile::tempdir().expect("tempdir");
            let repo = dir.path().join("enhancements");
            let out = Command::new("git")
                .args(["clone", "-q", BUNDLE])
                .arg(&repo)
                .output()
                .expect("running git clone");
            assert!(
                out.status.success(),
                "git clone: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            (dir, repo)
        })
        .1
}
