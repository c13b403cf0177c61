//! Helpers: run the binary, copy `content/` into a temp dir, clone the corpus.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use kepsite::project::{Input, Needs, Project};
use serde_json::Value;

/// The sample repository.
pub fn content() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("content")
}

/// The project of `input` loaded as `check` loads it ([`Needs::files`]:
/// no history, no freeze verdicts at a deadline, every finding), the way
/// the tests read a repository's model, analysis and findings.
pub fn load_files(input: &Input) -> Project {
    Project::load(input, &Needs::files())
        .unwrap_or_else(|e| panic!("loading {}: {e:#}", input.root.display()))
}

/// Output of one kepsite run.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Run the kepsite binary with `args` in `cwd`.
pub fn kepsite_in(cwd: &Path, args: &[&str]) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_kepsite"))
        .args(args)
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .env("XDG_CACHE_HOME", test_cache_home())
        .output()
        .expect("running kepsite");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// The user cache directory the tests' kepsite runs get (not the real one).
pub fn test_cache_home() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("xdg-cache")
}

/// Run kepsite from the crate root.
pub fn kepsite(args: &[&str]) -> Run {
    kepsite_in(Path::new(env!("CARGO_MANIFEST_DIR")), args)
}

/// Copy a directory tree (files and directories only).
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let t = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &t);
        } else {
            std::fs::copy(e.path(), &t).unwrap();
        }
    }
}

/// A temp copy of `content/`; the TempDir must be kept alive.
pub fn content_copy() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("repo");
    copy_tree(&content(), &root);
    (dir, root)
}

/// Run git in `dir`, panicking on failure. Commits are dated from a fixed
/// day (2026-03-02 UTC, one second apart), never the clock: the release in
/// progress is read from the snapshot's commit date, so a test must not
/// depend on when it runs.
pub fn git(dir: &Path, args: &[&str]) -> String {
    static TICK: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let t = 1_772_409_600 + TICK.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let date = format!("@{t} +0000");
    let out = Command::new("git")
        .env("GIT_AUTHOR_DATE", &date)
        .env("GIT_COMMITTER_DATE", &date)
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@example.com",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("running git");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Turn a directory into a git repository with one commit of everything.
pub fn git_commit_all(dir: &Path) {
    git(dir, &["init", "-q"]);
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", "snapshot"]);
}

/// Every file under `root`: `/`-separated relative path → bytes.
pub fn files(root: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                let rel = p
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

/// Undo the HTML escaping of an attribute value.
pub fn unescape(s: &str) -> String {
    s.replace("&#x2F;", "/")
        .replace("&#x27;", "'")
        .replace("&#39;", "'")
        .replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

/// The `href` and `src` attribute values of an HTML page, unescaped.
pub fn links(html: &str) -> Vec<String> {
    let mut out = Vec::new();
    for attr in [" href=\"", " src=\""] {
        let mut rest = html;
        while let Some(i) = rest.find(attr) {
            rest = &rest[i + attr.len()..];
            let end = rest.find('"').unwrap_or(rest.len());
            out.push(unescape(&rest[..end]));
            rest = &rest[end..];
        }
    }
    out
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = (b[i] == b'%')
            .then(|| b.get(i + 1..i + 3))
            .flatten()
            .and_then(|h| u8::from_str_radix(std::str::from_utf8(h).ok()?, 16).ok());
        match hex {
            Some(v) => {
                out.push(v);
                i += 3;
            }
            None => {
                out.push(b[i]);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The output file a link on page `from` names, for a site whose URLs start
/// with `base` (`/`, `/sub/` or `https://host/sub/`). `Ok(None)` for links
/// that leave the site (other hosts, mailto:, fragments only); `Err` for a
/// link that cannot be inside the site at all.
pub fn resolve_link(from: &str, link: &str, base: &str) -> Result<Option<String>, String> {
    let link = link.trim();
    let lower = link.to_ascii_lowercase();
    if link.is_empty() || link.starts_with('#') {
        return Ok(None);
    }
    if lower.starts_with("javascript:") || lower.starts_with("vbscript:") {
        return Err("script or data URL".into());
    }
    let target = link.split(['#', '?']).next().unwrap_or("");
    let (host_base, path_base) = match base.find("://") {
        Some(i) => {
            let after = &base[i + 3..];
            let slash = after.find('/').map(|j| i + 3 + j).unwrap_or(base.len());
            (&base[..slash], &base[slash..])
        }
        None => ("", base),
    };
    let scheme = target.split_once(':').is_some_and(|(s, _)| {
        s.starts_with(|c: char| c.is_ascii_alphabetic())
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    });
    let path = if scheme || target.starts_with("//") {
        // Another site, mailto: and the like, unless it is this site's own host.
        match target.strip_prefix(host_base) {
            Some(p) if !host_base.is_empty() && p.starts_with('/') => p.to_string(),
            _ => return Ok(None),
        }
    } else if target.starts_with('/') {
        target.to_string()
    } else {
        let dir = from.rsplit_once('/').map(|(d, _)| d).unwrap_or("");
        format!(
            "{path_base}{dir}{}{target}",
            if dir.is_empty() { "" } else { "/" }
        )
    };
    let Some(rel) = path.strip_prefix(path_base) else {
        return Err(format!("outside the base {base}"));
    };
    let mut parts: Vec<String> = Vec::new();
    for seg in percent_decode(rel).split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                if parts.pop().is_none() {
                    return Err("climbs above the site root".into());
                }
            }
            s => parts.push(s.to_string()),
        }
    }
    let mut file = parts.join("/");
    if file.is_empty() || path.ends_with('/') {
        if !file.is_empty() {
            file.push('/');
        }
        file.push_str("index.html");
    }
    Ok(Some(file))
}

/// Check every internal `href`/`src` of every HTML page in `files` (a built
/// site whose URLs start with `base`). Returns the number of internal links
/// checked and the broken ones as `page: link (why)`.
pub fn check_links(files: &BTreeMap<String, Vec<u8>>, base: &str) -> (usize, Vec<String>) {
    let mut checked = 0;
    let mut broken = Vec::new();
    for (page, bytes) in files.iter().filter(|(p, _)| p.ends_with(".html")) {
        let html = String::from_utf8_lossy(bytes);
        for link in links(&html) {
            match resolve_link(page, &link, base) {
                Ok(None) => {}
                Ok(Some(file)) => {
                    checked += 1;
                    if !files.contains_key(&file) {
                        broken.push(format!("{page}: {link} (no {file})"));
                    }
                }
                Err(why) => broken.push(format!("{page}: {link} ({why})")),
            }
        }
    }
    (checked, broken)
}

/// `kepsite check --repo ROOT ARGS…`.
pub fn check_repo(root: &Path, args: &[&str]) -> Run {
    let mut all = vec!["check", "--repo", root.to_str().unwrap()];
    all.extend_from_slice(args);
    kepsite(&all)
}

/// The (rule, path) of each finding in `check --format json` output.
pub fn rules_and_paths(stdout: &str) -> Vec<(String, String)> {
    let v: Value = serde_json::from_str(stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_string(),
                f["path"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// Every KEP row of a `report --format json`, across groups and SIGs.
pub fn report_rows(r: &Value) -> Vec<&Value> {
    r["groups"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|g| g["sigs"].as_array().unwrap())
        .flat_map(|s| s["keps"].as_array().unwrap())
        .collect()
}
