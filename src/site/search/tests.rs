use super::*;
use serde_json::json;

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
    let ku: BTreeMap<String, Vec<u32>> = serde_json::from_slice(&idx["search/t/ku.json"]).unwrap();
    assert_eq!(ku["kubelet"], vec![0, W_TITLE, 0, 1, 1, 1]);
    let n: BTreeMap<String, Vec<u32>> = serde_json::from_slice(&idx["search/t/12.json"]).unwrap();
    assert_eq!(n["1287"], vec![1, W_NUMBER, 0]);
    assert!(query_cost(&idx, "kubelet", 10) > 0);
}

/// Give `d` a body of a "Summary" section ("Short.") and a "Design" section
/// (anchor `design_id`) holding `design`.
fn summary_and_design(d: &mut SearchDoc, design: &str, design_id: &str) {
    d.body = format!("Summary\nShort.\nDesign\n{design}\n");
    d.sections = vec![
        Section {
            start: 0,
            id: "summary".into(),
            title: "Summary".into(),
        },
        Section {
            start: d.body.find("Design").unwrap(),
            id: design_id.into(),
            title: "Design".into(),
        },
    ];
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
    let ku: BTreeMap<String, Vec<u32>> = serde_json::from_slice(&idx["search/t/ku.json"]).unwrap();
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
    summary_and_design(
        &mut d,
        "The restartPolicy of an init container.",
        "design-details",
    );
    let other = doc(2, "Other", "thockin wrote this");
    let idx = build(vec![d, other]);
    let at: BTreeMap<String, Vec<u32>> = serde_json::from_slice(&idx["search/t/@t.json"]).unwrap();
    assert_eq!(
        at["@thockin"],
        vec![0, W_PERSON, 0],
        "only the KEP naming him"
    );
    let at: BTreeMap<String, Vec<u32>> = serde_json::from_slice(&idx["search/t/@s.json"]).unwrap();
    assert!(at.contains_key("@sergeykanzhelev"));
    let ve: BTreeMap<String, Vec<u32>> = serde_json::from_slice(&idx["search/t/ve.json"]).unwrap();
    assert_eq!(ve["vertical"], vec![0, W_GATE, 0]);
    let si: BTreeMap<String, Vec<u32>> = serde_json::from_slice(&idx["search/t/si.json"]).unwrap();
    assert_eq!(si["sidecarcontainers"][..2], [0, W_GATE]);
    // "restartpolicy" is in the second passage, under #design-details
    let re: BTreeMap<String, Vec<u32>> = serde_json::from_slice(&idx["search/t/re.json"]).unwrap();
    assert_eq!(re["restartpolicy"], vec![0, 1, 2]);
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&idx["search/p/0-0.json"]).unwrap();
    assert_eq!(rows[1][0], "design-details");
    assert!(rows[1][2].as_str().unwrap().contains("restartPolicy"));
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

#[test]
fn a_passage_file_names_each_section_once_and_buckets_hold_twelve() {
    // "Summary" is one short passage, "Design" runs over more than two files
    let long: String = (0..29 * 40).map(|i| format!("w{i} ")).collect();
    let mut d = doc(1, "Long", "");
    summary_and_design(&mut d, &long, "design");
    let expected = passages(&d.body, &d.sections).len();
    assert!(
        expected > 2 * PASSAGE_BUCKET,
        "{expected} passages: three files"
    );
    let idx = build(vec![d]);
    let rows = |k: usize| -> Vec<serde_json::Value> {
        serde_json::from_slice(&idx[&format!("search/p/0-{k}.json")]).unwrap()
    };
    let first = rows(0);
    assert_eq!(first.len(), PASSAGE_BUCKET);
    assert_eq!(first[0], json!(["summary", "Summary", "Short."]));
    assert_eq!(first[1][0], "design", "a new section is written whole");
    assert!(
        first[2].as_str().unwrap().starts_with('w'),
        "{:?}",
        first[2]
    );
    // each file opens with the section's anchor and heading again
    let second = rows(1);
    assert_eq!(
        (&second[0][0], &second[0][1]),
        (&json!("design"), &json!("Design"))
    );
    assert!(second[1..].iter().all(|r| r.is_string()));
    let passages: usize = (0..)
        .map_while(|k| idx.get(&format!("search/p/0-{k}.json")))
        .map(|b| {
            serde_json::from_slice::<Vec<serde_json::Value>>(b)
                .unwrap()
                .len()
        })
        .sum();
    assert_eq!(passages, expected, "every passage is in a file, once");
}
