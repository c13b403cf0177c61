//! The theme of `serve`: loaded with plain static URLs, and reloaded on an
//! edit with the templates that depend on the edited ones marked for
//! rendering.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use anyhow::Result;
use serde_json::Value;

use super::{State, chain};
use crate::site::highlight;
use crate::theme::{self, Theme};

impl State {
    /// Reload the theme; on success mark the templates that changed (and
    /// those that extend, include or import them) for rendering.
    pub(super) fn reload_theme(&mut self, out: &mut BTreeSet<String>) -> bool {
        let theme = match load_theme(self.config.theme.as_deref(), &self.config.site.base_url) {
            Ok(t) => t,
            Err(e) => {
                self.problems.insert("theme".into(), chain(&e));
                return false;
            }
        };
        self.problems.remove("theme");
        let mut edited: BTreeSet<String> = theme
            .sources
            .iter()
            .filter(|(n, s)| self.theme.sources.get(*n) != Some(*s))
            .map(|(n, _)| n.clone())
            .collect();
        edited.extend(
            self.theme
                .sources
                .keys()
                .filter(|n| !theme.sources.contains_key(*n))
                .cloned(),
        );
        let statics_changed = theme.statics != self.theme.statics;
        self.theme = theme;
        self.dirty_templates
            .extend(dependents(&self.theme.sources, &edited));
        if statics_changed {
            self.put_statics(out);
        }
        !self.dirty_templates.is_empty()
    }
}

/// Load the theme for serving. `static_url(name=...)` gives the plain
/// `static/<name>` URL rather than the build's content-hashed copy: served
/// pages are revalidated on every view anyway, and this way a stylesheet
/// edit changes no page (open pages swap the stylesheet in place).
pub(super) fn load_theme(dir: Option<&std::path::Path>, base: &str) -> Result<Theme> {
    let mut theme = theme::load(dir)?;
    theme
        .statics
        .entry("highlight.css".into())
        .or_insert_with(|| highlight::stylesheet().into_bytes());
    let names: BTreeSet<String> = theme.statics.keys().cloned().collect();
    let base = base.to_string();
    theme.tera.register_function(
        "static_url",
        move |args: &HashMap<String, Value>| -> tera::Result<Value> {
            let name = args
                .get("name")
                .and_then(Value::as_str)
                .ok_or_else(|| tera::Error::msg("static_url needs name=\"<file in static/>\""))?;
            if !names.contains(name) {
                return Err(tera::Error::msg(format!(
                    "static_url: the theme has no static/{name}"
                )));
            }
            Ok(Value::String(format!("{base}static/{name}")))
        },
    );
    Ok(theme)
}

/// Templates that use one of `edited`, directly or through others
/// (`extends`, `include`, `import`), plus `edited` itself.
pub(super) fn dependents(
    sources: &BTreeMap<String, String>,
    edited: &BTreeSet<String>,
) -> BTreeSet<String> {
    let re = regex::Regex::new(r#"\{%-?\s*(?:extends|include|import)\s+"([^"]+)""#)
        .expect("valid regex");
    let uses: BTreeMap<&str, Vec<String>> = sources
        .iter()
        .map(|(n, s)| {
            (
                n.as_str(),
                re.captures_iter(s).map(|c| c[1].to_string()).collect(),
            )
        })
        .collect();
    let mut out = edited.clone();
    loop {
        let before = out.len();
        for (n, used) in &uses {
            if used.iter().any(|u| out.contains(u)) {
                out.insert(n.to_string());
            }
        }
        if out.len() == before {
            return out;
        }
    }
}
