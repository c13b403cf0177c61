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

/// Sort findings into the canonical order: path, line, rule, message.
pub fn sort(findings: &mut [Finding]) {
    findings.sort_by(|a, b| {
        (&a.path, a.line, a.rule, &a.message).cmp(&(&b.path, b.line, b.rule, &b.message))
    });
}
