//! One file of the staging tree: made to hold given bytes by keeping what
//! is there, hard-linking the live site's identical file, or creating it
//! anew; never by writing through what is there (it may be shared with the
//! live site). The manifest, when there is one, records what each holds.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::manifest::{self, Manifest};
use super::remove_tree;

/// What a file should hold: `bytes`, or only their hash and length (a page
/// an earlier build rendered), and the hash when a manifest wants it
/// (computed once).
pub(super) struct Content<'a> {
    bytes: Option<&'a [u8]>,
    len: u64,
    manifest: Option<&'a Manifest>,
    hash: std::cell::OnceCell<u128>,
}

impl<'a> Content<'a> {
    fn of(bytes: &'a [u8], manifest: Option<&'a Manifest>) -> Self {
        Content {
            bytes: Some(bytes),
            len: bytes.len() as u64,
            manifest,
            hash: std::cell::OnceCell::new(),
        }
    }

    /// The bytes hashing to `hash`, `len` long, as far as `manifest` knows.
    pub(super) fn known(hash: u128, len: u64, manifest: &'a Manifest) -> Self {
        Content {
            bytes: None,
            len,
            manifest: Some(manifest),
            hash: std::cell::OnceCell::from(hash),
        }
    }

    fn hash(&self) -> u128 {
        *self
            .hash
            .get_or_init(|| manifest::digest(self.bytes.unwrap_or_default()))
    }

    /// The metadata of `path` when it is a regular file (not a symlink)
    /// holding exactly these bytes: vouched for by the manifest, or read.
    fn found_at(&self, path: &Path) -> Option<std::fs::Metadata> {
        let m = std::fs::symlink_metadata(path).ok()?;
        if !m.file_type().is_file() || m.len() != self.len {
            return None;
        }
        let same = match self.manifest.and_then(|man| man.holds(&m, self.hash())) {
            Some(known) => known,
            None => std::fs::read(path).is_ok_and(|b| match self.bytes {
                Some(bytes) => b == bytes,
                None => manifest::digest(&b) == self.hash(),
            }),
        };
        same.then_some(m)
    }

    /// Tell the manifest that the file with metadata `m` holds these bytes.
    fn record(&self, m: std::io::Result<std::fs::Metadata>) {
        if let (Some(man), Ok(m)) = (self.manifest, m) {
            man.record(&m, self.hash());
        }
    }
}

/// Make `path` hold `bytes`. A file already there with those bytes is kept;
/// one identical in the previous build is hard-linked; otherwise a new file is
/// created. Whatever else is at `path` is unlinked first, never written
/// through: it may be shared with the live site. With a `manifest`, what the
/// file holds is recorded in it. Returns the hash of `bytes`, when it was
/// worked out.
pub(super) fn put(
    path: &Path,
    bytes: &[u8],
    previous: Option<PathBuf>,
    manifest: Option<&Manifest>,
) -> std::io::Result<Option<u128>> {
    let content = Content::of(bytes, manifest);
    if reuse(path, &content, previous)? {
        return Ok(content.hash.get().copied());
    }
    unlink(path)?;
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)?;
    file.write_all(bytes)?;
    content.record(file.metadata());
    Ok(content.hash.get().copied())
}

/// [`put`] in a tree created empty for this build: the file is created
/// without looking for one first, unless one is there already (a path
/// written twice), which [`put`] then replaces.
pub(super) fn create(
    path: &Path,
    bytes: &[u8],
    manifest: Option<&Manifest>,
) -> std::io::Result<Option<u128>> {
    let mut file = match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
    {
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            return put(path, bytes, None, manifest);
        }
        r => r?,
    };
    file.write_all(bytes)?;
    let content = Content::of(bytes, manifest);
    if manifest.is_some() {
        content.record(file.metadata());
    }
    Ok(content.hash.get().copied())
}

/// Make `path` hold `content` without writing it: keep the file there when
/// it holds it, else hard-link the one at `previous` when that does (what was
/// at `path` is unlinked first). With a manifest, what the file holds is
/// recorded in it. Returns whether `path` now holds `content`.
pub(super) fn reuse(
    path: &Path,
    content: &Content<'_>,
    previous: Option<PathBuf>,
) -> std::io::Result<bool> {
    if let Some(m) = content.found_at(path) {
        content.record(Ok(m));
        return Ok(true);
    }
    if let Some(old) = previous
        && content.found_at(&old).is_some()
    {
        unlink(path)?;
        if std::fs::hard_link(&old, path).is_ok() {
            // the link moved the file's ctime
            content.record(std::fs::symlink_metadata(path));
            return Ok(true);
        }
    }
    Ok(false)
}

/// Remove whatever is at `path` (a directory with what is in it), without
/// following it; nothing there is fine.
pub(super) fn unlink(path: &Path) -> std::io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => remove_tree(path),
        Ok(_) => std::fs::remove_file(path),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}
