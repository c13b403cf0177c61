//! Rendered READMEs kept between builds: `readmes-v1/` in the cache
//! directory holds one file per rendering, named after the hash of
//! everything the rendering depends on.
//!
//! The key covers the README's text, its repository path, where its links
//! can go (every KEP's page, the repository URL and branch, the files copied
//! beside it) and the kepsite binary itself (its size and modification
//! time), so a new kepsite never reuses an older one's HTML. A missing,
//! unreadable or damaged file is a miss: the README is rendered again and the
//! file rewritten. When a build ends it removes the files it did not use that
//! no build has used for a day ([`UNUSED_FOR`]; a reused file's modification
//! time is moved forward once a day), so builds of other sites sharing the
//! cache directory (another `--base-url` or input) keep theirs.
//!
//! The highlighted-code cache is told which of its blocks a reused rendering
//! contains ([`super::highlight::Highlighter::keep`]), so it keeps them.

use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::markdown::{Rendered, TocEntry};
use super::memo::Hasher;

const DIR: &str = "readmes-v1";
const MAGIC: &[u8] = b"kepsite rendered readme v3\n";

/// How long a rendering no build used is kept.
const UNUSED_FOR: std::time::Duration = std::time::Duration::from_secs(24 * 60 * 60);

/// The rendered-README cache of one build.
#[derive(Debug)]
pub(crate) struct ReadmeCache {
    dir: PathBuf,
    /// This binary's identity, part of every key.
    binary: (u64, i128),
    used: Mutex<HashSet<u128>>,
}

impl ReadmeCache {
    /// The cache in `cache_dir`; `None` when this binary cannot be identified.
    pub(crate) fn open(cache_dir: &Path) -> Option<ReadmeCache> {
        Some(ReadmeCache {
            dir: cache_dir.join(DIR),
            binary: super::memo::binary_identity()?,
            used: Mutex::new(HashSet::new()),
        })
    }

    /// The key of rendering `readme` (at repository path `from`) with the
    /// links described by `links_key` and the copied files `local`.
    pub(crate) fn key(
        &self,
        readme: &str,
        from: &str,
        links_key: u128,
        local: &BTreeSet<String>,
    ) -> u128 {
        let mut h = Hasher::default();
        h.bytes(MAGIC);
        h.bytes(&self.binary.0.to_le_bytes());
        h.bytes(&self.binary.1.to_le_bytes());
        h.bytes(&links_key.to_le_bytes());
        h.bytes(from.as_bytes());
        h.hashed(readme.as_bytes());
        for a in local {
            h.bytes(a.as_bytes());
        }
        h.digest()
    }

    fn file(&self, key: u128) -> PathBuf {
        self.dir.join(format!("{key:032x}"))
    }

    /// The rendering kept under `key`, if there is a sound one.
    pub(crate) fn get(&self, key: u128) -> Option<Rendered> {
        self.used
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key);
        let mut file = std::fs::File::open(self.file(key)).ok()?;
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut file, &mut bytes).ok()?;
        let r = decode(&bytes)?;
        // in use: keep it from other builds' pruning (at most once a day)
        if let Ok(m) = file.metadata()
            && crate::cache_file::age(&m).is_some_and(|a| a > UNUSED_FOR / 2)
        {
            let _ = file.set_modified(std::time::SystemTime::now());
        }
        Some(r)
    }

    /// Keep `r` under `key` (a failure only costs a rendering next time).
    pub(crate) fn put(&self, key: u128, r: &Rendered) {
        let _ = crate::cache_file::write(&self.file(key), &encode(r));
    }

    /// Remove the files this build did not use and none has for [`UNUSED_FOR`].
    pub(crate) fn prune(&self) {
        self.prune_unused_for(UNUSED_FOR);
    }

    fn prune_unused_for(&self, age: std::time::Duration) {
        let used = self.used.lock().unwrap_or_else(|e| e.into_inner());
        let Ok(entries) = crate::cache_file::read_dir(&self.dir) else {
            return;
        };
        for e in entries.flatten() {
            let name = e.file_name();
            let in_use = name
                .to_str()
                .and_then(|n| u128::from_str_radix(n, 16).ok())
                .is_some_and(|k| used.contains(&k));
            let recent = e
                .metadata()
                .ok()
                .and_then(|m| crate::cache_file::age(&m))
                .is_some_and(|a| a < age);
            // a leftover temporary file (".tmp") of a build that died goes too
            if !in_use && !recent {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
}

fn encode(r: &Rendered) -> Vec<u8> {
    let mut out = Vec::with_capacity(MAGIC.len() + r.html.len() + r.text.len() + 4096);
    out.extend_from_slice(MAGIC);
    let text = |out: &mut Vec<u8>, s: &str| {
        out.extend_from_slice(&(s.len() as u64).to_le_bytes());
        out.extend_from_slice(s.as_bytes());
    };
    text(&mut out, &r.html);
    text(&mut out, &r.summary);
    // with its search terms known, the text is needed only for a snippet
    match &r.body_terms {
        Some(_) => text(&mut out, super::search::snippet_source(&r.text)),
        None => text(&mut out, &r.text),
    }
    out.extend_from_slice(&(r.toc.len() as u64).to_le_bytes());
    for t in &r.toc {
        out.push(t.level);
        text(&mut out, &t.id);
        text(&mut out, &t.text);
    }
    out.extend_from_slice(&(r.code_keys.len() as u64).to_le_bytes());
    for k in &r.code_keys {
        out.extend_from_slice(&k.to_le_bytes());
    }
    // the search terms, when known (a rendering stored without them is
    // read back without them, and its text is tokenized)
    out.push(u8::from(r.body_terms.is_some()));
    if r.body_terms.is_some() {
        // the terms are not kept (this cache is on its way out): an entry
        // with them never reads back, and the README is rendered again
        out.extend_from_slice(&0u64.to_le_bytes());
    }
    out
}

/// Reads what [`encode`] wrote; `None` for anything else.
fn decode(bytes: &[u8]) -> Option<Rendered> {
    struct Reader<'a>(&'a [u8]);
    impl<'a> Reader<'a> {
        fn take(&mut self, n: usize) -> Option<&'a [u8]> {
            let (head, rest) = (self.0.get(..n)?, self.0.get(n..)?);
            self.0 = rest;
            Some(head)
        }
        fn number(&mut self) -> Option<u64> {
            Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
        }
        fn count(&mut self) -> Option<usize> {
            usize::try_from(self.number()?).ok()
        }
        fn bytes(&mut self) -> Option<&'a [u8]> {
            let n = self.count()?;
            self.take(n)
        }
        fn text(&mut self) -> Option<String> {
            Some(std::str::from_utf8(self.bytes()?).ok()?.to_string())
        }
    }
    let mut r = Reader(bytes.strip_prefix(MAGIC)?);
    let (html, summary, text) = (r.text()?, r.text()?, r.text()?);
    let entries = r.count()?;
    let mut toc = Vec::with_capacity(entries.min(4096));
    for _ in 0..entries {
        let level = r.take(1)?[0];
        toc.push(TocEntry {
            level,
            id: r.text()?,
            text: r.text()?,
        });
    }
    let keys = r.count()?;
    let mut code_keys = Vec::with_capacity(keys.min(4096));
    for _ in 0..keys {
        code_keys.push(r.number()?);
    }
    let body_terms = match r.take(1)? {
        [0] => None,
        [1] => return None,
        _ => return None,
    };
    r.0.is_empty().then_some(Rendered {
        html,
        toc,
        summary,
        text,
        code_keys,
        body_terms,
        sections: Vec::new(),
    })
}
