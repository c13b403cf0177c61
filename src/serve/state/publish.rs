//! How [`State`] publishes: the site's engine renders every file into
//! memory ([`Served`], its sink), and the files being served are replaced
//! only where their bytes change (each change noted for the reload signal).
//! An edited asset alone is only read again.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use anyhow::Result;
use rayon::prelude::*;

use super::{ServedFile, State, chain};
use crate::site::plan::Page;
use crate::site::{self, Engine, Memory, Sink};

/// Serve's sink: the files in memory, and the pages that failed to render.
#[derive(Default)]
struct Served {
    files: Memory,
    /// Output path and error of each page that failed.
    failed: Mutex<Vec<(String, String)>>,
    rendered: AtomicUsize,
}

impl Sink for Served {
    fn put(&self, path: &str, bytes: &[u8]) -> Result<()> {
        self.files.put(path, bytes)
    }

    fn failed(&self, path: &str, e: anyhow::Error) -> Result<()> {
        let mut failed = site::lock(&self.failed);
        failed.push((path.to_string(), chain(&e)));
        Ok(())
    }

    fn page(&self, _page: &Page) {
        self.rendered.fetch_add(1, Ordering::Relaxed);
    }
}

impl State {
    pub(super) fn put(&mut self, path: &str, bytes: Vec<u8>, out: &mut BTreeSet<String>) {
        if self.files.get(path).is_some_and(|e| e.bytes == bytes) {
            return;
        }
        self.put_entry(path, ServedFile::new(path, bytes), out);
    }

    /// Like [`State::put`], for an entry already hashed.
    pub(super) fn put_entry(&mut self, path: &str, entry: ServedFile, out: &mut BTreeSet<String>) {
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

    /// Render the whole site through the site's engine into memory and
    /// publish the files whose bytes changed; remove those no longer
    /// rendered. A page that fails to render keeps its last version, and the
    /// failures become the `templates` problem. Returns the number of pages
    /// rendered.
    pub(super) fn render(&mut self, out: &mut BTreeSet<String>) -> usize {
        let statics: BTreeMap<String, Vec<u8>> = self
            .theme
            .statics
            .iter()
            .map(|(n, b)| (format!("static/{n}"), b.clone()))
            .collect();
        let engine = Engine {
            tera: &self.theme.tera,
            statics: &statics,
            hl: &self.highlighter,
        };
        let readmes = self.data.readmes();
        let sink = Served::default();
        let rendered = site::render(
            &self.data,
            readmes,
            &self.config.site,
            &engine,
            &mut self.cache,
            &sink,
        );
        match rendered {
            Ok(assets) => self.assets = assets,
            Err(e) => {
                self.problems.insert("site".into(), chain(&e));
                return 0;
            }
        }
        self.problems.remove("site");
        let Served {
            files,
            failed,
            rendered,
        } = sink;
        let failed = failed.into_inner().unwrap_or_else(|e| e.into_inner());
        let mut files = files.into_files();
        for (path, _) in &failed {
            if let Some(old) = self.files.get(path) {
                files.insert(path.clone(), old.bytes.clone());
            }
        }
        self.publish(files, out);
        self.note_failures(failed.into_iter().map(|(_, e)| e).collect());
        rendered.into_inner()
    }

    /// Serve exactly `files`: publish those whose bytes changed and remove
    /// the others.
    fn publish(&mut self, files: BTreeMap<String, Vec<u8>>, out: &mut BTreeSet<String>) {
        let gone: Vec<String> = self
            .files
            .keys()
            .filter(|p| !files.contains_key(*p))
            .cloned()
            .collect();
        for p in gone {
            self.remove(&p, out);
        }
        let current = &self.files;
        // Hashed in parallel.
        let fresh: Vec<(String, ServedFile)> = files
            .into_par_iter()
            .filter(|(p, b)| current.get(p).is_none_or(|e| &e.bytes != b))
            .map(|(p, b)| {
                let e = ServedFile::new(&p, b);
                (p, e)
            })
            .collect();
        for (p, e) in fresh {
            self.put_entry(&p, e, out);
        }
    }

    /// The `templates` problem from the pages that failed to render (none:
    /// the problem goes).
    pub(super) fn note_failures(&mut self, mut failures: Vec<String>) {
        if failures.is_empty() {
            self.problems.remove("templates");
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
        let bytes =
            crate::repo::read_assets(&self.data.model.source, repo_paths).unwrap_or_default();
        let targets: Vec<(String, String)> = self
            .assets
            .iter()
            .filter(|(_, r)| bytes.contains_key(*r))
            .map(|(o, r)| (o.clone(), r.clone()))
            .collect();
        for (o, r) in targets {
            if let Some(b) = bytes.get(&r) {
                self.put(&o, b.clone(), out);
            }
        }
    }
}
