//! Issue 37: what `check` passes, `build` builds. Values that become paths
//! of the site (SIG names, handles) go through one rule (`kep::segment`):
//! a finding in `check`, no page (and no error) in `build`.

use std::path::Path;

use kepsite::finding::Severity;
use kepsite::project::Input;
use kepsite::site::{self, SiteOptions};
use proptest::prelude::*;
use proptest::test_runner::Config;

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// A KEP numbered `n` in `keps/sig-node/`, owned by `sig`, approved by
/// `approvers` (YAML-quoted).
fn kep(root: &Path, n: u32, sig: &str, approvers: &[String]) {
    let q = |s: &str| format!("{:?}", s);
    let list: Vec<String> = approvers.iter().map(|a| format!("  - {}", q(a))).collect();
    let yaml = format!(
        "title: KEP {n}\nkep-number: {n}\nauthors:\n  - \"@author\"\nowning-sig: {}\n\
         status: provisional\ncreation-date: 2024-01-01\nreviewers:\n  - \"@reviewer\"\n\
         approvers:\n{}\n",
        q(sig),
        if list.is_empty() {
            "  - \"@approver\"".to_string()
        } else {
            list.join("\n")
        }
    );
    write(root, &format!("keps/sig-node/{n}-k/kep.yaml"), &yaml);
    write(
        root,
        &format!("keps/sig-node/{n}-k/README.md"),
        &format!("# KEP-{n}: K\n\n## Summary\n\nText.\n"),
    );
}

/// `check`'s findings and whether `build` succeeded, with the output's files.
fn check_and_build(
    root: &Path,
) -> (
    Vec<kepsite::finding::Finding>,
    anyhow::Result<()>,
    Vec<String>,
) {
    let (f, built, files) = check_and_build_files(root);
    (f, built, files.into_keys().collect())
}

type Files = std::collections::BTreeMap<String, Vec<u8>>;

/// [`check_and_build`] with the files' contents.
fn check_and_build_files(
    root: &Path,
) -> (Vec<kepsite::finding::Finding>, anyhow::Result<()>, Files) {
    let data = crate::support::load_files(&Input::at(root));
    let findings = data.findings.clone();
    let out = tempfile::tempdir().unwrap();
    let opts = SiteOptions {
        out: out.path().join("public"),
        ..Default::default()
    };
    let built = site::build(data, &opts).map(|_| ());
    let files = crate::support::files(&out.path().join("public"));
    (findings, built, files)
}

#[test]
fn hostile_sig_and_handle_values_are_findings_and_the_site_builds() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    kep(root, 101, "..", &[]);
    kep(root, 102, ".", &[]);
    kep(root, 103, &"s".repeat(300), &[]);
    kep(
        root,
        104,
        "sig-node",
        &[format!("@{}", "h".repeat(256)), "@../../etc".into()],
    );
    kep(root, 105, "sig-node", &["@good-handle".into()]);
    let (f, built, files) = check_and_build(root);
    let rule = |r: &str, n: u32| f.iter().filter(|x| x.rule == r && x.kep == Some(n)).count();
    assert_eq!(rule("sig-invalid", 101), 1, "{f:?}");
    assert_eq!(rule("sig-invalid", 102), 1);
    assert_eq!(rule("sig-invalid", 103), 1);
    assert_eq!(rule("handle-invalid", 104), 2);
    let line = f
        .iter()
        .find(|x| x.rule == "sig-invalid")
        .and_then(|x| x.line);
    assert_eq!(line, Some(5), "owning-sig's line");
    assert!(
        f.iter()
            .filter(|x| x.rule == "sig-invalid")
            .all(|x| x.severity == Severity::Error)
    );
    assert!(
        f.iter().all(|x| x.message.chars().count() < 200),
        "messages are bounded"
    );
    built.expect("build never fails on input");
    // Every KEP has its page; no page for the bad values; /sigs/ is the
    // SIG index, not a page for ".".
    for n in 101..=105 {
        assert!(files.contains(&format!("keps/{n}/index.html")), "{n}");
    }
    assert!(files.contains(&"people/good-handle/index.html".to_string()));
    assert!(
        files
            .iter()
            .all(|p| !p.contains("hhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhh")
                && !p.contains("sssssssssssssssssss"))
    );
    assert!(
        files
            .iter()
            .all(|p| !p.split('/').any(|s| s == ".." || s == "."))
    );
}

/// A SIG name or handle from a hostile alphabet.
fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("..".to_string()),
        Just(".".to_string()),
        Just("sig-node".to_string()),
        "[a-z-]{1,80}",
        "[./a-zA-Z0-9 _%-]{0,20}",
        "[a-z]{200,300}",
        any::<String>().prop_map(|s| s.chars().filter(|c| !c.is_control()).take(40).collect()),
    ]
}

proptest! {
    #![proptest_config(Config { cases: 24, failure_persistence: None, ..Config::default() })]

    /// Over generated repositories: `check` with no error means `build`
    /// succeeds (and it always does), and every KEP `check` lists has a page.
    #[test]
    fn what_check_passes_build_builds(
        sigs in proptest::collection::vec(value(), 1..4),
        handles in proptest::collection::vec(value(), 0..4),
    ) {
        let tmp = tempfile::tempdir().unwrap();
        for (i, s) in sigs.iter().enumerate() {
            let hs: Vec<String> = handles.iter().map(|h| format!("@{h}")).collect();
            kep(tmp.path(), 200 + i as u32, s, &hs);
        }
        let (f, built, files) = check_and_build(tmp.path());
        let errors = f.iter().any(|x| x.severity == Severity::Error);
        prop_assert!(built.is_ok() || errors, "check passed, build failed: {:?}", built.err());
        prop_assert!(built.is_ok(), "build failed: {:?}", built.err());
        let listed: std::collections::BTreeSet<u32> = f.iter().filter_map(|x| x.kep).collect();
        for n in listed {
            prop_assert!(files.contains(&format!("keps/{n}/index.html")), "no page for KEP {n}");
        }
        for i in 0..sigs.len() {
            let page = format!("keps/{}/index.html", 200 + i);
            prop_assert!(files.contains(&page), "no page {}", page);
        }
    }
}

/// A repository of `keps` KEPs each naming the same `n` PRR approvers.
fn approvers_repo(root: &Path, keps: u32, n: usize) {
    let list: Vec<String> = (0..n).map(|i| format!("@approver-{i}")).collect();
    for k in 0..keps {
        kep(root, 300 + k, "sig-node", &list);
        // prr-approvers: the same list (what issue 37 measured).
        let p = root.join(format!("keps/sig-node/{}-k/kep.yaml", 300 + k));
        let mut y = std::fs::read_to_string(&p).unwrap();
        y.push_str("prr-approvers:\n");
        for a in &list {
            y.push_str(&format!("  - \"{a}\"\n"));
        }
        std::fs::write(p, y).unwrap();
    }
}

/// Issue 37: 106 KEPs each naming the same 1,000 PRR approvers made a
/// 431 MB site. Each role's first handles (30; PRR approvers 3) get pages;
/// the rest are text,
/// and `check` says so. Output stays within a small multiple of the same
/// KEPs with one approver each.
#[test]
fn a_thousand_shared_approvers_do_not_multiply_the_site() {
    let size = |n: usize| {
        let tmp = tempfile::tempdir().unwrap();
        approvers_repo(tmp.path(), 30, n);
        let (f, built, files) = check_and_build(tmp.path());
        built.expect("builds");
        (f, files, crate::support::files(tmp.path()).len())
    };
    let (_, one, _) = size(1);
    let (f, many, _) = size(1_000);
    let count = |files: &[String], dir: &str| files.iter().filter(|p| p.starts_with(dir)).count();
    assert!(
        count(&many, "prr/") <= 3 + 2,
        "{} PRR pages",
        count(&many, "prr/")
    );
    assert!(
        count(&many, "people/") <= 30 + 3 + 5,
        "{} people pages",
        count(&many, "people/")
    );
    assert!(
        many.len() < one.len() + 80,
        "{} files against {}",
        many.len(),
        one.len()
    );
    let too_many: Vec<_> = f.iter().filter(|x| x.rule == "handles-too-many").collect();
    assert_eq!(
        too_many.len(),
        2 * 30,
        "approvers and prr-approvers of each KEP"
    );
    assert!(
        too_many[0].message.contains("1000 handles"),
        "{}",
        too_many[0].message
    );
}

/// `--max-output` stops a build with a message, writing nothing to `--out`.
#[test]
fn max_output_stops_the_build_with_a_message() {
    let tmp = tempfile::tempdir().unwrap();
    approvers_repo(tmp.path(), 10, 30);
    let out = tmp.path().join("site");
    let r = crate::support::kepsite(&[
        "build",
        "--repo",
        tmp.path().to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--max-output",
        "1",
    ]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("--max-output (1 MB)"), "{}", r.stderr);
    assert!(!out.exists());
    let leftovers: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains("kepsite-tmp"))
        .collect();
    assert!(leftovers.is_empty(), "staging left behind");
}

/// Issue 37: a KEP with a duplicate number in an alphabetically earlier SIG
/// took over `/keps/<n>/`. Now the page is the one whose directory carries
/// the number, then the oldest creation-date; each page links the other.
#[test]
fn a_duplicate_number_does_not_take_over_the_page() {
    let (_tmp, root) = crate::support::content_copy();
    write(
        &root,
        "keps/sig-api-machinery/1480-copycat/kep.yaml",
        "title: Copycat\nkep-number: 1480\nauthors:\n  - \"@x\"\nowning-sig: sig-api-machinery\n\
         status: provisional\ncreation-date: 2030-01-01\nreviewers:\n  - \"@y\"\napprovers:\n  - \"@z\"\n",
    );
    write(
        &root,
        "keps/sig-api-machinery/1480-copycat/README.md",
        "# KEP-1480: Copycat\n\n## Summary\n\nA copy.\n",
    );
    let (f, built, files) = check_and_build_files(&root);
    built.expect("builds");
    assert!(f.iter().any(|x| x.rule == "duplicate-kep-number"));
    let page = |p: &str| String::from_utf8_lossy(&files[p]).to_string();
    let original = page("keps/1480/index.html");
    assert!(
        original.contains("<title>KEP-1480: Pod restart budget"),
        "the older KEP keeps the page"
    );
    assert!(original.contains("Copycat"), "and names the other");
    let copy = page("keps/sig-api-machinery/1480-copycat/index.html");
    assert!(copy.contains("Same number"), "{copy}");
    assert!(
        copy.contains("href=\"/keps/1480/\""),
        "links the page with the number"
    );
}

/// Issue 37's case: a kep.yaml with 49,000 unknown keys (664 KB) took 27 s
/// of CPU in `check`; the first keys are findings at their lines, and one
/// more counts the rest (issue 49: at most 50 of a rule per file; the work
/// per key is counted in `diagnostics::hostile`; the time is in
/// `benches/hostile.rs`).
#[test]
fn forty_nine_thousand_unknown_keys_are_listed_then_counted() {
    let tmp = tempfile::tempdir().unwrap();
    kep(tmp.path(), 400, "sig-node", &[]);
    let p = tmp.path().join("keps/sig-node/400-k/kep.yaml");
    let mut y = std::fs::read_to_string(&p).unwrap();
    let before = y.lines().count();
    for i in 0..49_000 {
        y.push_str(&format!("unknown_key_{i}: v\n"));
    }
    std::fs::write(&p, y).unwrap();
    let r = crate::support::check_repo(tmp.path(), &["--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("JSON");
    let unknown: Vec<&serde_json::Value> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "unknown-field")
        .collect();
    let max = kepsite::finding::MAX_PER_RULE_AND_FILE;
    assert_eq!(unknown.len(), max + 1);
    assert_eq!(unknown[max - 1]["line"], before + max);
    assert_eq!(unknown[max]["line"], before + max + 1);
    let rest = format!("{} more `unknown-field` findings", 49_000 - max);
    assert!(unknown[max]["message"].as_str().unwrap().starts_with(&rest));
}
