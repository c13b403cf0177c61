//! One KEP's share of the plan: its rendered README (from serve's plan
//! cache when its inputs are unchanged), its page and its search document.
//! [`Kit`] holds what every KEP's planning reads.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use serde_json::Value;

use super::{Handoff, MarkdownInputs, Page, PlanCache, Template, page, site_context};
use crate::finding::Finding;
use crate::kep::{Kep, KepFormat};
use crate::project::{Project, Readme};
use crate::site::SiteOptions;
use crate::site::highlight::Highlighter;
use crate::site::markdown::{self, Links, Rendered, normalize};
use crate::site::search::{self, SearchDoc};
use crate::site::view::{self, LinkView, Urls};
use crate::urls::{KepPaths, kep_paths};

/// What each KEP's planning reads: the project, the options, the URL scheme
/// and the files beside each README.
pub(super) struct Kit<'a> {
    pub data: &'a Project,
    pub opts: &'a SiteOptions,
    pub hl: &'a Highlighter,
    pub paths: KepPaths,
    pub urls: Urls<'a>,
    pub site: Value,
    /// Per KEP: the files beside its README, relative to its directory.
    pub local_assets: Vec<BTreeSet<String>>,
    /// Asset copies: output path → repository path.
    pub assets: BTreeMap<String, String>,
    /// The assets a page links (output paths): only these are copied.
    pub linked: std::sync::Mutex<BTreeSet<String>>,
    /// Where links can go, as a hash (part of a README's inputs).
    pub links_key: u64,
    sig_dirs: BTreeSet<&'a str>,
    /// Per KEP: its tracking in the release in progress, when on the board.
    pub tracking: Vec<Option<crate::analysis::board::Tracking>>,
    /// Per KEP, with `--kubernetes`: its outcome in each release that is
    /// out and who decided it (the timeline of the "In Kubernetes' code"
    /// panel).
    pub outcomes: Vec<Vec<crate::analysis::outcome::KepOutcome>>,
}

/// A KEP's planned outputs: its pages handed to the sink (path and
/// template), its search document, and its rendered README when the plan
/// cache should keep it.
pub(super) type PerKep = (Vec<(String, Template)>, SearchDoc, Option<Arc<Rendered>>);

impl<'a> Kit<'a> {
    pub fn new(data: &'a Project, opts: &'a SiteOptions, hl: &'a Highlighter) -> Kit<'a> {
        let model = &data.model;
        let mut paths = kep_paths(model, &opts.base_url);
        former_paths(data, &mut paths, &opts.base_url);
        let (local_assets, assets) = local_assets(data, &paths);
        let links_key = {
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            (&opts.repo_url, &opts.branch, &paths.by_path, &paths.titles).hash(&mut h);
            h.finish()
        };
        Kit {
            data,
            opts,
            hl,
            urls: Urls {
                base: &opts.base_url,
                repo_url: &opts.repo_url,
                branch: &opts.branch,
            },
            site: site_context(opts, data.history.as_ref().is_some_and(|h| h.shallow)),
            paths,
            local_assets,
            assets,
            linked: std::sync::Mutex::default(),
            links_key,
            sig_dirs: model.keps.iter().map(|k| k.sig()).collect(),
            tracking: data.trackings(),
            outcomes: crate::analysis::outcome::outcomes_by_kep(
                &data.sources(),
                crate::analysis::outcome::releases(&data.model, &data.analysis.current),
            ),
        }
    }

    /// A README's rendering: from `cache` (`serve`'s, in memory) when its
    /// inputs are unchanged, else rendered now. The flag says whether it
    /// came from `cache`. `readme` is the KEP's README text and parse.
    pub fn markdown_of(
        &self,
        cache: &PlanCache,
        kep: &Kep,
        readme: &Readme,
        local: &BTreeSet<String>,
    ) -> (Arc<Rendered>, bool) {
        let (text, doc) = (readme.text(), readme.doc());
        let from = kep.readme_path.as_deref().unwrap_or(&kep.metadata_path);
        if let Some((inputs, r)) = cache.markdown.get(&kep.path)
            && inputs.links == self.links_key
            && inputs.readme == text
            && inputs.from == from
            && &inputs.local_assets == local
        {
            return (r.clone(), true);
        }
        let links = self.links(local);
        let shown = crate::kep::document::page_part(text);
        let mut r = if shown.len() < text.len() {
            let mut r = markdown::render_titled(shown, from, &links, &self.paths.titles, self.hl);
            r.cut_from = Some(text.len());
            r
        } else {
            markdown::render_document(doc, from, &links, &self.paths.titles, self.hl)
        };
        r.body_terms = Some(Arc::new(search::BodyTerms::of(&r.text, &r.sections)));
        (Arc::new(r), false)
    }

    fn links<'l>(&'l self, local: &'l BTreeSet<String>) -> Links<'l> {
        Links {
            keps: &self.paths.by_path,
            local_assets: local,
            repo_url: &self.opts.repo_url,
            branch: &self.opts.branch,
        }
    }

    /// A repository path named in kep.yaml (see-also, replaces, …): the
    /// KEP's portal page with its title, or the file on GitHub.
    fn link(&self, s: &str) -> LinkView {
        let target = normalize(s.trim().trim_start_matches('/'));
        let none = BTreeSet::new();
        let links = self.links(&none);
        match target.as_deref().and_then(|t| links.kep_url(t)) {
            Some(u) => LinkView {
                label: self
                    .paths
                    .titles
                    .get(u)
                    .cloned()
                    .unwrap_or_else(|| s.to_string()),
                url: u.to_string(),
            },
            None => LinkView {
                label: s.to_string(),
                url: self.urls.blob(s.trim().trim_start_matches('/')),
            },
        }
    }

    /// KEP `i`'s page and search document, from its rendered README `r`
    /// and its findings `kf`. The page goes to `sink`, and the search
    /// document keeps only what the index needs of the text (its terms and
    /// the snippet's source).
    pub fn plan_kep(
        &self,
        i: usize,
        r: Rendered,
        kf: Vec<&Finding>,
        sink: Handoff,
    ) -> (Vec<(String, Template)>, SearchDoc) {
        let kep = &self.data.model.keps[i];
        let dir = &self.paths.dirs[i];
        let url = self.urls.page(dir);
        let title = match kep.number() {
            Some(n) => format!("KEP-{n}: {}", kep.title()),
            None => kep.title().to_string(),
        };
        let linked = linked(&r.html, &self.local_assets[i]);
        crate::site::lock(&self.linked).extend(linked.map(|rel| format!("{dir}{rel}")));
        let probe = |rel: &str| match self.assets.get(&format!("{dir}{rel}")) {
            Some(repo) => crate::repo::image::probe(&self.data.model.source, repo),
            None => crate::repo::image::ImageProbe::Missing,
        };
        let html = crate::site::images::sized(&r.html, &self.local_assets[i], &probe);
        let headings: std::collections::HashSet<&str> =
            r.sections.iter().map(|s| s.id.as_str()).collect();
        let on_page = |anchor: &str| headings.contains(anchor);
        let kep_view = self.kep_view(i, &url, kf, &on_page);
        // A README over the page's limit: its page shows the start.
        let cut = r.cut_from.map(|size| {
            let path = kep.readme_path.as_deref().unwrap_or(&kep.metadata_path);
            serde_json::json!({
                "url": self.urls.blob(path),
                "size_mb": format!("{:.1}", size as f64 / 1_048_576.0),
                "shown_mb": crate::kep::document::MAX_PAGE_BYTES >> 20,
            })
        });
        let ctx = Value::Object(serde_json::Map::from_iter([
            ("readme_cut".to_string(), cut.unwrap_or_default()),
            ("kep".to_string(), kep_view),
            ("body".to_string(), Value::String(html)),
            ("diagrams".to_string(), Value::Bool(r.diagrams)),
            (
                "toc".to_string(),
                serde_json::to_value(&r.toc).unwrap_or_default(),
            ),
        ]));
        let pages = vec![self.page(format!("{dir}index.html"), "kep.html", &title, ctx)];
        let mut doc = SearchDoc {
            number: kep.number(),
            title: kep.title().to_string(),
            sig: kep.sig().to_string(),
            stage: kep.meta.stage.to_string(),
            url: dir.clone(),
            summary: r.summary,
            body: r.text,
            body_terms: r.body_terms,
            authors: kep.meta.authors.clone(),
            people: self.people(kep),
            sections: r.sections,
            gates: kep
                .meta
                .feature_gates
                .iter()
                .map(|g| g.name.clone())
                .collect(),
            slug: kep.slug().to_string(),
        };
        let handed = pages
            .iter()
            .map(|p| (p.path.clone(), p.template.clone()))
            .collect();
        pages.into_iter().for_each(sink.page);
        // The index needs of the text only its terms and the snippet's
        // source: a new string, not a truncated one, which would keep the
        // whole README's allocation.
        doc.body = search::snippet_source(&doc.body).to_string();
        doc.sections = Vec::new();
        (handed, doc)
    }

    fn page(&self, path: String, template: &'static str, title: &str, ctx: Value) -> Page {
        page(path, template, title, "keps", ctx, &self.site)
    }

    /// The KEP page's view of KEP `i`: metadata, analysis, findings, links
    /// and its history panel.
    fn kep_view(
        &self,
        i: usize,
        url: &str,
        kf: Vec<&Finding>,
        on_page: &dyn Fn(&str) -> bool,
    ) -> Value {
        let data = self.data;
        let model = &data.model;
        let kep = &model.keps[i];
        let kf: Vec<Finding> = kf.into_iter().cloned().collect();
        let analysis = data.analysis.keps.get(i);
        let link = |s: &str| self.link(s);
        let t = self.tracking[i].as_ref();
        let mut v = view::kep_view(model, kep, analysis, t, url, kf, &self.urls, &link, on_page);
        for s in &mut v.participating_sigs {
            if !self.sig_dirs.contains(s.label.as_str()) {
                s.url.clear(); // no page: shown as text
            }
        }
        if let (Some(h), Some(n)) = (&data.history, kep.number())
            && let Some(kh) = h.keps.get(&n)
        {
            v.history =
                serde_json::to_value(view::history_panel(kep, kh, data.now, &self.urls)).ok();
        }
        if let (Some(code), Some(n)) = (&data.code, kep.number()) {
            v.code = crate::analysis::code::kep_panel(code, kep, n);
            if let Some(panel) = v.code.as_mut() {
                panel["releases"] = serde_json::json!(self.outcomes[i]);
            }
        }
        serde_json::to_value(&v).unwrap_or_default()
    }

    /// Reviewers, approvers and PRR approvers, for the search.
    fn people(&self, kep: &Kep) -> Vec<String> {
        use crate::kep::segment::capped;
        capped("reviewers", &kep.meta.reviewers)
            .iter()
            .chain(capped("approvers", &kep.meta.approvers))
            .cloned()
            .chain(
                self.data
                    .model
                    .prr_for(kep)
                    .into_iter()
                    .flat_map(|p| p.approvals.values().map(|a| a.approver.clone())),
            )
            .collect()
    }

    /// Keep each freshly rendered README in `cache` for the next plan, and
    /// forget those of KEPs that are gone.
    pub fn remember(&self, cache: &mut PlanCache, per_kep: &[PerKep]) {
        let model = &self.data.model;
        let live: BTreeSet<&str> = model.keps.iter().map(|k| k.path.as_str()).collect();
        cache.markdown.retain(|p, _| live.contains(p.as_str()));
        for ((kep, local), (_, _, fresh)) in model.keps.iter().zip(&self.local_assets).zip(per_kep)
        {
            if let Some(r) = fresh {
                let from = kep.readme_path.as_deref().unwrap_or(&kep.metadata_path);
                let inputs = MarkdownInputs {
                    readme: kep.readme_text().to_string(),
                    from: from.to_string(),
                    local_assets: local.clone(),
                    links: self.links_key,
                };
                cache.markdown.insert(kep.path.clone(), (inputs, r.clone()));
            }
        }
    }
}

/// The files beside each directory KEP's README (relative to its
/// directory), and the asset copies (output path → repository path). Each
/// asset belongs to every directory KEP above it (nested KEP directories
/// share their children).
/// Paths a KEP had before it moved (`keps/sig-x/20180530-title.md`, an old
/// directory), from the history, lead to its page too: READMEs still link
/// to them. A path some KEP has now keeps its own page.
fn former_paths(data: &Project, paths: &mut KepPaths, base: &str) {
    let Some(history) = &data.history else { return };
    for (i, kep) in data.model.keps.iter().enumerate() {
        let Some(kh) = kep.number().and_then(|n| history.keps.get(&n)) else {
            continue;
        };
        let url = format!("{base}{}", paths.dirs[i]);
        for old in &kh.paths {
            let key = old.strip_suffix("/kep.yaml").unwrap_or(old);
            paths
                .by_path
                .entry(key.to_string())
                .or_insert_with(|| url.clone());
        }
    }
}

/// The files of `local` (paths relative to the KEP directory) that `html`
/// links or shows: its `href` and `src` values, unescaped and
/// percent-decoded, without query or fragment.
fn linked<'l>(html: &str, local: &'l BTreeSet<String>) -> impl Iterator<Item = &'l String> + 'l {
    let mut named = BTreeSet::new();
    if !local.is_empty() {
        for attr in [" href=\"", " src=\""] {
            for value in html.split(attr).skip(1).filter_map(|v| v.split('"').next()) {
                let value = value
                    .replace("&quot;", "\"")
                    .replace("&#39;", "'")
                    .replace("&lt;", "<")
                    .replace("&gt;", ">")
                    .replace("&amp;", "&");
                let path = value.split(['?', '#']).next().unwrap_or_default();
                let path = percent_encoding::percent_decode_str(path).decode_utf8_lossy();
                named.insert(path.into_owned());
            }
        }
    }
    local.iter().filter(move |rel| named.contains(rel.as_str()))
}

fn local_assets(
    data: &Project,
    paths: &KepPaths,
) -> (Vec<BTreeSet<String>>, BTreeMap<String, String>) {
    let model = &data.model;
    let mut local: Vec<BTreeSet<String>> = vec![BTreeSet::new(); model.keps.len()];
    let mut assets = BTreeMap::new();
    let mut kep_dirs: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, kep) in model.keps.iter().enumerate() {
        if kep.format == KepFormat::Directory {
            kep_dirs.entry(kep.path.as_str()).or_default().push(i);
        }
    }
    for a in model.assets() {
        let mut dir = a.as_str();
        while let Some(slash) = dir.rfind('/') {
            dir = &dir[..slash];
            for &i in kep_dirs.get(dir).into_iter().flatten() {
                let rel = &a[dir.len() + 1..];
                // A name with control characters is a finding, never a file of the site.
                if rel.chars().any(crate::escape::is_control) {
                    continue;
                }
                local[i].insert(rel.to_string());
                assets.insert(format!("{}{rel}", paths.dirs[i]), a.clone());
            }
        }
    }
    (local, assets)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_files_a_readme_links_or_shows_are_linked() {
        let local: BTreeSet<String> = [
            "my pic.png",
            "a&b.svg",
            "img/x.svg",
            "unused.png",
            "été.png",
        ]
        .into_iter()
        .map(String::from)
        .collect();
        let html = r#"<p><img src="my%20pic.png" alt="x"> <a href="a&amp;b.svg#top">b</a>
            <img src="img/x.svg?raw=true"> <img src="%C3%A9t%C3%A9.png"> unused.png as text
            <a href="https://example.org/unused.png">elsewhere</a></p>"#;
        let got: Vec<&String> = linked(html, &local).collect();
        assert_eq!(got, ["a&b.svg", "img/x.svg", "my pic.png", "été.png"]);
        assert_eq!(linked("", &local).count(), 0);
    }
}
