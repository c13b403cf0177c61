//! The hostile KEPs of the announcement draft's tests
//! (tests/fixtures/announcement-hostile.txt: one title, Summary and
//! directory name a line), as a repository: shared by the announcement and
//! the issue comments' tests, and the comments' browser test.

use std::path::Path;

const HOSTILE: &str = include_str!("../fixtures/announcement-hostile.txt");

/// The fixture's lines (comments left out).
pub fn hostile() -> Vec<&'static str> {
    HOSTILE.lines().filter(|l| !l.starts_with("# ")).collect()
}

/// `s` with every ASCII punctuation backslash-escaped: in a README it is
/// Markdown whose text is `s`.
fn escaped(s: &str) -> String {
    s.chars()
        .flat_map(|c| match c.is_ascii_punctuation() {
            true => vec!['\\', c],
            false => vec![c],
        })
        .collect()
}

/// A repository of one alpha KEP for v1.36 per hostile line: the line is its
/// title, its Summary's text and (as far as a file name can hold it) its
/// directory name; the first also names a feature gate.
pub fn hostile_repo(root: &Path) {
    for (i, line) in hostile().into_iter().enumerate() {
        let n = 4800 + i;
        let name: String = line
            .chars()
            .filter(|c| *c != '/' && !c.is_control())
            .take(60)
            .collect();
        let dir = root.join(format!("keps/sig-x/{n}-{name}"));
        std::fs::create_dir_all(&dir).unwrap();
        let title = serde_json::to_string(line).unwrap();
        let gate = if i == 0 { title.as_str() } else { "Gate" };
        let yaml = format!(
            "title: {title}\nkep-number: {n}\nauthors: [\"@a\"]\nowning-sig: sig-x\n\
             status: implementable\ncreation-date: 2024-09-18\nlast-updated: 2026-01-27\n\
             reviewers: [\"@b\"]\napprovers: [\"@c\"]\nstage: alpha\nlatest-milestone: \"v1.36\"\n\
             milestone:\n  alpha: \"v1.36\"\nfeature-gates:\n  - name: {gate}\n    components: [kubelet]\n"
        );
        std::fs::write(dir.join("kep.yaml"), yaml).unwrap();
        let readme = format!("# KEP-{n}: x\n\n## Summary\n\n{}\n", escaped(line));
        std::fs::write(dir.join("README.md"), readme).unwrap();
    }
}
