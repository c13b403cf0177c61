//! Issue 17's findings about files in the repository: what is published
//! beside a KEP page, and where symlinks may lead.

use kepsite::project::Input;
use kepsite::site::{self, SiteOptions};

use crate::support::*;

const KEP: &str = "keps/sig-node/1480-pod-restart-budget";

/// Issue 17, finding 4: files beside a README were published on the site's
/// origin, where an `evil.html` or a scripted SVG ran script.
#[test]
fn only_inert_attachments_are_published() {
    let (tmp, root) = content_copy();
    let dir = root.join(KEP);
    let script_svg = "<svg xmlns=\"http://www.w3.org/2000/svg\"><script href=\"evil.js\"/></svg>";
    for (name, body) in [
        ("evil.html", "<script>alert(1)</script>"),
        (
            "evil.xhtml",
            "<html xmlns=\"http://www.w3.org/1999/xhtml\"><script>alert(1)</script></html>",
        ),
        ("evil.js", "alert(1)"),
        ("evil.svg", script_svg),
        (
            "handler.svg",
            "<svg xmlns=\"http://www.w3.org/2000/svg\" onload=\"alert(1)\"/>",
        ),
        (
            "plain.svg",
            "<svg xmlns=\"http://www.w3.org/2000/svg\"><rect width=\"4\" height=\"4\"/></svg>",
        ),
        ("photo.png", "\u{89}PNG not really"),
    ] {
        std::fs::write(dir.join(name), body).unwrap();
    }
    let readme = dir.join("README.md");
    let mut text = std::fs::read_to_string(&readme).unwrap();
    text.push_str(
        "\n[e](evil.html) [x](evil.xhtml) [j](evil.js) ![s](evil.svg) ![h](handler.svg) \
         ![p](plain.svg) ![o](photo.png) <img src=\"evil.svg\">\n",
    );
    std::fs::write(&readme, text).unwrap();
    let out = tmp.path().join("public");
    let data = load_files(&Input::at(&root));
    site::build(
        data,
        &SiteOptions {
            out: out.clone(),
            ..Default::default()
        },
    )
    .unwrap();
    let page_dir = out.join("keps/1480");
    for gone in [
        "evil.html",
        "evil.xhtml",
        "evil.js",
        "evil.svg",
        "handler.svg",
    ] {
        assert!(!page_dir.join(gone).exists(), "{gone} was published");
    }
    for kept in ["plain.svg", "photo.png"] {
        assert!(page_dir.join(kept).is_file(), "{kept} was not published");
    }
    let page = std::fs::read_to_string(page_dir.join("index.html")).unwrap();
    let blob = format!("https://github.com/kubernetes/enhancements/blob/master/{KEP}");
    assert!(
        page.contains(&format!("href=\"{blob}/evil.html\"")),
        "{page}"
    );
    assert!(
        page.contains(&format!("src=\"{blob}/evil.svg?raw=true\"")),
        "{page}"
    );
    assert!(page.contains("src=\"plain.svg\""));
    // a PNG that is not one is linked, not shown, and is a finding
    assert!(
        page.contains(
            "<a class=\"image-link\" href=\"photo.png\">o (image that cannot be shown)</a>"
        ),
        "{page}"
    );
    assert!(!page.contains("src=\"photo.png\""));
    assert!(
        page.contains("image-broken"),
        "the KEP page shows the finding"
    );
    // nothing anywhere in the output is a script-capable document
    for path in files(&out).keys() {
        let lower = path.to_ascii_lowercase();
        assert!(
            !lower.starts_with("keps/1480/")
                || !lower.ends_with(".xhtml") && !lower.ends_with("evil.js"),
            "{path}"
        );
    }
}

fn has(f: &[kepsite::finding::Finding], rule: &str, path: &str) -> bool {
    f.iter().any(|x| x.rule == rule && x.path.contains(path))
}

/// Issue 17, finding 5: a README (or image) symlinked into `.git` was
/// rendered and indexed, publishing whatever the checkout keeps there.
#[cfg(unix)]
#[test]
fn symlinks_into_git_or_out_of_keps_are_findings() {
    use std::os::unix::fs::symlink;
    let (tmp, root) = content_copy();
    std::fs::create_dir_all(root.join(".git")).unwrap();
    std::fs::write(
        root.join(".git/config"),
        "---\ntitle: TOKEN-SECRET\nkep-number: 9998\n---\n[http] extraheader = TOKEN-SECRET\n",
    )
    .unwrap();
    symlink(
        "../../.git/config",
        root.join("keps/sig-node/20200103-git.md"),
    )
    .unwrap();
    symlink(
        "../../SAMPLE.md",
        root.join("keps/sig-node/20200104-sample.md"),
    )
    .unwrap();
    symlink("../../../.git/config", root.join(format!("{KEP}/leak.png"))).unwrap();
    // in keps/, as the real repository's links are: followed (a numbered
    // file without metadata, it is read to be a finding)
    symlink(
        "1480-pod-restart-budget/README.md",
        root.join("keps/sig-node/20200105-alias.md"),
    )
    .unwrap();
    let project = load_files(&Input::at(&root));
    let m = &project.model;
    assert!(
        has(
            &project.findings,
            "kep-file-without-metadata",
            "20200105-alias.md"
        ),
        "{:?}",
        project.findings
    );
    assert!(
        !m.assets().iter().any(|a| a.ends_with("leak.png")),
        "{:?}",
        m.assets()
    );
    assert!(m.kep(9998).is_none(), ".git content must not be read");
    let f = &project.findings;
    assert!(has(f, "symlink-outside", "20200103-git.md"), "{f:?}");
    assert!(has(f, "symlink-outside", "20200104-sample.md"), "{f:?}");
    let out = tmp.path().join("public");
    site::build(
        project,
        &SiteOptions {
            out: out.clone(),
            ..Default::default()
        },
    )
    .unwrap();
    for (path, bytes) in files(&out) {
        assert!(
            !String::from_utf8_lossy(&bytes).contains("TOKEN-SECRET"),
            "{path} publishes .git/config"
        );
    }
    // the same from git: the link blob into keps/ is followed, the others not
    std::fs::remove_dir_all(root.join(".git")).unwrap();
    git_commit_all(&root);
    let rev = load_files(&Input::at(&root).rev("HEAD"));
    assert!(has(&rev.findings, "symlink-outside", "20200104-sample.md"));
    assert!(has(
        &rev.findings,
        "kep-file-without-metadata",
        "20200105-alias.md"
    ));
}

/// Issue 17, finding 6: the cache defaulted to `.kepsite-cache` in the
/// current directory and was used whoever owned it.
#[cfg(unix)]
#[test]
fn the_cache_is_the_users_own() {
    use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
    let tmp = tempfile::tempdir().unwrap();
    let xdg = tmp.path().join("xdg");
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_kepsite"))
            .args(args)
            .current_dir(tmp.path())
            .env("XDG_CACHE_HOME", &xdg)
            .env("NO_COLOR", "1")
            .output()
            .unwrap()
    };
    let content = content();
    let out = tmp.path().join("public");
    let base = [
        "build",
        "--repo",
        content.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    let r = run(&base);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    assert!(!tmp.path().join(".kepsite-cache").exists());
    let mode = std::fs::metadata(xdg.join("kepsite")).unwrap().mode() & 0o777;
    assert_eq!(mode, 0o700);

    let shared = tmp.path().join("shared");
    std::fs::create_dir(&shared).unwrap();
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o777)).unwrap();
    let mut args = base.to_vec();
    args.extend(["--cache-dir", shared.to_str().unwrap()]);
    let r = run(&args);
    let stderr = String::from_utf8_lossy(&r.stderr);
    assert!(!r.status.success(), "{stderr}");
    assert!(stderr.contains("writable by group or others"), "{stderr}");
    assert_eq!(std::fs::read_dir(&shared).unwrap().count(), 0);
}

/// A KEP directory whose name holds an OSC title sequence, a clear-screen
/// escape and a newline: a `path-control-character` finding names it
/// escaped; no output of `check` (human, GitHub) carries a raw control
/// character; the site's feed and sitemap are well-formed XML and no path
/// of the site holds a control character.
#[test]
fn control_characters_in_names_are_shown_never_sent() {
    let (tmp, root) = content_copy();
    let evil = "5141-evil\u{1b}]0;pwned\u{7}\u{1b}[2J\nname";
    let from = root.join("keps/sig-node/5140-container-log-rotation-policy");
    let to = root.join("keps/sig-node").join(evil);
    copy_tree(&from, &to);
    let yaml = to.join("kep.yaml");
    let text = std::fs::read_to_string(&yaml).unwrap();
    std::fs::write(&yaml, text.replace("kep-number: 5140", "kep-number: 5141")).unwrap();
    let raw = |s: &str| s.chars().any(|c| c.is_control() && c != '\n');
    let repo = root.to_str().unwrap();
    let human = kepsite(&["check", "--repo", repo, "--color", "never"]);
    assert!(
        !raw(&human.stdout) && !raw(&human.stderr),
        "raw control characters"
    );
    let finding = human
        .stdout
        .lines()
        .find(|l| l.starts_with("error[path-control-character]"))
        .unwrap_or_else(|| panic!("no finding:\n{}", human.stdout));
    assert!(
        finding.contains(r"5141-evil\u{1b}]0;pwned\u{7}\u{1b}[2J\u{a}name"),
        "{finding}"
    );
    // Every path line is one line: the newline in the name is shown.
    assert!(
        !human
            .stdout
            .lines()
            .any(|l| l == "name/kep.yaml:18" || l.starts_with("name/"))
    );
    let github = kepsite(&["check", "--repo", repo, "--format", "github"]);
    assert!(
        !raw(&github.stdout),
        "raw control characters in annotations"
    );
    assert!(
        github
            .stdout
            .lines()
            .all(|l| l.starts_with("::") || !l.contains("::"))
    );
    let json = kepsite(&["check", "--repo", repo, "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert!(v["findings"].as_array().unwrap().iter().any(|f| {
        f["rule"] == "path-control-character" && f["path"] == format!("keps/sig-node/{evil}")
    }));
    let out = tmp.path().join("site");
    let build = kepsite(&["build", "--repo", repo, "--out", out.to_str().unwrap()]);
    assert_eq!(build.code, 0, "{}", build.stderr);
    let files = files(&out);
    assert!(files.contains_key("keps/5141/index.html"));
    let bad: Vec<&String> = files
        .keys()
        .filter(|p| p.chars().any(char::is_control))
        .collect();
    assert!(bad.is_empty(), "{bad:?}");
    for xml in ["feed.xml", "sitemap.xml"] {
        let mut reader = quick_xml::Reader::from_reader(&files[xml][..]);
        let mut buf = Vec::new();
        loop {
            match reader.read_event_into(&mut buf) {
                Ok(quick_xml::events::Event::Eof) => break,
                Ok(quick_xml::events::Event::Text(t)) => {
                    let t = t.into_inner().into_owned();
                    assert!(
                        !t.chars().any(|c| c.is_control() && !"\t\n\r".contains(c)),
                        "{xml}: {t:?}"
                    );
                }
                Ok(_) => {}
                Err(e) => panic!("{xml} is not well-formed: {e}"),
            }
            buf.clear();
        }
        let text = String::from_utf8_lossy(&files[xml]);
        assert!(!text.contains('\u{1b}'), "{xml} holds a raw ESC");
    }
}

/// `--out` inside the repository's `keps/` would be read back as input by
/// the next build (and grow with each): refused, as a non-empty directory
/// kepsite did not make is.
#[test]
fn out_inside_the_keps_directory_is_refused() {
    let (_tmp, root) = content_copy();
    for out in [
        root.join("keps/sig-x/123-foo/site"),
        root.join("keps"),
        root.join("keps/sig-node/../site-in-keps"),
    ] {
        let run = kepsite(&[
            "build",
            "--repo",
            root.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(run.code, 2, "{}: {}", out.display(), run.stderr);
        assert!(run.stderr.contains("which kepsite reads"), "{}", run.stderr);
        assert!(
            !out.exists() || out == root.join("keps"),
            "{}",
            out.display()
        );
    }
    // Beside keps/ is fine.
    let run = kepsite(&[
        "build",
        "--repo",
        root.to_str().unwrap(),
        "--out",
        root.join("public").to_str().unwrap(),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
}

/// `--no-cache` reads and writes no cache: a build of a git
/// repository leaves the user cache directory empty with it (no `kepsite`
/// directory is even made), and without it writes the history walk's cache
/// alone: the only cache there is.
#[test]
fn no_cache_writes_no_cache() {
    let (tmp, root) = content_copy();
    git_commit_all(&root);
    let build = |cache_home: &std::path::Path, extra: &[&str]| {
        std::fs::create_dir_all(cache_home).unwrap();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_kepsite"))
            .args(["build", "--repo", root.to_str().unwrap(), "--out"])
            .arg(tmp.path().join("site"))
            .args(extra)
            .env("XDG_CACHE_HOME", cache_home)
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let entries = std::fs::read_dir(cache_home).unwrap().count();
        (entries, files(cache_home).into_keys().collect::<Vec<_>>())
    };
    let cold = build(&tmp.path().join("cold"), &["--no-cache"]);
    assert_eq!(cold, (0, vec![]), "the cache directory stays empty");
    let warm = build(&tmp.path().join("warm"), &[]);
    assert_eq!(warm, (1, vec!["kepsite/history-v4.json".to_string()]));
    // With the history's cache there, --no-cache still reads and writes nothing.
    let warm_dir = tmp.path().join("warm");
    let before = files(&warm_dir);
    build(&warm_dir, &["--no-cache"]);
    assert_eq!(files(&warm_dir), before);
    // Every subcommand that walks the history takes --no-cache alike.
    for args in [
        vec!["report", "--release", "v1.36", "--no-cache"],
        vec!["query", "--release", "v1.36", "--no-cache"],
        vec!["export", "--history", "--no-cache"],
    ] {
        let home = tmp.path().join(args[0]);
        std::fs::create_dir_all(&home).unwrap();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_kepsite"))
            .args(&args)
            .args(["--repo", root.to_str().unwrap()])
            .env("XDG_CACHE_HOME", &home)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(std::fs::read_dir(&home).unwrap().count(), 0, "{args:?}");
    }
}

/// Issue 48: an image the portal cannot show (a file that is not an image,
/// one over 5 MB) is a finding at its README line, in `check` and on the
/// KEP page, and the page links it; a good image gets its own size, from a
/// working tree and from a revision alike.
#[test]
fn broken_and_huge_images_are_findings_at_their_line_and_links() {
    let (_tmp, root) = content_copy();
    let dir = root.join(KEP);
    std::fs::write(dir.join("bad.png"), "not a png").unwrap();
    std::fs::File::create(dir.join("huge.png"))
        .unwrap()
        .set_len(5 * 1024 * 1024 + 1)
        .unwrap();
    let readme = dir.join("README.md");
    let text = std::fs::read_to_string(&readme).unwrap();
    let line = text.lines().count() + 2;
    std::fs::write(
        &readme,
        format!("{text}\n![too big](huge.png)\n\n<p>Broken: <img alt=\"\" src=\"bad.png\"></p>\n\n![fine](diagram.svg)\n"),
    )
    .unwrap();
    let findings = load_files(&Input::at(&root)).findings;
    let at = |rule: &str| {
        findings
            .iter()
            .filter(|f| f.rule == rule)
            .map(|f| (f.path.clone(), f.line))
            .collect::<Vec<_>>()
    };
    let readme_path = format!("{KEP}/README.md");
    assert_eq!(at("image-too-large"), [(readme_path.clone(), Some(line))]);
    assert_eq!(at("image-broken"), [(readme_path, Some(line + 2))]);

    git(&root, &["init", "-q"]);
    git_commit_all(&root);
    for rev in [None, Some("HEAD")] {
        let out = root.join(format!("public-{}", rev.is_some()));
        let mut args = vec!["build", "--repo", root.to_str().unwrap(), "--out"];
        args.push(out.to_str().unwrap());
        args.extend(rev.map(|r| ["--rev", r]).into_iter().flatten());
        args.push("--no-history");
        let run = kepsite(&args);
        assert_eq!(run.code, 0, "{}", run.stderr);
        let page = std::fs::read_to_string(out.join("keps/1480/index.html")).unwrap();
        assert!(
            page.contains(
                "<a class=\"image-link\" href=\"huge.png\">too big (image, 5.0 MB, not shown)</a>"
            ),
            "{page}"
        );
        assert!(page.contains(
            "<a class=\"image-link\" href=\"bad.png\">bad.png (image that cannot be shown)</a>"
        ));
        assert!(
            page.contains("<img alt=\"fine\" src=\"diagram.svg\" width=\"520\" height=\"170\" loading=\"lazy\" decoding=\"async\">"),
            "{page}"
        );
        assert!(page.contains("image-too-large") && page.contains("image-broken"));
    }
}
