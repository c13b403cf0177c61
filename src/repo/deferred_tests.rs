//! A revision's blobs a reader holds already (by path and blob id) are
//! not read again: the files a load reads and its deferred READMEs.

use std::collections::BTreeSet;
use std::sync::Mutex;

use super::{BlobId, blob_id, git_repository, load_with};

fn readmes(paths: &[&str]) -> BTreeSet<String> {
    paths
        .iter()
        .filter(|p| p.ends_with("README.md"))
        .map(|p| p.to_string())
        .collect()
}

/// A repository whose HEAD~1 has KEPs 1 and 2; HEAD changed 2's kep.yaml
/// and README.
fn repository() -> tempfile::TempDir {
    let then: &[(&str, &str)] = &[
        ("keps/sig-a/1-a/kep.yaml", "title: A\n"),
        ("keps/sig-a/1-a/README.md", "# A\n"),
        ("keps/sig-a/2-b/kep.yaml", "title: B, then\n"),
        ("keps/sig-a/2-b/README.md", "# B, then\n"),
    ];
    let now: &[(&str, &str)] = &[
        ("keps/sig-a/2-b/kep.yaml", "title: B, now\n"),
        ("keps/sig-a/2-b/README.md", "# B, now\n"),
    ];
    git_repository(&[then, now])
}

/// The reader's files: HEAD's.
fn today(path: &str) -> Option<&'static str> {
    Some(match path {
        "keps/sig-a/1-a/kep.yaml" => "title: A\n",
        "keps/sig-a/1-a/README.md" => "# A\n",
        "keps/sig-a/2-b/kep.yaml" => "title: B, now\n",
        "keps/sig-a/2-b/README.md" => "# B, now\n",
        _ => return None,
    })
}

/// The reader's holding: today's bytes where the blob is today's, each
/// path it gave written down in `taken`.
fn holding(taken: &Mutex<Vec<String>>) -> impl Fn(&str, &BlobId) -> Option<Vec<u8>> + Sync + '_ {
    move |path, id| {
        let text = today(path).filter(|t| blob_id(t.as_bytes()) == *id)?;
        taken.lock().unwrap().push(path.to_string());
        Some(text.as_bytes().to_vec())
    }
}

#[test]
fn a_file_held_already_is_not_read_again() {
    let dir = repository();
    let taken = Mutex::new(Vec::new());
    let held = holding(&taken);
    let rev = Some("HEAD~1");
    let knowing = load_with(dir.path(), rev, None, Some(&held)).unwrap();
    // 1's files are today's and taken; 2's changed since, and are read
    let mut took = taken.lock().unwrap().clone();
    took.sort();
    assert_eq!(
        took,
        ["keps/sig-a/1-a/README.md", "keps/sig-a/1-a/kep.yaml"]
    );
    let alone = load_with(dir.path(), rev, None, None).unwrap();
    assert_eq!(knowing.files, alone.files);
    assert_eq!(
        knowing.file("keps/sig-a/2-b/kep.yaml").unwrap().bytes,
        b"title: B, then\n"
    );
}

#[test]
fn a_deferred_blob_held_already_is_not_read() {
    let dir = repository();
    let mut snapshot = load_with(dir.path(), Some("HEAD~1"), Some(readmes), None).unwrap();
    let mut deferred = snapshot.deferred.take().unwrap();
    let taken = Mutex::new(Vec::new());
    let held = holding(&taken);
    let paths = ["keps/sig-a/1-a/README.md", "keps/sig-a/2-b/README.md"];
    let (files, problems) = deferred.take(&paths, Some(&held)).unwrap();
    assert!(problems.is_empty(), "{problems:?}");
    // 1's is today's and taken; 2's is read, the revision's
    assert_eq!(*taken.lock().unwrap(), ["keps/sig-a/1-a/README.md"]);
    let mut read: Vec<(&str, &[u8])> = files
        .iter()
        .map(|f| (f.path.as_str(), f.bytes.as_slice()))
        .collect();
    read.sort();
    assert_eq!(
        read,
        [
            ("keps/sig-a/1-a/README.md", &b"# A\n"[..]),
            ("keps/sig-a/2-b/README.md", &b"# B, then\n"[..])
        ]
    );
    // each is taken once
    let (files, _) = deferred.take(&paths, Some(&held)).unwrap();
    assert!(files.is_empty());
    assert_eq!(taken.lock().unwrap().len(), 1);
    // git's own id for the bytes
    assert_eq!(
        format!("{:?}", blob_id(b"# A\n")),
        format!("BlobId({})", "7f3b95d297183eca8f6cf38ceaa253bee8c2d7cd")
    );
}

/// A text's id is git's own for the same bytes, whatever their length
/// (the header counts bytes, not characters) and content.
#[test]
fn blob_ids_are_gits_own() {
    let long: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
    let texts: [&[u8]; 5] = [
        b"",
        b"x",
        "caf\u{e9} \u{2014} na\u{ef}ve\n".as_bytes(),
        &[0xff, 0, 0xfe],
        &long,
    ];
    for t in texts {
        let git = git2::Oid::hash_object(git2::ObjectType::Blob, t).unwrap();
        assert_eq!(blob_id(t), BlobId(git), "{} bytes", t.len());
    }
}
