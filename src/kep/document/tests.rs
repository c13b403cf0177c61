use super::*;

fn titles(doc: &Document) -> Vec<(u8, &str)> {
    doc.sections
        .iter()
        .map(|s| (s.level, s.title.as_str()))
        .collect()
}

#[test]
fn sections_lines_bodies_and_tree() {
    let text =
        "intro\n# Title\n\nsome *text*\n## A\nbody a <!-- hidden --> end\n### A.1\nx\n## B\n";
    let doc = parse(text);
    assert_eq!(
        titles(&doc),
        vec![(1, "Title"), (2, "A"), (3, "A.1"), (2, "B")]
    );
    let lines: Vec<(usize, usize)> = doc.sections.iter().map(|s| (s.line, s.end_line)).collect();
    assert_eq!(lines, vec![(2, 4), (5, 6), (7, 8), (9, 9)]);
    assert_eq!(doc.body(0).text, "some *text*");
    assert_eq!(doc.body(1).text, "body a  end");
    assert_eq!(doc.body(3).text, "");
    assert_eq!(doc.sections[0].children, vec![1, 3]);
    assert_eq!(doc.sections[2].parent, Some(1));
    assert_eq!(doc.descendants(0), vec![1, 2, 3]);
    assert!(doc.descendants(99).is_empty());
}

#[test]
fn heading_syntax_table() {
    let cases: &[(&str, Option<(u8, &str)>)] = &[
        ("# A", Some((1, "A"))),
        ("###### Six", Some((6, "Six"))),
        ("####### Seven", None),
        ("#NoSpace", None),
        ("   ## Indented", Some((2, "Indented"))),
        ("    ## Code", None),
        ("## Closed ##", Some((2, "Closed"))),
        ("## C# language", Some((2, "C# language"))),
        ("#", Some((1, ""))),
        (
            "## **Bold** `code` [link](http://x)",
            Some((2, "Bold code link")),
        ),
        ("## <a name=\"x\"></a>Anchored", Some((2, "Anchored"))),
        (
            "## Risks & Mitigations (Optional)",
            Some((2, "Risks & Mitigations (Optional)")),
        ),
        ("## a\\_b", Some((2, "a_b"))),
    ];
    for (line, want) in cases {
        let doc = parse(line);
        let got = doc.sections.first().map(|s| (s.level, s.title.as_str()));
        assert_eq!(got, *want, "line {line:?}");
    }
}

#[test]
fn headings_in_fences_and_comments_are_ignored() {
    let text = "# T\n```\n# not\n```\n~~~~md\n## not\n~~~\n## still code\n~~~~\n<!--\n## hidden\n-->\n## Real\n";
    let doc = parse(text);
    assert_eq!(titles(&doc), vec![(1, "T"), (2, "Real")]);
    assert!(
        doc.body(0).text.contains("# not"),
        "code is kept in the body"
    );
    assert!(!doc.body(0).text.contains("hidden"));
}

#[test]
fn an_unclosed_comment_hides_headings_as_commonmark_says() {
    // GitHub shows no "Story 1" here either: the comment runs to the next `-->`
    let text = "### Stories\n<!--DIRECTIVE: required: false>\n\n#### Story 1\n<!--DIRECTIVE: required: false-->\nbody\n";
    let doc = parse(text);
    assert_eq!(titles(&doc), vec![(3, "Stories")]);
    assert_eq!(doc.body(0).text, "\n\n\n\nbody".trim_start());
    // a `#` line in an HTML block is no heading either
    let doc = parse("# T\n<details>\n# not a heading\n</details>\n\n## Real\n");
    assert_eq!(titles(&doc), vec![(1, "T"), (2, "Real")]);
    // setext headings are headings
    let doc = parse("Title\n=====\n\nSub\n---\ntext\n");
    assert_eq!(titles(&doc), vec![(1, "Title"), (2, "Sub")]);
    assert_eq!((doc.sections[1].line, doc.body(1).line), (4, 6));
}

#[test]
fn no_headings() {
    let doc = parse("just text\n\nmore\n");
    assert!(doc.sections.is_empty());
    assert!(doc.toc.is_none());
    assert!(parse("").sections.is_empty());
}

#[test]
fn duplicate_headings_and_skipped_levels() {
    let doc = parse("# T\n#### Deep\n## Story\n## Story\n###### Six\n### Three\n");
    assert_eq!(doc.sections.len(), 6);
    assert_eq!(
        doc.sections[1].parent,
        Some(0),
        "skipped levels attach upward"
    );
    assert_eq!(doc.sections[3].parent, Some(0));
    assert_eq!(doc.sections[4].parent, Some(3));
    assert_eq!(
        doc.sections[5].parent,
        Some(3),
        "### after ###### goes to the ##"
    );
}

#[test]
fn unterminated_comment_drops_the_rest() {
    let doc = parse("# T\nkept\n<!-- open\n## hidden\nlost\n");
    assert_eq!(titles(&doc), vec![(1, "T")]);
    assert_eq!(doc.body(0).text, "kept");
    assert_eq!(doc.sections[0].end_line, 5);
}

#[test]
fn long_section_and_crlf() {
    let mut text = String::from("# T\r\n## Big\r\n");
    for i in 0..50_000 {
        text.push_str(&format!("line {i}\r\n"));
    }
    text.push_str("## After\r\n");
    let doc = parse(&text);
    assert_eq!(titles(&doc), vec![(1, "T"), (2, "Big"), (2, "After")]);
    assert_eq!(doc.body(1).text.lines().count(), 50_000);
    assert!(!doc.body(1).text.contains('\r'));
    assert_eq!(doc.sections[1].end_line, 50_002);
    assert_eq!(doc.sections[2].line, 50_003);
    let lf = parse(&text.replace("\r\n", "\n"));
    let shape = |d: &Document| -> Vec<(String, usize, usize, String, usize)> {
        d.sections
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let body = d.body(i);
                (
                    s.title.clone(),
                    s.line,
                    s.end_line,
                    body.text.to_string(),
                    body.line,
                )
            })
            .collect()
    };
    assert!(shape(&lf) == shape(&doc), "CRLF parses like LF");
}

#[test]
fn slug_table() {
    let cases = [
        (
            "Upgrade / Downgrade Strategy",
            "upgrade--downgrade-strategy",
        ),
        (
            "Notes/Constraints/Caveats (Optional)",
            "notesconstraintscaveats-optional",
        ),
        (
            "Rollout, Upgrade and Rollback Planning",
            "rollout-upgrade-and-rollback-planning",
        ),
        ("e2e tests", "e2e-tests"),
        ("`kubectl` **flags**", "kubectl-flags"),
        ("snake_case", "snake_case"),
        ("Ünïcode", "ünïcode"),
        ("", ""),
    ];
    for (heading, want) in cases {
        assert_eq!(slug(heading), want, "heading {heading:?}");
    }
}

#[test]
fn toc_entries_and_mismatches() {
    let text = "# T\n<!-- toc -->\n- [A](#a)\n  - [Gone](#gone)\n  - [Up / Down](#up-down)\n- [Dup](#dup)\n- [Dup](#dup-1)\n<!-- /toc -->\n## A\n### Up / Down\n### New\n## Dup\n## Dup\n###### Too deep\n";
    let doc = parse(text);
    let toc = doc.toc.as_ref().expect("toc");
    assert_eq!((toc.line, toc.end_line), (2, Some(8)));
    assert_eq!(toc.entries.len(), 5);
    assert_eq!(toc.entries[1].anchor, "gone");
    assert_eq!(toc.entries[1].indent, 2);
    assert_eq!(
        toc_mismatches(&doc),
        vec![
            TocMismatch::UnknownAnchor {
                text: "Gone".into(),
                anchor: "gone".into(),
                line: 4
            },
            TocMismatch::MissingEntry {
                title: "New".into(),
                level: 3,
                line: 11
            },
        ]
    );
}

#[test]
fn no_or_empty_toc_has_no_mismatches() {
    assert!(toc_mismatches(&parse("# T\n## A\n")).is_empty());
    let doc = parse("# T\n<!-- toc -->\n<!-- /toc -->\n## A\n");
    assert!(doc.toc.as_ref().is_some_and(|t| t.entries.is_empty()));
    assert!(toc_mismatches(&doc).is_empty());
}

#[test]
fn unterminated_toc_ends_at_next_heading() {
    let doc = parse("# T\n<!-- toc -->\n- [A](#a)\n## A\n- [not toc](#x)\n");
    let toc = doc.toc.expect("toc");
    assert_eq!(toc.end_line, None);
    assert_eq!(toc.entries.len(), 1);
}

#[test]
fn seed_template_parses_with_a_matching_toc() {
    let doc = parse(TEMPLATE);
    assert_eq!(doc.sections.len(), 57);
    assert_eq!(
        doc.sections[0].title,
        "KEP-NNNN: Your short, descriptive title"
    );
    assert!(
        doc.sections
            .iter()
            .any(|s| s.title == "Story 1" && s.level == 4),
        "the malformed marker before Story 1 must not hide it"
    );
    assert!(doc.toc.as_ref().is_some_and(|t| t.entries.len() == 31));
    assert_eq!(toc_mismatches(&doc), vec![]);
}

#[test]
fn duplicate_suffixes_follow_github_slugs() {
    // "A/B" and "A B" differ on GitHub ("ab", "a-b"): neither gets a suffix.
    let text = "# T\n<!-- toc -->\n- [A/B](#ab)\n- [A B](#a-b)\n- [X](#x)\n- [X](#x-1)\n- [X](#x-2)\n<!-- /toc -->\n## A/B\n## A B\n## X\n## X\n## X\n";
    assert_eq!(toc_mismatches(&parse(text)), vec![]);
    let text = "# T\n<!-- toc -->\n- [X](#x)\n<!-- /toc -->\n## X\n## X\n";
    assert_eq!(
        toc_mismatches(&parse(text)),
        vec![TocMismatch::MissingEntry {
            title: "X".into(),
            level: 2,
            line: 6
        }]
    );
}

/// Our own KEP template (the sample repository's), with the upstream
/// template's sections and DIRECTIVE markers.
const TEMPLATE: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/content/keps/NNNN-kep-template/README.md"
));

#[test]
fn a_fence_closed_by_a_tab_keeps_the_text_and_its_ranges() {
    let text = "# T\n```\ncode\n```\t\nprose\n## After\nx <!-- c -->\n";
    let doc = parse(text);
    // GitHub closes the block at the tabbed fence: the heading after it is one
    assert_eq!(titles(&doc), vec![(1, "T"), (2, "After")]);
    // the document holds the README as written, and its bodies are of it
    assert_eq!(&*doc.text, text);
    assert_eq!(doc.body(0).text, "```\ncode\n```\t\nprose");
    assert_eq!((doc.body(1).text.as_ref(), doc.body(1).line), ("x", 7));
    // a body without comments is not copied
    assert!(matches!(doc.body(0).text, std::borrow::Cow::Borrowed(_)));
}
