//! `kepsite::repo::gates` on the kubernetes-features bundle (`corpus/
//! kubernetes-features.bundle` of the shared folder, cloned once per run):
//! known gates' specs at a release tag and on master, gate counts against
//! a count of the constants taken with `git grep`, and the speed of
//! reading the whole master history.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use kepsite::repo::gates::{Kubernetes, PreRelease, Snapshot, Spec, landed};

/// The shared clone of the bundle.
fn checkout() -> &'static Path {
    crate::shared::kubernetes()
}

fn git(args: &[&str]) -> String {
    crate::support::git(checkout(), args)
}

fn spec(minor: u32, default: bool, pre_release: PreRelease, locked: bool) -> Spec {
    Spec {
        minor,
        default,
        pre_release,
        locked,
    }
}

fn open() -> Kubernetes {
    Kubernetes::open(checkout(), None).expect("opening the clone")
}

fn at_tag(k: &Kubernetes, minor: u32) -> std::sync::Arc<Snapshot> {
    let tag = k.release_tag(minor).expect("a release tag");
    k.snapshot_at(&tag.commit.id).expect("reading the tag")
}

#[test]
fn release_tags_are_the_highest_patch() {
    let k = open();
    let names: Vec<String> = (31..=35).map(|m| k.release_tag(m).unwrap().name).collect();
    assert_eq!(
        names,
        ["v1.31.2", "v1.32.3", "v1.33.3", "v1.34.1", "v1.35.4"]
    );
    assert_eq!(k.release_tag(35).unwrap().patch, Some(4));
    assert_eq!(
        k.release_tag(35).unwrap().commit.id,
        git(&["rev-parse", "v1.35.4^{commit}"]).trim()
    );
    assert!(
        k.release_tag(36).is_none(),
        "no v1.36 tag nor release-1.36 branch"
    );
}

#[test]
fn image_volume_at_v1_35_4() {
    let k = open();
    let s = at_tag(&k, 35);
    let g = &s.gates["ImageVolume"];
    assert_eq!(
        (g.kep, g.kep_text.as_deref()),
        (Some(4639), Some("https://kep.k8s.io/4639"))
    );
    assert_eq!(g.file, "pkg/features/kube_features.go");
    assert!(g.versioned);
    assert_eq!(
        g.specs,
        [
            spec(31, false, PreRelease::Alpha, false),
            spec(33, false, PreRelease::Beta, false),
            spec(35, true, PreRelease::Beta, false),
        ]
    );
    assert_eq!(g.stage_at(30), None);
    assert_eq!(
        g.stage_at(34).map(|s| (s.pre_release, s.default)),
        Some((PreRelease::Beta, false))
    );
    assert_eq!(
        g.stage_at(35).map(|s| (s.pre_release, s.default)),
        Some((PreRelease::Beta, true))
    );
    let for_kep: Vec<&str> = s.for_kep(4639).map(|g| g.name.as_str()).collect();
    assert!(for_kep.contains(&"ImageVolume"), "{for_kep:?}");
    assert!(
        !s.gates.contains_key("PDBUnhealthyPodEvictionPolicy"),
        "removed in 1.33"
    );
}

#[test]
fn unversioned_and_versioned_pdb_policy() {
    let k = open();
    // v1.31.2: the unversioned FeatureSpec map.
    let s = at_tag(&k, 31);
    let g = &s.gates["PDBUnhealthyPodEvictionPolicy"];
    assert!(!g.versioned);
    assert_eq!(g.specs, [spec(0, true, PreRelease::Ga, true)]);
    assert_eq!(g.stage_at(31), g.stage_at(1));
    // The comment names KEP 3018; the KEP is 3017-pod-healthy-policy-for-pdb.
    assert_eq!(
        (g.kep, g.kep_text.as_deref()),
        (Some(3018), Some("http://kep.k8s.io/3018"))
    );
    assert_eq!(s.for_kep(3017).count(), 0);
    assert_eq!(
        s.gates["ImageVolume"].specs,
        [spec(0, false, PreRelease::Alpha, false)]
    );
    // v1.32.3: the constant in kube_features.go, its specs in versioned_kube_features.go.
    let s = at_tag(&k, 32);
    let g = &s.gates["PDBUnhealthyPodEvictionPolicy"];
    assert_eq!(g.file, "pkg/features/kube_features.go");
    assert!(g.versioned);
    assert_eq!(
        g.specs,
        [
            spec(26, false, PreRelease::Alpha, false),
            spec(27, true, PreRelease::Beta, false),
            spec(31, true, PreRelease::Ga, true),
        ]
    );
    assert_eq!(g.stage_at(32).map(|s| s.pre_release), Some(PreRelease::Ga));
}

#[test]
fn master_head_and_staging_gates() {
    let k = open();
    let s = k.head().unwrap();
    let g = &s.gates["ImageVolume"];
    assert_eq!(g.stage_at(36), Some(&spec(36, true, PreRelease::Ga, true)));
    // A staging gate listed again in pkg/features: one gate, in its own file.
    let c = &s.gates["APIResponseCompression"];
    assert_eq!(
        c.file,
        "staging/src/k8s.io/apiserver/pkg/features/kube_features.go"
    );
    assert!(!s.gates.keys().any(|n| n.contains('.')));
    // A gate whose constant differs from its name.
    assert!(s.gates.contains_key("CustomCPUCFSQuotaPeriod"));
    assert!(!s.gates.contains_key("CPUCFSQuotaPeriod"));
    // client-go's own types.
    let w = &s.gates["WatchListClient"];
    assert_eq!(
        w.file,
        "staging/src/k8s.io/client-go/features/known_features.go"
    );
    assert_eq!(
        w.stage_at(35),
        Some(&spec(35, true, PreRelease::Beta, false))
    );
    // The same from the working directory and from the tree.
    let disk = kepsite::repo::gates::Snapshot::from_dir(checkout()).unwrap();
    assert_eq!(disk.gates, s.gates);
    let repo = git2::Repository::open(checkout()).unwrap();
    let tree = repo.head().unwrap().peel_to_tree().unwrap();
    assert_eq!(Snapshot::from_tree(&repo, &tree).unwrap().gates, s.gates);
    assert_eq!(disk.files().count(), 8);
}

/// The quoted value of each line `git grep` finds for `pattern` at `rev`.
fn grep_names(rev: &str, pattern: &str) -> BTreeSet<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(checkout())
        .args(["grep", "-h", "-E", pattern, rev, "--", "*.go"])
        .output()
        .expect("running git grep");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .filter_map(|l| l.split('"').nth(1).map(str::to_string))
        .collect()
}

#[test]
fn gate_names_match_a_git_grep_of_the_constants() {
    let k = open();
    for rev in [
        "v1.31.2", "v1.32.3", "v1.33.3", "v1.34.1", "v1.35.4", "master",
    ] {
        let s = k.snapshot_at(rev).unwrap();
        let ours: BTreeSet<String> = s.gates.keys().cloned().collect();
        // Typed constants: `X featuregate.Feature = "X"`, client-go's
        // `X Feature = "X"`, and `X = featuregate.Feature("X")`.
        let typed = grep_names(rev, r#"^\s+\w+\s+(featuregate\.)?Feature = "|Feature\(""#);
        // Untyped string constants: gates only when a spec map names them.
        let untyped = grep_names(rev, r#"^\s+\w+ = "\w+"$"#);
        assert!(
            ours.is_superset(&typed),
            "{rev}: missing {:?}",
            typed.difference(&ours)
        );
        let extra: Vec<_> = ours.difference(&typed).collect();
        assert!(
            extra.iter().all(|n| untyped.contains(*n)),
            "{rev}: extra {extra:?}"
        );
        assert!(extra.len() <= 5, "{rev}: {extra:?}");
        let plausible = if rev == "master" {
            240..=270
        } else {
            160..=230
        };
        assert!(
            plausible.contains(&s.gates.len()),
            "{rev}: {} gates",
            s.gates.len()
        );
    }
}

#[test]
fn the_whole_master_history() {
    let k = open();
    let commits = k.master_commits();
    assert_eq!(commits.len(), 116);
    assert_eq!(commits[0].date, "2024-08-17");
    assert_eq!(commits[115].date, "2026-07-29");
    assert_eq!(commits[115].id, git(&["rev-parse", "master"]).trim());
    // Not monotonic: five snapshots ("2024-10-14b", …) are committed in
    // UTC hours before the -0400/-0500 snapshot they follow. last_before
    // answers as git's --before does: the newest on the line at or before.
    let back: Vec<usize> = (1..commits.len())
        .filter(|&i| commits[i].time < commits[i - 1].time)
        .collect();
    assert_eq!(back.len(), 5, "{back:?}");
    for i in back {
        assert_eq!(k.last_before(commits[i].time).as_ref(), Some(&commits[i]));
        // The one before it, committed later, is passed over for it.
        assert_eq!(
            k.last_before(commits[i - 1].time).as_ref(),
            Some(&commits[i])
        );
    }
    // The -0400 snapshot of 2024-09-28 is dated in its own offset.
    assert!(commits.iter().any(|c| c.date == "2024-09-28"));
    let start = Instant::now();
    let mut counts = Vec::new();
    for c in &commits {
        let s = k.snapshot_at(&c.id).unwrap();
        counts.push(s.gates.len());
        for p in &s.problems {
            let known = [
                "LoggingStableOptions",
                "TestOnlyClientAllowsCBOR",
                "TestOnlyClientPrefersCBOR",
            ];
            assert!(
                known
                    .iter()
                    .any(|g| p.message == format!("gate {g} has no spec in any spec map")),
                "{} {}:{}: {}",
                c.date,
                p.file,
                p.line,
                p.message
            );
        }
    }
    let took = start.elapsed();
    // A figure for people; tests never assert on wall time.
    eprintln!("read {} master snapshots in {took:.2?}", commits.len());
    assert_eq!(counts[0], 165);
    assert_eq!(counts[115], 253);
    // Incremental parses (each file from its previous version) give what
    // full parses give.
    let repo = git2::Repository::open(checkout()).unwrap();
    for c in commits.iter().step_by(7).chain(commits.last()) {
        let tree = repo
            .find_commit(git2::Oid::from_str(&c.id).unwrap())
            .unwrap()
            .tree()
            .unwrap();
        let full = Snapshot::from_tree(&repo, &tree).unwrap();
        let read = k.snapshot_at(&c.id).unwrap();
        assert_eq!(read.gates, full.gates, "{}", c.date);
        assert_eq!(read.problems, full.problems, "{}", c.date);
    }
    // Again: every snapshot comes from the cache, the same one each time.
    for c in &commits {
        let (a, b) = (k.snapshot_at(&c.id).unwrap(), k.snapshot_at(&c.id).unwrap());
        assert!(std::sync::Arc::ptr_eq(&a, &b), "{} read twice", c.date);
    }
}

#[test]
fn last_before_and_landed() {
    let k = open();
    let commits = k.master_commits();
    assert_eq!(k.last_before(commits[10].time), Some(commits[10].clone()));
    assert_eq!(
        k.last_before(commits[10].time + 1).map(|c| c.id),
        Some(commits[10].id.clone())
    );
    assert_eq!(k.last_before(commits[0].time - 1), None);
    let end = commits[115].time;
    // ImageVolume went GA (locked) for 1.36 on master.
    let c = landed(&k, "ImageVolume", 36, PreRelease::Ga, end).expect("landed");
    let i = commits.iter().position(|x| x.id == c.id).unwrap();
    assert!(i > 0);
    let spec_36 = |id: &str| {
        k.snapshot_at(id).unwrap().gates["ImageVolume"]
            .specs
            .iter()
            .any(|s| s.minor == 36)
    };
    assert!(spec_36(&commits[i].id) && !spec_36(&commits[i - 1].id));
    assert_eq!(
        landed(&k, "ImageVolume", 36, PreRelease::Ga, commits[i - 1].time),
        None
    );
    assert_eq!(
        landed(&k, "ImageVolume", 36, PreRelease::Ga, commits[i].time),
        Some(c.clone())
    );
    // Alpha in 1.31 from the first snapshot on.
    let first = landed(&k, "ImageVolume", 31, PreRelease::Alpha, end).unwrap();
    assert_eq!(first.id, commits[0].id);
    assert_eq!(landed(&k, "NoSuchGate", 36, PreRelease::Beta, end), None);
    eprintln!(
        "ImageVolume GA in 1.36 landed by {} ({})",
        c.date,
        &c.id[..12]
    );
}

#[test]
fn open_errors() {
    let file = checkout().join("pkg/features/kube_features.go");
    let err = Kubernetes::open(&file, None)
        .err()
        .expect("a file is no checkout");
    assert!(err.to_string().contains("not a directory"), "{err}");
    let empty = tempfile::tempdir().unwrap();
    let err = Kubernetes::open(empty.path(), None)
        .err()
        .expect("a plain directory");
    assert!(err.to_string().contains("is not a git repository"), "{err}");
    let err = Kubernetes::open(checkout(), Some("no-such-rev"))
        .err()
        .expect("bad rev");
    assert!(err.to_string().contains("no-such-rev"), "{err}");
    let err = Kubernetes::open(&checkout().join("pkg"), None)
        .err()
        .expect("a subdirectory");
    assert!(
        err.to_string().contains("point --kubernetes at the root"),
        "{err}"
    );
    let at = Kubernetes::open(checkout(), Some("v1.31.2")).unwrap();
    assert!(
        at.head()
            .unwrap()
            .files()
            .any(|f| f == "pkg/features/versioned_kube_features.go")
    );
    assert_eq!(
        at.master_commits().last().unwrap().id,
        git(&["rev-parse", "v1.31.2^{commit}"]).trim()
    );
}
