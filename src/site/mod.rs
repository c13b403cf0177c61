//! The static site: [`Model`] + findings + [`SiteOptions`] → files, in memory
//! ([`render_to_memory`], for `serve`) or on disk ([`build`] → [`BuildReport`]).
//!
//! [`plan::plan`] describes every output as data; the pages are rendered in
//! parallel through the theme, then written into a staging tree beside
//! `--out` that is swapped in only once complete, so a failed build leaves
//! the previous site untouched. On disk, each KEP's pages are rendered and
//! written as soon as they are planned ([`plan::plan_streaming`]), so the
//! READMEs' HTML is never all held at once.

pub mod assets;
pub mod charts;
pub mod dashboards;
pub mod feed;
pub mod highlight;
pub mod links;
mod manifest;
pub mod markdown;
mod memo;
pub mod output;
pub mod pages;
pub mod plan;
mod readme_cache;
pub mod sanitize;
pub mod search;

pub mod view;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::{Context, Result};
use rayon::prelude::*;

use crate::project::Project;
use crate::theme;
use crate::timing::timed;
pub use plan::{Page, Plan, Template};

/// Days without a commit after which an open KEP counts as stale.
pub const STALE_DAYS: i64 = 365;

/// The file every build writes at its root; only directories holding it are replaced.
pub const MARKER: &str = ".kepsite-build";

/// How to build the site.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SiteOptions {
    /// Output directory.
    pub out: PathBuf,
    /// URL prefix of every link, ending in `/` (`/` by default).
    pub base_url: String,
    /// A theme directory overriding the default theme file by file.
    pub theme: Option<PathBuf>,
    /// Repository URL for source and edit links.
    pub repo_url: String,
    /// Branch for source and edit links.
    pub branch: String,
    /// Where to keep the highlighted code, the rendered READMEs and the
    /// manifest of the output's files between builds (`None`: no cache).
    pub cache_dir: Option<PathBuf>,
    /// Keep the replaced site beside `out` and reuse it as the next build's
    /// staging tree, so that a rebuild rewrites only what changed.
    pub reuse_previous: bool,
    /// Render every README and page, reusing no rendering from the cache
    /// (with a cache: the rendered READMEs and what each page's inputs
    /// rendered to are neither read nor written).
    pub render_all: bool,
}

impl Default for SiteOptions {
    fn default() -> Self {
        SiteOptions {
            out: PathBuf::from("public"),
            base_url: "/".into(),
            theme: None,
            repo_url: "https://github.com/kubernetes/enhancements".into(),
            branch: "master".into(),
            cache_dir: None,
            reuse_previous: true,
            render_all: false,
        }
    }
}

/// What a build wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BuildReport {
    /// HTML pages.
    pub pages: usize,
    /// All files, pages included.
    pub files: usize,
    /// Total bytes.
    pub bytes: u64,
}

fn normalized(opts: &SiteOptions) -> SiteOptions {
    let mut o = opts.clone();
    if !o.base_url.ends_with('/') {
        o.base_url.push('/');
    }
    o.repo_url = o.repo_url.trim_end_matches('/').to_string();
    o
}

/// Render the whole site into memory: output path → bytes.
pub fn render_to_memory(data: &Project, opts: &SiteOptions) -> Result<BTreeMap<String, Vec<u8>>> {
    let (
        theme,
        Prepared {
            pages,
            mut files,
            assets,
        },
    ) = prepare(data, opts)?;
    read_assets(data, assets, &mut files)?;
    let rendered: Vec<(String, Vec<u8>)> = timed("templates", || {
        pages
            .into_par_iter()
            .map(|p| render_page(&theme.tera, p))
            .collect::<Result<_>>()
    })?;
    let mut out: BTreeMap<String, Vec<u8>> = rendered.into_iter().collect();
    out.extend(files);
    Ok(out)
}

/// Read `assets` (output path, repository path) into `files`.
fn read_assets(
    data: &Project,
    assets: Vec<(String, String)>,
    files: &mut BTreeMap<String, Vec<u8>>,
) -> Result<()> {
    let repo_paths: Vec<String> = assets.iter().map(|(_, r)| r.clone()).collect();
    let mut bytes = timed("assets", || assets::read(&data.model.source, &repo_paths))?;
    for (out_path, repo_path) in assets {
        if let Some(b) = bytes.remove(&repo_path) {
            files.insert(out_path, b);
        }
    }
    Ok(())
}

/// A planned site: the pages still to render, every other output file, and
/// the KEP directories' assets still to copy (output path, repository path).
struct Prepared {
    pages: Vec<Page>,
    files: BTreeMap<String, Vec<u8>>,
    assets: Vec<(String, String)>,
}

/// The theme with the highlighting stylesheet among its static files, and
/// the content-hashed copies of those files (by output path).
fn load_theme(opts: &SiteOptions) -> Result<(theme::Theme, BTreeMap<String, Vec<u8>>)> {
    let mut theme = timed("theme", || theme::load(opts.theme.as_deref()))?;
    theme
        .statics
        .entry("highlight.css".into())
        .or_insert_with(|| highlight::stylesheet().into_bytes());
    let hashed = theme.fingerprint(&opts.base_url);
    Ok((theme, hashed))
}

/// Where the manifest of `opts.out`'s files lives: in the cache directory,
/// named after the output directory's absolute path (none without a cache
/// or without reuse).
fn manifest_file(opts: &SiteOptions) -> Option<PathBuf> {
    let dir = opts.cache_dir.as_ref().filter(|_| opts.reuse_previous)?;
    let out = std::path::absolute(&opts.out).ok()?;
    let key = crate::hash::hash64(out.as_os_str().as_encoded_bytes());
    Some(dir.join(format!("site-{key:016x}.manifest")))
}

fn highlighter(opts: &SiteOptions) -> highlight::Highlighter {
    match &opts.cache_dir {
        Some(dir) => highlight::Highlighter::with_cache(dir),
        None => highlight::Highlighter::new(),
    }
}

fn save_highlights(hl: &highlight::Highlighter) {
    if let Err(e) = hl.save() {
        crate::timing::warn(format_args!("could not save the highlight cache: {e}"));
    }
}

/// Plan the site into memory, the theme parsed beside the plan (which never
/// looks at it).
fn prepare(data: &Project, opts: &SiteOptions) -> Result<(theme::Theme, Prepared)> {
    let opts = normalized(opts);
    let hl = highlighter(&opts);
    let (theme, plan) = rayon::join(
        || load_theme(&opts),
        || timed("plan", || plan::plan(data, &opts, &hl)),
    );
    let (mut theme, hashed) = theme?;
    save_highlights(&hl);
    let prepared = arrange(plan, std::mem::take(&mut theme.statics), hashed);
    Ok((theme, prepared))
}

/// Every output of `plan` and the theme, with no path twice: a file wins
/// over a page and an asset, as a static file wins over all; a page (kept or
/// already written) wins over an asset.
fn arrange(
    plan: Plan,
    statics: BTreeMap<String, Vec<u8>>,
    hashed: BTreeMap<String, Vec<u8>>,
) -> Prepared {
    let mut files = plan.files;
    for (name, bytes) in statics {
        files.insert(format!("static/{name}"), bytes);
    }
    files.extend(hashed);
    let mut pages = plan.pages;
    pages.retain(|p| !files.contains_key(&p.path));
    let page_paths: std::collections::BTreeSet<&str> = pages
        .iter()
        .map(|p| p.path.as_str())
        .chain(plan.streamed.iter().map(|(p, _)| p.as_str()))
        .collect();
    let assets = plan
        .assets
        .into_iter()
        .filter(|(out, _)| !page_paths.contains(out.as_str()) && !files.contains_key(out))
        .collect();
    Prepared {
        pages,
        files,
        assets,
    }
}

/// Render one planned page through the theme's templates (or as JSON): its path and bytes.
pub fn render_page(tera: &tera::Tera, page: Page) -> Result<(String, Vec<u8>)> {
    let Page {
        path,
        template,
        context,
    } = page;
    let bytes = match template {
        Template::Json => {
            serde_json::to_vec_pretty(&context).with_context(|| format!("encoding {path}"))?
        }
        Template::Tera(name) => {
            let ctx =
                tera::Context::from_value(context).with_context(|| format!("context of {path}"))?;
            tera.render(name, &ctx)
                .map(String::into_bytes)
                .map_err(|e| anyhow::anyhow!("rendering {path} with {name}: {}", chain(&e)))?
        }
    };
    Ok((path, bytes))
}

fn chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cur = e.source();
    while let Some(c) = cur {
        s.push_str(": ");
        s.push_str(&c.to_string());
        cur = c.source();
    }
    s
}

/// Build the site into `opts.out`.
///
/// The files are written into a staging tree beside `out` and swapped in when
/// complete (see [`output`]). A non-empty `out` without the [`MARKER`] file is
/// refused. Each KEP's pages are rendered and written as soon as they are
/// planned; the rest once the plan is complete. The build takes `data`: each
/// README is freed once rendered.
pub fn build(data: Project, opts: &SiteOptions) -> Result<BuildReport> {
    output::check_replaceable(&opts.out)?;
    let opts = normalized(opts);
    let (theme, hashed) = load_theme(&opts)?;
    let stage = timed("stage", || {
        output::Stage::open(&opts.out, opts.reuse_previous, manifest_file(&opts))
    })?;
    match write_into(&stage, data, &opts, theme, hashed) {
        Ok(()) => stage.finish(),
        Err(e) => {
            stage.abandon();
            Err(e)
        }
    }
}

/// Plan, render and write the whole site into `stage`.
fn write_into(
    stage: &output::Stage,
    mut data: Project,
    opts: &SiteOptions,
    mut theme: theme::Theme,
    hashed: BTreeMap<String, Vec<u8>>,
) -> Result<()> {
    let readmes = data.take_readmes();
    let data = &data;
    let hl = highlighter(opts);
    let statics = std::mem::take(&mut theme.statics);
    // With a manifest, a page whose inputs are unchanged is not rendered again.
    let memo =
        memo::Fingerprint::of(&theme.sources, &hashed, &opts.base_url).filter(|_| !opts.render_all);
    let writer = PageWriter {
        stage,
        tera: &theme.tera,
        memo,
        kept: AtomicUsize::new(0),
    };
    let failed = FirstError::default();
    let page = |page: Page| failed.keep(writer.write(page));
    let file = |path: &str, bytes: &[u8]| failed.keep(stage.write(path, bytes));
    let sink = plan::Sink {
        page: &page,
        file: &file,
    };
    let plan = timed("plan", || {
        plan::plan_streaming(data, readmes, opts, &hl, sink)
    });
    failed.into_result()?;
    let Prepared {
        pages,
        mut files,
        assets,
    } = arrange(plan, statics, hashed);
    // From a working tree, assets are copied as the pages are written, never
    // all held in memory; from a revision they are read from git first.
    let copies = match &data.model.source.commit {
        None => assets,
        Some(_) => {
            read_assets(data, assets, &mut files)?;
            Vec::new()
        }
    };
    timed("render and write", || {
        pages.into_par_iter().try_for_each(|p| writer.write(p))?;
        files.par_iter().try_for_each(|(p, b)| stage.write(p, b))?;
        stage.copy(&output::Copies {
            root: &data.model.source.root,
            files: &copies,
        })
    })?;
    crate::timing::note(
        "pages kept without rendering (inputs unchanged)",
        writer.kept.into_inner(),
    );
    Ok(())
}

/// Renders pages into the staging tree; with a fingerprint (a manifest),
/// keeps those whose inputs are unchanged instead.
struct PageWriter<'a> {
    stage: &'a output::Stage,
    tera: &'a tera::Tera,
    memo: Option<memo::Fingerprint>,
    /// Pages kept without rendering.
    kept: AtomicUsize,
}

impl PageWriter<'_> {
    fn write(&self, page: Page) -> Result<()> {
        let Some(fp) = self.memo else {
            let (path, bytes) = render_page(self.tera, page)?;
            return self.stage.write(&path, &bytes);
        };
        let key = fp.key(&page);
        if self.stage.keep_rendered(&page.path, key)? {
            self.kept.fetch_add(1, Ordering::Relaxed);
            return Ok(());
        }
        let (path, bytes) = render_page(self.tera, page)?;
        self.stage.write_rendered(&path, &bytes, key)
    }
}

/// The first error of writers working in parallel; the others go on.
#[derive(Default)]
struct FirstError(Mutex<Option<anyhow::Error>>);

impl FirstError {
    /// Keep `result`'s error unless one was kept before.
    fn keep(&self, result: Result<()>) {
        if let Err(e) = result {
            self.0
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .get_or_insert(e);
        }
    }

    /// The error kept, if any.
    fn into_result(self) -> Result<()> {
        match self.0.into_inner().unwrap_or_else(|e| e.into_inner()) {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}
