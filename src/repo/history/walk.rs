//! The walk itself: a repository, head and optional already-walked base
//! (`git2::Repository`, `Oid`) plus the state so far (`State`) to the state at
//! head (`State`).
//!
//! Three phases: order the new commits, diff each against its first parent
//! (in parallel, one repository handle per chunk), then fold the diffs into
//! the state in order.

use std::collections::BTreeMap;
use std::io::IsTerminal as _;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use git2::{Delta, ObjectType, Oid, Repository, Tree};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::extract::{self, Fields, Unit};
use super::{Change, CommitRef, KepHistory, format_date};

/// Everything needed to continue a walk: the public per-KEP histories plus
/// which KEP each directory or legacy file belongs to, and the history of
/// units that have no number (yet).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct State {
    pub keps: BTreeMap<u32, KepHistory>,
    /// KEP unit (directory or legacy file) → its number, `None` if unknown.
    pub units: BTreeMap<String, Option<u32>>,
    /// Histories of unnumbered units, merged into a KEP once matched.
    pub pending: BTreeMap<String, KepHistory>,
    /// KEP unit → the last title its metadata gave.
    #[serde(default)]
    pub titles: BTreeMap<String, String>,
}

/// One changed path of a commit, already classified and read.
#[derive(Debug)]
struct Obs {
    path: String,
    unit: Unit,
    added: bool,
    deleted: bool,
    /// For metadata files that exist after the commit.
    fields: Option<Fields>,
}

/// One commit's contribution to the history.
#[derive(Debug)]
struct Step {
    commit: CommitRef,
    obs: Vec<Obs>,
}

/// Walks the commits reachable from `head` but not from `base`, applying them
/// to `state`.
pub(crate) fn run(
    repo: &Repository,
    repo_path: &Path,
    head: Oid,
    base: Option<Oid>,
    mut state: State,
    progress: bool,
) -> anyhow::Result<State> {
    let start = Instant::now();
    let order = order(repo, head, base)?;
    let bar = indicatif::ProgressBar::with_draw_target(
        Some(order.len() as u64),
        indicatif::ProgressDrawTarget::hidden(),
    );
    let shown = AtomicBool::new(false);
    let show_bar = progress && std::io::stderr().is_terminal();
    // Commits are diffed in chunks so each worker opens the repository once
    // (a git2 Repository is not Sync).
    let chunk = (order.len() / (rayon::current_num_threads() * 8)).clamp(64, 1024);
    let steps = order
        .par_chunks(chunk)
        .map(|ids| {
            let repo = Repository::open(repo_path)
                .with_context(|| format!("opening git repository {}", repo_path.display()))?;
            let steps = ids
                .iter()
                .map(|&id| diff_commit(&repo, id))
                .collect::<anyhow::Result<Vec<_>>>()?;
            bar.inc(ids.len() as u64);
            if show_bar
                && start.elapsed() > Duration::from_secs(1)
                && !shown.swap(true, Ordering::Relaxed)
            {
                bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
            }
            Ok(steps)
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    for step in steps.iter().flatten() {
        apply(&mut state, step);
    }
    bar.finish_and_clear();
    Ok(state)
}

/// The first-parent line of the default branch from `base` (exclusive) to
/// `head`, oldest first.
///
/// Only these commits are walked: each is diffed against its first parent,
/// so a merge brings in everything its branch changed, dated when it landed,
/// and a change made and undone on a side branch is never seen.
fn order(repo: &Repository, head: Oid, base: Option<Oid>) -> anyhow::Result<Vec<Oid>> {
    let mut out = vec![];
    let mut cur = Some(head);
    while let Some(id) = cur.filter(|id| Some(*id) != base) {
        out.push(id);
        let c = repo
            .find_commit(id)
            .with_context(|| format!("reading commit {id}"))?;
        cur = c.parent_ids().next();
    }
    out.reverse();
    Ok(out)
}

/// The `keps/` subtree of a commit, if it has one.
fn keps_tree<'r>(
    repo: &'r Repository,
    commit: &git2::Commit<'_>,
) -> anyhow::Result<Option<Tree<'r>>> {
    let tree = commit
        .tree()
        .with_context(|| format!("reading tree of {}", commit.id()))?;
    let Some(entry) = tree.get_name("keps") else {
        return Ok(None);
    };
    // A `keps` that is a file or submodule has no KEPs in it.
    Ok(repo.find_tree(entry.id()).ok())
}

/// Diffs one commit's `keps/` against its first parent's and reads the
/// metadata files it changed.
fn diff_commit(repo: &Repository, id: Oid) -> anyhow::Result<Step> {
    let c = repo
        .find_commit(id)
        .with_context(|| format!("reading commit {id}"))?;
    let time = c.time().seconds();
    let commit = CommitRef {
        id: id.to_string(),
        time,
        date: format_date(time),
        summary: String::from_utf8_lossy(c.summary_bytes().unwrap_or_default()).into_owned(),
    };
    let new = keps_tree(repo, &c)?;
    let old = match c.parents().next() {
        Some(p) => keps_tree(repo, &p)?,
        None => None,
    };
    if new.as_ref().map(Tree::id) == old.as_ref().map(Tree::id) {
        return Ok(Step {
            commit,
            obs: vec![],
        });
    }
    let mut changed = vec![];
    diff_trees(repo, old.as_ref(), new.as_ref(), "keps", &mut changed);
    let mut obs = vec![];
    for (path, file, status) in changed {
        let Some(unit) = extract::classify(&path) else {
            continue;
        };
        let deleted = status == Delta::Deleted;
        let fields = (unit.meta && !deleted).then(|| {
            let blob = repo.find_blob(file).ok();
            let text = blob
                .as_ref()
                .map(|b| crate::repo::text(b.content()))
                .unwrap_or_default();
            if unit.legacy {
                extract::extract_front_matter(&text)
            } else {
                extract::extract_yaml(&text)
            }
        });
        obs.push(Obs {
            path,
            unit,
            added: status == Delta::Added,
            deleted,
            fields,
        });
    }
    Ok(Step { commit, obs })
}

/// A changed blob: its path, its id (the new one unless deleted) and how it changed.
type Changed = (String, Oid, Delta);

/// What a tree entry is, for the diff.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Tree,
    File,
    /// Symlinks (sig-release left some pointing at migrated KEPs) and
    /// submodules: never KEP content.
    Other,
}

fn kind(e: &git2::TreeEntry<'_>) -> Kind {
    match e.kind() {
        Some(ObjectType::Tree) => Kind::Tree,
        Some(ObjectType::Blob) if e.filemode() != 0o120000 => Kind::File,
        _ => Kind::Other,
    }
}

/// Diffs two trees, descending only into subtrees whose ids differ.
///
/// libgit2's tree-to-tree diff iterates every entry of both trees, which on
/// `keps/` costs thousands of entries per commit; this touches only the
/// changed directories. A type change is a deletion plus an addition.
/// Both trees are in git's order, so an entry is first looked for at the
/// same place in the other (almost always there: a commit changes a few
/// entries of a directory), and by name only when it is not; a path is
/// only written out for an entry that changed.
fn diff_trees(
    repo: &Repository,
    old: Option<&Tree<'_>>,
    new: Option<&Tree<'_>>,
    prefix: &str,
    out: &mut Vec<Changed>,
) {
    if old.map(Tree::id) == new.map(Tree::id) || prefix == "keps/prod-readiness" {
        return;
    }
    let subtree = |id: Oid| repo.find_tree(id).ok();
    let path = |name: &[u8]| format!("{prefix}/{}", String::from_utf8_lossy(name));
    let gone = |kind: Kind, id: Oid, path: &str, out: &mut Vec<Changed>| match kind {
        Kind::Tree => diff_trees(repo, subtree(id).as_ref(), None, path, out),
        Kind::File => out.push((path.to_string(), id, Delta::Deleted)),
        Kind::Other => {}
    };
    let olds: Vec<git2::TreeEntry<'_>> = old.map(|o| o.iter().collect()).unwrap_or_default();
    // the old entries found at their own place in the new tree
    let mut kept = vec![false; olds.len()];
    if let Some(new) = new {
        for (i, e) in new.iter().enumerate() {
            let name = e.name_bytes();
            let before = match olds.get(i) {
                Some(o) if o.name_bytes() == name => {
                    kept[i] = true;
                    Some((kind(o), o.id()))
                }
                _ => old
                    .and_then(|o| o.get_name_bytes(name))
                    .map(|b| (kind(&b), b.id())),
            };
            let now = kind(&e);
            match before {
                Some((k, id)) if k == now && id == e.id() => continue,
                Some((k, id)) if k != now => gone(k, id, &path(name), out),
                _ => {}
            }
            let path = path(name);
            match (now, before) {
                (Kind::Tree, Some((Kind::Tree, id))) => {
                    diff_trees(
                        repo,
                        subtree(id).as_ref(),
                        subtree(e.id()).as_ref(),
                        &path,
                        out,
                    );
                }
                (Kind::Tree, _) => diff_trees(repo, None, subtree(e.id()).as_ref(), &path, out),
                (Kind::File, Some((Kind::File, _))) => out.push((path, e.id(), Delta::Modified)),
                (Kind::File, _) => out.push((path, e.id(), Delta::Added)),
                (Kind::Other, _) => {}
            }
        }
    }
    for (e, kept) in olds.iter().zip(kept) {
        let name = e.name_bytes();
        if !kept && new.is_none_or(|n| n.get_name_bytes(name).is_none()) {
            gone(kind(e), e.id(), &path(name), out);
        }
    }
}

fn new_history(number: u32, commit: &CommitRef) -> KepHistory {
    KepHistory {
        number,
        paths: vec![],
        changes: vec![],
        first: commit.clone(),
        last: commit.clone(),
    }
}

/// Folds one commit into the state.
fn apply(state: &mut State, step: &Step) {
    let mut units: BTreeMap<&str, Vec<&Obs>> = BTreeMap::new();
    for o in &step.obs {
        units.entry(o.unit.key.as_str()).or_default().push(o);
    }
    let mut gone_unnumbered: Vec<&Unit> = vec![];
    let mut arrived: Vec<(&str, u32, Option<&str>)> = vec![];
    for (key, obs) in units {
        let unit = &obs[0].unit;
        let meta = obs.iter().find(|o| o.unit.meta && !o.deleted);
        let number = unit_number(state, key, unit, meta.copied());
        if let Some(n) = number
            && let Some(p) = state.pending.remove(key)
        {
            merge_into(&mut state.keps, n, p);
        }
        let target = match number {
            Some(n) => state
                .keps
                .entry(n)
                .or_insert_with(|| new_history(n, &step.commit)),
            None => state
                .pending
                .entry(key.to_string())
                .or_insert_with(|| new_history(0, &step.commit)),
        };
        target.last = step.commit.clone();
        if let Some(m) = meta {
            record(target, step, m);
            if let Some(t) = m.fields.as_ref().and_then(|f| f.title.as_deref()) {
                state.titles.insert(key.to_string(), t.to_string());
            }
        }
        if let Some(n) = number
            && obs.iter().any(|o| o.added)
        {
            let title = meta.and_then(|m| m.fields.as_ref()?.title.as_deref());
            arrived.push((unit.slug(), n, title));
        }
        if number.is_none() && obs.iter().any(|o| o.unit.meta && o.deleted) {
            gone_unnumbered.push(unit);
        }
    }
    migrate(state, &gone_unnumbered, &arrived);
}

/// The KEP number of `unit` after this commit, remembered in the state: from
/// its kep.yaml when the commit has one (`meta`), else as known before.
fn unit_number(state: &mut State, key: &str, unit: &Unit, meta: Option<&Obs>) -> Option<u32> {
    match meta.and_then(|m| m.fields.as_ref()) {
        // The directory name wins over `kep-number`: copied kep.yaml files
        // carry other KEPs' numbers (e.g. 2043-... says 1884).
        Some(f) => {
            let n = unit.dir_number().or_else(|| f.number());
            state.units.insert(key.to_string(), n);
            n
        }
        None => *state
            .units
            .entry(key.to_string())
            .or_insert_with(|| unit.dir_number()),
    }
}

/// Adds the metadata file `m` read at `step` to `target`: its path, and a
/// change when status, stage or latest-milestone differ from the last.
fn record(target: &mut KepHistory, step: &Step, m: &Obs) {
    if !target.paths.contains(&m.path) {
        target.paths.push(m.path.clone());
    }
    let f = m.fields.clone().unwrap_or_default();
    let values = (
        f.status.as_deref(),
        f.stage.as_deref(),
        f.latest_milestone.as_deref(),
    );
    if target.changes.last().map(Change::values) != Some(values) {
        target.changes.push(Change {
            commit: step.commit.id.clone(),
            time: step.commit.time,
            date: step.commit.date.clone(),
            path: m.path.clone(),
            status: f.status,
            stage: f.stage,
            latest_milestone: f.latest_milestone,
        });
    }
}

/// A legacy file without a number that disappears in the same commit as
/// files of a numbered KEP with the same slug appear was migrated to it; so
/// was one whose title the new kep.yaml repeats (the migrations to the
/// directory layout renamed many: `20190125-removing-in-tree-providers.md`
/// became `2395-removing-in-tree-cloud-providers/`).
fn migrate(state: &mut State, gone_unnumbered: &[&Unit], arrived: &[(&str, u32, Option<&str>)]) {
    let norm = |t: &str| -> String {
        t.chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect()
    };
    for unit in gone_unnumbered {
        let mut targets: Vec<u32> = arrived
            .iter()
            .filter(|(slug, _, _)| *slug == unit.slug())
            .map(|&(_, n, _)| n)
            .collect();
        if targets.is_empty()
            && let Some(title) = state.titles.get(&unit.key).map(|t| norm(t))
            && !title.is_empty()
        {
            targets = arrived
                .iter()
                .filter(|(_, _, t)| t.is_some_and(|t| norm(t) == title))
                .map(|&(_, n, _)| n)
                .collect();
        }
        targets.dedup();
        if let [n] = targets[..]
            && let Some(p) = state.pending.remove(&unit.key)
        {
            state.units.insert(unit.key.clone(), Some(n));
            merge_into(&mut state.keps, n, p);
        }
    }
}

/// Merges the history of a formerly unnumbered unit into KEP `n`.
fn merge_into(keps: &mut BTreeMap<u32, KepHistory>, n: u32, mut p: KepHistory) {
    p.number = n;
    let Some(k) = keps.get_mut(&n) else {
        keps.insert(n, p);
        return;
    };
    if p.first.time < k.first.time {
        k.first = p.first;
    }
    if p.last.time > k.last.time {
        k.last = p.last;
    }
    let mut paths = p.paths;
    for x in k.paths.drain(..) {
        if !paths.contains(&x) {
            paths.push(x);
        }
    }
    k.paths = paths;
    let mut changes = p.changes;
    changes.append(&mut k.changes);
    // Stable: on equal times the formerly unnumbered unit's values come first.
    changes.sort_by_key(|c| c.time);
    changes.dedup_by(|b, a| a.values() == b.values());
    k.changes = changes;
}
