//! The report on the portal: [`Project`] (model, analysis, history) → one
//! page context per release, for `releases/vX.Y/report/index.html` (theme
//! template `report.html`), with KEP links to the portal's own pages; and,
//! from the release in progress's report, the team's messages: each KEP's
//! issue comment at the snapshot's phase (`releases/vX.Y/comments/`,
//! template `comments.html`) and each SIG's outreach message.

use std::collections::BTreeMap;

use rayon::prelude::*;
use serde_json::{Value, json};

use super::comments::{self, Case, Phase};
use super::outreach::sig_messages;
use super::{Inputs, KepLinks, Options, Report, build_with_urls, kep_urls, render};
use crate::analysis::calendar::Current;
use crate::analysis::outcome;
use crate::kep::domain::Release;
use crate::project::Project;

/// `(output path, title, context)` of a page.
pub type PageCtx = (String, String, Value);

/// The reports of a portal: the release in progress's built first, since
/// the SIG pages read its outreach messages while the other reports build.
pub struct Reports<'a> {
    data: &'a Project,
    base: &'a str,
    repo_url: &'a str,
    branch: &'a str,
    urls: Vec<String>,
    /// Every release with a report page.
    releases: Vec<Release>,
    /// The releases' views, as the listings take them (reused, not taken again).
    views: &'a [outcome::ReleaseView],
    /// The release in progress's report, when it has one.
    pub current: Option<Report>,
}

/// The team's messages for the release in progress, at the snapshot's phase.
pub struct TeamMessages {
    /// The release.
    pub release: Release,
    /// The phase the comments are for.
    pub phase: Phase,
    /// Each SIG's outreach message (Markdown), by SIG.
    pub outreach: BTreeMap<String, String>,
}

impl<'a> Reports<'a> {
    /// The KEP links, and the release in progress's report; `views`: the
    /// releases' views the site's listings read (any release missing there
    /// has its view taken when its report is built).
    pub fn new(
        data: &'a Project,
        base: &'a str,
        repo_url: &'a str,
        branch: &'a str,
        views: &'a [outcome::ReleaseView],
    ) -> Self {
        let current = data.analysis.current;
        let urls = kep_urls(
            &data.model,
            &site_options(current.release, current, base, repo_url, branch),
        );
        let mut r = Reports {
            data,
            base,
            repo_url,
            branch,
            urls,
            releases: outcome::releases(&data.model, &current),
            views,
            current: None,
        };
        let in_progress = r
            .releases
            .iter()
            .any(|rel| outcome::phase(&current, *rel) == outcome::Phase::InProgress);
        if in_progress {
            r.current = Some(r.build(current.release));
        }
        r
    }

    fn build(&self, release: Release) -> Report {
        let data = self.data;
        let inputs = Inputs {
            view: self.views.iter().find(|v| v.release == release),
            ..Inputs::of(data)
        };
        let opts = site_options(
            release,
            data.analysis.current,
            self.base,
            self.repo_url,
            self.branch,
        );
        build_with_urls(&inputs, &opts, &self.urls)
    }

    /// The team's messages, when a release is in progress.
    pub fn messages(&self) -> Option<TeamMessages> {
        let r = self.current.as_ref()?;
        Some(TeamMessages {
            release: r.release,
            phase: Phase::current(&self.data.analysis.current),
            outreach: sig_messages(r)
                .into_iter()
                .map(|m| (m.sig, m.text))
                .collect(),
        })
    }

    /// Every release's report page, in parallel.
    pub fn pages(&self) -> Vec<PageCtx> {
        self.releases
            .par_iter()
            .map(|release| {
                let built;
                let report = match &self.current {
                    Some(r) if r.release == *release => r,
                    _ => {
                        built = self.build(*release);
                        &built
                    }
                };
                let mut ctx = render::context(report);
                ctx["announcement"] =
                    render::render(report, render::ReportFormat::Announcement, None)
                        .map(Value::String)
                        .unwrap_or(Value::Null);
                (
                    format!("releases/{release}/report/index.html"),
                    format!("Enhancements status: {release}"),
                    ctx,
                )
            })
            .collect()
    }

    /// The release in progress's comments page: each KEP's issue comment at
    /// the snapshot's phase, grouped by what it asks (action first).
    pub fn comments_page(&self) -> Option<PageCtx> {
        let r = self.current.as_ref()?;
        let phase = Phase::current(&self.data.analysis.current);
        let src = comments::Sources {
            model: &self.data.model,
            analysis: &self.data.analysis,
            team: self.data.team.as_ref(),
        };
        let list = comments::comments(r, &src, phase, &comments::Templates::builtin()).ok()?;
        let rows: BTreeMap<u32, &super::Row> = comments::tracked_rows(r)
            .filter_map(|(k, _)| Some((k.number?, k)))
            .collect();
        // Action first; the KEPs kepsite could not judge apart, to check by hand.
        let unchecked = crate::analysis::readiness::Verdict::NotChecked.id();
        let order = [
            (Case::AtRisk, true, Case::AtRisk.id(), "At risk"),
            (Case::AtRisk, false, unchecked, "Not checked: check by hand"),
            (
                Case::Exception,
                true,
                Case::Exception.id(),
                "Exception required or requested",
            ),
            (
                Case::Removed,
                true,
                Case::Removed.id(),
                "Removed from the milestone",
            ),
            (Case::Tracked, true, Case::Tracked.id(), "Tracked"),
        ];
        let groups: Vec<Value> = order
            .iter()
            .filter_map(|(case, checked, id, label)| {
                let items: Vec<Value> = list
                    .iter()
                    .filter(|c| c.case == *case && c.checked == *checked)
                    .map(|c| {
                        let row = rows.get(&c.kep);
                        json!({
                            "kep": c.kep,
                            "title": row.map(|k| k.title.as_str()),
                            "url": row.map(|k| k.url.as_str()),
                            "sig": row.map(|k| k.sig.as_str()),
                            "stage": row.map(|k| k.stage.as_str()),
                            "board_status": c.board_status,
                            "labels": c.labels,
                            "body": c.body,
                        })
                    })
                    .collect();
                (!items.is_empty()).then(|| json!({ "id": id, "label": label, "items": items }))
            })
            .collect();
        let release = r.release;
        Some((
            format!("releases/{release}/comments/index.html"),
            format!("Issue comments: {release}"),
            json!({
                "release": release.to_string(),
                "phase": phase.id(),
                "phase_title": phase.title(),
                "phases": Phase::ALL.iter().map(|p| json!({ "id": p.id(), "title": p.title() })).collect::<Vec<_>>(),
                "total": list.len(),
                "groups": groups,
                "commit": r.commit,
            }),
        ))
    }
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
