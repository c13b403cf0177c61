//! Checks of rendered README HTML as a browser parses it: what is unsafe,
//! and what escapes the page's `.markdown` container. Shared by the
//! sanitizer tests and the corpus tests.

use std::collections::{BTreeMap, BTreeSet};

use kepsite::site::highlight::Highlighter;
use kepsite::site::markdown::{Links, render};

/// Elements README HTML may contain: the document's own and the raw HTML
/// allowlist (which markdown's and highlighted code's elements are on).
fn allowed(name: &str) -> bool {
    matches!(name, "html" | "body") || kepsite::site::sanitize::ALLOWED_ELEMENTS.contains(&name)
}

/// What is unsafe in `html` once a browser has parsed it.
pub fn dom_problems(html: &str) -> Vec<String> {
    let doc = scraper::Html::parse_fragment(html);
    let mut problems = Vec::new();
    for node in doc.tree.nodes() {
        let Some(el) = node.value().as_element() else {
            continue;
        };
        let name = el.name();
        if !allowed(name) {
            problems.push(format!("element <{name}>"));
        }
        for (attr, value) in el.attrs() {
            let attr = attr.to_ascii_lowercase();
            // markdown tables align their cells with a style, nothing else may
            let table_align = attr == "style"
                && matches!(name, "th" | "td")
                && ["left", "center", "right"]
                    .iter()
                    .any(|a| value == format!("text-align: {a}"));
            if attr.starts_with("on")
                || (attr == "style" && !table_align)
                || matches!(
                    attr.as_str(),
                    "srcdoc" | "formaction" | "action" | "srcset" | "xlink:href"
                )
            {
                problems.push(format!("<{name} {attr}={value:?}>"));
            }
            if matches!(
                attr.as_str(),
                "href" | "src" | "cite" | "poster" | "background"
            ) {
                let url: String = value
                    .chars()
                    .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
                    .collect();
                let url = url.trim_matches(|c: char| c <= ' ').to_ascii_lowercase();
                let end = url.find(['/', '?', '#']).unwrap_or(url.len());
                if let Some(i) = url[..end].find(':')
                    && !["http", "https", "mailto"].contains(&&url[..i])
                {
                    problems.push(format!("<{name} {attr}={value:?}>"));
                }
            }
            if name == "input" && attr == "type" && !value.eq_ignore_ascii_case("checkbox") {
                problems.push(format!("<input type={value:?}>"));
            }
        }
        if name == "input" && el.attr("type").is_none() {
            problems.push("<input> without a type".into());
        }
    }
    problems
}

/// Render `md` as the README of a KEP in `keps/sig-a/2-y`.
pub fn render_readme(md: &str) -> String {
    let keps = BTreeMap::from([("keps/sig-a/1-x".to_string(), "/keps/1/".to_string())]);
    let assets = BTreeSet::from(["img.png".to_string()]);
    let links = Links {
        keps: &keps,
        local_assets: &assets,
        repo_url: "https://github.com/k/e",
        branch: "master",
    };
    render(md, "keps/sig-a/2-y/README.md", &links, &Highlighter::new()).html
}

/// The page around a README, as the KEP template nests it: what a browser
/// builds from `html` placed in the `.markdown` container.
pub fn in_page(html: &str) -> scraper::Html {
    scraper::Html::parse_document(&format!(
        "<!DOCTYPE html><html><body><main id=\"sk-main\"><article class=\"kep\" id=\"sk-article\">\
         <div class=\"kep-layout\" id=\"sk-layout\"><div class=\"markdown\" id=\"sk-md\">{html}</div>\
         <aside id=\"sk-side\">side</aside></div></article></main></body></html>"
    ))
}

/// What of `html` a browser puts outside the page's `.markdown` container
/// (and the page's own elements it moves).
pub fn escapes(html: &str) -> Vec<String> {
    let doc = in_page(html);
    let mut out = Vec::new();
    for node in doc.tree.nodes() {
        let el = node.value().as_element();
        let skeleton = el.is_some_and(|e| {
            e.id().is_some_and(|id| id.starts_with("sk-"))
                || matches!(e.name(), "html" | "head" | "body")
        });
        if skeleton || node.value().is_doctype() || node.value().is_document() {
            continue;
        }
        if node
            .value()
            .as_text()
            .is_some_and(|t| t.trim().is_empty() || &**t == "side")
        {
            continue;
        }
        let inside = node.ancestors().any(|a| {
            a.value()
                .as_element()
                .is_some_and(|e| e.id() == Some("sk-md"))
        });
        if !inside {
            out.push(format!("{:?}", node.value()));
        }
    }
    let parent_id = |id: &str| {
        let sel = scraper::Selector::parse(&format!("#{id}")).unwrap();
        doc.select(&sel)
            .next()
            .and_then(|e| e.parent())
            .and_then(|p| {
                p.value()
                    .as_element()
                    .and_then(|e| e.id().map(String::from))
            })
    };
    for (id, parent) in [
        ("sk-side", "sk-layout"),
        ("sk-md", "sk-layout"),
        ("sk-layout", "sk-article"),
        ("sk-article", "sk-main"),
    ] {
        if parent_id(id).as_deref() != Some(parent) {
            out.push(format!("#{id} moved out of #{parent}"));
        }
    }
    out
}
