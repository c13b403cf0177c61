//! Findings → a JUnit XML report, which GitLab (`artifacts:reports:junit`)
//! and Prow (`$ARTIFACTS/junit_*.xml`) show as test results.
//!
//! One test case per KEP checked (class `keps.<sig>`, name `KEP-<n> <path>`),
//! and one per other file with findings. A case fails when it has errors;
//! its warnings are listed in its `system-out`, so they are seen without
//! failing it (unless `--deny warnings`, where they fail it too).

use std::fmt::Write as _;

use quick_xml::escape::escape;

use crate::finding::{Finding, Severity};

/// One test case: a KEP or a file, and its findings.
#[derive(Debug, Clone)]
pub struct Case<'a> {
    /// `keps.<sig>` for a KEP, `files` for anything else.
    pub class: String,
    /// `KEP-<n> <path>`, or the file's path.
    pub name: String,
    /// Its findings, in canonical order.
    pub findings: Vec<&'a Finding>,
}

/// XML text: escaped, with the characters XML 1.0 cannot hold dropped.
fn text(s: &str) -> String {
    let clean: String = s
        .chars()
        .filter(|&c| c == '\t' || c == '\n' || c == '\r' || c >= ' ')
        .filter(|&c| !matches!(c, '\u{FFFE}' | '\u{FFFF}'))
        .collect();
    escape(clean.as_str()).into_owned()
}

/// A finding on one line (and its help on the next): the values from input
/// through [`crate::escape::terminal`], so that a newline in one cannot
/// start a line of its own where the report is printed to a CI log.
fn describe(f: &Finding) -> String {
    use crate::escape::terminal;
    let path = terminal(&f.path);
    let loc = match f.line {
        Some(l) => format!("{path}:{l}"),
        None => path.into_owned(),
    };
    let mut s = format!(
        "{}[{}] {loc}: {}",
        f.severity.as_str(),
        f.rule,
        terminal(&f.message)
    );
    if let Some(h) = &f.hint {
        s.push_str("\n  help: ");
        s.push_str(&terminal(h));
    }
    s
}

/// The report; `deny_warnings` makes warnings fail their case too.
pub fn render(cases: &[Case], deny_warnings: bool) -> String {
    let fails = |f: &Finding| f.severity == Severity::Error || deny_warnings;
    let failures = cases
        .iter()
        .filter(|c| c.findings.iter().any(|f| fails(f)))
        .count();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"kepsite check\" tests=\"{}\" failures=\"{failures}\" errors=\"0\">",
        cases.len()
    );
    let _ = writeln!(
        out,
        "  <testsuite name=\"kepsite check\" tests=\"{}\" failures=\"{failures}\" errors=\"0\" skipped=\"0\">",
        cases.len()
    );
    for c in cases {
        let _ = write!(
            out,
            "    <testcase classname=\"{}\" name=\"{}\"",
            text(&c.class),
            text(&c.name)
        );
        if c.findings.is_empty() {
            out.push_str("/>\n");
            continue;
        }
        out.push_str(">\n");
        let failing: Vec<&Finding> = c.findings.iter().copied().filter(|f| fails(f)).collect();
        if let Some(first) = failing.first() {
            let body: Vec<String> = failing.iter().map(|f| describe(f)).collect();
            let _ = writeln!(
                out,
                "      <failure type=\"{}\" message=\"{}\">{}</failure>",
                text(first.rule),
                text(&format!(
                    "{} finding{}: {}",
                    failing.len(),
                    if failing.len() == 1 { "" } else { "s" },
                    crate::escape::terminal(&first.message)
                )),
                text(&body.join("\n"))
            );
        }
        let rest: Vec<String> = c
            .findings
            .iter()
            .filter(|f| !fails(f))
            .map(|f| describe(f))
            .collect();
        if !rest.is_empty() {
            let _ = writeln!(
                out,
                "      <system-out>{}</system-out>",
                text(&rest.join("\n"))
            );
        }
        out.push_str("    </testcase>\n");
    }
    out.push_str("  </testsuite>\n</testsuites>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped_and_control_characters_dropped() {
        assert_eq!(
            text("a<b & \"c\" 'd'\u{1}\u{8}\n"),
            "a&lt;b &amp; &quot;c&quot; &apos;d&apos;\n"
        );
    }
}
