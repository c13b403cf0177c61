//! The Markdown report, for a GitHub issue or a meeting doc: every text
//! from a KEP goes through [`md`], every URL through [`md_url`].

use std::fmt::Write as _;

mod keps;

use super::md;
use crate::analysis::board::Tally;
use crate::analysis::outcome::{Counts, Phase};
use crate::report::{GROUPS, Report};
pub use keps::columns_of;
use keps::keps_section;

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
    apart_section(&mut o, r);
    board_section(&mut o, r);
    keps_section(&mut o, r);
    o
}

/// The KEPs the files tie to the release that are not counted in it.
fn apart_section(o: &mut String, r: &Report) {
    if r.apart.is_empty() {
        return;
    }
    let _ = writeln!(
        o,
        "## Listed apart, not counted ({})

Their files name {} (a stage milestone written ahead, or no opted-in issue); they are not in the release until someone opts them in.
",
        r.apart.len(),
        r.release
    );
    for a in &r.apart {
        let _ = writeln!(
            o,
            "- [{}]({}) ({}): {}",
            md(&kep_label(a.number, &a.title)),
            md_url(&a.url),
            md(&a.sig),
            md(&a.why)
        );
    }
    o.push('\n');
}

/// The board's items whose fields differ from the files, to set.
fn board_section(o: &mut String, r: &Report) {
    let Some(diffs) = &r.board else { return };
    let _ = writeln!(
        o,
        "## Board to update ({})
",
        crate::view::keps(diffs.len())
    );
    if diffs.is_empty() {
        o.push_str("Every item's Status, Stage and SIG agree with kepsite.\n\n");
        return;
    }
    o.push_str("| Item | Field | Board says | Set to |\n|:--|:--|:--|:--|\n");
    for d in diffs {
        for (field, board, want) in &d.fields {
            let _ = writeln!(
                o,
                "| #{} {} | {field} | {} | {} |",
                d.number,
                md(&d.title),
                if board.is_empty() {
                    "–".to_string()
                } else {
                    md(board)
                },
                md(want)
            );
        }
    }
    o.push('\n');
}

/// The title, the summary line and what the report counts.
fn heading(o: &mut String, r: &Report) {
    let s = &r.summary;
    let _ = writeln!(o, "# Enhancements status: {}\n", r.release);
    let _ = writeln!(o, "{}.\n", md(&capital(&s.health.line)));
    let mut facts = vec![match r.membership {
        Some(m) => format!(
            "{} in {}, decided by {}",
            crate::view::keps(s.counts.total),
            r.release,
            m.label()
        ),
        None => format!(
            "{} in {}: named by latest-milestone or a stage milestone{}",
            crate::view::keps(s.counts.total),
            r.release,
            if r.history {
                ", or by latest-milestone at some commit of the default branch"
            } else {
                ""
            }
        ),
    }];
    facts.push(match r.phase {
        Phase::Out => format!(
            "{} is out: each KEP shipped its stage, slipped, or only moved latest-milestone",
            r.release
        ),
        Phase::InProgress => format!(
            "{} is the release in progress; each KEP has the board's status from the checklist of each deadline ({}), judged at the deadline once it has passed",
            r.release,
            r.deadlines
                .iter()
                .map(|d| format!(
                    "{}{}{}",
                    d.name,
                    d.at.as_deref().map(|a| format!(" {a}")).unwrap_or_default(),
                    if d.past { ", passed" } else { "" }
                ))
                .collect::<Vec<_>>()
                .join("; ")
        ),
        Phase::Planned => format!(
            "{} comes after the release in progress ({}): what is planned",
            r.release, r.current
        ),
    });
    if r.shallow {
        facts.push(format!(
            "**partial history**: {}",
            crate::repo::history::SHALLOW_NOTICE
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
    // In progress, a status no KEP has is no column (as in the HTML).
    let cols: Vec<Column> = columns(r.phase)
        .into_iter()
        .enumerate()
        .filter(|(i, (_, f))| r.phase != Phase::InProgress || *i == 0 || f(&s.counts) > 0)
        .map(|(_, c)| c)
        .collect();
    let head: Vec<&str> = cols.iter().map(|(h, _)| *h).collect();
    let align = ":--|--:|".to_string() + &"--:|".repeat(cols.len());
    let cells = |c: &Counts| -> String {
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
        let _ = writeln!(
            o,
            "| {} | {} |{}",
            group_label(&c.label),
            c.counts.total,
            cells(&c.counts)
        );
    }
    let mut total = s.counts;
    total.shipped += total.deprecated;
    let bold: String = cols
        .iter()
        .map(|(_, f)| format!(" **{}** |", f(&total)))
        .collect();
    let _ = writeln!(o, "| **Total** | **{}** |{bold}\n", total.total);
    let _ = writeln!(o, "| SIG | KEPs | {} |\n|{align}", head.join(" | "));
    for c in &s.by_sig {
        let _ = writeln!(
            o,
            "| {} | {} |{}",
            md(&c.label),
            c.counts.total,
            cells(&c.counts)
        );
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

/// The summary's outcome columns for a release's phase: (heading, value).
type Column = (&'static str, fn(&Counts) -> usize);

/// The summary's outcome columns for `phase`.
fn columns(phase: Phase) -> Vec<Column> {
    match phase {
        Phase::Out => vec![
            ("Shipped", |c| c.shipped),
            ("Slipped", |c| c.slipped),
            ("No stage change", |c| c.latest_only),
        ],
        Phase::InProgress => Tally::ALL
            .into_iter()
            .map(|t| -> Column {
                (
                    t.label(),
                    match t {
                        Tally::Tracked => |c| c.tracked,
                        Tally::AtRisk => |c| c.at_risk,
                        Tally::Exception => |c| c.exception,
                        Tally::Removed => |c| c.removed,
                        Tally::Deferred => |c| c.deferred,
                    },
                )
            })
            .collect(),
        Phase::Planned => vec![("Planned", |c| c.planned)],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_urls() {
        assert_eq!(md_url("https://x/a b(c)"), "https://x/ab%28c%29");
    }
}
