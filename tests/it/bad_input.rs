//! Bad input never crashes kepsite: each defect becomes a finding with its
//! path (and line where known), and every other KEP still loads.

use std::path::Path;

use kepsite::project::Input;

use crate::support::*;

fn write(root: &Path, rel: &str, bytes: &[u8]) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, bytes).unwrap();
}

/// Load `root` from disk, check it, and assert the rest of content/ survived.
fn findings_after(root: &Path) -> Vec<kepsite::finding::Finding> {
    let project = load_files(&Input::at(root));
    assert!(
        project.model.kep(1480).is_some_and(|k| k.meta_ok),
        "the good KEPs still load"
    );
    let f = project.findings;
    crate::rules::assert_rules_from_table(&f, "bad input");
    f
}

fn has(f: &[kepsite::finding::Finding], rule: &str, path: &str) -> bool {
    f.iter().any(|x| x.rule == rule && x.path.contains(path))
}

#[test]
fn every_kind_of_bad_file_becomes_a_finding() {
    let (_tmp, root) = content_copy();
    write(
        &root,
        "keps/sig-node/7001-latin1/kep.yaml",
        b"title: caf\xe9\nkep-number: 7001\n",
    );
    write(&root, "keps/sig-node/7001-latin1/README.md", b"# ok\n");
    write(&root, "keps/sig-node/7002-empty/kep.yaml", b"");
    write(&root, "keps/sig-node/7002-empty/README.md", b"");
    write(
        &root,
        "keps/sig-node/7003-garbage/kep.yaml",
        &[0, 159, 146, 150, 255, 10, 58, 58],
    );
    write(&root, "keps/sig-node/7003-garbage/README.md", &[0xff; 64]);
    let mut laughs = String::from("a0: &a0 [x,x,x,x,x,x,x,x,x,x]\n");
    for i in 1..12 {
        let p = i - 1;
        laughs.push_str(&format!(
            "a{i}: &a{i} [*a{p},*a{p},*a{p},*a{p},*a{p},*a{p},*a{p},*a{p},*a{p},*a{p}]\n"
        ));
    }
    write(
        &root,
        "keps/sig-node/7004-laughs/kep.yaml",
        laughs.as_bytes(),
    );
    write(&root, "keps/sig-node/7004-laughs/README.md", b"# boom\n");
    let big = vec![b'a'; 11 * 1024 * 1024];
    write(
        &root,
        "keps/sig-node/7005-huge/kep.yaml",
        b"title: Huge\nkep-number: 7005\n",
    );
    write(&root, "keps/sig-node/7005-huge/README.md", &big);
    write(
        &root,
        "keps/sig-node/7006-deep/kep.yaml",
        "title: [".repeat(5000).as_bytes(),
    );
    write(&root, "keps/sig-node/7006-deep/README.md", b"# deep\n");
    write(
        &root,
        "keps/prod-readiness/sig-node/7007.yaml",
        b"alpha: [unclosed\n",
    );

    let f = findings_after(&root);
    let utf8 = f
        .iter()
        .find(|x| x.rule == "file-not-utf8" && x.path.contains("7001"))
        .expect("utf8 finding");
    assert_eq!(utf8.line, Some(1));
    assert!(has(&f, "required-field", "7002-empty/kep.yaml"));
    assert!(
        has(&f, "yaml-parse", "7004-laughs/kep.yaml"),
        "alias bomb refused"
    );
    assert!(has(&f, "file-too-large", "7005-huge/README.md"));
    assert!(has(&f, "yaml-parse", "7006-deep/kep.yaml"));
    assert!(has(
        &f,
        "prr-file-parse",
        "prod-readiness/sig-node/7007.yaml"
    ));
    assert!(f.iter().any(|x| x.path.contains("7003-garbage")));
}

#[cfg(unix)]
#[test]
fn symlinks_out_of_the_repository_are_not_followed() {
    let (tmp, root) = content_copy();
    let secret = tmp.path().join("secret.md");
    std::fs::write(
        &secret,
        "---\ntitle: SECRET OUTSIDE\nkep-number: 9999\n---\n",
    )
    .unwrap();
    std::os::unix::fs::symlink(&secret, root.join("keps/sig-node/20200101-escape.md")).unwrap();
    std::os::unix::fs::symlink(
        "../../../secret.md",
        root.join("keps/sig-node/20200102-relative.md"),
    )
    .unwrap();
    std::os::unix::fs::symlink("/", root.join("keps/sig-node/rootdir")).unwrap();
    // An in-repo link is followed, as in the real repository.
    std::os::unix::fs::symlink(
        "1480-pod-restart-budget/README.md",
        root.join("keps/sig-node/alias.md"),
    )
    .unwrap();
    let project = load_files(&Input::at(&root));
    assert!(
        project.model.kep(9999).is_none(),
        "outside content must not be read"
    );
    let f = project.findings;
    assert!(has(&f, "symlink-outside", "20200101-escape.md"));
    assert!(has(&f, "symlink-outside", "20200102-relative.md"));
    // The same through git: the symlink blobs are refused too.
    git_commit_all(&root);
    let rev = load_files(&Input::at(&root).rev("HEAD"));
    assert!(rev.model.kep(9999).is_none());
    assert!(has(
        &rev.findings,
        "symlink-outside",
        "20200102-relative.md"
    ));
}

#[cfg(unix)]
#[test]
fn special_files_are_not_read() {
    let (_tmp, root) = content_copy();
    let fifo = root.join("keps/sig-node/7100-fifo");
    std::fs::create_dir_all(&fifo).unwrap();
    let ok = std::process::Command::new("mkfifo")
        .arg(fifo.join("kep.yaml"))
        .status()
        .unwrap();
    assert!(ok.success());
    let f = findings_after(&root);
    assert!(has(&f, "file-unreadable", "7100-fifo/kep.yaml"));
}

#[test]
fn revision_errors_are_clear() {
    let tmp = tempfile::tempdir().unwrap();
    let run = kepsite(&[
        "check",
        "--repo",
        tmp.path().to_str().unwrap(),
        "--rev",
        "HEAD",
    ]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("not inside a git repository"),
        "{}",
        run.stderr
    );
    let (_t, root) = content_copy();
    git_commit_all(&root);
    let run = kepsite(&[
        "check",
        "--repo",
        root.to_str().unwrap(),
        "--rev",
        "no-such-branch",
    ]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("unknown revision"), "{}", run.stderr);
    let run = kepsite(&["check", "--repo", "/definitely/not/here"]);
    assert_eq!(run.code, 2);
}

/// A README whose PRR answer is one 2 MB line of an unclosed delimiter (`<`,
/// `[`, `<div `) checks and builds: the question is judged as any answer (no words,
/// no answer), the
/// KEP's page is written, and every other KEP is there. (The answer reader
/// once searched to the end after every unclosed `<` or `[`: minutes for
/// this input. Its linear bound is the unit test
/// `placeholder_removal_scans_linearly`; this is the whole pipeline on it.)
#[test]
fn two_megabytes_of_one_delimiter_check_and_build() {
    let question = "###### How can this feature be enabled / disabled in a live cluster?";
    for unit in ["<", "[", "<div "] {
        let (tmp, root) = content_copy();
        let readme = root.join("keps/sig-node/4321-kubelet-image-pull-progress/README.md");
        let text = std::fs::read_to_string(&readme).unwrap();
        assert!(text.contains(question));
        let line = unit.repeat(2 * 1024 * 1024 / unit.len());
        // The answer's body becomes the line: up to the next heading.
        let at = text.find(question).unwrap() + question.len();
        let end = at + text[at..].find("\n#").unwrap();
        let text = format!("{}\n\n{line}\n{}", &text[..at], &text[end..]);
        std::fs::write(&readme, text).unwrap();
        let f = findings_after(&root);
        // `<` and `[` alone are no words; `<div <div …` is text with words.
        let unanswered = f.iter().any(|x| {
            x.rule == "prr-unanswered"
                && x.path.contains("4321-kubelet-image-pull-progress")
                && x.message.contains("enabled / disabled")
        });
        assert_eq!(unanswered, unit != "<div ", "{unit:?}");
        let out = tmp.path().join("site");
        let run = kepsite(&[
            "build",
            "--repo",
            root.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(run.code, 0, "{unit:?}: {}", run.stderr);
        assert!(out.join("keps/1480/index.html").is_file(), "{unit:?}");
        assert!(out.join("keps/4321/index.html").is_file(), "{unit:?}");
    }
}
