//! The index's files as compact JSON: `meta.json`, the term files and the
//! snippet buckets.

use serde_json::json;

use super::*;

/// The digits of a posting string: 64 characters JSON writes as they are.
const DIGITS: &[u8; 64] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_";

/// Term files are filled with consecutive shard keys up to about this many
/// bytes (a key bigger than that has a file of its own).
pub const TERM_FILE_BYTES: usize = 16 * 1024;

pub(super) fn shard_key(term: &str) -> &str {
    term.get(..2).unwrap_or(term)
}

pub(super) fn term_file_path(file: usize) -> String {
    format!("search/t/{file}.json")
}

/// What meta.json says of a doc: number, title, SIG, stage, URL.
pub(super) type MetaEntry = (Option<u32>, String, String, String, String);

/// `meta.json`: the docs, the SIG and stage tables, each term file's shard
/// keys (space-separated), the headings postings name, and the snippet
/// bucket size.
pub(super) fn encode_meta(
    meta_docs: Vec<MetaEntry>,
    files: &[Vec<String>],
    heads: &[Heading],
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
    let shards: Vec<String> = files.iter().map(|keys| keys.join(" ")).collect();
    let meta = json!({
        "docs": docs,
        "sigs": sigs,
        "stages": stages,
        "shards": shards,
        "heads": heads.iter().map(|(id, text)| {
            if *id == anchor_of(text) { json!(text) } else { json!([id, text]) }
        }).collect::<Vec<_>>(),
        "bucket": SNIPPET_BUCKET,
    });
    to_bytes(&meta)
}

/// The anchor `search.js` makes of a heading written alone in meta's
/// `heads`: its ASCII letters, digits, `_` and `-` lowercased, spaces as `-`
/// (a heading whose anchor is something else is written `[anchor, text]`).
pub(super) fn anchor_of(text: &str) -> String {
    text.chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, ' ' | '_' | '-'))
        .map(|c| {
            if c == ' ' {
                '-'
            } else {
                c.to_ascii_lowercase()
            }
        })
        .collect()
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

/// `n` as digits of [`DIGITS`], five bits each, lowest first; a digit of 32
/// or more says another follows.
fn push_number(out: &mut Vec<u8>, mut n: u32) {
    loop {
        let low = (n & 31) as usize;
        n >>= 5;
        if n == 0 {
            out.push(DIGITS[low]);
            return;
        }
        out.push(DIGITS[low | 32]);
    }
}

/// Postings as one string: for each, the doc id's distance from the one
/// before (the first's from 0), the weight and the heading (1-based into
/// meta's `heads`, 0: none), each as [`push_number`] writes it.
pub fn encode_postings(out: &mut Vec<u8>, postings: &[Posting]) {
    let mut last = 0;
    for &(d, w, h) in postings {
        push_number(out, d - last);
        push_number(out, w);
        push_number(out, u32::from(h));
        last = d;
    }
}

/// What [`encode_postings`] wrote, flat: `[doc, weight, heading, ...]`
/// (`None` when it does not hold together).
pub fn decode_postings(s: &str) -> Option<Vec<u32>> {
    let mut out = Vec::new();
    let (mut n, mut shift, mut doc) = (0u32, 0u32, 0u32);
    for c in s.bytes() {
        let v = DIGITS.iter().position(|&d| d == c)? as u32;
        n |= (v & 31).checked_shl(shift)?;
        shift += 5;
        if v < 32 {
            if out.len() % 3 == 0 {
                doc += n;
                n = doc;
            }
            out.push(n);
            (n, shift) = (0, 0);
        }
    }
    (shift == 0 && out.len() % 3 == 0).then_some(out)
}

/// One shard key's terms as members of a JSON object (`"term":"postings",...`).
pub(super) fn encode_terms(terms: &[(&str, Vec<Posting>)]) -> Vec<u8> {
    let mut out = Vec::with_capacity(1024);
    for (n, (t, p)) in terms.iter().enumerate() {
        if n > 0 {
            out.push(b',');
        }
        // terms are ASCII alphanumerics or @people; anything else is encoded properly
        out.extend(to_bytes(t));
        out.extend_from_slice(b":\"");
        encode_postings(&mut out, p);
        out.push(b'"');
    }
    out
}

/// Shard keys in order with their encoded terms → term files: each key's
/// terms go whole into one file, consecutive keys share a file up to
/// [`TERM_FILE_BYTES`]. Returns each file's keys and bytes.
pub(super) fn term_files(keys: Vec<(String, Vec<u8>)>) -> Vec<(Vec<String>, Vec<u8>)> {
    let mut files: Vec<(Vec<String>, Vec<u8>)> = Vec::new();
    for (key, bytes) in keys {
        match files.last_mut() {
            Some((k, b)) if b.len() + bytes.len() <= TERM_FILE_BYTES => {
                k.push(key);
                b.push(b',');
                b.extend(bytes);
            }
            _ => files.push((vec![key], [b"{".as_slice(), &bytes].concat())),
        }
    }
    for (_, b) in &mut files {
        b.push(b'}');
    }
    files
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

pub(super) fn to_bytes<T: serde::Serialize + ?Sized>(v: &T) -> Vec<u8> {
    serde_json::to_vec(v).unwrap_or_default()
}
