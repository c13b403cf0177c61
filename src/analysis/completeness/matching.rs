//! Template sections ([`Template`]) ↔ README headings ([`Document`]) → the
//! index of the README section each template section matched.
//!
//! Exact matching on normalised text first; then, for questions reworded
//! between template versions (`How can a rollout fail?`), a word-overlap match
//! among the headings below the matched parent.

use crate::analysis::template::{Template, TemplateSection};
use crate::kep::document::Document;

/// For each template section, the README section it matched. The template's
/// level-1 title matches the README's first level-1 heading; other sections
/// match by their key (the normalised heading without spaces), preferring
/// the first unused heading after the match of the template parent, so
/// repeated titles (`Story 1`, `Alpha`) pair up in order.
pub(super) fn match_sections(
    doc: &Document,
    norms: &[String],
    keys: &[String],
    template: &Template,
) -> Vec<Option<usize>> {
    // Sorted (key, index) pairs: one allocation instead of a map of vectors.
    let mut by_key: Vec<(&str, usize)> = keys.iter().map(String::as_str).zip(0..).collect();
    by_key.sort_unstable();
    let mut used = vec![false; doc.sections.len()];
    let mut matched: Vec<Option<usize>> = Vec::with_capacity(template.sections.len());
    for ts in &template.sections {
        let found = if ts.level == 1 && ts.parent.is_none() {
            (0..doc.sections.len()).find(|&i| doc.sections[i].level == 1 && !used[i])
        } else {
            let after = ts
                .parent
                .and_then(|p| matched.get(p).copied().flatten())
                .map_or(0, |di| doc.sections[di].line);
            let k = ts.key.as_str();
            let start = by_key.partition_point(|(key, _)| *key < k);
            let mut free = by_key[start..]
                .iter()
                .take_while(|(key, _)| *key == k)
                .map(|&(_, i)| i)
                .filter(|&i| !used[i]);
            let first = free.clone().next();
            free.find(|&i| doc.sections[i].line > after).or(first)
        };
        if let Some(i) = found {
            used[i] = true;
        }
        matched.push(found);
    }
    for (ti, ts) in template.sections.iter().enumerate() {
        if matched[ti].is_some() {
            continue;
        }
        let Some(parent) = ts.parent.and_then(|p| matched[p]) else {
            continue;
        };
        if let Some(i) = reworded(doc, norms, parent, ts, &used) {
            used[i] = true;
            matched[ti] = Some(i);
        }
    }
    matched
}

/// Fewest words a template heading needs for word-overlap matching; short
/// titles (`Goals`, `Alpha`) must match exactly.
const MIN_FUZZY_WORDS: usize = 4;

/// Share of the template heading's words a reworded heading must contain.
const MIN_OVERLAP: f64 = 0.7;

/// The unused heading below `parent` sharing the most words with the
/// template heading `norm` (normalised), if it shares at least
/// [`MIN_OVERLAP`] of them. `norms` are the README headings, normalised.
fn reworded(
    doc: &Document,
    norms: &[String],
    parent: usize,
    ts: &TemplateSection,
    used: &[bool],
) -> Option<usize> {
    let free: Vec<(usize, &str)> = doc
        .descendants(parent)
        .into_iter()
        .filter(|&i| !used[i])
        .map(|i| (i, norms[i].as_str()))
        .collect();
    overlap_with_question(ts, &free)
}

/// [`most_overlap`] with the template question's title, else with each of
/// its sentences in turn (older templates asked `Were upgrade and rollback
/// tested?` without the sentence that follows it today).
pub(super) fn overlap_with_question(
    ts: &TemplateSection,
    candidates: &[(usize, &str)],
) -> Option<usize> {
    std::iter::once(&ts.norm)
        .chain(&ts.sentences)
        .find_map(|norm| most_overlap(norm, candidates.iter().copied()))
}

/// Of `candidates` (index, normalised text), the first sharing the most words
/// with `norm`, if it shares at least [`MIN_OVERLAP`] of them; `None` for a
/// `norm` of fewer than [`MIN_FUZZY_WORDS`] words.
pub(super) fn most_overlap<'a>(
    norm: &str,
    candidates: impl Iterator<Item = (usize, &'a str)>,
) -> Option<usize> {
    let mut words: Vec<&str> = norm.split(' ').collect();
    words.sort_unstable();
    words.dedup();
    if words.len() < MIN_FUZZY_WORDS {
        return None;
    }
    let mut best: Option<(f64, usize)> = None;
    for (i, text) in candidates {
        let shared = words
            .iter()
            .filter(|w| text.split(' ').any(|o| o == **w))
            .count();
        let score = shared as f64 / words.len() as f64;
        if score >= MIN_OVERLAP && best.is_none_or(|(b, _)| score > b) {
            best = Some((score, i));
        }
    }
    best.map(|(_, i)| i)
}
