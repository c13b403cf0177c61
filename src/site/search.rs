//! Search index: [`SearchDoc`]s → a few hundred JSON files
//! ([`SearchIndex`]) that `search.js` fetches on demand.
//!
//! - `search/meta.json`: doc id → `[number, title, sig, stage]` (sig and
//!   stage as indexes into its `sigs` and `stages`; a fifth entry is the URL
//!   when it is not `keps/<number>/`), the shard keys of each term file, the
//!   headings postings name (`heads`: `[anchor, text]`, those of three KEPs
//!   or more: the template's) and the snippet bucket size;
//! - `search/t/<n>.json`: the terms of consecutive shard keys (a key is a
//!   term's first two characters) → postings, one string each
//!   ([`encode::encode_postings`]: doc, weight, heading);
//! - `search/s/<k>.json`: snippet text (the summary) of docs `k*B .. (k+1)*B`.
//!
//! A query for "kubelet" fetches the meta file, the term file holding `ku`
//! and the snippet buckets of the results it shows. A result whose words are
//! in its text names the section where they occur most (the nearest
//! enclosing template heading) and opens it with the words marked. People
//! are terms `@name` (authors, reviewers, approvers, PRR approvers); feature
//! gates are terms whole and split at their capitals. The names of a KEP
//! (title, number, gates, directory name, acronyms: [`W_NAME`]) weigh most.

mod body;
mod encode;
mod tally;
mod terms;

use std::collections::{BTreeMap, BTreeSet};

use encode::*;
pub use encode::{TERM_FILE_BYTES, decode_postings, encode_postings};
pub(crate) use terms::FastMap;
use terms::*;

use rayon::prelude::*;

pub use body::{BodyTerms, Head, Heads, PASSAGE_CHARS, Passage, Section, passages};

/// Docs per snippet file.
pub const SNIPPET_BUCKET: usize = 8;
/// A heading is in meta's `heads` when this many KEPs have it.
pub const HEAD_DOCS: usize = 3;
const SNIPPET_CHARS: usize = 320;

/// The weight of a name of the KEP: a word of its title, its number, a
/// feature gate (whole or split at its capitals), a word of its directory
/// name, a title word split at its capitals, an acronym of its title or a
/// gate. Each counts once; no other field adds up to it (8 + 4 + 4), so
/// `search.js` tells a name by its weight ([`W_NAME`] or more).
pub const W_NAME: u32 = 20;
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
    /// The directory name without its number (`sidecar-containers`).
    pub slug: String,
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

/// A heading postings name: anchor and text.
pub type Heading = (String, String);

/// The headings of at least [`HEAD_DOCS`] docs, most common first.
fn dictionary(lowered: &[Lowered]) -> Vec<Heading> {
    let mut count: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    for l in lowered {
        let own: BTreeSet<(&str, &str)> = l
            .body_terms
            .heads()
            .iter()
            .map(|h| (h.id, h.title))
            .collect();
        for h in own {
            *count.entry(h).or_insert(0) += 1;
        }
    }
    let mut common: Vec<((&str, &str), usize)> =
        count.into_iter().filter(|(_, n)| *n >= HEAD_DOCS).collect();
    common.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    common.truncate(usize::from(u16::MAX) - 1);
    common
        .into_iter()
        .map(|((id, title), _)| (id.to_string(), title.to_string()))
        .collect()
}

/// Each of `heads` as meta names it (1-based, 0: none): its own heading when
/// `dict` has it, else that of the nearest heading enclosing it.
fn named(heads: &Heads, dict: &BTreeMap<(&str, &str), u16>) -> Vec<u16> {
    let heads: Vec<Head> = heads.iter().collect();
    let mut out: Vec<u16> = Vec::with_capacity(heads.len());
    for (i, h) in heads.iter().enumerate() {
        let id = dict
            .get(&(h.id, h.title))
            .copied()
            .or_else(|| {
                let parent = heads[..i].iter().rposition(|p| p.level < h.level)?;
                Some(out[parent])
            })
            .unwrap_or(0);
        out.push(id);
    }
    out
}

/// Build the index files for `docs` (doc id = position).
pub fn build(docs: Vec<SearchDoc>) -> SearchIndex {
    let mut out = SearchIndex::new();
    out.extend(encode_snippets(&docs));
    let metas: Vec<MetaEntry> = docs.iter().map(meta_entry).collect();
    let mut lowered: Vec<Lowered> = docs.par_iter().map(lower).collect();
    drop(docs);
    let heads = dictionary(&lowered);
    let dict: BTreeMap<(&str, &str), u16> = heads
        .iter()
        .enumerate()
        .map(|(i, (id, t))| ((id.as_str(), t.as_str()), i as u16 + 1))
        .collect();
    lowered
        .par_iter_mut()
        .for_each(|l| l.heads = named(l.body_terms.heads(), &dict));
    let keys = shards(&lowered, |k, terms| (k.to_string(), encode_terms(&terms)));
    let (keys, files): (Vec<Vec<String>>, Vec<Vec<u8>>) = term_files(keys).into_iter().unzip();
    out.insert("search/meta.json".into(), encode_meta(metas, &keys, &heads));
    out.extend(
        files
            .into_iter()
            .enumerate()
            .map(|(i, b)| (term_file_path(i), b)),
    );
    out
}

/// The files a first search for `term` downloads: meta, the term's file,
/// and the snippet buckets of the first `shown` results. Returns total bytes.
pub fn query_cost(index: &SearchIndex, term: &str, shown: usize) -> usize {
    query_files(index, term, shown)
        .iter()
        .map(|f| index.get(f).map_or(0, Vec::len))
        .sum()
}

/// The paths [`query_cost`] counts.
pub fn query_files(index: &SearchIndex, term: &str, shown: usize) -> Vec<String> {
    let term = term.to_ascii_lowercase();
    let meta = "search/meta.json".to_string();
    let shards: Vec<String> = index
        .get(&meta)
        .and_then(|m| serde_json::from_slice::<serde_json::Value>(m).ok())
        .and_then(|m| serde_json::from_value(m["shards"].clone()).ok())
        .unwrap_or_default();
    let mut files = vec![meta];
    let Some(key) = term.get(..2) else {
        return files;
    };
    let Some(n) = shards.iter().position(|k| k.split(' ').any(|k| k == key)) else {
        return files;
    };
    let path = term_file_path(n);
    let terms: BTreeMap<String, String> = index
        .get(&path)
        .and_then(|b| serde_json::from_slice(b).ok())
        .unwrap_or_default();
    files.push(path);
    // doc → best weight
    let mut best: BTreeMap<u32, u32> = BTreeMap::new();
    for (t, p) in terms.range(term.clone()..) {
        if !t.starts_with(&term) {
            break;
        }
        for triple in decode_postings(p).unwrap_or_default().chunks(3) {
            let e = best.entry(triple[0]).or_insert(0);
            *e = (*e).max(triple[1]);
        }
    }
    let mut ranked: Vec<(u32, u32)> = best.into_iter().collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let buckets: BTreeSet<String> = ranked
        .iter()
        .take(shown)
        .map(|(d, _)| snippet_path(*d as usize / SNIPPET_BUCKET))
        .collect();
    files.extend(buckets);
    files
}

#[cfg(test)]
mod tests;
