//! The pull-request summary (`--format md`): (model, analysis, reported
//! findings, touched KEPs) → a short Markdown comment a bot can post.
//!
//! Per touched KEP: its errors and warnings, the PRR questionnaire for the
//! stage it targets, and its readiness for the release in progress; then the
//! findings the change introduced outside those KEPs. Every KEP value is
//! escaped for Markdown (with `@` defused, so the comment pings nobody).

use std::fmt::Write as _;

use crate::analysis::completeness::{Completeness, PrrTarget};
use crate::analysis::outcome::{ReleaseView, Sources, release_view};
use crate::analysis::{Analysis, KepAnalysis, Readiness};
use crate::finding::{Finding, Severity};
use crate::kep::domain::Release;
use crate::model::{KepId, Model};
use crate::report::render::md;
use crate::team::Freeze;

/// Where the summary's KEP links point.
#[derive(Debug, Clone)]
pub struct SummaryLinks {
    /// A kepsite portal (`--base-url`): KEPs link to `<base>keps/<n>/`.
    pub base_url: Option<String>,
    /// Otherwise the repository (`--repo-url`)…
    pub repo_url: String,
    /// …at this commit or branch.
    pub tree: String,
}

/// The release whose readiness the summary shows, and each KEP's status
/// there: the release view of the analysis' release in progress (the
/// release calendar at the snapshot's commit date, see `analysis::calendar`),
/// as the release page and the report show it. This type is the only place
/// the summary asks.
pub struct InProgress {
    view: ReleaseView,
}

impl InProgress {
    /// The release in progress for the analysed snapshot.
    pub fn of(model: &Model, analysis: &Analysis) -> InProgress {
        let release = analysis.current.release;
        InProgress {
            view: release_view(&Sources::of(model, analysis), release),
        }
    }

    /// The release.
    pub fn release(&self) -> Release {
        self.view.release
    }

    /// KEP `i`'s line for the release: its status and the checklist it is
    /// about, or why it is apart; `None` when it is not in the release.
    fn line(&self, id: KepId) -> Option<String> {
        let release = self.view.release;
        if let Some(a) = self.view.apart.iter().find(|a| a.id == id) {
            return Some(format!(
                "- {release}: listed apart: {}",
                md(&a.why.says(release))
            ));
        }
        let e = self.view.entries.iter().find(|e| e.id == id)?;
        let t = e.tracking.as_ref()?;
        Some(readiness_line(
            &t.label,
            t.focus(),
            t.phase(Freeze::Enhancements),
        ))
    }
}

fn count(fs: &[&Finding], s: Severity) -> usize {
    fs.iter().filter(|f| f.severity == s).count()
}

fn plural(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

fn finding_line(f: &Finding) -> String {
    let loc = match f.line {
        Some(l) => format!("{}:{l}", f.path),
        None => f.path.clone(),
    };
    let mut s = format!(
        "- **{}** `{}` {}: {}",
        f.severity.as_str(),
        f.rule,
        md(&loc),
        md(&f.message)
    );
    if let Some(h) = &f.hint {
        let _ = write!(s, " (help: {})", md(h));
    }
    s
}

fn prr_line(model: &Model, a: &KepAnalysis, i: usize) -> String {
    let kep = &model.keps[i];
    let Some(target) = a.assessment.target else {
        return "- PRR questionnaire: no stage targeted".to_string();
    };
    let (name, c, approved): (&str, &Completeness, bool) = match target {
        PrrTarget::Alpha => ("alpha", &a.assessment.prr.alpha, a.prr_approved.alpha),
        PrrTarget::Beta => ("beta", &a.assessment.prr.beta, a.prr_approved.beta),
        PrrTarget::Stable => ("stable", &a.assessment.prr.stable, a.prr_approved.stable),
    };
    let mut s = format!(
        "- PRR questionnaire for {name}: {} of {} answered",
        c.answered, c.required
    );
    if !c.unanswered.is_empty() {
        let open: Vec<String> = c
            .unanswered
            .iter()
            .map(|u| match u.line {
                Some(l) => format!("{} (line {l})", md(&u.title)),
                None => format!("{} (no heading)", md(&u.title)),
            })
            .collect();
        let _ = write!(s, "; unanswered: {}", open.join("; "));
    }
    let approval = if model.prr_for(kep).is_none() {
        "no prod-readiness file"
    } else if approved {
        "approved"
    } else {
        "not approved"
    };
    let _ = write!(s, "; PRR approval: {approval}");
    s
}

fn readiness_line(label: &str, r: &Readiness, ef: &Readiness) -> String {
    let mut line = format!("- {}: **{label}** ({})", r.release, md(r.stage.as_str()));
    let reasons: Vec<String> = r.reasons().iter().map(|x| md(x)).collect();
    if !reasons.is_empty() {
        let _ = write!(line, ": {}", reasons.join("; "));
    }
    let advice: Vec<String> = ef.advice().iter().map(|x| md(x)).collect();
    if !advice.is_empty() {
        let _ = write!(
            line,
            " (advice, not a freeze requirement: {})",
            advice.join("; ")
        );
    }
    line
}

fn link(model: &Model, links: &SummaryLinks, pages: &[String], i: usize) -> String {
    let kep = &model.keps[i];
    let label = match kep.number() {
        Some(n) => format!("KEP-{n}: {}", md(kep.title())),
        None => md(kep.title()),
    };
    let url = match &links.base_url {
        Some(base) => format!("{base}{}", pages[i]),
        None => format!(
            "{}/tree/{}/{}",
            crate::urls::repo_url(&links.repo_url),
            links.tree,
            kep.path
        ),
    };
    let url: String = url
        .chars()
        .filter(|c| !c.is_whitespace() && !c.is_control())
        .map(|c| match c {
            '(' => "%28".to_string(),
            ')' => "%29".to_string(),
            c => c.to_string(),
        })
        .collect();
    format!("[{label}]({url})")
}

/// What the summary is made of.
pub struct Input<'a> {
    /// The repository after the change.
    pub model: &'a Model,
    /// Its analysis.
    pub analysis: &'a Analysis,
    /// The reported findings.
    pub findings: &'a [Finding],
    /// The KEPs to list (indices into `model.keps`).
    pub keps: &'a [usize],
    /// What the change is compared with, for the heading.
    pub since: Option<&'a str>,
}

/// The Markdown summary.
pub fn render(input: &Input, links: &SummaryLinks) -> String {
    let Input {
        model,
        analysis,
        findings,
        keps,
        since,
    } = *input;
    let by_kep = crate::view::findings_by_kep(model, findings);
    let pages = match &links.base_url {
        Some(base) => crate::urls::kep_paths(model, base).dirs,
        None => Vec::new(),
    };
    let in_progress = InProgress::of(model, analysis);
    let mut out = String::from("### kepsite check\n\n");
    let scope = match since {
        Some(s) => format!("changed since `{}`", s.replace('`', "")),
        None => "checked".to_string(),
    };
    let errors = findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .count();
    let _ = writeln!(
        out,
        "{} {scope}: {}, {}.\n",
        plural(keps.len(), "KEP"),
        plural(errors, "error"),
        plural(findings.len() - errors, "warning")
    );
    let mut shown = std::collections::HashSet::new();
    for &i in keps {
        let fs = &by_kep[i];
        if since.is_none() && fs.is_empty() {
            continue; // a whole-repository summary lists the KEPs with findings
        }
        let _ = writeln!(
            out,
            "#### {}\n\n- {}, {}",
            link(model, links, &pages, i),
            plural(count(fs, Severity::Error), "error"),
            plural(count(fs, Severity::Warning), "warning")
        );
        let a = &analysis.keps[i];
        out.push_str(&prr_line(model, a, i));
        out.push('\n');
        let line = in_progress
            .line(KepId(i))
            .unwrap_or_else(|| format!("- {}: not in this release", in_progress.release()));
        out.push_str(&line);
        out.push('\n');
        for f in fs {
            shown.insert(*f as *const Finding);
            out.push_str(&finding_line(f));
            out.push('\n');
        }
        out.push('\n');
    }
    let rest: Vec<&Finding> = findings
        .iter()
        .filter(|f| !shown.contains(&(*f as *const Finding)))
        .collect();
    if !rest.is_empty() {
        out.push_str(if since.is_some() {
            "#### Elsewhere, introduced by this change\n\n"
        } else {
            "#### Other files\n\n"
        });
        for f in rest {
            out.push_str(&finding_line(f));
            out.push('\n');
        }
        out.push('\n');
    }
    fit(out, MAX_BYTES)
}

/// The most bytes of the summary: GitHub refuses a comment over 65,536
/// characters (and a step summary over 1 MiB), and a character is at least
/// a byte. The footer [`fit`] adds is within it.
pub const MAX_BYTES: usize = 65_536;

/// `out` cut to at most `max` bytes at a line's end, when longer, with a
/// last line that counts the KEPs and findings cut and says where to read
/// them all.
fn fit(out: String, max: usize) -> String {
    if out.len() <= max {
        return out;
    }
    let room = max.saturating_sub(400);
    // Lines end at `\n`, an ASCII byte: the cut is at a character's end.
    let end = out.as_bytes()[..room]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let cut = &out[end..];
    let findings = cut
        .lines()
        .filter(|l| l.starts_with("- **error**") || l.starts_with("- **warning**"))
        .count();
    let keps = cut.lines().filter(|l| l.starts_with("#### ")).count();
    let mut kept = out[..end].to_string();
    let _ = write!(
        kept,
        "\n**Cut here:** {}, in {}, not shown: GitHub takes 65,536 characters in a comment. \
         `kepsite check` lists every finding in the job's log, and `--format json` as data.\n",
        plural(findings, "more finding"),
        plural(keps, "more KEP section"),
    );
    kept
}

#[cfg(test)]
mod fit_tests {
    #[test]
    fn a_long_summary_is_cut_at_a_line_and_counted() {
        let mut out = String::from("### kepsite check\n\n");
        for i in 0..2_000 {
            out.push_str(&format!(
                "#### KEP-{i}\n\n- **warning** `toc-mismatch` x: é y\n\n"
            ));
        }
        let fitted = super::fit(out.clone(), super::MAX_BYTES);
        assert!(fitted.len() <= super::MAX_BYTES);
        let shown = fitted.matches("- **warning**").count();
        let tail = fitted.lines().last().unwrap();
        let n = 2_000 - shown;
        assert!(
            tail.starts_with(&format!("**Cut here:** {n} more findings, in ")),
            "{tail}"
        );
        assert_eq!(super::fit("short\n".into(), super::MAX_BYTES), "short\n");
    }
}
