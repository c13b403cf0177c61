//! The project's shared folder: the real corpus and the seed KEPs.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// `$KEPSITE_SHARED`, else `../shared` beside this checkout.
pub fn shared_dir() -> PathBuf {
    match std::env::var_os("KEPSITE_SHARED") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared"),
    }
}

/// A file of the shared folder, or a panic that names it and says what it is for.
pub fn shared_file(rel: &str) -> PathBuf {
    let path = shared_dir().join(rel);
    assert!(
        path.exists(),
        "{} is missing: the `corpus` tests need the project's shared folder \
         (../shared beside this checkout, or set KEPSITE_SHARED)",
        path.display()
    );
    path
}

/// The text of a seed KEP (`seeds/NAME`).
pub fn seed(name: &str) -> String {
    let path = shared_file(&format!("seeds/{name}"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

/// A clone of the shared folder's `corpus/<bundle>` into a temp dir named
/// `name` (the directory is kept alive with it).
fn clone_bundle(bundle: &str, name: &str) -> (tempfile::TempDir, PathBuf) {
    let bundle = shared_file(&format!("corpus/{bundle}"));
    let dir = tempfile::tempdir().expect("tempdir");
    let repo = dir.path().join(name);
    let out = Command::new("git")
        .args(["clone", "-q"])
        .arg(&bundle)
        .arg(&repo)
        .output()
        .expect("running git clone");
    assert!(
        out.status.success(),
        "git clone {}: {}",
        bundle.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    (dir, repo)
}

/// One clone of the corpus bundle per test binary.
pub fn corpus() -> &'static Path {
    static CLONE: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    &CLONE
        .get_or_init(|| clone_bundle("enhancements.bundle", "enhancements"))
        .1
}

/// One clone of the kubernetes-features bundle (Kubernetes' feature-gate
/// files, a sparse kubernetes/kubernetes history) per test binary.
pub fn kubernetes() -> &'static Path {
    static CLONE: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    &CLONE
        .get_or_init(|| clone_bundle("kubernetes-features.bundle", "kubernetes"))
        .1
}

/// The last first-parent commit of the corpus before `before` (a full
/// timestamp with its zone, so git reads no clock), by git itself.
pub fn commit_before(before: &str) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(corpus())
        .args(["rev-list", "-1", "--first-parent"])
        .arg(format!("--before={before}"))
        .arg("HEAD")
        .output()
        .expect("git rev-list");
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// The corpus site, built afresh by `kepsite build` (with `extra` flags)
/// into `$CARGO_TARGET_TMPDIR/<name>/public`: that directory.
pub fn built_corpus_site(name: &str, extra: &[&str]) -> PathBuf {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(name)
        .join("public");
    if out.exists() {
        std::fs::remove_dir_all(&out).unwrap();
    }
    let mut args = vec!["build", "--repo", corpus().to_str().unwrap()];
    args.extend_from_slice(extra);
    args.extend(["--out", out.to_str().unwrap()]);
    let run = crate::support::kepsite(&args);
    assert_eq!(run.code, 0, "kepsite build of the corpus: {}", run.stderr);
    out
}
