//! Phase timings on stderr when `KEPSITE_TIMINGS` is set: `timed("phase", || work)`.
//!
//! Used to see where a build spends its time without a profiler; silent and
//! nearly free otherwise.

use std::sync::OnceLock;
use std::time::Instant;

fn enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("KEPSITE_TIMINGS").is_some())
}

/// Print a count beside the timings, when they are on.
pub fn note(what: &str, n: usize) {
    if enabled() {
        eprintln!("timing: {what}: {n}");
    }
}

/// Run `f`, printing how long it took as `phase` when timings are on.
pub fn timed<T>(phase: &str, f: impl FnOnce() -> T) -> T {
    if !enabled() {
        return f();
    }
    let t = Instant::now();
    let cpu = cpu_ms();
    let out = f();
    let (rss, peak) = memory_mb();
    eprintln!(
        "timing: {phase:<24} {:>8.1} ms wall {:>7} ms cpu {rss:>6} MB rss {peak:>6} MB peak",
        t.elapsed().as_secs_f64() * 1e3,
        cpu_ms().saturating_sub(cpu)
    );
    out
}

/// Resident and peak resident memory of the process in MB, from /proc
/// (Linux; zeros elsewhere).
fn memory_mb() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .map_or(0, |kb| kb / 1024)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

/// CPU time of the whole process (user + system) in ms, from /proc (Linux;
/// 0 elsewhere). Coarse (10 ms ticks), but unaffected by other processes.
fn cpu_ms() -> u64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0;
    };
    // Fields after the command name (which is in parentheses): state is
    // field 3, utime and stime are fields 14 and 15.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<u64> = rest
        .split_whitespace()
        .skip(11)
        .take(2)
        .filter_map(|x| x.parse().ok())
        .collect();
    f.iter().sum::<u64>() * 10
}
