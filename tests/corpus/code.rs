//! What shipped, files against code (issue 35): the release model read from
//! the KEP files alone, compared with Kubernetes' feature gates in the
//! kubernetes-features bundle.

use std::sync::OnceLock;

use kepsite::analysis::code::{self, Code};
use kepsite::analysis::history::{History, HistoryOptions, walk};
use kepsite::analysis::outcome::{self, ReleaseView};
use kepsite::analysis::{Analysis, analyze};
use kepsite::kep::domain::Release;
use kepsite::model::{self, Model};

use crate::shared::{corpus, kubernetes};

struct Both {
    model: Model,
    analysis: Analysis,
    history: History,
    code: Code,
}

fn both() -> &'static Both {
    static C: OnceLock<Both> = OnceLock::new();
    C.get_or_init(|| {
        let model = model::load(corpus(), None, None).unwrap();
        let analysis = analyze(&model);
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
    outcome::release_view(
        &c.model,
        &c.analysis,
        Some(&c.history),
        &c.analysis.current,
        r,
    )
}

/// The files-only model against the gates, v1.31-v1.36: the table the
/// README gives (`-- --nocapture` prints it).
#[test]
fn the_files_agree_with_the_gates() {
    let c = both();
    let views: Vec<_> = (0..=36)
        .map(|m| {
            let r = Release::new(1, m);
            (r, view(r).entries)
        })
        .collect();
    let a = code::agreement(&c.model, &c.code, &views, 31..=36);
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
        println!("- KEP-{} {} {} ({}): {}", d.kep, d.stage, d.release, d.side, e.reason);
    }
    println!("\ndisagreements ({}):", a.disagreements.len());
    for d in &a.disagreements {
        println!("- KEP-{} {} {} ({} only): {}", d.kep, d.stage, d.release, d.side, d.says);
    }
}

#[test]
fn debug_stages() {
    let c = both();
    for m in 28..=37 {
        println!("{m}: {:?}", c.code.kep_stage(4639, m));
    }
    println!("{:?}", c.code.reached(4639));
    println!("{:?}", c.code.shots.keys().collect::<Vec<_>>());
}
