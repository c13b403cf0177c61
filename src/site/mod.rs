//! The static site: [`Project`] + [`SiteOptions`] → files, rendered by one
//! engine ([`render`]) that hands each file to a [`Sink`] as soon as it is
//! rendered: serve's map in memory ([`Memory`]), or, for [`build`], a fresh
//! staging directory beside `--out` ([`output`]) that is swapped in only once
//! complete, so a failed build leaves the previous site untouched and the
//! READMEs' HTML is never all held at once.

pub mod charts;
pub mod dashboards;
pub mod feed;
pub mod highlight;
pub mod images;
pub mod links;
pub mod listing;
pub mod markdown;
pub mod output;
pub mod pages;
pub mod plan;
pub mod sanitize;
pub mod search;

pub mod view;

use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;
use std::sync::Mutex;

use anyhow::{Context, Result};
use rayon::prelude::*;

use crate::project::{Project, Readme};
use crate::theme;
use crate::timing::timed;
pub use plan::{Page, Plan, PlanCache, Template};

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
    /// Stop the build once it has written this many bytes (`--max-output`);
    /// `None`: [`default_max_output`] of the input.
    pub max_output: Option<u64>,
}

/// The default output limit: 512 MiB plus 64 times the KEP text read
/// (kep.yaml and README bytes). The real corpus (21 MB of text) builds
/// 74 MB, far inside it; a repository built to multiply its pages stops
/// with a message before it fills the disk.
pub fn default_max_output(model: &crate::model::Model) -> u64 {
    let text: usize = model
        .keps
        .iter()
        .map(|k| k.readme_text().len())
        .sum::<usize>()
        + model.yaml_text_bytes();
    (512 << 20) + 64 * text as u64
}

impl Default for SiteOptions {
    fn default() -> Self {
        SiteOptions {
            out: PathBuf::from("public"),
            base_url: "/".into(),
            theme: None,
            repo_url: "https://github.com/kubernetes/enhancements".into(),
            branch: "master".into(),
            max_output: None,
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
    /// The KEPs built.
    pub keps: usize,
}

fn normalized(opts: &SiteOptions) -> SiteOptions {
    let mut o = opts.clone();
    if !o.base_url.ends_with('/') {
        o.base_url.push('/');
    }
    o.repo_url = crate::urls::repo_url(&o.repo_url);
    o
}

/// Where the engine hands each output file: serve's map in memory
/// ([`Memory`]) or the build's staging directory.
pub trait Sink: Sync {
    /// Take the file at output path `path` (a later file of the same path
    /// replaces an earlier one).
    fn put(&self, path: &str, bytes: &[u8]) -> Result<()>;

    /// A page that did not render: the build stops (the default); serve
    /// keeps the page's last version.
    fn failed(&self, _path: &str, e: anyhow::Error) -> Result<()> {
        Err(e)
    }

    /// A page about to be rendered (serve counts them).
    fn page(&self, _page: &Page) {}
}

/// The memory sink: output path → bytes.
#[derive(Debug, Default)]
pub struct Memory(Mutex<BTreeMap<String, Vec<u8>>>);

impl Sink for Memory {
    fn put(&self, path: &str, bytes: &[u8]) -> Result<()> {
        lock(&self.0).insert(path.to_string(), bytes.to_vec());
        Ok(())
    }
}

impl Memory {
    /// The files put, by output path.
    pub fn into_files(self) -> BTreeMap<String, Vec<u8>> {
        self.0.into_inner().unwrap_or_else(|e| e.into_inner())
    }
}

/// The value behind `m`, also after a panic elsewhere.
pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// What the engine renders with: the theme's templates, its static files by
/// output path, and the highlighter.
pub struct Engine<'a> {
    /// The theme's templates.
    pub tera: &'a tera::Tera,
    /// The theme's static files by output path (a build's content-hashed
    /// copies, serve's plain names): they win over every other file.
    pub statics: &'a BTreeMap<String, Vec<u8>>,
    /// The code highlighter.
    pub hl: &'a highlight::Highlighter,
}

/// Hands each path to a [`Sink`] once, through the engine: remembers what
/// was put, and the first error of writers working in parallel.
struct Handing<'a> {
    sink: &'a dyn Sink,
    put: Mutex<HashSet<String>>,
    failed: FirstError,
}

impl Handing<'_> {
    fn file(&self, path: &str, bytes: &[u8]) -> Result<()> {
        lock(&self.put).insert(path.to_string());
        self.sink.put(path, bytes)
    }

    fn page(&self, tera: &tera::Tera, page: Page) -> Result<()> {
        self.sink.page(&page);
        let path = page.path.clone();
        match render_page(tera, page) {
            Ok((path, bytes)) => self.file(&path, &bytes),
            Err(e) => self.sink.failed(&path, e),
        }
    }
}

/// Render the whole site (`readmes`: each KEP's README text and parse, model order),
/// handing every file to `sink` as soon as it is rendered: the pages, the
/// JSON and search files, the theme's static files, then the KEP
/// directories' assets that no other file shadows. Returns those assets
/// (output path → repository path). `cache` is serve's memory of the last
/// render; a build passes an empty one.
pub fn render(
    data: &Project,
    readmes: Vec<Readme>,
    opts: &SiteOptions,
    engine: &Engine,
    cache: &mut PlanCache,
    sink: &dyn Sink,
) -> Result<BTreeMap<String, String>> {
    let opts = normalized(opts);
    let handing = Handing {
        sink,
        put: Mutex::new(HashSet::new()),
        failed: FirstError::default(),
    };
    let page = |p: Page| handing.failed.keep(handing.page(engine.tera, p));
    let file = |path: &str, bytes: &[u8]| handing.failed.keep(handing.file(path, bytes));
    let sink_fns = plan::Handoff {
        page: &page,
        file: &file,
    };
    let plan = timed("plan", || {
        plan::plan(data, readmes, &opts, engine.hl, cache, sink_fns)
    });
    handing.failed.take()?;
    timed("render and write", || {
        plan.pages
            .into_par_iter()
            .try_for_each(|p| handing.page(engine.tera, p))?;
        engine
            .statics
            .par_iter()
            .try_for_each(|(p, b)| handing.file(p, b))
    })?;
    let put = handing.put.into_inner().unwrap_or_else(|e| e.into_inner());
    let assets: BTreeMap<String, String> = plan
        .assets
        .into_iter()
        .filter(|(out, _)| !put.contains(out))
        .collect();
    timed("assets", || copy_assets(data, &assets, sink))?;
    Ok(assets)
}

/// Hand the `assets` (output path → repository path) to `sink`: from a
/// working tree each is read as it is put, never all held in memory; from a
/// revision they are read from git first. An unreadable one is skipped.
fn copy_assets(data: &Project, assets: &BTreeMap<String, String>, sink: &dyn Sink) -> Result<()> {
    let source = &data.model.source;
    if source.commit.is_none() {
        return assets.par_iter().try_for_each(|(out, repo)| {
            match crate::repo::read_asset(source, repo) {
                Some(b) => sink.put(out, &b),
                None => Ok(()),
            }
        });
    }
    let repo_paths: Vec<String> = assets.values().cloned().collect();
    let bytes = crate::repo::read_assets(source, &repo_paths)?;
    assets
        .iter()
        .try_for_each(|(out, repo)| match bytes.get(repo) {
            Some(b) => sink.put(out, b),
            None => Ok(()),
        })
}

/// Render the whole site into memory with the default theme: output path →
/// bytes (the memory sink of [`render`], for tests and benchmarks).
pub fn render_to_memory(data: &Project, opts: &SiteOptions) -> Result<BTreeMap<String, Vec<u8>>> {
    let opts = normalized(opts);
    let (theme, statics) = load_theme(&opts)?;
    let readmes = data.readmes();
    let engine = Engine {
        tera: &theme.tera,
        statics: &statics,
        hl: &highlight::Highlighter::new(),
    };
    let memory = Memory::default();
    render(
        data,
        readmes,
        &opts,
        &engine,
        &mut PlanCache::default(),
        &memory,
    )?;
    Ok(memory.into_files())
}

/// KEP `id`'s pages, planned and rendered as [`render`] plans and renders
/// them (without a plan cache): each page's output path and bytes. `serve`'s
/// quick preview of a README edit, before the whole site is rendered again.
pub fn render_kep(
    data: &Project,
    id: crate::model::KepId,
    opts: &SiteOptions,
    engine: &Engine,
) -> Result<Vec<(String, Vec<u8>)>> {
    let opts = normalized(opts);
    plan::kep_pages(data, id, &opts, engine.hl)
        .into_iter()
        .map(|p| render_page(engine.tera, p))
        .collect()
}

/// The theme, and the content-hashed copies of its static files (the
/// highlighting stylesheet among them) by output path.
fn load_theme(opts: &SiteOptions) -> Result<(theme::Theme, BTreeMap<String, Vec<u8>>)> {
    let mut theme = timed("theme", || theme::load(opts.theme.as_deref()))?;
    // only the content-hashed copies: pages link them by `static_url`
    let statics = theme.fingerprint(&opts.base_url);
    Ok((theme, statics))
}

/// The bytes a page's buffer holds besides its README's HTML at first:
/// the corpus's KEP pages hold 6-30 KB more (11 KB or less for half of
/// them).
const PAGE_BESIDES_BODY: usize = 32 << 10;

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
            // Written into a buffer sized for the page, its README's HTML
            // and the rest: `Tera::render` starts at 2 KB and doubles,
            // copying a KEP page's bytes about once more on the way.
            let body = context
                .get("body")
                .and_then(serde_json::Value::as_str)
                .map_or(0, str::len);
            let mut out = Vec::with_capacity(body + PAGE_BESIDES_BODY);
            let ctx =
                tera::Context::from_value(context).with_context(|| format!("context of {path}"))?;
            tera.render_to(name, &ctx, &mut out)
                .map_err(|e| anyhow::anyhow!("rendering {path} with {name}: {}", chain(&e)))?;
            let page = String::from_utf8(out)
                .with_context(|| format!("rendering {path} with {name}: not UTF-8"))?;
            crate::escape::bidi_shown(page).into_bytes()
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
/// The files are written into a fresh staging directory beside `out` and
/// swapped in when complete (see [`output`]). A non-empty `out` without the
/// [`MARKER`] file is refused. The build takes `data`: each README is freed
/// once rendered.
pub fn build(data: Project, opts: &SiteOptions) -> Result<BuildReport> {
    build_loading(|| Ok(data), opts)
}

/// [`build`] the project `load` gives: the theme is compiled, and the
/// highlighting grammars built, beside the load (which walks the history
/// on one thread while the other loads and analyses), not after it.
pub fn build_loading(
    load: impl FnOnce() -> Result<Project> + Send,
    opts: &SiteOptions,
) -> Result<BuildReport> {
    output::check_replaceable(&opts.out)?;
    let opts = normalized(opts);
    let (data, theme) = rayon::join(load, || {
        let theme = load_theme(&opts);
        highlight::Highlighter::warm();
        theme
    });
    let (mut data, (theme, statics)) = (data?, theme?);
    let limit = opts
        .max_output
        .unwrap_or_else(|| default_max_output(&data.model));
    let readmes = data.take_readmes();
    let stage = timed("stage", || output::Stage::open(&opts.out))?.limited(limit);
    let engine = Engine {
        tera: &theme.tera,
        statics: &statics,
        hl: &highlight::Highlighter::new(),
    };
    match render(
        &data,
        readmes,
        &opts,
        &engine,
        &mut PlanCache::default(),
        &stage,
    ) {
        Ok(_) => stage.finish().map(|r| BuildReport {
            keps: data.model.keps.len(),
            ..r
        }),
        Err(e) => {
            stage.abandon();
            Err(e)
        }
    }
}

/// The first error of writers working in parallel; the others go on.
#[derive(Default)]
struct FirstError(Mutex<Option<anyhow::Error>>);

impl FirstError {
    /// Keep `result`'s error unless one was kept before.
    fn keep(&self, result: Result<()>) {
        if let Err(e) = result {
            lock(&self.0).get_or_insert(e);
        }
    }

    /// The error kept, if any.
    fn take(&self) -> Result<()> {
        match lock(&self.0).take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}
