//! scripts/synth-corpus.py (the benchmark's scaled corpus) on content/: every
//! numbered KEP directory is replicated under fresh numbers, with its PRR file,
//! and the copies load without adding new kinds of findings.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::support::*;

/// (KEP count, findings per rule) from `kepsite check --format json`.
fn check(repo: &Path) -> (u64, BTreeMap<String, usize>) {
    let run = kepsite(&[
        "check",
        "--format",
        "json",
        "--repo",
        repo.to_str().unwrap(),
    ]);
    assert!(
        run.code == 0 || run.code == 1,
        "check crashed: {}",
        run.stderr
    );
    let v: Value =
        serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}", run.stdout));
    let mut rules = BTreeMap::new();
    for f in v["findings"].as_array().unwrap() {
        *rules
            .entry(f["rule"].as_str().unwrap().to_owned())
            .or_default() += 1;
    }
    (v["summary"]["keps"].as_u64().unwrap(), rules)
}

fn synth(src: &Path, out: &Path, copies: u32) -> std::process::Output {
    Command::new("python3")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/synth-corpus.py"))
        .arg(src)
        .arg(out)
        .args(["--copies", &copies.to_string(), "--no-git"])
        .output()
        .expect("running python3 scripts/synth-corpus.py")
}

#[test]
fn three_copies_of_content_load_with_the_same_kinds_of_findings() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("x3");
    let run = synth(&content(), &out, 3);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );

    let (keps, rules) = check(&content());
    let (keps3, rules3) = check(&out);
    // 26 numbered KEP directories in content/ (SAMPLE.md); the template, the
    // single-file KEP and the README-only directory are copied once.
    assert_eq!(keps3, keps + 2 * 26, "{rules3:?}");
    for (rule, n) in &rules3 {
        let before = rules.get(rule).copied().unwrap_or(0);
        assert!(
            *n <= 3 * before,
            "{rule}: {n} findings in the copy, {before} in content/ (numbers collide?)"
        );
    }

    // One copy, byte for byte where it matters.
    let copy = out.join("keps/sig-node/21480-pod-restart-budget");
    let yaml = std::fs::read_to_string(copy.join("kep.yaml")).unwrap();
    assert!(yaml.contains("kep-number: 21480"), "{yaml}");
    assert!(yaml.contains(" (copy 2)"), "{yaml}");
    assert_eq!(
        std::fs::read(copy.join("README.md")).unwrap(),
        std::fs::read(content().join("keps/sig-node/1480-pod-restart-budget/README.md")).unwrap()
    );
    let prr = std::fs::read_to_string(out.join("keps/prod-readiness/sig-node/21480.yaml")).unwrap();
    assert!(prr.contains("kep-number: 21480"), "{prr}");
    assert!(out.join("OWNERS_ALIASES").is_file());
}

#[test]
fn refuses_to_overwrite_a_directory_it_did_not_write() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("mine");
    std::fs::create_dir(&out).unwrap();
    std::fs::write(out.join("keep.txt"), "x").unwrap();
    let mut cmd = Command::new("python3");
    cmd.arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/synth-corpus.py"))
        .arg(content())
        .arg(&out)
        .arg("--force");
    let run = cmd.output().unwrap();
    assert_eq!(run.status.code(), Some(2));
    assert!(out.join("keep.txt").is_file());
    let again = synth(&content(), &tmp.path().join("ok"), 2);
    assert!(again.status.success());
}
