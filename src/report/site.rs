//! The report on the portal: [`Project`] (model, analysis, history) → one
//! page context per release, for `releases/vX.Y/report/index.html` (theme
//! template `report.html`), with KEP links to the portal's own pages.

use rayon::prelude::*;
use serde_json::Value;

use super::{Inputs, KepLinks, Options, build_with_urls, kep_urls, render};
use crate::analysis::calendar::Current;
use crate::analysis::outcome;
use crate::kep::domain::Release;
use crate::project::Project;

/// `(output path, title, context)` of every release's report page.
pub fn pages(
    data: &Project,
    base: &str,
    repo_url: &str,
    branch: &str,
) -> Vec<(String, String, Value)> {
    let model = &data.model;
    let current = data.analysis.current;
    let urls = kep_urls(
        model,
        &site_options(current.release, current, base, repo_url, branch),
    );
    outcome::releases(model, &current)
        .par_iter()
        .map(|release| {
            let inputs = Inputs {
                model,
                analysis: &data.analysis,
                history: data.history.as_ref(),
                since: None,
                team: data.team.as_ref(),
                code: data.code.as_ref(),
            };
            let opts = site_options(*release, current, base, repo_url, branch);
            let report = build_with_urls(&inputs, &opts, &urls);
            (
                format!("releases/{release}/report/index.html"),
                format!("Enhancements status: {release}"),
                {
                    let mut ctx = render::context(&report);
                    ctx["announcement"] =
                        render::render(&report, render::ReportFormat::Announcement, None)
                            .map(Value::String)
                            .unwrap_or(Value::Null);
                    ctx
                },
            )
        })
        .collect()
}

/// The options of the report on `release`'s site page.
fn site_options(
    release: Release,
    current: Current,
    base: &str,
    repo_url: &str,
    branch: &str,
) -> Options {
    Options {
        release,
        current,
        links: KepLinks::Site(base.to_string()),
        repo_url: repo_url.to_string(),
        branch: branch.to_string(),
        freeze: None,
        today: None,
    }
}
