//! Loading content/: discovery, formats, and working tree == git revision.

use kepsite::kep::KepFormat;
use kepsite::model::Model;
use kepsite::project::Input;

use crate::support::*;

/// The model of `input`, as [`load_files`] loads it.
fn model(input: Input) -> Model {
    load_files(&input).model
}

#[test]
fn content_loads_every_kind_of_kep() {
    let m = model(Input::at(content()));
    assert!(m.keps.len() >= 16, "{} KEPs", m.keps.len());
    let sigs: std::collections::BTreeSet<&str> = m.keps.iter().map(|k| k.sig()).collect();
    assert!(sigs.len() >= 4, "{sigs:?}");
    assert_eq!(m.templates, vec!["keps/NNNN-kep-template".to_string()]);
    let by_path = |p: &str| {
        m.keps
            .iter()
            .find(|k| k.path == p)
            .unwrap_or_else(|| panic!("{p} missing"))
    };
    let nested = by_path("keps/sig-network/gateway/4590-gateway-route-health-status");
    assert_eq!(nested.number(), Some(4590));
    let upper = by_path("keps/sig-storage/2980-volume-snapshot-retention");
    assert!(upper.readme_path.as_deref().unwrap().ends_with("README.MD"));
    assert!(upper.readme_text().contains("## Summary"));
    let legacy = by_path("keps/sig-apps/20190415-cronjob-missed-run-report.md");
    assert_eq!(legacy.format, KepFormat::SingleFile);
    assert_eq!(legacy.number(), Some(1011));
    assert_eq!(legacy.meta.status.as_str(), "implemented");
    assert!(!legacy.readme_text().starts_with("---"));
    let broken = by_path("keps/sig-storage/3655-csi-volume-health-events");
    assert!(!broken.meta_ok);
    assert_eq!(
        broken.number(),
        Some(3655),
        "falls back to the directory number"
    );
    // Every status and stage is represented.
    for s in kepsite::kep::domain::Status::ALL {
        assert!(m.keps.iter().any(|k| k.meta.status == s), "status {s}");
    }
    for s in kepsite::kep::domain::Stage::ALL {
        assert!(m.keps.iter().any(|k| k.meta.stage == s), "stage {s}");
    }
    assert!(m.aliases.is_prr_approver("@wren-h"));
    assert!(m.prr_files.len() >= 10);
    assert!(
        m.assets()
            .iter()
            .any(|a| a.ends_with("1480-pod-restart-budget/diagram.svg"))
    );
}

#[test]
fn embedded_sample_equals_content_on_disk() {
    let disk = model(Input::at(content()));
    let embedded = model(Input::at(kepsite::repo::EMBEDDED_ROOT));
    assert!(disk == embedded, "the embedded sample is stale: rebuild");
}

#[test]
fn working_tree_and_git_revision_give_the_same_model() {
    let (_tmp, root) = content_copy();
    git_commit_all(&root);
    let tree = model(Input::at(&root));
    let rev = model(Input::at(&root).rev("HEAD"));
    assert!(rev.source.commit.is_some());
    assert_eq!(tree.keps.len(), rev.keps.len());
    for (a, b) in tree.keps.iter().zip(&rev.keps) {
        assert_eq!(a, b, "{} differs", a.path);
    }
    assert!(tree == rev);
}

#[test]
fn a_subdirectory_of_a_repository_can_be_read_at_a_revision() {
    let tmp = tempfile::tempdir().unwrap();
    copy_tree(&content(), &tmp.path().join("content"));
    git_commit_all(tmp.path());
    let sub = tmp.path().join("content");
    let rev = model(Input::at(&sub).rev("HEAD"));
    let tree = model(Input::at(&sub));
    assert!(rev == tree);
}

#[test]
fn an_older_revision_is_read_without_checkout() {
    let (_tmp, root) = content_copy();
    git_commit_all(&root);
    let before = model(Input::at(&root)).keps.len();
    std::fs::remove_dir_all(root.join("keps/sig-node/1480-pod-restart-budget")).unwrap();
    git(&root, &["commit", "-qam", "drop 1480"]);
    assert_eq!(model(Input::at(&root).rev("HEAD")).keps.len(), before - 1);
    let old = model(Input::at(&root).rev("HEAD~1"));
    assert_eq!(old.keps.len(), before);
    assert!(old.kep(1480).is_some());
}

/// A repository of single-file KEPs in every form 2018–2019 authors used.
fn single_file_repo() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let files = [
        (
            "keps/sig-a/0007-after-heading.md",
            "# KEP: After a heading\n\n---\nkep-number: 7\ntitle: After a heading\nowning-sig: sig-a\nstatus: provisional\n---\n\n# After a heading\n\n## Summary\n\nText.\n",
        ),
        (
            "keps/sig-a/0008-yaml-block.md",
            "# Yaml block\n\n## Metadata\n\n```yaml\n---\nkep-number: 8\ntitle: Yaml block\nowning-sig: sig-a\nstatus: provisional\n```\n\n## Summary\n\nText.\n",
        ),
        (
            "keps/sig-a/20190101-never-closed.md",
            "---\ntitle: Never closed\nowning-sig: sig-a\n\n# Never closed\n\n## Summary\n",
        ),
        (
            "keps/sig-a/0009-no-metadata.md",
            "# Notes for KEP 8\n\nSome text.\n",
        ),
        (
            "keps/sig-a/0000-kep-template.md",
            "---\ntitle: KEP Template\n---\n# Title\n",
        ),
        ("keps/sig-a/FAQ.md", "# Questions\n\nAnswers.\n"),
        (
            "keps/sig-a/20190102-standard.md",
            "---\nkep-number: 10\ntitle: Standard\nowning-sig: sig-a\nstatus: provisional\n---\n# Standard\n",
        ),
    ];
    for (path, text) in files {
        let p = tmp.path().join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    tmp
}

#[test]
fn every_single_file_that_looks_like_a_kep_loads_or_is_a_finding() {
    let tmp = single_file_repo();
    let project = load_files(&Input::at(tmp.path()));
    let (m, f) = (&project.model, &project.findings);
    let kep = |p: &str| {
        m.keps
            .iter()
            .find(|k| k.path == p)
            .unwrap_or_else(|| panic!("{p} is not loaded"))
    };
    let at = |rule: &str, p: &str| -> Vec<Option<usize>> {
        f.iter()
            .filter(|x| x.rule == rule && x.path == p)
            .map(|x| x.line)
            .collect()
    };

    let after = kep("keps/sig-a/0007-after-heading.md");
    assert!(after.meta_ok);
    assert_eq!(after.meta.title, "After a heading");
    assert_eq!(after.line("status"), Some(7));
    assert!(after.readme_text().contains("## Summary"));
    assert_eq!(after.readme_offset, 8);
    assert_eq!(
        at(
            "kep-metadata-nonstandard",
            "keps/sig-a/0007-after-heading.md"
        ),
        vec![Some(3)]
    );

    let block = kep("keps/sig-a/0008-yaml-block.md");
    assert!(block.meta_ok);
    assert_eq!(
        (block.number(), block.meta.status.as_str()),
        (Some(8), "provisional")
    );
    assert_eq!(block.line("title"), Some(8));
    assert_eq!(block.readme_offset, 0);
    assert_eq!(
        at("kep-metadata-nonstandard", "keps/sig-a/0008-yaml-block.md"),
        vec![Some(5)]
    );

    let open = kep("keps/sig-a/20190101-never-closed.md");
    assert!(!open.meta_ok);
    assert_eq!(
        at(
            "front-matter-unterminated",
            "keps/sig-a/20190101-never-closed.md"
        ),
        vec![Some(1)]
    );
    assert!(f.iter().any(|x| x.rule == "front-matter-unterminated"
        && x.severity == kepsite::finding::Severity::Error));

    assert_eq!(
        at(
            "kep-file-without-metadata",
            "keps/sig-a/0009-no-metadata.md"
        ),
        vec![Some(1)]
    );
    assert_eq!(
        m.templates,
        vec!["keps/sig-a/0000-kep-template.md".to_string()]
    );
    // Documentation is neither a KEP nor a finding; the standard form has no warning.
    assert!(!f.iter().any(|x| x.path == "keps/sig-a/FAQ.md"));
    assert!(m.keps.iter().all(|k| k.path != "keps/sig-a/FAQ.md"));
    assert!(
        at(
            "kep-metadata-nonstandard",
            "keps/sig-a/20190102-standard.md"
        )
        .is_empty()
    );
    assert_eq!(m.keps.len(), 4);
}

/// A wrong `--repo` is an error a person can act on, for every subcommand,
/// never "0 KEPs checked" with exit 0 (issue 38).
#[test]
fn input_that_is_not_a_checkout_is_an_error() {
    let tmp = tempfile::tempdir().unwrap();
    let empty = tmp.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    // A git repository with no keps/ (like kepsite's own checkout).
    let other = tmp.path().join("other");
    let repo = git2::Repository::init(&other).unwrap();
    crate::git_fixture::commit(
        &repo,
        crate::git_fixture::T0,
        "init",
        &[("README.md", Some("# x\n"))],
    );
    // A copy of content/ and its keps/ directory.
    let checkout = tmp.path().join("checkout");
    copy_tree(&content(), &checkout);
    let keps = checkout.join("keps");
    let out = tmp.path().join("site");
    let path = |p: &std::path::Path| p.to_str().unwrap().to_string();
    let cases: Vec<(String, Vec<String>, String)> = vec![
        (
            path(&empty),
            vec![],
            format!("no keps/ directory in {}", path(&empty)),
        ),
        (
            path(&other),
            vec![],
            format!("no keps/ directory in {}", path(&other)),
        ),
        (
            path(&other),
            vec!["--rev".into(), "HEAD".into()],
            "no KEP in revision HEAD".into(),
        ),
        (
            path(&keps),
            vec![],
            "is inside an enhancements checkout; point --repo at its root".into(),
        ),
        (
            path(&keps.join("sig-node")),
            vec![],
            "is inside an enhancements checkout; point --repo at its root".into(),
        ),
    ];
    for (repo, extra, says) in &cases {
        for sub in [
            vec!["check"],
            vec!["query"],
            vec!["export"],
            vec!["report", "--release", "v1.36"],
            vec!["build", "--out", out.to_str().unwrap()],
        ] {
            let mut args: Vec<&str> = sub.clone();
            args.extend(["--repo", repo.as_str()]);
            args.extend(extra.iter().map(String::as_str));
            let r = kepsite(&args);
            assert_eq!(r.code, 2, "{args:?}: {}{}", r.stdout, r.stderr);
            assert!(r.stderr.contains(says.as_str()), "{args:?}: {}", r.stderr);
            assert_eq!(
                r.stderr.lines().count(),
                1,
                "{args:?}: one line: {}",
                r.stderr
            );
        }
    }
    assert!(!out.exists(), "nothing written for a wrong --repo");
    // The root of the checkout itself still works.
    let ok = kepsite(&["check", "--repo", checkout.to_str().unwrap()]);
    assert_ne!(ok.code, 2, "{}", ok.stderr);
}

/// `query --release` refuses a release no KEP names, as `report` does.
#[test]
fn query_refuses_an_unknown_release() {
    let r = kepsite(&[
        "query",
        "--repo",
        content().to_str().unwrap(),
        "--release",
        "v9.99",
    ]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("unknown release v9.99"), "{}", r.stderr);
    assert!(
        r.stderr.contains("releases in the repository: v1."),
        "{}",
        r.stderr
    );
    // A patch version is refused the same way as by report.
    for sub in ["query", "report"] {
        let repo = content();
        let r = kepsite(&[
            sub,
            "--repo",
            repo.to_str().unwrap(),
            "--release",
            "v1.36.2",
        ]);
        assert_eq!(r.code, 2, "{sub}");
        assert!(
            r.stderr.contains("invalid release \"v1.36.2\""),
            "{sub}: {}",
            r.stderr
        );
    }
    // ... and by --current, through the same parser (issue 36).
    let repo = content();
    let r = kepsite(&[
        "check",
        "--repo",
        repo.to_str().unwrap(),
        "--current",
        "v1.36.2",
    ]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains("invalid release \"v1.36.2\": expected vMAJOR.MINOR"),
        "{}",
        r.stderr
    );
}

/// Errors name what the user gave and say what to do: an unwritable --out
/// names it (not the staging directory), a bad --rev carries no libgit2
/// codes and is said once (issue 38).
#[test]
fn errors_name_what_the_user_gave() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("a-file");
    std::fs::write(&file, "x").unwrap();
    let out = file.join("site");
    let r = kepsite(&[
        "build",
        "--repo",
        content().to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains(&out.display().to_string()),
        "{}",
        r.stderr
    );
    assert!(!r.stderr.contains("kepsite-tmp"), "{}", r.stderr);
    let (_repo, root) = content_copy();
    git(&root, &["init", "-q"]);
    git(&root, &["add", "-A"]);
    git(&root, &["commit", "-qm", "x"]);
    let r = kepsite(&[
        "build",
        "--repo",
        root.to_str().unwrap(),
        "--rev",
        "no-such-rev",
        "--out",
        tmp.path().join("s").to_str().unwrap(),
    ]);
    assert_eq!(r.code, 2);
    assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
    assert!(
        r.stderr.contains("unknown revision \"no-such-rev\""),
        "{}",
        r.stderr
    );
    assert!(!r.stderr.contains("class="), "{}", r.stderr);
}
