//! A README's plain text and its headings ([`Section`]s) → [`BodyTerms`]: the
//! text cut into [`Passage`]s (each inside one section, a few sentences
//! long), and every term with how often it occurs and the passage where it
//! occurs most. A search result links to that passage's section and shows
//! its text, so a match deep in a KEP opens where it is.

use serde::{Deserialize, Serialize};

use super::{FxMap, W_BODY_MAX, keep_body_word, words};

/// Longest passage, in characters (a passage ends at a word boundary).
pub const PASSAGE_CHARS: usize = 240;

/// A heading of a README: where its section starts in the plain text
/// (`Rendered::text`, at the heading's own text), its anchor and its text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Section {
    /// Byte offset of the heading's text in the plain text.
    pub start: usize,
    /// The heading's anchor id on the page.
    pub id: String,
    /// The heading's text.
    pub title: String,
}

/// A few sentences of one section.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Passage {
    /// The anchor of the section it is in (empty before the first heading).
    pub id: String,
    /// That section's heading.
    pub heading: String,
    /// The text, whitespace collapsed.
    pub text: String,
}

/// The distinct index terms of a README body, each with how often it occurs
/// (capped at the body's largest weight) and the passage (1-based, 0 for
/// none) where it occurs most. Computed once per rendering and kept with it
/// (in serve's plan cache), so a plan that reuses a rendering does not
/// tokenize its text again.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BodyTerms {
    /// The terms (ASCII alphanumerics), each followed by one space.
    terms: String,
    /// Each term's count, in the same order.
    counts: Vec<u8>,
    /// Each term's best passage, 1-based (0: none).
    best: Vec<u16>,
    /// The passages.
    passages: Vec<Passage>,
}

/// Cut `body` into passages along `sections` (sorted by `start`).
pub fn passages(body: &str, sections: &[Section]) -> Vec<Passage> {
    let mut out = Vec::new();
    let mut cut = |text: &str, id: &str, heading: &str| {
        let mut cur = String::new();
        let mut chars = 0;
        for w in text.split_whitespace() {
            let n = w.chars().count();
            if chars > 0 && chars + 1 + n > PASSAGE_CHARS {
                out.push(Passage {
                    id: id.to_string(),
                    heading: heading.to_string(),
                    text: std::mem::take(&mut cur),
                });
                chars = 0;
            }
            if chars > 0 {
                cur.push(' ');
                chars += 1;
            }
            cur.push_str(w);
            chars += n;
        }
        if !cur.is_empty() {
            out.push(Passage {
                id: id.to_string(),
                heading: heading.to_string(),
                text: cur,
            });
        }
    };
    let first = sections
        .first()
        .map_or(body.len(), |s| s.start.min(body.len()));
    cut(body.get(..first).unwrap_or(""), "", "");
    for (i, s) in sections.iter().enumerate() {
        let end = sections.get(i + 1).map_or(body.len(), |n| n.start);
        let Some(text) = body.get(s.start..end.max(s.start)) else {
            continue;
        };
        // the heading's own line is not part of its text
        let text = text.split_once('\n').map_or("", |(_, rest)| rest);
        cut(text, &s.id, &s.title);
    }
    out.truncate(usize::from(u16::MAX) - 1);
    out
}

impl BodyTerms {
    /// The terms of `body` with headings `sections`, as the index reads them.
    pub fn of(body: &str, sections: &[Section]) -> BodyTerms {
        let passages = passages(body, sections);
        let lowered: Vec<(String, String)> = passages
            .iter()
            .map(|p| (p.text.to_ascii_lowercase(), p.heading.to_ascii_lowercase()))
            .collect();
        // term → (count, best passage, its count there)
        let mut w: FxMap<&str, (u8, u16, u16)> = FxMap::default();
        let mut here: FxMap<&str, u16> = FxMap::default();
        let mut last_heading: Option<&str> = None;
        for (i, (text, heading)) in lowered.iter().enumerate() {
            here.clear();
            // a heading counts once, with its section's first passage
            let new_section = last_heading != Some(passages[i].id.as_str());
            last_heading = Some(passages[i].id.as_str());
            let head = if new_section { heading.as_str() } else { "" };
            for t in words(head).chain(words(text)).filter(|t| keep_body_word(t)) {
                *here.entry(t).or_insert(0) += 1;
            }
            let contents = heading.trim() == "table of contents";
            for (&t, &n) in &here {
                let e = w.entry(t).or_insert((0, 0, 0));
                e.0 = (u16::from(e.0) + n).min(W_BODY_MAX as u16) as u8;
                if !contents && n > e.2 {
                    e.1 = i as u16 + 1;
                    e.2 = n;
                }
            }
        }
        // the text before the first heading too, when it has no passage
        // (whitespace only): nothing to add
        let mut entries: Vec<(&str, (u8, u16, u16))> = w.into_iter().collect();
        entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
        let mut out = BodyTerms {
            terms: String::with_capacity(entries.iter().map(|(t, _)| t.len() + 1).sum()),
            counts: Vec::with_capacity(entries.len()),
            best: Vec::with_capacity(entries.len()),
            passages: Vec::new(),
        };
        for (t, (n, best, _)) in entries {
            out.terms.push_str(t);
            out.terms.push(' ');
            out.counts.push(n);
            out.best.push(best);
        }
        out.passages = passages;
        out
    }

    /// Each term with its count and best passage (1-based, 0 for none).
    pub(super) fn iter(&self) -> impl Iterator<Item = (&str, u8, u16)> + '_ {
        self.terms
            .split_terminator(' ')
            .zip(self.counts.iter().copied())
            .zip(self.best.iter().copied())
            .map(|((t, n), b)| (t, n, b))
    }

    /// How many distinct terms.
    pub(super) fn len(&self) -> usize {
        self.counts.len()
    }

    /// Forget the passages' text (once their files are written); the terms
    /// keep the number of the passage where each occurs most.
    pub fn drop_passages(&mut self) {
        self.passages = Vec::new();
    }

    /// The passages.
    pub fn passages(&self) -> &[Passage] {
        &self.passages
    }

    /// The terms as bytes ([`BodyTerms::from_bytes`] reads them back).
    pub fn to_bytes(&self) -> Vec<u8> {
        serde_json::to_vec(self).unwrap_or_default()
    }

    /// What [`BodyTerms::to_bytes`] wrote; `None` when it does not hold together.
    pub fn from_bytes(bytes: &[u8]) -> Option<BodyTerms> {
        let b: BodyTerms = serde_json::from_slice(bytes).ok()?;
        let n = b.counts.len();
        let sound = (b.terms.is_empty() || b.terms.ends_with(' '))
            && b.terms.bytes().filter(|&c| c == b' ').count() == n
            && b.best.len() == n
            && b.terms
                .bytes()
                .all(|c| c == b' ' || c.is_ascii_alphanumeric())
            && !b.terms.contains("  ")
            && !b.terms.starts_with(' ')
            && b.best.iter().all(|&p| usize::from(p) <= b.passages.len());
        sound.then_some(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sections(body: &str, heads: &[(&str, &str)]) -> Vec<Section> {
        heads
            .iter()
            .map(|(id, title)| Section {
                start: body.find(&format!("{title}\n")).unwrap(),
                id: id.to_string(),
                title: title.to_string(),
            })
            .collect()
    }

    #[test]
    fn terms_point_at_the_passage_where_they_occur_most() {
        let body = "Intro words.\nTable of Contents\nSidecar sidecar sidecar design details.\n\
                    Summary\nThe kubelet runs pods.\nDesign\nA sidecar starts first; the sidecar \
                    restarts. Kubelet.\n";
        let secs = sections(
            body,
            &[
                ("table-of-contents", "Table of Contents"),
                ("summary", "Summary"),
                ("design", "Design"),
            ],
        );
        let b = BodyTerms::of(body, &secs);
        let ps = b.passages();
        let at = |term: &str| {
            let (_, _, best) = b.iter().find(|(t, _, _)| *t == term).unwrap();
            &ps[usize::from(best) - 1]
        };
        // the table of contents mentions it most, but is never the target
        assert_eq!(at("sidecar").id, "design");
        assert_eq!(at("pods").id, "summary");
        assert_eq!(at("intro").id, "");
        assert_eq!(ps[0].text, "Intro words.");
        assert_eq!(
            at("design").id,
            "design",
            "a heading counts for its section"
        );
        let back = BodyTerms::from_bytes(&b.to_bytes()).unwrap();
        assert_eq!(back, b);
        assert!(BodyTerms::from_bytes(b"{}").is_none());
    }

    #[test]
    fn long_sections_are_cut_at_word_boundaries() {
        let text = "word ".repeat(200);
        let body = format!("Head\n{text}");
        let secs = sections(&body, &[("head", "Head")]);
        let ps = passages(&body, &secs);
        assert!(ps.len() >= 4, "{}", ps.len());
        assert!(
            ps.iter()
                .all(|p| p.text.len() <= PASSAGE_CHARS && p.id == "head")
        );
        assert_eq!(
            ps.iter().map(|p| p.text.split(' ').count()).sum::<usize>(),
            200
        );
        // sections out of range or out of order never panic
        let bad = vec![Section {
            start: 10_000,
            id: "x".into(),
            title: "x".into(),
        }];
        assert_eq!(passages("short", &bad).len(), 1);
    }
}
