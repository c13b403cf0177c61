//! `report --format announcement`: a draft of the Kubernetes release blog
//! post's enhancement sections, in its shape. For a release that is out:
//! the headline counts, then graduating to stable, promoted to beta, new in
//! alpha (and the alphas that continued with work in the release),
//! deprecations and removals; each KEP with its title, owning SIG, two or
//! three sentences of its Summary and links to the KEP and its tracking
//! issue. For the release in progress or a planned one it is the "sneak
//! peek": what is planned, deprecations and removals first.

use std::fmt::Write;

use super::md;
use crate::report::{Report, Row};

/// One KEP as the post lists it.
fn item(out: &mut String, k: &Row) {
    let number = k.number.map(|n| format!("KEP-{n}: ")).unwrap_or_default();
    let _ = write!(out, "### {}{}\n\n", number, md(&k.title));
    if !k.summary.is_empty() {
        let _ = write!(out, "{}\n\n", md(&k.summary));
    }
    let mut links = format!("[KEP]({})", k.url);
    if let Some(issue) = &k.issue_url {
        let _ = write!(links, " · [tracking issue]({issue})");
    }
    let _ = write!(
        out,
        "This work was done as part of KEP #{} led by {}. {}\n\n",
        k.number
            .map(|n| n.to_string())
            .unwrap_or_else(|| "(unnumbered)".into()),
        md(&sig_name(&k.sig)),
        links
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
    /// Alpha and beta tracked again at the stage they had.
    continued: Vec<&'a Row>,
    deprecations: Vec<&'a Row>,
}

impl<'a> Lists<'a> {
    fn of(r: &'a Report, out_release: bool) -> Lists<'a> {
        let counted = |k: &Row| {
            if out_release {
                k.outcome == "shipped" || k.outcome == "deprecated"
            } else {
                // Past the Enhancements Freeze, a KEP that missed it is out.
                !matches!(k.outcome, "slipped" | "latest-only" | "missed-freeze")
            }
        };
        let pick = |pred: &dyn Fn(&Row) -> bool| -> Vec<&'a Row> {
            let mut v: Vec<&Row> = rows(r).filter(|k| counted(k) && pred(k)).collect();
            v.sort_by_key(|k| (k.sig.clone(), k.number));
            v
        };
        let cont = |k: &Row| k.step == Some("continued");
        Lists {
            stable: pick(&|k| k.stage == "stable"),
            beta: pick(&|k| k.stage == "beta" && !cont(k)),
            alpha: pick(&|k| k.stage == "alpha" && !cont(k)),
            continued: pick(&|k| matches!(k.stage.as_str(), "alpha" | "beta") && cont(k)),
            deprecations: pick(&|k| {
                matches!(k.stage.as_str(), "deprecated" | "disabled" | "removed")
            }),
        }
    }

    fn total(&self) -> usize {
        self.stable.len() + self.beta.len() + self.alpha.len() + self.continued.len()
    }
}

/// The title and headline counts.
fn headline(r: &Report, l: &Lists, out_release: bool) -> String {
    let d = l.deprecations.len();
    let (s, are) = if d == 1 { ("", "is") } else { ("s", "are") };
    if out_release {
        format!(
            "# Kubernetes {}: release announcement draft\n\n\
             This release includes a total of {} enhancements. Of those \
             enhancements, {} have graduated to Stable, {} have entered Beta \
             and {} have entered Alpha; {} continue in alpha or beta with work \
             in this release. {d} deprecation{s} and removal{s} {are} included.\n\n",
            r.release,
            l.total(),
            l.stable.len(),
            l.beta.len(),
            l.alpha.len(),
            l.continued.len(),
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
            l.continued.len(),
        )
    }
}

/// The announcement draft of `r`.
pub fn announcement(r: &Report) -> String {
    let out_release = r.phase == crate::analysis::outcome::Phase::Out;
    let l = Lists::of(r, out_release);
    let mut s = headline(r, &l, out_release);
    s.push_str(
        "<!-- Drafted by kepsite from the KEPs' files: each summary is the first sentences of the KEP's Summary section. Edit before publishing. -->\n\n",
    );
    let section = |s: &mut String, title: &str, list: &[&Row]| {
        if list.is_empty() {
            return;
        }
        let _ = write!(s, "## {title}\n\n");
        for k in list {
            item(s, k);
        }
    };
    let titles = if out_release {
        [
            "Graduations to stable",
            "New features in beta",
            "New features in alpha",
            "Continuing in alpha and beta, with work in this release",
        ]
    } else {
        [
            "Planned graduations to stable",
            "Planned for beta",
            "Planned for alpha",
            "Continuing in alpha and beta",
        ]
    };
    // The sneak peek puts what users must act on first.
    if !out_release {
        section(&mut s, "Deprecations and removals", &l.deprecations);
    }
    section(&mut s, titles[0], &l.stable);
    section(&mut s, titles[1], &l.beta);
    section(&mut s, titles[2], &l.alpha);
    section(&mut s, titles[3], &l.continued);
    if out_release {
        section(&mut s, "Deprecations and removals", &l.deprecations);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sig_names_read_as_in_the_posts() {
        assert_eq!(sig_name("sig-node"), "SIG Node");
        assert_eq!(sig_name("sig-api-machinery"), "SIG API Machinery");
    }
}
