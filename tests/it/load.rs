//! Loading content/: discovery, formats, and working tree == git revision.

use kepsite::kep::KepFormat;
use kepsite::model;

use crate::support::*;

#[test]
fn content_loads_every_kind_of_kep() {
    let m = model::load(&content(), None, None).unwrap();
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
    assert!(upper.readme.contains("## Summary"));
    let legacy = by_path("keps/sig-apps/20190415-cronjob-missed-run-report.md");
    assert_eq!(legacy.format, KepFormat::SingleFile);
    assert_eq!(legacy.number(), Some(1011));
    assert_eq!(legacy.meta.status.as_str(), "implemented");
    assert!(!legacy.readme.starts_with("---"));
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
        m.assets
            .iter()
            .any(|a| a.ends_with("1480-pod-restart-budget/diagram.svg"))
    );
}

#[test]
fn embedded_sample_equals_content_on_disk() {
    let disk = model::load(&content(), None, None).unwrap();
    let embedded = model::from_snapshot(kepsite::repo::load_embedded(), None);
    assert!(disk == embedded, "the embedded sample is stale: rebuild");
}

#[test]
fn working_tree_and_git_revision_give_the_same_model() {
    let (_tmp, root) = content_copy();
    git_commit_all(&root);
    let tree = model::load(&root, None, None).unwrap();
    let rev = model::load(&root, Some("HEAD"), None).unwrap();
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
    let rev = model::load(&sub, Some("HEAD"), None).unwrap();
    let tree = model::load(&sub, None, None).unwrap();
    assert!(rev == tree);
}

#[test]
fn an_older_revision_is_read_without_checkout() {
    let (_tmp, root) = content_copy();
    git_commit_all(&root);
    let before = model::load(&root, None, None).unwrap().keps.len();
    std::fs::remove_dir_all(root.join("keps/sig-node/1480-pod-restart-budget")).unwrap();
    git(&root, &["commit", "-qam", "drop 1480"]);
    assert_eq!(
        model::load(&root, Some("HEAD"), None).unwrap().keps.len(),
        before - 1
    );
    let old = model::load(&root, Some("HEAD~1"), None).unwrap();
    assert_eq!(old.keps.len(), before);
    assert!(old.kep(1480).is_some());
}
