//! `kepsite check` on content/: every deliberate problem is found at its
//! file, human and JSON output, exit codes and filters.

use serde_json::Value;

use crate::support::*;

fn json_findings(args: &[&str]) -> (i32, Vec<Value>) {
    let mut all = vec!["check", "--format", "json"];
    all.extend_from_slice(args);
    let run = kepsite(&all);
    let v: Value =
        serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}", run.stdout));
    (run.code, v["findings"].as_array().unwrap().clone())
}

#[test]
fn every_deliberate_problem_in_content_is_reported() {
    let (code, findings) = json_findings(&["--repo", "content"]);
    assert_eq!(code, 1, "errors exit 1");
    let has = |rule: &str, path: &str| {
        findings
            .iter()
            .any(|f| f["rule"] == rule && f["path"].as_str().unwrap().contains(path))
    };
    let expected = [
        ("prr-approver-invalid", "prod-readiness/sig-auth/4102.yaml"),
        ("prr-stage-missing", "prod-readiness/sig-apps/4470.yaml"),
        (
            "prr-file-missing",
            "5140-container-log-rotation-policy/kep.yaml",
        ),
        ("yaml-parse", "3655-csi-volume-health-events/kep.yaml"),
        ("unknown-field", "5204-job-completion-hooks/kep.yaml"),
        ("dir-number-mismatch", "3100-job-retry-jitter/kep.yaml"),
        (
            "implemented-not-stable",
            "4012-daemonset-drain-aware-rollout/kep.yaml",
        ),
        ("date-invalid", "5588-gang-scheduling-wait-timeout/kep.yaml"),
        ("milestone-order", "5066-dual-stack-probe-family/kep.yaml"),
        (
            "latest-milestone-behind",
            "5301-topology-spread-zone-minimums/kep.yaml",
        ),
        (
            "template-placeholder",
            "5702-preemption-cost-hints/kep.yaml",
        ),
        ("readme-without-kep-yaml", "4999-orphan-readme/README.md"),
        (
            "kep-yaml-without-readme",
            "5410-pvc-resize-quota-hints/kep.yaml",
        ),
    ];
    for (rule, path) in expected {
        assert!(has(rule, path), "missing {rule} at {path}");
    }
    // Findings carry a line where one is known.
    let yaml = findings.iter().find(|f| f["rule"] == "yaml-parse").unwrap();
    assert!(yaml["line"].as_u64().unwrap() >= 12, "{yaml}");
    let unknown: Vec<&Value> = findings
        .iter()
        .filter(|f| f["rule"] == "unknown-field")
        .collect();
    assert_eq!(unknown.len(), 2, "tracking-issue and sponsor");
    assert!(
        unknown
            .iter()
            .all(|f| f["severity"] == "warning" && f["hint"].is_string())
    );
    // A good KEP has none.
    assert!(!findings.iter().any(|f| {
        f["path"]
            .as_str()
            .unwrap()
            .contains("1480-pod-restart-budget/kep.yaml")
    }));
}

#[test]
fn human_output_is_rustc_style() {
    let run = kepsite(&["check", "--repo", "content", "--color", "never"]);
    assert_eq!(run.code, 1);
    assert!(run.stdout.contains("error[yaml-parse]: "), "{}", run.stdout);
    assert!(
        run.stdout
            .contains("  --> keps/sig-storage/3655-csi-volume-health-events/kep.yaml:")
    );
    assert!(run.stdout.contains("= help: "));
    assert!(!run.stdout.contains("\x1b["), "no colour when asked not to");
    assert!(
        run.stdout.trim_end().ends_with("warnings"),
        "summary line last"
    );
    let colored = kepsite(&["check", "--repo", "content", "--color", "always"]);
    assert!(colored.stdout.contains("\x1b[1;31merror[yaml-parse]"));
}

#[test]
fn filters_and_exit_codes() {
    // Only warnings selected: exit 0, unless warnings are denied.
    let (code, f) = json_findings(&["--repo", "content", "--rule", "unknown-field"]);
    assert_eq!(code, 0);
    assert!(!f.is_empty() && f.iter().all(|f| f["rule"] == "unknown-field"));
    let (code, _) = json_findings(&[
        "--repo",
        "content",
        "--rule",
        "unknown-field",
        "--deny",
        "warnings",
    ]);
    assert_eq!(code, 1);
    let (_, f) = json_findings(&["--repo", "content", "--sig", "sig-storage"]);
    assert!(!f.is_empty());
    assert!(
        f.iter()
            .all(|f| f["path"].as_str().unwrap().contains("sig-storage")),
        "{f:?}"
    );
    let bad = kepsite(&["check", "--rule", "no-such-rule"]);
    assert_eq!(bad.code, 2);
    assert!(bad.stderr.contains("unknown rule"));
    let list = kepsite(&["check", "--list-rules"]);
    assert!(list.stdout.contains("prr-file-missing") && list.code == 0);
}

#[test]
fn a_clean_repository_passes() {
    let (_tmp, root) = content_copy();
    // Keep one well-formed KEP only.
    let keps = root.join("keps");
    for sig in std::fs::read_dir(&keps).unwrap() {
        let sig = sig.unwrap().path();
        if sig.ends_with("prod-readiness") || sig.ends_with("NNNN-kep-template") || !sig.is_dir() {
            continue;
        }
        for kep in std::fs::read_dir(&sig).unwrap() {
            let kep = kep.unwrap().path();
            if !kep.ends_with("1480-pod-restart-budget") {
                if kep.is_dir() {
                    std::fs::remove_dir_all(&kep).unwrap();
                } else {
                    std::fs::remove_file(&kep).unwrap();
                }
            }
        }
    }
    for prr in std::fs::read_dir(keps.join("prod-readiness")).unwrap() {
        let prr = prr.unwrap().path();
        if prr.is_dir() && !prr.ends_with("sig-node") {
            std::fs::remove_dir_all(&prr).unwrap();
        }
    }
    for f in std::fs::read_dir(keps.join("prod-readiness/sig-node")).unwrap() {
        let f = f.unwrap().path();
        if !f.ends_with("1480.yaml") {
            std::fs::remove_file(f).unwrap();
        }
    }
    let run = kepsite(&[
        "check",
        "--repo",
        root.to_str().unwrap(),
        "--deny",
        "warnings",
    ]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert!(
        run.stdout.contains("1 KEP checked: 0 errors, 0 warnings"),
        "{}",
        run.stdout
    );
}

#[test]
fn no_arguments_reads_the_sample() {
    let tmp = tempfile::tempdir().unwrap();
    // Outside the checkout: the embedded copy is used.
    let run = kepsite_in(tmp.path(), &["check", "--format", "json"]);
    assert_eq!(run.code, 1);
    let v: Value = serde_json::from_str(&run.stdout).unwrap();
    assert!(v["summary"]["keps"].as_u64().unwrap() >= 16);
}

/// `--current` names the release in progress for every subcommand that
/// reads a repository: `check` (its Markdown summary says each KEP's
/// readiness for that release), `query` and `export` answer differently with
/// it than with the calendar's release (v1.36 at the sample's date).
#[test]
fn current_changes_check_query_and_export() {
    for cmd in [
        &["check", "--format", "md"][..],
        &["query", "--format", "json"][..],
        &["export"][..],
    ] {
        let mut plain = cmd.to_vec();
        plain.extend(["--repo", "content"]);
        let mut current = plain.clone();
        current.extend(["--current", "v1.30"]);
        let (a, b) = (kepsite(&plain), kepsite(&current));
        assert!(a.code == 0 || a.code == 1, "{cmd:?}: {}", a.stderr);
        assert_eq!(a.code, b.code, "{cmd:?}");
        assert_ne!(
            a.stdout, b.stdout,
            "{cmd:?}: --current v1.30 changed nothing"
        );
    }
    let md = kepsite(&[
        "check",
        "--format",
        "md",
        "--repo",
        "content",
        "--current",
        "v1.30",
    ]);
    assert!(md.stdout.contains("- v1.30: "), "{}", md.stdout);
    assert!(!md.stdout.contains("- v1.36: "), "{}", md.stdout);
}
