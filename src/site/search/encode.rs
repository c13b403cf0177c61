//! The index's files as compact JSON: `meta.json`, the term shards, the
//! snippet buckets and the passage files.

use std::collections::BTreeMap;

use serde_json::json;

use super::*;

pub(super) fn shard_key(term: &str) -> &str {
    term.get(..2).unwrap_or(term)
}

pub(super) fn shard_path(key: &str) -> String {
    format!("search/t/{key}.json")
}

pub(super) fn encode_meta<'a>(
    docs: &[SearchDoc],
    shards: impl Iterator<Item = &'a String>,
) -> Vec<u8> {
    encode_meta_entries(docs.iter().map(meta_entry).collect(), shards)
}

/// What meta.json says of a doc: number, title, SIG, stage, URL.
pub(super) type MetaEntry = (Option<u32>, String, String, String, String);

pub(super) fn encode_meta_entries<'a>(
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

pub(super) fn meta_entry(d: &SearchDoc) -> MetaEntry {
    (
        d.number,
        d.title.clone(),
        d.sig.clone(),
        d.stage.clone(),
        d.url.clone(),
    )
}

pub(super) fn passage_path(doc: usize, bucket: usize) -> String {
    format!("search/p/{doc}-{bucket}.json")
}

/// The passage files of doc `doc`.
pub(super) fn encode_passages(doc: usize, passages: &[Passage]) -> Vec<(String, Vec<u8>)> {
    passages
        .chunks(PASSAGE_BUCKET)
        .enumerate()
        .map(|(k, chunk)| {
            // a passage in the same section as the one before it is its text alone
            let rows: Vec<serde_json::Value> = chunk
                .iter()
                .enumerate()
                .map(|(i, p)| match i.checked_sub(1).map(|j| &chunk[j]) {
                    Some(b) if b.id == p.id && b.heading == p.heading => p.text.as_str().into(),
                    _ => serde_json::json!([p.id, p.heading, p.text]),
                })
                .collect();
            (passage_path(doc, k), to_bytes(&rows))
        })
        .collect()
}

/// A shard: terms in order, each with postings sorted by doc id, as compact
/// JSON (`{"term":[doc,weight,...],...}`), written directly.
pub(super) fn encode_shard<'a>(terms: impl Iterator<Item = (&'a str, &'a [Posting])>) -> Vec<u8> {
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

pub(super) fn encode_owned_shard(terms: &BTreeMap<String, Vec<Posting>>) -> Vec<u8> {
    encode_shard(terms.iter().map(|(t, p)| (t.as_str(), p.as_slice())))
}

pub(super) fn snippet_path(bucket: usize) -> String {
    format!("search/s/{bucket}.json")
}

pub(super) fn encode_snippet_bucket(chunk: &[SearchDoc]) -> Vec<u8> {
    let texts: Vec<String> = chunk.iter().map(snippet).collect();
    to_bytes(&texts)
}

pub(super) fn encode_snippets(docs: &[SearchDoc]) -> Vec<(String, Vec<u8>)> {
    docs.par_chunks(SNIPPET_BUCKET)
        .enumerate()
        .map(|(k, chunk)| (snippet_path(k), encode_snippet_bucket(chunk)))
        .collect()
}

pub(super) fn to_bytes<T: serde::Serialize>(v: &T) -> Vec<u8> {
    serde_json::to_vec(v).unwrap_or_default()
}
