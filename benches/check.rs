//! `check` and `export` on the real corpus: load every KEP from the working
//! tree (and from git), run every validation rule, and render the export;
//! and the changed-only check of a pull request (`--changed-since`,
//! `--changed-in`) against the full check it narrows.
//!
//! Run with `cargo bench --bench check`; prints the median of 7 warm runs.

use std::time::{Duration, Instant};

#[allow(dead_code)] // each bench uses a part of it
mod support;

use kepsite::analysis::findings::check;
use kepsite::model;

const RUNS: usize = 7;

fn median(mut f: impl FnMut()) -> Duration {
    f(); // warm the page cache and the allocator
    let mut times: Vec<Duration> = (0..RUNS)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect();
    times.sort();
    times[RUNS / 2]
}

fn main() {
    let repo = support::corpus(&support::cache_dir().expect("bench cache")).expect("the corpus");

    let mut keps = 0;
    let mut findings = 0;
    let load_check = median(|| {
        let m = model::load(&repo, None, None).unwrap();
        let f = check(&m);
        keps = m.keps.len();
        findings = f.len();
    });
    let load_metadata = median(|| {
        let m = model::load(&repo, None, None).unwrap();
        let _ = kepsite::analysis::findings::check_metadata(&m);
    });
    let load_check_git = median(|| {
        let m = model::load(&repo, Some("HEAD"), None).unwrap();
        let _ = check(&m);
    });
    let m = model::load(&repo, None, None).unwrap();
    let a = kepsite::analysis::analyze(&m);
    let f = check(&m);
    let mut bytes = 0;
    let export = median(|| {
        bytes = kepsite::query::export(&m, &a, &f, None, &[], Vec::new())
            .unwrap()
            .len();
    });
    let analysis = median(|| {
        let _ = kepsite::analysis::analyze(&m);
    });
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

/// Two commits of the corpus three merges apart (7b71b8d → 4c6086a: three
/// KEPs and OWNERS_ALIASES touched), picked by hash as in the tests.
const FROM: &str = "7b71b8da254402d83a7d6cbf9e65689905559ae1";
const TO: &str = "4c6086aefb1aadb74514ea378e21dba62d0c03ec";

/// `kepsite check` as the CLI runs it, whole and changed-only.
fn changed_only(repo: &std::path::Path) -> Vec<(&'static str, Duration)> {
    use kepsite::check::{self, CheckFormat, Options};
    use kepsite::repo::Range;
    let opts = |range: Option<Range>, rev: Option<&str>| Options {
        input: kepsite::project::Input {
            root: repo.to_path_buf(),
            rev: rev.map(str::to_string),
            sigs: None,
            current: None,
            kubernetes: None,
            team: Default::default(),
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
