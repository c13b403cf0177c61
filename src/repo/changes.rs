//! What a change touched: a git range (`--changed-since REV`,
//! `--changed-in A..B`) → [`ChangeSet`], the base commit and every path the
//! change added, modified or deleted, read with git2.
//!
//! Paths are relative to the snapshot root (a subdirectory of the work tree
//! when `--repo` names one), `/`-separated, like [`super::RepoFile::path`].

use std::collections::BTreeSet;
use std::path::Path;

use anyhow::{Context, Result, anyhow, bail};
use git2::{Commit, Diff, DiffOptions, Oid, Repository};

use super::git::subdir_prefix;

/// The range of a change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Range {
    /// From the merge base of `base` and `head` to `head`; `head` `None` is
    /// the working tree (with the index and untracked files).
    Since {
        /// The revision the change started from, e.g. `origin/master`.
        base: String,
        /// The revision the change ends at; the working tree when `None`.
        head: Option<String>,
    },
    /// From tree `from` to tree `to` (`A..B`), or from their merge base to
    /// `to` (`A...B`).
    In {
        /// Where the change starts.
        from: String,
        /// Where the change ends.
        to: String,
        /// `A...B`: start at the merge base of the two.
        merge_base: bool,
    },
}

impl Range {
    /// Parse `A..B` or `A...B`.
    pub fn parse_in(spec: &str) -> Result<Range> {
        let (from, to, merge_base) = match spec.split_once("...") {
            Some((a, b)) => (a, b, true),
            None => match spec.split_once("..") {
                Some((a, b)) => (a, b, false),
                None => bail!("--changed-in takes REV1..REV2 (or REV1...REV2), got {spec:?}"),
            },
        };
        if from.is_empty() || to.is_empty() {
            bail!("--changed-in takes REV1..REV2 with both revisions named, got {spec:?}");
        }
        Ok(Range::In {
            from: from.to_string(),
            to: to.to_string(),
            merge_base,
        })
    }
}

/// The base of a change and the paths it touched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangeSet {
    /// The commit the change is compared with (full id).
    pub base: String,
    /// The commit the change ends at (full id); `None` for the working tree.
    pub head: Option<String>,
    /// Every path added, modified or deleted (both sides of a rename),
    /// relative to the snapshot root, sorted.
    pub paths: BTreeSet<String>,
}

/// What the change in `range` touched under `root`.
pub fn changes(root: &Path, range: &Range) -> Result<ChangeSet> {
    let repo = Repository::discover(root).with_context(|| {
        format!(
            "{} is not inside a git repository; a changed-only check needs one",
            root.display()
        )
    })?;
    let prefix = subdir_prefix(&repo, root)?;
    let (base, head) = match range {
        Range::Since { base, head } => {
            let base = commit(&repo, base)?;
            let head_commit = match head {
                Some(h) => commit(&repo, h)?,
                None => repo
                    .head()
                    .and_then(|h| h.peel_to_commit())
                    .context("reading HEAD: the repository has no commit checked out")?,
            };
            let mb = merge_base(&repo, &base, &head_commit)?;
            (mb, head.as_ref().map(|_| head_commit))
        }
        Range::In {
            from,
            to,
            merge_base: mb,
        } => {
            let from_c = commit(&repo, from)?;
            let to_c = commit(&repo, to)?;
            let base = if *mb {
                merge_base(&repo, &from_c, &to_c)?
            } else {
                from_c
            };
            (base, Some(to_c))
        }
    };
    let base_tree = base.tree().context("reading the base commit's tree")?;
    let mut opts = DiffOptions::new();
    if !prefix.is_empty() {
        opts.pathspec(format!("{prefix}/"));
    }
    let diff = match &head {
        Some(h) => {
            let tree = h.tree().context("reading the head commit's tree")?;
            repo.diff_tree_to_tree(Some(&base_tree), Some(&tree), Some(&mut opts))
        }
        None => {
            opts.include_untracked(true).recurse_untracked_dirs(true);
            repo.diff_tree_to_workdir_with_index(Some(&base_tree), Some(&mut opts))
        }
    }
    .context("comparing the base with the change")?;
    Ok(ChangeSet {
        base: base.id().to_string(),
        head: head.map(|h| h.id().to_string()),
        paths: touched_paths(&diff, &prefix),
    })
}

fn touched_paths(diff: &Diff, prefix: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for delta in diff.deltas() {
        for file in [delta.old_file(), delta.new_file()] {
            let Some(path) = file.path().and_then(Path::to_str) else {
                continue;
            };
            let path = path.replace('\\', "/");
            let rel = if prefix.is_empty() {
                Some(path.as_str())
            } else {
                path.strip_prefix(prefix).and_then(|p| p.strip_prefix('/'))
            };
            if let Some(rel) = rel {
                out.insert(rel.to_string());
            }
        }
    }
    out
}

/// The commit `rev` names, or an error saying how to fetch it.
fn commit<'r>(repo: &'r Repository, rev: &str) -> Result<Commit<'r>> {
    let object = repo.revparse_single(rev).map_err(|_| {
        // `origin/main` is fetched by remote and branch; `HEAD~3` or a
        // commit id cannot be a refspec: deepen the clone instead.
        let named = rev.split_once('/').filter(|(r, b)| {
            !r.is_empty() && !b.is_empty() && !rev.contains(['~', '^', ':', '@'])
        });
        let fetch = match named {
            Some((remote, branch)) if !repo.is_shallow() => {
                format!("`git fetch --depth=50 {remote} {branch}`")
            }
            Some((remote, branch)) => format!(
                "`git fetch --depth=50 {remote} {branch}`, or deepen this shallow clone with `git fetch --unshallow`"
            ),
            None if rev.len() >= 7 && rev.bytes().all(|b| b.is_ascii_hexdigit()) => format!(
                "`git fetch --depth=50 origin {rev}`{}",
                if repo.is_shallow() {
                    ", or deepen this shallow clone with `git fetch --unshallow`"
                } else {
                    ""
                }
            ),
            None if repo.is_shallow() => {
                "`git fetch --unshallow` (this clone is shallow)".to_string()
            }
            None => "`git fetch origin` for the commits it names".to_string(),
        };
        anyhow!(
            "revision {rev:?} is not in this clone. A changed-only check compares with it, \
             so fetch it first: {fetch} (in GitHub Actions: actions/checkout with `fetch-depth: 0`)"
        )
    })?;
    object
        .peel_to_commit()
        .with_context(|| format!("revision {rev:?} is not a commit"))
}

/// The merge base of two commits, or an error saying what history is missing.
fn merge_base<'r>(repo: &'r Repository, a: &Commit, b: &Commit) -> Result<Commit<'r>> {
    let found: Result<Oid, _> = repo.merge_base(a.id(), b.id());
    match found {
        Ok(id) => Ok(repo.find_commit(id)?),
        Err(_) if repo.is_shallow() => bail!(
            "{} and {} have no common ancestor in this shallow clone: fetch more history, \
             e.g. `git fetch --deepen=100` or `git fetch --unshallow` \
             (in GitHub Actions: actions/checkout with `fetch-depth: 0`)",
            short(a),
            short(b)
        ),
        Err(_) => bail!(
            "{} and {} have no common ancestor; name two revisions of the same history",
            short(a),
            short(b)
        ),
    }
}

fn short(c: &Commit) -> String {
    c.id().to_string()[..12].to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_parse() {
        assert_eq!(
            Range::parse_in("a..b").unwrap(),
            Range::In {
                from: "a".into(),
                to: "b".into(),
                merge_base: false
            }
        );
        assert_eq!(
            Range::parse_in("origin/master...HEAD").unwrap(),
            Range::In {
                from: "origin/master".into(),
                to: "HEAD".into(),
                merge_base: true
            }
        );
        for bad in ["a", "..b", "a..", ""] {
            assert!(Range::parse_in(bad).is_err(), "{bad}");
        }
    }
}
