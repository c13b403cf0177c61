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
use std::sync::{Arc, Mutex};

use super::markdown::{Rendered, TocEntry};
use super::memo::Hasher;
use super::search::BodyTerms;

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
    if let Some(b) = &r.body_terms {
        let bytes = b.to_bytes();
        out.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
        out.extend_from_slice(&bytes);
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
        [1] => Some(Arc::new(BodyTerms::from_bytes(r.bytes()?)?)),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Rendered {
        Rendered {
            html: "<h1 id=\"t\">Tï</h1>".into(),
            toc: vec![TocEntry {
                level: 1,
                id: "t".into(),
                text: "Tï".into(),
            }],
            summary: "s".into(),
            text: "Tï\n".into(),
            code_keys: vec![7, u64::MAX],
            body_terms: None,
            sections: Vec::new(),
        }
    }

    fn set_modified(path: &Path, time: std::time::SystemTime) {
        let f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
        f.set_modified(time).unwrap();
    }

    #[test]
    fn renderings_round_trip_and_damage_is_a_miss() {
        let plain = sample();
        assert!(decode(&encode(&plain)).unwrap().body_terms.is_none());
        let r = Rendered {
            body_terms: Some(Arc::new(BodyTerms::of("tï kubelet kubelet pods", &[]))),
            ..sample()
        };
        let bytes = encode(&r);
        let back = decode(&bytes).unwrap();
        let without = encode(&plain);
        assert_eq!(
            (
                back.html,
                back.toc,
                back.summary,
                back.text,
                back.code_keys,
                back.body_terms
            ),
            (r.html, r.toc, r.summary, r.text, r.code_keys, r.body_terms)
        );
        for cut in [0, MAGIC.len(), bytes.len() / 2, without.len() - 1] {
            assert!(decode(&bytes[..cut]).is_none(), "cut at {cut}");
        }
        // every cut inside the search terms too
        for cut in without.len()..bytes.len() {
            assert!(decode(&bytes[..cut]).is_none(), "cut at {cut}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(decode(&longer).is_none());
        let mut huge = bytes.clone();
        huge[MAGIC.len()..MAGIC.len() + 8].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(decode(&huge).is_none());
    }

    #[test]
    fn with_search_terms_only_the_start_of_the_text_is_kept() {
        let text = "word ".repeat(500);
        let with_terms = Rendered {
            text: text.clone(),
            body_terms: Some(Arc::new(BodyTerms::of(&text, &[]))),
            ..sample()
        };
        let back = decode(&encode(&with_terms)).unwrap();
        assert_eq!(back.text, super::super::search::snippet_source(&text));
        assert!(back.text.len() < text.len() / 2);
        // without them, the whole text (it is what gets tokenized)
        let without = Rendered {
            text: text.clone(),
            ..sample()
        };
        assert_eq!(decode(&encode(&without)).unwrap().text, text);
    }

    #[test]
    fn every_input_is_in_the_key_and_unused_files_are_pruned() {
        let dir = tempfile::tempdir().unwrap();
        let c = ReadmeCache::open(dir.path()).unwrap();
        let local = BTreeSet::from(["a.png".to_string()]);
        let k = c.key("# T", "keps/a/1/README.md", 1, &local);
        for other in [
            c.key("# U", "keps/a/1/README.md", 1, &local),
            c.key("# T", "keps/a/2/README.md", 1, &local),
            c.key("# T", "keps/a/1/README.md", 2, &local),
            c.key("# T", "keps/a/1/README.md", 1, &BTreeSet::new()),
        ] {
            assert_ne!(k, other);
        }
        assert!(c.get(k).is_none());
        c.put(k, &sample());
        assert_eq!(c.get(k).unwrap().html, sample().html);
        let stale = c.key("# old", "keps/a/1/README.md", 1, &local);
        c.put(stale, &sample());
        let other = c.key("# other site", "keps/a/1/README.md", 7, &local);
        c.put(other, &sample());
        // the stale one was last used long ago (a fixed date: tests read no clock)
        let long_ago = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_600_000_000);
        set_modified(&c.file(stale), long_ago);
        // a later build that uses only `k`: the stale rendering goes, the
        // other site's (recent) stays
        let c = ReadmeCache::open(dir.path()).unwrap();
        assert!(c.get(k).is_some());
        c.prune();
        assert!(c.get(k).is_some() && c.get(stale).is_none() && c.file(other).exists());
        // a used rendering that is old is kept, and made recent again
        set_modified(&c.file(k), long_ago);
        let c = ReadmeCache::open(dir.path()).unwrap();
        assert!(c.get(k).is_some());
        c.prune_unused_for(UNUSED_FOR);
        let age = std::fs::metadata(c.file(k))
            .unwrap()
            .modified()
            .unwrap()
            .elapsed()
            .unwrap();
        assert!(age < UNUSED_FOR / 2, "{age:?}");
        // with no grace at all, only what this build used stays
        c.prune_unused_for(std::time::Duration::ZERO);
        assert!(c.file(k).exists() && !c.file(other).exists());
    }
}
