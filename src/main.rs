//! The `kepsite` binary: parse arguments, run, print the cause chain, exit.

use clap::Parser;

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
