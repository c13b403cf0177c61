//! The smallest clone `--kubernetes` needs (issue 45), made from the
//! shared feature-gate bundle through a `file://` remote: a blob-less
//! clone alone is refused with exit 2 naming the checkout and the file it
//! looked for; with the gate files' blobs fetched (docs/install.md's one
//! command) the report is the full clone's, byte for byte.

use std::path::Path;
use std::process::Command;

use crate::shared::{corpus, kubernetes, shared_file};
use crate::support::kepsite;

fn sh(dir: &Path, script: &str) {
    let out = Command::new("sh")
        .arg("-c")
        .arg(script)
        .current_dir(dir)
        .output()
        .expect("running sh");
    assert!(
        out.status.success(),
        "{script}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn report(k8s: &Path) -> crate::support::Run {
    kepsite(&[
        "report",
        "--repo",
        corpus().to_str().unwrap(),
        "--kubernetes",
        k8s.to_str().unwrap(),
        "--release",
        "v1.33",
        "--format",
        "csv",
    ])
}

#[test]
fn a_blobless_clone_is_refused_and_the_one_command_clone_reads_alike() {
    let bundle = shared_file("corpus/kubernetes-features.bundle");
    let dir = tempfile::tempdir().unwrap();
    // A served copy of the bundle that allows partial clones, as GitHub does.
    sh(
        dir.path(),
        &format!(
            "git clone -q --bare '{}' src.git && git -C src.git config uploadpack.allowFilter true \
             && git -C src.git config uploadpack.allowAnySHA1InWant true",
            bundle.display()
        ),
    );
    let src = format!("file://{}/src.git", dir.path().display());
    sh(
        dir.path(),
        &format!("git clone -q --filter=blob:none --no-checkout '{src}' partial"),
    );
    let partial = dir.path().join("partial");
    let run = report(&partial);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr
            .contains(&format!("--kubernetes {}", partial.display()))
            && run.stderr.contains("kube_features.go (blob ")
            && run.stderr.contains("is not in the checkout"),
        "{}",
        run.stderr
    );
    // docs/install.md's command, with the served copy for GitHub.
    let doc =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/install.md"))
            .unwrap();
    let cmd = doc
        .lines()
        .find(|l| l.starts_with("git clone --filter=blob:none --no-checkout https://github.com/kubernetes/kubernetes k8s-gates"))
        .expect("the one command in docs/install.md");
    sh(
        dir.path(),
        &cmd.replace("https://github.com/kubernetes/kubernetes", &src),
    );
    let small = report(&dir.path().join("k8s-gates"));
    assert_eq!(small.code, 0, "{}", small.stderr);
    let full = report(kubernetes());
    assert_eq!(full.code, 0, "{}", full.stderr);
    assert_eq!(small.stdout, full.stdout);
}
