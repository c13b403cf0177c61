use super::theme::dependents;
use super::*;

#[test]
fn dependents_follow_extends_and_imports() {
    let sources: BTreeMap<String, String> = [
        (
            "base.html",
            "<html>{% block main %}{% endblock main %}</html>",
        ),
        ("macros.html", "{% macro x() %}{% endmacro %}"),
        (
            "kep.html",
            r#"{% extends "base.html" %}{% import "macros.html" as m %}"#,
        ),
        ("sig.html", r#"{% extends "base.html" %}"#),
        ("sitemap.xml", "<urlset/>"),
    ]
    .into_iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect();
    let one = |n: &str| BTreeSet::from([n.to_string()]);
    assert_eq!(
        dependents(&sources, &one("macros.html")),
        BTreeSet::from(["macros.html".to_string(), "kep.html".to_string()])
    );
    assert_eq!(dependents(&sources, &one("base.html")).len(), 3);
    assert_eq!(
        dependents(&sources, &one("sitemap.xml")),
        one("sitemap.xml")
    );
}

#[test]
fn content_types() {
    assert_eq!(content_type("a/index.html"), "text/html; charset=utf-8");
    assert_eq!(content_type("static/site.css"), "text/css; charset=utf-8");
    assert_eq!(content_type("keps.json"), "application/json");
    assert_eq!(content_type("x/diagram.PNG"), "image/png");
    assert_eq!(content_type("x/noext"), "application/octet-stream");
}

#[test]
fn editor_temporaries_are_ignored() {
    assert!(editor_temp("keps/sig-node/1-a/.README.md.swp"));
    assert!(editor_temp("keps/sig-node/1-a/README.md~"));
    assert!(editor_temp("keps/sig-node/1-a/4913"));
    assert!(!editor_temp("keps/sig-node/1-a/README.md"));
}
