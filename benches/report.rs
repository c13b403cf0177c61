//! `kepsite report` benchmark on the real corpus: the whole pipeline (load,
//! analysis, history from a warm cache, report, Markdown) for v1.35, alone
//! and with `--since HEAD~50`, plus each format's rendering.
//!
//! Run with `cargo bench --bench report`; prints the median of 7 runs each.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

#[allow(dead_code)] // each bench uses a part of it
mod support;

use kepsite::report::render::ReportFormat;
use kepsite::report::run::{Request, run};

const RUNS: usize = 7;

fn median(mut f: impl FnMut()) -> Duration {
    let mut t: Vec<Duration> = (0..RUNS)
        .map(|_| {
            let s = Instant::now();
            f();
            s.elapsed()
        })
        .collect();
    t.sort();
    t[RUNS / 2]
}

fn request(repo: &Path, cache: PathBuf, format: ReportFormat, since: Option<&str>) -> Request {
    Request {
        input: kepsite::project::Input::at(repo),
        release: "v1.35".into(),
        since: since.map(str::to_string),
        format,
        freeze: None,
        today: None,
        site_url: None,
        repo_url: "https://github.com/kubernetes/enhancements".into(),
        branch: "master".into(),
        history: kepsite::project::Walk::Cached(cache),
        theme: None,
        phase: None,
        templates: None,
    }
}

fn main() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let repo = support::corpus(&support::cache_dir().expect("bench cache")).expect("the corpus");
    let cache = tmp.path().join("cache");

    let start = Instant::now();
    let md = run(&request(&repo, cache.clone(), ReportFormat::Md, None))
        .expect("cold report")
        .text;
    let cold = start.elapsed();
    assert!(md.contains("Enhancements status: v1.35"));

    let warm = median(|| {
        run(&request(&repo, cache.clone(), ReportFormat::Md, None)).expect("warm report");
    });
    let since = median(|| {
        run(&request(
            &repo,
            cache.clone(),
            ReportFormat::Md,
            Some("HEAD~50"),
        ))
        .expect("since report");
    });
    println!("report v1.35, real corpus (median of {RUNS}):");
    println!(
        "  cold (history walk, cache written): {:>8.1} ms",
        cold.as_secs_f64() * 1e3
    );
    println!(
        "  warm (history from the cache):      {:>8.1} ms",
        warm.as_secs_f64() * 1e3
    );
    println!(
        "  warm, --since HEAD~50:              {:>8.1} ms",
        since.as_secs_f64() * 1e3
    );
    for (name, f) in [
        ("md", ReportFormat::Md),
        ("html", ReportFormat::Html),
        ("csv", ReportFormat::Csv),
        ("json", ReportFormat::Json),
    ] {
        let t = median(|| {
            run(&request(&repo, cache.clone(), f, None)).expect("report");
        });
        println!(
            "  warm, --format {name:<5}              {:>8.1} ms",
            t.as_secs_f64() * 1e3
        );
    }
}
