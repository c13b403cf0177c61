//! `report --format announcement` on v1.35 (issue 22): the blog post's
//! shape, each section the report rows (JSON) of its outcome, step and
//! stage, and each entry's text plain, escaped and complete.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::shared::corpus;
use crate::support::{kepsite, report_rows};

/// `kepsite report --release v1.35 --format <format>` (with history).
fn v135(format: &str) -> String {
    let repo = corpus();
    let run = kepsite(&[
        "report",
        "--repo",
        repo.to_str().unwrap(),
        "--release",
        "v1.35",
        "--format",
        format,
    ]);
    assert_eq!(run.code, 0, "{format}: {}", run.stderr);
    run.stdout
}

const STABLE: &str = "## Graduating to stable";
const BETA: &str = "## New features in beta";
const ALPHA: &str = "## New features in alpha";
const CONTINUING: &str = "## Continuing with work in this release";
const DEPRECATIONS: &str = "## Deprecations and removals";

/// Whether a row is a KEP tracked again at stable: no stage change, the
/// step continued.
fn stable_again(k: &Value) -> bool {
    k["outcome"] == "latest-only" && k["step"] == "continued"
}

/// Whether a row's title says it deprecates or removes something.
fn removes(k: &Value) -> bool {
    let t = k["title"].as_str().unwrap().trim_start().to_lowercase();
    t.starts_with("deprecat") || t.starts_with("remov") || t.starts_with("retir")
}

/// The section a report row of a release that is out belongs in, from its
/// outcome, step and stage (`None`: not in the post).
fn expected_section(k: &Value) -> Option<&'static str> {
    let outcome = k["outcome"].as_str().unwrap();
    let stage = k["stage"].as_str().unwrap();
    // Continued at stable: a short line closing the stable section.
    if stable_again(k) {
        return Some(STABLE);
    }
    if !matches!(outcome, "shipped" | "deprecated") {
        return None;
    }
    if outcome == "deprecated" || matches!(stage, "deprecated" | "disabled" | "removed") {
        return Some(DEPRECATIONS);
    }
    // Continued in alpha or beta: a short line closing the stage's section.
    if k["step"] == "continued" && !matches!(stage, "alpha" | "beta") {
        return Some(CONTINUING);
    }
    Some(match stage {
        "stable" => STABLE,
        "beta" => BETA,
        "alpha" => ALPHA,
        _ => CONTINUING,
    })
}

/// The text of section `title` of the draft (up to the next `## `; empty
/// when the draft has no such section).
fn section<'a>(md: &'a str, title: &str) -> &'a str {
    let body = md.split(&format!("\n{title}\n")).nth(1).unwrap_or("");
    body.split("\n## ").next().unwrap()
}

/// The KEP numbers an entry line or heading of a section names.
fn numbers_in(section: &str, prefix: &str) -> BTreeSet<u64> {
    section
        .lines()
        .filter_map(|l| l.strip_prefix(prefix))
        .map(|l| l.split(':').next().unwrap().parse().unwrap())
        .collect()
}

#[test]
fn corpus_announcement_draft_for_v135() {
    let md = v135("announcement");
    assert!(
        md.starts_with("# Kubernetes v1.35: release announcement draft\n"),
        "{md}"
    );
    // Each section lists exactly the rows of the JSON report it stands for.
    let j: Value = serde_json::from_str(&v135("json")).unwrap();
    let mut expected: BTreeMap<&str, BTreeSet<u64>> = BTreeMap::new();
    // In a stage's section and removing something: named again, as a
    // short line, under the deprecations and removals.
    let mut removing = BTreeSet::new();
    let mut again = 0;
    for k in report_rows(&j) {
        if let Some(s) = expected_section(k) {
            let n = k["number"].as_u64().unwrap();
            expected.entry(s).or_default().insert(n);
            if s != DEPRECATIONS && removes(k) {
                expected.entry(DEPRECATIONS).or_default().insert(n);
                removing.insert(n);
            }
            again += usize::from(stable_again(k));
        }
    }
    assert!(again > 0 && !removing.is_empty(), "{again} {removing:?}");
    // The sections in the post's order, each there when it lists a KEP.
    let sections: Vec<&str> = md.lines().filter(|l| l.starts_with("## ")).collect();
    let wanted: Vec<&str> = [STABLE, BETA, ALPHA, CONTINUING, DEPRECATIONS]
        .into_iter()
        .filter(|t| expected.contains_key(t))
        .collect();
    assert_eq!(sections, wanted);
    assert!(wanted.len() >= 4, "{wanted:?}");
    // counts: the entries of a section; `continued`: the short lines of all.
    let (mut counts, mut continued) = (BTreeMap::new(), 0);
    for title in [STABLE, BETA, ALPHA, CONTINUING, DEPRECATIONS] {
        let body = section(&md, title);
        let (entries, short) = (numbers_in(body, "### KEP-"), numbers_in(body, "- KEP-"));
        assert!(entries.is_disjoint(&short), "{title}");
        if title == DEPRECATIONS {
            assert_eq!(short, removing, "{title}");
        }
        let listed: BTreeSet<u64> = entries.union(&short).copied().collect();
        assert_eq!(
            listed,
            expected.get(title).cloned().unwrap_or_default(),
            "{title}"
        );
        counts.insert(title, entries.len());
        if title != DEPRECATIONS {
            continued += short.len();
        }
    }
    let total = counts[STABLE] + counts[BETA] + counts[ALPHA] + continued;
    let shipped =
        j["summary"]["shipped"].as_u64().unwrap() + j["summary"]["deprecated"].as_u64().unwrap();
    assert_eq!((total + counts[DEPRECATIONS] - again) as u64, shipped);
    let headline = format!(
        "This release includes a total of {total} enhancements. Of those enhancements, \
         {} have graduated to Stable, {} have entered Beta and {} have entered Alpha; \
         {} continue at their stage with work in this release. {} deprecations and \
         removals are included.",
        counts[STABLE],
        counts[BETA],
        counts[ALPHA],
        continued,
        counts[DEPRECATIONS] + removing.len()
    );
    assert!(md.contains(&headline), "{headline}\n{md}");
    assert!(counts[STABLE] >= 10 && total > 50, "{counts:?}");

    // A KEP continuing at its stage names that stage: in the alpha and
    // beta sections that stage, in the continuing list another.
    let short_lines = |title| {
        section(&md, title)
            .lines()
            .filter(|l| l.starts_with("- "))
            .collect::<Vec<_>>()
    };
    for (title, says) in [
        (STABLE, " continues in stable,"),
        (BETA, " continues in beta,"),
        (ALPHA, " continues in alpha,"),
    ] {
        for l in short_lines(title) {
            assert!(l.contains(says), "{title}: {l}");
        }
    }
    for l in short_lines(CONTINUING) {
        assert!(
            !l.contains(" continues in alpha,") && !l.contains(" continues in beta,"),
            "{l}"
        );
    }

    // Every entry: its SIG, both links, plain text (no Markdown escapes of
    // the summary reader, entities, template guidance or images).
    let blocks: Vec<&str> = md.split("\n### ").skip(1).collect();
    assert_eq!(blocks.len(), total + counts[DEPRECATIONS] - continued);
    let entries = blocks.iter().copied().chain(
        [STABLE, BETA, ALPHA, CONTINUING, DEPRECATIONS]
            .into_iter()
            .flat_map(short_lines),
    );
    for b in entries {
        assert!(b.contains(" led by SIG "), "{b}");
        assert!(
            b.contains("[KEP](https://github.com/kubernetes/enhancements/tree/"),
            "{b}"
        );
        assert!(
            b.contains("[tracking issue](https://github.com/kubernetes/enhancements/issues/"),
            "{b}"
        );
        for bad in ["\\#", "&amp;", "\\[", "<!--", "<img"] {
            assert!(!b.contains(bad), "{bad} in {b}");
        }
    }

    // KEP-4317's README titles its Summary "Summary and Motivation": its
    // entry quotes it all the same.
    let pod_certs = blocks
        .iter()
        .find(|b| b.starts_with("KEP-4317: "))
        .expect("KEP-4317 in the draft");
    let summary = pod_certs.split("\n\n").nth(1).unwrap();
    assert!(
        !summary.is_empty()
            && !summary.starts_with("Feature gate")
            && !summary.starts_with("This work was done"),
        "{pod_certs}"
    );
    let row = report_rows(&j)
        .into_iter()
        .find(|k| k["number"] == 4317)
        .unwrap();
    assert!(!row["summary"].as_str().unwrap_or("").is_empty(), "{row}");
    assert_eq!(row["feature_gates"][0], "PodCertificateRequest");
}
