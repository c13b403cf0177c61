//! Parsing a file's next version from the syntax tree of its previous
//! one: git's diff of the two blobs (no context lines) becomes one
//! tree-sitter edit per hunk, and tree-sitter reparses only what changed.
//! Reading the master history this way parses about a tenth of the text a
//! full parse of every new blob would (see the module docs for the time).
//! The corpus test compares its snapshots with full parses.

use git2::{Blob, DiffOptions, Oid, Repository};
use tree_sitter::{InputEdit, Point, Tree};

use super::parse::{self, FileFacts};

/// The last version parsed at one path.
pub(super) struct Last {
    blob: Oid,
    tree: Tree,
    /// Byte offset of each line's start, and the text's length last.
    starts: Vec<usize>,
}

fn line_starts(text: &str) -> Vec<usize> {
    let mut starts = vec![0];
    starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
    starts.push(text.len());
    starts
}

/// The offset of 0-based line `row` (the end of the text past its last line).
fn at(starts: &[usize], row: usize) -> usize {
    starts
        .get(row)
        .or(starts.last())
        .copied()
        .unwrap_or_default()
}

/// The facts of `text`, blob `new`'s content, parsed from `last` when there
/// is one, and what to keep for the path's next version.
pub(super) fn parse_next(
    repo: &Repository,
    last: Option<&Last>,
    new: &Blob,
    text: &str,
) -> (FileFacts, Option<Last>) {
    let starts = line_starts(text);
    let old = last.and_then(|l| edited(repo, l, new, &starts));
    let (facts, tree) = parse::read_after(text, old.as_ref());
    let next = tree.map(|tree| Last {
        blob: new.id(),
        tree,
        starts,
    });
    (facts, next)
}

/// `last`'s tree with the edits that turn it into `new`'s text.
fn edited(repo: &Repository, last: &Last, new: &Blob, starts: &[usize]) -> Option<Tree> {
    let old = repo.find_blob(last.blob).ok()?;
    let mut hunks = Vec::new();
    let mut opts = DiffOptions::new();
    opts.context_lines(0);
    let mut on_hunk = |_: git2::DiffDelta, h: git2::DiffHunk| {
        hunks.push((h.old_start(), h.old_lines(), h.new_start(), h.new_lines()));
        true
    };
    repo.diff_blobs(
        Some(&old),
        None,
        Some(new),
        None,
        Some(&mut opts),
        None,
        None,
        Some(&mut on_hunk),
        None,
    )
    .ok()?;
    let mut tree = last.tree.clone();
    // Hunks in order: the text before each is already the new text's.
    for (old_start, old_lines, new_start, new_lines) in hunks {
        let (old_lines, new_lines) = (old_lines as usize, new_lines as usize);
        // A hunk of no lines starts after the line it names.
        let old_row = old_start as usize - usize::from(old_lines > 0);
        let new_row = new_start as usize - usize::from(new_lines > 0);
        let start = at(starts, new_row);
        let removed = at(&last.starts, old_row + old_lines) - at(&last.starts, old_row);
        let added = at(starts, new_row + new_lines) - start;
        tree.edit(&InputEdit {
            start_byte: start,
            old_end_byte: start + removed,
            new_end_byte: start + added,
            start_position: Point::new(new_row, 0),
            old_end_position: Point::new(new_row + old_lines, 0),
            new_end_position: Point::new(new_row + new_lines, 0),
        });
    }
    Some(tree)
}
