//! The `kepsite` binary: parse arguments, run, print the cause chain, exit.

use clap::Parser;

/// mimalloc: a site build allocates millions of small values (markdown
/// events, JSON contexts, search terms) across threads; with glibc's malloc
/// the corpus build took 0.65–0.72 s, with mimalloc 0.58–0.61 s at about the
/// same peak memory. mimalloc asks for transparent huge pages; `main` turns
/// them off (see [`no_huge_pages`]).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    // first: a purge scheduled before it would wait v3's whole second
    prompt_purge();
    let cli = kepsite::cli::Cli::parse();
    no_huge_pages();
    kepsite::repo::bound_pack_windows();
    report_to_stderr();
    match kepsite::cli::run(&cli) {
        Ok(code) => exit_now(code),
        Err(err) => {
            for (i, line) in kepsite::errors::causes(&err).iter().enumerate() {
                match i {
                    0 => eprintln!("error: {line}"),
                    _ => eprintln!("  caused by: {line}"),
                }
            }
            std::process::exit(2);
        }
    }
}

/// Write what the library reports (`tracing` events: warnings, and phase
/// timings when `KEPSITE_TIMINGS` is set) to stderr, one plain line each.
fn report_to_stderr() {
    use tracing::level_filters::LevelFilter;
    use tracing_subscriber::layer::SubscriberExt;
    let timings = match std::env::var_os("KEPSITE_TIMINGS") {
        Some(_) => LevelFilter::INFO,
        None => LevelFilter::OFF,
    };
    let filter = tracing_subscriber::filter::Targets::new()
        .with_target(kepsite::timing::TARGET, timings)
        .with_default(LevelFilter::WARN);
    let lines = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .without_time()
        .with_level(false)
        .with_target(false)
        .with_ansi(false)
        .finish();
    let _ = tracing::subscriber::set_global_default(lines.with(filter));
}

/// Turn transparent huge pages off for this process (from here on: the few
/// faulted in while parsing arguments stay).
///
/// With them a warm corpus build faults ~500 times instead of ~40,000, but
/// it peaks ~50 MB higher, a first build (every code block highlighted anew)
/// passes 300 MB, and where the kernel has to compact memory to find huge
/// pages, builds stall: the 10× corpus took 4.3 s with them and 3.4 s
/// without, and corpus builds had 0.6 s outliers.
fn no_huge_pages() {
    #[cfg(target_os = "linux")]
    // SAFETY: PR_SET_THP_DISABLE only sets a flag on the process.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}

/// mimalloc v3's `purge_delay` option (its place in `mi_option_e`, which
/// keeps deprecated options' places so that the numbers stay).
const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Let mimalloc hand freed pages back to the kernel after 100 ms instead of
/// v3's 1 s: a corpus build lasts about a second, so freed pages were never
/// handed back and the load's transient allocations stayed in the peak
/// (`build --no-cache`: 119.1 against 135.8 MiB, CPU 1.01x, 9 pairs; 1 ms:
/// 110 MiB for 8% more CPU; `check` and `report` unchanged; 2026-12-06).
/// Called first in `main`: an arena's first scheduled purge sets its
/// deadline, and one scheduled under the old delay held every later one
/// back to it. A `MIMALLOC_PURGE_DELAY` in the environment is left to win.
fn prompt_purge() {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: mi_option_set only stores an option's value, which the
        // allocator reads when it next considers purging.
        unsafe { libmimalloc_sys::mi_option_set(PURGE_DELAY, 100) }
    }
}

/// Flush stdout and stderr and end the process without running exit
/// handlers: the allocator's would hand every freed page back to the kernel
/// first, work the kernel does anyway when the process ends.
fn exit_now(code: i32) -> ! {
    use std::io::Write;
    let flushed = std::io::stdout().flush().is_ok() && std::io::stderr().flush().is_ok();
    let code = if flushed { code } else { 2 };
    #[cfg(target_os = "linux")]
    // SAFETY: `_exit` only ends the process. `run` has returned, so every
    // file it wrote is closed, and standard output was flushed above.
    unsafe {
        libc::_exit(code)
    }
    #[cfg(not(target_os = "linux"))]
    std::process::exit(code)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `PURGE_DELAY` is the purge delay: its default is v3's 1000 ms
    /// (a mimalloc that renumbered its options, or v2 with its 10 ms, fails
    /// here), and `prompt_purge` sets it.
    #[test]
    fn the_purge_delay_is_the_option_prompt_purge_sets() {
        assert!(
            std::env::var_os("MIMALLOC_PURGE_DELAY").is_none(),
            "run the tests without MIMALLOC_PURGE_DELAY"
        );
        // SAFETY: reading an option's value.
        let before = unsafe { libmimalloc_sys::mi_option_get(PURGE_DELAY) };
        assert_eq!(before, 1000);
        prompt_purge();
        // SAFETY: as above.
        assert_eq!(unsafe { libmimalloc_sys::mi_option_get(PURGE_DELAY) }, 100);
    }
}
