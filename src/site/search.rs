//! Search index: [`SearchDoc`]s → sharded JSON files ([`SearchIndex`]) that
//! `search.js` fetches on demand.
//!
//! - `search/meta.json`: doc id → `[number, title, sig, stage]` (sig and
//!   stage as indexes into its `sigs` and `stages`; a fifth entry is the URL
//!   when it is not `keps/<number>/`), the list of term shards, and the
//!   snippet and passage bucket sizes;
//! - `search/t/<pp>.json`: terms starting with `pp` → flat postings
//!   `[doc, weight, passage, doc, weight, passage, ...]`, where passage is the
//!   1-based index of the doc's passage where the term occurs most (0: none);
//! - `search/s/<k>.json`: snippet text (the summary) of docs `k*B .. (k+1)*B`;
//! - `search/p/<doc>-<k>.json`: the doc's passages `k*P+1 ..= (k+1)*P`, each
//!   `[section anchor, heading, text]` ([`body`]).
//!
//! A query for "kubelet" fetches the meta file, the `ku` shard and, for the
//! results it shows, the passage bucket where the words occur (the summary
//! bucket when they occur only in the title, summary or metadata). People
//! are terms `@name` (authors, reviewers, approvers, PRR approvers); feature
//! gates are terms whole and split at their capitals. Weights favour titles
//! and numbers.

mod body;

use std::collections::{BTreeMap, BTreeSet, HashMap};

use rayon::prelude::*;
use serde_json::json;

/// FxHash (as in rustc): much faster than SipHash for short words, and the
/// output never depends on iteration order because every map is sorted.
#[derive(Default, Clone, Copy)]
struct FxHasher(u64);

impl FxHasher {
    /// One step: fold `v` in.
    fn add(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl std::hash::Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes([
                c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7],
            ]));
        }
        for &b in chunks.remainder() {
            self.add(u64::from(b));
        }
    }
    fn write_u8(&mut self, b: u8) {
        self.add(u64::from(b));
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

type FxMap<K, V> = HashMap<K, V, std::hash::BuildHasherDefault<FxHasher>>;

pub use body::{BodyTerms, PASSAGE_CHARS, Passage, Section, passages};

/// Docs per snippet file.
pub const SNIPPET_BUCKET: usize = 8;
/// Passages per passage file.
pub const PASSAGE_BUCKET: usize = 8;
const SNIPPET_CHARS: usize = 320;

const W_TITLE: u32 = 16;
const W_NUMBER: u32 = 16;
const W_GATE: u32 = 8;
const W_AUTHOR: u32 = 8;
const W_PERSON: u32 = 8;
const W_SUMMARY: u32 = 4;
const W_BODY_MAX: u32 = 4;

/// What is indexed about one KEP.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
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
    /// README text: the snippet's source when there is no summary, and the
    /// terms' when `body_terms` are unknown (with them, its start is enough:
    /// [`snippet_source`]).
    pub body: String,
    /// Authors.
    pub authors: Vec<String>,
    /// Everyone named in the KEP's metadata (authors, reviewers, approvers,
    /// PRR approvers), as written (`@name`).
    pub people: Vec<String>,
    /// The README's headings (for passages when `body_terms` are unknown).
    pub sections: Vec<Section>,
    /// Feature gate names.
    pub gates: Vec<String>,
    /// The body's terms, when already known ([`BodyTerms::of`] the body);
    /// otherwise they are taken from `body`.
    pub body_terms: Option<std::sync::Arc<BodyTerms>>,
}

/// Files of the index: relative path → JSON bytes.
pub type SearchIndex = BTreeMap<String, Vec<u8>>;

/// Split ASCII-alphanumeric words of already-lowercased text; very short and
/// very long words are dropped.
fn words(lower: &str) -> impl Iterator<Item = &str> + '_ {
    // byte-wise, slicing at ASCII boundaries (no UTF-8 decoding or checks)
    let b = lower.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        loop {
            while i < b.len() && !b[i].is_ascii_alphanumeric() {
                i += 1;
            }
            if i == b.len() {
                return None;
            }
            let start = i;
            while i < b.len() && b[i].is_ascii_alphanumeric() {
                i += 1;
            }
            if (2..=32).contains(&(i - start)) {
                return Some(&lower[start..i]);
            }
        }
    })
}

/// Whether a body word is worth indexing (not a hash or a long number).
fn keep_body_word(w: &str) -> bool {
    let digits = w.bytes().filter(u8::is_ascii_digit).count();
    digits == 0 || (digits == w.len() && w.len() <= 5) || (digits * 3 <= w.len())
}

/// The lowercased texts of one doc and its body's terms, which its terms
/// borrow from.
struct Lowered {
    title: String,
    summary: String,
    body_terms: std::sync::Arc<BodyTerms>,
    /// Gate names whole, then their words split at capitals.
    gates: Vec<String>,
    authors: Vec<String>,
    /// `@name` of everyone named.
    people: Vec<String>,
    number: Option<String>,
}

/// A doc's body terms: the ones it knows, or worked out here.
fn body_terms_of(d: &SearchDoc) -> std::sync::Arc<BodyTerms> {
    d.body_terms
        .clone()
        .unwrap_or_else(|| std::sync::Arc::new(BodyTerms::of(&d.body, &d.sections)))
}

/// `CamelCase` → `camel case` (a gate name's words), lowercased.
fn split_camel(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 8);
    let b: Vec<char> = name.chars().collect();
    for (i, &c) in b.iter().enumerate() {
        let next_lower = b.get(i + 1).is_some_and(|n| n.is_lowercase());
        let prev = i.checked_sub(1).map(|p| b[p]);
        let boundary = c.is_uppercase()
            && prev.is_some_and(|p| {
                p.is_lowercase() || p.is_ascii_digit() || (p.is_uppercase() && next_lower)
            });
        if boundary {
            out.push(' ');
        }
        out.extend(c.to_lowercase());
    }
    out
}

/// A person as a term: `@name`, lowercased.
fn person(name: &str) -> Option<String> {
    let n = name.trim().trim_start_matches('@').to_ascii_lowercase();
    let ok = !n.is_empty()
        && n.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    ok.then(|| format!("@{n}"))
}

/// A doc's texts lowercased, with its body's terms.
fn lower(d: &SearchDoc) -> Lowered {
    let lowered = |s: &String| s.to_ascii_lowercase();
    let mut people: Vec<String> = d
        .authors
        .iter()
        .chain(&d.people)
        .filter_map(|p| person(p))
        .collect();
    people.sort_unstable();
    people.dedup();
    Lowered {
        title: lowered(&d.title),
        summary: lowered(&d.summary),
        body_terms: body_terms_of(d),
        gates: d
            .gates
            .iter()
            .map(lowered)
            .chain(d.gates.iter().map(|g| split_camel(g)))
            .collect(),
        authors: d.authors.iter().map(lowered).collect(),
        people,
        number: d.number.map(|n| n.to_string()),
    }
}

/// One posting of a term: its weight and best passage (1-based, 0: none).
type Term<'a> = (&'a str, u32, u16);

/// Each distinct term of a doc with its weight (in no particular order).
fn terms(l: &Lowered) -> Vec<Term<'_>> {
    let mut out = Vec::new();
    terms_into(l, &mut FxMap::default(), &mut out);
    out
}

/// Each distinct term of a doc with its weight (capped at 255) and passage
/// into `out`; `w` is a scratch map reused from doc to doc. Both are
/// cleared first.
fn terms_into<'a>(l: &'a Lowered, w: &mut FxMap<&'a str, u32>, out: &mut Vec<Term<'a>>) {
    w.clear();
    out.clear();
    let mut extra: Vec<(&str, u32)> = Vec::new();
    extra.extend(words(&l.title).map(|t| (t, W_TITLE)));
    if let Some(n) = &l.number {
        extra.push((n.as_str(), W_NUMBER));
    }
    for g in &l.gates {
        if g.len() >= 2 && g.bytes().all(|b| b.is_ascii_alphanumeric()) {
            extra.push((g.as_str(), W_GATE));
        } else {
            extra.extend(words(g).map(|t| (t, W_GATE)));
        }
    }
    for a in &l.authors {
        extra.extend(words(a).map(|t| (t, W_AUTHOR)));
    }
    extra.extend(l.people.iter().map(|p| (p.as_str(), W_PERSON)));
    extra.extend(words(&l.summary).map(|t| (t, W_SUMMARY)));
    for (t, weight) in extra {
        *w.entry(t).or_insert(0) += weight;
    }
    // The body's terms are distinct already: each takes what the other
    // fields give it, and the map (the other fields' terms) stays small.
    let b = &l.body_terms;
    out.reserve(b.len() + w.len());
    for (t, n, p) in b.iter() {
        let more = if w.is_empty() { None } else { w.remove(t) };
        out.push((t, (u32::from(n) + more.unwrap_or(0)).min(255), p));
    }
    out.extend(w.drain().map(|(t, n)| (t, n.min(255), 0)));
}

/// Call `emit(term, weight, passage)` once per distinct term of `d`.
fn doc_terms(d: &SearchDoc, mut emit: impl FnMut(&str, u32, u16)) {
    let l = lower(d);
    for (t, w, p) in terms(&l) {
        emit(t, w, p);
    }
}

/// A doc's terms and weights grouped by partition, and where each
/// partition's group starts (one more entry than there are partitions).
type Grouped<'a> = (Vec<Term<'a>>, Vec<u32>);

/// A posting: doc id, weight, best passage (1-based, 0: none).
type Posting = (u32, u32, u16);

/// Postings of one shard: terms in order, each with postings sorted by doc id.
type Shard<'a> = Vec<(&'a str, Vec<Posting>)>;

/// Index `docs` and hand every shard (its key and terms) to `f`, in parallel.
///
/// Terms are extracted per doc in parallel and grouped by partition of the
/// shard keys; the postings of each partition are then built by one task
/// from every doc's group for it, so no two tasks share or merge a map.
fn shards<R: Send>(lowered: &[Lowered], f: impl Fn(&str, Shard<'_>) -> R + Sync) -> Vec<R> {
    let parts = rayon::current_num_threads().clamp(1, 64) * 4;
    // each term with its partition, computed once
    let part_of = |t: &str| {
        use std::hash::{BuildHasher, BuildHasherDefault};
        (BuildHasherDefault::<FxHasher>::default().hash_one(shard_key(t)) % parts as u64) as u8
    };
    // each doc's terms grouped by partition (a counting sort), with where
    // each partition starts, so a partition task reads only its own terms;
    // each thread reuses one scratch map from doc to doc
    let lists: Vec<Grouped<'_>> = crate::timing::timed("search: terms", || {
        lowered
            .par_iter()
            .map_init(
                || (FxMap::default(), Vec::new()),
                |(w, terms), l| {
                    terms_into(l, w, terms);
                    let parts_of: Vec<u8> = terms.iter().map(|(t, _, _)| part_of(t)).collect();
                    let mut starts = vec![0u32; parts + 1];
                    for &p in &parts_of {
                        starts[usize::from(p) + 1] += 1;
                    }
                    for i in 1..=parts {
                        starts[i] += starts[i - 1];
                    }
                    let mut next = starts.clone();
                    let mut grouped = vec![("", 0u32, 0u16); terms.len()];
                    for (&p, &(t, n, b)) in parts_of.iter().zip(terms.iter()) {
                        let slot = &mut next[usize::from(p)];
                        grouped[*slot as usize] = (t, n, b);
                        *slot += 1;
                    }
                    (grouped, starts)
                },
            )
            .collect()
    });
    let mut out: Vec<Vec<(String, R)>> = crate::timing::timed("search: postings", || {
        (0..parts)
            .into_par_iter()
            .map(|part| {
                let mut map: FxMap<&str, Vec<Posting>> = FxMap::default();
                for (id, (list, starts)) in lists.iter().enumerate() {
                    let own = &list[starts[part] as usize..starts[part + 1] as usize];
                    for &(t, w, b) in own {
                        // docs in order: postings come out sorted by doc id
                        map.entry(t).or_default().push((id as u32, w, b));
                    }
                }
                let mut by_key: BTreeMap<&str, Shard<'_>> = BTreeMap::new();
                for (t, p) in map {
                    by_key.entry(shard_key(t)).or_default().push((t, p));
                }
                by_key
                    .into_iter()
                    .map(|(k, mut terms)| {
                        terms.sort_unstable_by(|a, b| a.0.cmp(b.0));
                        (k.to_string(), f(k, terms))
                    })
                    .collect()
            })
            .collect()
    });
    let mut all: Vec<(String, R)> = out.drain(..).flatten().collect();
    all.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    all.into_iter().map(|(_, r)| r).collect()
}

/// The beginning of `text` that [`snippet`] reads: its words up to and
/// including the first that does not fit (all of it when every word does).
/// A doc whose body is this prefix has the same snippet as with the whole.
pub fn snippet_source(text: &str) -> &str {
    let mut chars = 0;
    for w in text.split_whitespace() {
        let n = w.chars().count();
        if chars + n > SNIPPET_CHARS {
            let end = w.as_ptr() as usize - text.as_ptr() as usize + w.len();
            return &text[..end];
        }
        if chars > 0 {
            chars += 1;
        }
        chars += n;
    }
    text
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
pub fn build(docs: Vec<SearchDoc>) -> SearchIndex {
    let mut out = SearchIndex::new();
    out.extend(encode_snippets(&docs));
    let metas: Vec<MetaEntry> = docs.iter().map(meta_entry).collect();
    let lowered: Vec<Lowered> = docs.par_iter().map(lower).collect();
    drop(docs);
    let passages: Vec<Vec<(String, Vec<u8>)>> = lowered
        .par_iter()
        .enumerate()
        .map(|(i, l)| encode_passages(i, l.body_terms.passages()))
        .collect();
    out.extend(passages.into_iter().flatten());
    let encoded = shards(&lowered, |k, terms| {
        (
            k.to_string(),
            encode_shard(terms.iter().map(|(t, p)| (*t, p.as_slice()))),
        )
    });
    out.insert(
        "search/meta.json".into(),
        encode_meta_entries(metas, encoded.iter().map(|(k, _)| k)),
    );
    out.extend(encoded.into_iter().map(|(k, b)| (shard_path(&k), b)));
    out
}

fn shard_key(term: &str) -> &str {
    term.get(..2).unwrap_or(term)
}

fn shard_path(key: &str) -> String {
    format!("search/t/{key}.json")
}

fn encode_meta<'a>(docs: &[SearchDoc], shards: impl Iterator<Item = &'a String>) -> Vec<u8> {
    encode_meta_entries(docs.iter().map(meta_entry).collect(), shards)
}

/// What meta.json says of a doc: number, title, SIG, stage, URL.
type MetaEntry = (Option<u32>, String, String, String, String);

fn encode_meta_entries<'a>(
    meta_docs: Vec<MetaEntry>,
    shards: impl Iterator<Item = &'a String>,
) -> Vec<u8> {
    // SIGs and stages repeat: each is written once and named by its index
    let table = |field: fn(&MetaEntry) -> &str| -> Vec<&str> {
        let set: BTreeSet<&str> = meta_docs.iter().map(field).collect();
        set.into_iter().collect()
    };
    let sigs = table(|e| &e.2);
    let stages = table(|e| &e.3);
    let index = |list: &[&str], v: &str| list.binary_search(&v).unwrap_or(0);
    let docs: Vec<serde_json::Value> = meta_docs
        .iter()
        .map(|(number, title, sig, stage, url)| {
            let mut e = json!([number, title, index(&sigs, sig), index(&stages, stage)]);
            let standard = number.is_some_and(|n| *url == format!("keps/{n}/"));
            if let (false, Some(a)) = (standard, e.as_array_mut()) {
                a.push(json!(url));
            }
            e
        })
        .collect();
    let meta = json!({
        "docs": docs,
        "sigs": sigs,
        "stages": stages,
        "shards": shards.collect::<Vec<_>>(),
        "bucket": SNIPPET_BUCKET,
        "pbucket": PASSAGE_BUCKET,
    });
    to_bytes(&meta)
}

fn meta_entry(d: &SearchDoc) -> MetaEntry {
    (
        d.number,
        d.title.clone(),
        d.sig.clone(),
        d.stage.clone(),
        d.url.clone(),
    )
}

fn passage_path(doc: usize, bucket: usize) -> String {
    format!("search/p/{doc}-{bucket}.json")
}

/// The passage files of doc `doc`.
fn encode_passages(doc: usize, passages: &[Passage]) -> Vec<(String, Vec<u8>)> {
    passages
        .chunks(PASSAGE_BUCKET)
        .enumerate()
        .map(|(k, chunk)| {
            let rows: Vec<[&str; 3]> = chunk
                .iter()
                .map(|p| [p.id.as_str(), p.heading.as_str(), p.text.as_str()])
                .collect();
            (passage_path(doc, k), to_bytes(&rows))
        })
        .collect()
}

/// The passage files of doc `doc`, taken out of `d` (for writing at once),
/// leaving `d` what the index needs: its body terms without the passages'
/// text, and of its body only what the snippet reads. The index then writes
/// no passage files for it.
pub fn take_passages(doc: usize, d: &mut SearchDoc) -> Vec<(String, Vec<u8>)> {
    let mut terms = body_terms_of(d);
    let files = encode_passages(doc, terms.passages());
    std::sync::Arc::make_mut(&mut terms).drop_passages();
    d.body_terms = Some(terms);
    d.body.truncate(snippet_source(&d.body).len());
    d.sections = Vec::new();
    files
}

/// A shard: terms in order, each with postings sorted by doc id, as compact
/// JSON (`{"term":[doc,weight,...],...}`), written directly.
fn encode_shard<'a>(terms: impl Iterator<Item = (&'a str, &'a [Posting])>) -> Vec<u8> {
    use std::io::Write;
    let mut out = Vec::with_capacity(4096);
    out.push(b'{');
    for (n, (t, p)) in terms.enumerate() {
        if n > 0 {
            out.push(b',');
        }
        // terms are ASCII alphanumerics; anything else is encoded properly
        if t.bytes().all(|b| b.is_ascii_alphanumeric()) {
            out.push(b'"');
            out.extend_from_slice(t.as_bytes());
            out.push(b'"');
        } else {
            out.extend(to_bytes(&t));
        }
        out.extend_from_slice(b":[");
        for (i, (d, w, b)) in p.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            let _ = write!(out, "{d},{w},{b}");
        }
        out.push(b']');
    }
    out.push(b'}');
    out
}

fn encode_owned_shard(terms: &BTreeMap<String, Vec<Posting>>) -> Vec<u8> {
    encode_shard(terms.iter().map(|(t, p)| (t.as_str(), p.as_slice())))
}

fn snippet_path(bucket: usize) -> String {
    format!("search/s/{bucket}.json")
}

fn encode_snippet_bucket(chunk: &[SearchDoc]) -> Vec<u8> {
    let texts: Vec<String> = chunk.iter().map(snippet).collect();
    to_bytes(&texts)
}

fn encode_snippets(docs: &[SearchDoc]) -> Vec<(String, Vec<u8>)> {
    docs.par_chunks(SNIPPET_BUCKET)
        .enumerate()
        .map(|(k, chunk)| (snippet_path(k), encode_snippet_bucket(chunk)))
        .collect()
}

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

fn to_bytes<T: serde::Serialize>(v: &T) -> Vec<u8> {
    serde_json::to_vec(v).unwrap_or_default()
}

/// The files a first search for `term` downloads: meta, the term's shard,
/// and for each of the first `shown` results the passage bucket where the
/// term occurs most, or its snippet bucket. Returns total bytes.
pub fn query_cost(index: &SearchIndex, term: &str, shown: usize) -> usize {
    query_files(index, term, shown)
        .iter()
        .map(|f| index.get(f).map_or(0, Vec::len))
        .sum()
}

/// The paths [`query_cost`] counts.
pub fn query_files(index: &SearchIndex, term: &str, shown: usize) -> Vec<String> {
    let term = term.to_ascii_lowercase();
    let mut files = vec!["search/meta.json".to_string()];
    let Some(key) = term.get(..2).map(shard_path) else {
        return files;
    };
    let Some(shard) = index.get(&key) else {
        return files;
    };
    files.push(key);
    let terms: BTreeMap<String, Vec<u32>> = serde_json::from_slice(shard).unwrap_or_default();
    // doc → (best weight, its passage)
    let mut best: BTreeMap<u32, (u32, u32)> = BTreeMap::new();
    for (t, p) in terms.range(term.clone()..) {
        if !t.starts_with(&term) {
            break;
        }
        for triple in p.chunks(3) {
            if let [d, w, b] = triple {
                let e = best.entry(*d).or_insert((0, 0));
                if *w > e.0 {
                    *e = (*w, *b);
                }
            }
        }
    }
    let mut ranked: Vec<(u32, (u32, u32))> = best.into_iter().collect();
    ranked.sort_by(|a, b| b.1.0.cmp(&a.1.0).then(a.0.cmp(&b.0)));
    let mut more: BTreeSet<String> = BTreeSet::new();
    for (d, (_, b)) in ranked.iter().take(shown) {
        more.insert(match b {
            0 => snippet_path(*d as usize / SNIPPET_BUCKET),
            b => passage_path(*d as usize, (*b as usize - 1) / PASSAGE_BUCKET),
        });
    }
    files.extend(more);
    files
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
        let idx = build(docs.clone());
        let ku: BTreeMap<String, Vec<u32>> =
            serde_json::from_slice(&idx["search/t/ku.json"]).unwrap();
        assert_eq!(ku["kubelet"], vec![0, W_TITLE, 0, 1, 1, 1]);
        let n: BTreeMap<String, Vec<u32>> =
            serde_json::from_slice(&idx["search/t/12.json"]).unwrap();
        assert_eq!(n["1287"], vec![1, W_NUMBER, 0]);
        assert!(query_cost(&idx, "kubelet", 10) > 0);
    }

    fn doc(n: u32, title: &str, body: &str) -> SearchDoc {
        SearchDoc {
            number: Some(n),
            title: title.into(),
            sig: "sig-node".into(),
            url: format!("keps/{n}/"),
            body: body.into(),
            ..Default::default()
        }
    }

    #[test]
    fn passages_taken_out_early_leave_the_same_index() {
        let long = "Words about the kubelet and its pods. ".repeat(200);
        let docs = vec![
            doc(1, "Kubelet pods", &long),
            doc(2, "Other", "server pods api with nothing else to say"),
        ];
        let whole = build(docs.clone());
        let mut taken = SearchIndex::new();
        let mut slim = docs;
        for (i, d) in slim.iter_mut().enumerate() {
            taken.extend(take_passages(i, d));
        }
        assert!(taken.len() >= 2, "passage files: {:?}", taken.keys());
        assert!(
            slim[0].body.len() < long.len() / 10,
            "only the snippet's source stays"
        );
        let mut rebuilt = build(slim);
        assert!(!rebuilt.keys().any(|k| k.starts_with("search/p/")));
        rebuilt.extend(taken);
        assert_eq!(rebuilt, whole);
    }

    #[test]
    fn known_body_terms_index_exactly_as_the_body_does() {
        let body = "Kubelet kubelet KUBELET kubelet kubelet pods; the API-server \
                    sha 3f2a9c1e77 1287 v1beta1 x";
        let plain = vec![
            SearchDoc {
                number: Some(1287),
                title: "Kubelet pods".into(),
                summary: "The kubelet runs pods".into(),
                gates: vec!["KubeletThing".into()],
                authors: vec!["@someone".into()],
                body: body.into(),
                ..Default::default()
            },
            doc(2, "Other", "server pods api"),
        ];
        let known: Vec<SearchDoc> = plain
            .iter()
            .map(|d| SearchDoc {
                body_terms: Some(std::sync::Arc::new(BodyTerms::of(&d.body, &d.sections))),
                ..d.clone()
            })
            .collect();
        let idx = build(plain.clone());
        assert_eq!(build(known.clone()), idx);
        assert_eq!(Index::new(&known).files(), &idx);
        // weights still add up: title 16 + the gate's first word 8 +
        // summary 4 + body 4 (capped)
        let ku: BTreeMap<String, Vec<u32>> =
            serde_json::from_slice(&idx["search/t/ku.json"]).unwrap();
        assert_eq!(
            ku["kubelet"],
            vec![0, W_TITLE + W_GATE + W_SUMMARY + W_BODY_MAX, 1]
        );
    }

    #[test]
    fn people_and_gates_are_terms_and_passages_are_files() {
        let mut d = doc(753, "Sidecar Containers", "");
        d.people = vec!["@thockin".into(), "@SergeyKanzhelev".into()];
        d.gates = vec![
            "SidecarContainers".into(),
            "InPlacePodVerticalScaling".into(),
        ];
        d.body = "Summary\nShort.\nDesign\nThe restartPolicy of an init container.\n".into();
        d.sections = vec![
            Section {
                start: 0,
                id: "summary".into(),
                title: "Summary".into(),
            },
            Section {
                start: d.body.find("Design").unwrap(),
                id: "design-details".into(),
                title: "Design".into(),
            },
        ];
        let other = doc(2, "Other", "thockin wrote this");
        let idx = build(vec![d, other]);
        let at: BTreeMap<String, Vec<u32>> =
            serde_json::from_slice(&idx["search/t/@t.json"]).unwrap();
        assert_eq!(
            at["@thockin"],
            vec![0, W_PERSON, 0],
            "only the KEP naming him"
        );
        let at: BTreeMap<String, Vec<u32>> =
            serde_json::from_slice(&idx["search/t/@s.json"]).unwrap();
        assert!(at.contains_key("@sergeykanzhelev"));
        let ve: BTreeMap<String, Vec<u32>> =
            serde_json::from_slice(&idx["search/t/ve.json"]).unwrap();
        assert_eq!(ve["vertical"], vec![0, W_GATE, 0]);
        let si: BTreeMap<String, Vec<u32>> =
            serde_json::from_slice(&idx["search/t/si.json"]).unwrap();
        assert_eq!(si["sidecarcontainers"][..2], [0, W_GATE]);
        // "restartpolicy" is in the second passage, under #design-details
        let re: BTreeMap<String, Vec<u32>> =
            serde_json::from_slice(&idx["search/t/re.json"]).unwrap();
        assert_eq!(re["restartpolicy"], vec![0, 1, 2]);
        let rows: Vec<[String; 3]> = serde_json::from_slice(&idx["search/p/0-0.json"]).unwrap();
        assert_eq!(rows[1][0], "design-details");
        assert!(rows[1][2].contains("restartPolicy"));
        assert!(query_files(&idx, "restartpolicy", 5).contains(&"search/p/0-0.json".to_string()));
        let meta: serde_json::Value = serde_json::from_slice(&idx["search/meta.json"]).unwrap();
        assert_eq!(meta["docs"][0], json!([753, "Sidecar Containers", 0, 0]));
        assert_eq!(
            split_camel("InPlacePodVerticalScaling"),
            "in place pod vertical scaling"
        );
        assert_eq!(split_camel("CSIMigrationAWS"), "csi migration aws");
    }

    #[test]
    fn a_snippet_needs_only_the_start_of_the_body() {
        let word = "wörd ".repeat(70); // 350 chars: more than a snippet
        let long_first = "x".repeat(400);
        for text in [
            "",
            "  short text  ",
            word.as_str(),
            &format!("  {word}\n\ttail words that never show"),
            &long_first,
            &"a".repeat(SNIPPET_CHARS),
            &format!("{} b", "a".repeat(SNIPPET_CHARS - 2)),
            &format!("{} bc", "a".repeat(SNIPPET_CHARS - 2)),
        ] {
            let whole = SearchDoc {
                body: text.to_string(),
                ..Default::default()
            };
            let start = SearchDoc {
                body: snippet_source(text).to_string(),
                ..Default::default()
            };
            assert_eq!(snippet(&start), snippet(&whole), "{text:?}");
            assert!(snippet_source(text).len() <= text.len());
        }
        assert!(snippet_source(&format!("{word} tail")).len() < word.len());
    }

    #[test]
    fn incremental_updates_match_a_full_build() {
        let mut docs: Vec<SearchDoc> = (0..20)
            .map(|n| {
                doc(
                    n,
                    &format!("Title {n}"),
                    &format!("body words kubelet{n} shared"),
                )
            })
            .collect();
        let mut ix = Index::new(&docs);
        assert_eq!(ix.files(), &build(docs.clone()));
        // A body edit that drops one term, adds a new shard, and changes a snippet.
        docs[3].body = "zebra quokka shared".into();
        assert_eq!(ix.update(&docs), &build(docs.clone()));
        // A title edit changes meta.json; a term disappearing empties its shard.
        docs[3].title = "Renamed".into();
        docs[3].body = "shared".into();
        assert_eq!(ix.update(&docs), &build(docs.clone()));
        assert!(!ix.files().contains_key("search/t/ze.json"));
        // No change: nothing to do, same files.
        assert_eq!(ix.update(&docs), &build(docs.clone()));
        // A new document rebuilds.
        docs.push(doc(99, "New", "fresh"));
        assert_eq!(ix.update(&docs), &build(docs.clone()));
    }
}
