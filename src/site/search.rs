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
//!   `[section anchor, heading, text]` ([`body`]), or its text alone when it
//!   is in the same section as the passage before it in the file.
//!
//! A query for "kubelet" fetches the meta file, the `ku` shard and, for the
//! results it shows, the passage bucket where the words occur (the summary
//! bucket when they occur only in the title, summary or metadata). People
//! are terms `@name` (authors, reviewers, approvers, PRR approvers); feature
//! gates are terms whole and split at their capitals. Weights favour titles
//! and numbers.

mod body;
mod encode;
mod index;
mod terms;

use std::collections::{BTreeMap, BTreeSet};

use encode::*;
pub use index::Index;
use terms::*;

use rayon::prelude::*;

pub use body::{BodyTerms, PASSAGE_CHARS, Passage, Section, passages};

/// Docs per snippet file.
pub const SNIPPET_BUCKET: usize = 8;
/// Passages per passage file: 12 of ~240 characters, with each section's
/// anchor and heading written once per file, make ~2.6 KB files (6,395 on
/// the corpus, where 8 with the heading on every passage made 9,422).
pub const PASSAGE_BUCKET: usize = 12;
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

/// The passage files of doc `doc`, taken out of `d` (for writing at once),
/// leaving `d` what the index needs: its body terms without the passages'
/// text, and of its body only what the snippet reads. The index then writes
/// no passage files for it.
pub fn take_passages(doc: usize, d: &mut SearchDoc) -> Vec<(String, Vec<u8>)> {
    let mut terms = body_terms_of(d);
    let files = encode_passages(doc, terms.passages());
    std::sync::Arc::make_mut(&mut terms).drop_passages();
    d.body_terms = Some(terms);
    // A new string, not a truncated one: truncating keeps the whole README's
    // allocation (224 MB over the 10x corpus's 6,513 KEPs).
    d.body = snippet_source(&d.body).to_string();
    d.sections = Vec::new();
    files
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
mod tests;
