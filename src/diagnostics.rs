//! Findings → text for people (rustc style, coloured on a terminal) or JSON
//! for machines. The CI formats live in `crate::check`.

use std::fmt::Write as _;

use serde::Serialize;

use crate::finding::{Finding, Severity};
use crate::model::Model;

/// Counts shown under the findings.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// KEPs checked.
    pub keps: usize,
    /// Error findings.
    pub errors: usize,
    /// Warning findings.
    pub warnings: usize,
}

impl Summary {
    /// Count `findings` over `keps` KEPs.
    pub fn of(keps: usize, findings: &[Finding]) -> Self {
        let errors = findings
            .iter()
            .filter(|f| f.severity == Severity::Error)
            .count();
        Summary {
            keps,
            errors,
            warnings: findings.len() - errors,
        }
    }
}

struct Style {
    on: bool,
}

impl Style {
    fn paint(&self, code: &str, s: &str) -> String {
        if self.on {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }
}

/// Render findings in the style of rustc diagnostics.
pub fn human(model: &Model, findings: &[Finding], color: bool) -> String {
    let st = Style { on: color };
    let mut out = String::new();
    let mut lines_of: std::collections::HashMap<&str, (Vec<&str>, usize)> =
        std::collections::HashMap::new();
    for f in findings {
        let (label, code) = match f.severity {
            Severity::Error => ("error", "1;31"),
            Severity::Warning => ("warning", "1;33"),
        };
        let _ = writeln!(
            out,
            "{}{} {}",
            st.paint(code, &format!("{label}[{}]", f.rule)),
            st.paint("1", ":"),
            st.paint("1", &crate::escape::terminal(&f.message))
        );
        // Names are data: a control character in a path is shown, not sent.
        let path = crate::escape::terminal(&f.path);
        let loc = match f.line {
            Some(l) => format!("{path}:{l}"),
            None => path.into_owned(),
        };
        let line_no = f.line.map(|l| l.to_string()).unwrap_or_default();
        let gutter = " ".repeat(line_no.len().max(1));
        let _ = writeln!(out, "{gutter}{} {loc}", st.paint("1;34", "-->"));
        // Each file's lines are split once: a kep.yaml with thousands of
        // findings is read once, not once per finding.
        let src = f.line.and_then(|l| {
            let (lines, offset) = lines_of.entry(f.path.as_str()).or_insert_with(|| {
                model
                    .source_text(&f.path)
                    .map(|(t, o)| (t.lines().collect(), o))
                    .unwrap_or_default()
            });
            lines.get(l.checked_sub(1 + *offset)?).copied()
        });
        if let Some(src) = src {
            let bar = st.paint("1;34", "|");
            let _ = writeln!(out, "{gutter} {bar}");
            let _ = writeln!(
                out,
                "{} {bar} {}",
                st.paint("1;34", &line_no),
                crate::escape::terminal(src.trim_end())
            );
            let _ = writeln!(out, "{gutter} {bar}");
        }
        if let Some(h) = &f.hint {
            let _ = writeln!(
                out,
                "{gutter} {} {}: {}",
                st.paint("1;34", "="),
                st.paint("1", "help"),
                crate::escape::terminal(h)
            );
        }
        out.push('\n');
    }
    out
}

/// Rules whose findings are advice for authors and reviewers (never a
/// freeze requirement): grouped one line per KEP unless `verbose`.
pub const ADVICE_RULES: &[&str] = &["prr-unanswered"];

/// `check`'s report for people: the summary line and the count per rule
/// first, then every error and warning in full, then the advice grouped one
/// line per KEP (each finding in full with `verbose`), and the summary line
/// again at the end, where a terminal leaves it in view.
pub fn human_report(
    model: &Model,
    findings: &[Finding],
    summary: &str,
    color: bool,
    verbose: bool,
) -> String {
    let mut out = format!("{summary}\n");
    let mut by_rule: std::collections::BTreeMap<(&str, &str), usize> = Default::default();
    for f in findings {
        let sev = match f.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        *by_rule.entry((sev, f.rule)).or_default() += 1;
    }
    for ((sev, rule), n) in &by_rule {
        let advice = if ADVICE_RULES.contains(rule) {
            " (advice)"
        } else {
            ""
        };
        let _ = writeln!(out, "  {n:>5} {sev}[{rule}]{advice}");
    }
    out.push('\n');
    let (advice, rest): (Vec<Finding>, Vec<Finding>) = findings
        .iter()
        .cloned()
        .partition(|f| !verbose && ADVICE_RULES.contains(&f.rule));
    out.push_str(&human(model, &rest, color));
    if !advice.is_empty() {
        out.push_str(&advice_lines(&advice));
        out.push('\n');
    }
    out.push_str(summary);
    out.push('\n');
    out
}

/// Advice findings, one line per file: how many, which lines, the first
/// message; `--verbose` shows each.
fn advice_lines(advice: &[Finding]) -> String {
    let mut by_file: std::collections::BTreeMap<(&str, &str), Vec<&Finding>> = Default::default();
    for f in advice {
        by_file
            .entry((f.rule, f.path.as_str()))
            .or_default()
            .push(f);
    }
    let mut out = format!(
        "advice (not freeze requirements; `--verbose` shows each): {} finding{} in {} file{}\n",
        advice.len(),
        if advice.len() == 1 { "" } else { "s" },
        by_file.len(),
        if by_file.len() == 1 { "" } else { "s" },
    );
    for ((rule, path), fs) in &by_file {
        let lines: std::collections::BTreeSet<usize> = fs.iter().filter_map(|f| f.line).collect();
        let lines: Vec<String> = lines.iter().map(usize::to_string).collect();
        let _ = writeln!(
            out,
            "  {}: {} {rule}{}",
            crate::escape::terminal(path),
            fs.len(),
            if lines.is_empty() {
                String::new()
            } else {
                format!(
                    " (line{} {})",
                    if lines.len() == 1 { "" } else { "s" },
                    lines.join(", ")
                )
            }
        );
    }
    out
}

/// The closing line, e.g. `654 KEPs checked: 12 errors, 130 warnings`, or
/// with `since` (a changed-only check) `2 KEPs changed since 1a2b3c4d5e6f: …`.
pub fn summary_line(s: Summary, since: Option<&str>, color: bool) -> String {
    let st = Style { on: color };
    let scope = match since {
        Some(base) => format!("changed since {base}"),
        None => "checked".to_string(),
    };
    let text = format!(
        "{} {scope}: {} error{}, {} warning{}",
        crate::view::keps(s.keps),
        s.errors,
        if s.errors == 1 { "" } else { "s" },
        s.warnings,
        if s.warnings == 1 { "" } else { "s" },
    );
    if s.errors > 0 {
        st.paint("1;31", &text)
    } else if s.warnings > 0 {
        st.paint("1;33", &text)
    } else {
        st.paint("1;32", &text)
    }
}

#[derive(Serialize)]
struct JsonReport<'a> {
    summary: Summary,
    #[serde(skip_serializing_if = "Option::is_none")]
    changes: Option<serde_json::Value>,
    findings: &'a [Finding],
}

/// Findings as a JSON document `{ "summary": {...}, "findings": [...] }`,
/// with `"changes"` between them for a changed-only check.
pub fn json(s: Summary, findings: &[Finding], changes: Option<serde_json::Value>) -> String {
    serde_json::to_string_pretty(&JsonReport {
        summary: s,
        changes,
        findings,
    })
    .unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
        + "\n"
}

#[cfg(test)]
mod hostile {
    use crate::analysis::{analyze, findings};
    use crate::kep::metadata::LINE_LOOKUPS;
    use crate::model::{SOURCE_TEXTS, from_snapshot};
    use crate::repo::RepoSnapshot;

    /// `check` on a kep.yaml with `n` unknown keys: (findings, key lookups,
    /// source texts split) for the default report.
    fn run(n: usize) -> (usize, usize, usize) {
        let mut yaml = String::from(
            "title: X\nkep-number: 100\nowning-sig: sig-node\nstatus: provisional\n\
             creation-date: 2024-01-01\nauthors: [\"@a\"]\nreviewers: [\"@b\"]\napprovers: [\"@c\"]\n",
        );
        for i in 0..n {
            yaml.push_str(&format!("unknown_key_{i}: v\n"));
        }
        let snap = RepoSnapshot::from_files(&[
            ("keps/sig-node/100-x/kep.yaml", yaml.as_str()),
            (
                "keps/sig-node/100-x/README.md",
                "# X\n\n## Summary\n\nHi.\n",
            ),
        ]);
        let model = from_snapshot(snap, None);
        LINE_LOOKUPS.with(|c| c.set(0));
        SOURCE_TEXTS.with(|c| c.set(0));
        let a = analyze(&model, None, None);
        let f = findings::check_with(&model, &a);
        let out = super::human(&model, &f, false);
        assert!(out.contains("unknown_key_0: v"), "the source line is shown");
        // Listed up to the cap, then one finding counts the rest.
        let listed = f.iter().filter(|x| x.rule == "unknown-field").count();
        assert_eq!(listed, crate::finding::MAX_PER_RULE_AND_FILE + 1);
        let rest = format!(
            "{} more `unknown-field` findings in this file",
            n - crate::finding::MAX_PER_RULE_AND_FILE
        );
        assert!(f.iter().any(|x| x.message.starts_with(&rest)), "{rest}");
        let unknown = n;
        (
            unknown,
            LINE_LOOKUPS.with(|c| c.get()),
            SOURCE_TEXTS.with(|c| c.get()),
        )
    }

    /// Issue 37: 49,000 unknown keys took 27 s of CPU, each finding looking
    /// its key up along the file's keys and splitting the file again to show
    /// its line. Counted, not timed: the work per finding is constant.
    #[test]
    fn check_is_linear_in_a_kep_yaml_s_keys() {
        let (small, small_lookups, small_texts) = run(2_000);
        let (large, large_lookups, large_texts) = run(8_000);
        assert_eq!(large, 4 * small);
        // Key lookups do not grow with the unknown keys (the known rules
        // look up their own keys), and each file is split once.
        assert!(
            large_lookups <= small_lookups + 10,
            "{small_lookups} -> {large_lookups}"
        );
        assert!(
            small_texts <= 2 && large_texts <= 2,
            "{small_texts}, {large_texts}"
        );
    }
}
