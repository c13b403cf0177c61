//! What kepsite tells besides its output, as `tracing` events: phase timings
//! (`timed("phase", || work)`, target `timing`, level info) and
//! warnings about work it skipped and carried on without ([`warn`]). Library
//! code reports through here and never prints; the binary's subscriber
//! (`main.rs`) writes the events to stderr, timings only when
//! `KEPSITE_TIMINGS` is set.
//!
//! Timings show where a build spends its time without a profiler; silent and
//! nearly free otherwise (nothing is measured unless a subscriber wants them).

use std::time::Instant;

/// The target of timing events (not a module path: a filter on it must not
/// also catch the warnings this module reports, whose target is `kepsite`).
pub const TARGET: &str = "timing";

fn enabled() -> bool {
    tracing::enabled!(target: TARGET, tracing::Level::INFO)
}

/// A warning: something was skipped (a cache not saved, history not read)
/// and the run goes on without it.
pub fn warn(message: impl std::fmt::Display) {
    tracing::warn!(target: "kepsite", "warning: {message}");
}

/// Report a count beside the timings, when they are on.
pub fn note(what: &str, n: usize) {
    tracing::info!(target: TARGET, "timing: {what}: {n}");
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
    tracing::info!(
        target: TARGET,
        "timing: {phase:<24} {:>8.1} ms wall {:>7.1} ms cpu {rss:>6} MB rss {peak:>6} MB peak",
        t.elapsed().as_secs_f64() * 1e3,
        cpu_ms() - cpu
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

/// CPU time of the whole process (user + system) in ms, to the microsecond
/// (Linux; 0 elsewhere). Unaffected by other processes.
fn cpu_ms() -> f64 {
    #[cfg(target_os = "linux")]
    {
        let mut t = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `t` is a valid, writable timespec for the call's duration.
        if unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut t) } == 0 {
            return t.tv_sec as f64 * 1e3 + t.tv_nsec as f64 / 1e6;
        }
    }
    0.0
}
