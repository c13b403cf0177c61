//! BodyTerms and passages, against the reading they must agree with.

use super::*;
use crate::site::search::{W_BODY_MAX, keep_body_word, words};

/// The terms as counted from [`passages`], one passage's text at a
/// time, each heading with its section's first passage.
fn terms_of_passages(body: &str, sections: &[Section]) -> Vec<(String, u8, u16)> {
    let lower = body.to_ascii_lowercase();
    let titles: Vec<String> = sections
        .iter()
        .map(|s| s.title.to_ascii_lowercase())
        .collect();
    let passages = passages(&lower, sections);
    let mut tallies = Tallies::new();
    let mut last = None;
    for p in &passages {
        let head = usize::from(p.section).checked_sub(1);
        if last != Some(p.section)
            && let Some(i) = head
        {
            tallies.count(&titles[i]);
        }
        last = Some(p.section);
        tallies.count(&p.text);
        let contents = head.is_some_and(|i| {
            sections[i]
                .title
                .trim()
                .eq_ignore_ascii_case("table of contents")
        });
        tallies.flush(p.section, contents);
    }
    let sorted = tallies.sorted();
    sorted
        .into_iter()
        .map(|(t, n, b)| (t.to_string(), n, b))
        .collect()
}

proptest::proptest! {
    /// `of`, which counts word by word as it cuts the passages, gives the
    /// terms (counts and best sections) counted from `passages` one
    /// passage at a time: `terms_are_counted_as_the_passages_read` below
    /// checks the counts alone on one body.
    #[test]
    fn terms_are_those_of_the_passages(
        lines in proptest::collection::vec("[a-cA-C ]{0,50}|Table of Contents", 0..24),
        heads in proptest::collection::btree_set(0usize..24, 0..5),
    ) {
        let body: String = lines.iter().map(|l| format!("{l}\n")).collect();
        let mut sections = Vec::new();
        let mut at = 0;
        for (i, l) in lines.iter().enumerate() {
            if heads.contains(&i) {
                sections.push(Section { start: at, level: 2, id: format!("h{i}"), title: l.clone() });
            }
            at += l.len() + 1;
        }
        let got: Vec<(String, u8, u16)> = BodyTerms::of(&body, &sections)
            .iter()
            .map(|(t, n, b)| (t.to_string(), n, b))
            .collect();
        proptest::prop_assert_eq!(got, terms_of_passages(&body, &sections));
    }
}

fn sections(body: &str, heads: &[(&str, &str)]) -> Vec<Section> {
    heads
        .iter()
        .map(|(id, title)| Section {
            start: body.find(&format!("{title}\n")).unwrap(),
            level: 2,
            id: id.to_string(),
            title: title.to_string(),
        })
        .collect()
}

#[test]
fn terms_point_at_the_section_where_they_occur_most() {
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
    let at = |term: &str| {
        let (_, _, best) = b.iter().find(|(t, _, _)| *t == term).unwrap();
        match usize::from(best).checked_sub(1) {
            Some(i) => b.heads().get(i).unwrap().id,
            None => "",
        }
    };
    // the table of contents mentions it most, but is never the target
    assert_eq!(at("sidecar"), "design");
    assert_eq!(at("pods"), "summary");
    assert_eq!(at("intro"), "");
    assert_eq!(at("design"), "design", "a heading counts for its section");
    assert!(b.sound());
    let mut broken = b.clone();
    broken.best[0] = 9;
    assert!(!broken.sound());
}

#[test]
fn heads_read_back_as_the_sections_gave_them() {
    let secs = vec![
        Section {
            start: 0,
            level: 1,
            id: "kep-1".into(),
            title: "KEP-1: Täst".into(),
        },
        Section {
            start: 9,
            level: 2,
            id: "".into(),
            title: "".into(),
        },
        Section {
            start: 20,
            level: 3,
            id: "summary".into(),
            title: "Summary\tand more".into(),
        },
    ];
    let heads = Heads::of(&secs);
    assert_eq!(heads.len(), 3);
    let back: Vec<(u8, String, String)> = heads
        .iter()
        .map(|h| (h.level, h.id.to_string(), h.title.to_string()))
        .collect();
    let want: Vec<(u8, String, String)> = secs
        .iter()
        .map(|s| (s.level, s.id.clone(), s.title.clone()))
        .collect();
    assert_eq!(back, want);
    assert!(heads.get(3).is_none() && Heads::default().is_empty());
}

#[test]
fn terms_are_counted_as_the_passages_read() {
    // `of` counts in place; `passages` makes them: the same words
    let body = format!(
        "Before the heads. Kubelet!\nSummary\n{}\nDesign\n{}\nEmpty\n",
        "The kubelet runs pods, pod-level sidecars; KEP-753 v1.28. ".repeat(40),
        "Sidecar containers (restartPolicy: Always) start first. ".repeat(30),
    );
    let secs = sections(
        &body,
        &[
            ("summary", "Summary"),
            ("design", "Design"),
            ("empty", "Empty"),
        ],
    );
    let b = BodyTerms::of(&body, &secs);
    let mut want: std::collections::BTreeMap<String, usize> = Default::default();
    let mut seen = std::collections::HashSet::new();
    for p in passages(&body, &secs) {
        let lower = p.text.to_ascii_lowercase();
        let mut text = String::new();
        if p.section > 0 && seen.insert(p.section) {
            text = secs[usize::from(p.section) - 1].title.to_ascii_lowercase();
            text.push(' ');
        }
        text.push_str(&lower);
        for t in words(&text).filter(|t| keep_body_word(t)) {
            *want.entry(t.to_string()).or_default() += 1;
        }
    }
    let got: std::collections::BTreeMap<String, usize> = b
        .iter()
        .map(|(t, n, _)| (t.to_string(), usize::from(n)))
        .collect();
    let capped: std::collections::BTreeMap<String, usize> = want
        .into_iter()
        .map(|(t, n)| (t, n.min(W_BODY_MAX as usize)))
        .collect();
    assert_eq!(got, capped);
    assert!(got.contains_key("kubelet") && !got.contains_key("empty"));
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
            .all(|p| p.text.len() <= PASSAGE_CHARS && p.section == 1)
    );
    assert_eq!(
        ps.iter().map(|p| p.text.split(' ').count()).sum::<usize>(),
        200
    );
    // sections out of range or out of order never panic
    let bad = vec![Section {
        start: 10_000,
        level: 2,
        id: "x".into(),
        title: "x".into(),
    }];
    assert_eq!(passages("short", &bad).len(), 1);
}
