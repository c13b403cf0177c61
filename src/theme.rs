//! Themes: the embedded default theme plus an optional directory that
//! overrides it file by file → [`Theme`] (a Tera instance with autoescape on
//! for every `.html`/`.xml` template, and the static files to copy).

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use anyhow::{Context, Result};
use include_dir::{Dir, include_dir};
use tera::Tera;

static DEFAULT: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/themes/default");

/// Templates and static files ready to use.
pub struct Theme {
    /// The template engine with every template loaded.
    pub tera: Tera,
    /// `static/` files: path relative to `static/` → bytes.
    pub statics: BTreeMap<String, Vec<u8>>,
    /// Template sources by name (`kep.html`), to tell what a theme edit changed.
    pub sources: BTreeMap<String, String>,
}

fn collect(dir: &Dir<'static>, out: &mut BTreeMap<String, Vec<u8>>) {
    for f in dir.files() {
        out.insert(
            f.path().to_string_lossy().replace('\\', "/"),
            f.contents().to_vec(),
        );
    }
    for d in dir.dirs() {
        collect(d, out);
    }
}

fn collect_disk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) -> Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .with_context(|| format!("reading theme directory {}", dir.display()))?
        .collect::<std::result::Result<_, _>>()?;
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let path = e.path();
        let ft = e.file_type()?;
        if ft.is_dir() {
            collect_disk(root, &path, out)?;
        } else if ft.is_file() {
            let rel = path
                .strip_prefix(root)
                .map(|p| p.to_string_lossy().replace('\\', "/"))
                .unwrap_or_default();
            let bytes =
                std::fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
            out.insert(rel, bytes);
        }
    }
    Ok(())
}

/// Load the default theme, with files from `dir` replacing or adding to it.
pub fn load(dir: Option<&Path>) -> Result<Theme> {
    let mut files = BTreeMap::new();
    collect(&DEFAULT, &mut files);
    if let Some(dir) = dir {
        collect_disk(dir, dir, &mut files)?;
    }
    let mut templates = Vec::new();
    let mut statics = BTreeMap::new();
    for (path, bytes) in files {
        if let Some(name) = path.strip_prefix("templates/") {
            let text = String::from_utf8(bytes)
                .with_context(|| format!("theme template {path} is not UTF-8"))?;
            templates.push((name.to_string(), text));
        } else if let Some(name) = path.strip_prefix("static/") {
            // A stylesheet can also be inlined: `{% include "static/x.css" %}`
            // (the self-contained report), from the one copy of it; one
            // with template syntax in it cannot be, and is only linked.
            if name.ends_with(".css")
                && let Ok(text) = std::str::from_utf8(&bytes)
                && !["{{", "{%", "{#"].iter().any(|t| text.contains(t))
            {
                templates.push((path.clone(), text.to_string()));
            }
            statics.insert(name.to_string(), bytes);
        }
    }
    let sources: BTreeMap<String, String> = templates.iter().cloned().collect();
    let mut tera = Tera::default();
    tera.autoescape_on(vec![".html", ".xml"]);
    tera.set_escape_fn(crate::escape::html);
    tera.add_raw_templates(templates)
        .context("loading theme templates")?;
    Ok(Theme {
        tera,
        statics,
        sources,
    })
}

/// Directory under `static/` holding the content-hashed copies of the static
/// files. Their names change whenever their bytes do, so a host may cache them
/// forever (see netlify.toml). A build writes only these copies (the
/// theme's `static/<name>` files are not copied under their own names: a
/// template links them with `static_url`); `serve` serves the plain names.
pub const IMMUTABLE_DIR: &str = "immutable";

impl Theme {
    /// Content-hashed copies of every static file
    /// (`static/immutable/site.3f9a1c2e07.css` → bytes), and the template
    /// function `static_url(name="site.css")` giving the URL of a copy under
    /// `base`. An unknown name is a template error, so a broken reference fails
    /// the build instead of shipping a dead link.
    pub fn fingerprint(&mut self, base: &str) -> BTreeMap<String, Vec<u8>> {
        let mut urls = HashMap::new();
        let mut files = BTreeMap::new();
        for (name, bytes) in &self.statics {
            let path = format!("static/{IMMUTABLE_DIR}/{}", hashed_name(name, bytes));
            urls.insert(name.clone(), format!("{base}{path}"));
            files.insert(path, bytes.clone());
        }
        self.tera.register_function(
            "static_url",
            move |args: &HashMap<String, tera::Value>| -> tera::Result<tera::Value> {
                let name = args.get("name").and_then(|v| v.as_str()).ok_or_else(|| {
                    tera::Error::msg("static_url needs name=\"<file in static/>\"")
                })?;
                urls.get(name)
                    .map(|u| tera::Value::String(u.clone()))
                    .ok_or_else(|| {
                        tera::Error::msg(format!("static_url: the theme has no static/{name}"))
                    })
            },
        );
        files
    }
}

/// `dir/name.ext` → `dir/name.<hash>.ext`, with 40 bits of the bytes'
/// [`crate::hash`] (stable, so builds stay byte-identical).
fn hashed_name(name: &str, bytes: &[u8]) -> String {
    let h = crate::hash::hash64(bytes);
    let hash = format!("{:010x}", h >> 24);
    let (dir, file) = match name.rsplit_once('/') {
        Some((d, f)) => (format!("{d}/"), f),
        None => (String::new(), name),
    };
    match file.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() => format!("{dir}{stem}.{hash}.{ext}"),
        _ => format!("{dir}{file}.{hash}"),
    }
}
