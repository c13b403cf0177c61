//! Parses and assesses every KEP README under a directory and prints timings
//! and totals: `cargo run --release --example assess_readmes -- path/to/keps`.
//! With a second argument N it only runs the pipeline N times, for `perf stat`.

use kepsite::analysis::completeness::assess;
use kepsite::analysis::template::builtin;
use kepsite::kep::document::{parse, toc_mismatches};
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::time::Instant;

fn readmes(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            readmes(&p, out);
        } else if p
            .file_name()
            .is_some_and(|n| n.eq_ignore_ascii_case("readme.md"))
        {
            out.push(p);
        }
    }
}

/// The `stage:` value of the kep.yaml beside the README, read crudely.
fn stage(readme: &Path) -> Option<kepsite::kep::domain::Stage> {
    let yaml = std::fs::read_to_string(readme.with_file_name("kep.yaml")).ok()?;
    yaml.lines()
        .find_map(|l| l.strip_prefix("stage:"))
        .map(|s| kepsite::kep::domain::Stage::parse(s.trim().trim_matches('"')))
}

fn main() {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "/tmp/enhancements/keps".into());
    let mut paths = Vec::new();
    readmes(Path::new(&dir), &mut paths);
    let inputs: Vec<(String, Option<kepsite::kep::domain::Stage>)> = paths
        .iter()
        .map(|p| (std::fs::read_to_string(p).unwrap_or_default(), stage(p)))
        .collect();
    let bytes: usize = inputs.iter().map(|(t, _)| t.len()).sum();
    let template = builtin();
    // `assess_readmes DIR N`: only run the pipeline N times (for `perf stat`).
    if let Some(n) = std::env::args()
        .nth(2)
        .and_then(|n| n.parse::<usize>().ok())
    {
        for _ in 0..n {
            let out: Vec<_> = inputs
                .par_iter()
                .map(|(text, stage)| {
                    let doc = parse(text);
                    (
                        toc_mismatches(&doc),
                        assess(&doc, &template, stage.as_ref()),
                    )
                })
                .collect();
            std::hint::black_box(out);
        }
        return;
    }

    let mut best = f64::MAX;
    let mut results = Vec::new();
    for _ in 0..5 {
        let start = Instant::now();
        results = inputs
            .par_iter()
            .map(|(text, stage)| {
                let doc = parse(text);
                let a = assess(&doc, &template, stage.as_ref());
                (toc_mismatches(&doc).len(), a)
            })
            .collect::<Vec<_>>();
        best = best.min(start.elapsed().as_secs_f64());
    }
    let time = |f: &dyn Fn()| {
        (0..5)
            .map(|_| {
                let start = Instant::now();
                f();
                start.elapsed().as_secs_f64() * 1e3
            })
            .fold(f64::MAX, f64::min)
    };
    let docs: Vec<_> = inputs.par_iter().map(|(t, _)| parse(t)).collect();
    let parse_ms = time(&|| {
        let _: Vec<_> = inputs.par_iter().map(|(t, _)| parse(t)).collect();
    });
    let assess_ms = time(&|| {
        let _: Vec<_> = docs
            .par_iter()
            .zip(&inputs)
            .map(|(d, (_, st))| assess(d, &template, st.as_ref()))
            .collect();
    });
    let toc_ms = time(&|| {
        let _: Vec<_> = docs.par_iter().map(toc_mismatches).collect();
    });
    let lines_ms = time(&|| {
        let n: usize = inputs.par_iter().map(|(t, _)| t.lines().count()).sum();
        std::hint::black_box(n);
    });
    let sections: usize = docs.iter().map(|d| d.sections.len()).sum();
    let toc_entries: usize = docs
        .iter()
        .filter_map(|d| d.toc.as_ref())
        .map(|t| t.entries.len())
        .sum();
    println!(
        "{sections} sections, {toc_entries} TOC entries; baseline line count {lines_ms:.1} ms"
    );
    println!(
        "best of 5: parse {parse_ms:.1} ms, assess {assess_ms:.1} ms, toc_mismatches {toc_ms:.1} ms"
    );
    let follows = results.iter().filter(|(_, a)| a.follows_template).count();
    let toc_bad = results.iter().filter(|(n, _)| *n > 0).count();
    let prr_beta_full = results
        .iter()
        .filter(|(_, a)| a.prr.beta.percent == 100)
        .count();
    let prr_alpha_zero = results
        .iter()
        .filter(|(_, a)| a.prr.alpha.answered == 0)
        .count();
    println!(
        "{} READMEs, {:.1} MB, parse+assess+toc best of 5: {:.1} ms ({} threads)",
        inputs.len(),
        bytes as f64 / 1e6,
        best * 1e3,
        rayon::current_num_threads()
    );
    println!(
        "follows template: {follows}, TOC mismatches: {toc_bad}, PRR beta 100%: {prr_beta_full}, PRR alpha 0 answered: {prr_alpha_zero}"
    );
}
