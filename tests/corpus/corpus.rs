//! Acceptance on the real kubernetes/enhancements history (../shared/corpus).

use std::collections::BTreeMap;

use kepsite::analysis::findings::prr_required;
use kepsite::project::{Input, Project};

use crate::shared::corpus;
use crate::support::*;

/// The corpus at HEAD, loaded as `check` loads it.
fn head() -> &'static Project {
    static P: std::sync::OnceLock<Project> = std::sync::OnceLock::new();
    P.get_or_init(|| load_files(&Input::at(corpus())))
}

#[test]
fn head_holds_every_kep() {
    let m = &head().model;
    assert_eq!(m.keps.len(), 654);
    assert_eq!(
        m.templates,
        vec![
            "keps/NNNN-kep-template".to_string(),
            "keps/sig-cloud-provider/providers/0000-cloud-provider-template".to_string()
        ]
    );
    let nested = m
        .keps
        .iter()
        .filter(|k| k.path.matches('/').count() == 3)
        .count()
        + m.templates
            .iter()
            .filter(|t| t.matches('/').count() == 3)
            .count();
    assert_eq!(nested, 37);
    let paginated = m
        .keps
        .iter()
        .find(|k| k.path == "keps/sig-api-machinery/365-paginated-lists")
        .unwrap();
    assert!(
        paginated
            .readme_path
            .as_deref()
            .unwrap()
            .ends_with("README.MD")
    );
    assert!(!paginated.readme_text().is_empty());
    assert!(
        m.keps.iter().all(|k| k.meta_ok),
        "every kep.yaml at HEAD parses"
    );
}

#[test]
fn prr_is_required_for_414_and_all_are_approved() {
    let m = &head().model;
    assert_eq!(m.keps.iter().filter(|k| prr_required(k)).count(), 414);
    let f = &head().findings;
    let prr_errors: Vec<_> = f
        .iter()
        .filter(|x| {
            matches!(
                x.rule,
                "prr-file-missing" | "prr-stage-missing" | "prr-approver-invalid"
            )
        })
        .collect();
    assert!(prr_errors.is_empty(), "{prr_errors:#?}");
}

#[test]
fn known_defects_are_reported() {
    let f = &head().findings;
    let mut count: BTreeMap<&str, usize> = BTreeMap::new();
    for x in f {
        *count.entry(x.rule).or_default() += 1;
    }
    assert_eq!(count.get("status-enum"), Some(&5), "{count:?}");
    assert_eq!(count.get("stage-enum"), Some(&2), "{count:?}");
    assert_eq!(count.get("implemented-not-stable"), Some(&6), "{count:?}");
    for date in ["2025-30-01", "2023-14-05"] {
        assert!(
            f.iter()
                .any(|x| x.rule == "date-invalid" && x.message.contains(date)),
            "{date} not reported"
        );
    }
}

#[test]
fn working_tree_equals_head_revision() {
    let rev = load_files(&Input::at(corpus()).rev("HEAD"));
    assert!(head().model == rev.model);
}

/// Two fixed early-2019 commits, named by hash so that no clock, time zone
/// or time of day picks them: the first-parent commit of master before
/// 2019-03-01 (its template is `keps/YYYYMMDD-kep-template.md`), and the
/// side-branch commit cb86670 whose only top-level template is
/// `keps/0000-kep-template.md` (which asking git for "the last commit
/// before 2019-03-01" picked after 23:13 UTC, as git completes a date with
/// the current time of day).
const EARLY_2019: [&str; 2] = ["64503f05730f738716b61d16507df4427d5155df", "cb86670"];

#[test]
fn early_2019_revision_loads_single_file_keps() {
    for c in EARLY_2019 {
        early_revision_loads_single_file_keps(c);
    }
}

fn early_revision_loads_single_file_keps(c: &str) {
    let m = load_files(&Input::at(corpus()).rev(c)).model;
    assert!(m.keps.len() > 50, "{}", m.keps.len());
    assert!(
        m.keps
            .iter()
            .all(|k| k.format == kepsite::kep::KepFormat::SingleFile)
    );
    let parsed = m
        .keps
        .iter()
        .filter(|k| k.meta_ok && !k.meta.title.is_empty())
        .count();
    assert!(parsed > 50, "{parsed} parsed");
    assert!(
        m.templates.iter().any(|t| t.contains("kep-template")),
        "{c}: {:?}",
        m.templates
    );
    assert!(
        m.keps.iter().all(|k| !k.path.ends_with("-template.md")),
        "{c}: a template loaded as a KEP"
    );
}

#[test]
fn sigs_yaml_validates_owning_sigs() {
    let sigs = crate::shared::shared_file("corpus/sigs.yaml");
    assert!(sigs.exists(), "sigs.yaml missing at {}", sigs.display());
    let p = load_files(&Input::at(corpus()).sigs(&sigs));
    let list = p.model.sigs.as_ref().unwrap();
    assert!(list.get("sig-node").is_some_and(|g| !g.chairs.is_empty()));
    let f = &p.findings;
    let unknown_owning = f.iter().filter(|x| x.rule == "owning-sig-unknown").count();
    assert!(unknown_owning < 5, "{unknown_owning} owning SIGs unknown");
}

/// The one-pass grouping of findings by KEP picks, for every KEP of the real
/// corpus (nested directories, PRR files, duplicated numbers), exactly what
/// the per-KEP filter picks, in the same order; and number lookups agree with
/// a scan.
#[test]
fn findings_grouped_by_kep_match_the_per_kep_filter() {
    let m = &head().model;
    let found = &head().findings;
    let grouped = kepsite::view::findings_by_kep(m, found);
    assert_eq!(grouped.len(), m.keps.len());
    let mut nonempty = 0;
    for (kep, group) in m.keps.iter().zip(&grouped) {
        let expected = kepsite::view::findings_of(kep, found);
        assert_eq!(group, &expected, "findings of {}", kep.path);
        nonempty += usize::from(!group.is_empty());
    }
    assert!(nonempty > 100, "only {nonempty} KEPs have findings");
    for kep in &m.keps {
        let n = kep.number().unwrap();
        let first = m.keps.iter().find(|k| k.number() == Some(n)).unwrap();
        assert_eq!(m.kep(n).map(|k| &k.path), Some(&first.path));
    }
    assert!(m.kep(99_999).is_none());
}

/// One hand label of `tests/fixtures/prr-labels.tsv`.
struct Label {
    path: String,
    question: usize,
    answered: bool,
    line: Option<usize>,
}

fn prr_labels() -> Vec<Label> {
    let text = include_str!("../fixtures/prr-labels.tsv");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 4, "bad label line {l:?}");
            Label {
                path: f[0].to_string(),
                question: f[1].parse().expect("question number"),
                answered: f[2] == "true",
                line: f[3].parse().ok(),
            }
        })
        .collect()
}

/// kepsite's reading of every labelled question: (answered, line of the
/// question in the README when kepsite found it), in label order, from the
/// analysis of the labelled KEP (`analysis.keps[i]` is `model.keps[i]`'s).
fn kepsite_reading(p: &Project, labels: &[Label]) -> Vec<(bool, Option<usize>)> {
    let questions = p.analysis.template.prr_questions();
    assert_eq!(questions.len(), 25, "the labels number 25 questions");
    labels
        .iter()
        .map(|l| {
            let i = p
                .model
                .keps
                .iter()
                .position(|k| k.path == l.path)
                .unwrap_or_else(|| panic!("labelled KEP {} is not loaded", l.path));
            let a = &p.analysis.keps[i];
            let s = &a.assessment.sections[questions[l.question - 1]];
            (s.answered, s.line)
        })
        .collect()
}

/// Issue 14, item 5: kepsite reads the PRR questionnaire as a reviewer does.
/// 27 KEPs of 13 SIGs and every age (2018 single files to v1.37 KEPs), all
/// 25 questions each, labelled by reading the READMEs (README, "PRR
/// answers"). Agreement on answered/unanswered before this change: 617/675
/// (91.4%); after: 675/675. The last 4 KEPs were labelled after the reading
/// was settled, as a check it was not fitted to the first 23: 95/100 before,
/// 100/100 after. The question's line agrees wherever the README asks it
/// (before: all but the older wording of 2227). The threshold, 97%, leaves
/// room for one KEP's worth of disagreement (20 questions) when the reading
/// changes, and fails well above the 91.4% of before. Issue 34 changed the
/// reading (a bare "N/A" answers; a group or the whole questionnaire
/// answered at once, or handed over to another KEP's, answers its
/// questions): 83 labels were read again under it (see the file's header);
/// the new reading's own measure is `prr_reading.rs`.
#[test]
fn prr_answers_agree_with_a_reading_by_hand() {
    let labels = prr_labels();
    assert!(labels.len() >= 20 * 25, "{} labels", labels.len());
    let keps: std::collections::BTreeSet<&str> = labels.iter().map(|l| l.path.as_str()).collect();
    assert!(keps.len() >= 20, "{} KEPs labelled", keps.len());
    let got = kepsite_reading(head(), &labels);
    let mut answers = Vec::new();
    let mut lines = Vec::new();
    for (l, (answered, line)) in labels.iter().zip(&got) {
        if *answered != l.answered {
            answers.push(format!(
                "{} q{} (line {:?}): labelled {}, kepsite {answered}",
                l.path, l.question, l.line, l.answered
            ));
        }
        if l.line.is_some() && *line != l.line {
            lines.push(format!(
                "{} q{}: asked on line {:?}, kepsite found it on {line:?}",
                l.path, l.question, l.line
            ));
        }
    }
    let agree = labels.len() - answers.len();
    let percent = agree as f64 * 100.0 / labels.len() as f64;
    let asked = labels.iter().filter(|l| l.line.is_some()).count();
    println!(
        "PRR answers agree: {agree}/{} ({percent:.1}%); question lines: {}/{asked}\n{}\n{}",
        labels.len(),
        asked - lines.len(),
        answers.join("\n"),
        lines.join("\n")
    );
    assert!(
        percent >= 97.0,
        "agreement {percent:.1}%:\n{}",
        answers.join("\n")
    );
    assert!(lines.is_empty(), "{}", lines.join("\n"));
}

/// The three misses named in issue 14 are findings, each with its line.
#[test]
fn prr_placeholders_guidance_and_old_wordings_are_read() {
    let f = &head().findings;
    let unanswered = |path: &str, line: usize| {
        f.iter()
            .any(|x| x.rule == "prr-unanswered" && x.path.starts_with(path) && x.line == Some(line))
    };
    // `TBA.` (line 1130) under the question on line 1123.
    assert!(unanswered("keps/sig-auth/4412-", 1123), "TBA is no answer");
    // The template's guidance pasted as the answer (line 302) of the bold question on 300.
    assert!(
        unanswered("keps/sig-apps/1591-", 300),
        "pasted guidance is no answer"
    );
    // "Were upgrade and rollback tested?" (line 281) is found and answered.
    let labels: Vec<Label> = vec![Label {
        path: "keps/sig-cli/2227-kubectl-default-container".into(),
        question: 8,
        answered: true,
        line: Some(281),
    }];
    assert_eq!(kepsite_reading(head(), &labels), vec![(true, Some(281))]);
    // Every PRR finding carries a line.
    let without: Vec<_> = f
        .iter()
        .filter(|x| x.rule == "prr-unanswered" && x.line.is_none())
        .collect();
    assert!(without.is_empty(), "{without:#?}");
}

/// Issue 14, item 6: at the 2019 revision 067a2740 every markdown file that
/// looks like a KEP (a numbered file under keps/) is loaded or is a finding:
/// front matter after a `# KEP:` heading (0032) and metadata in a yaml code
/// block (0015) are read, with a warning that the form is non-standard; a
/// numbered file without metadata (0023) is a warning.
#[test]
fn revision_067a2740_loads_or_reports_every_kep_file() {
    let rev = "067a2740";
    let p = load_files(&Input::at(corpus()).rev(rev));
    let (m, f) = (&p.model, &p.findings);
    let kep = |p: &str| {
        m.keps
            .iter()
            .find(|k| k.path == p)
            .unwrap_or_else(|| panic!("{p} is not loaded"))
    };
    let finding = |rule: &str, p: &str| {
        f.iter()
            .find(|x| x.rule == rule && x.path == p)
            .unwrap_or_else(|| panic!("no {rule} finding for {p}"))
    };

    let portable = "keps/sig-apps/0032-portable-service-definitions.md";
    let k = kep(portable);
    assert!(k.meta_ok);
    assert_eq!(k.meta.title, "Portable Service Definitions");
    assert_eq!(k.meta.owning_sig, "sig-apps");
    assert_eq!(k.number(), Some(31), "kep-number as written");
    assert_eq!(k.line("status"), Some(25), "lines count the heading");
    assert_eq!(finding("kep-metadata-nonstandard", portable).line, Some(3));

    let kubeadm = "keps/sig-cluster-lifecycle/0015-kubeadm-join-control-plane.md";
    let k = kep(kubeadm);
    assert_eq!(k.number(), Some(15));
    assert_eq!(finding("kep-metadata-nonstandard", kubeadm).line, Some(5));
    assert!(
        k.readme_text().contains("## Motivation"),
        "the whole file is the README"
    );
    // The block holds a curly quote (`"@chuckha”`, line 14): the YAML error
    // is a finding at the line where the quoted string breaks.
    assert!(!k.meta_ok);
    assert_eq!(finding("yaml-parse", kubeadm).line, Some(15));
    assert_eq!(k.line("status"), Some(9), "field lines count the fence");

    let images = "keps/sig-cluster-lifecycle/0023-documentation-for-images.md";
    assert_eq!(finding("kep-file-without-metadata", images).line, Some(1));

    // Every numbered markdown file under keps/ is a KEP, a template or a finding.
    let files = git(corpus(), &["ls-tree", "-r", "--name-only", rev, "keps"]);
    let mut numbered = 0;
    for path in files.lines() {
        let name = path.rsplit('/').next().unwrap();
        if !name.ends_with(".md") || kepsite::kep::leading_number(name).is_none() {
            continue;
        }
        numbered += 1;
        let known = m.keps.iter().any(|k| k.metadata_path == path)
            || m.templates.iter().any(|t| t == path)
            || f.iter().any(|x| x.path == path);
        assert!(known, "{path} is neither loaded nor reported");
    }
    assert!(numbered > 50, "{numbered} numbered files");
}
