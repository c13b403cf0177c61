//! Code highlighting: a fenced block's language and text → HTML whose spans
//! carry CSS classes (`hl-*`), plus the light and dark stylesheets for them.
//!
//! Classes rather than inline colours keep the markup small and let the theme
//! (and `prefers-color-scheme`) decide the colours.
//!
//! syntect runs on its Oniguruma backend (`default-onig`): on the corpus it
//! is several times faster than the pure-Rust fancy-regex backend, which was
//! half of a first build's CPU, and it produces the same HTML. One
//! [`SyntaxSet`] is loaded per highlighter, on the first block, and shared by
//! every thread, so each grammar's regexes are compiled once.
//!
//! Highlighting is still the most expensive step of a build, so highlighted blocks
//! can be kept in a cache file (`highlight-v3.bin` in the cache directory)
//! keyed by a hash of the language and the code: a rebuild highlights only
//! blocks it has not seen, and syntect's grammars load only when one is needed.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};

use syntect::parsing::SyntaxSet;

mod styled;

/// Blocks longer than this are escaped but not highlighted (bounded work).
const MAX_HIGHLIGHT_BYTES: usize = 64 * 1024;

/// The cache file's first line: format, syntect version and class style.
const CACHE_MAGIC: &[u8] = b"kepsite highlight cache v3 syntect-5 hl-\n";
const CACHE_FILE: &str = "highlight-v3.bin";

/// Syntect's syntaxes (loaded on first use) and the block cache.
#[derive(Default)]
pub struct Highlighter {
    /// Loaded on first use; dropped by [`Highlighter::release`].
    syntaxes: Mutex<Option<Arc<SyntaxSet>>>,
    /// Blocks from the cache file, by key: read when the first block is
    /// asked for (`None` until then), so a build whose READMEs all come from
    /// their own cache never reads it.
    cached: RwLock<Option<HashMap<u64, String>>>,
    /// Keys used by this build, and blocks highlighted by it.
    used: Mutex<Used>,
    /// Where the cache lives, when it is on.
    cache_dir: Option<PathBuf>,
}

/// What one build touched: keys read from the cache, and new blocks.
#[derive(Default)]
struct Used {
    keys: HashSet<u64>,
    /// (A block written twice is kept once.)
    fresh: HashMap<u64, String>,
}

/// The hash of the language and the code.
fn key(lang: &str, code: &str) -> u64 {
    crate::hash::hash64_fields(&[lang.as_bytes(), code.as_bytes()])
}

fn parse_cache(bytes: &[u8]) -> Option<HashMap<u64, String>> {
    let mut rest = bytes.strip_prefix(CACHE_MAGIC)?;
    let mut out = HashMap::new();
    while !rest.is_empty() {
        let (k, r) = rest.split_first_chunk::<8>()?;
        let (n, r) = r.split_first_chunk::<4>()?;
        let n = u32::from_le_bytes(*n) as usize;
        let html = std::str::from_utf8(r.get(..n)?).ok()?;
        out.insert(u64::from_le_bytes(*k), html.to_string());
        rest = &r[n..];
    }
    Some(out)
}

/// The cache key of a block, when it is one the cache keeps.
pub fn cache_key(lang: &str, code: &str) -> Option<u64> {
    (!lang.is_empty() && code.len() <= MAX_HIGHLIGHT_BYTES).then(|| key(lang, code))
}

impl Highlighter {
    /// A highlighter without a cache file.
    pub fn new() -> Self {
        Self::default()
    }

    /// A highlighter using the cache file in `dir` (a missing or unreadable
    /// cache is an empty one).
    pub fn with_cache(dir: &Path) -> Self {
        Highlighter {
            cache_dir: Some(dir.to_path_buf()),
            ..Self::default()
        }
    }

    /// The cached block under `k`, reading the cache file first if needed.
    fn cached_block(&self, k: u64) -> Option<String> {
        {
            let cached = self.cached.read().unwrap_or_else(|e| e.into_inner());
            if let Some(map) = &*cached {
                return map.get(&k).cloned();
            }
        }
        let mut cached = self.cached.write().unwrap_or_else(|e| e.into_inner());
        cached
            .get_or_insert_with(|| {
                self.cache_dir
                    .as_ref()
                    .and_then(|dir| std::fs::read(dir.join(CACHE_FILE)).ok())
                    .and_then(|b| parse_cache(&b))
                    .unwrap_or_default()
            })
            .get(&k)
            .cloned()
    }

    /// Write the blocks this build used back to the cache file (dropping
    /// unused ones), when something changed. Errors are returned for the
    /// caller to report; the site does not depend on the cache.
    pub fn save(&self) -> std::io::Result<()> {
        let Some(dir) = &self.cache_dir else {
            return Ok(());
        };
        let used = self.used.lock().unwrap_or_else(|e| e.into_inner());
        let Used { keys, fresh } = &*used;
        let cached = self.cached.read().unwrap_or_else(|e| e.into_inner());
        // never read (no block was asked for): the file stays as it is
        let Some(cached) = &*cached else {
            return Ok(());
        };
        if fresh.is_empty() && cached.keys().all(|k| keys.contains(k)) {
            return Ok(());
        }
        let mut entries: Vec<(u64, &str)> = cached
            .iter()
            .filter(|(k, _)| keys.contains(k))
            .map(|(k, v)| (*k, v.as_str()))
            .chain(fresh.iter().map(|(k, v)| (*k, v.as_str())))
            .collect();
        entries.sort_unstable_by_key(|e| e.0);
        entries.dedup_by_key(|e| e.0);
        let mut buf = CACHE_MAGIC.to_vec();
        for (k, html) in entries {
            buf.extend_from_slice(&k.to_le_bytes());
            buf.extend_from_slice(&(html.len() as u32).to_le_bytes());
            buf.extend_from_slice(html.as_bytes());
        }
        crate::cache_file::write(&dir.join(CACHE_FILE), &buf)
    }

    /// Keep the cached blocks `keys` in the cache file as if this build had
    /// used them: they belong to READMEs whose rendering was reused whole.
    pub fn keep(&self, keys: &[u64]) {
        if keys.is_empty() {
            return;
        }
        let mut used = self.used.lock().unwrap_or_else(|e| e.into_inner());
        used.keys.extend(keys.iter().copied());
    }

    /// Free syntect's grammars and the cached blocks (tens of MB once
    /// grammars have run), after [`Highlighter::save`]: a build calls it
    /// when its READMEs are rendered. A later block is highlighted anew.
    pub fn release(&self) {
        drop(
            self.syntaxes
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .take(),
        );
        drop(
            self.cached
                .write()
                .unwrap_or_else(|e| e.into_inner())
                .replace(HashMap::new()),
        );
        let mut used = self.used.lock().unwrap_or_else(|e| e.into_inner());
        *used = Used::default();
    }

    fn syntaxes(&self) -> Arc<SyntaxSet> {
        self.syntaxes
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get_or_insert_with(|| Arc::new(SyntaxSet::load_defaults_newlines()))
            .clone()
    }

    /// A `<pre>` block for `code` in language `lang` ("" for none).
    pub fn block(&self, lang: &str, code: &str) -> String {
        let Some(k) = cache_key(lang, code) else {
            return plain(lang, code);
        };
        if let Some(html) = self.cached_block(k) {
            self.used
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .keys
                .insert(k);
            return html;
        }
        let html = self.highlight(lang, code);
        if self.cache_dir.is_some() {
            let mut used = self.used.lock().unwrap_or_else(|e| e.into_inner());
            used.keys.insert(k);
            used.fresh.entry(k).or_insert_with(|| html.clone());
        }
        html
    }

    fn highlight(&self, lang: &str, code: &str) -> String {
        let token = match lang.to_ascii_lowercase().as_str() {
            "golang" => "go".to_string(),
            "shell" | "console" | "sh" | "zsh" => "bash".to_string(),
            "yml" => "yaml".to_string(),
            other => other.to_string(),
        };
        let syntaxes = self.syntaxes();
        let Some(syntax) = syntaxes.find_syntax_by_token(&token) else {
            return plain(lang, code);
        };
        let Some(html) = styled::html(code, syntax, &syntaxes) else {
            return plain(lang, code);
        };
        format!(
            "<pre class=\"code hl-code\" data-lang=\"{}\"><code>{html}</code></pre>\n",
            crate::escape::html(lang),
        )
    }
}

/// A block without highlighting.
fn plain(lang: &str, code: &str) -> String {
    format!(
        "<pre class=\"code hl-code\" data-lang=\"{}\"><code>{}</code></pre>\n",
        crate::escape::html(lang),
        crate::escape::text(code)
    )
}

/// The stylesheet for highlighted code: a light theme, and a dark one under
/// `prefers-color-scheme: dark`.
pub fn stylesheet() -> String {
    styled::stylesheet()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cached_blocks_equal_fresh_ones_and_survive_a_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let code = "kind: Pod\nmetadata:\n  name: x\n";
        let fresh = Highlighter::new().block("yaml", code);
        assert!(fresh.contains("hl-"), "{fresh}");
        let first = Highlighter::with_cache(dir.path());
        assert_eq!(first.block("yaml", code), fresh);
        first.save().unwrap();
        let second = Highlighter::with_cache(dir.path());
        let read = |h: &Highlighter| h.cached.read().unwrap().as_ref().map(HashMap::len);
        assert_eq!(read(&second), None, "the file is read on first use");
        assert_eq!(second.block("yaml", code), fresh);
        assert_eq!(read(&second), Some(1));
        let loaded = |h: &Highlighter| h.syntaxes.lock().unwrap().is_some();
        assert!(!loaded(&second), "a hit needs no grammar");
        // Released, the grammars and the cached blocks are gone; a block is
        // highlighted anew, the same.
        assert_eq!(
            second.block("json", "{}"),
            Highlighter::new().block("json", "{}")
        );
        assert!(loaded(&second));
        second.release();
        assert!(!loaded(&second) && read(&second) == Some(0));
        assert_eq!(second.block("yaml", code), fresh);
        // A different language is a different block.
        assert_ne!(key("yaml", code), key("json", code));
        // A corrupt cache is an empty one.
        std::fs::write(dir.path().join(CACHE_FILE), b"garbage").unwrap();
        let third = Highlighter::with_cache(dir.path());
        assert_eq!(third.block("yaml", code), fresh);
        assert_eq!(read(&third), Some(0));
        let mut truncated = CACHE_MAGIC.to_vec();
        truncated.extend_from_slice(&[1, 2, 3]);
        assert_eq!(parse_cache(&truncated), None);
    }

    #[test]
    fn blocks_kept_for_reused_readmes_stay_in_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = ("x: 1\n", "y: 2\n");
        let first = Highlighter::with_cache(dir.path());
        first.block("yaml", a);
        first.block("yaml", b);
        first.save().unwrap();
        let size = || {
            std::fs::metadata(dir.path().join(CACHE_FILE))
                .unwrap()
                .len()
        };
        let full = size();
        // a build that asks for `a` and keeps `b` (its README was reused) drops nothing
        let second = Highlighter::with_cache(dir.path());
        second.block("yaml", a);
        second.keep(&[cache_key("yaml", b).unwrap()]);
        second.save().unwrap();
        assert_eq!(size(), full);
        // one that neither asks for nor keeps `b` drops it
        let third = Highlighter::with_cache(dir.path());
        third.block("yaml", a);
        third.save().unwrap();
        assert!(size() < full);
        // one that asks for nothing leaves the file alone
        Highlighter::with_cache(dir.path()).save().unwrap();
        assert!(size() < full && size() > CACHE_MAGIC.len() as u64);
    }
}
