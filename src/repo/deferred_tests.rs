//! A revision's blobs a reader holds already (by path and blob id) are
//! not read again: deferred READMEs and the files a load reads.

use std::collections::BTreeSet;

use super::{blob_id, git_repository, load_with};

fn readmes(paths: &[&str]) -> BTreeSet<String> {
    paths
        .iter()
        .filter(|p| p.ends_with("README.md"))
        .map(|p| p.to_string())
        .collect()
}

#[test]
fn a_deferred_blob_held_already_is_not_read() {
    let then: &[(&str, &str)] = &[
        ("keps/sig-a/1-a/kep.yaml", "title: A\n"),
        ("keps/sig-a/1-a/README.md", "# A\n"),
        ("keps/sig-a/2-b/kep.yaml", "title: B\n"),
        ("keps/sig-a/2-b/README.md", "# B, then\n"),
    ];
    let now: &[(&str, &str)] = &[("keps/sig-a/2-b/README.md", "# B, now\n")];
    let dir = git_repository(&[then, now]);
    let mut snapshot = load_with(dir.path(), Some("HEAD~1"), Some(readmes), None).unwrap();
    let mut deferred = snapshot.deferred.take().unwrap();
    // the reader holds today's texts: 1's is the revision's, 2's is not
    let today = |path: &str| match path {
        "keps/sig-a/1-a/README.md" => Some("# A\n"),
        "keps/sig-a/2-b/README.md" => Some("# B, now\n"),
        _ => None,
    };
    let holds =
        |path: &str, id: &super::BlobId| today(path).is_some_and(|t| blob_id(t.as_bytes()) == *id);
    let paths = ["keps/sig-a/1-a/README.md", "keps/sig-a/2-b/README.md"];
    let (files, problems, same) = deferred.take_unless(&paths, &holds).unwrap();
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(same, ["keps/sig-a/1-a/README.md"]);
    let read: Vec<(&str, &[u8])> = files
        .iter()
        .map(|f| (f.path.as_str(), f.bytes.as_slice()))
        .collect();
    assert_eq!(read, [("keps/sig-a/2-b/README.md", &b"# B, then\n"[..])]);
    // each is taken once, read or held
    let (files, _, same) = deferred.take_unless(&paths, &holds).unwrap();
    assert!(files.is_empty() && same.is_empty());
    // git's own id for the bytes
    assert_eq!(
        format!("{:?}", blob_id(b"# A\n")),
        format!("BlobId({})", "7f3b95d297183eca8f6cf38ceaa253bee8c2d7cd")
    );
}

#[test]
fn a_file_held_already_is_not_read_again() {
    let then: &[(&str, &str)] = &[
        ("keps/sig-a/1-a/kep.yaml", "title: A\n"),
        ("keps/sig-a/1-a/README.md", "# A\n"),
        ("keps/sig-a/2-b/kep.yaml", "title: B, then\n"),
        ("keps/sig-a/2-b/README.md", "# B\n"),
    ];
    let now: &[(&str, &str)] = &[("keps/sig-a/2-b/kep.yaml", "title: B, now\n")];
    let dir = git_repository(&[then, now]);
    let today = |path: &str| match path {
        "keps/sig-a/1-a/kep.yaml" => Some("title: A\n"),
        "keps/sig-a/2-b/kep.yaml" => Some("title: B, now\n"),
        _ => None,
    };
    let taken = std::sync::Mutex::new(Vec::new());
    let held = |path: &str, id: &super::BlobId| {
        let text = today(path).filter(|t| blob_id(t.as_bytes()) == *id)?;
        taken.lock().unwrap().push(path.to_string());
        Some(text.as_bytes().to_vec())
    };
    let rev = Some("HEAD~1");
    let knowing = load_with(dir.path(), rev, None, Some(&held)).unwrap();
    // 1's kep.yaml is today's and taken; 2's changed since, and is read
    assert_eq!(*taken.lock().unwrap(), ["keps/sig-a/1-a/kep.yaml"]);
    let alone = load_with(dir.path(), rev, None, None).unwrap();
    assert_eq!(knowing.files, alone.files);
    assert_eq!(
        knowing.file("keps/sig-a/2-b/kep.yaml").unwrap().bytes,
        b"title: B, then\n"
    );
}
