//! A doc's index terms: its words lowercased and weighted by where they
//! occur (title, number, gates, people, summary, body), and the shards that
//! group every doc's postings by the terms' first two characters.

use rayon::prelude::*;

use super::*;

/// A map with foldhash: about as fast as FxHash on short words, and seeded
/// at random in every process, so that a README cannot be written to make
/// its words collide in the table (FxHash has no seed: colliding words
/// would make counting them quadratic). Nothing written depends on the
/// iteration order: every map is sorted before it is written.
pub(crate) type FastMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;

/// The ASCII-alphanumeric runs of already-lowercased `lower` of 2 to 32
/// bytes, each with how many of its bytes are digits: read byte-wise,
/// sliced at ASCII boundaries (no UTF-8 decoding or checks).
fn runs(lower: &str) -> impl Iterator<Item = (&str, usize)> + '_ {
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
            let (start, mut digits) = (i, 0);
            while i < b.len() && b[i].is_ascii_alphanumeric() {
                digits += usize::from(b[i].is_ascii_digit());
                i += 1;
            }
            if (2..=32).contains(&(i - start)) {
                return Some((&lower[start..i], digits));
            }
        }
    })
}

/// Split ASCII-alphanumeric words of already-lowercased text; very short and
/// very long words are dropped.
pub(super) fn words(lower: &str) -> impl Iterator<Item = &str> + '_ {
    runs(lower).map(|(w, _)| w)
}

/// Whether a body word is worth indexing (not a hash or a long number): the
/// two-pass reference [`body_words`] is tested against.
#[cfg(test)]
pub(super) fn keep_body_word(w: &str) -> bool {
    keeps(w.len(), w.bytes().filter(u8::is_ascii_digit).count())
}

/// [`keep_body_word`] of a word of `len` bytes, `digits` of them digits.
fn keeps(len: usize, digits: usize) -> bool {
    digits == 0 || (digits == len && len <= 5) || (digits * 3 <= len)
}

/// The [`words`] of already-lowercased `lower` that [`keep_body_word`]
/// keeps, each word's digits counted while it is read rather than in a
/// second pass (the body's words are most of the index's reading).
pub(super) fn body_words(lower: &str) -> impl Iterator<Item = &str> + '_ {
    runs(lower)
        .filter(|&(w, digits)| keeps(w.len(), digits))
        .map(|(w, _)| w)
}

/// The lowercased texts of one doc and its body's terms, which its terms
/// borrow from.
pub(super) struct Lowered {
    summary: String,
    pub(super) body_terms: std::sync::Arc<BodyTerms>,
    /// The KEP's names ([`names`]), lowercased, sorted, each once.
    names: Vec<String>,
    authors: Vec<String>,
    /// `@name` of everyone named.
    people: Vec<String>,
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

/// Words too common to stand for a letter of an acronym.
const STOPWORDS: [&str; 12] = [
    "a", "an", "and", "as", "by", "for", "from", "in", "of", "on", "the", "to",
];

/// The acronym of a name split at its capitals and punctuation (`Dynamic
/// Resource Allocation`: `dra`, `APIPriorityAndFairness`: `apf`), when it
/// has 2 to 6 words besides [`STOPWORDS`].
pub(super) fn acronym(name: &str) -> Option<String> {
    let split = split_camel(name);
    let initials: String = split
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty() && !STOPWORDS.contains(w))
        .filter_map(|w| w.chars().next())
        .collect();
    (2..=6).contains(&initials.len()).then_some(initials)
}

/// A KEP's names as terms: the words of its title, its number, its gates
/// whole and split at their capitals, the words of its directory name, and
/// the acronyms of its title, of its title words with capitals inside
/// (`ReadWriteOncePod`: `rwop`) and of its gates. Sorted, each once.
pub(super) fn names(d: &SearchDoc) -> Vec<String> {
    let mut phrases: Vec<String> = vec![d.title.to_ascii_lowercase(), d.slug.to_ascii_lowercase()];
    let mut acronyms: Vec<String> = d
        .title
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| w.chars().skip(1).any(|c| c.is_ascii_uppercase()))
        .filter_map(acronym)
        .collect();
    acronyms.extend(acronym(&d.title));
    for g in &d.gates {
        phrases.push(g.to_ascii_lowercase());
        phrases.push(split_camel(g));
        acronyms.extend(acronym(g));
    }
    let mut out: Vec<String> = phrases
        .iter()
        .flat_map(|p| words(p))
        .map(str::to_string)
        .chain(acronyms)
        .chain(d.number.map(|n| n.to_string()))
        .collect();
    out.sort_unstable();
    out.dedup();
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
        summary: lowered(&d.summary),
        body_terms: body_terms_of(d),
        names: names(d),
        authors: d.authors.iter().map(lowered).collect(),
        people,
        heads: Vec::new(),
    }
}

/// The terms of a doc's other fields (title, number, gates, people,
/// summary), each with the sum of its weights, sorted by term: few, so they
/// are held for every doc while the postings are built; the body's terms
/// (most of a doc's) are read where they are, in [`BodyTerms`].
pub(super) fn extra_terms(l: &Lowered) -> Vec<(&str, u32)> {
    let mut extra: Vec<(&str, u32)> = Vec::new();
    extra.extend(l.names.iter().map(|t| (t.as_str(), W_NAME)));
    for a in &l.authors {
        extra.extend(words(a).map(|t| (t, W_AUTHOR)));
    }
    extra.extend(l.people.iter().map(|p| (p.as_str(), W_PERSON)));
    extra.extend(words(&l.summary).map(|t| (t, W_SUMMARY)));
    extra.sort_unstable_by(|a, b| a.0.cmp(b.0));
    extra.dedup_by(|later, kept| {
        let same = later.0 == kept.0;
        if same {
            kept.1 += later.1;
        }
        same
    });
    extra
}

/// Where a term sorts among the shard keys: its first two bytes (a
/// one-byte term as its byte and 0), so that terms in order have their
/// codes in order and a range of codes is a range of shard keys.
pub(super) fn key_code(term: &str) -> u16 {
    let b = term.as_bytes();
    (u16::from(b.first().copied().unwrap_or(0)) << 8) | u16::from(b.get(1).copied().unwrap_or(0))
}

/// A doc's terms in one partition, in term order, each with its weight
/// (capped at 255) and heading: the body's terms with what the other fields
/// add to them, then merged in, the other fields' own. `body` and `extra`
/// are the doc's terms of the partition.
fn doc_terms<'a>(
    body: impl Iterator<Item = (&'a str, u8, u16)>,
    extra: &[(&'a str, u32)],
    heads: &[u16],
    mut each: impl FnMut(&'a str, u32, u16),
) {
    let head = |p: u16| {
        usize::from(p)
            .checked_sub(1)
            .and_then(|i| heads.get(i))
            .copied()
            .unwrap_or(0)
    };
    let mut extra = extra.iter().peekable();
    for (t, n, p) in body {
        while let Some(&&(e, w)) = extra.peek() {
            if e >= t {
                break;
            }
            each(e, w.min(255), 0);
            extra.next();
        }
        let more = extra.next_if(|(e, _)| *e == t).map_or(0, |&(_, w)| w);
        each(t, (u32::from(n) + more).min(255), head(p));
    }
    for &(e, w) in extra {
        each(e, w.min(255), 0);
    }
}

/// A posting: doc id, weight, heading (1-based into meta's `heads`, 0: none).
pub(super) type Posting = (u32, u32, u16);

/// Postings of one shard: terms in order, each with postings sorted by doc id.
pub(super) type Shard<'a> = Vec<(&'a str, Vec<Posting>)>;

/// Cut the key codes into `parts` ranges holding about as many body terms
/// each (which range a key falls in changes only how the work is shared,
/// never the output). Returns the `parts + 1` bounds.
fn bounds(lowered: &[Lowered], parts: usize) -> Vec<u32> {
    // every eighth doc is sample enough to share the work
    let hist = lowered
        .par_iter()
        .step_by(8)
        .fold(
            || vec![0u32; 1 << 16],
            |mut h, l| {
                for (t, _, _) in l.body_terms.iter() {
                    h[usize::from(key_code(t))] += 1;
                }
                h
            },
        )
        .reduce(
            || vec![0u32; 1 << 16],
            |mut a, b| {
                a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
                a
            },
        );
    let total: u64 = hist.iter().map(|&n| u64::from(n)).sum();
    let mut out = vec![0u32];
    let mut seen = 0u64;
    for (code, &n) in hist.iter().enumerate() {
        // a range ends where the next would begin past its share
        if out.len() < parts && seen * parts as u64 >= total * out.len() as u64 && seen > 0 {
            out.push(code as u32);
        }
        seen += u64::from(n);
    }
    out.resize(parts, 1 << 16);
    out.push(1 << 16);
    out
}

/// Index `docs` and hand every shard (its key and terms) to `f`, in parallel.
///
/// The key codes are cut into ranges ([`bounds`]); one task builds the
/// postings of each range from every doc in order. A doc's body terms are
/// sorted, so each task reads its own run of them in place: nothing the
/// size of all the postings is held but the postings themselves (a copy of
/// every doc's terms grouped by range was 130 MB on the 10x corpus).
pub(super) fn shards<R: Send>(
    lowered: &[Lowered],
    f: impl Fn(&str, Shard<'_>) -> R + Sync,
) -> Vec<R> {
    shards_in(lowered, rayon::current_num_threads().clamp(1, 64) * 4, f)
}

/// A doc's other terms ([`extra_terms`]) and where each range of key codes
/// begins in its body terms ([`BodyTerms::cuts`]).
type DocTerms<'a> = (Vec<(&'a str, u32)>, Vec<(u32, u32)>);

/// [`shards`] with the key codes cut into `parts` ranges.
pub(super) fn shards_in<R: Send>(
    lowered: &[Lowered],
    parts: usize,
    f: impl Fn(&str, Shard<'_>) -> R + Sync,
) -> Vec<R> {
    let (bounds, docs): (Vec<u32>, Vec<DocTerms<'_>>) =
        crate::timing::timed("search: terms", || {
            let bounds = bounds(lowered, parts);
            let docs = lowered
                .par_iter()
                .map(|l| (extra_terms(l), l.body_terms.cuts(&bounds, key_code)))
                .collect();
            (bounds, docs)
        });
    let mut out: Vec<Vec<(String, R)>> = crate::timing::timed("search: postings", || {
        (0..parts)
            .into_par_iter()
            .map(|part| {
                let (lo, hi) = (bounds[part], bounds[part + 1]);
                let mut map: FastMap<&str, Vec<Posting>> = FastMap::default();
                for (id, (l, (extra, cuts))) in lowered.iter().zip(&docs).enumerate() {
                    let from = extra.partition_point(|(t, _)| u32::from(key_code(t)) < lo);
                    let to = extra.partition_point(|(t, _)| u32::from(key_code(t)) < hi);
                    let body = l.body_terms.iter_between(cuts[part], cuts[part + 1]);
                    // docs in order: postings come out sorted by doc id
                    doc_terms(body, &extra[from..to], &l.heads, |t, w, b| {
                        map.entry(t).or_default().push((id as u32, w, b));
                    });
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
