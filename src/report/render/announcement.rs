//! `report --format announcement`: a draft of the Kubernetes release blog
//! post's enhancement sections, in its shape. For a release that is out:
//! the headline counts, then "Graduating to stable", "New features in beta"
//! (new in beta or graduated to it), "New features in alpha", and
//! "Deprecations and removals" (with the KEPs withdrawn in the release). A
//! KEP that continued at its stage (stable, beta or alpha) with work in the
//! release closes its stage's section as a short line, as the posts list
//! such KEPs among their stage's features; in the sneak peek, one that
//! continues at stable or with no stage change is in a short list of its
//! own. Each KEP with its title, two or
//! three sentences of its Summary, its feature gates, its owning SIG and
//! links to the KEP and its tracking issue. For the release in progress or
//! a planned one it is the "sneak peek": what is planned, deprecations and
//! removals first.
//!
//! The sections read the report rows' `outcome`, `step` and `stage`; every
//! value from a KEP goes through [`prose`], as the draft goes into a Hugo
//! blog, and every link through [`link::destination`]: absolute (on the
//! portal too, where the report's own links are site-relative), https, on
//! the repository's or the portal's host, or not written.

use std::fmt::Write;

use super::link;
use super::prose::prose;
use crate::analysis::board::Tally;
use crate::analysis::outcome::Outcome;
use crate::kep::domain::Stage;
use crate::report::{KepLinks, Report, Row, stage_group};

/// The section of the draft a row belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Section {
    Stable,
    Beta,
    Alpha,
    /// Tracked again at the stage it had, with work in the release.
    Continuing,
    Deprecations,
}

/// The section of `k`, from its outcome, step and stage.
fn section_of(k: &Row) -> Section {
    let group = stage_group(&Stage::parse(&k.stage));
    if matches!(k.result, Outcome::Deprecated { .. }) || group == "deprecation" {
        return Section::Deprecations;
    }
    if k.step == Some("continued") {
        return Section::Continuing;
    }
    match group {
        "stable" => Section::Stable,
        "beta" => Section::Beta,
        "alpha" => Section::Alpha,
        _ => Section::Continuing,
    }
}

/// Whether `k`, in a release that is out, continued at stable with work
/// there: tracked again at stable (its latest milestone, or a gate newly
/// GA beside one that was already), which the report counts as no stage
/// change. The posts list such KEPs among their stable graduations.
fn stable_again(k: &Row) -> bool {
    matches!(k.result, Outcome::LatestOnly) && k.step == Some("continued")
}

/// Whether `k`'s title says it deprecates or removes something ("Remove
/// cgroup v1 support", "Deprecate and remove SelfLink"): the posts list
/// such a KEP under deprecations and removals in the release it ships a
/// stage too, not only under its stage.
fn removes(k: &Row) -> bool {
    let t = k.title.trim_start().to_lowercase();
    ["deprecat", "remov", "retir"]
        .iter()
        .any(|w| t.starts_with(w))
}

/// The stage a continuing KEP is named with.
fn stage_name(k: &Row) -> &'static str {
    if stable_again(k) {
        return "stable";
    }
    match stage_group(&Stage::parse(&k.stage)) {
        "stable" => "stable",
        "beta" => "beta",
        "alpha" => "alpha",
        _ => "no stage change",
    }
}

/// "KEP-1234: " (nothing for an unnumbered KEP).
fn number_prefix(k: &Row) -> String {
    k.number.map(|n| format!("KEP-{n}: ")).unwrap_or_default()
}

/// Where the draft's links lead.
struct Dest<'a> {
    /// The hosts a link may lead to: the repository's and the portal's.
    hosts: Vec<&'a str>,
    /// The portal's base URL, when it is https (KEP links go there).
    site: Option<&'a str>,
    /// `{repo}/tree/{branch}/`, the KEP directories' base otherwise.
    tree: String,
}

impl<'a> Dest<'a> {
    fn of(r: &'a Report) -> Dest<'a> {
        let site = match &r.links {
            KepLinks::Site(base) => link::host(base).map(|h| (base.as_str(), h)),
            KepLinks::Repository => None,
        };
        let hosts: Vec<&str> = link::host(&r.repo_url)
            .into_iter()
            .chain(site.map(|(_, h)| h))
            .collect();
        let site = site
            .map(|(base, _)| base)
            .filter(|base| link::destination(base, &hosts).is_some());
        Dest {
            tree: format!("{}/tree/{}/", r.repo_url, link::path(&r.branch)),
            hosts,
            site,
        }
    }

    /// The KEP's link: its portal page, else its directory.
    fn kep(&self, k: &Row) -> Option<String> {
        let url = match self
            .site
            .and_then(|base| Some((base, k.url.strip_prefix(base)?)))
        {
            Some((base, dir)) => format!("{base}{}", link::path(dir)),
            None => format!("{}{}", self.tree, link::path(&k.path)),
        };
        link::destination(&url, &self.hosts)
    }
}

/// `[text](url)`, or the text alone when the link is refused.
fn linked(text: &str, url: Option<String>) -> String {
    match url {
        Some(u) => format!("[{text}]({u})"),
        None => text.to_string(),
    }
}

/// The links of an entry: the KEP and its tracking issue.
fn links(k: &Row, d: &Dest) -> String {
    let mut links = linked("KEP", d.kep(k));
    if let Some(issue) = &k.issue_url {
        let issue = link::destination(issue, &d.hosts);
        let _ = write!(links, " · {}", linked("tracking issue", issue));
    }
    links
}

/// "Feature gate: `A`." / "Feature gates: `A`, `B`." ("" for none); a name
/// that is not an identifier is written as escaped prose.
fn gates(k: &Row) -> String {
    if k.feature_gates.is_empty() {
        return String::new();
    }
    let names: Vec<String> = k
        .feature_gates
        .iter()
        .map(|g| {
            if g.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/'))
            {
                format!("`{g}`")
            } else {
                prose(g)
            }
        })
        .collect();
    let s = if names.len() == 1 { "" } else { "s" };
    format!("Feature gate{s}: {}.", names.join(", "))
}

/// One KEP as the post lists it.
fn item(out: &mut String, k: &Row, d: &Dest) {
    let _ = write!(out, "### {}{}\n\n", number_prefix(k), prose(&k.title));
    if !k.summary.is_empty() {
        let _ = write!(out, "{}\n\n", prose(&k.summary));
    }
    let gates = gates(k);
    if !gates.is_empty() {
        let _ = write!(out, "{gates}\n\n");
    }
    let source = super::decided_notes(k);
    if !source.is_empty() {
        let _ = write!(out, "*Outcome {}.*\n\n", prose(&source.join("; ")));
    }
    let _ = write!(
        out,
        "This work was done as part of KEP #{} led by {}. {}\n\n",
        k.number
            .map(|n| n.to_string())
            .unwrap_or_else(|| "(unnumbered)".into()),
        prose(&sig_name(&k.sig)),
        links(k, d)
    );
}

/// One continuing KEP: a line naming its stage.
fn continuing_item(out: &mut String, k: &Row, d: &Dest) {
    let gates = gates(k);
    let source = super::decided_notes(k);
    let source = match source.is_empty() {
        true => String::new(),
        false => format!(" Outcome {}.", prose(&source.join("; "))),
    };
    let _ = writeln!(
        out,
        "- {}{}: continues in {}, led by {}.{}{}{source} {}",
        number_prefix(k),
        prose(&k.title),
        stage_name(k),
        prose(&sig_name(&k.sig)),
        if gates.is_empty() { "" } else { " " },
        gates,
        links(k, d)
    );
}

/// A KEP of a stage's section that removes something, in the deprecations
/// and removals: a line pointing back to its stage.
fn removing_item(out: &mut String, k: &Row, d: &Dest, out_release: bool) {
    let at = match (out_release, stage_name(k)) {
        (_, "no stage change") => "work in this release".to_string(),
        (true, s) => format!("{s} in this release"),
        (false, s) => format!("planned for {s}"),
    };
    let _ = writeln!(
        out,
        "- {}{}: {at} (see its stage's section), led by {}. {}",
        number_prefix(k),
        prose(&k.title),
        prose(&sig_name(&k.sig)),
        links(k, d)
    );
}

/// "sig-node" → "SIG Node", as the posts write it.
fn sig_name(sig: &str) -> String {
    let rest = sig.strip_prefix("sig-").unwrap_or(sig);
    let words: Vec<String> = rest
        .split('-')
        .map(|w| {
            if matches!(w, "api" | "cli") {
                return w.to_uppercase();
            }
            let mut c = w.chars();
            match c.next() {
                Some(f) => f.to_uppercase().chain(c).collect(),
                None => String::new(),
            }
        })
        .collect();
    format!("SIG {}", words.join(" "))
}

/// The rows of the report, in the order of its groups.
fn rows(r: &Report) -> impl Iterator<Item = &Row> {
    r.groups
        .iter()
        .flat_map(|g| g.sigs.iter().flat_map(|s| s.keps.iter()))
}

/// The KEPs of the draft, by section, each sorted by SIG and number.
struct Lists<'a> {
    stable: Vec<&'a Row>,
    beta: Vec<&'a Row>,
    alpha: Vec<&'a Row>,
    /// Continued at stable, beta or alpha: short lines closing the stage's
    /// section.
    stable_continuing: Vec<&'a Row>,
    beta_continuing: Vec<&'a Row>,
    alpha_continuing: Vec<&'a Row>,
    /// Continued at stable or with no stage change: a section of its own.
    continuing: Vec<&'a Row>,
    deprecations: Vec<&'a Row>,
    /// In a stage's section, and removing something by its title: short
    /// lines closing the deprecations and removals.
    removing: Vec<&'a Row>,
}

impl<'a> Lists<'a> {
    fn of(r: &'a Report, out_release: bool) -> Lists<'a> {
        let counted = |k: &Row| {
            match &k.result {
                Outcome::Shipped { .. } | Outcome::Deprecated { .. } => out_release,
                Outcome::LatestOnly => out_release && stable_again(k),
                // In progress: what is on the board and not out of the release.
                Outcome::Tracking { status } => {
                    !out_release && !matches!(status.tally(), Tally::Removed | Tally::Deferred)
                }
                _ => false,
            }
        };
        let pick = |section: Section| -> Vec<&'a Row> {
            let mut v: Vec<&Row> = rows(r)
                .filter(|k| counted(k) && section_of(k) == section)
                .collect();
            v.sort_by_key(|k| (k.sig.clone(), k.number));
            v
        };
        let (mut stable_continuing, mut beta_continuing, mut alpha_continuing) =
            (vec![], vec![], vec![]);
        let mut continuing = vec![];
        for k in pick(Section::Continuing) {
            match stage_name(k) {
                "stable" if out_release => stable_continuing.push(k),
                "beta" => beta_continuing.push(k),
                "alpha" => alpha_continuing.push(k),
                _ => continuing.push(k),
            }
        }
        let mut removing: Vec<&Row> = rows(r)
            .filter(|k| counted(k) && section_of(k) != Section::Deprecations && removes(k))
            .collect();
        removing.sort_by_key(|k| (k.sig.clone(), k.number));
        Lists {
            removing,
            stable: pick(Section::Stable),
            stable_continuing,
            beta: pick(Section::Beta),
            alpha: pick(Section::Alpha),
            beta_continuing,
            alpha_continuing,
            continuing,
            deprecations: pick(Section::Deprecations),
        }
    }

    /// The KEPs that continued at their stage, in every section.
    fn continued(&self) -> usize {
        self.stable_continuing.len()
            + self.beta_continuing.len()
            + self.alpha_continuing.len()
            + self.continuing.len()
    }

    fn total(&self) -> usize {
        self.stable.len() + self.beta.len() + self.alpha.len() + self.continued()
    }
}

/// The title and headline counts.
fn headline(r: &Report, l: &Lists, out_release: bool) -> String {
    let d = l.deprecations.len() + l.removing.len();
    let (s, are) = if d == 1 { ("", "is") } else { ("s", "are") };
    if out_release {
        format!(
            "# Kubernetes {}: release announcement draft\n\n\
             This release includes a total of {} enhancements. Of those \
             enhancements, {} have graduated to Stable, {} have entered Beta \
             and {} have entered Alpha; {} continue at their stage with work \
             in this release. {d} deprecation{s} and removal{s} {are} included.\n\n",
            r.release,
            l.total(),
            l.stable.len(),
            l.beta.len(),
            l.alpha.len(),
            l.continued(),
        )
    } else {
        format!(
            "# Kubernetes {}: sneak peek draft\n\n\
             {} is not out yet: this is what its KEPs plan today ({} enhancements: \
             {} to Stable, {} to Beta, {} to Alpha, {} continuing; {d} deprecation{s} \
             and removal{s}). Plans change until the release; the release page has \
             each KEP's state.\n\n",
            r.release,
            r.release,
            l.total(),
            l.stable.len(),
            l.beta.len(),
            l.alpha.len(),
            l.continued(),
        )
    }
}

/// The section titles: stable, beta, alpha, continuing.
const OUT_TITLES: [&str; 4] = [
    "Graduating to stable",
    "New features in beta",
    "New features in alpha",
    "Continuing with work in this release",
];
const PLANNED_TITLES: [&str; 4] = [
    "Planned graduations to stable",
    "Planned for beta",
    "Planned for alpha",
    "Continuing, with work planned in this release",
];

/// The heading of the deprecations and removals.
const DEPRECATIONS: &str = "Deprecations and removals";

/// The announcement draft of `r`.
pub fn announcement(r: &Report) -> String {
    let out_release = r.phase == crate::analysis::outcome::Phase::Out;
    let l = Lists::of(r, out_release);
    let d = Dest::of(r);
    let mut s = headline(r, &l, out_release);
    s.push_str(
        "<!-- Drafted by kepsite from the KEPs' files: each summary is the first sentences of the KEP's Summary section. Edit before publishing. -->\n\n",
    );
    // `list`: an entry per KEP; `short`: one line per KEP after the
    // entries (the continuing ones; in the deprecations, the KEPs of a
    // stage's section that remove something).
    let section = |s: &mut String, title: &str, list: &[&Row], short: &[&Row]| {
        if list.is_empty() && short.is_empty() {
            return;
        }
        let _ = write!(s, "## {title}\n\n");
        for k in list {
            item(s, k, &d);
        }
        for k in short {
            match title == DEPRECATIONS {
                true => removing_item(s, k, &d, out_release),
                false => continuing_item(s, k, &d),
            }
        }
        if !short.is_empty() {
            s.push('\n');
        }
    };
    let titles = if out_release {
        OUT_TITLES
    } else {
        PLANNED_TITLES
    };
    // The sneak peek puts what users must act on first.
    if !out_release {
        section(&mut s, DEPRECATIONS, &l.deprecations, &l.removing);
    }
    section(&mut s, titles[0], &l.stable, &l.stable_continuing);
    section(&mut s, titles[1], &l.beta, &l.beta_continuing);
    section(&mut s, titles[2], &l.alpha, &l.alpha_continuing);
    section(&mut s, titles[3], &[], &l.continuing);
    if out_release {
        section(&mut s, DEPRECATIONS, &l.deprecations, &l.removing);
    }
    s
}

#[cfg(test)]
mod tests;
