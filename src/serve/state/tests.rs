use super::*;

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
