//! The page plan: [`Model`] + findings + [`SiteOptions`] → every output as
//! data (pages with a template and a JSON context, plain files, and asset
//! copies), handed to a [`Handoff`] as soon as each is planned; what is left
//! is the [`Plan`]. Nothing here writes to disk or renders a template.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use rayon::prelude::*;
use serde_json::{Value, json};

mod json;
mod kep;

use super::highlight::Highlighter;
use super::markdown::Rendered;
use super::search;
use super::view;
use super::{SiteOptions, lock};
use super::{listing, pages};
use crate::project::{Project, Readme};
use json::json_files;
use kep::{Kit, PerKep};

/// How a page is turned into bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Template {
    /// A theme template, by name (`kep.html`).
    Tera(&'static str),
    /// The context itself, as JSON.
    Json,
}

/// One output produced from a context.
#[derive(Debug, Clone)]
pub struct Page {
    /// Output path relative to the site root (`keps/1480/index.html`).
    pub path: String,
    /// How to render it.
    pub template: Template,
    /// The data.
    pub context: Value,
}

/// What is left of the site once the [`Handoff`] has taken the rest.
#[derive(Debug, Default)]
pub struct Plan {
    /// Pages still to render (the sitemap and the 404 page).
    pub pages: Vec<Page>,
    /// Path and template of each page handed to the [`Handoff`].
    pub streamed: Vec<(String, Template)>,
    /// Asset copies: output path → repository path.
    pub assets: BTreeMap<String, String>,
}

/// What a plan can reuse from an earlier one, in memory: rendered READMEs
/// whose inputs are unchanged (the search index is built anew each time:
/// ~50 ms on the corpus). `serve` keeps one between rebuilds; a build starts
/// from an empty one that keeps nothing.
#[derive(Debug, Default)]
pub struct PlanCache {
    keep: bool,
    markdown: HashMap<String, (MarkdownInputs, Arc<Rendered>)>,
}

impl PlanCache {
    /// A cache that remembers what each plan rendered, for the next one.
    pub fn reusing() -> PlanCache {
        PlanCache {
            keep: true,
            ..PlanCache::default()
        }
    }
}

/// Everything a README's rendering depends on.
#[derive(Debug, Clone, PartialEq, Eq)]
struct MarkdownInputs {
    readme: String,
    from: String,
    local_assets: BTreeSet<String>,
    /// Hash of the KEP URL map and the repository URL and branch.
    links: u64,
}

/// Common context: the site's name and URLs.
pub fn site_context(opts: &SiteOptions, shallow: bool) -> Value {
    json!({
        "base": opts.base_url,
        "repo_url": opts.repo_url,
        "branch": opts.branch,
        "title": "Kubernetes Enhancement Proposals",
        "shallow": shallow,
    })
}

fn page(
    path: String,
    template: &'static str,
    title: &str,
    section: &str,
    mut ctx: Value,
    site: &Value,
) -> Page {
    if let Value::Object(m) = &mut ctx {
        m.insert("site".into(), site.clone());
        m.insert("page_title".into(), Value::String(title.to_string()));
        m.insert("section".into(), Value::String(section.to_string()));
        let canonical = path.strip_suffix("index.html").unwrap_or(&path).to_string();
        m.insert("canonical".into(), Value::String(canonical));
    }
    Page {
        path,
        template: Template::Tera(template),
        context: ctx,
    }
}

/// Where the plan hands each page and file as soon as it is planned (to be
/// rendered and written at once), so that the pages of every KEP, with
/// their READMEs, its JSON and its search passages, are never all held in
/// memory.
#[derive(Clone, Copy)]
pub struct Handoff<'a> {
    /// Takes a page to render and write.
    pub page: &'a (dyn Fn(Page) + Sync),
    /// Takes a file ready to write (a KEP's JSON, `keps.json`, a KEP's
    /// search passages): path and bytes.
    pub file: &'a (dyn Fn(&str, &[u8]) + Sync),
}

/// Plan the whole site, handing every page and file but the sitemap and
/// the 404 page to `sink`, and reusing what `cache` holds from an earlier
/// plan. `readmes` are the KEPs' README texts (model order): a build takes
/// them out of `data` ([`Project::take_readmes`]) so that each is freed as
/// soon as it is rendered.
pub fn plan(
    data: &Project,
    readmes: Vec<Readme>,
    opts: &SiteOptions,
    hl: &Highlighter,
    cache: &mut PlanCache,
    sink: Handoff,
) -> Plan {
    let model = &data.model;
    let kit = Kit::new(data, opts, hl);
    let mut plan = Plan {
        assets: kit.assets.clone(),
        ..Plan::default()
    };
    let per_kep = crate::timing::timed("plan: KEP pages", || plan_keps(&kit, cache, readmes, sink));
    if cache.keep {
        kit.remember(cache, &per_kep);
    }
    let mut docs = Vec::with_capacity(model.keps.len());
    for (handed, doc, _) in per_kep {
        plan.streamed.extend(handed);
        docs.push(doc);
    }
    // The search index, then the listing pages. Each is parallel inside; run
    // side by side (rayon::join) they were slower on two cores, and the
    // search's scratch memory added to the listings' peak.
    let search_files = crate::timing::timed("plan: search", || search::build(docs));
    // written now, not held while the listings are built (77 MB at 10x)
    search_files
        .into_iter()
        .for_each(|(path, bytes)| (sink.file)(&path, &bytes));
    // after the KEP pages, which free the READMEs, and the search index,
    // which frees the search documents: `keps.json` (39 MB on the 10x
    // corpus) beside either was the build's peak
    json_files(&kit, sink);
    listings(&kit, sink, &mut plan);
    finish(&mut plan, &kit, sink);
    // Only the files a page links are copied (26 of 196, 2.6 MB on the
    // corpus, are linked by nothing the portal shows).
    let linked = kit.linked.into_inner().unwrap_or_else(|e| e.into_inner());
    plan.assets.retain(|out, _| linked.contains(out));
    plan
}

/// KEP `i`'s pages alone, planned as [`plan`] plans them (the same [`Kit`]
/// and [`Kit::plan_kep`], its README rendered afresh): `serve`'s preview of
/// a README edit.
pub fn kep_pages(
    data: &Project,
    id: crate::model::KepId,
    opts: &SiteOptions,
    hl: &Highlighter,
) -> Vec<Page> {
    let i = id.0;
    let Some(kep) = data.model.keps.get(i) else {
        return Vec::new();
    };
    let kit = Kit::new(data, opts, hl);
    let kf = crate::view::findings_by_kep(&data.model, &data.findings).swap_remove(i);
    let readme: Readme = kep.readme.clone();
    let (r, _) = kit.markdown_of(&PlanCache::default(), kep, &readme, &kit.local_assets[i]);
    let r = Arc::try_unwrap(r).unwrap_or_else(|r| (*r).clone());
    let pages = std::sync::Mutex::new(Vec::new());
    let page = |p: Page| lock(&pages).push(p);
    let file = |_: &str, _: &[u8]| {};
    kit.plan_kep(
        i,
        r,
        kf,
        Handoff {
            page: &page,
            file: &file,
        },
    );
    pages.into_inner().unwrap_or_else(|e| e.into_inner())
}

/// Each KEP's page, alias page and search document, in parallel (`readmes`:
/// each KEP's README text, freed once rendered).
fn plan_keps(kit: &Kit, cache: &PlanCache, readmes: Vec<Readme>, sink: Handoff) -> Vec<PerKep> {
    let model = &kit.data.model;
    let by_kep = crate::view::findings_by_kep(model, &kit.data.findings);
    model
        .keps
        .par_iter()
        .zip(kit.local_assets.par_iter())
        .zip(by_kep.into_par_iter())
        .zip(readmes.into_par_iter())
        .enumerate()
        .map(|(i, (((kep, local), kf), readme))| {
            let (r, hit) = kit.markdown_of(cache, kep, &readme, local);
            // the README's text goes as soon as it is rendered
            drop(readme);
            let for_cache = (cache.keep && !hit).then(|| r.clone());
            // Without a cache to share it with, the rendered README is moved, not copied.
            let r = Arc::try_unwrap(r).unwrap_or_else(|r| (*r).clone());
            let (pages, doc) = kit.plan_kep(i, r, kf, sink);
            (pages, doc, for_cache)
        })
        .collect()
}

/// The listing pages (home, index, SIGs, releases, people, …) and the
/// release reports, side by side: neither keeps both cores busy alone. Each
/// kind of page is handed to `sink` as soon as it is built.
fn listings(kit: &Kit, sink: Handoff, plan: &mut Plan) {
    let data = kit.data;
    let model = &data.model;
    let refs: Vec<view::KepRef> = model
        .keps
        .iter()
        .zip(&kit.paths.dirs)
        .zip(&data.analysis.keps)
        .zip(&kit.tracking)
        .map(|(((k, d), a), t)| view::kep_ref(model, k, Some(a), t.as_ref(), &kit.urls.page(d)))
        .collect();
    let opts = kit.opts;
    let views = crate::timing::timed("plan: release views", || listing::views(&data.sources()));
    let reports = crate::timing::timed("plan: the release in progress's report", || {
        crate::report::site::Reports::new(
            data,
            &opts.base_url,
            &opts.repo_url,
            &opts.branch,
            &views,
        )
    });
    let messages = reports.messages();
    let ctx = listing::Ctx {
        model,
        analysis: &data.analysis,
        history: data.history.as_ref(),
        now: data.now,
        findings: &data.findings,
        refs: &refs,
        urls: &kit.urls,
        code: data.code.as_ref(),
        team: data.team.as_ref(),
        messages: messages.as_ref(),
    };
    let streamed = std::sync::Mutex::new(Vec::new());
    let take = |pages: Vec<Page>| {
        let handed = pages.iter().map(|p| (p.path.clone(), p.template.clone()));
        lock(&streamed).extend(handed);
        pages.into_par_iter().for_each(sink.page);
    };
    let listing = |batch: Vec<listing::Listing>| {
        take(
            batch
                .into_iter()
                .map(|l| {
                    page(
                        l.path, l.template, &l.title, l.section, l.context, &kit.site,
                    )
                })
                .collect(),
        )
    };
    crate::timing::timed("plan: listings and reports", || {
        rayon::join(
            || pages::listing_pages(&ctx, &views, &listing),
            || {
                let comments = reports.comments_page().map(|(path, title, value)| {
                    page(path, "comments.html", &title, "releases", value, &kit.site)
                });
                take(
                    reports
                        .pages()
                        .into_iter()
                        .map(|(path, title, value)| {
                            page(path, "report.html", &title, "releases", value, &kit.site)
                        })
                        .chain(comments)
                        .collect(),
                )
            },
        )
    });
    plan.streamed
        .extend(streamed.into_inner().unwrap_or_else(|e| e.into_inner()));
}

/// Netlify's `_redirects`: each KEP's directory path, where its page is
/// not, to its page (`/keps/sig-node/753-sidecar-containers/` →
/// `/keps/753/`). Other hosts serve `404.html` there, whose script
/// (`static/moved.js`) goes the same way; `serve` answers it with a 301.
fn redirects(base: &str, paths: &crate::urls::KepPaths) -> String {
    use percent_encoding::{AsciiSet, CONTROLS, utf8_percent_encode};
    // a path as the file's lines take it: no space, no non-ASCII
    const PATH: &AsciiSet = &CONTROLS.add(b' ').add(b'#').add(b'%').add(b'?');
    let url = |p: &str| utf8_percent_encode(&format!("{base}{p}"), PATH).to_string();
    let mut out = String::from("# Old KEP addresses (by directory) to their pages\n");
    for (alias, dir) in paths.aliases.iter().zip(&paths.dirs) {
        if let Some(alias) = alias {
            out.push_str(&format!("{} {} 301\n", url(alias), url(dir)));
        }
    }
    out
}

/// The sitemap, the 404 page and `_redirects`; pages sorted.
fn finish(plan: &mut Plan, kit: &Kit, sink: Handoff) {
    let base = kit.urls.base;
    (sink.file)("_redirects", redirects(base, &kit.paths).as_bytes());
    let mut html: Vec<String> = plan
        .pages
        .iter()
        .map(|p| &p.path)
        .chain(plan.streamed.iter().map(|(p, _)| p))
        .filter_map(|p| p.strip_suffix("index.html"))
        .map(|p| format!("{base}{p}"))
        .collect();
    html.sort();
    let sitemap = json!({ "urls": html });
    plan.pages.push(page(
        "sitemap.xml".into(),
        "sitemap.xml",
        "sitemap",
        "",
        sitemap,
        &kit.site,
    ));
    plan.pages.push(page(
        "404.html".into(),
        "404.html",
        "Page not found",
        "",
        json!({}),
        &kit.site,
    ));
    plan.pages.sort_by(|a, b| a.path.cmp(&b.path));
}
