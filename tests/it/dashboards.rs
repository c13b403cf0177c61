//! The dashboards on the sample repository: a SIG lead's page, a PRR
//! reviewer's queue, the people pages, the findings page and the home page.

use std::collections::BTreeMap;

use kepsite::project::{Input, Project};
use kepsite::site::{self, SiteOptions};

use crate::support::{content, content_copy, load_files};

fn render(data: &Project) -> BTreeMap<String, Vec<u8>> {
    let o = SiteOptions {
        out: "unused".into(),
        ..Default::default()
    };
    site::render_to_memory(data, &o).unwrap()
}

fn pages() -> &'static BTreeMap<String, Vec<u8>> {
    static P: std::sync::OnceLock<BTreeMap<String, Vec<u8>>> = std::sync::OnceLock::new();
    P.get_or_init(|| render(&load_files(&Input::at(content()))))
}

fn page(p: &str) -> String {
    String::from_utf8_lossy(pages().get(p).unwrap_or_else(|| panic!("{p} missing"))).into_owned()
}

/// The part of a page between two ids (a section).
fn section<'a>(html: &'a str, id: &str) -> &'a str {
    let at = html
        .find(&format!("id=\"{id}\""))
        .unwrap_or_else(|| panic!("no #{id}"));
    let rest = &html[at..];
    let end = rest.find("</section>").unwrap_or(rest.len());
    &rest[..end]
}

#[test]
fn sig_dashboard_answers_a_sig_lead() {
    let p = page("sigs/sig-node/index.html");
    let cycle = section(&p, "cycle");
    assert!(cycle.contains("v1.36, the release in progress"), "{cycle}");
    // 4321 (beta in v1.36) is Ready, with its PRR approver linked to the queue.
    assert!(cycle.contains("KEP-4321"), "{cycle}");
    assert!(cycle.contains("href=\"/prr/"), "{cycle}");
    // 5140 has no prod-readiness file: At risk with what is missing.
    assert!(cycle.contains("no prod-readiness file"), "{cycle}");
    // PRR gaps are grouped per KEP and link to the questions on the KEP page.
    let gaps = section(&p, "gaps");
    assert!(gaps.contains("href=\"/keps/5140/#"), "{gaps}");
    assert!(gaps.contains("?plain=1#L"), "{gaps}");
    // Counts link to the filtered index.
    assert!(p.contains("href=\"/keps/?sig=sig-node&amp;status=implementable\""));
    // Findings are grouped by rule and link to the KEP pages.
    let f = section(&p, "findings");
    assert!(f.contains("#p-find"), "{f}");
}

#[test]
fn prr_reviewer_has_a_queue() {
    let index = page("prr/index.html");
    assert!(index.contains("href=\"/prr/tomasz-k/\""), "{index}");
    let q = page("prr/tomasz-k/index.html");
    // 4470 (beta in v1.36) names @tomasz-k for alpha and has no beta approval yet.
    assert!(q.contains("KEP-4470"), "{q}");
    assert!(q.contains("none for beta"), "{q}");
    // Unanswered questions are listed with links.
    assert!(q.contains("href=\"/keps/4470/#"), "{q}");
}

#[test]
fn people_pages_show_roles_and_link_each_person() {
    let index = page("people/index.html");
    assert!(index.contains("href=\"/people/wren-h/\""));
    for role in ["Author", "Reviewer", "Approver", "Prr approver"] {
        assert!(index.contains(role), "{role}");
    }
    let wren = page("people/wren-h/index.html");
    assert!(wren.contains("id=\"r-prr-approver\""), "{wren}");
    assert!(wren.contains("href=\"/prr/wren-h/\""));
}

#[test]
fn findings_page_lists_every_finding_with_filters() {
    let data = load_files(&Input::at(content()));
    let p = page("findings/index.html");
    let rows = p.matches("<tr data-rule=").count();
    assert_eq!(rows, data.findings.len());
    for f in &data.findings {
        assert!(
            p.contains(&format!("<option>{}</option>", f.rule)),
            "{}",
            f.rule
        );
    }
    assert!(
        p.contains("/static/immutable/findings."),
        "the filter script is loaded"
    );
    let home = page("index.html");
    assert!(home.contains("href=\"/findings/\""));
    assert!(
        home.contains("href=\"/keps/?status=implementable\""),
        "counts link to the index"
    );
    let invalid = data
        .model
        .keps
        .iter()
        .any(|k| k.meta.status.is_invalid() || k.meta.stage.is_invalid());
    assert_eq!(home.contains("id=\"invalid\""), invalid);
}

/// Handles come from KEPs: one that is not a GitHub login names no page.
#[test]
fn hostile_handles_name_no_page() {
    let (_tmp, root) = content_copy();
    let yaml = root.join("keps/sig-node/4321-kubelet-image-pull-progress/kep.yaml");
    let text = std::fs::read_to_string(&yaml).unwrap();
    let text = text.replacen(
        "authors:\n",
        "authors:\n  - \"..\"\n  - \"@a/../../x\"\n  - \"Jane Doe\"\n",
        1,
    );
    std::fs::write(&yaml, text).unwrap();
    let files = render(&load_files(&Input::at(&root)));
    for path in files.keys() {
        assert!(!path.contains(".."), "{path}");
        assert!(!path.starts_with("people/jane"), "{path}");
    }
    assert!(files.contains_key("people/index.html"));
}
