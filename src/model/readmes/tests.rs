//! A revision read as a freeze deadline's is read (knowing today's model,
//! inflating the README blobs of the KEPs it picks): the picked KEPs are
//! what reading every blob gives, the others' READMEs are left unread,
//! an unchanged README is today's (parsed once for both), and the load
//! parses none. This model is a step inside `Project::load`, out of reach
//! of the integration tests: on the real corpus it was
//! `tests/corpus/scoped.rs`, on a small repository of the same shapes here.

use std::sync::Arc;

use crate::kep::{Kep, KepFormat, is_placeholder_title};
use crate::model::load_for;
use crate::repo::git_repository;

/// A directory KEP's kep.yaml.
fn yaml(number: u32, title: &str) -> String {
    format!("title: {title}\nkep-number: {number}\nowning-sig: sig-a\nstatus: provisional\n")
}

#[test]
fn a_revision_reads_the_readme_blobs_of_the_keps_it_picks() {
    let (y100, y101, y102) = (yaml(100, "Same"), yaml(101, "Odd"), yaml(102, "Changed"));
    let (y104, y105) = (yaml(104, "Nested"), yaml(105, "KEP Template"));
    let y106 = yaml(106, "Your short, descriptive title");
    let single = "---\ntitle: Single\nkep-number: 107\nowning-sig: sig-a\nstatus: provisional\n---\n# Single\n";
    // the revision: directory KEPs (even and odd, nested, README.MD, titles
    // that are placeholders), and a single file
    let then: &[(&str, &str)] = &[
        ("keps/sig-a/100-same/kep.yaml", &y100),
        ("keps/sig-a/100-same/README.md", "# Same\n\n## Summary\n"),
        ("keps/sig-a/101-odd/kep.yaml", &y101),
        ("keps/sig-a/101-odd/README.md", "# Odd\n"),
        ("keps/sig-a/102-changed/kep.yaml", &y102),
        ("keps/sig-a/102-changed/README.md", "# Changed\n\nThen.\n"),
        ("keps/sig-a/group/104-nested/kep.yaml", &y104),
        ("keps/sig-a/group/104-nested/README.MD", "# Nested\n"),
        ("keps/sig-a/105-odd-placeholder/kep.yaml", &y105),
        (
            "keps/sig-a/105-odd-placeholder/README.md",
            "# KEP-105: Real\n",
        ),
        ("keps/sig-a/106-placeholder/kep.yaml", &y106),
        ("keps/sig-a/106-placeholder/README.md", "# KEP-106: Real\n"),
        ("keps/sig-a/20190101-single.md", single),
    ];
    // today: one README changed, one KEP more
    let y108 = yaml(108, "New");
    let now: &[(&str, &str)] = &[
        ("keps/sig-a/102-changed/README.md", "# Changed\n\nNow.\n"),
        ("keps/sig-a/108-new/kep.yaml", &y108),
        ("keps/sig-a/108-new/README.md", "# New\n"),
    ];
    let dir = git_repository(&[then, now]);
    let root = dir.path();
    let rev = Some("HEAD~1");
    let at_once = load_for(root, rev, None, None, None).unwrap();
    // knowing today's files, as a freeze deadline's revision is read
    let today = load_for(root, None, None, None, None).unwrap();
    let even = |k: &Kep| k.number().is_some_and(|n| n % 2 == 0);
    let later = load_for(root, rev, None, Some(&today), Some(&even)).unwrap();
    assert_eq!(later.keps.len(), at_once.keps.len());
    assert_eq!(later.keps.len(), 7);
    let (mut read, mut shared) = (0, 0);
    for (k, whole) in later.keps.iter().zip(&at_once.keps) {
        assert_eq!(k.meta, whole.meta, "{}", k.path);
        // a single file is read whole: its README is its metadata's file
        let deferred = k.format == KepFormat::Directory && k.readme_path.is_some();
        assert_eq!(k.readme.is_read(), even(k) || !deferred, "{}", k.path);
        if k.readme.is_read() {
            assert_eq!(k, whole);
            read += usize::from(deferred);
        } else {
            assert_eq!(k.readme_text(), "", "{}", k.path);
        }
        // a README unchanged since is today's, parsed once for both
        let mine = today.keps.iter().find(|t| t.readme_path == k.readme_path);
        shared += usize::from(mine.is_some_and(|t| Arc::ptr_eq(&t.readme, &k.readme)));
    }
    // 100, 102, 104 and 106 read; 101 and 105 not
    assert_eq!(read, 4);
    // 100, 104, 106 and the single file: 102's README changed since
    assert_eq!(shared, 4);
    // the load parsed none but those whose title it takes from the README
    for k in &later.keps {
        let placeholder = is_placeholder_title(&k.meta.title);
        assert!(!k.readme.is_parsed() || placeholder, "{}", k.path);
    }
}
