//! The theme of `serve`: loaded with plain static URLs, and reloaded on an
//! edit.

use std::collections::{BTreeSet, HashMap};

use anyhow::Result;
use serde_json::Value;

use super::{State, chain};
use crate::theme::{self, Theme};

impl State {
    /// Reload the theme; whether it changed.
    pub(super) fn reload_theme(&mut self) -> bool {
        let theme = match load_theme(self.config.theme.as_deref(), &self.config.site.base_url) {
            Ok(t) => t,
            Err(e) => {
                self.problems.insert("theme".into(), chain(&e));
                return false;
            }
        };
        self.problems.remove("theme");
        let changed = theme.sources != self.theme.sources || theme.statics != self.theme.statics;
        self.theme = theme;
        changed
    }
}

/// Load the theme for serving. `static_url(name=...)` gives the plain
/// `static/<name>` URL rather than the build's content-hashed copy: served
/// pages are revalidated on every view anyway, and this way a stylesheet
/// edit changes no page (open pages swap the stylesheet in place).
pub(super) fn load_theme(dir: Option<&std::path::Path>, base: &str) -> Result<Theme> {
    let mut theme = theme::load(dir)?;
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
