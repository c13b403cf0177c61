//! `Finding`: one problem in the input (rule id, severity, path, line, message,
//! hint). Problems in KEPs are data that is collected, shown and exported,
//! never an error that stops a run.

use serde::Serialize;

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Fails `check`.
    Error,
    /// Reported; fails `check` only with `--deny warnings`.
    Warning,
}

impl Severity {
    /// `error` or `warning`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

/// One problem found in the repository.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// Stable rule id, e.g. `status-enum`.
    pub rule: &'static str,
    /// Error or warning.
    pub severity: Severity,
    /// Repository-relative path of the file at fault.
    pub path: String,
    /// 1-based line, where known.
    pub line: Option<usize>,
    /// The KEP number this finding belongs to, where known.
    pub kep: Option<u32>,
    /// What is wrong.
    pub message: String,
    /// How to fix it.
    pub hint: Option<String>,
}

impl Finding {
    /// An error finding.
    pub fn error(rule: &'static str, path: impl Into<String>, message: impl Into<String>) -> Self {
        Self::new(rule, Severity::Error, path, message)
    }

    /// A warning finding.
    pub fn warning(
        rule: &'static str,
        path: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Self::new(rule, Severity::Warning, path, message)
    }

    fn new(
        rule: &'static str,
        severity: Severity,
        path: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Finding {
            rule,
            severity,
            path: path.into(),
            line: None,
            kep: None,
            message: message.into(),
            hint: None,
        }
    }

    /// Set the line.
    pub fn at(mut self, line: Option<usize>) -> Self {
        self.line = line;
        self
    }

    /// Set the KEP number.
    pub fn kep(mut self, kep: Option<u32>) -> Self {
        self.kep = kep;
        self
    }

    /// Set the hint.
    pub fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }
}

/// The most findings of one rule listed for one file: the real corpus has
/// at most 25 (`prr-unanswered`). A README of 128,706 headings made as
/// many `toc-mismatch` warnings (30 MB of Markdown, 45 MB of JSON, one
/// GitHub annotation each); past this number one finding says how many more
/// there are.
pub const MAX_PER_RULE_AND_FILE: usize = 50;

/// `findings` (sorted, see [`sort`]) with at most
/// [`MAX_PER_RULE_AND_FILE`] of each rule for each file: the rest of a
/// rule's findings in a file become one finding of the rule, at the first
/// one's line, that says how many there are. Sorted again.
pub fn cap(findings: Vec<Finding>) -> Vec<Finding> {
    // (rule, file) → how many seen, and where its summary is in `more`.
    let mut seen: std::collections::HashMap<(&'static str, String), (usize, usize)> =
        Default::default();
    let mut kept = Vec::with_capacity(findings.len());
    let mut more: Vec<(Finding, usize)> = Vec::new();
    for f in findings {
        let (n, at) = seen.entry((f.rule, f.path.clone())).or_default();
        *n += 1;
        if *n <= MAX_PER_RULE_AND_FILE {
            kept.push(f);
        } else if *n == MAX_PER_RULE_AND_FILE + 1 {
            *at = more.len();
            more.push((f, 1));
        } else {
            more[*at].1 += 1;
        }
    }
    if more.is_empty() {
        return kept;
    }
    for (f, n) in more {
        let message = format!(
            "{n} more `{}` finding{} in this file, not listed (kepsite lists {MAX_PER_RULE_AND_FILE} of a rule per file)",
            f.rule,
            if n == 1 { "" } else { "s" }
        );
        kept.push(Finding {
            message,
            hint: Some("fix the ones listed and check again".into()),
            ..f
        });
    }
    sort(&mut kept);
    kept
}

/// Findings in their canonical order: by path, line, rule and message.
pub fn sort(findings: &mut [Finding]) {
    findings.sort_by(|a, b| {
        (&a.path, a.line, a.rule, &a.message).cmp(&(&b.path, b.line, b.rule, &b.message))
    });
}
