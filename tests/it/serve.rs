//! `kepsite serve`: the binary on an ephemeral port against a temp copy of
//! `content/`, fetched over a plain TCP stream (so request targets go out
//! exactly as written, `..` and all).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::support::content_copy;

pub(crate) use crate::serve_process::*;

const KEP: &str = "keps/sig-node/1480-pod-restart-budget";

#[test]
fn serves_pages_types_etags_head_and_404() {
    let s = start(&[]);
    let home = s.get("/");
    assert_eq!(home.status, 200);
    assert_eq!(
        home.header("content-type"),
        Some("text/html; charset=utf-8")
    );
    assert!(home.text().contains("Kubernetes Enhancement Proposals"));
    // The reload script is injected in serve mode, before </body>.
    let text = home.text();
    let script = text.find("id=\"kepsite-reload\"").expect("reload script");
    assert!(script < text.rfind("</body>").unwrap());
    assert!(!text.contains("kepsite-overlay"));
    // Every stylesheet and script the page links is served.
    let mut linked = 0;
    for part in text.split("href=\"").chain(text.split("src=\"")).skip(1) {
        let url = &part[..part.find('"').unwrap()];
        if url.starts_with("/static/") {
            assert_eq!(s.get(url).status, 200, "{url}");
            linked += 1;
        }
    }
    assert!(linked >= 2, "the home page links its stylesheets");

    let kep = s.get("/keps/1480/");
    assert_eq!(kep.status, 200);
    assert!(kep.text().contains("Pod restart budget"));
    let redirect = s.get("/keps/1480");
    assert_eq!(redirect.status, 301);
    assert_eq!(redirect.header("location"), Some("/keps/1480/"));
    // a KEP's directory path, as _redirects sends it
    for old in [
        "/keps/sig-node/1480-pod-restart-budget/",
        "/keps/sig-node/1480-pod-restart-budget",
    ] {
        let moved = s.get(old);
        assert_eq!(moved.status, 301, "{old}");
        assert_eq!(moved.header("location"), Some("/keps/1480/"), "{old}");
    }
    assert_eq!(s.get("/keps/sig-node/99999-nothing/").status, 404);
    assert_eq!(s.get("/keps/1480-pod-restart-budget/").status, 404);

    for (path, ty) in [
        ("/static/site.css", "text/css; charset=utf-8"),
        ("/static/search.js", "text/javascript; charset=utf-8"),
        ("/keps.json", "application/json"),
        ("/sitemap.xml", "application/xml"),
        ("/search/meta.json", "application/json"),
    ] {
        let r = s.get(path);
        assert_eq!(r.status, 200, "{path}");
        assert_eq!(r.header("content-type"), Some(ty), "{path}");
        assert_eq!(r.header("x-content-type-options"), Some("nosniff"));
    }

    // ETag → 304, for a static file and for a page.
    for path in ["/static/site.css", "/keps/1480/"] {
        let first = s.get(path);
        let etag = first.header("etag").expect("an ETag").to_string();
        let again = request(&s.addr, "GET", path, &[("If-None-Match", &etag)]);
        assert_eq!(again.status, 304, "{path}");
        assert!(again.body.is_empty());
        let other = request(&s.addr, "GET", path, &[("If-None-Match", "\"nope\"")]);
        assert_eq!(other.status, 200);
    }

    // HEAD: the headers of GET, no body.
    let head = request(&s.addr, "HEAD", "/static/site.css", &[]);
    let get = s.get("/static/site.css");
    assert_eq!(head.status, 200);
    assert!(head.body.is_empty());
    assert_eq!(
        head.header("content-length").unwrap(),
        get.body.len().to_string()
    );
    assert_eq!(head.header("etag"), get.header("etag"));

    // The site's own 404 page, with a 404 status.
    let missing = s.get("/no/such/page/");
    assert_eq!(missing.status, 404);
    assert!(missing.text().contains("<html"));
    assert_eq!(missing.text(), s.get("/keps/99999/").text());

    let post = request(&s.addr, "POST", "/", &[("Content-Length", "0")]);
    assert_eq!(post.status, 405);
}

#[test]
fn build_output_has_no_reload_script() {
    let (dir, root) = content_copy();
    let out = dir.path().join("public");
    let r = crate::support::kepsite(&[
        "build",
        "--repo",
        root.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let home = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(!home.contains("kepsite-reload"));
    assert!(!home.contains("__kepsite"));
}

#[test]
fn traversal_in_every_form_is_refused() {
    let s = start(&[]);
    for target in [
        "/../../../../etc/passwd",
        "/keps/../../etc/passwd",
        "/%2e%2e/%2e%2e/etc/passwd",
        "/%2E%2E/etc/passwd",
        "/keps/%2e%2e%2f%2e%2e%2fetc%2fpasswd",
        "/..%2f..%2f..%2fetc%2fpasswd",
        "/static%2f..%2f..%2fCargo.toml",
        "/keps/..%5c..%5cetc%5cpasswd",
        "/keps\\..\\..\\etc\\passwd",
        "//etc/passwd",
        "http://localhost/etc/passwd",
        "/index.html%00.css",
        "/./index.html",
    ] {
        let r = s.get(target);
        assert!(r.status == 400 || r.status == 404, "{target}: {}", r.status);
        assert!(!r.text().contains("root:"), "{target} leaked a file");
    }
    for target in [
        "/etc/passwd",
        "/.kepsite-build",
        "/.git/config",
        "/keps/.hidden",
        "/%2egit/config",
        "/%252e%252e/%252e%252e/etc/passwd",
        "/content/keps/sig-node/1480-pod-restart-budget/kep.yaml",
    ] {
        let r = s.get(target);
        assert_eq!(r.status, 404, "{target}");
    }
    // The server is still serving afterwards.
    assert_eq!(s.get("/").status, 200);
}

#[test]
fn a_readme_edit_is_served_and_signalled() {
    let mut s = start(&[]);
    let readme = format!("{KEP}/README.md");
    let before = s.get("/keps/1480/");
    let etag = before.header("etag").unwrap().to_string();
    let mut text = std::fs::read_to_string(s.root.join(&readme)).unwrap();
    text.push_str("\n\nQuetzalcoatl rollout paragraph for the preview test.\n");
    let signal = s.edit_and_wait(&readme, &text);
    assert_eq!(signal["css_only"], false);
    assert_eq!(signal["problems_changed"], false);
    assert_eq!(signal["problems"].as_array().unwrap().len(), 0);
    // The first signal names the KEP's page, so only that page reloads.
    let changed: Vec<&str> = signal["changed"]
        .as_array()
        .expect("the changed paths")
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(changed.contains(&"keps/1480/index.html"), "{signal}");
    assert!(!changed.contains(&"index.html"), "{signal}");
    let after = s.get("/keps/1480/");
    assert!(after.text().contains("Quetzalcoatl rollout paragraph"));
    assert_ne!(after.header("etag").unwrap(), etag);
    // The old ETag no longer matches.
    let r = request(&s.addr, "GET", "/keps/1480/", &[("If-None-Match", &etag)]);
    assert_eq!(r.status, 200);
    // Once the full update is done, the search index knows the new word.
    s.expect_log("rebuilt in");
    let meta: serde_json::Value = serde_json::from_slice(&s.get("/search/meta.json").body).unwrap();
    let n = meta["shards"]
        .as_array()
        .unwrap()
        .iter()
        .position(|k| k.as_str().unwrap().split(' ').any(|k| k == "qu"))
        .expect("a term file holds \"qu\"");
    let shard = s.get(&format!("/search/t/{n}.json"));
    assert!(shard.text().contains("quetzalcoatl"));
    // A page that is generations behind is told to reload whatever changed.
    let stale = s.get("/__kepsite/events?since=0");
    let v: serde_json::Value = serde_json::from_slice(&stale.body).unwrap();
    assert!(v["changed"].is_null(), "{v}");
}

#[test]
fn an_edited_attachment_is_served_again_without_reloading_the_repository() {
    let mut s = start(&[]);
    let svg = format!("{KEP}/diagram.svg");
    let before = s.get("/keps/1480/diagram.svg");
    assert_eq!(before.status, 200);
    let text = "<svg xmlns=\"http://www.w3.org/2000/svg\"><title>Xylophone edit</title></svg>\n";
    let signal = s.edit_and_wait(&svg, text);
    let changed: Vec<&str> = signal["changed"]
        .as_array()
        .expect("the changed paths")
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(changed, ["keps/1480/diagram.svg"], "{signal}");
    let after = s.get("/keps/1480/diagram.svg");
    assert!(after.text().contains("Xylophone edit"), "{}", after.text());
    let log = s.wait_log(|l| l.contains("rebuilt in"), Duration::from_secs(30));
    assert!(!log.contains("repository reloaded"), "{log}");
    // A kep.yaml edit, by contrast, loads the project again.
    let yaml = format!("{KEP}/kep.yaml");
    let old = std::fs::read_to_string(s.root.join(&yaml)).unwrap();
    let new = old.replace("title: ", "title: Zeppelin ");
    assert_ne!(old, new);
    s.edit_and_wait(&yaml, &new);
    let log = s.wait_log(
        |l| l.contains("repository reloaded"),
        Duration::from_secs(30),
    );
    assert!(log.contains("rebuilt in"), "{log}");
    assert!(s.get("/keps/1480/").text().contains("Zeppelin "));
}

/// A served page without what serve injects (overlay and reload script).
fn uninjected(t: &str) -> &str {
    let cut = [
        "<div id=\"kepsite-overlay\"",
        "<script id=\"kepsite-reload\"",
    ]
    .iter()
    .filter_map(|m| t.find(m))
    .min()
    .unwrap_or(t.len());
    &t[..cut]
}

#[test]
fn a_broken_kep_yaml_shows_an_overlay_and_recovers() {
    let mut s = start(&[]);
    let yaml = format!("{KEP}/kep.yaml");
    let good = std::fs::read_to_string(s.root.join(&yaml)).unwrap();
    let title_before = s.get("/keps/1480/").text();
    let signal = s.edit_and_wait(&yaml, "title: [unclosed\nkep-number: 1480\n");
    let problems = signal["problems"].as_array().unwrap();
    assert_eq!(problems.len(), 1, "{signal}");
    assert!(
        problems[0]["subject"]
            .as_str()
            .unwrap()
            .ends_with("kep.yaml")
    );

    // Every page carries the overlay; the KEP page is the last good one.
    let page = s.get("/keps/1480/").text();
    assert!(page.contains("id=\"kepsite-overlay\""));
    assert!(page.contains("does not parse as YAML"));
    assert!(s.get("/").text().contains("id=\"kepsite-overlay\""));
    assert_eq!(uninjected(&page), uninjected(&title_before));

    // Fixing it clears the overlay.
    let signal = s.edit_and_wait(&yaml, &good);
    assert_eq!(signal["problems"].as_array().unwrap().len(), 0, "{signal}");
    assert!(!s.get("/keps/1480/").text().contains("kepsite-overlay"));

    // An edit to the fixed file is served.
    let renamed = good.replacen("title: ", "title: Renamed Budget Title ", 1);
    assert_ne!(renamed, good, "the sample kep.yaml has a title line");
    s.edit_and_wait(&yaml, &renamed);
    assert!(s.get("/keps/1480/").text().contains("Renamed Budget Title"));
    assert!(s.get("/keps/").text().contains("Renamed Budget Title"));
    s.expect_log("fixed:");
}

fn theme_with_override(dir: &Path) -> PathBuf {
    let theme = dir.join("theme");
    std::fs::create_dir_all(theme.join("templates")).unwrap();
    theme
}

#[test]
fn a_broken_template_shows_an_overlay_and_recovers() {
    let (dir, root) = content_copy();
    let theme = theme_with_override(dir.path());
    let default_kep =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("themes/default/templates/kep.html");
    let good = std::fs::read_to_string(&default_kep).unwrap();
    std::fs::write(theme.join("templates/kep.html"), &good).unwrap();
    let theme_arg = theme.to_str().unwrap().to_string();
    let s = start_in(dir, root, &["--theme", &theme_arg]);
    let before = s.get("/keps/1480/").text();

    let kep_html = theme.join("templates/kep.html");
    let since = s.generation();
    let rx = s.poll(since);
    std::thread::sleep(Duration::from_millis(100));
    std::fs::write(
        &kep_html,
        "{% extends \"base.html\" %}{% block main %}{% if %}{% endblock main %}",
    )
    .unwrap();
    let signal = rx.recv_timeout(Duration::from_secs(60)).unwrap();
    let problems = signal["problems"].as_array().unwrap();
    assert_eq!(problems.len(), 1, "{signal}");
    assert_eq!(problems[0]["subject"], "theme");
    let page = s.get("/keps/1480/").text();
    assert!(page.contains("kepsite-overlay"));
    assert!(page.contains("kep.html"), "the overlay names the template");
    // The last good page is still there.
    assert_eq!(uninjected(&page), uninjected(&before));

    // A template change that is valid re-renders the pages using it.
    let since = s.generation();
    let rx = s.poll(since);
    std::thread::sleep(Duration::from_millis(100));
    let marked = good.replacen(
        "{% block main %}",
        "{% block main %}<p>Theme marker 7731</p>",
        1,
    );
    assert_ne!(marked, good);
    std::fs::write(&kep_html, &marked).unwrap();
    let signal = rx.recv_timeout(Duration::from_secs(60)).unwrap();
    assert_eq!(signal["problems"].as_array().unwrap().len(), 0, "{signal}");
    assert!(s.get("/keps/1480/").text().contains("Theme marker 7731"));
    assert!(!s.get("/").text().contains("Theme marker 7731"));

    // A stylesheet change is signalled as CSS-only.
    std::fs::create_dir_all(theme.join("static")).unwrap();
    let since = s.generation();
    let rx = s.poll(since);
    std::thread::sleep(Duration::from_millis(100));
    let css = Path::new(env!("CARGO_MANIFEST_DIR")).join("themes/default/static/site.css");
    let mut css = std::fs::read_to_string(css).unwrap();
    css.push_str("\n.kepsite-test-marker { color: red }\n");
    std::fs::write(theme.join("static/site.css"), css).unwrap();
    let signal = rx.recv_timeout(Duration::from_secs(60)).unwrap();
    assert_eq!(signal["css_only"], true, "{signal}");
    assert!(
        s.get("/static/site.css")
            .text()
            .contains("kepsite-test-marker")
    );
}

#[test]
fn defaults_bind_loopback_and_warn_beyond_it() {
    let s = start(&[]);
    assert!(s.addr.starts_with("127.0.0.1:"), "{}", s.addr);
    drop(s);
    let (dir, root) = content_copy();
    let mut wide = start_in(dir, root, &["--bind", "0.0.0.0"]);
    wide.wait_log(
        |l| l.contains("warning") && l.contains("loopback"),
        Duration::from_secs(30),
    );
    let port = wide.addr.rsplit(':').next().unwrap().to_string();
    assert_eq!(
        request(&format!("127.0.0.1:{port}"), "GET", "/", &[]).status,
        200
    );
}

#[test]
fn ctrl_c_exits_cleanly() {
    let mut s = start(&[]);
    // Park a poll so shutdown has something to answer.
    let rx = s.poll(s.generation());
    std::thread::sleep(Duration::from_millis(100));
    let pid = s.child.id().to_string();
    let ok = Command::new("kill").args(["-INT", &pid]).status().unwrap();
    assert!(ok.success());
    let end = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(st) = s.child.try_wait().unwrap() {
            break st;
        }
        assert!(Instant::now() < end, "serve did not exit after SIGINT");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(status.code(), Some(0));
    s.wait_log(|l| l.contains("stopping"), Duration::from_secs(5));
    assert!(
        rx.recv_timeout(Duration::from_secs(10)).is_ok(),
        "the parked poll was answered"
    );
}

#[test]
fn bad_arguments_exit_2() {
    let r = crate::support::kepsite(&["serve", "--repo", "/no/such/dir", "--port", "0"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    let r = crate::support::kepsite(&["serve", "--bind", "not-an-ip"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
}

/// Issue 17, finding 7: a redirect from a directory with a non-ASCII name
/// panicked a worker (`expect("valid header")`); eight of them stopped serve.
#[test]
fn redirects_to_non_ascii_directories_are_encoded() {
    let (dir, root) = content_copy();
    let from = root.join("keps/sig-node/5833-node-power-profiles");
    let to = root.join("keps/sig-node/5833-node-power-profilé");
    std::fs::rename(&from, &to).unwrap();
    let s = start_in(dir, root, &[]);
    for _ in 0..12 {
        let r = request(
            &s.addr,
            "GET",
            "/keps/sig-node/5833-node-power-profil%C3%A9?x=%C3%A9",
            &[],
        );
        assert_eq!(r.status, 301, "{}", r.text());
        // the KEP's directory path goes to its page, the query kept
        assert_eq!(r.header("location"), Some("/keps/5833/?x=%C3%A9"));
    }
    let page = s.get("/keps/5833/");
    assert_eq!(page.status, 200);
    assert_eq!(s.get("/").status, 200, "serve still answers");
}

/// `serve` reads its input as every subcommand does: `--rev` serves that
/// commit (an uncommitted edit is not in it, and nothing is watched) and
/// `--current` names the release in progress. `/kep/<n>` redirects to the
/// KEP's page, as netlify.toml does on the published site.
#[test]
fn serves_a_revision_with_the_current_release_and_short_links() {
    let (dir, root) = content_copy();
    crate::support::git_commit_all(&root);
    let yaml = root.join(format!("{KEP}/kep.yaml"));
    let text = std::fs::read_to_string(&yaml).unwrap();
    let edited = text.replacen("title: ", "title: Uncommitted Title ", 1);
    assert_ne!(edited, text);
    std::fs::write(&yaml, edited).unwrap();
    let mut s = start_in(dir, root, &["--rev", "HEAD", "--current", "v1.30"]);
    s.expect_log("nothing to watch");
    let page = s.get("/keps/1480/");
    assert_eq!(page.status, 200);
    assert!(!page.text().contains("Uncommitted Title"));
    assert!(s.get("/").text().contains("v1.30, the release in progress"));
    for target in ["/kep/1480", "/kep/1480/"] {
        let r = s.get(target);
        assert_eq!(r.status, 301, "{target}");
        assert_eq!(r.header("Location"), Some("/keps/1480/"), "{target}");
    }
    assert_eq!(s.get("/kep/999999").status, 404);
    assert_eq!(s.get("/kep/abc").status, 404);
}

/// Issue 37: with the default loopback bind, a request naming another host
/// (a page elsewhere pointing its own name at 127.0.0.1: DNS rebinding) is
/// refused with 421; loopback names with or without the port are served.
#[test]
fn a_foreign_host_is_refused_on_loopback() {
    let s = start(&[]);
    let port = s.addr.rsplit(':').next().unwrap().to_string();
    for host in [
        "evil.example",
        "evil.example:80",
        &format!("127.0.0.1.nip.io:{port}"),
    ] {
        let r = request_as(&s.addr, host, "GET", "/", &[]);
        assert_eq!(r.status, 421, "Host: {host}");
        assert!(!r.text().contains("<html"), "Host: {host}");
    }
    for host in [
        format!("127.0.0.1:{port}"),
        format!("localhost:{port}"),
        "localhost".to_string(),
        format!("[::1]:{port}"),
    ] {
        assert_eq!(
            request_as(&s.addr, &host, "GET", "/", &[]).status,
            200,
            "Host: {host}"
        );
    }
}

/// Issue 37: a directory symlink out of the repository (`keps/sig-node/x ->
/// /`) is neither read nor watched: serve starts, serves and reloads as
/// usual (it used to exit on a permission error under /proc after printing
/// its address, or set tens of thousands of watches).
#[cfg(unix)]
#[test]
fn a_symlink_out_of_the_repository_is_not_followed() {
    let (dir, root) = content_copy();
    std::os::unix::fs::symlink("/", root.join("keps/sig-node/x")).unwrap();
    let mut s = start_in(dir, root, &[]);
    assert_eq!(s.get("/").status, 200);
    assert_eq!(s.get("/keps/1480/").status, 200);
    let readme = format!("{KEP}/README.md");
    let mut text = std::fs::read_to_string(s.root.join(&readme)).unwrap();
    text.push_str("\n\nAxolotl paragraph written after the symlink.\n");
    s.edit_and_wait(&readme, &text);
    assert!(s.get("/keps/1480/").text().contains("Axolotl paragraph"));
    assert!(
        s.child.try_wait().unwrap().is_none(),
        "serve is still running"
    );
}
