//! The `kepsite` binary: parse arguments, run, print the cause chain, exit.

use clap::Parser;

/// mimalloc: a site build allocates millions of small values (markdown
/// events, JSON contexts, search terms) across threads; with glibc's malloc
/// the corpus build took 0.65–0.72 s, with mimalloc 0.58–0.61 s at about the
/// same peak memory (huge pages are off, see `.cargo/config.toml`).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let cli = kepsite::cli::Cli::parse();
    match kepsite::cli::run(&cli) {
        Ok(code) => std::process::exit(code),
        Err(err) => {
            eprintln!("error: {err}");
            for cause in err.chain().skip(1) {
                eprintln!("  caused by: {cause}");
            }
            std::process::exit(2);
        }
    }
}
