//! `--kubernetes` under attack (issue 49): a checkout is untrusted input
//! like every KEP. Trees too deep to walk, release numbers too large to
//! count to, a plain directory, a gate file cut short, and the inputs that
//! took quadratic time (their linear cost is shown by `cargo bench --bench
//! hostile`; here, that each still gives the right gates). Checkouts are
//! made here, committed at fixed times, never the clock.

use std::path::Path;

use kepsite::analysis::code::Code;
use kepsite::kep::domain::Release;
use kepsite::project::Input;

use crate::support::{content, kepsite, load_files};

#[path = "../../benches/hostile/gate_inputs.rs"]
mod gate_inputs;

/// 2026-03-02: after v1.35's release day, in v1.36's cycle.
const TIME: i64 = 1_772_409_600;

/// A gate file for two of `content/`'s KEPs: JobCompletionHooks (5204,
/// alpha in v1.36, the release in progress) and PodRestartBudget (1480,
/// stable in v1.34 by its kep.yaml, GA in 1.33 by the code).
pub const GATES: &str = r#"package features

import (
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/component-base/featuregate"
)

const (
	// kep: https://kep.k8s.io/5204
	JobCompletionHooks featuregate.Feature = "JobCompletionHooks"

	// kep: https://kep.k8s.io/1480
	PodRestartBudget featuregate.Feature = "PodRestartBudget"
)

var defaultVersionedKubernetesFeatureGates = map[featuregate.Feature]featuregate.VersionedSpecs{
	JobCompletionHooks: {
		{Version: version.MustParse("1.36"), Default: false, PreRelease: featuregate.Alpha},
	},
	PodRestartBudget: {
		{Version: version.MustParse("1.30"), Default: false, PreRelease: featuregate.Alpha},
		{Version: version.MustParse("1.32"), Default: true, PreRelease: featuregate.Beta},
		{Version: version.MustParse("1.33"), Default: true, PreRelease: featuregate.GA},
	},
}
"#;

const PKG: &str = "pkg/features/kube_features.go";

fn files(text: &str) -> Vec<(String, String)> {
    vec![(PKG.to_string(), text.to_string())]
}

/// A checkout of [`GATES`], tagged as v1.33 and v1.34 (so those releases
/// are read), in `dir`.
fn checkout(dir: &Path) {
    tagged_checkout(dir, GATES);
}

/// A checkout of `gates` (the gate file), tagged as v1.33 and v1.34.
pub fn tagged_checkout(dir: &Path, gates: &str) {
    gate_inputs::commit(dir, &files(gates), TIME, &["v1.33.0", "v1.34.0"]);
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// KEP `n`'s code note in `report --release v1.36 --format json`.
fn code_note(k8s: &Path, n: u64) -> (String, String) {
    let run = kepsite(&[
        "report",
        "--release",
        "v1.36",
        "--format",
        "json",
        "--kubernetes",
        s(k8s),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let row = crate::support::report_rows(&report)
        .into_iter()
        .find(|r| r["number"] == n)
        .unwrap_or_else(|| panic!("KEP-{n} in the report"));
    (
        row["code"]["says"].as_str().unwrap_or_default().to_string(),
        run.stderr,
    )
}

#[test]
fn the_checkout_is_read_when_whole() {
    let dir = tempfile::tempdir().unwrap();
    checkout(dir.path());
    let (says, stderr) = code_note(dir.path(), 5204);
    assert!(
        says.starts_with("code landed: gate JobCompletionHooks"),
        "{says}"
    );
    assert!(!stderr.contains("not read whole"), "{stderr}");
    let run = kepsite(&["check", "--format", "json", "--kubernetes", s(dir.path())]);
    assert!(
        run.stdout
            .contains("kep.yaml says stable in v1.34; gate PodRestartBudget reached GA in v1.33"),
        "{}",
        run.stdout
    );
}

#[test]
fn a_plain_directory_is_refused_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("pkg/features")).unwrap();
    std::fs::write(dir.path().join(PKG), GATES).unwrap();
    for cmd in ["check", "report", "build"] {
        let out = dir.path().join("site");
        let mut args = vec![cmd, "--kubernetes", s(dir.path())];
        match cmd {
            "report" => args.extend(["--release", "v1.36"]),
            "build" => args.extend(["--no-history", "--out", s(&out)]),
            _ => {}
        }
        let run = kepsite(&args);
        assert_eq!(run.code, 2, "{cmd}: {}", run.stderr);
        assert!(
            run.stderr.contains("is not a git repository"),
            "{}",
            run.stderr
        );
        assert!(
            run.stderr
                .contains("--kubernetes reads each release at its tag"),
            "{}",
            run.stderr
        );
    }
}

#[test]
fn a_cut_gate_file_says_cannot_tell_never_not_landed() {
    let dir = tempfile::tempdir().unwrap();
    checkout(dir.path());
    // The next commit cuts the file inside its spec map.
    let cut = &GATES[..GATES.find("PodRestartBudget: {").unwrap()];
    gate_inputs::commit(dir.path(), &files(cut), TIME + 60, &[]);
    let (says, stderr) = code_note(dir.path(), 5204);
    assert!(!says.contains("not landed"), "{says}");
    assert!(says.starts_with("code not read for v1.36 ("), "{says}");
    assert!(says.ends_with("): cannot tell"), "{says}");
    assert!(says.contains(PKG), "{says}");
    assert!(
        stderr.contains("--kubernetes: the code of v1.36 was not read whole"),
        "{stderr}"
    );
    // The page and check say the same, and check warns too.
    let run = kepsite(&["check", "--kubernetes", s(dir.path())]);
    assert!(run.stderr.contains("was not read whole"), "{}", run.stderr);
}

#[test]
fn a_gate_name_with_a_nul_byte_is_not_dropped_without_a_word() {
    let dir = tempfile::tempdir().unwrap();
    let text = GATES.replace("\"JobCompletionHooks\"", "\"JobCompletion\0Hooks\"");
    gate_inputs::commit(dir.path(), &files(&text), TIME, &[]);
    let (says, stderr) = code_note(dir.path(), 5204);
    // Go source may not hold a NUL (the compiler refuses it): the file
    // does not parse there, which is said on stderr.
    assert!(!says.contains("not landed"), "{says}");
    assert!(
        stderr.contains("the code of v1.36 was not read whole"),
        "{stderr}"
    );
    assert!(stderr.contains(PKG), "{stderr}");
}

/// A commit of [`GATES`] plus a chain of `depth` directories under
/// `staging/src/k8s.io/deep/`, with a gate file at its end.
fn deep_checkout(dir: &Path, depth: usize) {
    let repo = git2::Repository::init(dir).unwrap();
    let blob = |text: &str| repo.blob(text.as_bytes()).unwrap();
    let tree = |entries: &[(&str, git2::Oid, i32)]| {
        let mut b = repo.treebuilder(None).unwrap();
        for (name, id, mode) in entries {
            b.insert(name, *id, *mode).unwrap();
        }
        b.write().unwrap()
    };
    let mut chain = tree(&[("features.go", blob("package deep\n"), 0o100644)]);
    for _ in 0..depth {
        chain = tree(&[("d", chain, 0o040000)]);
    }
    let k8s_io = tree(&[("deep", chain, 0o040000)]);
    let src = tree(&[("k8s.io", k8s_io, 0o040000)]);
    let staging = tree(&[("src", src, 0o040000)]);
    let features = tree(&[("kube_features.go", blob(GATES), 0o100644)]);
    let pkg = tree(&[("features", features, 0o040000)]);
    let root = tree(&[("pkg", pkg, 0o040000), ("staging", staging, 0o040000)]);
    let root = repo.find_tree(root).unwrap();
    let sig = git2::Signature::new("t", "t@example.com", &git2::Time::new(TIME, 0)).unwrap();
    repo.commit(Some("HEAD"), &sig, &sig, "deep", &root, &[])
        .unwrap();
}

#[test]
fn trees_of_5000_and_20000_levels_are_read_to_a_bound_and_said() {
    for depth in [5_000, 20_000] {
        let dir = tempfile::tempdir().unwrap();
        deep_checkout(dir.path(), depth);
        for cmd in [&["check"][..], &["report", "--release", "v1.36"]] {
            let mut args = cmd.to_vec();
            args.extend(["--kubernetes", s(dir.path())]);
            let run = kepsite(&args);
            assert!(
                matches!(run.code, 0 | 1),
                "{depth}: {cmd:?} exited {}: {}",
                run.code,
                run.stderr
            );
            assert!(
                run.stderr
                    .contains("directories nest deeper than 32 levels"),
                "{depth}: {}",
                run.stderr
            );
        }
    }
}

#[test]
fn a_release_number_from_input_bounds_no_loop() {
    let dir = tempfile::tempdir().unwrap();
    checkout(dir.path());
    let model = load_files(&Input::at(content())).model;
    let huge = Release::new(1, u32::MAX);
    let code = Code::load(dir.path(), None, &model, huge, None).unwrap();
    // The releases read: the two tags, the calendar's and the tip; the
    // releases walked: those, 0 and the specs' versions (1.30, 1.32, 1.33,
    // 1.36), not four billion.
    // (1.36 to 1.38 are in the calendar, and their release days come
    // after the commit: read at it.)
    assert_eq!(
        code.shots.keys().copied().collect::<Vec<_>>(),
        [33, 34, 36, 37, 38, u32::MAX]
    );
    assert_eq!(code.minors, [0, 30, 32, 33, 34, 36, 37, 38, u32::MAX]);
    assert_eq!(code.gate_events("PodRestartBudget").len(), 4);
    // The same through the binary: --current and a kep.yaml's milestone.
    let run = kepsite(&[
        "check",
        "--current",
        "v1.4294967295",
        "--kubernetes",
        s(dir.path()),
    ]);
    assert!(matches!(run.code, 0 | 1), "{}", run.stderr);
    let (_tmp, repo) = crate::support::content_copy();
    let kep = repo.join("keps/sig-apps/5204-job-completion-hooks/kep.yaml");
    let yaml = std::fs::read_to_string(&kep).unwrap();
    std::fs::write(&kep, yaml.replace("\"v1.36\"", "\"v1.4294967295\"")).unwrap();
    for cmd in [&["check"][..], &["report", "--release", "v1.4294967295"]] {
        let mut args = cmd.to_vec();
        args.extend(["--repo", s(&repo), "--kubernetes", s(dir.path())]);
        let run = kepsite(&args);
        assert!(matches!(run.code, 0 | 1), "{cmd:?}: {}", run.stderr);
    }
}

/// The inputs that took quadratic time still give every gate (the time:
/// `cargo bench --bench hostile`, ×1, ×2, ×4).
#[test]
fn the_once_quadratic_inputs_read_right() {
    let snapshot = |files: Vec<(String, String)>| {
        let mut s = kepsite::repo::gates::Snapshot::default();
        for (path, text) in &files {
            kepsite::repo::gates::parse_file(path, text, &mut s);
        }
        s
    };
    let q = snapshot(gate_inputs::qualified_keys(300));
    assert_eq!(q.gates.len(), 300);
    assert!(
        q.gates.values().all(|g| g.specs.len() == 1),
        "{:?}",
        q.problems
    );
    assert!(q.problems.is_empty(), "{:?}", q.problems);
    let one = snapshot(gate_inputs::one_line(300));
    assert_eq!(one.gates.len(), 300);
    let many = snapshot(gate_inputs::kep_numbers(1_000));
    let g = &many.gates["G"];
    assert_eq!(g.keps, (1000..1016).collect::<Vec<u32>>());
    assert!(g.kep_text.as_deref().unwrap().ends_with('…'));
    assert!(
        many.problems
            .iter()
            .any(|p| p.message.contains("first 16 KEPs") && !p.unread),
        "{:?}",
        many.problems
    );
    let dir = tempfile::tempdir().unwrap();
    gate_inputs::commit(dir.path(), &gate_inputs::same_kep(25_000, 5204), TIME, &[]);
    let model = load_files(&Input::at(content())).model;
    let code = Code::load(dir.path(), None, &model, Release::new(1, 36), None).unwrap();
    assert_eq!(code.gates_of[&5204].len(), 25_000);
}

#[test]
fn a_gate_file_over_the_limit_is_not_parsed_and_said() {
    let big = format!(
        "{GATES}\n//{}\n",
        "x".repeat(kepsite::repo::gates::MAX_FILE_BYTES)
    );
    let dir = tempfile::tempdir().unwrap();
    gate_inputs::commit(dir.path(), &files(&big), TIME, &[]);
    let (says, stderr) = code_note(dir.path(), 5204);
    assert!(says.contains("cannot tell"), "{says}");
    assert!(
        stderr.contains("over the limit of 4194304 for a gate file"),
        "{stderr}"
    );
}
