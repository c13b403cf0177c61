//! `check` and `export` on the real corpus: load every KEP from the working
//! tree (and from git), run every validation rule, and render the export;
//! and the changed-only check of a pull request (`--changed-since`,
//! `--changed-in`) against the full check it narrows.
//!
//! Run with `cargo bench --bench check`; prints the median of 7 warm runs.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Mutex;
use std::time::{Duration, Instant};

#[allow(dead_code)] // each bench uses a part of it
mod support;

use kepsite::project::{Findings, Input, Needs, Project, Readmes, Walk};

const RUNS: usize = 7;

fn median(mut f: impl FnMut()) -> Duration {
    median_of(|| {
        let t = Instant::now();
        f();
        t.elapsed()
    })
}

/// The median of the times `f` gives (after one run to warm the page cache
/// and the allocator).
fn median_of(mut f: impl FnMut() -> Duration) -> Duration {
    f();
    let mut times: Vec<Duration> = (0..RUNS).map(|_| f()).collect();
    times.sort();
    times[RUNS / 2]
}

/// The phases `kepsite::timing` reports (`load`, `analyze`, `check`, …),
/// each wall time as it was last reported: the steps inside
/// `Project::load`, which is all the crate shows of a load.
static PHASES: Mutex<BTreeMap<String, Duration>> = Mutex::new(BTreeMap::new());

/// A subscriber keeping each phase's wall time in [`PHASES`].
struct Phases;

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for Phases {
    fn on_event(&self, event: &tracing::Event<'_>, _: tracing_subscriber::layer::Context<'_, S>) {
        struct Message(String);
        impl tracing::field::Visit for Message {
            fn record_debug(&mut self, f: &tracing::field::Field, v: &dyn std::fmt::Debug) {
                if f.name() == "message" {
                    self.0 = format!("{v:?}");
                }
            }
        }
        if event.metadata().target() != kepsite::timing::TARGET {
            return;
        }
        let mut m = Message(String::new());
        event.record(&mut m);
        // "timing: <phase> <wall> ms wall <cpu> ms cpu …"
        let Some((head, _)) =
            m.0.strip_prefix("timing: ")
                .and_then(|r| r.split_once(" ms wall"))
        else {
            return;
        };
        if let Some((phase, wall)) = head.trim_end().rsplit_once(' ')
            && let Ok(ms) = wall.parse::<f64>()
        {
            let wall = Duration::from_secs_f64(ms / 1e3);
            PHASES
                .lock()
                .unwrap()
                .insert(phase.trim().to_string(), wall);
        }
    }
}

/// The wall time of `phase` in the last load.
fn phase(name: &str) -> Duration {
    PHASES.lock().unwrap()[name]
}

fn load(input: &Input, needs: &Needs) -> Project {
    Project::load(input, needs).unwrap()
}

fn main() {
    use tracing_subscriber::layer::SubscriberExt as _;
    tracing::subscriber::set_global_default(tracing_subscriber::registry().with(Phases))
        .expect("the bench's subscriber");
    let repo = support::corpus(&support::cache_dir().expect("bench cache")).expect("the corpus");
    let input = Input::at(&repo);

    let mut keps = 0;
    let mut findings = 0;
    // `check`'s load: the files, their analysis and every rule
    let load_check = median(|| {
        let p = load(&input, &Needs::files());
        keps = p.model.keps.len();
        findings = p.findings.len();
    });
    // The load alone (no README analysed, no rule), then the metadata rules.
    let none = |m: &kepsite::model::Model, _: Option<&kepsite::repo::history::History>| {
        anyhow::Ok(vec![false; m.keps.len()])
    };
    let bare = Needs {
        findings: Findings::Skip,
        readmes: Readmes::Of(&none),
        ..Needs::files()
    };
    let load_metadata = median_of(|| {
        let p = load(&input, &bare);
        let t = Instant::now();
        let _ = kepsite::analysis::findings::check_metadata(&p.model);
        phase("load") + t.elapsed()
    });
    let at_head = input.clone().rev("HEAD");
    let load_check_git = median(|| {
        let _ = load(&at_head, &Needs::files());
    });
    let p = load(&input, &Needs::files());
    let mut bytes = 0;
    let export = median(|| {
        bytes = kepsite::query::export(&p.model, &p.analysis, &p.findings, None, &[], Vec::new())
            .unwrap()
            .len();
    });
    let history = tempfile::tempdir().expect("a history cache");
    let analysis = analysis_alone(&input, history.path());
    let changed = changed_only(&repo);
    println!(
        "corpus: {keps} KEPs, {findings} findings, export {bytes} bytes, {} threads",
        rayon::current_num_threads()
    );
    println!("| work | median of {RUNS} |");
    println!("|---|---|");
    println!(
        "| load + metadata rules (the Go tooling's pass), working tree | {:.1} ms |",
        load_metadata.as_secs_f64() * 1e3
    );
    println!(
        "| load + check, working tree | {:.1} ms |",
        load_check.as_secs_f64() * 1e3
    );
    println!(
        "| load + check, --rev HEAD (git2) | {:.1} ms |",
        load_check_git.as_secs_f64() * 1e3
    );
    println!(
        "| export JSON (after load) | {:.1} ms |",
        export.as_secs_f64() * 1e3
    );
    println!(
        "| README sections + completeness, all KEPs (part of check) | {:.1} ms |",
        analysis.as_secs_f64() * 1e3
    );
    for (what, t) in changed {
        println!("| {what} | {:.1} ms |", t.as_secs_f64() * 1e3);
    }
}

/// README sections and template and PRR completeness for every KEP, its
/// README parsed already: the `analyze` phase of a load that walks the
/// history (from the cache in `cache`, warm after the first run), as such
/// a load parses every README beside the walk, before the analysis. No
/// rule, no deadline.
fn analysis_alone(input: &Input, cache: &Path) -> Duration {
    let needs = Needs {
        walk: Walk::Cached(cache.to_path_buf()),
        findings: Findings::Skip,
        ..Needs::files()
    };
    median_of(|| {
        let _ = load(input, &needs);
        phase("analyze")
    })
}

/// Two commits of the corpus three merges apart (7b71b8d → 4c6086a: three
/// KEPs and OWNERS_ALIASES touched), picked by hash as in the tests.
const FROM: &str = "7b71b8da254402d83a7d6cbf9e65689905559ae1";
const TO: &str = "4c6086aefb1aadb74514ea378e21dba62d0c03ec";

/// `kepsite check` as the CLI runs it, whole and changed-only.
fn changed_only(repo: &std::path::Path) -> Vec<(&'static str, Duration)> {
    use kepsite::check::{self, CheckFormat, Options};
    use kepsite::repo::Range;
    let opts = |range: Option<Range>, rev: Option<&str>| Options {
        input: Input {
            rev: rev.map(str::to_string),
            ..Input::at(repo)
        },
        range,
        format: CheckFormat::Github,
        rules: Vec::new(),
        sig: None,
        deny_warnings: false,
        color: false,
        verbose: false,
        links: check::summary::SummaryLinks {
            base_url: None,
            repo_url: "https://github.com/kubernetes/enhancements".into(),
            tree: "master".into(),
        },
    };
    let run = |o: Options| {
        move || {
            let c = check::collect(&o).unwrap();
            std::hint::black_box(check::render(&c, &o));
        }
    };
    let since = Range::Since {
        base: "HEAD~3".into(),
        head: None,
    };
    let within = Range::In {
        from: FROM.into(),
        to: TO.into(),
        merge_base: false,
    };
    vec![
        (
            "`check --format github`, whole repository, working tree",
            median(run(opts(None, None))),
        ),
        (
            "`check --changed-since HEAD~3 --format github` (working tree against the merge base)",
            median(run(opts(Some(since), None))),
        ),
        (
            "`check --rev 4c6086a --format github`, whole repository from git",
            median(run(opts(None, Some(TO)))),
        ),
        (
            "`check --changed-in 7b71b8d..4c6086a --format github` (both from git)",
            median(run(opts(Some(within), None))),
        ),
    ]
}
