//! The fast path of a README-only edit: [`State::preview`] renders the
//! edited KEPs' own pages, through the site's plan, before the full update.

use std::collections::{BTreeMap, BTreeSet};

use super::{Changed, State, broken};
use crate::kep::{self, Kep, KepFormat};
use crate::model::KepId;
use crate::repo::{self, RepoFile};
use crate::site::{self, Engine};

impl State {
    /// The fast first step for a README-only edit: each edited KEP is read
    /// again with its new README (by the model's loader) and analysed
    /// again alone, and its page is planned and rendered as `build` does
    /// (so it is what a build of the edited files writes), before
    /// [`State::apply`] loads and renders everything (listings, search,
    /// other KEPs' pages). Returns the output paths that changed; nothing
    /// when the batch is not a README-only edit.
    pub fn preview(&mut self, changed: &Changed) -> Vec<String> {
        if changed.theme || changed.sigs {
            return Vec::new();
        }
        let (paths_changed, _) = self.classify(&changed.repo);
        let edits: Option<Vec<Option<(KepId, Kep)>>> =
            paths_changed.iter().map(|p| self.read_edit(p)).collect();
        // Anything but READMEs that read: the full update handles it.
        let Some(edits) = edits else {
            return Vec::new();
        };
        let edits: Vec<(KepId, Kep)> = edits.into_iter().flatten().collect();
        if edits.is_empty() {
            return Vec::new();
        }
        let edited: Vec<KepId> = edits.iter().map(|(i, _)| *i).collect();
        let engine = Engine {
            tera: &self.theme.tera,
            statics: &BTreeMap::new(),
            hl: &self.highlighter,
        };
        let opts = &self.config.site;
        let rendered = self.data.with_keps(edits, |data| {
            edited
                .iter()
                .map(|&i| site::render_kep(data, i, opts, &engine))
                .collect::<Vec<_>>()
        });
        let mut out = BTreeSet::new();
        // A page that does not render keeps its last version: the full
        // update reports it.
        for (path, bytes) in rendered.into_iter().flatten().flatten() {
            self.put(&path, bytes, &mut out);
        }
        out.into_iter().collect()
    }

    /// The directory KEP whose README is `path`, read again with the README
    /// as it is now: `None` when `path` is no such README or does not read,
    /// `Some(None)` when there is nothing to preview (the KEP did not load,
    /// or does not now, or its README is unchanged).
    fn read_edit(&self, path: &str) -> Option<Option<(KepId, Kep)>> {
        let model = &self.data.model;
        let i = model.keps.iter().position(|k| {
            k.readme_path.as_deref() == Some(path) && k.format == KepFormat::Directory
        })?;
        let old = &model.keps[i];
        let readme = RepoFile {
            path: path.to_string(),
            bytes: repo::read_asset(&model.source, path)?,
        };
        if broken(old) || readme.bytes == old.readme_text().as_bytes() {
            return Some(None);
        }
        // kep.yaml as the model read it: the edit is the README's alone.
        let (yaml, _) = model.source_text(&old.metadata_path)?;
        let yaml = RepoFile {
            path: old.metadata_path.clone(),
            bytes: yaml.as_bytes().to_vec(),
        };
        let new = kep::parse_directory(&old.path, &yaml, Some(readme));
        Some((!broken(&new)).then_some((KepId(i), new)))
    }
}
