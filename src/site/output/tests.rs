use super::*;

#[test]
fn a_second_write_wins_and_nothing_is_left_beside_the_site() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("public");
    for text in ["first build", "second build"] {
        let stage = Stage::open(&out).unwrap();
        stage.put("keps/1/index.html", b"first").unwrap();
        stage.put("keps/1/kep.json", b"{}").unwrap();
        // The same path again (an asset and a page of one name): replaced.
        stage.put("keps/1/index.html", text.as_bytes()).unwrap();
        let report = stage.finish().unwrap();
        assert_eq!((report.pages, report.files), (1, 3));
        let page = std::fs::read_to_string(out.join("keps/1/index.html")).unwrap();
        assert_eq!(page, text);
    }
    let mut names: Vec<String> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["public"], "the replaced site is deleted");
    assert!(marked(&out));
}

#[test]
fn an_abandoned_build_leaves_the_site_and_refuses_paths_outside() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("public");
    let stage = Stage::open(&out).unwrap();
    stage.put("index.html", b"home").unwrap();
    stage.finish().unwrap();
    let stage = Stage::open(&out).unwrap();
    assert!(stage.put("../escape.html", b"x").is_err());
    stage.put("index.html", b"new home").unwrap();
    stage.abandon();
    assert_eq!(std::fs::read(out.join("index.html")).unwrap(), b"home");
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 1);
}
