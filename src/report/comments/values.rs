//! One comment's placeholder values: the report's row and board tracking
//! of a KEP, its files (where each item to update is) and its issue →
//! [`Values`]. Every KEP value is escaped as the announcement escapes it.

use std::collections::BTreeMap;

use super::{Case, Phase, Sources, Values};
use crate::analysis::KepAnalysis;
use crate::analysis::board::Tracking;
use crate::analysis::freeze::{self, CheckId, Checkbox};
use crate::analysis::readiness::{Item, Readiness};
use crate::kep::Kep;
use crate::report::render::prose::prose;
use crate::report::{Report, Row};

/// Where the exception process is described.
pub const EXCEPTION_PROCESS: &str =
    "https://github.com/kubernetes/sig-release/blob/master/releases/EXCEPTIONS.md";

/// `login` (with or without `@`) when it is a GitHub login: 1 to 39 ASCII
/// letters, digits or inner single hyphens.
pub fn login(s: &str) -> Option<&str> {
    let l = s.trim().strip_prefix('@').unwrap_or(s.trim());
    let ok = (1..=39).contains(&l.len())
        && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        && !l.starts_with('-')
        && !l.ends_with('-')
        && !l.contains("--");
    ok.then_some(l)
}

/// Who the comment addresses: the issue's assignees when `--issues` names
/// some, else the KEP's authors; each a valid login, once.
fn mentions(src: &Sources, kep: Option<&Kep>, number: u32) -> Vec<String> {
    let assignees: Vec<&str> = src
        .team
        .and_then(|t| t.issue(number))
        .map(|i| i.assignee_logins())
        .unwrap_or_default();
    let names: Vec<&str> = if assignees.is_empty() {
        kep.map(|k| k.meta.authors.iter().map(String::as_str).collect())
            .unwrap_or_default()
    } else {
        assignees
    };
    let mut out: Vec<String> = Vec::new();
    for l in names.into_iter().filter_map(login) {
        if !out.iter().any(|o| o.eq_ignore_ascii_case(l)) {
            out.push(l.to_string());
        }
    }
    out
}

/// The file and line an item is fixed at, as far as the files say.
fn location(id: CheckId, kep: &Kep, a: &KepAnalysis, src: &Sources, stage: &str) -> String {
    let yaml = |keys: &[&str]| {
        let line = keys.iter().find_map(|k| kep.line(k));
        at(&kep.metadata_path, line)
    };
    let readme = kep.readme_path.as_deref().unwrap_or("README.md");
    match id {
        CheckId::StatusImplementable => yaml(&["status"]),
        CheckId::LatestMilestone => yaml(&["latest-milestone"]),
        CheckId::StageMatches => yaml(&["stage"]),
        CheckId::StageMilestone => yaml(&[&format!("milestone.{stage}"), "milestone"]),
        CheckId::KepYaml => yaml(&["stage", "latest-milestone", "milestone"]),
        CheckId::PrrApproved => match src.model.prr_for(kep) {
            Some(p) => p.path.clone(),
            None => format!(
                "keps/prod-readiness/{}/{}.yaml",
                kep.sig_dir,
                kep.number().map(|n| n.to_string()).unwrap_or_default()
            ),
        },
        CheckId::TestPlanCheckbox => match a.freeze.checkbox {
            Checkbox::Checked(l) | Checkbox::Unchecked(l) => {
                at(readme, Some(l + kep.readme_offset))
            }
            Checkbox::Absent => format!("{readme}, Test Plan"),
        },
        CheckId::RequiredSections | CheckId::PrrQuestionnaire | CheckId::FollowsTemplate => {
            readme.to_string()
        }
        CheckId::NoOpenPrs => "the open pull requests".to_string(),
        CheckId::CodeLanded => "kubernetes/kubernetes".to_string(),
    }
}

fn at(path: &str, line: Option<usize>) -> String {
    match line {
        Some(l) => format!("{path}, line {l}"),
        None => path.to_string(),
    }
}

/// Whether `item` passed as the comment shows it: at the deadline once it
/// has passed, else on these files.
fn ticked(p: &Readiness, item: &Item) -> bool {
    match (&p.deadline, p.frozen) {
        (Some(d), true) => !d.failing.contains(&item.id),
        _ => item.ok,
    }
}

/// The phase's required items as a task list; the Code Freeze's without
/// `--kubernetes` as one unticked item saying so.
fn checklist(p: &Readiness) -> String {
    let mut lines: Vec<String> = p
        .items
        .iter()
        .filter(|i| i.required)
        .map(|i| {
            let mark = if ticked(p, i) { "x" } else { " " };
            let label = freeze::check(i.id).label;
            // Required at this deadline, whatever the Enhancements Freeze makes of it.
            let label = label.strip_prefix("advice: ").unwrap_or(label);
            format!("- [{mark}] {}", prose(label))
        })
        .collect();
    if lines.is_empty() {
        let code = freeze::check(CheckId::CodeLanded).label;
        let why = match &p.not_checked {
            Some(why) => format!("not checked by kepsite: {why}"),
            None => "nothing to check".to_string(),
        };
        lines.push(format!("- [ ] {} ({})", prose(code), prose(&why)));
    }
    lines.join("\n")
}

/// What to update: each unticked required item, where, and what was found.
fn updates(p: &Readiness, kep: Option<(&Kep, &KepAnalysis)>, src: &Sources) -> String {
    let stage = p.stage.as_str();
    let lines: Vec<String> = p
        .items
        .iter()
        .filter(|i| i.required && !ticked(p, i))
        .map(|i| {
            let place = kep.map(|(k, a)| location(i.id, k, a, src, stage));
            let detail = place
                .as_deref()
                .map_or(i.detail.as_str(), |p| without_line(&i.detail, p));
            let place = place
                .map(|p| format!("{}: ", prose(&p)))
                .unwrap_or_default();
            let now = if i.ok { " (done since)" } else { "" };
            format!("- {place}{}{now}", prose(detail))
        })
        .collect();
    if let (true, Some(why)) = (lines.is_empty(), &p.not_checked) {
        format!(
            "- every pull request the KEP needs in Kubernetes is merged (kepsite could not check this: {})",
            prose(why)
        )
    } else if lines.is_empty() {
        "- nothing".to_string()
    } else {
        lines.join("\n")
    }
}

/// `detail` without a closing "(line N)" that `place` already ends with.
pub(super) fn without_line<'a>(detail: &'a str, place: &str) -> &'a str {
    match detail.rsplit_once(" (line ") {
        Some((head, n))
            if n.strip_suffix(')')
                .is_some_and(|n| place.ends_with(&format!("line {n}"))) =>
        {
            head
        }
        _ => detail,
    }
}

/// The deadline as the schedule gives it: "Tuesday 16 June 2026, end of
/// day AoE (2026-06-17 12:00 UTC)" for a deadline at 12:00 UTC (the
/// schedules' "AoE"), else its UTC time.
pub fn deadline(at: jiff::Timestamp) -> String {
    let utc = at.strftime("%Y-%m-%d %H:%M UTC").to_string();
    let z = at.to_zoned(jiff::tz::TimeZone::UTC);
    if (z.hour(), z.minute()) != (12, 0) {
        return utc;
    }
    let aoe = jiff::tz::TimeZone::fixed(jiff::tz::offset(-12));
    let day = at.to_zoned(aoe).date().yesterday().unwrap_or_default();
    format!("{}, end of day AoE ({utc})", day.strftime("%A %-d %B %Y"))
}

/// The Prow commands the case ends with, and the labels they set.
fn commands(r: &Report, phase: Phase, case: Case) -> (String, Vec<String>) {
    match (phase.is_party(), case) {
        (true, Case::Tracked) => (
            format!("/label tracked/yes\n/milestone {}", r.release),
            vec!["tracked/yes".to_string()],
        ),
        (_, Case::Removed) => (
            "/label tracked/no\n/milestone clear".to_string(),
            vec!["tracked/no".to_string()],
        ),
        _ => (String::new(), Vec::new()),
    }
}

/// Every placeholder's value for `row` at `phase`.
pub(super) fn values(
    r: &Report,
    src: &Sources,
    row: &Row,
    t: &Tracking,
    phase: Phase,
    case: Case,
) -> Values {
    let n = row.number.unwrap_or_default();
    let i = src.model.keps.iter().position(|k| k.path == row.path);
    let kep = i.map(|i| (&src.model.keps[i], &src.analysis.keps[i]));
    let p = t.phase(phase.freeze());
    let mentions = mentions(src, kep.map(|(k, _)| k), n);
    let (cmds, labels) = commands(r, phase, case);
    let when = r
        .cycle
        .as_ref()
        .and_then(|c| c.deadline(phase.freeze()))
        .map(deadline)
        .unwrap_or_else(|| "(not in the schedule)".to_string());
    let mut notes: Vec<String> = t.notes.iter().map(|s| format!("- {}", prose(s))).collect();
    if let Some(why) = &t.why {
        notes.push(format!("- {}", prose(why)));
    }
    let m: Vec<String> = mentions.iter().map(|l| format!("@{l}")).collect();
    let stage = if row.stage.is_empty() {
        "with no stage change"
    } else {
        row.stage.as_str()
    };
    let map: BTreeMap<&'static str, String> = [
        ("kep", n.to_string()),
        ("title", prose(&row.title)),
        ("issue", format!("#{n}")),
        (
            "release",
            r.release.to_string().trim_start_matches('v').to_string(),
        ),
        ("stage", prose(stage)),
        ("sig", prose(&row.sig)),
        (
            "mentions",
            if m.is_empty() {
                "there".into()
            } else {
                m.join(" ")
            },
        ),
        ("checklist", checklist(p)),
        ("updates", updates(p, kep, src)),
        ("deadline", when),
        ("deadline_name", phase.freeze().name(r.release).to_string()),
        ("status", prose(&t.label)),
        ("verdict", prose(&p.label())),
        ("commands", cmds),
        ("exception_process", EXCEPTION_PROCESS.to_string()),
        ("notes", notes.join("\n")),
    ]
    .into_iter()
    .collect();
    Values {
        map,
        labels,
        mentions,
    }
}
