//! The team's other messages, from the report's rows and board tracking:
//! `--format sig-outreach` (one Slack-ready message per SIG with KEPs in
//! the release, those that need action first, then the SIGs with none)
//! and `--format freeze-announcement` (the draft sent at a deadline: what
//! froze, the counts, the exception requests, the next deadline). KEP
//! values are escaped as the announcement escapes them.

use std::collections::BTreeMap;
use std::fmt::Write;

use super::comments::{tracked_rows, values::deadline};
use super::render::prose::prose;
use super::{Report, Row};
use crate::analysis::board::{Tally, Tracking};
use crate::team::Freeze;

/// One SIG's message.
#[derive(Debug, Clone)]
pub struct SigMessage {
    /// The SIG (its directory name, `sig-node`).
    pub sig: String,
    /// The message, Markdown.
    pub text: String,
}

/// One KEP's line: number, title, stage, status, and what is missing.
fn kep_line(k: &Row, t: &Tracking) -> String {
    let n = k.number.map(|n| format!("KEP-{n} ")).unwrap_or_default();
    let stage = if k.stage.is_empty() {
        String::new()
    } else {
        format!(" ({})", prose(&k.stage))
    };
    let mut line = format!("- {n}{}{stage}: *{}*", prose(&k.title), prose(&t.label));
    let missing = t.focus().reasons();
    if t.status.needs_action() && !missing.is_empty() {
        let m: Vec<String> = missing.iter().map(|s| prose(s)).collect();
        let _ = write!(line, ". Missing: {}", m.join("; "));
    }
    line
}

/// One message per SIG with KEPs on the board, by SIG, each with its KEPs
/// that need action first (then by number).
pub fn sig_messages(r: &Report) -> Vec<SigMessage> {
    let mut by_sig: BTreeMap<&str, Vec<(&Row, &Tracking)>> = BTreeMap::new();
    for (k, t) in tracked_rows(r) {
        by_sig.entry(k.sig.as_str()).or_default().push((k, t));
    }
    by_sig
        .into_iter()
        .map(|(sig, mut keps)| {
            keps.sort_by_key(|(k, t)| (!t.status.needs_action(), k.number));
            let act = keps.iter().filter(|(_, t)| t.status.needs_action()).count();
            let mut text = format!(
                "*{}: {} KEP{} in {}, {act} need{} action*\n",
                prose(sig),
                keps.len(),
                if keps.len() == 1 { "" } else { "s" },
                r.release,
                if act == 1 { "s" } else { "" }
            );
            for (k, t) in &keps {
                text.push_str(&kep_line(k, t));
                text.push('\n');
            }
            SigMessage {
                sig: sig.to_string(),
                text,
            }
        })
        .collect()
}

/// Every SIG message, then the SIGs of `all_sigs` with nothing in the release.
pub fn sig_outreach(r: &Report, all_sigs: &[String]) -> String {
    let msgs = sig_messages(r);
    let mut out = format!("# {}: messages to the SIGs\n\n", r.release);
    for m in &msgs {
        out.push_str(&m.text);
        out.push('\n');
    }
    let idle: Vec<String> = all_sigs
        .iter()
        .filter(|s| !msgs.iter().any(|m| &m.sig == *s))
        .map(|s| prose(s))
        .collect();
    let _ = writeln!(
        out,
        "*SIGs with nothing in {}:* {}",
        r.release,
        if idle.is_empty() {
            "none".to_string()
        } else {
            idle.join(", ")
        }
    );
    out
}

/// The deadline the announcement is about: the last one passed, else the
/// next.
fn announced(r: &Report) -> Option<(Freeze, bool)> {
    r.deadlines
        .iter()
        .rev()
        .find(|d| d.past)
        .or(r.deadlines.first())
        .map(|d| (d.freeze, d.past))
}

/// The draft announcement at a deadline of the release in progress.
pub fn freeze_announcement(r: &Report) -> String {
    let Some((f, past)) = announced(r) else {
        return format!(
            "# {}: no freeze announcement\n\nThe release is not in progress.\n",
            r.release
        );
    };
    let name = f.name(r.release);
    let when = |f: Freeze| {
        r.cycle
            .as_ref()
            .and_then(|c| c.deadline(f))
            .map(deadline)
            .unwrap_or_else(|| "(not in the schedule)".into())
    };
    let rows: Vec<_> = tracked_rows(r).collect();
    let count = |t: Tally| rows.iter().filter(|(_, k)| k.status.tally() == t).count();
    let requests = rows.iter().filter(|(_, t)| t.exception.is_some()).count();
    let mut out = format!("# {} {name}: draft announcement\n\n", r.release);
    let _ = writeln!(
        out,
        "The {name} of Kubernetes {} {} {}. Where the {} KEPs on the board stand:\n",
        r.release,
        if past { "was" } else { "is" },
        when(f),
        rows.len()
    );
    for t in Tally::ALL {
        let _ = writeln!(out, "- {}: {}", t.label(), count(t));
    }
    let _ = writeln!(out, "- Exception requests known: {requests}");
    if let Some(next) = Freeze::ALL.into_iter().find(|n| *n > f) {
        let _ = writeln!(
            out,
            "\nNext: the {} on {}.",
            next.name(r.release),
            when(next)
        );
    }
    out.push_str(
        "\nA KEP removed from the milestone may still ask for an exception: https://github.com/kubernetes/sig-release/blob/master/releases/EXCEPTIONS.md\n",
    );
    out
}
