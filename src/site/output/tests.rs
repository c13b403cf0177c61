use super::*;

/// One build of `files` into `out` with the manifest in `manifest`:
/// how many files the manifest vouched for.
fn build(out: &Path, manifest: &Path, files: &[(&str, &str)]) -> usize {
    let stage = Stage::open(out, true, Some(manifest.to_path_buf())).unwrap();
    for (rel, text) in files {
        stage.write(rel, text.as_bytes()).unwrap();
    }
    let vouched = stage.manifest.as_ref().map_or(0, Manifest::vouched);
    stage.finish().unwrap();
    vouched
}

#[test]
fn a_build_from_nothing_writes_without_looking_and_a_second_write_wins() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("public");
    let stage = Stage::open(&out, true, None).unwrap();
    assert!(stage.fresh, "a new tree with no live site is fresh");
    stage.write("keps/1/index.html", b"first").unwrap();
    stage.write("keps/1/kep.json", b"{}").unwrap();
    // The same path again (an asset and a page of one name): replaced.
    stage.write("keps/1/index.html", b"second").unwrap();
    stage.finish().unwrap();
    let page = std::fs::read_to_string(out.join("keps/1/index.html")).unwrap();
    assert_eq!(page, "second");
    // Once there is a live site, the next tree is not fresh.
    let stage = Stage::open(&out, true, None).unwrap();
    assert!(!stage.fresh);
    stage.abandon();
}

#[test]
fn the_manifest_vouches_for_unchanged_files_and_not_for_edited_ones() {
    let tmp = tempfile::tempdir().unwrap();
    let (out, manifest) = (tmp.path().join("public"), tmp.path().join("m.bin"));
    let files = [("index.html", "home"), ("keps/1/index.html", "kep one")];
    assert_eq!(
        build(&out, &manifest, &files),
        0,
        "nothing to vouch for yet"
    );
    // the second build links both files from the first
    assert_eq!(build(&out, &manifest, &files), 2);
    assert_eq!(build(&out, &manifest, &files), 2, "the reused tree");
    // An edit of the same length, in place, reaches both trees (they
    // share the inode): the entry no longer matches, the file is read
    // and rewritten.
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::write(out.join("keps/1/index.html"), "KEP ONE").unwrap();
    assert_eq!(build(&out, &manifest, &files), 1);
    assert_eq!(
        std::fs::read_to_string(out.join("keps/1/index.html")).unwrap(),
        "kep one"
    );
    let changed = [("index.html", "HOME"), ("keps/1/index.html", "kep one")];
    build(&out, &manifest, &changed);
    assert_eq!(
        std::fs::read_to_string(out.join("index.html")).unwrap(),
        "HOME"
    );
    assert_eq!(
        std::fs::read_to_string(stage_path(&out).join("index.html")).unwrap(),
        "home",
        "the kept tree is the previous site, untouched"
    );
}
