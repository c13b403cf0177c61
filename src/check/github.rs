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

/// The annotations of one kind (error, warning) GitHub shows for one step:
/// it drops the rest without a word (and 50 in a job).
pub const ANNOTATIONS_PER_KIND: usize = 10;

/// A workflow command per finding, up to [`ANNOTATIONS_PER_KIND`] errors and
/// as many warnings (in order, the errors first chosen from the start); the
/// others as plain log lines for people, escaped as the human format's
/// values are, and one notice that counts them; then `summary` as a plain
/// log line.
pub fn render(findings: &[Finding], summary: &str) -> String {
    let mut out = String::new();
    let (mut errors, mut warnings) = (0, 0);
    let mut plain = Vec::new();
    for f in findings {
        let (command, n) = match f.severity {
            Severity::Error => ("error", &mut errors),
            Severity::Warning => ("warning", &mut warnings),
        };
        *n += 1;
        if *n > ANNOTATIONS_PER_KIND {
            plain.push(f);
            continue;
        }
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
    if !plain.is_empty() {
        let _ = writeln!(
            out,
            "::notice title=kepsite check::{} more finding{} than GitHub shows as annotations \
             ({ANNOTATIONS_PER_KIND} errors and {ANNOTATIONS_PER_KIND} warnings a step) \
             follow in this log",
            plain.len(),
            if plain.len() == 1 { "" } else { "s" }
        );
        for f in plain {
            out.push_str(&log_line(f));
        }
    }
    out.push_str(summary);
    out.push('\n');
    out
}

/// A finding as one line of the log (no workflow command): every value
/// from input through [`crate::escape::terminal`], so that none starts a
/// line of its own, and a line that begins with the severity.
fn log_line(f: &Finding) -> String {
    use crate::escape::terminal;
    let at = match f.line {
        Some(l) => format!("{}:{l}", terminal(&f.path)),
        None => terminal(&f.path).into_owned(),
    };
    let mut line = format!(
        "{}[{}] {at}: {}",
        f.severity.as_str(),
        f.rule,
        terminal(&f.message)
    );
    if let Some(h) = &f.hint {
        line.push_str(" (help: ");
        line.push_str(&terminal(h));
        line.push(')');
    }
    line.push('\n');
    line
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

    #[test]
    fn annotations_stop_at_github_s_limit_and_the_rest_are_logged() {
        let mut fs: Vec<Finding> = (0..25)
            .map(|i| {
                Finding::warning(
                    "toc-mismatch",
                    "keps/a/README.md",
                    format!("w{i}\n::error x"),
                )
            })
            .collect();
        fs.extend(
            (0..12).map(|i| Finding::error("status-enum", "keps/a/kep.yaml", format!("e{i}"))),
        );
        let out = render(&fs, "done");
        assert_eq!(
            out.lines().filter(|l| l.starts_with("::warning ")).count(),
            10
        );
        assert_eq!(
            out.lines().filter(|l| l.starts_with("::error ")).count(),
            10
        );
        assert!(out.contains("::notice title=kepsite check::17 more findings than GitHub shows"));
        assert!(out.contains("warning[toc-mismatch] keps/a/README.md: w24\\u{a}::error x\n"));
        assert!(out.contains("error[status-enum] keps/a/kep.yaml: e11\n"));
        assert_eq!(out.lines().filter(|l| l.starts_with("::")).count(), 21);
    }
}
