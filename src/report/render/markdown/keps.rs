//! The KEP tables of the Markdown report: a [`Report`]'s stage groups →
//! a table per group and SIG, one row per KEP (link, stage, status, the
//! checklist in progress, last change, outcome and its notes).

use std::fmt::Write as _;

use super::{kep_label, md_url, short};
use crate::analysis::freeze::{Check, CheckId, Weight, enhancements_checklist};
use crate::analysis::outcome::{Phase, Tone};
use crate::report::render::md;
use crate::report::{Report, Row};

/// The KEPs, a table per stage group and SIG (with the checklist in progress).
pub(super) fn keps_section(o: &mut String, r: &Report) {
    let checks = r.phase == Phase::InProgress;
    if checks {
        let legend = |w: Weight| -> String {
            columns_of(r)
                .into_iter()
                .filter(|c| c.weight == Some(w))
                .map(|c| format!("**{}** {}", c.short, md(c.label)))
                .collect::<Vec<_>>()
                .join(" · ")
        };
        let _ = writeln!(
            o,
            "## KEPs\n\nEnhancements Freeze checklist (decides): {}.\n\nAdvice (⚠️, never decides): {}.\n",
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
        for c in columns_of(r) {
            let _ = write!(o, " {} |", c.short);
        }
    }
    if r.history {
        o.push_str(" Updated |");
    }
    o.push_str(" Outcome |\n|:--|:--|:--|");
    if checks {
        for _ in columns_of(r) {
            o.push_str(":-:|");
        }
    }
    if r.history {
        o.push_str(":--|");
    }
    o.push_str(":--|\n");
}

/// The Enhancements Freeze checklist's columns of the report's tables: its
/// items, the open-PRs one when any KEP has it (`--prs`).
pub fn columns_of(r: &Report) -> Vec<&'static Check> {
    let has = |id: CheckId| {
        r.groups
            .iter()
            .flat_map(|g| &g.sigs)
            .flat_map(|s| &s.keps)
            .any(|k| k.checklist.iter().any(|i| i.id == id))
    };
    enhancements_checklist()
        .filter(|c| c.weight == Some(Weight::Advice) || has(c.id))
        .collect()
}

/// A row's checklist cells: passes, fails (required), advice.
fn check_cells(o: &mut String, k: &Row, cols: &[&Check]) {
    for c in cols {
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
        check_cells(o, k, &columns_of(r));
    }
    if r.history {
        let _ = write!(o, " {} |", k.last_change.as_deref().unwrap_or("–"));
    }
    let notes = row_notes(k, r);
    let mark = match k.tone {
        Tone::Good => "✅ ",
        Tone::Risk => "⚠️ ",
        Tone::Bad => "❌ ",
        Tone::Neutral => "",
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

/// The notes of a KEP's outcome cell: each deadline's verdict, why it is
/// out, the board's notes, the basis, what fails, where it went, where its
/// stage was recorded, the issue's flags and what the code says.
fn row_notes(k: &Row, r: &Report) -> Vec<String> {
    let mut notes = Vec::new();
    if let Some(t) = &k.tracking {
        let phases: Vec<String> = t
            .phases
            .iter()
            .map(|p| format!("{}: {}", p.freeze.name(p.release), p.verdict().label()))
            .collect();
        notes.push(md(&phases.join(" · ")));
        if let Some(why) = &t.why {
            notes.push(md(why));
        }
        for n in &t.notes {
            notes.push(md(n));
        }
    }
    if let Some(b) = &k.basis
        && k.tone != Tone::Good
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
    notes.extend(super::super::decided_notes(k).iter().map(|n| md(n)));
    if let Some(c) = k.code.as_ref().filter(|c| !c.says.is_empty()) {
        let mark = if c.agrees { "code:" } else { "⚠ code:" };
        notes.push(format!("{mark} {}", md(&c.says)));
    }
    notes
}
