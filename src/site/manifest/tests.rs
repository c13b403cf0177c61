//! The manifest: what it vouches for, its racy window, its pruning and its
//! file format.

use super::*;

#[test]
fn an_entry_vouches_only_for_the_file_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("page.html");
    std::fs::write(&file, "same length A").unwrap();
    let m = Manifest::load(dir.path().join("manifest.bin"), Path::new("."));
    assert_eq!(
        m.holds(&file.metadata().unwrap(), digest(b"same length A")),
        None
    );
    m.record(&file.metadata().unwrap(), digest(b"same length A"));
    m.save().unwrap();

    let m = Manifest::load(dir.path().join("manifest.bin"), Path::new("."));
    let meta = file.metadata().unwrap();
    assert_eq!(m.holds(&meta, digest(b"same length A")), Some(true));
    assert_eq!(m.holds(&meta, digest(b"same length B")), Some(false));
    assert_eq!(m.vouched(), 1);
    // a write of the same length moves the ctime: the entry no longer applies
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::write(&file, "same length B").unwrap();
    assert_eq!(
        m.holds(&file.metadata().unwrap(), digest(b"same length A")),
        None
    );
}

#[test]
fn an_entry_younger_than_the_window_vouches_for_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("manifest.bin");
    let file = dir.path().join("page.html");
    std::fs::write(&file, "text").unwrap();
    let m = Manifest::load(path.clone(), Path::new("."));
    m.record(&file.metadata().unwrap(), digest(b"text"));
    m.save().unwrap();
    let meta = file.metadata().unwrap();
    // written just now: an edit within the same timestamp tick could not be seen
    let racy = Manifest::load_with_window(path.clone(), RACY_WINDOW_NS);
    assert_eq!(racy.holds(&meta, digest(b"text")), None);
    assert_eq!(racy.holds(&meta, digest(b"other")), None);
    // older than the window (here: a window of nothing), it counts
    let settled = Manifest::load_with_window(path, 0);
    assert_eq!(settled.holds(&meta, digest(b"text")), Some(true));
}

#[test]
fn the_racy_window_is_fine_only_where_timestamps_are() {
    assert_eq!(window_for_type(0xEF53), FINE_WINDOW_NS);
    assert_eq!(window_for_type(0x0102_1994), FINE_WINDOW_NS);
    // FAT (MSDOS_SUPER_MAGIC), NFS and an unknown type: two seconds
    for t in [0x4d44, 0x6969, 0x1234_5678] {
        assert_eq!(window_for_type(t), RACY_WINDOW_NS);
    }
    // no such directory: the safe window
    assert_eq!(racy_window(Path::new("/no/such/dir")), RACY_WINDOW_NS);
    let w = racy_window(&std::env::temp_dir());
    assert!(w == FINE_WINDOW_NS || w == RACY_WINDOW_NS);
}

#[test]
fn manifests_of_sites_no_longer_built_are_removed() {
    let dir = tempfile::tempdir().unwrap();
    let [ours, recent, forgotten, other] = [
        "site-1.manifest",
        "site-2.manifest",
        "site-3.manifest",
        "highlight-v1.bin",
    ]
    .map(|n| dir.path().join(n));
    // a fixed old date (2020-09-13): tests read no clock
    let long_ago = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_600_000_000);
    for f in [&recent, &forgotten, &other] {
        std::fs::write(f, "x").unwrap();
    }
    for f in [&forgotten, &other] {
        let h = std::fs::OpenOptions::new().write(true).open(f).unwrap();
        h.set_modified(long_ago).unwrap();
    }
    Manifest::load(ours.clone(), Path::new(".")).save().unwrap();
    assert!(ours.exists() && recent.exists() && other.exists());
    assert!(!forgotten.exists());
}

#[test]
fn entries_last_two_builds_and_a_damaged_file_is_empty() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("manifest.bin");
    let file = dir.path().join("f");
    std::fs::write(&file, "x").unwrap();
    let m = Manifest::load(path.clone(), Path::new("."));
    m.record(&file.metadata().unwrap(), digest(b"x"));
    m.save().unwrap();
    // one build that does not touch the file keeps its entry, two drop it
    Manifest::load(path.clone(), Path::new(".")).save().unwrap();
    assert_eq!(
        Manifest::load(path.clone(), Path::new(".")).holds(&file.metadata().unwrap(), digest(b"x")),
        Some(true)
    );
    Manifest::load(path.clone(), Path::new(".")).save().unwrap();
    assert_eq!(
        Manifest::load(path.clone(), Path::new(".")).holds(&file.metadata().unwrap(), digest(b"x")),
        None
    );

    let m = Manifest::load(path.clone(), Path::new("."));
    m.record(&file.metadata().unwrap(), digest(b"x"));
    m.save().unwrap();
    let mut bytes = std::fs::read(&path).unwrap();
    bytes.truncate(bytes.len() - 3);
    std::fs::write(&path, bytes).unwrap();
    assert_eq!(
        Manifest::load(path, Path::new(".")).holds(&file.metadata().unwrap(), digest(b"x")),
        None
    );
}
