//! The page plan: [`Model`] + findings + [`SiteOptions`] → [`Plan`], every
//! output as data (pages with a template and a JSON context, plain files, and
//! asset copies). Nothing here writes to disk or renders a template.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use rayon::prelude::*;
use serde_json::{Value, json};

use super::SiteOptions;
use super::highlight::Highlighter;
use super::markdown::{self, Links, Rendered, normalize};
use super::pages;
use super::readme_cache::ReadmeCache;
use super::search::{self, SearchDoc};
use super::view::{self, LinkView, Urls};
use crate::finding::Finding;
use crate::kep::{Kep, KepFormat};
use crate::project::Project;
use crate::urls::kep_paths;

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

/// Everything a build writes.
#[derive(Debug, Default)]
pub struct Plan {
    /// Rendered outputs.
    pub pages: Vec<Page>,
    /// Path and template of each page handed to a [`Sink`] instead of kept in `pages`.
    pub streamed: Vec<(String, Template)>,
    /// Ready bytes (search index), by output path.
    pub files: BTreeMap<String, Vec<u8>>,
    /// Asset copies: output path → repository path.
    pub assets: BTreeMap<String, String>,
}

/// What a plan can reuse from an earlier one: rendered READMEs whose inputs
/// are unchanged, and a search index updated document by document. `serve`
/// keeps one between rebuilds; [`plan`] starts from an empty one.
#[derive(Debug, Default)]
pub struct PlanCache {
    keep: bool,
    markdown: HashMap<String, (MarkdownInputs, Arc<Rendered>)>,
    search: Option<search::Index>,
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
    links: u128,
}

/// Common context: the site's name and URLs.
pub fn site_context(opts: &SiteOptions) -> Value {
    json!({
        "base": opts.base_url,
        "repo_url": opts.repo_url,
        "branch": opts.branch,
        "title": "Kubernetes Enhancement Proposals",
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

/// Where a build hands each KEP's pages as soon as they are planned (to be
/// rendered and written at once), so that the pages of every KEP, with their
/// READMEs, are never all held in memory.
pub type Sink<'a> = &'a (dyn Fn(Page) + Sync);

/// A KEP's pages: kept in the plan, or handed to a [`Sink`] (path and template).
enum KepPages {
    Kept(Vec<Page>),
    Streamed(Vec<(String, Template)>),
}

/// Plan the whole site.
pub fn plan(data: &Project, opts: &SiteOptions, hl: &Highlighter) -> Plan {
    plan_cached(data, opts, hl, &mut PlanCache::default())
}

/// Plan the whole site, handing the KEP pages (each KEP's page and its alias)
/// to `sink` instead of keeping them in [`Plan::pages`].
pub fn plan_streaming(data: &Project, opts: &SiteOptions, hl: &Highlighter, sink: Sink) -> Plan {
    plan_inner(data, opts, hl, &mut PlanCache::default(), Some(sink))
}

/// Plan the whole site, reusing what `cache` holds from an earlier plan.
pub fn plan_cached(
    data: &Project,
    opts: &SiteOptions,
    hl: &Highlighter,
    cache: &mut PlanCache,
) -> Plan {
    plan_inner(data, opts, hl, cache, None)
}

fn plan_inner(
    data: &Project,
    opts: &SiteOptions,
    hl: &Highlighter,
    cache: &mut PlanCache,
    sink: Option<Sink>,
) -> Plan {
    let model = &data.model;
    let findings = &data.findings[..];
    let base = opts.base_url.as_str();
    let urls = Urls {
        base,
        repo_url: &opts.repo_url,
        branch: &opts.branch,
    };
    let site = site_context(opts);
    let paths = kep_paths(model, base);

    let mut local_assets: Vec<BTreeSet<String>> = vec![BTreeSet::new(); model.keps.len()];
    let mut plan = Plan::default();
    // Each asset belongs to every directory KEP above it (nested KEP
    // directories share their children).
    let mut kep_dirs: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, kep) in model.keps.iter().enumerate() {
        if kep.format == KepFormat::Directory {
            kep_dirs.entry(kep.path.as_str()).or_default().push(i);
        }
    }
    for a in &model.assets {
        let mut dir = a.as_str();
        while let Some(slash) = dir.rfind('/') {
            dir = &dir[..slash];
            for &i in kep_dirs.get(dir).into_iter().flatten() {
                let rel = &a[dir.len() + 1..];
                local_assets[i].insert(rel.to_string());
                plan.assets
                    .insert(format!("{}{rel}", paths.dirs[i]), a.clone());
            }
        }
    }

    // where links can go, as a hash that stays the same across Rust
    // releases (it is part of the README cache's persisted keys)
    let links_key = {
        let mut h = super::memo::Hasher::default();
        h.bytes(opts.repo_url.as_bytes());
        h.bytes(opts.branch.as_bytes());
        for (k, v) in paths.by_path.iter().chain(&paths.titles) {
            h.bytes(k.as_bytes());
            h.bytes(v.as_bytes());
        }
        h.digest()
    };
    // A README's rendering: from the cache when its inputs are unchanged
    // (`serve`'s, in memory), or from the one kept between builds.
    let md_cache = &cache.markdown;
    let keep_markdown = cache.keep;
    let kept = sink
        .and(opts.cache_dir.as_deref())
        .filter(|_| !opts.render_all)
        .and_then(ReadmeCache::open);
    let markdown_of = |kep: &Kep, local: &BTreeSet<String>| -> (Arc<Rendered>, bool) {
        let from = kep.readme_path.as_deref().unwrap_or(&kep.metadata_path);
        if let Some((inputs, r)) = md_cache.get(&kep.path)
            && inputs.links == links_key
            && inputs.readme == kep.readme
            && inputs.from == from
            && &inputs.local_assets == local
        {
            return (r.clone(), true);
        }
        let key = kept
            .as_ref()
            .map(|c| c.key(&kep.readme, from, links_key, local));
        if let (Some(c), Some(k)) = (&kept, key)
            && let Some(r) = c.get(k)
        {
            hl.keep(&r.code_keys);
            return (Arc::new(r), false);
        }
        let links = Links {
            keps: &paths.by_path,
            local_assets: local,
            repo_url: &opts.repo_url,
            branch: &opts.branch,
        };
        let mut r = markdown::render_titled(&kep.readme, from, &links, &paths.titles, hl);
        r.body_terms = Some(Arc::new(search::BodyTerms::of(&r.text, &r.sections)));
        if let (Some(c), Some(k)) = (&kept, key) {
            c.put(k, &r);
        }
        (Arc::new(r), false)
    };

    let labels: BTreeMap<&str, String> = model
        .keps
        .iter()
        .filter_map(|k| {
            let url = paths.by_path.get(&k.path)?;
            let label = match k.number() {
                Some(n) => format!("KEP-{n}: {}", k.title()),
                None => k.title().to_string(),
            };
            Some((url.as_str(), label))
        })
        .collect();
    let link = |s: &str| -> LinkView {
        let target = normalize(s.trim().trim_start_matches('/'));
        let links = Links {
            keps: &paths.by_path,
            local_assets: &local_assets[0],
            repo_url: &opts.repo_url,
            branch: &opts.branch,
        };
        match target.as_deref().and_then(|t| links.kep_url(t)) {
            Some(u) => LinkView {
                label: labels.get(u).cloned().unwrap_or_else(|| s.to_string()),
                url: u.to_string(),
            },
            None => LinkView {
                label: s.to_string(),
                url: urls.blob(s.trim().trim_start_matches('/')),
            },
        }
    };

    let sig_dirs: BTreeSet<&str> = model.keps.iter().map(|k| k.sig()).collect();
    let history = data.history.as_ref().map(|h| crate::view::HistoryContext {
        history: h,
        now: data.now,
        stale_days: super::STALE_DAYS,
    });
    let mut export_json: Vec<Vec<u8>> = crate::timing::timed("plan: export json", || {
        crate::view::all(model, &data.analysis, findings, history)
            .par_iter()
            .map(|v| serde_json::to_vec(v).unwrap_or_default())
            .collect()
    });
    plan.files
        .insert("keps.json".into(), join_json(&export_json));
    // Each KEP's page, alias page, JSON file and search document, in parallel.
    // pages kept, or the paths of pages handed to the sink
    // and the rendered README when the cache should keep it
    type PerKep = (
        KepPages,
        (String, Vec<u8>),
        SearchDoc,
        Option<Arc<Rendered>>,
    );
    let by_kep = crate::view::findings_by_kep(model, findings);
    let per_kep: Vec<PerKep> = crate::timing::timed("plan: KEP pages", || {
        model
            .keps
            .par_iter()
            .zip(local_assets.par_iter())
            .zip(export_json.par_iter_mut())
            .zip(by_kep.into_par_iter())
            .enumerate()
            .map(|(i, (((kep, local), json), kf))| {
                let (r, hit) = markdown_of(kep, local);
                let for_cache = (keep_markdown && !hit).then(|| r.clone());
                // Without a cache to share it with, the rendered README is moved, not copied.
                let r = Arc::try_unwrap(r).unwrap_or_else(|r| (*r).clone());
                let dir = &paths.dirs[i];
                let url = urls.page(dir);
                let kf: Vec<Finding> = kf.into_iter().cloned().collect();
                let analysis = data.analysis.keps.get(i);
                let mut v = view::kep_view(model, kep, analysis, &url, kf, &urls, &link);
                for s in &mut v.participating_sigs {
                    if !sig_dirs.contains(s.label.as_str()) {
                        s.url.clear(); // no page: shown as text
                    }
                }
                if let (Some(h), Some(n)) = (&data.history, kep.number())
                    && let Some(kh) = h.keps.get(&n)
                {
                    v.history =
                        serde_json::to_value(view::history_panel(kep, kh, data.now, &urls)).ok();
                }
                let json_file = (format!("{dir}kep.json"), std::mem::take(json));
                let title = match kep.number() {
                    Some(n) => format!("KEP-{n}: {}", kep.title()),
                    None => kep.title().to_string(),
                };
                let ctx = Value::Object(serde_json::Map::from_iter([
                    (
                        "kep".to_string(),
                        serde_json::to_value(&v).unwrap_or_default(),
                    ),
                    ("body".to_string(), Value::String(r.html)),
                    (
                        "toc".to_string(),
                        serde_json::to_value(&r.toc).unwrap_or_default(),
                    ),
                    (
                        "json_url".to_string(),
                        Value::String(format!("{url}kep.json")),
                    ),
                ]));
                let mut pages = vec![page(
                    format!("{dir}index.html"),
                    "kep.html",
                    &title,
                    "keps",
                    ctx,
                    &site,
                )];
                if let Some(alias) = &paths.aliases[i] {
                    let ctx = json!({ "target": url });
                    pages.push(page(
                        format!("{alias}index.html"),
                        "redirect.html",
                        &title,
                        "keps",
                        ctx,
                        &site,
                    ));
                }
                let doc = SearchDoc {
                    number: kep.number(),
                    title: kep.title().to_string(),
                    sig: kep.sig().to_string(),
                    stage: kep.meta.stage.to_string(),
                    url: dir.clone(),
                    summary: r.summary,
                    body: r.text,
                    body_terms: r.body_terms,
                    authors: kep.meta.authors.clone(),
                    people: kep
                        .meta
                        .reviewers
                        .iter()
                        .chain(&kep.meta.approvers)
                        .cloned()
                        .chain(
                            model
                                .prr_for(kep)
                                .into_iter()
                                .flat_map(|p| p.approvals.values().map(|a| a.approver.clone())),
                        )
                        .collect(),
                    sections: r.sections,
                    gates: kep
                        .meta
                        .feature_gates
                        .iter()
                        .map(|g| g.name.clone())
                        .collect(),
                };
                let pages = match sink {
                    Some(sink) => {
                        let handed = pages
                            .iter()
                            .map(|p| (p.path.clone(), p.template.clone()))
                            .collect();
                        pages.into_iter().for_each(sink);
                        KepPages::Streamed(handed)
                    }
                    None => KepPages::Kept(pages),
                };
                (pages, json_file, doc, for_cache)
            })
            .collect()
    });
    if sink.is_some() {
        // A build highlights nothing after the READMEs: its grammars (and
        // their compiled regexes) go before the listings are built.
        super::save_highlights(hl);
        hl.release();
    }
    if let Some(c) = &kept {
        c.prune();
    }
    if cache.keep {
        let live: BTreeSet<&str> = model.keps.iter().map(|k| k.path.as_str()).collect();
        cache.markdown.retain(|p, _| live.contains(p.as_str()));
        for ((kep, local), (_, _, _, fresh)) in model.keps.iter().zip(&local_assets).zip(&per_kep) {
            if let Some(r) = fresh {
                let from = kep.readme_path.as_deref().unwrap_or(&kep.metadata_path);
                let inputs = MarkdownInputs {
                    readme: kep.readme.clone(),
                    from: from.to_string(),
                    local_assets: local.clone(),
                    links: links_key,
                };
                cache.markdown.insert(kep.path.clone(), (inputs, r.clone()));
            }
        }
    }
    let mut docs = Vec::with_capacity(model.keps.len());
    for (pages, (path, json), doc, _) in per_kep {
        match pages {
            KepPages::Kept(pages) => plan.pages.extend(pages),
            KepPages::Streamed(handed) => plan.streamed.extend(handed),
        }
        plan.files.insert(path, json);
        docs.push(doc);
    }
    // The search index, then the listing pages. Each is parallel inside; run
    // side by side (rayon::join) they were slower on two cores, and the
    // search's scratch memory added to the listings' peak.
    let search_files =
        crate::timing::timed("plan: search", || match (&mut cache.search, cache.keep) {
            (Some(index), _) => index.update(&docs).clone(),
            (slot @ None, true) => {
                let index = search::Index::new(&docs);
                let files = index.files().clone();
                *slot = Some(index);
                files
            }
            (None, false) => search::build(docs),
        });
    let refs: Vec<view::KepRef> = model
        .keps
        .iter()
        .zip(&paths.dirs)
        .zip(&data.analysis.keps)
        .map(|((k, d), a)| view::kep_ref(model, k, Some(a), &urls.page(d)))
        .collect();
    let ctx = pages::Ctx {
        model,
        analysis: &data.analysis,
        history: data.history.as_ref(),
        now: data.now,
        findings,
        refs: &refs,
        urls: &urls,
    };
    // The listings and the release reports, side by side: neither keeps
    // both cores busy alone.
    let (listings, reports) = crate::timing::timed("plan: listings and reports", || {
        rayon::join(
            || pages::listing_pages(&ctx),
            || crate::report::site::pages(data, base, &opts.repo_url, &opts.branch),
        )
    });
    let mut listings: Vec<Page> = listings
        .into_iter()
        .map(|(path, template, title, section, value)| {
            page(path, template, &title, section, value, &site)
        })
        .collect();
    listings.extend(
        reports.into_iter().map(|(path, title, value)| {
            page(path, "report.html", &title, "releases", value, &site)
        }),
    );
    plan.files.extend(search_files);
    plan.pages.extend(listings);

    let mut html: Vec<String> = plan
        .pages
        .iter()
        .map(|p| (&p.path, &p.template))
        .chain(plan.streamed.iter().map(|(p, t)| (p, t)))
        .filter(|(_, t)| **t != Template::Tera("redirect.html"))
        .filter_map(|(p, _)| p.strip_suffix("index.html"))
        .map(|p| format!("{base}{p}"))
        .collect();
    html.sort();
    plan.pages.push(page(
        "sitemap.xml".into(),
        "sitemap.xml",
        "sitemap",
        "",
        json!({ "urls": html }),
        &site,
    ));
    plan.pages.push(page(
        "404.html".into(),
        "404.html",
        "Page not found",
        "",
        json!({}),
        &site,
    ));
    plan.pages.sort_by(|a, b| a.path.cmp(&b.path));
    plan
}

/// A JSON array of already-encoded elements (so `keps.json` holds the same
/// values as `kepsite export`, compactly).
fn join_json(items: &[Vec<u8>]) -> Vec<u8> {
    let mut out = Vec::with_capacity(items.iter().map(|i| i.len() + 2).sum::<usize>() + 4);
    out.push(b'[');
    for (n, item) in items.iter().enumerate() {
        if n > 0 {
            out.extend_from_slice(b",\n");
        }
        out.extend_from_slice(item);
    }
    out.extend_from_slice(b"]\n");
    out
}
