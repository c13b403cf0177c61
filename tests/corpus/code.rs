//! What shipped, files against code (issue 35): the release model read from
//! the KEP files alone, compared with Kubernetes' feature gates in the
//! kubernetes-features bundle.

use std::sync::OnceLock;

use kepsite::analysis::Analysis;
use kepsite::analysis::code::Code;
use kepsite::analysis::outcome::{self, ReleaseView};
use kepsite::kep::domain::Release;
use kepsite::model::Model;
use kepsite::project::{Input, Project};
use kepsite::repo::history::{History, HistoryOptions, walk};

use crate::shared::{corpus, kubernetes};

pub(crate) struct Both {
    pub model: Model,
    pub analysis: Analysis,
    pub history: History,
    pub code: Code,
}

pub(crate) fn both() -> &'static Both {
    static C: OnceLock<Both> = OnceLock::new();
    C.get_or_init(|| {
        let Project {
            model, analysis, ..
        } = crate::support::load_files(&Input::at(corpus()));
        let history = walk(corpus(), "HEAD", &HistoryOptions::default()).unwrap();
        let until = Some(history.newest_time());
        let current = analysis.current.release;
        let code = Code::load(kubernetes(), None, &model, current, until).unwrap();
        Both {
            model,
            analysis,
            history,
            code,
        }
    })
}

fn view(r: Release) -> ReleaseView {
    let c = both();
    let src = outcome::Sources {
        history: Some(&c.history),
        ..outcome::Sources::of(&c.model, &c.analysis)
    };
    outcome::release_view(&src, r)
}

/// The files-only model against the gates, v1.31-v1.36: the table the
/// docs/release-rules.md gives (`-- --nocapture` prints it).
#[test]
fn the_files_agree_with_the_gates() {
    let c = both();
    let views: Vec<_> = (0..=36)
        .map(|m| {
            let r = Release::new(1, m);
            (r, view(r).entries)
        })
        .collect();
    let a = outcome::agreement(&c.model, Some(&c.history), &c.code, &views, 31..=36);
    println!("KEPs with gates in the code: {}", a.keps);
    println!("| stage | files | gates | both | precision | recall |");
    for (s, n) in &a.stages {
        println!(
            "| {s} | {} | {} | {} | {:.1}% | {:.1}% |",
            n.files,
            n.code,
            n.both,
            100.0 * n.precision(),
            100.0 * n.recall()
        );
    }
    println!("\nset aside ({}):", a.excluded.len());
    for e in &a.excluded {
        let d = &e.change;
        println!(
            "- KEP-{} {} {} ({}): {}",
            d.kep, d.stage, d.release, d.side, e.reason
        );
    }
    // A floor at today's measurement, so a change that makes it worse
    // fails; the issue asks for 97% over the changes the files can know.
    let floor = [
        ("alpha", 98.0, 100.0),
        ("beta", 98.0, 100.0),
        ("stable", 100.0, 100.0),
    ];
    for (s, p, r) in floor {
        let n = &a.stages[s];
        assert!(
            100.0 * n.precision() >= p,
            "{s} precision {:.1}%",
            100.0 * n.precision()
        );
        assert!(
            100.0 * n.recall() >= r,
            "{s} recall {:.1}%",
            100.0 * n.recall()
        );
    }
    // The milestones rewritten after the stage shipped are set aside, with
    // their reason: the files cannot tell them from the re-targets that
    // slipped (docs/release-rules.md, "What the files cannot tell").
    let rewritten: Vec<(u32, String, u32, &str)> = a
        .excluded
        .iter()
        .filter(|e| e.reason.contains("moved after release day"))
        .map(|e| {
            let d = &e.change;
            (d.kep, d.stage.as_str().to_string(), d.release.minor, d.side)
        })
        .collect();
    for want in [
        (2837, "alpha", 32, "code"),
        (2837, "alpha", 33, "files"),
        (4639, "beta", 33, "code"),
        (4639, "beta", 34, "files"),
    ] {
        let want = (want.0, want.1.to_string(), want.2, want.3);
        assert!(rewritten.contains(&want), "{want:?} in {rewritten:?}");
    }
    // and nothing else is set aside for that reason
    assert!(rewritten.len() <= 8, "{rewritten:?}");
    println!("\ndisagreements ({}):", a.disagreements.len());
    for d in &a.disagreements {
        println!(
            "- KEP-{} {} {} ({} only): {}",
            d.kep, d.stage, d.release, d.side, d.says
        );
    }
}

/// A KEP's code stage per release: image volumes (ImageVolume) alpha in
/// v1.31, beta in v1.33, GA in v1.36, read at each release's tag (v1.36: the
/// last master snapshot before its release day).
#[test]
fn a_keps_code_stage_per_release() {
    let c = both();
    let stage = |m: u32| {
        c.code
            .kep_stage(4639, m)
            .map(|k| k.stage.as_str().to_string())
    };
    assert_eq!(stage(30), None);
    assert_eq!(stage(31).as_deref(), Some("alpha"));
    assert_eq!(stage(32).as_deref(), Some("alpha"));
    assert_eq!(stage(33).as_deref(), Some("beta"));
    assert_eq!(stage(35).as_deref(), Some("beta"));
    assert_eq!(stage(36).as_deref(), Some("stable"));
    assert_eq!(c.code.shots[&35].label, "v1.35.4");
    assert!(
        c.code.shots[&36].label.starts_with("master on 2026-04"),
        "{}",
        c.code.shots[&36].label
    );
    let reached: Vec<(String, u32)> = c
        .code
        .reached(4639)
        .into_iter()
        .map(|(s, m, _)| (s.as_str().to_string(), m))
        .collect();
    assert_eq!(
        reached,
        [
            ("alpha".into(), 31),
            ("beta".into(), 33),
            ("stable".into(), 36)
        ]
    );
}

/// Where the files and the gates disagree, the release's note says so:
/// KEP-2837's alpha milestone was rewritten to v1.33 after v1.32 shipped it.
#[test]
fn a_disagreement_is_shown_beside_the_files_outcome() {
    let c = both();
    let note = |m: u32, n: u32| {
        let v = view(Release::new(1, m));
        let e = v.entries.iter().find(|e| e.number == Some(n)).unwrap();
        outcome::note(&c.code, n, v.release, e.into()).expect("KEP has gates")
    };
    let n = note(32, 2837);
    assert!(!n.agrees);
    assert_eq!(
        n.says,
        "gate PodLevelResources reached Alpha in v1.32; the KEP's files say slipped"
    );
    let n = note(33, 2837);
    assert!(!n.agrees);
    assert_eq!(
        n.says,
        "kep.yaml says alpha in v1.33; gate PodLevelResources reached Alpha in v1.32"
    );
    // Where they agree: CDI devices in device plugins, GA in v1.31 (the
    // files moved milestone.stable from v1.30 after v1.30 was out).
    let n = note(31, 4009);
    assert!(n.agrees, "{}", n.says);
    assert_eq!(n.says, "gate DevicePluginCDIDevices reached GA in v1.31");
}

/// The release in progress (v1.37 at the corpus HEAD, 2026-07-24, one day
/// past its Code Freeze): whether each tracked KEP's gates carry the stage.
#[test]
fn code_landed_for_the_release_in_progress() {
    let c = both();
    let v = view(Release::new(1, 37));
    let says = |n: u32| {
        let e = v.entries.iter().find(|e| e.number == Some(n)).unwrap();
        outcome::note(&c.code, n, v.release, e.into()).expect("KEP has gates")
    };
    let n = says(6012);
    assert!(n.agrees);
    assert_eq!(
        n.says,
        "code landed: gate CompositePodGroup Alpha in 1.37 (04698240cb, 2026-06-17)"
    );
    assert!(c.code.past_code_freeze);
    let missing: Vec<_> = v
        .entries
        .iter()
        .filter_map(|e| {
            Some((
                e.number?,
                outcome::note(&c.code, e.number?, v.release, e.into())?,
            ))
        })
        .filter(|(_, n)| !n.agrees)
        .collect();
    assert!(!missing.is_empty());
    for (k, n) in &missing {
        assert!(
            n.says.starts_with("code not landed")
                && n.says.ends_with("at risk of removal from the release"),
            "KEP-{k}: {}",
            n.says
        );
    }
}

/// `check --kubernetes`: a kep.yaml milestone the gates contradict is a
/// `milestone-vs-code` warning at the milestone's line.
#[test]
fn check_reports_a_milestone_the_code_contradicts() {
    use kepsite::project::Needs;
    let input = Input::at(corpus()).kubernetes(kubernetes());
    let p = Project::load(&input, &Needs::files()).unwrap();
    let kep = p.model.kep(2837).unwrap();
    let f = p
        .findings
        .iter()
        .find(|f| f.rule == "milestone-vs-code" && f.kep == Some(2837))
        .expect("a finding for KEP-2837");
    assert_eq!(
        f.message,
        "kep.yaml says alpha in v1.33; gate PodLevelResources reached Alpha in v1.32"
    );
    assert_eq!(f.path, kep.metadata_path);
    assert_eq!(f.line, kep.line("milestone.alpha"));
    assert!(f.line.is_some());
    // Without --kubernetes, no such finding.
    let plain = Project::load(
        &Input {
            kubernetes: None,
            ..input
        },
        &Needs::files(),
    )
    .unwrap();
    assert!(plain.findings.iter().all(|f| f.rule != "milestone-vs-code"));
}
