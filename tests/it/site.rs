//! The static site, built from the sample repository in `content/`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use kepsite::project::{Input, Project};
use kepsite::site::{self, SiteOptions};

use crate::support::{check_links, content, files, load_files, resolve_link};

fn data() -> Project {
    load_files(&Input::at(content()))
}

fn opts(out: &Path) -> SiteOptions {
    SiteOptions {
        out: out.to_path_buf(),
        ..Default::default()
    }
}

/// Build `content/` into a fresh temp dir; returns the dir guard and the site root.
fn built() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("public");
    let d = data();
    let report = site::build(d.clone(), &opts(&out)).expect("site builds");
    assert!(report.pages > 50, "{report:?}");
    assert!(report.files > report.pages);
    (tmp, out)
}

fn read(out: &Path, rel: &str) -> String {
    std::fs::read_to_string(out.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

#[test]
fn expected_pages_exist() {
    let (_tmp, out) = built();
    for page in [
        "index.html",
        "keps/index.html",
        "keps/1480/index.html",
        "keps/4590/index.html",
        "keps/2980/index.html",
        "sigs/index.html",
        "sigs/sig-node/index.html",
        "releases/index.html",
        "releases/v1.36/index.html",
        "feature-gates/index.html",
        "people/index.html",
        "404.html",
        "sitemap.xml",
        "keps.json",
        "search/meta.json",
        ".kepsite-build",
    ] {
        assert!(out.join(page).is_file(), "missing {page}");
    }
    let keps: serde_json::Value = serde_json::from_str(&read(&out, "keps.json")).unwrap();
    assert!(keps.as_array().unwrap().len() >= 27);
    // The README.MD KEP is rendered, not empty.
    assert!(read(&out, "keps/2980/index.html").contains("<h2 id=\"summary\">"));
    // A KEP's directory path: no page, but a line of _redirects, and the
    // 404 page's script for other hosts.
    assert!(!out.join("keps/sig-node/1480-pod-restart-budget").exists());
    let redirects = read(&out, "_redirects");
    assert!(
        redirects
            .lines()
            .any(|l| l == "/keps/sig-node/1480-pod-restart-budget/ /keps/1480/ 301"),
        "{redirects}"
    );
    assert!(
        redirects.contains(
            "/keps/sig-network/gateway/4590-gateway-route-health-status/ /keps/4590/ 301"
        ),
        "a sub-project's KEP too: {redirects}"
    );
    assert!(read(&out, "404.html").contains("/static/immutable/moved."));
    // Release page lists the KEPs going alpha in v1.36.
    let rel = read(&out, "releases/v1.36/index.html");
    for n in ["5140", "3101", "5204", "4590", "5588"] {
        assert!(rel.contains(&format!("/keps/{n}/")), "v1.36 lacks {n}");
    }
    // The KEP index is a plain HTML table of every KEP; filters only enhance it.
    let index = read(&out, "keps/index.html");
    assert!(index.matches("<tr data-sig=").count() >= 27);
    assert!(index.contains("<form id=\"ks-filters\" class=\"filters\" hidden>"));
    let sitemap = read(&out, "sitemap.xml");
    assert!(sitemap.contains("<loc>/keps/1480/</loc>"));
}

#[test]
fn kep_page_rewrites_links_and_copies_assets() {
    let (_tmp, out) = built();
    let page = read(&out, "keps/1480/index.html");
    assert!(out.join("keps/1480/diagram.svg").is_file());
    assert!(page.contains("src=\"diagram.svg\""));
    assert!(
        page.contains("href=\"/keps/4321/\""),
        "link to a sibling KEP"
    );
    assert!(page.contains("https://github.com/kubernetes/enhancements/blob/master/keps/prod-readiness/sig-node/1480.yaml"));
    assert!(
        page.contains("class=\"hl-"),
        "code is highlighted with classes"
    );
    assert!(page.contains("<h2 id=\"summary\">"));
    assert!(page.contains("href=\"#summary\""), "table of contents");
    assert!(page.contains("footnote-definition"));
    assert!(page.contains("@wren-h"), "PRR panel");
    let cross = read(&out, "keps/4815/index.html");
    assert!(cross.contains("href=\"/keps/1480/\""), "cross-SIG link");
}

#[test]
fn content_cannot_run_script() {
    let (_tmp, out) = built();
    let page = read(&out, "keps/3880/index.html");
    let lower = page.to_ascii_lowercase();
    assert!(!lower.contains("<script>alert"), "raw script survived");
    assert!(!lower.contains("onerror"), "event handler survived");
    assert!(!lower.contains("javascript:"), "javascript: URL survived");
    // The only scripts are the theme's own.
    assert_eq!(lower.matches("<script").count(), 1);
}

#[test]
fn every_internal_link_resolves() {
    let (_tmp, out) = built();
    let (checked, broken) = check_links(&files(&out), "/");
    assert!(checked > 500, "only {checked} links checked");
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn every_internal_link_resolves_under_a_subpath() {
    let o = SiteOptions {
        base_url: "/docs/keps".into(),
        ..opts(Path::new("unused"))
    };
    let files = site::render_to_memory(&data(), &o).unwrap();
    let (checked, broken) = check_links(&files, "/docs/keps/");
    assert!(checked > 500, "only {checked} links checked");
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn static_files_have_content_hashed_copies() {
    let tmp = tempfile::tempdir().unwrap();
    let render = |theme: Option<PathBuf>| {
        let o = SiteOptions {
            theme,
            ..opts(Path::new("unused"))
        };
        site::render_to_memory(&data(), &o).unwrap()
    };
    let hashed_css = |files: &BTreeMap<String, Vec<u8>>| {
        let home = String::from_utf8_lossy(&files["index.html"]).into_owned();
        let at = home
            .find("href=\"/static/immutable/site.")
            .expect("hashed site.css linked");
        home[at + 6..].split('"').next().unwrap().to_string()
    };
    let files = render(None);
    let css = hashed_css(&files);
    assert!(css.ends_with(".css") && css.len() == "/static/immutable/site.0123456789.css".len());
    let source =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("themes/default/static/site.css"))
            .unwrap();
    assert_eq!(files[css.trim_start_matches('/')], source);
    // only the hashed copies: no file under its plain name
    assert!(!files.contains_key("static/site.css"));
    for name in ["highlight", "search", "favicon"] {
        assert!(
            files
                .keys()
                .any(|k| k.starts_with(&format!("static/immutable/{name}."))),
            "{name}"
        );
    }
    // Other bytes, another name; the same bytes, the same name.
    std::fs::create_dir_all(tmp.path().join("static")).unwrap();
    std::fs::write(tmp.path().join("static/site.css"), "body{}").unwrap();
    let changed = hashed_css(&render(Some(tmp.path().to_path_buf())));
    assert_ne!(changed, css);
    assert_eq!(hashed_css(&render(None)), css);
}

#[test]
fn the_link_checker_finds_broken_links() {
    let page = r##"<a href="/keps/1/">ok</a> <a href="../b/">up</a> <img src="x.svg">
<a href="/gone/">abs</a> <a href="missing.png">rel</a> <a href="../../../up">above</a>
<a href="https://example.org/">ext</a> <a href="mailto:a@b">mail</a> <a href="#top">frag</a>
<a href="javascript:alert(1)">js</a> <a href="/keps/1/?q=1#x">query</a>"##;
    let site: BTreeMap<String, Vec<u8>> = [
        ("a/page/index.html", page),
        ("keps/1/index.html", ""),
        ("a/b/index.html", ""),
        ("a/page/x.svg", ""),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.as_bytes().to_vec()))
    .collect();
    let (checked, broken) = check_links(&site, "/");
    assert_eq!(checked, 6, "{broken:?}");
    assert_eq!(
        broken,
        [
            "a/page/index.html: /gone/ (no gone/index.html)",
            "a/page/index.html: missing.png (no a/page/missing.png)",
            "a/page/index.html: ../../../up (climbs above the site root)",
            "a/page/index.html: javascript:alert(1) (script or data URL)",
        ]
    );
    // Under a subpath, absolute links must carry it.
    let (_, broken) = check_links(&site, "/sub/");
    assert!(
        broken
            .iter()
            .any(|b| b.contains("/keps/1/ (outside the base /sub/)")),
        "{broken:?}"
    );
    assert_eq!(
        resolve_link(
            "keps/2/index.html",
            "https://h.example/sub/keps/1/",
            "https://h.example/sub/"
        ),
        Ok(Some("keps/1/index.html".into()))
    );
    assert_eq!(
        resolve_link(
            "keps/2/index.html",
            "https://other.example/sub/",
            "https://h.example/sub/"
        ),
        Ok(None)
    );
}

#[test]
fn builds_are_byte_identical() {
    let (_a, one) = built();
    let (_b, two) = built();
    let (x, y) = (files(&one), files(&two));
    assert_eq!(x.keys().collect::<Vec<_>>(), y.keys().collect::<Vec<_>>());
    for (k, v) in &x {
        assert!(v == &y[k], "{k} differs between builds");
    }
}

#[test]
fn refuses_to_replace_a_foreign_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("mine");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("precious.txt"), "keep me").unwrap();
    let d = data();
    let err = site::build(d.clone(), &opts(&out)).unwrap_err();
    assert!(err.to_string().contains("refusing"), "{err:#}");
    assert_eq!(
        std::fs::read_to_string(out.join("precious.txt")).unwrap(),
        "keep me"
    );
}

#[test]
fn rebuilds_replace_and_failures_keep_the_previous_site() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("public");
    let d = data();
    site::build(d.clone(), &opts(&out)).unwrap();
    std::fs::write(out.join("stale.html"), "old").unwrap();
    site::build(d.clone(), &opts(&out)).unwrap();
    assert!(
        !out.join("stale.html").exists(),
        "a rebuild replaces the site"
    );
    let before = files(&out);

    // The third build's pages all change (another base URL) and are written
    // before the last one, the sitemap, fails: the live site must not see
    // any of them.
    let theme = tmp.path().join("theme/templates");
    std::fs::create_dir_all(&theme).unwrap();
    std::fs::write(theme.join("sitemap.xml"), "{{ no_such | length }}").unwrap();
    let broken = SiteOptions {
        theme: Some(tmp.path().join("theme")),
        base_url: "/elsewhere/".into(),
        ..opts(&out)
    };
    assert!(site::build(d.clone(), &broken).is_err());
    assert_eq!(
        files(&out),
        before,
        "a failed build leaves the site untouched"
    );
    assert!(read(&out, "index.html").contains("href=\"/keps/\""));
    let leftovers: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("kepsite-tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn a_rebuild_writes_every_file_anew_and_follows_no_link() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("public");
    site::build(data(), &opts(&out)).unwrap();
    let expected = files(&out);
    // A page edited in the built site, and a symlink planted there: the
    // next build writes a new tree and never follows the link.
    std::fs::write(out.join("keps/1480/index.html"), "edited by hand").unwrap();
    let outside = tmp.path().join("outside.txt");
    std::fs::write(&outside, "secret").unwrap();
    std::fs::remove_file(out.join("keps.json")).unwrap();
    std::os::unix::fs::symlink(&outside, out.join("keps.json")).unwrap();
    site::build(data(), &opts(&out)).unwrap();
    assert_eq!(files(&out), expected);
    let js = std::fs::symlink_metadata(out.join("keps.json")).unwrap();
    assert!(js.file_type().is_file());
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "secret");
    let beside: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(beside.len(), 2, "the site and outside.txt: {beside:?}");
}

#[test]
fn theme_overrides_file_by_file() {
    let tmp = tempfile::tempdir().unwrap();
    let theme = tmp.path().join("theme");
    std::fs::create_dir_all(theme.join("templates")).unwrap();
    std::fs::create_dir_all(theme.join("static")).unwrap();
    std::fs::write(
        theme.join("templates/404.html"),
        "<!DOCTYPE html><title>gone</title><p>custom {{ site.base }}</p>",
    )
    .unwrap();
    std::fs::write(theme.join("static/extra.css"), "p{}").unwrap();
    let d = data();
    let o = SiteOptions {
        theme: Some(theme),
        ..opts(&tmp.path().join("out"))
    };
    let files = site::render_to_memory(&d, &o).unwrap();
    assert_eq!(
        String::from_utf8_lossy(&files["404.html"]),
        "<!DOCTYPE html><title>gone</title><p>custom /</p>"
    );
    // an extra static file of the theme is published under its hashed name
    assert!(
        files
            .keys()
            .any(|k| k.starts_with("static/immutable/extra.") && k.ends_with(".css")),
        "{:?}",
        files
            .keys()
            .filter(|k| k.starts_with("static/"))
            .collect::<Vec<_>>()
    );
    assert!(
        String::from_utf8_lossy(&files["index.html"]).contains("In v1.36, the release in progress")
    );
}

#[test]
fn search_index_is_sharded() {
    let d = data();
    let files = site::render_to_memory(&d, &opts(Path::new("unused"))).unwrap();
    let meta: serde_json::Value = serde_json::from_slice(&files["search/meta.json"]).unwrap();
    assert!(meta["docs"].as_array().unwrap().len() >= 27);
    let file_of = |key: &str| {
        let n = meta["shards"]
            .as_array()
            .unwrap()
            .iter()
            .position(|k| k.as_str().unwrap().split(' ').any(|k| k == key))
            .unwrap_or_else(|| panic!("no term file holds {key}: {}", meta["shards"]));
        let terms: BTreeMap<String, String> =
            serde_json::from_slice(&files[&format!("search/t/{n}.json")]).unwrap();
        terms
    };
    let kubelet = &file_of("ku")["kubelet"];
    let postings = kepsite::site::search::decode_postings(kubelet).unwrap();
    assert!(
        postings.len() >= 3 && postings.len().is_multiple_of(3),
        "{postings:?}"
    );
    assert!(file_of("14").contains_key("1480"));
    // a few files, not one per key
    let keys = meta["shards"].as_array().unwrap();
    let term_files = files.keys().filter(|p| p.starts_with("search/t/")).count();
    assert_eq!(term_files, keys.len());
    assert!(!files.keys().any(|p| p.starts_with("search/p/")));
}

#[test]
fn snapshots() {
    let d = data();
    let files = site::render_to_memory(&d, &opts(Path::new("unused"))).unwrap();
    let page = |p: &str| String::from_utf8(files[p].clone()).unwrap();
    insta::assert_snapshot!("home", page("index.html"));
    insta::assert_snapshot!("kep_1480", page("keps/1480/index.html"));
    insta::assert_snapshot!("sig_node", page("sigs/sig-node/index.html"));
    insta::assert_snapshot!("release_v1_36", page("releases/v1.36/index.html"));
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dest = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &dest);
        } else {
            std::fs::copy(e.path(), &dest).unwrap();
        }
    }
}

#[test]
fn assets_of_a_git_revision_come_from_the_commit() {
    let tmp = tempfile::tempdir().unwrap();
    let repo_dir = tmp.path().join("repo");
    copy_dir(&content(), &repo_dir);
    let repo = git2::Repository::init(&repo_dir).unwrap();
    let mut index = repo.index().unwrap();
    index
        .add_all(["*"], git2::IndexAddOption::DEFAULT, None)
        .unwrap();
    index.write().unwrap();
    let tree = repo.find_tree(index.write_tree().unwrap()).unwrap();
    let sig = git2::Signature::new("t", "t@example.com", &git2::Time::new(0, 0)).unwrap();
    repo.commit(Some("HEAD"), &sig, &sig, "sample", &tree, &[])
        .unwrap();
    // The working tree changes after the commit; the site must show the commit.
    let svg = repo_dir.join("keps/sig-node/1480-pod-restart-budget/diagram.svg");
    let committed = std::fs::read(&svg).unwrap();
    std::fs::write(&svg, "<svg>changed in the working tree</svg>").unwrap();

    let data = load_files(&Input::at(&repo_dir).rev("HEAD"));
    assert!(data.model.source.commit.is_some());
    let files = site::render_to_memory(&data, &opts(Path::new("unused"))).unwrap();
    assert_eq!(files["keps/1480/diagram.svg"], committed);
}

#[test]
fn sig_pages_show_leadership_from_sigs_yaml() {
    let tmp = tempfile::tempdir().unwrap();
    let sigs = tmp.path().join("sigs.yaml");
    std::fs::write(
        &sigs,
        "sigs:\n- dir: sig-node\n  name: Node\n  mission_statement: Runs pods.\n  leadership:\n    chairs:\n    - github: ada\n      name: Ada L\n  contact:\n    slack: sig-node\n",
    )
    .unwrap();
    let data = load_files(&Input::at(content()).sigs(&sigs));
    let files = site::render_to_memory(&data, &opts(Path::new("unused"))).unwrap();
    let page = String::from_utf8_lossy(&files["sigs/sig-node/index.html"]).into_owned();
    assert!(page.contains("Node (sig-node)"), "{page}");
    assert!(page.contains("Ada L (@ada)"));
}

#[test]
fn kep_pages_show_readiness_and_the_prr_questionnaire() {
    let files = site::render_to_memory(&data(), &opts(Path::new("unused"))).unwrap();
    let page = String::from_utf8_lossy(&files["keps/4470/index.html"]).into_owned();
    // 4470 targets beta in v1.36 without a beta PRR approval.
    assert!(
        page.contains(">At risk for PRR freeze</span> in <a href=\"/releases/v1.36/\">v1.36</a>, for <strong>beta</strong>"),
        "{page}"
    );
    assert!(page.contains("no PRR approver for beta"));
    assert!(page.contains("Unanswered for beta"));
    // Each unanswered question links to its line (or the file) in the repository.
    assert!(page.contains("/blob/master/keps/sig-apps/4470-"));
    // Without git there is no history, and the page says so.
    assert!(page.contains("No history"));
    let index = String::from_utf8_lossy(&files["keps/index.html"]).into_owned();
    assert!(index.contains(r#"data-prr="incomplete""#));
    assert!(index.contains(r#"data-prr="complete""#));
}

#[test]
fn keps_json_is_the_export() {
    let (_tmp, root) = crate::support::content_copy();
    let out = root.parent().unwrap().join("public");
    let r = crate::support::kepsite(&[
        "build",
        "--repo",
        root.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--no-cache",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let e = crate::support::kepsite(&["export", "--repo", root.to_str().unwrap()]);
    assert_eq!(e.code, 0, "{}", e.stderr);
    let site: serde_json::Value = serde_json::from_str(&read(&out, "keps.json")).unwrap();
    let export: serde_json::Value = serde_json::from_str(&e.stdout).unwrap();
    assert_eq!(site, export);
    let one = &site
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["number"] == 1480)
        .unwrap();
    assert!(one["analysis"].is_object());
    // one file of records, not one per KEP beside it
    assert!(!out.join("keps/1480/kep.json").exists());
}

#[test]
fn history_feeds_the_timeline_stale_list_and_atom_feed() {
    use crate::support::{content_copy, git, git_commit_all, kepsite};
    let (_tmp, root) = content_copy();
    git_commit_all(&root);
    let yaml = root.join("keps/sig-apps/4470-statefulset-rollout-checkpoints/kep.yaml");
    let before = std::fs::read_to_string(&yaml).unwrap();
    assert!(before.contains("stage: beta"), "{before}");
    std::fs::write(&yaml, before.replace("stage: beta", "stage: stable")).unwrap();
    git(&root, &["commit", "-q", "-am", "4470 goes stable"]);
    let out = root.parent().unwrap().join("public");
    let cache = root.parent().unwrap().join("cache");
    let r = kepsite(&[
        "build",
        "--repo",
        root.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--cache-dir",
        cache.to_str().unwrap(),
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let page = read(&out, "keps/4470/index.html");
    assert!(page.contains(r#"<ol class="timeline">"#), "{page}");
    let timeline = &page[page.find(r#"<ol class="timeline">"#).unwrap()..];
    let stable = timeline.find(">stable<").expect("stable in the timeline");
    let beta = timeline.find(">beta<").expect("beta in the timeline");
    assert!(stable < beta, "newest first");
    let feed = read(&out, "feed.xml");
    assert!(feed.contains("<feed xmlns=\"http://www.w3.org/2005/Atom\">"));
    assert!(feed.contains("stage beta → stable"), "{feed}");
    let first_entry = &feed[feed.find("<entry>").unwrap()..];
    assert!(first_entry.contains("KEP-4470 updated"), "{feed}");
    // --no-history builds the same site without the timeline.
    let r = kepsite(&[
        "build",
        "--repo",
        root.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--no-history",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(!read(&out, "keps/4470/index.html").contains(r#"<ol class="timeline">"#));
    assert!(read(&out, "feed.xml").contains("by their last-updated date"));
}

#[test]
fn build_ends_with_the_command_that_previews_it() {
    let (_tmp, root) = crate::support::content_copy();
    let out = root.parent().unwrap().join("public");
    let theme = root.parent().unwrap().join("my theme");
    std::fs::create_dir_all(&theme).unwrap();
    let r = crate::support::kepsite(&[
        "build",
        "--repo",
        root.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--theme",
        theme.to_str().unwrap(),
        "--no-history",
        "--no-cache",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let last = r.stderr.lines().last().unwrap_or_default();
    let expected = format!(
        "kepsite serve --repo {} --theme '{}'",
        root.display(),
        theme.display()
    );
    assert!(last.ends_with(&expected), "{last}");
    assert!(!r.stderr.contains("file://") && !r.stderr.contains("index.html"));
}

/// `.ci/netlify-build` builds with the site's own URL: Netlify's production
/// URL, or a preview's own, unless KEPSITE_BASE_URL says otherwise.
#[test]
fn netlify_build_uses_the_sites_own_url() {
    let script =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(".ci/netlify-build"))
            .unwrap();
    let start = script.find("base=\"${KEPSITE_BASE_URL:-}\"").unwrap();
    let end = start + script[start..].find("esac").unwrap() + "esac".len();
    assert!(script[end..].contains("--base-url \"$base\""));
    let block = format!("{}\necho \"$base\"", &script[start..end]);
    let base = |env: &[(&str, &str)]| {
        let out = std::process::Command::new("bash")
            .arg("-c")
            .arg(&block)
            .env_clear()
            .envs(env.iter().copied())
            .output()
            .expect("bash runs");
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap().trim().to_string()
    };
    let (site, preview) = (
        ("URL", "https://keps.example.org"),
        (
            "DEPLOY_PRIME_URL",
            "https://deploy-preview-3--keps.netlify.app",
        ),
    );
    assert_eq!(base(&[]), "/");
    assert_eq!(base(&[("KEPSITE_BASE_URL", "/x")]), "/x/");
    assert_eq!(
        base(&[("CONTEXT", "production"), site, preview]),
        "https://keps.example.org/"
    );
    assert_eq!(
        base(&[("CONTEXT", "deploy-preview"), site, preview]),
        "https://deploy-preview-3--keps.netlify.app/"
    );
    assert_eq!(
        base(&[("CONTEXT", "production"), site, ("KEPSITE_BASE_URL", "/")]),
        "/"
    );
}

/// The release report's stylesheet has one copy, a static file: linked from
/// the portal page (whose CSP allows no inline style) and inlined in the
/// self-contained HTML report.
#[test]
fn the_report_stylesheet_has_one_copy_inlined_in_the_standalone_report() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let css = std::fs::read_to_string(root.join("themes/default/static/report.css")).unwrap();
    assert!(css.contains(".kr-wrap"), "{css}");
    assert!(!root.join("themes/default/templates/report.css").exists());
    let run = crate::support::kepsite(&["report", "--release", "v1.36", "--format", "html"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains(css.trim()),
        "the standalone report inlines static/report.css"
    );
}

/// The binary reports through `tracing`: a warning shows on stderr whether
/// or not timings are asked for, and timing lines only when they are.
#[test]
fn the_binary_prints_warnings_always_and_timings_on_request() {
    let (_repo, root) = crate::support::content_copy();
    // a git repository whose HEAD names a commit that is not there: the
    // history walk fails, which is a warning, and the build goes on
    let git = root.join(".git");
    std::fs::create_dir_all(git.join("refs/heads")).unwrap();
    std::fs::create_dir_all(git.join("objects")).unwrap();
    std::fs::write(git.join("HEAD"), "ref: refs/heads/main\n").unwrap();
    std::fs::write(
        git.join("refs/heads/main"),
        format!("{}\n", "12".repeat(20)),
    )
    .unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let run = |timings: bool, out: &str| {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_kepsite"));
        cmd.args(["build", "--repo", root.to_str().unwrap(), "--out"])
            .arg(tmp.path().join(out))
            .arg("--cache-dir")
            .arg(tmp.path().join("cache"))
            .env_remove("KEPSITE_TIMINGS");
        if timings {
            cmd.env("KEPSITE_TIMINGS", "1");
        }
        let r = cmd.output().unwrap();
        let stderr = String::from_utf8_lossy(&r.stderr).into_owned();
        assert!(r.status.success(), "{stderr}");
        stderr
    };
    for (timings, out) in [(false, "a"), (true, "b")] {
        let stderr = run(timings, out);
        let has = |start: &str| stderr.lines().any(|l| l.starts_with(start));
        assert!(has("warning: no history for "), "{stderr}");
        // no timing line at all without KEPSITE_TIMINGS, the load's with it
        assert_eq!(stderr.contains("timing:"), timings, "{stderr}");
        assert_eq!(has("timing: load "), timings, "{stderr}");
    }
}

/// `replaces: n/a`, `superseded-by: [none]` and an empty `see-also` entry
/// name nothing: the KEP page shows them as text, not as links into the
/// repository (`…/blob/master/n/a`); a real reference stays a link.
#[test]
fn placeholder_references_are_text_not_links() {
    let (tmp, root) = crate::support::content_copy();
    let yaml = root.join("keps/sig-node/4321-kubelet-image-pull-progress/kep.yaml");
    let text = std::fs::read_to_string(&yaml).unwrap();
    let text = format!("{text}\nreplaces:\n  - n/a\nsuperseded-by:\n  - none\n");
    std::fs::write(&yaml, text).unwrap();
    let out = tmp.path().join("site");
    let run = crate::support::kepsite(&[
        "build",
        "--repo",
        root.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let page = read(&out, "keps/4321/index.html");
    assert!(
        page.contains("<dt>Replaces</dt><dd>n/a</dd>"),
        "replaces as text"
    );
    assert!(
        page.contains("<dt>Superseded by</dt><dd>none</dd>"),
        "superseded-by as text"
    );
    for href in crate::support::links(&page) {
        assert!(
            !href.ends_with("/n/a") && !href.ends_with("/none"),
            "{href}"
        );
    }
    // The see-also reference to 1480 is still a link to its page.
    assert!(
        page.contains("<dt>See also</dt><dd><a href=\"/keps/1480/\""),
        "see-also link"
    );
}

/// A finding's severity reads by its word and its colour: the findings page
/// tags each row with its severity, and the stylesheet colours errors with
/// the error colour and warnings with the warning colour (not the grey of
/// other tags).
#[test]
fn severity_tags_are_coloured_by_severity() {
    let (_tmp, out) = built();
    let page = read(&out, "findings/index.html");
    assert!(page.contains("<span class=\"tag error\">error</span>"));
    assert!(page.contains("<span class=\"tag warning\">warning</span>"));
    let css = std::fs::read_dir(out.join("static/immutable"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("site.")
        })
        .map(|p| std::fs::read_to_string(p).unwrap())
        .expect("the hashed site.css");
    let rule = |sel: &str| {
        let at = css.find(sel).unwrap_or_else(|| panic!("no {sel} rule"));
        css[at..at + css[at..].find('}').unwrap()].to_string()
    };
    assert!(rule(".tag.error {").contains("var(--err)"));
    assert!(rule(".tag.warning {").contains("var(--warn)"));
}

/// KEP-1480 of `content/` as the single file `keps/sig-node/<legacy>`
/// (`file(kep.yaml, README)` gives its text) in one commit, and back as its
/// directory in the next, where KEP-4321's README links `[<text>](../<legacy>)`.
/// Returns KEP-4321's page built from that history, and the `<a ...` opening
/// of that link.
fn link_after_migration(
    legacy: &str,
    file: impl Fn(&str, &str) -> String,
    text: &str,
) -> (String, String) {
    let (tmp, root) = crate::support::content_copy();
    let dir = root.join("keps/sig-node/1480-pod-restart-budget");
    let saved = tmp.path().join("1480");
    crate::support::copy_tree(&dir, &saved);
    let yaml = std::fs::read_to_string(dir.join("kep.yaml")).unwrap();
    let readme = std::fs::read_to_string(dir.join("README.md")).unwrap();
    let legacy_path = root.join("keps/sig-node").join(legacy);
    std::fs::remove_dir_all(&dir).unwrap();
    std::fs::write(&legacy_path, file(&yaml, &readme)).unwrap();
    crate::support::git_commit_all(&root);
    std::fs::remove_file(&legacy_path).unwrap();
    crate::support::copy_tree(&saved, &dir);
    let other = root.join("keps/sig-node/4321-kubelet-image-pull-progress/README.md");
    let mut readme_4321 = std::fs::read_to_string(&other).unwrap();
    readme_4321.push_str(&format!("\nSee [{text}](../{legacy}).\n"));
    std::fs::write(&other, readme_4321).unwrap();
    crate::support::git(&root, &["add", "-A"]);
    crate::support::git(&root, &["commit", "-qm", "1480 becomes a directory"]);
    let out = tmp.path().join("site");
    let run = crate::support::kepsite(&[
        "build",
        "--repo",
        root.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let page = read(&out, "keps/4321/index.html");
    let at = page
        .find(&format!("{text}</a>"))
        .unwrap_or_else(|| panic!("no link to the old path"));
    let start = page[..at].rfind("<a ").unwrap();
    let anchor = page[start..at].to_string();
    (page, anchor)
}

/// A README link to a path a KEP had before it moved (here a 2019
/// single-file KEP `keps/sig-node/20190101-pod-restart-budget.md` that
/// became `keps/sig-node/1480-pod-restart-budget/`) leads to the KEP's
/// portal page, found in the history, not to the old path on GitHub.
#[test]
fn links_to_a_keps_former_path_stay_on_the_portal() {
    let (page, anchor) = link_after_migration(
        "20190101-pod-restart-budget.md",
        |yaml, readme| format!("---\n{yaml}---\n{readme}"),
        "the old budget KEP",
    );
    // The README's own link (the see-also panel links to 1480 as well).
    assert!(anchor.contains("href=\"/keps/1480/\""), "{anchor}");
    assert!(
        !page.contains("20190101-pod-restart-budget.md\""),
        "a link to the old file is left"
    );
}

/// As above, for a legacy file without a KEP number whose name the
/// migration changed (`20190101-restart-budgets-for-pods.md` became
/// `1480-pod-restart-budget/`, as `20190125-removing-in-tree-providers.md`
/// became `2395-removing-in-tree-cloud-providers/`): the history pairs them
/// by the title the new kep.yaml repeats.
#[test]
fn links_to_a_renamed_unnumbered_legacy_file_stay_on_the_portal() {
    let (_, anchor) = link_after_migration(
        "20190101-restart-budgets-for-pods.md",
        |yaml, _| {
            let unnumbered: String = yaml
                .lines()
                .filter(|l| !l.starts_with("kep-number:"))
                .map(|l| format!("{l}\n"))
                .collect();
            assert_ne!(unnumbered, yaml, "the fixture's kep.yaml has a kep-number");
            format!("---\n{unnumbered}---\n# Budgets\n")
        },
        "the old budgets KEP",
    );
    assert!(anchor.contains("href=\"/keps/1480/\""), "{anchor}");
}
