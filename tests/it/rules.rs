//! Validation rules are values: every finding kepsite emits names a rule of
//! `RULES` and carries a severity that rule's row allows, on the sample
//! content, on hostile input and on the real corpus.

use std::path::Path;

use kepsite::analysis::findings::RULES;
use kepsite::finding::Finding;
use kepsite::project::Input;

use crate::support::*;

/// Every finding's rule is in `RULES` and its severity is the row's.
pub fn assert_rules_from_table(findings: &[Finding], what: &str) {
    for f in findings {
        let row = RULES.iter().find(|r| r.id == f.rule);
        let Some(row) = row else {
            panic!("{what}: rule {:?} is not in RULES: {f:?}", f.rule);
        };
        assert_eq!(
            row.severity, f.severity,
            "{what}: rule {} has another severity in RULES than emitted: {f:?}",
            f.rule
        );
    }
}

fn check_dir(root: &Path) -> Vec<Finding> {
    load_files(&Input::at(root)).findings
}

#[test]
fn the_sample_contents_findings_come_from_the_table() {
    let f = check_dir(&content());
    assert!(!f.is_empty(), "the sample content has findings to check");
    assert_rules_from_table(&f, "content/");
}

/// Each entry of the hostile regression corpus as the kep.yaml, and as the
/// README, of a KEP of its own.
#[test]
fn hostile_input_findings_come_from_the_table() {
    let (_tmp, root) = content_copy();
    let text = include_str!("../fixtures/fuzz-hostile.txt");
    let entries: Vec<&str> = text.split("\n%%%%\n").collect();
    assert!(entries.len() > 10, "the hostile corpus is there");
    for (i, entry) in entries.iter().enumerate() {
        let dir = root.join(format!("keps/sig-node/{}-hostile-{i}", 8000 + i));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("kep.yaml"), entry).unwrap();
        std::fs::write(dir.join("README.md"), entry).unwrap();
        let prose = root.join(format!("keps/sig-node/{}-prose-{i}", 9000 + i));
        std::fs::create_dir_all(&prose).unwrap();
        let meta = format!(
            "title: Hostile {i}\nkep-number: {}\nauthors: [\"@a\"]\nowning-sig: sig-node\nstatus: implementable\nstage: alpha\nlatest-milestone: v1.30\nmilestone:\n  alpha: v1.30\n",
            9000 + i
        );
        std::fs::write(prose.join("kep.yaml"), meta).unwrap();
        std::fs::write(
            prose.join("README.md"),
            format!(
                "# Hostile\n\n<!-- toc -->\n- [x](#y)\n<!-- /toc -->\n\n## Summary\n\n{entry}\n"
            ),
        )
        .unwrap();
    }
    let f = check_dir(&root);
    assert!(
        f.iter().any(|x| x.path.contains("-hostile-")),
        "the hostile KEPs were checked"
    );
    assert_rules_from_table(&f, "hostile corpus");
}
