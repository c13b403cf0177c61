//! Rendering: [`Report`] → Markdown (for a GitHub issue or a meeting doc),
//! self-contained HTML (through the theme's `report_standalone.html`), CSV
//! (one row per KEP) or JSON.
//!
//! KEP text is untrusted: Markdown escapes it (and defuses `@` mentions),
//! HTML goes through the theme's autoescaping, CSV defuses formulas.

mod announcement;
mod decided;
pub(crate) mod link;
mod markdown;
pub(crate) mod prose;

use std::path::Path;

use anyhow::{Context, Result};
use serde_json::json;

pub use markdown::markdown;

use super::{CHECKLIST, Report, Row};
pub(super) use decided::decided_notes;

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ReportFormat {
    /// Markdown.
    Md,
    /// A self-contained HTML page.
    Html,
    /// One row per KEP.
    Csv,
    /// The whole report.
    Json,
    /// A draft of the release announcement's enhancement sections
    /// (Markdown, in the shape of the Kubernetes release blog post).
    Announcement,
    /// The comment for each KEP's issue at `--phase` (Markdown).
    Comments,
    /// The same comments as JSON objects, for a script.
    CommentsJson,
    /// One Slack-ready message per SIG, then the SIGs with nothing.
    SigOutreach,
    /// A draft of the announcement at the last deadline passed.
    FreezeAnnouncement,
    /// The cycle's numbers, by deadline, stage and SIG (Markdown).
    Retro,
    /// The same numbers as JSON.
    RetroJson,
}

impl ReportFormat {
    /// Whether the format is the issue comments (it needs `--phase`).
    pub fn is_comments(self) -> bool {
        matches!(self, ReportFormat::Comments | ReportFormat::CommentsJson)
    }
}

/// Render in `format`; `theme` overrides the default theme for HTML.
pub fn render(report: &Report, format: ReportFormat, theme: Option<&Path>) -> Result<String> {
    match format {
        ReportFormat::Md => Ok(markdown(report)),
        ReportFormat::Html => html(report, theme),
        ReportFormat::Csv => csv(report),
        ReportFormat::Announcement => Ok(announcement::announcement(report)),
        ReportFormat::Comments | ReportFormat::CommentsJson => {
            anyhow::bail!("the comments are written by report::run, from the project")
        }
        ReportFormat::SigOutreach => Ok(super::outreach::sig_outreach(report, &[])),
        ReportFormat::FreezeAnnouncement => Ok(super::outreach::freeze_announcement(report)),
        ReportFormat::Retro => Ok(super::retro::markdown(&super::retro::retro(report))),
        ReportFormat::RetroJson => {
            let mut s = serde_json::to_string_pretty(&super::retro::retro(report))?;
            s.push('\n');
            Ok(s)
        }
        ReportFormat::Json => {
            let mut s = serde_json::to_string_pretty(report).context("encoding the report")?;
            s.push('\n');
            Ok(s)
        }
    }
}

/// Escape text for Markdown: punctuation that formats, HTML, table pipes,
/// newlines, `@` (so pasting into GitHub pings nobody), `{` (Hugo
/// shortcodes, `{{<` and `{{%`) and control characters. Prose a person
/// edits (the announcement draft) escapes less: [`prose::prose`].
pub fn md(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\\' | '`' | '*' | '_' | '[' | ']' | '|' | '~' | '#' | '!' | '{' => {
                out.push('\\');
                out.push(c);
            }
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '@' => out.push_str("@&#8203;"),
            '\n' | '\r' | '\t' => out.push(' '),
            // Markdown goes to terminals too: a control character is shown.
            c if crate::escape::is_control(c) => {
                out.push_str(&crate::escape::terminal(&c.to_string()))
            }
            c => out.push(c),
        }
    }
    out
}

/// Defuse spreadsheet formulas in a cell (OWASP's advice: prefix `'`).
fn cell(s: &str) -> String {
    if s.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{s}")
    } else {
        s.to_string()
    }
}

/// One CSV row per KEP, in report order.
pub fn csv(r: &Report) -> Result<String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let code = decided::has_code(r);
    let mut header = csv_header();
    if code {
        header.extend(decided::CSV_HEADER);
    }
    w.write_record(header)?;
    for g in &r.groups {
        for k in g.sigs.iter().flat_map(|s| &s.keps) {
            let mut rec = csv_record(r, g.id, k);
            if code {
                rec.extend(decided::csv_cells(k));
            }
            w.write_record(rec.iter().map(|c| cell(c)))?;
        }
    }
    let bytes = w.into_inner().context("writing CSV")?;
    String::from_utf8(bytes).context("CSV is UTF-8")
}

/// The CSV's column names.
fn csv_header() -> Vec<&'static str> {
    let mut header: Vec<&str> = vec![
        "release",
        "number",
        "title",
        "sig",
        "stage_group",
        "stage",
        "status",
        "latest_milestone",
        "outcome",
        "failing",
        "went",
        "landed_commit",
    ];
    header.extend(CHECKLIST.iter().map(|c| c.id.as_str()));
    header.extend(crate::team::Freeze::ALL.iter().map(|f| f.id()));
    header.extend([
        "prr_approver",
        "last_change",
        "targeting_since",
        "url",
        "issue_url",
        "opted_in",
        "tracked",
        "issue_stage",
        "flags",
    ]);
    header
}

/// The CSV cells of KEP `k` in stage group `group`, before defusing.
fn csv_record(r: &Report, group: &str, k: &Row) -> Vec<String> {
    let mut rec: Vec<String> = vec![
        r.release.to_string(),
        k.number.map(|n| n.to_string()).unwrap_or_default(),
        k.title.clone(),
        k.sig.clone(),
        group.to_string(),
        k.stage.clone(),
        k.status.clone(),
        k.latest_milestone.clone(),
        k.label.to_string(),
        k.failing.join("; "),
        k.went.clone().unwrap_or_default(),
        k.landed
            .as_ref()
            .map(|l| l.commit.clone())
            .unwrap_or_default(),
    ];
    for c in CHECKLIST {
        let ok = k.checklist.iter().find(|i| i.id == c.id).map(|i| i.ok);
        rec.push(
            match ok {
                Some(true) => "yes",
                Some(false) => "no",
                None => "",
            }
            .into(),
        );
    }
    for f in crate::team::Freeze::ALL {
        rec.push(
            k.tracking
                .as_ref()
                .map(|t| t.phase(f).verdict().id().to_string())
                .unwrap_or_default(),
        );
    }
    let issue = k.issue.as_ref();
    rec.extend([
        k.prr_approver
            .as_deref()
            .map(crate::kep::prr::handle)
            .unwrap_or_default(),
        k.last_change.clone().unwrap_or_default(),
        k.targeting_since.clone().unwrap_or_default(),
        k.url.clone(),
        k.issue_url.clone().unwrap_or_default(),
        issue
            .map(|i| if i.opted_in { "yes" } else { "no" }.to_string())
            .unwrap_or_default(),
        issue.and_then(|i| i.tracked.clone()).unwrap_or_default(),
        issue.and_then(|i| i.stage.clone()).unwrap_or_default(),
        k.flags.join("; "),
    ]);
    rec
}

/// The theme context for a report page.
pub fn context(r: &Report) -> serde_json::Value {
    let checklist = markdown::columns_of(r);
    let since: Vec<_> = r
        .since
        .iter()
        .flat_map(|s| s.sections())
        .filter(|(_, e)| !e.is_empty())
        .map(|(title, entries)| json!({ "title": title, "entries": entries }))
        .collect();
    json!({ "report": r, "checklist": checklist, "since_sections": since })
}

/// The self-contained HTML report (inline CSS, no external resources).
pub fn html(r: &Report, theme: Option<&Path>) -> Result<String> {
    let theme = crate::theme::load(theme)?;
    let mut ctx = context(r);
    if let Some(m) = ctx.as_object_mut() {
        m.insert(
            "page_title".into(),
            json!(format!("Enhancements status: {}", r.release)),
        );
    }
    let ctx = tera::Context::from_value(ctx).context("report context")?;
    theme
        .tera
        .render("report_standalone.html", &ctx)
        .map_err(|e| {
            let mut msg = e.to_string();
            let mut src = std::error::Error::source(&e);
            while let Some(s) = src {
                msg.push_str(&format!(": {s}"));
                src = s.source();
            }
            anyhow::anyhow!("rendering report_standalone.html: {msg}")
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_escaping() {
        assert_eq!(md("a|b"), "a\\|b");
        assert_eq!(md("<script>"), "&lt;script&gt;");
        assert_eq!(md("[x](javascript:y)"), "\\[x\\](javascript:y)");
        assert_eq!(md("@jpbetz"), "@&#8203;jpbetz");
        assert_eq!(md("a\nb"), "a b");
        assert_eq!(md("{{% x %}}{{< y >}}"), "\\{\\{% x %}}\\{\\{&lt; y &gt;}}");
    }

    #[test]
    fn csv_cells_defuse_formulas() {
        assert_eq!(cell("=HYPERLINK(1)"), "'=HYPERLINK(1)");
        assert_eq!(cell("-1"), "'-1");
        assert_eq!(cell("title"), "title");
    }
}
