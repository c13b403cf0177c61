//! Rendering: [`Report`] → Markdown (for a GitHub issue or a meeting doc),
//! self-contained HTML (through the theme's `report_standalone.html`), CSV
//! (one row per KEP) or JSON.
//!
//! KEP text is untrusted: Markdown escapes it (and defuses `@` mentions),
//! HTML goes through the theme's autoescaping, CSV defuses formulas.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result};
use serde_json::json;

use super::{CHECKLIST, Count, GROUPS, Report, Row};
use crate::analysis::outcome::Phase;

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Markdown.
    Md,
    /// A self-contained HTML page.
    Html,
    /// One row per KEP.
    Csv,
    /// The whole report.
    Json,
}

/// Render in `format`; `theme` overrides the default theme for HTML.
pub fn render(report: &Report, format: Format, theme: Option<&Path>) -> Result<String> {
    match format {
        Format::Md => Ok(markdown(report)),
        Format::Html => html(report, theme),
        Format::Csv => csv(report),
        Format::Json => {
            let mut s = serde_json::to_string_pretty(report).context("encoding the report")?;
            s.push('\n');
            Ok(s)
        }
    }
}

/// Escape text for Markdown: punctuation that formats, HTML, table pipes,
/// newlines, and `@` (so pasting into GitHub pings nobody).
pub fn md(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\\' | '`' | '*' | '_' | '[' | ']' | '|' | '~' | '#' | '!' => {
                out.push('\\');
                out.push(c);
            }
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '@' => out.push_str("@&#8203;"),
            '\n' | '\r' | '\t' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// A URL inside `(...)` of a Markdown link.
fn md_url(u: &str) -> String {
    u.chars()
        .filter(|c| !c.is_whitespace() && !c.is_control())
        .map(|c| match c {
            '(' => "%28".to_string(),
            ')' => "%29".to_string(),
            '<' => "%3C".to_string(),
            '>' => "%3E".to_string(),
            c => c.to_string(),
        })
        .collect()
}

fn kep_label(number: Option<u32>, title: &str) -> String {
    match number {
        Some(n) => format!("KEP-{n}: {title}"),
        None => title.to_string(),
    }
}

fn dot(status: &str) -> &'static str {
    match status {
        "green" => "🟢",
        "yellow" => "🟡",
        "red" => "🔴",
        _ => "⚪",
    }
}

fn capital(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
        .unwrap_or_default()
}

fn short(id: &str) -> &str {
    &id[..id.len().min(8)]
}

fn group_label(id: &str) -> &str {
    GROUPS
        .iter()
        .find(|(g, _)| *g == id)
        .map(|(_, l)| *l)
        .unwrap_or(id)
}

/// The Markdown report.
pub fn markdown(r: &Report) -> String {
    let mut o = String::new();
    let s = &r.summary;
    let _ = writeln!(o, "# Enhancements status: {}\n", r.release);
    let _ = writeln!(
        o,
        "{} **{}**: {}.\n",
        dot(s.health.status),
        capital(s.health.status),
        md(&s.health.line)
    );
    let mut facts = vec![format!(
        "{} KEPs in {}: named by latest-milestone or a stage milestone{}",
        s.total,
        r.release,
        if r.history {
            ", or by latest-milestone at some commit of the default branch"
        } else {
            ""
        }
    )];
    facts.push(match r.phase {
        Phase::Out => format!(
            "{} is out: each KEP shipped its stage, slipped, or only moved latest-milestone",
            r.release
        ),
        Phase::InProgress => format!(
            "{} is the release in progress: Ready / At risk against the Enhancements Freeze checklist",
            r.release
        ),
        Phase::Planned => format!(
            "{} comes after the release in progress ({}): what is planned",
            r.release, r.current
        ),
    });
    if let Some(c) = &r.commit {
        facts.push(format!("revision `{}`", short(c)));
    }
    let _ = writeln!(o, "{}.\n", facts.join("; "));

    let cols = columns(r.phase);
    let head: Vec<&str> = cols.iter().map(|(h, _)| *h).collect();
    let align = ":--|--:|".to_string() + &"--:|".repeat(cols.len());
    let cells = |c: &Count| -> String {
        cols.iter()
            .map(|(_, f)| format!(" {} |", f(c)))
            .collect::<String>()
    };
    let _ = writeln!(
        o,
        "## Summary\n\n| Stage | KEPs | {} |\n|{align}",
        head.join(" | ")
    );
    for c in &s.by_stage {
        let _ = writeln!(o, "| {} | {} |{}", group_label(&c.label), c.total, cells(c));
    }
    let total = Count {
        label: "total".into(),
        total: s.total,
        ready: s.ready,
        at_risk: s.at_risk,
        shipped: s.shipped + s.deprecated,
        slipped: s.slipped,
        latest_only: s.latest_only,
        planned: s.planned,
    };
    let bold: String = cols
        .iter()
        .map(|(_, f)| format!(" **{}** |", f(&total)))
        .collect();
    let _ = writeln!(o, "| **Total** | **{}** |{bold}\n", s.total);
    let _ = writeln!(o, "| SIG | KEPs | {} |\n|{align}", head.join(" | "));
    for c in &s.by_sig {
        let _ = writeln!(o, "| {} | {} |{}", md(&c.label), c.total, cells(c));
    }
    o.push('\n');

    if let Some(since) = &r.since {
        let _ = writeln!(
            o,
            "## Since `{}` (`{}`, {}; {} commit{} touching keps/)\n",
            since.rev.replace(['`', '\n', '\r'], ""),
            short(&since.commit),
            since.date,
            since.commits,
            if since.commits == 1 { "" } else { "s" }
        );
        let sections = since.sections();
        if sections.iter().all(|(_, v)| v.is_empty()) {
            o.push_str("No changes to the release.\n\n");
        }
        for (title, entries) in sections {
            if entries.is_empty() {
                continue;
            }
            let _ = writeln!(o, "**{title} ({})**\n", entries.len());
            for e in entries {
                let commits: Vec<String> = e
                    .commits
                    .iter()
                    .take(3)
                    .map(|c| {
                        format!(
                            "[`{}`]({}/commit/{})",
                            short(&c.id),
                            md_url(&r.repo_url),
                            md_url(&c.id)
                        )
                    })
                    .collect();
                let _ = writeln!(
                    o,
                    "- [{}]({}) ({}): {} → {}{}",
                    md(&kep_label(e.number, &e.title)),
                    md_url(&e.url),
                    md(&e.sig),
                    md(&e.from),
                    md(&e.to),
                    if commits.is_empty() {
                        String::new()
                    } else {
                        format!(" · {}", commits.join(" "))
                    }
                );
            }
            o.push('\n');
        }
    }

    if let Some(is) = &r.issues {
        let _ = writeln!(
            o,
            "## Issues\n\n{} issues in the file: {} opted in for {}, {} tracked; {} KEPs flagged.\n",
            is.issues, is.opted_in, r.release, is.tracked, is.flagged
        );
        if !is.opted_in_without_kep_change.is_empty() {
            let _ = writeln!(
                o,
                "**Opted in, but the KEP's files do not target {} ({})**\n",
                r.release,
                is.opted_in_without_kep_change.len()
            );
            for m in &is.opted_in_without_kep_change {
                let _ = writeln!(
                    o,
                    "- [#{} {}]({}): {}",
                    m.number,
                    md(&m.title),
                    md_url(&m.url),
                    md(&m.reason)
                );
            }
            o.push('\n');
        }
    }

    let checks = r.phase == Phase::InProgress;
    if checks {
        let legend: Vec<String> = CHECKLIST
            .iter()
            .map(|(_, h, d)| format!("**{h}** {}", md(d)))
            .collect();
        let _ = writeln!(o, "## KEPs\n\nChecklist: {}.\n", legend.join(" · "));
    } else {
        o.push_str("## KEPs\n\n");
    }
    for g in &r.groups {
        let _ = writeln!(o, "### {} ({})\n", g.label, g.total);
        for sg in &g.sigs {
            let _ = writeln!(o, "#### {} ({})\n", md(&sg.sig), sg.keps.len());
            o.push_str("| KEP | Stage | Status |");
            if checks {
                for (_, h, _) in CHECKLIST {
                    let _ = write!(o, " {h} |");
                }
            }
            if r.history {
                o.push_str(" Updated |");
            }
            o.push_str(" Outcome |\n|:--|:--|:--|");
            if checks {
                for _ in CHECKLIST {
                    o.push_str(":-:|");
                }
            }
            if r.history {
                o.push_str(":--|");
            }
            o.push_str(":--|\n");
            for k in &sg.keps {
                md_row(&mut o, k, r, checks);
            }
            o.push('\n');
        }
    }
    o
}

/// The summary's outcome columns for a release's phase: (heading, value).
type Column = (&'static str, fn(&Count) -> usize);

fn columns(phase: Phase) -> Vec<Column> {
    match phase {
        Phase::Out => vec![
            ("Shipped", |c| c.shipped),
            ("Slipped", |c| c.slipped),
            ("No stage change", |c| c.latest_only),
        ],
        Phase::InProgress => vec![("Ready", |c| c.ready), ("At risk", |c| c.at_risk)],
        Phase::Planned => vec![("Planned", |c| c.planned)],
    }
}

fn md_row(o: &mut String, k: &Row, r: &Report, checks: bool) {
    let issue = match &k.issue_url {
        Some(u) => format!(
            " ([#{}]({}))",
            k.number.map(|n| n.to_string()).unwrap_or_default(),
            md_url(u)
        ),
        None => String::new(),
    };
    let _ = write!(
        o,
        "| [{}]({}){} | {} | {} |",
        md(&kep_label(k.number, &k.title)),
        md_url(&k.url),
        if k.number.is_some() {
            issue
        } else {
            String::new()
        },
        if k.stage.is_empty() {
            "–".to_string()
        } else {
            md(&k.stage)
        },
        md(&k.status)
    );
    if checks {
        for (id, _, _) in CHECKLIST {
            let ok = k.checklist.iter().find(|i| i.id == *id).map(|i| i.ok);
            o.push_str(match ok {
                Some(true) => " ✅ |",
                Some(false) => " ❌ |",
                None => " – |",
            });
        }
    }
    if r.history {
        let _ = write!(o, " {} |", k.last_change.as_deref().unwrap_or("–"));
    }
    let mut notes = Vec::new();
    if !k.failing.is_empty() {
        notes.push(md(&k.failing.join("; ")));
    }
    if let Some(w) = &k.went {
        notes.push(md(w));
    }
    if let Some(l) = &k.landed {
        notes.push(format!(
            "recorded [`{}`]({}/commit/{}) on {}",
            short(&l.commit),
            md_url(&r.repo_url),
            md_url(&l.commit),
            l.date
        ));
    }
    for f in &k.flags {
        notes.push(format!("⚠ {}", md(f)));
    }
    let mark = match k.outcome {
        "ready" | "shipped" | "deprecated" => "✅ ",
        "at-risk" | "slipped" => "❌ ",
        _ => "",
    };
    let _ = writeln!(
        o,
        " {mark}{}{} |",
        k.label,
        if notes.is_empty() {
            String::new()
        } else {
            format!(": {}", notes.join("; "))
        }
    );
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
    header.extend(CHECKLIST.iter().map(|(id, _, _)| *id));
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
    w.write_record(&header)?;
    for g in &r.groups {
        for k in g.sigs.iter().flat_map(|s| &s.keps) {
            let mut rec: Vec<String> = vec![
                r.release.to_string(),
                k.number.map(|n| n.to_string()).unwrap_or_default(),
                k.title.clone(),
                k.sig.clone(),
                g.id.to_string(),
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
            for (id, _, _) in CHECKLIST {
                let ok = k.checklist.iter().find(|i| i.id == *id).map(|i| i.ok);
                rec.push(
                    match ok {
                        Some(true) => "yes",
                        Some(false) => "no",
                        None => "",
                    }
                    .into(),
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
            w.write_record(rec.iter().map(|c| cell(c)))?;
        }
    }
    let bytes = w.into_inner().context("writing CSV")?;
    String::from_utf8(bytes).context("CSV is UTF-8")
}

/// The theme context for a report page.
pub fn context(r: &Report) -> serde_json::Value {
    let checklist: Vec<_> = CHECKLIST
        .iter()
        .map(|(id, h, d)| json!({ "id": id, "short": h, "label": d }))
        .collect();
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
        assert_eq!(md_url("https://x/a b(c)"), "https://x/ab%28c%29");
    }

    #[test]
    fn csv_cells_defuse_formulas() {
        assert_eq!(cell("=HYPERLINK(1)"), "'=HYPERLINK(1)");
        assert_eq!(cell("-1"), "'-1");
        assert_eq!(cell("title"), "title");
    }
}
