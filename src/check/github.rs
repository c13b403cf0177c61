//! Findings → GitHub Actions workflow commands
//! (`::error file=…,line=…,title=…::message`), which GitHub shows as
//! annotations on the pull request's diff.
//!
//! Escaping follows the runner's rules: in the message `%`, `\r` and `\n`
//! become `%25`, `%0D` and `%0A`; in a property value `:` and `,` also
//! become `%3A` and `%2C`. KEP text is untrusted, so without this a message
//! could end its command early or start another one.

use std::fmt::Write as _;

use crate::finding::{Finding, Severity};

/// Escape the data part of a workflow command (after `::`).
/// Control characters other than CR and LF (an ANSI or OSC escape in a
/// directory name) are shown as `\u{1b}` first: the log prints the data.
pub fn escape_data(s: &str) -> String {
    let shown: String = s
        .chars()
        .map(|c| match c {
            '\r' | '\n' => c.to_string(),
            c if crate::escape::is_control(c) => {
                crate::escape::terminal(&c.to_string()).into_owned()
            }
            c => c.to_string(),
        })
        .collect();
    shown
        .replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escape a property value (`file=…`, `title=…`).
/// A path's CR and LF are shown (`\u{a}`) too: a file name is one line.
pub fn escape_property(s: &str) -> String {
    escape_data(&crate::escape::terminal(s))
        .replace(':', "%3A")
        .replace(',', "%2C")
}

/// One workflow command per finding, then `summary` as a plain log line.
pub fn render(findings: &[Finding], summary: &str) -> String {
    let mut out = String::new();
    for f in findings {
        let command = match f.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        let _ = write!(out, "::{command} file={}", escape_property(&f.path));
        if let Some(line) = f.line {
            let _ = write!(out, ",line={line}");
        }
        let title = format!("kepsite {}", f.rule);
        let mut message = f.message.clone();
        if let Some(h) = &f.hint {
            message.push_str("\nhelp: ");
            message.push_str(h);
        }
        let _ = writeln!(
            out,
            ",title={}::{}",
            escape_property(&title),
            escape_data(&message)
        );
    }
    out.push_str(summary);
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_and_properties_are_escaped() {
        assert_eq!(escape_data("100% done\r\nnext"), "100%25 done%0D%0Anext");
        assert_eq!(escape_data("a:b,c"), "a:b,c", "data keeps : and ,");
        assert_eq!(
            escape_property("a:b,c%d\ne"),
            "a%3Ab%2Cc%25d\\u{a}e",
            "properties escape : and , too, and a path's newline is shown"
        );
        assert_eq!(escape_data("a\u{1b}[2Jb\tc"), "a\\u{1b}[2Jb\\u{9}c");
        // `%` first, so an escape already in the text is not undone.
        assert_eq!(escape_data("%0A"), "%250A");
    }

    #[test]
    fn a_finding_cannot_inject_a_command() {
        let f = Finding::error(
            "status-enum",
            "keps/sig-a/1-x,line=1::/kep.yaml",
            "bad\n::error file=evil::pwned",
        )
        .at(Some(3));
        let out = render(&[f], "done");
        assert_eq!(
            out,
            "::error file=keps/sig-a/1-x%2Cline=1%3A%3A/kep.yaml,line=3,title=kepsite status-enum\
             ::bad%0A::error file=evil::pwned\ndone\n"
        );
        assert_eq!(out.lines().count(), 2, "one command line, one summary line");
    }
}
