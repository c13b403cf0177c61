//! The fast path of a README-only edit: [`State::preview`] re-renders the
//! edited KEP's own page before the full update.

use std::collections::BTreeSet;

use serde_json::Value;

use super::{Changed, State, broken};
use crate::kep;
use crate::repo;
use crate::site::markdown::{self, Links};
use crate::site::render_page;
use crate::urls::kep_paths;

impl State {
    /// The fast first step for a README-only edit: re-render the edited
    /// KEP's own page with the new README body, from the page's last
    /// context, before [`State::apply`] re-plans everything (listings,
    /// search, analysis panels). Returns the output paths that changed;
    /// nothing when the batch is not a README-only edit.
    pub fn preview(&mut self, changed: &Changed) -> Vec<String> {
        let mut out = BTreeSet::new();
        if changed.theme || changed.sigs {
            return Vec::new();
        }
        let (paths_changed, _) = self.classify(&changed.repo);
        let readmes: Option<Vec<(usize, String)>> = paths_changed
            .iter()
            .map(|path| {
                let i = self.data.model.keps.iter().position(|k| {
                    k.readme_path.as_deref() == Some(path.as_str())
                        && k.format == kep::KepFormat::Directory
                })?;
                let bytes = repo::read_asset(&self.data.model.source, path)?;
                Some((i, String::from_utf8(bytes).ok()?))
            })
            .collect();
        // Anything but READMEs that read as text: the full update handles it.
        let Some(readmes) = readmes else {
            return Vec::new();
        };
        let base = self.config.site.base_url.clone();
        let paths = kep_paths(&self.data.model, &base);
        for (i, readme) in readmes {
            let old = &self.data.model.keps[i];
            if broken(old) || old.readme == readme {
                continue;
            }
            let mut new = old.clone();
            new.readme = readme;
            let key = format!("{}index.html", paths.dirs[i]);
            let Some(mut page) = self.pages.get(&key).cloned() else {
                continue;
            };
            let prefix = format!("{}/", new.path);
            let local: BTreeSet<String> = if new.format == kep::KepFormat::Directory {
                self.data
                    .model
                    .assets
                    .iter()
                    .filter_map(|a| a.strip_prefix(&prefix).map(str::to_string))
                    .collect()
            } else {
                BTreeSet::new()
            };
            let links = Links {
                keps: &paths.by_path,
                local_assets: &local,
                repo_url: &self.config.site.repo_url,
                branch: &self.config.site.branch,
            };
            let from = new.readme_path.as_deref().unwrap_or(&new.metadata_path);
            let r = markdown::render_titled(
                &new.readme,
                from,
                &links,
                &paths.titles,
                &self.highlighter,
            );
            let Value::Object(ctx) = &mut page.context else {
                continue;
            };
            ctx.insert("body".into(), Value::String(r.html));
            ctx.insert(
                "toc".into(),
                serde_json::to_value(&r.toc).unwrap_or_default(),
            );
            if let Ok((_, bytes)) = render_page(&self.theme.tera, page) {
                self.put(&key, bytes, &mut out);
            }
        }
        out.into_iter().collect()
    }
}
