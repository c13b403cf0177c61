//! Search index: [`SearchDoc`]s → sharded JSON files ([`SearchIndex`]) that
//! `search.js` fetches on demand.
//!
//! - `search/meta.json`: doc id → `[number, title, sig, stage, url]`, the list
//!   of term shards, and the snippet bucket size;
//! - `search/t/<pp>.json`: terms starting with `pp` → flat postings
//!   `[doc, weight, doc, weight, ...]`;
//! - `search/s/<k>.json`: snippet text of docs `k*B .. (k+1)*B`.
//!
//! A query for "kubelet" fetches the meta file, the `ku` shard and the snippet
//! buckets of the results it shows. Weights favour titles and numbers.

use std::collections::{BTreeMap, HashMap};

use rayon::prelude::*;
use serde_json::json;

/// FxHash (as in rustc): much faster than SipHash for short words, and the
/// output never depends on iteration order because every map is sorted.
#[derive(Default, Clone, Copy)]
struct FxHasher(u64);

impl std::hash::Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0x51_7c_c1_b7_27_22_0a_95;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let v = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
            self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(K);
        }
        for &b in chunks.remainder() {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(K);
        }
    }
    fn write_u8(&mut self, b: u8) {
        self.write(&[b]);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

type FxMap<K, V> = HashMap<K, V, std::hash::BuildHasherDefault<FxHasher>>;

/// Docs per snippet file.
pub const SNIPPET_BUCKET: usize = 8;
const SNIPPET_CHARS: usize = 320;

const W_TITLE: u32 = 16;
const W_NUMBER: u32 = 16;
const W_GATE: u32 = 8;
const W_AUTHOR: u32 = 8;
const W_SUMMARY: u32 = 4;
const W_BODY_MAX: u32 = 4;

/// What is indexed about one KEP.
#[derive(Debug, Clone, Default)]
pub struct SearchDoc {
    /// KEP number.
    pub number: Option<u32>,
    /// Title.
    pub title: String,
    /// Owning SIG.
    pub sig: String,
    /// Stage.
    pub stage: String,
    /// Page URL relative to the base URL (`keps/1480/`).
    pub url: String,
    /// Summary section text.
    pub summary: String,
    /// Whole README text.
    pub body: String,
    /// Authors.
    pub authors: Vec<String>,
    /// Feature gate names.
    pub gates: Vec<String>,
}

/// Files of the index: relative path → JSON bytes.
pub type SearchIndex = BTreeMap<String, Vec<u8>>;

/// Split ASCII-alphanumeric words of already-lowercased text; very short and
/// very long words are dropped.
fn words(lower: &str) -> impl Iterator<Item = &str> + '_ {
    lower
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| w.len() >= 2 && w.len() <= 32)
}

/// Whether a body word is worth indexing (not a hash or a long number).
fn keep_body_word(w: &str) -> bool {
    let digits = w.bytes().filter(u8::is_ascii_digit).count();
    digits == 0 || (digits == w.len() && w.len() <= 5) || (digits * 3 <= w.len())
}

/// Call `emit(term, weight)` once per distinct term of `d`.
fn doc_terms(d: &SearchDoc, mut emit: impl FnMut(&str, u32)) {
    let title = d.title.to_ascii_lowercase();
    let summary = d.summary.to_ascii_lowercase();
    let body = d.body.to_ascii_lowercase();
    let gates: Vec<String> = d.gates.iter().map(|g| g.to_ascii_lowercase()).collect();
    let authors: Vec<String> = d.authors.iter().map(|a| a.to_ascii_lowercase()).collect();
    let number = d.number.map(|n| n.to_string());
    let mut w: FxMap<&str, u32> = FxMap::default();
    let mut body_tf: FxMap<&str, u32> = FxMap::default();
    for t in words(&body).filter(|t| keep_body_word(t)) {
        *body_tf.entry(t).or_insert(0) += 1;
    }
    for (t, n) in body_tf {
        w.insert(t, n.min(W_BODY_MAX));
    }
    let mut extra: Vec<(&str, u32)> = Vec::new();
    extra.extend(words(&title).map(|t| (t, W_TITLE)));
    if let Some(n) = &number {
        extra.push((n.as_str(), W_NUMBER));
    }
    for g in &gates {
        if g.len() >= 2 && g.bytes().all(|b| b.is_ascii_alphanumeric()) {
            extra.push((g.as_str(), W_GATE));
        }
        extra.extend(words(g).map(|t| (t, W_GATE)));
    }
    for a in &authors {
        extra.extend(words(a).map(|t| (t, W_AUTHOR)));
    }
    extra.extend(words(&summary).map(|t| (t, W_SUMMARY)));
    for (t, weight) in extra {
        *w.entry(t).or_insert(0) += weight;
    }
    for (t, n) in w {
        emit(t, n.min(255));
    }
}

type Postings = FxMap<String, Vec<(u32, u32)>>;
type TermPostings = (String, Vec<(u32, u32)>);

fn merge(mut a: Postings, mut b: Postings) -> Postings {
    if a.len() < b.len() {
        std::mem::swap(&mut a, &mut b);
    }
    for (t, p) in b {
        a.entry(t).or_default().extend(p);
    }
    a
}

fn snippet(d: &SearchDoc) -> String {
    let src = if d.summary.is_empty() {
        &d.body
    } else {
        &d.summary
    };
    let mut out = String::with_capacity(SNIPPET_CHARS + 8);
    let mut chars = 0;
    for w in src.split_whitespace() {
        if chars + w.chars().count() > SNIPPET_CHARS {
            out.push('…');
            break;
        }
        if !out.is_empty() {
            out.push(' ');
            chars += 1;
        }
        out.push_str(w);
        chars += w.chars().count();
    }
    out
}

/// Build the index files for `docs` (doc id = position).
pub fn build(docs: &[SearchDoc]) -> SearchIndex {
    let postings: Postings = docs
        .par_iter()
        .enumerate()
        .fold(Postings::default, |mut map, (id, d)| {
            doc_terms(d, |t, w| match map.get_mut(t) {
                Some(p) => p.push((id as u32, w)),
                None => {
                    map.insert(t.to_string(), vec![(id as u32, w)]);
                }
            });
            map
        })
        .reduce(Postings::default, merge);
    let mut shards: BTreeMap<String, Vec<TermPostings>> = BTreeMap::new();
    for (t, p) in postings {
        let key = t.get(..2).unwrap_or(&t).to_string();
        shards.entry(key).or_default().push((t, p));
    }
    let mut out = SearchIndex::new();
    let meta_docs: Vec<serde_json::Value> = docs
        .iter()
        .map(|d| json!([d.number, d.title, d.sig, d.stage, d.url]))
        .collect();
    let meta = json!({
        "docs": meta_docs,
        "shards": shards.keys().collect::<Vec<_>>(),
        "bucket": SNIPPET_BUCKET,
    });
    out.insert("search/meta.json".into(), to_bytes(&meta));
    let encoded: Vec<(String, Vec<u8>)> = shards
        .par_iter_mut()
        .map(|(k, terms)| {
            terms.sort_unstable_by(|a, b| a.0.cmp(&b.0));
            let mut obj = serde_json::Map::with_capacity(terms.len());
            for (t, p) in terms.iter_mut() {
                p.sort_unstable();
                let flat: Vec<u32> = p.iter().flat_map(|(d, w)| [*d, *w]).collect();
                obj.insert(t.clone(), json!(flat));
            }
            (format!("search/t/{k}.json"), to_bytes(&obj))
        })
        .collect();
    out.extend(encoded);
    let snippets: Vec<(String, Vec<u8>)> = docs
        .par_chunks(SNIPPET_BUCKET)
        .enumerate()
        .map(|(k, chunk)| {
            let texts: Vec<String> = chunk.iter().map(snippet).collect();
            (format!("search/s/{k}.json"), to_bytes(&texts))
        })
        .collect();
    out.extend(snippets);
    out
}

fn to_bytes<T: serde::Serialize>(v: &T) -> Vec<u8> {
    serde_json::to_vec(v).unwrap_or_default()
}

/// The files a first search for `term` downloads: meta, the term's shard, and
/// the snippet buckets of the first `shown` results. Returns total bytes.
pub fn query_cost(index: &SearchIndex, term: &str, shown: usize) -> usize {
    let term = term.to_ascii_lowercase();
    let mut total = index.get("search/meta.json").map_or(0, Vec::len);
    let Some(shard) = term
        .get(..2)
        .and_then(|k| index.get(&format!("search/t/{k}.json")))
    else {
        return total;
    };
    total += shard.len();
    let terms: BTreeMap<String, Vec<u32>> = serde_json::from_slice(shard).unwrap_or_default();
    let mut best: BTreeMap<u32, u32> = BTreeMap::new();
    for (t, p) in terms.range(term.clone()..) {
        if !t.starts_with(&term) {
            break;
        }
        for pair in p.chunks(2) {
            if let [d, w] = pair {
                let e = best.entry(*d).or_insert(0);
                *e = (*e).max(*w);
            }
        }
    }
    let mut ranked: Vec<(u32, u32)> = best.into_iter().collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut buckets: Vec<usize> = ranked
        .iter()
        .take(shown)
        .map(|(d, _)| *d as usize / SNIPPET_BUCKET)
        .collect();
    buckets.sort_unstable();
    buckets.dedup();
    for b in buckets {
        total += index.get(&format!("search/s/{b}.json")).map_or(0, Vec::len);
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_outweigh_bodies_and_numbers_are_terms() {
        let docs = vec![
            SearchDoc {
                number: Some(1),
                title: "Kubelet things".into(),
                url: "keps/1/".into(),
                ..Default::default()
            },
            SearchDoc {
                number: Some(1287),
                title: "Other".into(),
                body: "the kubelet".into(),
                ..Default::default()
            },
        ];
        let idx = build(&docs);
        let ku: BTreeMap<String, Vec<u32>> =
            serde_json::from_slice(&idx["search/t/ku.json"]).unwrap();
        assert_eq!(ku["kubelet"], vec![0, W_TITLE, 1, 1]);
        let n: BTreeMap<String, Vec<u32>> =
            serde_json::from_slice(&idx["search/t/12.json"]).unwrap();
        assert_eq!(n["1287"], vec![1, W_NUMBER]);
        assert!(query_cost(&idx, "kubelet", 10) > 0);
    }
}
