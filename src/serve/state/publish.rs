//! How [`State`] publishes: the files being served are replaced only where
//! their bytes change (each change noted for the reload signal), from the
//! planned pages (rendered where their context or template changed), the
//! plan's ready files, the asset copies and the theme's static files.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use anyhow::Result;
use rayon::prelude::*;

use super::{Entry, State, chain};
use crate::site::highlight;
use crate::site::plan::{Page, Template, plan_cached};
use crate::site::{assets, render_page};

impl State {
    pub(super) fn put(&mut self, path: &str, bytes: Vec<u8>, out: &mut BTreeSet<String>) {
        if self.files.get(path).is_some_and(|e| e.bytes == bytes) {
            return;
        }
        self.put_entry(path, Entry::new(path, bytes), out);
    }

    /// Like [`State::put`], for an entry already hashed.
    pub(super) fn put_entry(&mut self, path: &str, entry: Entry, out: &mut BTreeSet<String>) {
        if self
            .files
            .get(path)
            .is_some_and(|e| e.hash == entry.hash && e.bytes == entry.bytes)
        {
            return;
        }
        self.files.insert(path.to_string(), Arc::new(entry));
        out.insert(path.to_string());
    }

    pub(super) fn remove(&mut self, path: &str, out: &mut BTreeSet<String>) {
        if self.files.remove(path).is_some() {
            out.insert(path.to_string());
        }
    }

    pub(super) fn put_statics(&mut self, out: &mut BTreeSet<String>) {
        let mut statics: BTreeMap<String, Vec<u8>> = self
            .theme
            .statics
            .iter()
            .map(|(n, b)| (format!("static/{n}"), b.clone()))
            .collect();
        statics
            .entry("static/highlight.css".into())
            .or_insert_with(|| highlight::stylesheet().into_bytes());
        let gone: Vec<String> = self
            .statics
            .iter()
            .filter(|p| !statics.contains_key(*p))
            .cloned()
            .collect();
        for p in gone {
            self.remove(&p, out);
        }
        self.statics = statics.keys().cloned().collect();
        for (p, b) in statics {
            self.put(&p, b, out);
        }
    }

    /// Re-plan the site and render the pages whose context or template
    /// changed. Pages that fail to render keep their last good version.
    /// Returns the number of pages rendered.
    pub(super) fn render(
        &mut self,
        repo_changed: &BTreeSet<String>,
        out: &mut BTreeSet<String>,
    ) -> usize {
        let plan = plan_cached(
            &self.data,
            &self.config.site,
            &self.highlighter,
            &mut self.cache,
        );
        let count = self.publish_pages(plan.pages, out);
        self.publish_files(plan.files, out);
        self.publish_assets(plan.assets, repo_changed, out);
        count
    }

    /// Render the pages whose context or template changed (in parallel) and
    /// publish them; remove the pages no longer planned. A page that fails
    /// keeps its last version, and the failures become the `templates`
    /// problem. Returns the number of pages rendered.
    pub(super) fn publish_pages(
        &mut self,
        planned: Vec<Page>,
        out: &mut BTreeSet<String>,
    ) -> usize {
        let dirty = &self.dirty_templates;
        let pages = &self.pages;
        let needed: Vec<bool> = planned
            .par_iter()
            .map(|p| match pages.get(&p.path) {
                None => true,
                Some(old) => {
                    old.template != p.template
                        || matches!(p.template, Template::Tera(n) if dirty.contains(n))
                        || old.context != p.context
                }
            })
            .collect();
        let tera = &self.theme.tera;
        // Rendered and hashed in parallel.
        let rendered: Vec<Option<Result<Entry>>> = planned
            .par_iter()
            .zip(needed.par_iter())
            .map(|(p, need)| {
                need.then(|| render_page(tera, p.clone()).map(|(path, b)| Entry::new(&path, b)))
            })
            .collect();
        let count = rendered.iter().filter(|r| r.is_some()).count();
        let live: BTreeSet<String> = planned.iter().map(|p| p.path.clone()).collect();
        let mut failures = Vec::new();
        for (page, result) in planned.into_iter().zip(rendered) {
            match result {
                None => {}
                Some(Ok(entry)) => {
                    self.put_entry(&page.path, entry, out);
                    self.pages.insert(page.path.clone(), page);
                }
                Some(Err(e)) => failures.push(chain(&e)),
            }
        }
        let gone: Vec<String> = self
            .pages
            .keys()
            .filter(|p| !live.contains(*p))
            .cloned()
            .collect();
        for p in gone {
            self.pages.remove(&p);
            self.remove(&p, out);
        }
        self.note_failures(failures);
        count
    }

    /// The `templates` problem from the pages that failed to render (none:
    /// the problem goes, and no template is dirty any more).
    pub(super) fn note_failures(&mut self, mut failures: Vec<String>) {
        if failures.is_empty() {
            self.problems.remove("templates");
            self.dirty_templates.clear();
            return;
        }
        let n = failures.len();
        failures.truncate(3);
        let mut msg = failures.join("\n");
        if n > 3 {
            msg.push_str(&format!("\n… and {} more pages", n - 3));
        }
        msg.push_str("\nthose pages show their last version that rendered");
        self.problems.insert("templates".into(), msg);
    }

    /// Publish the plan's ready files (the search index and the JSON) that
    /// changed, and remove those no longer planned.
    pub(super) fn publish_files(
        &mut self,
        planned: BTreeMap<String, Vec<u8>>,
        out: &mut BTreeSet<String>,
    ) {
        let files: BTreeSet<String> = planned.keys().cloned().collect();
        for p in self
            .plan_files
            .difference(&files)
            .cloned()
            .collect::<Vec<_>>()
        {
            self.remove(&p, out);
        }
        let current = &self.files;
        let fresh: Vec<(String, Entry)> = planned
            .into_par_iter()
            .filter(|(p, b)| current.get(p).is_none_or(|e| &e.bytes != b))
            .map(|(p, b)| {
                let e = Entry::new(&p, b);
                (p, e)
            })
            .collect();
        for (p, e) in fresh {
            self.put_entry(&p, e, out);
        }
        self.plan_files = files;
    }

    /// Publish the asset copies that are new, moved or edited (in
    /// `repo_changed`), and remove those no longer planned.
    pub(super) fn publish_assets(
        &mut self,
        planned: BTreeMap<String, String>,
        repo_changed: &BTreeSet<String>,
        out: &mut BTreeSet<String>,
    ) {
        let read: Vec<String> = planned
            .iter()
            .filter(|(o, r)| self.assets.get(*o) != Some(*r) || repo_changed.contains(*r))
            .map(|(_, r)| r.clone())
            .collect();
        let stale: Vec<String> = self
            .assets
            .keys()
            .filter(|o| !planned.contains_key(*o))
            .cloned()
            .collect();
        for o in stale {
            if !self.pages.contains_key(&o) && !self.plan_files.contains(&o) {
                self.remove(&o, out);
            }
        }
        self.assets = planned;
        self.read_assets(&read, out);
    }

    pub(super) fn refresh_assets(
        &mut self,
        repo_paths: &BTreeSet<String>,
        out: &mut BTreeSet<String>,
    ) {
        let read: Vec<String> = self
            .assets
            .values()
            .filter(|r| repo_paths.contains(*r))
            .cloned()
            .collect();
        self.read_assets(&read, out);
    }

    pub(super) fn read_assets(&mut self, repo_paths: &[String], out: &mut BTreeSet<String>) {
        if repo_paths.is_empty() {
            return;
        }
        let bytes = assets::read(&self.data.model.source, repo_paths).unwrap_or_default();
        let targets: Vec<(String, String)> = self
            .assets
            .iter()
            .filter(|(_, r)| bytes.contains_key(*r))
            .map(|(o, r)| (o.clone(), r.clone()))
            .collect();
        for (o, r) in targets {
            // Planned pages win over assets of the same name.
            if self.pages.contains_key(&o) || self.plan_files.contains(&o) {
                continue;
            }
            if let Some(b) = bytes.get(&r) {
                self.put(&o, b.clone(), out);
            }
        }
    }
}
