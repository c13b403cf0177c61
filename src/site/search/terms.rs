//! A doc's index terms: its words lowercased and weighted by where they
//! occur (title, number, gates, people, summary, body), and the shards that
//! group every doc's postings by the terms' first two characters.

use std::collections::HashMap;

use rayon::prelude::*;

use super::*;

/// FxHash (as in rustc): much faster than SipHash for short words, and the
/// output never depends on iteration order because every map is sorted.
#[derive(Default, Clone, Copy)]
pub(super) struct FxHasher(u64);

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

pub(super) type FxMap<K, V> = HashMap<K, V, std::hash::BuildHasherDefault<FxHasher>>;

/// Split ASCII-alphanumeric words of already-lowercased text; very short and
/// very long words are dropped.
pub(super) fn words(lower: &str) -> impl Iterator<Item = &str> + '_ {
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
pub(super) fn keep_body_word(w: &str) -> bool {
    let digits = w.bytes().filter(u8::is_ascii_digit).count();
    digits == 0 || (digits == w.len() && w.len() <= 5) || (digits * 3 <= w.len())
}

/// The lowercased texts of one doc and its body's terms, which its terms
/// borrow from.
pub(super) struct Lowered {
    title: String,
    summary: String,
    pub(super) body_terms: std::sync::Arc<BodyTerms>,
    /// Gate names whole, then their words split at capitals.
    gates: Vec<String>,
    authors: Vec<String>,
    /// `@name` of everyone named.
    people: Vec<String>,
    number: Option<String>,
    /// Each body heading as meta's `heads` names it (1-based, 0: none).
    pub(super) heads: Vec<u16>,
}

/// A doc's body terms: the ones it knows, or worked out here.
pub(super) fn body_terms_of(d: &SearchDoc) -> std::sync::Arc<BodyTerms> {
    d.body_terms
        .clone()
        .unwrap_or_else(|| std::sync::Arc::new(BodyTerms::of(&d.body, &d.sections)))
}

/// `CamelCase` → `camel case` (a gate name's words), lowercased.
pub(super) fn split_camel(name: &str) -> String {
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
pub(super) fn person(name: &str) -> Option<String> {
    let n = name.trim().trim_start_matches('@').to_ascii_lowercase();
    let ok = !n.is_empty()
        && n.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    ok.then(|| format!("@{n}"))
}

/// A doc's texts lowercased, with its body's terms.
pub(super) fn lower(d: &SearchDoc) -> Lowered {
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
        heads: Vec::new(),
    }
}

/// One posting of a term: its weight and heading (1-based into meta's
/// `heads`, 0: none).
pub(super) type Term<'a> = (&'a str, u32, u16);

/// Each distinct term of a doc with its weight (capped at 255) and heading
/// into `out`; `w` is a scratch map reused from doc to doc. Both are
/// cleared first.
pub(super) fn terms_into<'a>(l: &'a Lowered, w: &mut FxMap<&'a str, u32>, out: &mut Vec<Term<'a>>) {
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
    let head = |p: u16| {
        usize::from(p)
            .checked_sub(1)
            .and_then(|i| l.heads.get(i))
            .copied()
            .unwrap_or(0)
    };
    for (t, n, p) in b.iter() {
        let more = if w.is_empty() { None } else { w.remove(t) };
        out.push((t, (u32::from(n) + more.unwrap_or(0)).min(255), head(p)));
    }
    out.extend(w.drain().map(|(t, n)| (t, n.min(255), 0)));
}

/// A doc's terms and weights grouped by partition, and where each
/// partition's group starts (one more entry than there are partitions).
pub(super) type Grouped<'a> = (Vec<Term<'a>>, Vec<u32>);

/// A posting: doc id, weight, heading (1-based into meta's `heads`, 0: none).
pub(super) type Posting = (u32, u32, u16);

/// Postings of one shard: terms in order, each with postings sorted by doc id.
pub(super) type Shard<'a> = Vec<(&'a str, Vec<Posting>)>;

/// Index `docs` and hand every shard (its key and terms) to `f`, in parallel.
///
/// Terms are extracted per doc in parallel and grouped by partition of the
/// shard keys; the postings of each partition are then built by one task
/// from every doc's group for it, so no two tasks share or merge a map.
pub(super) fn shards<R: Send>(
    lowered: &[Lowered],
    f: impl Fn(&str, Shard<'_>) -> R + Sync,
) -> Vec<R> {
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
