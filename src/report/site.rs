//! The report on the portal: [`SiteData`] (model, analysis, history) → one
//! page context per release, for `releases/vX.Y/report/index.html` (theme
//! template `report.html`), with KEP links to the portal's own pages.

use rayon::prelude::*;
use serde_json::Value;

use super::{Inputs, Links, Options, build, releases, render};
use crate::site::SiteData;

/// `(output path, title, context)` of every release's report page.
pub fn pages(
    data: &SiteData,
    base: &str,
    repo_url: &str,
    branch: &str,
) -> Vec<(String, String, Value)> {
    let model = &data.model;
    releases(model)
        .par_iter()
        .map(|release| {
            let inputs = Inputs {
                model,
                analysis: &data.analysis,
                history: data.history.as_ref(),
                since: None,
                issues: None,
            };
            let opts = Options {
                release: release.clone(),
                links: Links::Site(base.to_string()),
                repo_url: repo_url.to_string(),
                branch: branch.to_string(),
                freeze: None,
                today: None,
            };
            let report = build(&inputs, &opts);
            (
                format!("releases/{release}/report/index.html"),
                format!("Enhancements status: {release}"),
                render::context(&report),
            )
        })
        .collect()
}
