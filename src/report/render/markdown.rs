//! The Markdown report, for a GitHub issue or a meeting doc: every text
//! from a KEP goes through [`md`], every URL through [`md_url`].

use std::fmt::Write as _;

use super::md;
use crate::analysis::freeze::Weight;
use crate::analysis::outcome::Phase;
use crate::report::{CHECKLIST, Count, GROUPS, Report, Row};

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

/// "KEP-N: title", or the title alone for a KEP without a number.
fn kep_label(number: Option<u32>, title: &str) -> String {
    match number {
        Some(n) => format!("KEP-{n}: {title}"),
        None => title.to_string(),
    }
}

/// The coloured dot of a health status.
fn dot(status: &str) -> &'static str {
    match status {
        "green" => "🟢",
        "yellow" => "🟡",
        "red" => "🔴",
        _ => "⚪",
    }
}

/// `s` with its first letter upper-case.
fn capital(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
        .unwrap_or_default()
}

/// A commit id shortened to 8 characters.
fn short(id: &str) -> &str {
    &id[..id.len().min(8)]
}

/// The heading of stage group `id`.
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
    heading(&mut o, r);
    summary(&mut o, r);
    if let Some(since) = &r.since {
        since_section(&mut o, r, since);
    }
    if let Some(is) = &r.issues {
        issues_section(&mut o, r, is);
    }
    keps_section(&mut o, r);
    o
}

/// The title, the health line and what the report counts.
fn heading(o: &mut String, r: &Report) {
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
        "{} in {}: named by latest-milestone or a stage milestone{}",
        crate::view::keps(s.total),
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
        Phase::InProgress if r.frozen => format!(
            "{} is the release in progress, past its Enhancements Freeze: a KEP is judged on its files at the deadline: one that met the checklist there is Tracked, one that met it only later is Tracked late (it needed an exception), one that has not met it Missed the freeze and is out of the release unless an exception request is granted",
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
    if r.shallow {
        facts.push(format!(
            "**partial history**: {}",
            crate::analysis::history::SHALLOW_NOTICE
        ));
    }
    if let Some(c) = &r.commit {
        facts.push(format!("revision `{}`", short(c)));
    }
    let _ = writeln!(o, "{}.\n", facts.join("; "));
}

/// The summary tables: per stage group with a total, then per SIG.
fn summary(o: &mut String, r: &Report) {
    let s = &r.summary;
    let cols = columns(r.phase, r.frozen);
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
        tracked_late: s.tracked_late,
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
}

/// What changed since `--since`, one list per kind of change.
fn since_section(o: &mut String, r: &Report, since: &crate::report::since::Since) {
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
            since_entry(o, r, e);
        }
        o.push('\n');
    }
}

/// One changed KEP: link, SIG, before → after, and up to three commits.
fn since_entry(o: &mut String, r: &Report, e: &crate::report::since::ChangedKep) {
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

/// What the enhancement issues say, and the opted-in issues whose KEP does not follow.
fn issues_section(o: &mut String, r: &Report, is: &crate::report::issues::IssueSummary) {
    let _ = writeln!(
        o,
        "## Issues\n\n{} issues in the file: {} opted in for {}, {} tracked; {} flagged.\n",
        is.issues,
        is.opted_in,
        r.release,
        is.tracked,
        crate::view::keps(is.flagged)
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

/// The KEPs, a table per stage group and SIG (with the checklist in progress).
fn keps_section(o: &mut String, r: &Report) {
    let checks = r.phase == Phase::InProgress;
    if checks {
        let legend = |w: Weight| -> String {
            CHECKLIST
                .iter()
                .filter(|c| c.weight == w)
                .map(|c| format!("**{}** {}", c.short, md(c.label)))
                .collect::<Vec<_>>()
                .join(" · ")
        };
        let _ = writeln!(
            o,
            "## KEPs\n\nChecklist (decides the verdict): {}.\n\nAdvice (⚠️, never decides): {}.\n",
            legend(Weight::Required),
            legend(Weight::Advice)
        );
    } else {
        o.push_str("## KEPs\n\n");
    }
    for g in &r.groups {
        let _ = writeln!(o, "### {} ({})\n", g.label, g.total);
        for sg in &g.sigs {
            let _ = writeln!(o, "#### {} ({})\n", md(&sg.sig), sg.keps.len());
            table_head(o, r, checks);
            for k in &sg.keps {
                md_row(o, k, r, checks);
            }
            o.push('\n');
        }
    }
}

/// The header and alignment lines of a KEP table.
fn table_head(o: &mut String, r: &Report, checks: bool) {
    o.push_str("| KEP | Stage | Status |");
    if checks {
        for c in CHECKLIST {
            let _ = write!(o, " {} |", c.short);
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
}

/// The summary's outcome columns for a release's phase: (heading, value).
type Column = (&'static str, fn(&Count) -> usize);

/// The summary's outcome columns for `phase`.
fn columns(phase: Phase, frozen: bool) -> Vec<Column> {
    match phase {
        Phase::Out => vec![
            ("Shipped", |c| c.shipped),
            ("Slipped", |c| c.slipped),
            ("No stage change", |c| c.latest_only),
        ],
        Phase::InProgress if frozen => vec![
            ("Tracked", |c| c.ready),
            ("Tracked late", |c| c.tracked_late),
            ("Missed the freeze", |c| c.at_risk),
        ],
        Phase::InProgress => vec![("Ready", |c| c.ready), ("At risk", |c| c.at_risk)],
        Phase::Planned => vec![("Planned", |c| c.planned)],
    }
}

/// A row's checklist cells: passes, fails (required), advice.
fn check_cells(o: &mut String, k: &Row) {
    for c in CHECKLIST {
        let item = k.checklist.iter().find(|i| i.id == c.id);
        o.push_str(match item {
            Some(i) if i.ok => " ✅ |",
            Some(i) if i.required => " ❌ |",
            Some(_) => " ⚠️ |",
            None => " – |",
        });
    }
}

/// One KEP's table row: link, stage, status, checklist, last change, outcome.
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
        check_cells(o, k);
    }
    if r.history {
        let _ = write!(o, " {} |", k.last_change.as_deref().unwrap_or("–"));
    }
    let mut notes = Vec::new();
    if let Some(b) = &k.basis
        && k.outcome != "tracked"
    {
        notes.push(md(b));
    }
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
    if let Some(c) = k.code.as_ref().filter(|c| !c.says.is_empty()) {
        let mark = if c.agrees { "code:" } else { "⚠ code:" };
        notes.push(format!("{mark} {}", md(&c.says)));
    }
    let mark = match k.outcome {
        "ready" | "tracked" | "shipped" | "deprecated" => "✅ ",
        "tracked-late" => "⚠️ ",
        "at-risk" | "missed-freeze" | "slipped" => "❌ ",
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_urls() {
        assert_eq!(md_url("https://x/a b(c)"), "https://x/ab%28c%29");
    }
}
