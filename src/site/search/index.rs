//! An index kept between builds (`serve`), updated doc by doc.

use rayon::prelude::*;

use super::*;

/// A search index kept between rebuilds (for `serve`): [`Index::update`]
/// re-indexes only the documents that changed and re-encodes only the shards
/// and snippet buckets they touch. Its files are byte-identical to [`build`]'s.
#[derive(Debug, Default)]
pub struct Index {
    docs: Vec<SearchDoc>,
    /// Shard key → term → postings sorted by doc id.
    shards: BTreeMap<String, BTreeMap<String, Vec<Posting>>>,
    files: SearchIndex,
}

impl Index {
    /// Index `docs` from scratch.
    pub fn new(docs: &[SearchDoc]) -> Index {
        let lowered: Vec<Lowered> = docs.par_iter().map(lower).collect();
        let shards: BTreeMap<String, BTreeMap<String, Vec<Posting>>> =
            shards(&lowered, |k, terms| {
                let terms: BTreeMap<String, Vec<Posting>> =
                    terms.into_iter().map(|(t, p)| (t.to_string(), p)).collect();
                (k.to_string(), terms)
            })
            .into_iter()
            .collect();
        let mut files = SearchIndex::new();
        files.insert("search/meta.json".into(), encode_meta(docs, shards.keys()));
        let encoded: Vec<(String, Vec<u8>)> = shards
            .par_iter()
            .map(|(k, terms)| (shard_path(k), encode_owned_shard(terms)))
            .collect();
        files.extend(encoded);
        files.extend(encode_snippets(docs));
        let passages: Vec<Vec<(String, Vec<u8>)>> = lowered
            .par_iter()
            .enumerate()
            .map(|(i, l)| encode_passages(i, l.body_terms.passages()))
            .collect();
        files.extend(passages.into_iter().flatten());
        Index {
            docs: docs.to_vec(),
            shards,
            files,
        }
    }

    /// The index files.
    pub fn files(&self) -> &SearchIndex {
        &self.files
    }

    /// Bring the index up to date with `docs` (doc id = position). A change
    /// in the number of documents, or in many of them, rebuilds it whole.
    pub fn update(&mut self, docs: &[SearchDoc]) -> &SearchIndex {
        if docs.len() != self.docs.len() {
            *self = Index::new(docs);
            return &self.files;
        }
        let changed: Vec<usize> = (0..docs.len())
            .filter(|&i| docs[i] != self.docs[i])
            .collect();
        if changed.len() > docs.len() / 4 + 1 {
            *self = Index::new(docs);
            return &self.files;
        }
        let mut dirty: BTreeSet<String> = BTreeSet::new();
        let mut meta_dirty = false;
        let mut buckets: BTreeSet<usize> = BTreeSet::new();
        for &i in &changed {
            let id = i as u32;
            let shards = &mut self.shards;
            doc_terms(&self.docs[i], |t, _, _| {
                let key = shard_key(t);
                if let Some(terms) = shards.get_mut(key) {
                    if let Some(p) = terms.get_mut(t) {
                        p.retain(|(d, _, _)| *d != id);
                        if p.is_empty() {
                            terms.remove(t);
                        }
                    }
                    dirty.insert(key.to_string());
                }
            });
            doc_terms(&docs[i], |t, w, b| {
                let key = shard_key(t);
                let p = shards
                    .entry(key.to_string())
                    .or_default()
                    .entry(t.to_string())
                    .or_default();
                let at = p.partition_point(|(d, _, _)| *d < id);
                p.insert(at, (id, w, b));
                dirty.insert(key.to_string());
            });
            meta_dirty |= meta_entry(&self.docs[i]) != meta_entry(&docs[i]);
            if snippet(&self.docs[i]) != snippet(&docs[i]) {
                buckets.insert(i / SNIPPET_BUCKET);
            }
            let prefix = format!("search/p/{i}-");
            self.files.retain(|path, _| !path.starts_with(&prefix));
            self.files
                .extend(encode_passages(i, body_terms_of(&docs[i]).passages()));
            self.docs[i] = docs[i].clone();
        }
        for key in dirty {
            let path = shard_path(&key);
            match self.shards.get(&key) {
                Some(terms) if !terms.is_empty() => {
                    if !self.files.contains_key(&path) {
                        meta_dirty = true;
                    }
                    self.files.insert(path, encode_owned_shard(terms));
                }
                _ => {
                    self.shards.remove(&key);
                    meta_dirty |= self.files.remove(&path).is_some();
                }
            }
        }
        for b in buckets {
            let end = ((b + 1) * SNIPPET_BUCKET).min(self.docs.len());
            let bytes = encode_snippet_bucket(&self.docs[b * SNIPPET_BUCKET..end]);
            self.files.insert(snippet_path(b), bytes);
        }
        if meta_dirty {
            let meta = encode_meta(&self.docs, self.shards.keys());
            self.files.insert("search/meta.json".into(), meta);
        }
        &self.files
    }
}
