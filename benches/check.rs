//! `check` and `export` on the real corpus: load every KEP from the working
//! tree (and from git), run every validation rule, and render the export.
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
        bytes = kepsite::query::export(&m, &a, &f, None).unwrap().len();
    });
    let analysis = median(|| {
        let _ = kepsite::analysis::analyze(&m);
    });
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
}
