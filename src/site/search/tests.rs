use super::*;
use serde_json::json;

/// The postings of `term` in `idx`, flat: `[doc, weight, heading, ...]`.
fn postings(idx: &SearchIndex, term: &str) -> Vec<u32> {
    let meta: serde_json::Value = serde_json::from_slice(&idx["search/meta.json"]).unwrap();
    let key = &term[..2];
    let n = meta["shards"]
        .as_array()
        .unwrap()
        .iter()
        .position(|k| k.as_str().unwrap().split(' ').any(|k| k == key))
        .unwrap_or_else(|| panic!("no term file holds {key}"));
    let terms: BTreeMap<String, String> =
        serde_json::from_slice(&idx[&format!("search/t/{n}.json")]).unwrap();
    decode_postings(&terms[term]).unwrap()
}

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
    assert_eq!(postings(&idx, "kubelet"), vec![0, W_NAME, 0, 1, 1, 0]);
    assert_eq!(postings(&idx, "1287"), vec![1, W_NAME, 0]);
    assert!(query_cost(&idx, "kubelet", 10) > 0);
}

#[test]
fn postings_strings_read_back_and_term_files_hold_each_key_once() {
    let p: Vec<Posting> = vec![(0, 1, 0), (31, 32, 1), (1000, 255, 4000), (70000, 3, 65534)];
    let mut s = Vec::new();
    encode_postings(&mut s, &p);
    let s = String::from_utf8(s).unwrap();
    assert!(
        s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    );
    let flat: Vec<u32> = p
        .iter()
        .flat_map(|&(d, w, h)| [d, w, u32::from(h)])
        .collect();
    assert_eq!(decode_postings(&s), Some(flat));
    assert_eq!(decode_postings("w"), None, "a number cut short");
    assert_eq!(decode_postings("0!"), None);
    // many docs, many keys: files fill up to the limit, no key twice
    let letter = |i: u32| char::from(b'a' + (i % 26) as u8);
    let docs: Vec<SearchDoc> = (0..300)
        .map(|n| {
            let body: Vec<String> = (0..40)
                .map(|j| {
                    let k = n * 7 + j * 31;
                    // no digits: a word of many is not indexed
                    let (a, b) = (letter(n), letter(n / 26));
                    format!("{}{}q{a}{b}", letter(k), letter(k / 26))
                })
                .collect();
            doc(
                n,
                &format!("Title {n}"),
                &format!("wxyz {}", body.join(" ")),
            )
        })
        .collect();
    let idx = build(docs);
    let meta: serde_json::Value = serde_json::from_slice(&idx["search/meta.json"]).unwrap();
    let files = meta["shards"].as_array().unwrap();
    assert!(files.len() > 2, "{files:?}");
    let mut keys: Vec<&str> = files
        .iter()
        .flat_map(|k| k.as_str().unwrap().split(' '))
        .collect();
    let n = keys.len();
    keys.dedup();
    assert_eq!(keys.len(), n, "a key in one file only");
    for (i, k) in files.iter().enumerate() {
        let bytes = &idx[&format!("search/t/{i}.json")];
        let one = !k.as_str().unwrap().contains(' ');
        assert!(
            one || bytes.len() <= TERM_FILE_BYTES + 2,
            "file {i}: {}",
            bytes.len()
        );
    }
    assert_eq!(postings(&idx, "wxyz")[..3], [0, 1, 0]);
    assert_eq!(postings(&idx, "wxyz").len(), 300 * 3);
}

/// Give `d` a body of a "Summary" section ("Short.") and a "Design" section
/// (anchor `design_id`) holding `design`.
fn summary_and_design(d: &mut SearchDoc, design: &str, design_id: &str) {
    d.body = format!("Summary\nShort.\nDesign\n{design}\n");
    d.sections = vec![
        Section {
            start: 0,
            level: 2,
            id: "summary".into(),
            title: "Summary".into(),
        },
        Section {
            start: d.body.find("Design").unwrap(),
            level: 2,
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
    // weights still add up: a name 20 (title word and gate word, once) +
    // summary 4 + body 4 (capped)
    assert_eq!(
        postings(&idx, "kubelet"),
        vec![0, W_NAME + W_SUMMARY + W_BODY_MAX, 0]
    );
}

#[test]
fn people_and_gates_are_terms_and_sections_are_named() {
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
    // three KEPs with a "Design" section make it a heading meta names
    let mut more: Vec<SearchDoc> = (3..5).map(|n| doc(n, "More", "")).collect();
    for m in &mut more {
        summary_and_design(m, "Nothing much.", "design-details");
    }
    let mut docs = vec![d, other];
    docs.extend(more);
    let idx = build(docs);
    assert_eq!(
        postings(&idx, "@thockin"),
        vec![0, W_PERSON, 0],
        "only the KEP naming him"
    );
    assert!(!postings(&idx, "@sergeykanzhelev").is_empty());
    assert_eq!(postings(&idx, "vertical"), vec![0, W_NAME, 0]);
    assert_eq!(postings(&idx, "sidecarcontainers")[..2], [0, W_NAME]);
    // "restartpolicy" is under #design-details, the heading meta names
    let meta: serde_json::Value = serde_json::from_slice(&idx["search/meta.json"]).unwrap();
    let re = postings(&idx, "restartpolicy");
    assert_eq!(re[..2], [0, 1]);
    assert_eq!(
        meta["heads"][re[2] as usize - 1],
        json!(["design-details", "Design"]),
        "an anchor that is not the text's is written beside it"
    );
    assert!(
        meta["heads"]
            .as_array()
            .unwrap()
            .contains(&json!("Summary")),
        "a heading whose anchor is its text is written alone: {}",
        meta["heads"]
    );
    assert_eq!(
        anchor_of("Risks and Mitigations (1/2)"),
        "risks-and-mitigations-12"
    );
    assert_eq!(meta["docs"][0], json!([753, "Sidecar Containers", 0, 0]));
    // the first search reads meta, one term file and the summary bucket
    assert_eq!(query_files(&idx, "restartpolicy", 5).len(), 3);
    assert_eq!(
        split_camel("InPlacePodVerticalScaling"),
        "in place pod vertical scaling"
    );
    assert_eq!(split_camel("CSIMigrationAWS"), "csi migration aws");
}

#[test]
fn a_section_of_its_own_is_named_by_the_template_heading_around_it() {
    let heads = |own: &str| {
        vec![
            Section {
                start: 0,
                level: 2,
                id: "design-details".into(),
                title: "Design Details".into(),
            },
            Section {
                start: 0,
                level: 3,
                id: own.into(),
                title: own.into(),
            },
            Section {
                start: 0,
                level: 4,
                id: format!("{own}-more"),
                title: "More".into(),
            },
            Section {
                start: 0,
                level: 2,
                id: "alternatives".into(),
                title: "Alternatives".into(),
            },
        ]
    };
    let dict: BTreeMap<(&str, &str), u16> = [
        (("design-details", "Design Details"), 1),
        (("alternatives", "Alternatives"), 2),
    ]
    .into_iter()
    .collect();
    assert_eq!(
        named(&Heads::of(&heads("api-changes")), &dict),
        vec![1, 1, 1, 2]
    );
    let orphan = vec![Section {
        start: 0,
        level: 3,
        id: "x".into(),
        title: "X".into(),
    }];
    assert_eq!(named(&Heads::of(&orphan), &dict), vec![0]);
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
fn shards_are_the_same_however_the_key_codes_are_cut() {
    // terms at both ends of the code range, one-character numbers, people,
    // gates and words that only the title or only the body has
    let docs = [
        SearchDoc {
            number: Some(7),
            title: "Zones and aardvarks".into(),
            summary: "zz top 00 level".into(),
            gates: vec!["ZoneAware".into()],
            authors: vec!["@aaron".into()],
            people: vec!["@zed".into()],
            body: "aardvark zone 00 zz 99 kubelet kubelet alpha beta".into(),
            ..Default::default()
        },
        doc(12, "Kubelet", "alpha zeta kubelet 12 aa"),
        doc(3, "", ""),
    ];
    let lowered: Vec<terms::Lowered> = docs.iter().map(terms::lower).collect();
    let keyed = |parts| {
        terms::shards_in(&lowered, parts, |k, t| {
            (k.to_string(), encode::encode_terms(&t))
        })
    };
    let one = keyed(1);
    assert!(one.len() > 5, "{one:?}");
    for parts in [2, 3, 8, 64, 256] {
        assert_eq!(keyed(parts), one, "{parts} ranges");
    }
    // the title's and the body's weights meet in one posting
    let kubelet = one.iter().find(|(k, _)| k == "ku").expect("ku shard");
    let text = String::from_utf8(kubelet.1.clone()).unwrap();
    assert!(text.starts_with("\"kubelet\":"), "{text}");
}

#[test]
fn names_are_title_words_gates_directory_words_and_acronyms() {
    assert_eq!(acronym("APIPriorityAndFairness").as_deref(), Some("apf"));
    assert_eq!(
        acronym("Dynamic Resource Allocation").as_deref(),
        Some("dra")
    );
    assert_eq!(acronym("ReadWriteOncePod").as_deref(), Some("rwop"));
    assert_eq!(acronym("Sidecar"), None, "one word is no acronym");
    let d = SearchDoc {
        number: Some(1539),
        title: "HugePages for ReadWriteOncePod".into(),
        slug: "pod-readiness-gates".into(),
        gates: vec!["ServerSideApply".into()],
        ..Default::default()
    };
    let n = names(&d);
    for want in [
        "1539",
        "hugepages",
        "rwop",
        "readiness",
        "gates",
        "serversideapply",
        "server",
        "ssa",
        "hp",
    ] {
        assert!(n.iter().any(|t| t == want), "{want} in {n:?}");
    }
    assert!(n.windows(2).all(|w| w[0] < w[1]), "sorted, each once");
    let idx = build(vec![d]);
    assert_eq!(postings(&idx, "ssa"), vec![0, W_NAME, 0]);
}
