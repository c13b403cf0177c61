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
