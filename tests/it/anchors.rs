//! The rendered heading ids and the `toc-mismatch` rule agree: both come
//! from `kep::document`'s one slug.

use std::collections::{BTreeMap, BTreeSet};

use kepsite::kep::document::{heading_text, parse, toc_mismatches};
use kepsite::site::highlight::Highlighter;
use kepsite::site::markdown::{Links, render};

/// Headings that GitHub anchors in less obvious ways, with the anchor
/// GitHub gives each (repeats numbered).
const HEADINGS: &[(&str, &str)] = &[
    (
        "Upgrade / Downgrade Strategy",
        "upgrade--downgrade-strategy",
    ),
    (
        "Notes/Constraints/Caveats (Optional)",
        "notesconstraintscaveats-optional",
    ),
    (
        "`kubectl` **flags** and _emphasis_",
        "kubectl-flags-and-emphasis",
    ),
    (
        "A [linked](https://example.com/x) heading",
        "a-linked-heading",
    ),
    ("ΟΔΟΣ ΚΑΙ ΣΟΦΙΑ", "οδος-και-σοφια"),
    ("Ünïcode Überschrift", "ünïcode-überschrift"),
    ("日本語の見出し", "日本語の見出し"),
    ("Rocket 🚀 launch", "rocket--launch"),
    ("Trailing spaces   ", "trailing-spaces"),
    ("Repeated", "repeated"),
    ("Repeated", "repeated-1"),
    ("Repeated", "repeated-2"),
    ("Tom &amp; Jerry &lt;3", "tom--jerry-3"),
    ("C++ &#x26; C#", "c--c"),
    ("Use <code>kubectl</code> here", "use-kubectl-here"),
    ("snake_case and __strong__", "snake_case-and-strong"),
    ("Multiple   inner   spaces", "multiple---inner---spaces"),
    ("Escaped \\* star", "escaped--star"),
    ("~~struck~~ text", "struck-text"),
];

fn readme(toc: &[String]) -> String {
    let mut md = String::from("# Title\n\n## Table of Contents\n\n<!-- toc -->\n");
    for line in toc {
        md.push_str(line);
        md.push('\n');
    }
    md.push_str("<!-- /toc -->\n\n");
    for (h, _) in HEADINGS {
        md.push_str(&format!("## {h}\n\nText.\n\n"));
    }
    md
}

/// The `id`s of the rendered headings, in order.
fn heading_ids(html: &str) -> Vec<String> {
    let re = regex::Regex::new(r#"<h[1-6] id="([^"]*)""#).unwrap();
    re.captures_iter(html).map(|c| c[1].to_string()).collect()
}

fn rendered_ids(md: &str) -> Vec<String> {
    let keps = BTreeMap::new();
    let assets = BTreeSet::new();
    let links = Links {
        keps: &keps,
        local_assets: &assets,
        repo_url: "https://github.com/k/e",
        branch: "master",
    };
    heading_ids(&render(md, "keps/sig-a/1-x/README.md", &links, &Highlighter::new()).html)
}

#[test]
fn rendered_anchors_are_the_toc_rules_anchors() {
    let md = readme(&[]);
    let ids = rendered_ids(&md);
    // what the toc module computes for each heading of the same README
    let doc = parse(&md);
    let computed: Vec<String> = doc.sections.iter().map(|s| s.anchor.clone()).collect();
    assert_eq!(ids, computed);
    let expected: Vec<&str> = ["title", "table-of-contents"]
        .into_iter()
        .chain(HEADINGS.iter().map(|(_, a)| *a))
        .collect();
    assert_eq!(ids, expected);

    // a TOC made of those anchors is what the rule wants
    let toc: Vec<String> = HEADINGS
        .iter()
        .map(|(h, a)| format!("- [{}](#{a})", heading_text(h)))
        .collect();
    let doc = parse(&readme(&toc));
    assert_eq!(
        doc.toc.as_ref().map(|t| t.entries.len()),
        Some(HEADINGS.len())
    );
    assert_eq!(toc_mismatches(&doc), vec![]);
    assert_eq!(
        rendered_ids(&readme(&toc)),
        expected,
        "the TOC changes no id"
    );

    // and one anchor off is found
    let mut off = toc.clone();
    off[4] = "- [ΟΔΟΣ](#ododos-kai)".to_string();
    assert_eq!(toc_mismatches(&parse(&readme(&off))).len(), 2, "{off:?}");
}
