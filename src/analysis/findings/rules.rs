//! The rules kepsite knows: id, severity, origin and summary of each.

use crate::finding::Severity;

/// A rule: id, severity, where it comes from, what it checks.
#[derive(Debug, Clone, Copy, serde::Serialize)]
pub struct Rule {
    /// Stable id used in findings and `--rule`.
    pub id: &'static str,
    /// Default severity.
    pub severity: Severity,
    /// `ci` (enforced by the enhancements repo's CI), `code` (defined in its
    /// Go code, not run), `kepsite` (ours) or `load` (input could not be read).
    pub origin: &'static str,
    /// One line on what it checks.
    pub summary: &'static str,
}

const fn rule(
    id: &'static str,
    severity: Severity,
    origin: &'static str,
    summary: &'static str,
) -> Rule {
    Rule {
        id,
        severity,
        origin,
        summary,
    }
}

use Severity::{Error as E, Warning as W};

/// Every rule kepsite knows.
pub const RULES: &[Rule] = &[
    rule(
        "path-control-character",
        E,
        "load",
        "a file or directory name under keps/ holds control characters (escape sequences, newlines)",
    ),
    rule(
        "file-unreadable",
        E,
        "load",
        "a file under keps/ cannot be read",
    ),
    rule(
        "file-too-large",
        E,
        "load",
        "a file is over 10 MB and is not read",
    ),
    rule("file-not-utf8", E, "load", "a file is not valid UTF-8"),
    rule(
        "symlink-outside",
        E,
        "load",
        "a symlink leaves the repository and is not followed",
    ),
    rule(
        "yaml-parse",
        E,
        "ci",
        "kep.yaml (or front matter) does not parse",
    ),
    rule(
        "front-matter-unterminated",
        E,
        "load",
        "a single-file KEP's front matter is opened with `---` and never closed",
    ),
    rule(
        "kep-metadata-nonstandard",
        W,
        "load",
        "a single-file KEP's metadata is read from a heading's front matter or a yaml block",
    ),
    rule(
        "kep-file-without-metadata",
        W,
        "load",
        "a markdown file named like a KEP (`keps/<sig>/<number>-<slug>.md`) has no metadata",
    ),
    rule(
        "prr-file-parse",
        E,
        "ci",
        "a prod-readiness file does not parse",
    ),
    rule(
        "owners-aliases-parse",
        E,
        "ci",
        "OWNERS_ALIASES does not parse",
    ),
    rule(
        "readme-without-kep-yaml",
        E,
        "ci",
        "a KEP README has no kep.yaml beside it",
    ),
    rule(
        "required-field",
        E,
        "ci",
        "title, kep-number, authors, owning-sig, approvers and status are set",
    ),
    rule(
        "stage-required",
        E,
        "ci",
        "implementable and implemented KEPs name a stage",
    ),
    rule(
        "latest-milestone-required",
        E,
        "ci",
        "implementable and implemented KEPs name a latest-milestone",
    ),
    rule(
        "prr-file-missing",
        E,
        "ci",
        "a KEP that needs PRR has keps/prod-readiness/<owning-sig>/<n>.yaml",
    ),
    rule(
        "prr-stage-missing",
        E,
        "ci",
        "the PRR file approves the KEP's current stage",
    ),
    rule(
        "prr-approver-invalid",
        E,
        "ci",
        "the PRR approver is in OWNERS_ALIASES prod-readiness-approvers",
    ),
    rule(
        "status-enum",
        E,
        "code",
        "status is one of the seven statuses",
    ),
    rule(
        "stage-enum",
        E,
        "code",
        "stage is alpha, beta, stable, deprecated, disabled or removed",
    ),
    rule(
        "implemented-not-stable",
        E,
        "code",
        "an implemented KEP is at stage stable",
    ),
    rule(
        "owning-sig-unknown",
        E,
        "code",
        "owning-sig exists in sigs.yaml",
    ),
    rule(
        "participating-sig-unknown",
        W,
        "code",
        "participating SIGs exist in sigs.yaml",
    ),
    rule(
        "kep-yaml-without-readme",
        E,
        "kepsite",
        "kep.yaml has a README.md beside it",
    ),
    rule(
        "dir-number-mismatch",
        E,
        "kepsite",
        "the directory number equals kep-number",
    ),
    rule(
        "duplicate-kep-number",
        E,
        "kepsite",
        "no two KEPs share a number",
    ),
    rule(
        "date-invalid",
        E,
        "kepsite",
        "creation-date and last-updated are real YYYY-MM-DD dates",
    ),
    rule(
        "date-format",
        W,
        "kepsite",
        "dates are zero-padded YYYY-MM-DD",
    ),
    rule(
        "milestone-invalid",
        W,
        "kepsite",
        "milestones look like vX.Y",
    ),
    rule(
        "milestone-order",
        W,
        "kepsite",
        "alpha ≤ beta ≤ stable milestones",
    ),
    rule(
        "latest-milestone-behind",
        W,
        "kepsite",
        "latest-milestone is not before the current stage's milestone",
    ),
    rule(
        "template-placeholder",
        W,
        "kepsite",
        "no template placeholder (TBD, @jane.doe, yyyy-mm-dd, a|b|c) is left in kep.yaml",
    ),
    rule(
        "placeholder-title",
        W,
        "kepsite",
        "kep.yaml's title is not the template's placeholder (`KEP Template`; the views show the README's title)",
    ),
    rule(
        "sig-invalid",
        E,
        "kepsite",
        "owning-sig can name a SIG page: 1-64 lowercase letters, digits and `-`",
    ),
    rule(
        "handle-invalid",
        W,
        "kepsite",
        "authors, reviewers, approvers and prr-approvers are GitHub logins (1-39 letters, digits, `-`, `_`)",
    ),
    rule(
        "handles-too-many",
        W,
        "kepsite",
        "authors, reviewers and approvers name at most 30 handles each, prr-approvers 3 (the rest get no pages)",
    ),
    rule(
        "stage-vs-target",
        W,
        "kepsite",
        "stage is the stage whose milestone names the release in progress (the stage the KEP targets)",
    ),
    rule(
        "milestone-vs-code",
        W,
        "kepsite",
        "with --kubernetes: each milestone.<stage> names the release whose code (feature gates) reached the stage",
    ),
    rule(
        "unknown-field",
        W,
        "kepsite",
        "kep.yaml has only known fields (the Go tool refuses others)",
    ),
    rule(
        "prr-wrong-sig",
        E,
        "kepsite",
        "the PRR file sits under the owning SIG's directory",
    ),
    rule(
        "prr-number-mismatch",
        W,
        "kepsite",
        "a PRR file's kep-number equals its file name",
    ),
    rule(
        "prr-orphan",
        W,
        "kepsite",
        "a PRR file belongs to an existing KEP",
    ),
    rule(
        "prr-approver-unknown",
        W,
        "kepsite",
        "any PRR approver (not only the current stage's) is a PRR approver",
    ),
    rule(
        "image-broken",
        W,
        "kepsite",
        "an image the README shows is a file whose header does not read as an image (the portal links it instead)",
    ),
    rule(
        "image-too-large",
        W,
        "kepsite",
        "an image the README shows is over 5 MB (the portal links it instead of embedding it)",
    ),
    rule(
        "toc-mismatch",
        W,
        "kepsite",
        "the <!-- toc --> list matches the README's headings",
    ),
    rule(
        "prr-unanswered",
        W,
        "kepsite",
        "an implementable KEP answers every PRR question required at its stage",
    ),
    rule(
        "readme-too-large",
        W,
        "kepsite",
        "a README fits on its portal page (1 MiB; past it the page shows the start and links to the rest)",
    ),
];

/// The rule with this id.
pub fn rule_by_id(id: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.id == id)
}
