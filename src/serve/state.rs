//! The in-memory site of `serve`: [`Config`] → [`State`] (the [`Project`],
//! the theme, the plan cache and the files being served), and
//! [`State::apply`], which takes the paths that changed ([`Changed`]) and
//! publishes what changed, through the same pipeline as `build`:
//!
//! - a change to the repository loads the [`Project`] again from its
//!   [`Input`] (an asset alone is only read again);
//! - the site is rendered by the build's own engine into a memory sink, with
//!   a [`PlanCache`] (rendered READMEs are reused when their inputs are
//!   unchanged, the search index is updated per document), and only the
//!   files whose bytes changed are published;
//! - before that, a README-only edit renders its KEP's page alone, through
//!   the same plan ([`State::preview`]), so the page being edited reloads
//!   at once;
//! - a KEP that stops parsing, a theme that does not load or a page that does
//!   not render becomes a [`Problem`]: the last good pages stay served.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Result;

use crate::finding::{Finding, Severity};
use crate::kep::Kep;
use crate::model::Model;
use crate::project::{Input, Needs, Project};
use crate::repo;
use crate::site::SiteOptions;
use crate::site::highlight::Highlighter;
use crate::site::plan::PlanCache;
use crate::theme::Theme;

mod preview;
mod publish;
mod theme;

use theme::load_theme;

/// What to serve.
#[derive(Debug, Clone)]
pub struct Config {
    /// The enhancements checkout (its working tree) and sigs.yaml.
    pub input: Input,
    /// A theme directory overriding the default theme.
    pub theme: Option<PathBuf>,
    /// Site options (`out` is unused: nothing is written).
    pub site: SiteOptions,
    /// Whether and how to walk the git history, once at start (edits are
    /// not commits).
    pub walk: crate::project::Walk,
}

/// One served file.
#[derive(Debug)]
pub struct ServedFile {
    /// The bytes.
    pub bytes: Vec<u8>,
    /// A hash of the bytes, for `ETag`.
    pub hash: u64,
    /// `Content-Type`.
    pub content_type: &'static str,
}

impl ServedFile {
    fn new(path: &str, bytes: Vec<u8>) -> ServedFile {
        ServedFile {
            hash: crate::hash::hash64(&bytes),
            content_type: content_type(path),
            bytes,
        }
    }
}

/// Something that keeps the site from reflecting the files on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// What it is about: a file path, `theme`, `templates` or `repository`.
    pub subject: String,
    /// The message, with the cause chain.
    pub message: String,
}

/// The paths a watcher saw change.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Changed {
    /// Repository paths (relative, `/`-separated).
    pub repo: BTreeSet<String>,
    /// Whether anything in the theme directory changed.
    pub theme: bool,
    /// Whether sigs.yaml changed.
    pub sigs: bool,
}

/// What [`State::apply`] did.
#[derive(Debug, Clone, Default)]
pub struct Outcome {
    /// Output paths whose bytes changed (added, replaced or removed), sorted.
    pub files: Vec<String>,
    /// Whether the problems changed.
    pub problems_changed: bool,
    /// Whether the repository was reloaded whole (rather than one KEP re-parsed).
    pub full_reload: bool,
    /// Pages rendered.
    pub rendered: usize,
    /// Wall time.
    pub took: Duration,
}

impl Outcome {
    /// Whether open pages should reload.
    pub fn visible(&self) -> bool {
        !self.files.is_empty() || self.problems_changed
    }
}

/// The model, its analysis and findings, the theme, and the served files.
pub struct State {
    config: Config,
    /// Model, analysis, findings and history.
    data: Project,
    highlighter: Highlighter,
    theme: Theme,
    cache: PlanCache,
    /// Asset copies: output path → repository path.
    assets: BTreeMap<String, String>,
    files: HashMap<String, Arc<ServedFile>>,
    problems: BTreeMap<String, String>,
}

/// Names editors write beside the file they save.
fn editor_temp(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.starts_with('.')
        || name.ends_with('~')
        || name.ends_with(".swp")
        || name.ends_with(".swx")
        || name.ends_with(".tmp")
        || name == "4913"
}

fn chain(e: &anyhow::Error) -> String {
    e.chain()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(": ")
}

/// Whether a KEP failed to load: its metadata did not parse, or one of its
/// files could not be read or decoded.
fn broken(kep: &Kep) -> bool {
    !kep.meta_ok
        || kep.load_findings.iter().any(|f| {
            f.severity == Severity::Error
                && (f.rule.ends_with("-parse")
                    || f.rule.starts_with("file-")
                    || f.rule == "kep-yaml-without-readme")
        })
}

fn describe(kep: &Kep) -> String {
    let mut lines: Vec<String> = kep
        .load_findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .map(|f| match f.line {
            Some(l) => format!("{}:{l}: {} [{}]", f.path, f.message, f.rule),
            None => format!("{}: {} [{}]", f.path, f.message, f.rule),
        })
        .collect();
    if lines.is_empty() {
        lines.push(format!("{}: does not load", kep.metadata_path));
    }
    lines.push("the page shows the last version that loaded".into());
    lines.join("\n")
}

impl State {
    /// Load the repository and render the whole site. A theme that does not
    /// load falls back to the default one and is reported as a problem.
    pub fn new(config: Config) -> Result<State> {
        let data = Project::load(&config.input, &Needs::everything(config.walk.clone()))?;
        let mut problems = BTreeMap::new();
        let base = config.site.base_url.clone();
        let theme = match load_theme(config.theme.as_deref(), &base) {
            Ok(t) => t,
            Err(e) => {
                problems.insert("theme".to_string(), chain(&e));
                load_theme(None, &base)?
            }
        };
        let mut state = State {
            config,
            data,
            highlighter: Highlighter::new(),
            theme,
            cache: PlanCache::reusing(),
            assets: BTreeMap::new(),
            files: HashMap::new(),
            problems,
        };
        state.render(&mut BTreeSet::new());
        Ok(state)
    }

    /// The served files, by output path.
    pub fn files(&self) -> &HashMap<String, Arc<ServedFile>> {
        &self.files
    }

    /// What keeps the site from matching the files on disk.
    pub fn problems(&self) -> Vec<Problem> {
        self.problems
            .iter()
            .map(|(s, m)| Problem {
                subject: s.clone(),
                message: m.clone(),
            })
            .collect()
    }

    /// The model being served.
    pub fn model(&self) -> &Model {
        &self.data.model
    }

    /// The findings of the model being served.
    pub fn findings(&self) -> &[Finding] {
        &self.data.findings
    }

    /// Bring the site up to date with `changed`.
    pub fn apply(&mut self, changed: &Changed) -> Outcome {
        let started = Instant::now();
        let before = self.problems.clone();
        let mut out = BTreeSet::new();
        let mut outcome = Outcome::default();
        let (repo_changed, assets_only) = self.classify(&changed.repo);
        let mut model_changed = false;
        if changed.sigs || (!repo_changed.is_empty() && !assets_only) {
            outcome.full_reload = true;
            model_changed = self.reload_all();
        }
        let theme_changed = changed.theme && self.reload_theme();
        // Pages that failed to render are tried again on every change.
        if model_changed || theme_changed || self.problems.contains_key("templates") {
            outcome.rendered = self.render(&mut out);
        } else if !repo_changed.is_empty() {
            self.refresh_assets(&repo_changed, &mut out);
        }
        outcome.files = out.into_iter().collect();
        outcome.problems_changed = before != self.problems;
        outcome.took = started.elapsed();
        outcome
    }

    /// The repository paths of `paths` that can change the site (editors'
    /// temporaries and unwatched files left out), and whether they are all
    /// assets the site copies (which need no reload, only a read).
    fn classify(&self, paths: &BTreeSet<String>) -> (BTreeSet<String>, bool) {
        let wanted: BTreeSet<String> = paths
            .iter()
            .filter(|p| repo::is_wanted(p) && !editor_temp(p))
            .cloned()
            .collect();
        let assets_only = wanted.iter().all(|p| {
            self.data.model.assets().binary_search(p).is_ok()
                && self.config.input.root.join(p).is_file()
        });
        (wanted, assets_only)
    }

    /// Reload the whole repository. KEPs that stopped parsing keep their last
    /// good version. Returns whether anything changed.
    fn reload_all(&mut self) -> bool {
        let mut model = match self.config.input.model() {
            Ok(m) => m,
            Err(e) => {
                self.problems.insert("repository".into(), chain(&e));
                return false;
            }
        };
        self.problems.remove("repository");
        let old: HashMap<&str, &Kep> = self
            .data
            .model
            .keps
            .iter()
            .map(|k| (k.path.as_str(), k))
            .collect();
        let mut live = BTreeSet::new();
        for kep in &mut model.keps {
            let subject = kep.metadata_path.clone();
            live.insert(subject.clone());
            if !broken(kep) {
                self.problems.remove(&subject);
                continue;
            }
            match old.get(kep.path.as_str()) {
                Some(prev) if !broken(prev) => {
                    self.problems.insert(subject, describe(kep));
                    *kep = (*prev).clone();
                }
                _ => {}
            }
        }
        // Problems about KEPs that no longer exist go away with them.
        let subjects: Vec<String> = self.problems.keys().cloned().collect();
        for s in subjects {
            if s.starts_with("keps/") && !live.contains(&s) {
                self.problems.remove(&s);
            }
        }
        if model == self.data.model && model.sigs == self.data.model.sigs {
            return false;
        }
        self.data = Project::reload(model, &mut self.data, &self.config.input);
        true
    }
}

/// The `Content-Type` of an output path.
pub fn content_type(path: &str) -> &'static str {
    let ext = path
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "html" | "htm" => "text/html; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "json" => "application/json",
        "xml" => "application/xml",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "ico" => "image/x-icon",
        "pdf" => "application/pdf",
        "txt" => "text/plain; charset=utf-8",
        "md" => "text/markdown; charset=utf-8",
        "yaml" | "yml" => "application/yaml",
        "woff2" => "font/woff2",
        "woff" => "font/woff",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests;
