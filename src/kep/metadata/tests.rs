use super::*;

#[test]
fn versions_parse_and_order() {
    let cases = [
        ("v1.21", Some((1, 21))),
        ("1.9", Some((1, 9))),
        ("v1.30.2", Some((1, 30))),
        ("v1.x", None),
        ("", None),
        ("TBD", None),
        ("v1.2.3.4", None),
    ];
    for (text, want) in cases {
        let got = Release::parse(text).map(|v| (v.major, v.minor));
        assert_eq!(got, want, "{text}");
    }
    assert!(Release::parse("v1.9").unwrap() < Release::parse("v1.10").unwrap());
}

#[test]
fn scalars_stay_as_written() {
    let raw = parse_raw(
        "title: T\nkep-number: 0042\nlatest-milestone: 1.20\nmilestone:\n  alpha: 1.10\ncreation-date: 2020-01-02\ndisable-supported: true\n",
        0,
    )
    .unwrap();
    let m = Metadata::from(raw);
    assert_eq!(m.kep_number, "0042");
    assert_eq!(m.latest_milestone, "1.20");
    assert_eq!(m.milestone.alpha, "1.10");
    assert_eq!(m.creation_date, "2020-01-02");
    assert_eq!(m.disable_supported, Some(true));
}

#[test]
fn list_entries_accept_name_maps() {
    let raw = parse_raw("reviewers:\n  - name: \"@a\"\n  - \"@b\"\n  -\n", 0).unwrap();
    assert_eq!(Metadata::from(raw).reviewers, vec!["@a", "@b"]);
}

#[test]
fn field_lines_and_unknown_fields() {
    let text = "title: T\n# comment\nsponsor: x\nmilestone:\n  alpha: v1.1\n  gamma: v1.2\nauthors:\n  - a: b\n";
    let lines = FieldLines::scan(text, 0);
    assert_eq!(lines.line("title"), Some(1));
    assert_eq!(lines.line("milestone.alpha"), Some(5));
    assert_eq!(lines.line("milestone"), Some(4));
    assert_eq!(lines.line("alpha"), None);
    // a key written twice is at its first line
    let twice = FieldLines::scan(
        "status: a
title: T
status: b
",
        2,
    );
    assert_eq!(twice.line("status"), Some(3));
    assert_eq!(
        lines.unknown(),
        vec![
            ("sponsor".to_string(), 3),
            ("milestone.gamma".to_string(), 6)
        ]
    );
}

#[test]
fn syntax_errors_have_lines() {
    let err = parse_raw("title: ok\nstatus: \"unclosed\nstage: alpha\n", 3).unwrap_err();
    assert!(err.line.is_some_and(|l| l >= 4), "{err:?}");
}

#[test]
fn billion_laughs_is_refused() {
    let mut text = String::from(
        "a0: &a0 [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n",
    );
    for i in 1..10 {
        let p = i - 1;
        text.push_str(&format!(
            "a{i}: &a{i} [*a{p},*a{p},*a{p},*a{p},*a{p},*a{p},*a{p},*a{p},*a{p}]\n"
        ));
    }
    text.push_str("title: boom\n");
    let err = parse_raw(&text, 0).unwrap_err();
    assert!(!err.message.is_empty());
}

#[test]
fn front_matter_split() {
    let (fm, off, body) = split_front_matter("---\ntitle: X\n---\n# Body\n").unwrap();
    assert_eq!(fm, "title: X\n");
    assert_eq!(off, 1);
    assert_eq!(body, "# Body\n");
    assert!(split_front_matter("# no front matter\n").is_none());
    assert!(split_front_matter("---\nunterminated: yes\n").is_none());
}
