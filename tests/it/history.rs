//! History walk on tiny repositories built with git2 (the real corpus is in
//! the `corpus` target).

use git2::Repository;

use crate::git_fixture::{T0, commit, kep_yaml};
use crate::support::{content, copy_tree, git, kepsite};
use kepsite::repo::history::{HistoryOptions, walk};

// ---------------------------------------------------------------- tiny repo

const DAY: i64 = 86_400;

#[test]
fn tiny_repository_stage_history() {
    let dir = tempfile::tempdir().expect("tempdir");
    let repo = Repository::init(dir.path()).expect("init");
    let old = "keps/sig-node/1234-foo";
    let new = "keps/sig-apps/1234-foo-renamed";
    let y1 = kep_yaml("1234", "implementable", "alpha", "v1.20");
    let y2 = kep_yaml("1234", "implementable", "beta", "v1.20");
    let y3 = kep_yaml("1234", "implementable", "beta", "v1.21");
    let c1 = commit(
        &repo,
        T0,
        "Create KEP 1234\n\nbody",
        &[
            (&format!("{old}/kep.yaml"), Some(&y1)),
            (&format!("{old}/README.md"), Some("# Foo\n")),
            (
                "keps/NNNN-kep-template/kep.yaml",
                Some(&kep_yaml("NNNN", "provisional", "alpha", "v1.1")),
            ),
            (
                "keps/prod-readiness/sig-node/1234.yaml",
                Some("kep-number: 1234\n"),
            ),
            (
                "keps/sig-api-machinery/20190101-legacy.md",
                Some("---\nkep-number: 77\nstatus: implemented\n---\n# L\n"),
            ),
            (
                "keps/sig-api-machinery/20180101-nonumber.md",
                Some("---\nstatus: provisional\n---\n"),
            ),
        ],
    );
    let c2 = commit(
        &repo,
        T0 + DAY,
        "Beta",
        &[(&format!("{old}/kep.yaml"), Some(&y2))],
    );
    let c3 = commit(
        &repo,
        T0 + 2 * DAY,
        "Move to sig-apps",
        &[
            (&format!("{old}/kep.yaml"), None),
            (&format!("{old}/README.md"), None),
            (&format!("{new}/kep.yaml"), Some(&y2)),
            (&format!("{new}/README.md"), Some("# Foo\n")),
        ],
    );
    let c4 = commit(
        &repo,
        T0 + 3 * DAY,
        "Bump milestone",
        &[(&format!("{new}/kep.yaml"), Some(&y3))],
    );
    let c5 = commit(
        &repo,
        T0 + 4 * DAY,
        "Edit README",
        &[(&format!("{new}/README.md"), Some("# Foo\nmore\n"))],
    );
    let _c6 = commit(
        &repo,
        T0 + 5 * DAY,
        "Unrelated",
        &[
            ("OWNERS", Some("approvers: []\n")),
            (
                "keps/prod-readiness/sig-node/1234.yaml",
                Some("kep-number: 1234\nalpha:\n"),
            ),
        ],
    );

    let h = walk(dir.path(), "HEAD", &HistoryOptions::default()).expect("walk");
    assert_eq!(h.keps.keys().copied().collect::<Vec<_>>(), vec![77, 1234]);
    let k = &h.keps[&1234];
    assert_eq!(k.number, 1234);
    assert_eq!(
        k.paths,
        vec![format!("{old}/kep.yaml"), format!("{new}/kep.yaml")]
    );
    let got: Vec<_> = k
        .changes
        .iter()
        .map(|c| {
            (
                c.commit.as_str(),
                c.path.as_str(),
                c.date.as_str(),
                c.values(),
            )
        })
        .collect();
    let (oy, ny) = (format!("{old}/kep.yaml"), format!("{new}/kep.yaml"));
    let v = |s, st, m| (Some(s), Some(st), Some(m));
    assert_eq!(
        got,
        vec![
            (
                c1.as_str(),
                oy.as_str(),
                "2020-09-13",
                v("implementable", "alpha", "v1.20")
            ),
            (
                c2.as_str(),
                oy.as_str(),
                "2020-09-14",
                v("implementable", "beta", "v1.20")
            ),
            (
                c4.as_str(),
                ny.as_str(),
                "2020-09-16",
                v("implementable", "beta", "v1.21")
            ),
        ]
    );
    assert_eq!(k.changes[0].time, T0);
    assert_eq!(
        (k.first.id.as_str(), k.first.summary.as_str()),
        (c1.as_str(), "Create KEP 1234")
    );
    assert_eq!(
        (k.last.id.as_str(), k.last.summary.as_str(), k.last.time),
        (c5.as_str(), "Edit README", T0 + 4 * DAY)
    );
    assert_eq!(k.days_since_last_change(T0 + 14 * DAY + 5), 10);
    assert!(k.is_stale(T0 + 14 * DAY, 10) && !k.is_stale(T0 + 14 * DAY, 11));
    assert_ne!(c3, c4);

    let legacy = &h.keps[&77];
    assert_eq!(
        legacy.paths,
        vec!["keps/sig-api-machinery/20190101-legacy.md"]
    );
    assert_eq!(
        legacy.changes[0].values(),
        (Some("implemented"), None, None)
    );
    assert_eq!(legacy.last.id, c1);

    // Walking to an older revision sees only its past.
    let h2 = walk(dir.path(), &c2, &HistoryOptions::default()).expect("walk c2");
    assert_eq!(h2.head, c2);
    assert_eq!(h2.keps[&1234].changes.len(), 2);
    assert_eq!(h2.keps[&1234].last.id, c2);
}

#[test]
fn errors_are_reported_not_panics() {
    let dir = tempfile::tempdir().expect("tempdir");
    let err = walk(dir.path(), "HEAD", &HistoryOptions::default()).expect_err("not a repo");
    assert!(
        format!("{err:#}").contains("opening git repository"),
        "{err:#}"
    );
    let repo = Repository::init(dir.path()).expect("init");
    // An empty repository has no HEAD commit.
    assert!(walk(dir.path(), "HEAD", &HistoryOptions::default()).is_err());
    commit(&repo, T0, "init", &[("README.md", Some("x"))]);
    let err = walk(dir.path(), "no-such-branch", &HistoryOptions::default()).expect_err("bad rev");
    assert!(format!("{err:#}").contains("no-such-branch"), "{err:#}");
    // A repository without keps/ has no history, and that is not an error.
    let h = walk(dir.path(), "HEAD", &HistoryOptions::default()).expect("walk");
    assert!(h.keps.is_empty());
}

#[test]
fn a_path_that_becomes_a_directory_and_entries_that_move_are_followed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let repo = Repository::init(dir.path()).expect("init");
    let y = |n: &str, stage: &str| kep_yaml(n, "implementable", stage, "v1.30");
    let c1 = commit(
        &repo,
        T0,
        "Two entries",
        &[
            ("keps/sig-a/300-z", Some("a file where a KEP will be\n")),
            ("keps/sig-a/400-w/kep.yaml", Some(&y("400", "alpha"))),
        ],
    );
    // the file `300-z` becomes a directory, at the same place in the tree
    let c2 = commit(
        &repo,
        T0 + DAY,
        "File to directory",
        &[
            ("keps/sig-a/300-z", None),
            ("keps/sig-a/300-z/kep.yaml", Some(&y("300", "alpha"))),
        ],
    );
    // an entry sorted before the others moves every entry's place
    let c3 = commit(
        &repo,
        T0 + 2 * DAY,
        "New first entry, one gone, one changed",
        &[
            ("keps/sig-a/100-a/kep.yaml", Some(&y("100", "alpha"))),
            ("keps/sig-a/300-z/kep.yaml", Some(&y("300", "beta"))),
            ("keps/sig-a/400-w/kep.yaml", None),
        ],
    );
    let h = walk(dir.path(), "HEAD", &HistoryOptions::default()).expect("walk");
    assert_eq!(
        h.keps.keys().copied().collect::<Vec<_>>(),
        vec![100, 300, 400]
    );
    let stages = |n: u32| -> Vec<(String, Option<String>)> {
        h.keps[&n]
            .changes
            .iter()
            .map(|c| (c.commit.clone(), c.stage.clone()))
            .collect()
    };
    assert_eq!(stages(100), vec![(c3.clone(), Some("alpha".into()))]);
    assert_eq!(
        stages(300),
        vec![
            (c2.clone(), Some("alpha".into())),
            (c3.clone(), Some("beta".into()))
        ]
    );
    assert_eq!(stages(400), vec![(c1.clone(), Some("alpha".into()))]);
    assert_eq!(
        (
            h.keps[&300].first.id.as_str(),
            h.keps[&400].last.id.as_str()
        ),
        (c2.as_str(), c3.as_str())
    );
}

/// A shallow and a full clone of the same HEAD give their own answers, in
/// either order, with one cache directory between them: the cache is keyed
/// by what the walk saw (HEAD and the shallow boundary), not HEAD alone.
/// The shallow clone says its history is partial (issue 38).
#[test]
fn shallow_and_full_clones_keep_their_own_answers() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    copy_tree(&content(), &src);
    git(&src, &["init", "-q", "-b", "master"]);
    git(&src, &["add", "-A"]);
    git(&src, &["commit", "-qm", "base"]);
    let kep = src.join("keps/sig-node/5140-container-log-rotation-policy/kep.yaml");
    for stage in ["beta", "stable"] {
        let text = std::fs::read_to_string(&kep).unwrap();
        let text = text.replace("stage: alpha", &format!("stage: {stage}"));
        let text = text.replace("stage: beta", &format!("stage: {stage}"));
        std::fs::write(&kep, text).unwrap();
        git(&src, &["commit", "-qam", stage]);
    }
    let url = format!("file://{}", src.display());
    let full = tmp.path().join("full");
    let shallow = tmp.path().join("shallow");
    git(tmp.path(), &["clone", "-q", &url, full.to_str().unwrap()]);
    git(
        tmp.path(),
        &["clone", "-q", "--depth=1", &url, shallow.to_str().unwrap()],
    );
    let export = |repo: &std::path::Path, cache: &std::path::Path| {
        let r = kepsite(&[
            "export",
            "--repo",
            repo.to_str().unwrap(),
            "--history",
            "--cache-dir",
            cache.to_str().unwrap(),
        ]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        (r.stdout, r.stderr)
    };
    let fresh = |repo: &std::path::Path| export(repo, &tempfile::tempdir().unwrap().keep());
    let (want_full, quiet) = fresh(&full);
    let (want_shallow, notice) = fresh(&shallow);
    assert_ne!(
        want_full, want_shallow,
        "the shallow clone sees less history"
    );
    assert!(!quiet.contains("shallow"), "{quiet}");
    assert!(notice.contains("this clone is shallow"), "{notice}");
    assert!(notice.contains("git fetch --unshallow"), "{notice}");
    for order in [[&shallow, &full, &shallow], [&full, &shallow, &full]] {
        let cache = tempfile::tempdir().unwrap();
        for repo in order {
            let (got, _) = export(repo, cache.path());
            let want = if repo == &full {
                &want_full
            } else {
                &want_shallow
            };
            assert!(&got == want, "{} after a shared cache", repo.display());
        }
    }
}
