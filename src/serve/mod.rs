//! `kepsite serve`: [`ServeOptions`] → a local preview of the site, kept up
//! to date while the repository and theme are edited.
//!
//! - [`state`] holds the site in memory and updates it incrementally;
//! - [`server`] answers HTTP from that memory, with live reload and the
//!   problem overlay injected into pages;
//! - [`watch`] turns file events into debounced batches.
//!
//! The main thread owns the [`state::State`]: it applies each batch and
//! publishes the result to the server, whose workers only ever read an
//! immutable snapshot (`Arc<Site>`), swapped under a lock.

pub mod server;
pub mod state;
pub mod watch;

use std::io::Write;
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::sync::mpsc;
use std::time::Instant;

use anyhow::Result;

use crate::project::Input;
use crate::site::SiteOptions;
use server::{Server, Site};
use state::{Changed, Config, Problem, State};

/// How to serve.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// The enhancements checkout (or [`crate::repo::EMBEDDED_ROOT`]: served, not watched)
    /// and sigs.yaml.
    pub input: Input,
    /// A theme directory overriding the default theme.
    pub theme: Option<PathBuf>,
    /// Address to listen on.
    pub bind: IpAddr,
    /// Port (0: any free port).
    pub port: u16,
    /// Open the site in a browser once it is ready.
    pub open: bool,
    /// Repository URL for source and edit links.
    pub repo_url: String,
    /// Branch for source links.
    pub branch: String,
    /// Whether and how to walk the git history (the KEP pages' history
    /// panels), when the repository has one.
    pub walk: crate::project::Walk,
}

enum Message {
    Changed(Changed),
    Stop,
}

/// HTTP runtime threads: one per core, at most four (connections are
/// tasks; a thread is only busy while bytes are copied).
fn workers() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2)
        .clamp(1, 4)
}

/// Print the problems that are new in `new`, and those of `old` now fixed.
fn print_problems(new: &[Problem], old: &[Problem]) {
    for p in new.iter().filter(|p| !old.contains(p)) {
        eprintln!("error: {}", p.subject);
        for line in p.message.lines() {
            eprintln!("  {line}");
        }
    }
    for p in old
        .iter()
        .filter(|p| !new.iter().any(|n| n.subject == p.subject))
    {
        eprintln!("fixed: {}", p.subject);
    }
}

/// Build the site, serve it until Ctrl-C, rebuilding on every change.
pub fn run(opts: &ServeOptions) -> Result<()> {
    let started = Instant::now();
    let mut state = State::new(config(opts))?;
    let problems = state.problems();
    let site = Site {
        generation: 1,
        files: state.files().clone(),
        problems: problems.clone(),
        ..Site::default()
    };
    let server = Server::start(SocketAddr::new(opts.bind, opts.port), site, workers())?;
    let url = format!("http://{}/", server.addr());
    announce(opts, &state, started, &problems, &url);

    let (tx, rx) = mpsc::channel::<Message>();
    let stop = tx.clone();
    if let Err(e) = ctrlc::set_handler(move || {
        let _ = stop.send(Message::Stop);
    }) {
        eprintln!("warning: cannot handle Ctrl-C: {e}");
    }
    // `tx` stays open until the end, so the loop waits even with nothing to watch.
    let watcher = start_watching(opts, tx.clone())?;
    if opts.open {
        open_browser(&url);
    }
    while let Some(batch) = next_batch(&rx) {
        rebuild(&mut state, &server, &batch);
    }
    eprintln!("kepsite serve: stopping");
    drop(watcher);
    drop(tx);
    server.shutdown();
    Ok(())
}

/// The serve state's configuration: the site at `/`, rendered in memory.
fn config(opts: &ServeOptions) -> Config {
    Config {
        input: opts.input.clone(),
        theme: opts.theme.clone(),
        site: SiteOptions {
            out: PathBuf::new(),
            base_url: "/".into(),
            theme: opts.theme.clone(),
            repo_url: crate::urls::repo_url(&opts.repo_url),
            branch: opts.branch.clone(),
            max_output: None,
        },
        walk: opts.walk.clone(),
    }
}

/// Say what is served where (and warn when beyond loopback).
fn announce(opts: &ServeOptions, state: &State, started: Instant, problems: &[Problem], url: &str) {
    eprintln!(
        "kepsite serve: {} KEPs, {} files ready in {:.2} s",
        state.model().keps.len(),
        state.files().len(),
        started.elapsed().as_secs_f64()
    );
    print_problems(problems, &[]);
    if !opts.bind.is_loopback() {
        eprintln!(
            "warning: listening on {} — beyond loopback, anyone who can reach this machine can read the preview; use --bind 127.0.0.1 to keep it local",
            opts.bind
        );
    }
    let mut out = std::io::stdout().lock();
    let _ = writeln!(
        out,
        "Serving {} at {url} (Ctrl-C to stop)",
        opts.input.root.display()
    );
    let _ = out.flush();
}

/// Watch the repository, theme and sigs.yaml, forwarding batches to `tx`;
/// `None` for the embedded sample, which has nothing to watch.
fn start_watching(
    opts: &ServeOptions,
    tx: mpsc::Sender<Message>,
) -> Result<Option<watch::Watcher>> {
    if opts.input.is_embedded() {
        eprintln!("note: serving the sample compiled into kepsite; nothing to watch");
        return Ok(None);
    }
    if let Some(rev) = &opts.input.rev {
        eprintln!("note: serving revision {rev}, which does not change; nothing to watch");
        return Ok(None);
    }
    let (changes_tx, changes_rx) = mpsc::channel::<Changed>();
    let w = watch::watch(
        &opts.input.root,
        opts.theme.as_deref(),
        opts.input.sigs.as_deref(),
        changes_tx,
    )?;
    std::thread::spawn(move || {
        while let Ok(c) = changes_rx.recv() {
            if tx.send(Message::Changed(c)).is_err() {
                return;
            }
        }
    });
    Ok(Some(w))
}

/// The next batch of changes, merged with whatever queued up while the last
/// one was applied; `None` once asked to stop.
fn next_batch(rx: &mpsc::Receiver<Message>) -> Option<Changed> {
    let mut batch = match rx.recv().ok()? {
        Message::Stop => return None,
        Message::Changed(c) => c,
    };
    let mut stopping = false;
    while let Ok(more) = rx.try_recv() {
        match more {
            Message::Stop => stopping = true,
            Message::Changed(c) => {
                batch.repo.extend(c.repo);
                batch.theme |= c.theme;
                batch.sigs |= c.sigs;
            }
        }
    }
    (!stopping).then_some(batch)
}

/// Apply one batch: a README's page first, then everything else, publishing
/// each to the server and saying what changed.
fn rebuild(state: &mut State, server: &Server, batch: &Changed) {
    let started = Instant::now();
    let before = state.problems();
    // A README edit: its page first, so it reloads at once.
    let quick = state.preview(batch);
    if !quick.is_empty() {
        let generation = server.publish(state.files().clone(), before.clone(), quick.clone());
        eprintln!(
            "updated {} in {} ms, reload {generation}; updating listings and search",
            quick.join(", "),
            started.elapsed().as_millis()
        );
    }
    let outcome = state.apply(batch);
    if !outcome.visible() {
        return;
    }
    let problems = state.problems();
    let generation = server.publish(
        state.files().clone(),
        problems.clone(),
        outcome.files.clone(),
    );
    print_problems(&problems, &before);
    let mut shown: Vec<&str> = outcome.files.iter().map(String::as_str).take(4).collect();
    if outcome.files.len() > 4 {
        shown.push("…");
    }
    let files = if shown.is_empty() {
        "no files changed, problems did".to_string()
    } else {
        format!(
            "{} files changed: {}",
            outcome.files.len(),
            shown.join(", ")
        )
    };
    eprintln!(
        "rebuilt in {} ms ({}{} pages rendered, {files}), reload {generation}",
        outcome.took.as_millis(),
        if outcome.full_reload {
            "repository reloaded, "
        } else {
            ""
        },
        outcome.rendered,
    );
}

/// Open `url` in the desktop's browser, or say how to.
fn open_browser(url: &str) {
    let cmd = if cfg!(target_os = "macos") {
        "open"
    } else if cfg!(windows) {
        "explorer"
    } else {
        "xdg-open"
    };
    if let Err(e) = std::process::Command::new(cmd)
        .arg(url)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
    {
        eprintln!("note: could not open a browser ({cmd}: {e}); open {url}");
    }
}
