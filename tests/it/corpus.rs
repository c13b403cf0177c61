//! Acceptance on the real kubernetes/enhancements history (../shared/corpus).

use std::collections::BTreeMap;

use kepsite::analysis::findings::{check, prr_required};
use kepsite::model::{self, Model};

use crate::support::*;

fn head() -> &'static Model {
    static M: std::sync::OnceLock<Model> = std::sync::OnceLock::new();
    M.get_or_init(|| model::load(corpus(), None, None).unwrap())
}

#[test]
fn head_holds_every_kep() {
    let m = head();
    assert_eq!(m.keps.len(), 654);
    assert_eq!(
        m.templates,
        vec![
            "keps/NNNN-kep-template".to_string(),
            "keps/sig-cloud-provider/providers/0000-cloud-provider-template".to_string()
        ]
    );
    let nested = m
        .keps
        .iter()
        .filter(|k| k.path.matches('/').count() == 3)
        .count()
        + m.templates
            .iter()
            .filter(|t| t.matches('/').count() == 3)
            .count();
    assert_eq!(nested, 37);
    let paginated = m
        .keps
        .iter()
        .find(|k| k.path == "keps/sig-api-machinery/365-paginated-lists")
        .unwrap();
    assert!(
        paginated
            .readme_path
            .as_deref()
            .unwrap()
            .ends_with("README.MD")
    );
    assert!(!paginated.readme.is_empty());
    assert!(
        m.keps.iter().all(|k| k.meta_ok),
        "every kep.yaml at HEAD parses"
    );
}

#[test]
fn prr_is_required_for_414_and_all_are_approved() {
    let m = head();
    assert_eq!(m.keps.iter().filter(|k| prr_required(k)).count(), 414);
    let f = check(m);
    let prr_errors: Vec<_> = f
        .iter()
        .filter(|x| {
            matches!(
                x.rule,
                "prr-file-missing" | "prr-stage-missing" | "prr-approver-invalid"
            )
        })
        .collect();
    assert!(prr_errors.is_empty(), "{prr_errors:#?}");
}

#[test]
fn known_defects_are_reported() {
    let f = check(head());
    let mut count: BTreeMap<&str, usize> = BTreeMap::new();
    for x in &f {
        *count.entry(x.rule).or_default() += 1;
    }
    assert_eq!(count.get("status-enum"), Some(&5), "{count:?}");
    assert_eq!(count.get("stage-enum"), Some(&2), "{count:?}");
    assert_eq!(count.get("implemented-not-stable"), Some(&6), "{count:?}");
    for date in ["2025-30-01", "2023-14-05"] {
        assert!(
            f.iter()
                .any(|x| x.rule == "date-invalid" && x.message.contains(date)),
            "{date} not reported"
        );
    }
}

#[test]
fn working_tree_equals_head_revision() {
    let rev = model::load(corpus(), Some("HEAD"), None).unwrap();
    assert!(*head() == rev);
}

/// Two fixed early-2019 commits, named by hash so that no clock, time zone
/// or time of day picks them: the first-parent commit of master before
/// 2019-03-01 (its template is `keps/YYYYMMDD-kep-template.md`), and the
/// side-branch commit cb86670 whose only top-level template is
/// `keps/0000-kep-template.md` (which asking git for "the last commit
/// before 2019-03-01" picked after 23:13 UTC, as git completes a date with
/// the current time of day).
const EARLY_2019: [&str; 2] = ["64503f05730f738716b61d16507df4427d5155df", "cb86670"];

#[test]
fn early_2019_revision_loads_single_file_keps() {
    for c in EARLY_2019 {
        early_revision_loads_single_file_keps(c);
    }
}

fn early_revision_loads_single_file_keps(c: &str) {
    let m = model::load(corpus(), Some(c), None).unwrap();
    assert!(m.keps.len() > 50, "{}", m.keps.len());
    assert!(
        m.keps
            .iter()
            .all(|k| k.format == kepsite::kep::KepFormat::SingleFile)
    );
    let parsed = m
        .keps
        .iter()
        .filter(|k| k.meta_ok && !k.meta.title.is_empty())
        .count();
    assert!(parsed > 50, "{parsed} parsed");
    assert!(
        m.templates.iter().any(|t| t.contains("kep-template")),
        "{c}: {:?}",
        m.templates
    );
    assert!(
        m.keps.iter().all(|k| !k.path.ends_with("-template.md")),
        "{c}: a template loaded as a KEP"
    );
}

#[test]
fn sigs_yaml_validates_owning_sigs() {
    let sigs = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/sigs.yaml");
    assert!(sigs.exists(), "sigs.yaml missing at {}", sigs.display());
    let m = model::load(corpus(), None, Some(&sigs)).unwrap();
    let list = m.sigs.as_ref().unwrap();
    assert!(list.get("sig-node").is_some_and(|g| !g.chairs.is_empty()));
    let f = check(&m);
    let unknown_owning = f.iter().filter(|x| x.rule == "owning-sig-unknown").count();
    assert!(unknown_owning < 5, "{unknown_owning} owning SIGs unknown");
}

/// The one-pass grouping of findings by KEP picks, for every KEP of the real
/// corpus (nested directories, PRR files, duplicated numbers), exactly what
/// the per-KEP filter picks, in the same order; and number lookups agree with
/// a scan.
#[test]
fn findings_grouped_by_kep_match_the_per_kep_filter() {
    let m = head();
    let found = check(m);
    let grouped = kepsite::view::findings_by_kep(m, &found);
    assert_eq!(grouped.len(), m.keps.len());
    let mut nonempty = 0;
    for (kep, group) in m.keps.iter().zip(&grouped) {
        let expected = kepsite::view::findings_of(kep, &found);
        assert_eq!(group, &expected, "findings of {}", kep.path);
        nonempty += usize::from(!group.is_empty());
    }
    assert!(nonempty > 100, "only {nonempty} KEPs have findings");
    for kep in &m.keps {
        let n = kep.number().unwrap();
        let first = m.keps.iter().find(|k| k.number() == Some(n)).unwrap();
        assert_eq!(m.kep(n).map(|k| &k.path), Some(&first.path));
    }
    assert!(m.kep(99_999).is_none());
}
