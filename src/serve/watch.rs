//! Watching: the repository, the theme directory and sigs.yaml (notify) →
//! debounced [`Changed`] batches on a channel.
//!
//! An editor's save is a burst of events (write, or write a temporary and
//! rename it over the file). A batch closes once the watched trees have
//! been quiet for [`QUIET`], or [`LONGEST`] after it opened, whichever comes
//! first; the quiet window is short because it is part of the time between
//! saving and the page reloading.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use notify::{EventKind, RecursiveMode, Watcher as _};

use super::state::Changed;

/// Quiet time that closes a batch.
pub const QUIET: Duration = Duration::from_millis(12);
/// The longest a batch stays open.
pub const LONGEST: Duration = Duration::from_millis(250);

/// Keeps the watch alive; dropping it stops watching.
pub struct Watcher {
    _inner: notify::RecommendedWatcher,
}

struct Roots {
    repo: PathBuf,
    theme: Option<PathBuf>,
    sigs: Option<PathBuf>,
}

fn canonical(p: &Path) -> PathBuf {
    p.canonicalize().unwrap_or_else(|_| p.to_path_buf())
}

impl Roots {
    fn add(&self, path: &Path, batch: &mut Changed) {
        if let Some(theme) = &self.theme
            && path.starts_with(theme)
        {
            batch.theme = true;
            return;
        }
        if self.sigs.as_deref() == Some(path) {
            batch.sigs = true;
            return;
        }
        if let Ok(rel) = path.strip_prefix(&self.repo) {
            let rel = rel.to_string_lossy().replace('\\', "/");
            if !rel.is_empty() && !rel.starts_with(".git/") && rel != ".git" {
                batch.repo.insert(rel);
            }
        }
    }
}

/// Watch `repo` (recursively), `theme` (recursively) and the file `sigs`,
/// sending each debounced batch of changes to `tx`.
pub fn watch(
    repo: &Path,
    theme: Option<&Path>,
    sigs: Option<&Path>,
    tx: Sender<Changed>,
) -> Result<Watcher> {
    let roots = Roots {
        repo: canonical(repo),
        theme: theme.map(canonical),
        sigs: sigs.map(canonical),
    };
    let (raw_tx, raw_rx) = mpsc::channel::<notify::Result<notify::Event>>();
    // Never through a symlink: a directory link out of the repository
    // (`keps/x -> /`) would watch the whole machine, as build and check
    // never read through one.
    let config = notify::Config::default().with_follow_symlinks(false);
    let mut inner = notify::RecommendedWatcher::new(
        move |e| {
            let _ = raw_tx.send(e);
        },
        config,
    )
    .context("starting the file watcher")?;
    inner
        .watch(&roots.repo, RecursiveMode::Recursive)
        .with_context(|| format!("watching {}", roots.repo.display()))?;
    if let Some(t) = &roots.theme {
        inner
            .watch(t, RecursiveMode::Recursive)
            .with_context(|| format!("watching {}", t.display()))?;
    }
    if let Some(dir) = roots.sigs.as_deref().and_then(Path::parent) {
        // The directory, not the file: editors replace files by renaming.
        inner
            .watch(dir, RecursiveMode::NonRecursive)
            .with_context(|| format!("watching {}", dir.display()))?;
    }
    std::thread::Builder::new()
        .name("kepsite-watch".into())
        .spawn(move || {
            let add = |e: notify::Result<notify::Event>, batch: &mut Changed| {
                let Ok(e) = e else { return };
                if matches!(e.kind, EventKind::Access(_)) {
                    return;
                }
                for p in &e.paths {
                    roots.add(p, batch);
                }
            };
            while let Ok(first) = raw_rx.recv() {
                let mut batch = Changed::default();
                add(first, &mut batch);
                let opened = Instant::now();
                loop {
                    match raw_rx.recv_timeout(QUIET) {
                        Ok(e) => add(e, &mut batch),
                        Err(RecvTimeoutError::Timeout) => break,
                        Err(RecvTimeoutError::Disconnected) => return,
                    }
                    if opened.elapsed() >= LONGEST {
                        break;
                    }
                }
                if (batch.theme || batch.sigs || !batch.repo.is_empty()) && tx.send(batch).is_err()
                {
                    return;
                }
            }
        })
        .context("starting the watch thread")?;
    Ok(Watcher { _inner: inner })
}
