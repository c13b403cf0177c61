//! Validation rules: [`Model`] → `Vec<Finding>`.
//!
//! Three families, listed in [`RULES`]: the rules the enhancements repo's CI
//! enforces, the rules its Go code defines but CI never runs, and kepsite's
//! own. Each rule is a small function over one KEP (run in parallel) or over
//! the whole model (duplicates, orphan files).

use std::collections::BTreeMap;

use rayon::prelude::*;

use crate::analysis::tracking::{Analysis, KepAnalysis};
use crate::finding::{self, Finding, Severity};
use crate::kep::Kep;
use crate::kep::document::TocMismatch;
use crate::kep::metadata::{Release, Stage, Status};
use crate::model::Model;

/// Valid `status` values, as written.
pub fn statuses() -> Vec<&'static str> {
    Status::ALL.iter().filter_map(Status::name).collect()
}

/// Valid `stage` values, as written.
pub fn stages() -> Vec<&'static str> {
    Stage::ALL.iter().filter_map(Stage::name).collect()
}

/// The first release whose KEPs need a production readiness review.
pub const PRR_SINCE: Release = Release::new(1, 21);

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
];

/// The rule with this id.
pub fn rule_by_id(id: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.id == id)
}

/// Run every rule over the model; findings in canonical order.
pub fn check(model: &Model) -> Vec<Finding> {
    check_with(model, &crate::analysis::analyze(model))
}

/// The metadata rules only (kep.yaml, PRR files, aliases), without the README
/// analysis: the same pass the enhancements repo's Go tooling makes.
pub fn check_metadata(model: &Model) -> Vec<Finding> {
    let mut out: Vec<Finding> = model.load_findings.clone();
    let per_kep: Vec<Vec<Finding>> = model.keps.par_iter().map(|k| check_kep(model, k)).collect();
    out.extend(per_kep.into_iter().flatten());
    out.extend(duplicates(model));
    out.extend(prr_files(model));
    finding::sort(&mut out);
    out
}

/// Run every rule, reusing an analysis of the same model.
pub fn check_with(model: &Model, analysis: &Analysis) -> Vec<Finding> {
    let mut out = check_metadata(model);
    let documents: Vec<Vec<Finding>> = model
        .keps
        .par_iter()
        .zip(analysis.keps.par_iter())
        .map(|(kep, a)| document_findings(kep, a))
        .collect();
    out.extend(documents.into_iter().flatten());
    finding::sort(&mut out);
    out
}

/// Whether a KEP needs a production readiness review: implementable or
/// implemented with latest-milestone ≥ v1.21.
pub fn prr_required(kep: &Kep) -> bool {
    matches!(kep.meta.status, Status::Implementable | Status::Implemented)
        && kep.meta.latest_release().is_some_and(|v| v >= PRR_SINCE)
}

/// All rules about one KEP.
pub fn check_kep(model: &Model, kep: &Kep) -> Vec<Finding> {
    let mut out = kep.load_findings.clone();
    if kep.meta_ok {
        required_fields(kep, &mut out);
        enums(kep, &mut out);
        numbers(kep, &mut out);
        dates(kep, &mut out);
        milestones(kep, &mut out);
        placeholders(kep, &mut out);
        unknown_fields(kep, &mut out);
        sigs(model, kep, &mut out);
        prr(model, kep, &mut out);
    }
    let n = kep.number();
    out.into_iter()
        .map(|f| {
            let k = f.kep.or(n);
            f.kep(k)
        })
        .collect()
}

fn at(kep: &Kep, rule: &'static str, key: &str, message: String) -> Finding {
    let sev = rule_by_id(rule).map(|r| r.severity).unwrap_or(E);
    let f = match sev {
        E => Finding::error(rule, &kep.metadata_path, message),
        W => Finding::warning(rule, &kep.metadata_path, message),
    };
    f.at(kep.line(key))
}

fn required_fields(kep: &Kep, out: &mut Vec<Finding>) {
    let m = &kep.meta;
    let missing: [(&str, bool); 6] = [
        ("title", m.title.is_empty()),
        ("kep-number", m.kep_number.is_empty()),
        ("authors", m.authors.is_empty()),
        ("owning-sig", m.owning_sig.is_empty()),
        ("approvers", m.approvers.is_empty()),
        ("status", m.status.is_unset()),
    ];
    for (key, is_missing) in missing {
        if is_missing {
            out.push(
                at(
                    kep,
                    "required-field",
                    key,
                    format!("required field `{key}` is missing or empty"),
                )
                .at(kep.line(key).or(Some(1)))
                .hint(format!("set `{key}:` in {}", file_kind(kep))),
            );
        }
    }
    let active = matches!(m.status, Status::Implementable | Status::Implemented);
    if active && m.stage.is_unset() {
        out.push(
            at(
                kep,
                "stage-required",
                "stage",
                format!("status is {} but no stage is set", m.status),
            )
            .at(kep.line("stage").or(kep.line("status")))
            .hint("set `stage:` to alpha, beta or stable"),
        );
    }
    if active && m.latest_milestone.is_empty() {
        out.push(
            at(
                kep,
                "latest-milestone-required",
                "latest-milestone",
                format!("status is {} but no latest-milestone is set", m.status),
            )
            .at(kep.line("latest-milestone").or(kep.line("status")))
            .hint("set `latest-milestone:` to the release being worked on, e.g. \"v1.36\""),
        );
    }
}

fn file_kind(kep: &Kep) -> &'static str {
    match kep.format {
        crate::kep::KepFormat::Directory => "kep.yaml",
        crate::kep::KepFormat::SingleFile => "the front matter",
    }
}

fn is_placeholder(v: &str) -> bool {
    v.contains('|') || v.eq_ignore_ascii_case("tbd") || v == "yyyy-mm-dd"
}

/// `field` holds `value`, which is none of `valid`: the finding, with the
/// nearest valid value as its hint.
fn not_one_of(
    kep: &Kep,
    rule: &'static str,
    field: &str,
    value: &str,
    valid: &[&'static str],
) -> Finding {
    let hint = suggestion(value, valid)
        .map(|s| format!("did you mean `{s}`?"))
        .unwrap_or_else(|| format!("use one of: {}", valid.join(", ")));
    at(
        kep,
        rule,
        field,
        format!("{field} `{value}` is not a valid {field}"),
    )
    .hint(hint)
}

fn enums(kep: &Kep, out: &mut Vec<Finding>) {
    let m = &kep.meta;
    if let Status::Invalid(value) = &m.status {
        out.push(not_one_of(kep, "status-enum", "status", value, &statuses()));
    }
    if let Stage::Invalid(value) = &m.stage {
        out.push(not_one_of(kep, "stage-enum", "stage", value, &stages()));
    }
    // The Go tooling's rule is strict: even a deprecation KEP is stable once implemented.
    if m.status == Status::Implemented && m.stage != Stage::Stable {
        out.push(
            at(
                kep,
                "implemented-not-stable",
                "stage",
                format!(
                    "status is implemented but stage is `{}`",
                    if m.stage.is_unset() { "(none)" } else { m.stage.as_str() }
                ),
            )
            .at(kep.line("stage").or(kep.line("status")))
            .hint("an implemented KEP has graduated: set `stage: stable`, or keep status implementable until it has"),
        );
    }
}

/// The closest valid value to a misspelt one (edit distance ≤ 3, or a value
/// that starts with a valid word such as `implemented (alpha)`).
fn suggestion(value: &str, valid: &[&'static str]) -> Option<&'static str> {
    let lower = value.trim().to_ascii_lowercase();
    if let Some(v) = valid.iter().find(|v| lower.starts_with(**v)) {
        return Some(v);
    }
    valid
        .iter()
        .map(|v| (edit_distance(&lower, v), *v))
        .filter(|(d, _)| *d <= 3)
        .min()
        .map(|(_, v)| v)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

fn numbers(kep: &Kep, out: &mut Vec<Finding>) {
    let written = crate::kep::parse_number(&kep.meta.kep_number);
    if let (Some(dir), Some(num)) = (kep.dir_number, written)
        && dir != num
    {
        out.push(
            at(
                kep,
                "dir-number-mismatch",
                "kep-number",
                format!("directory number {dir} differs from kep-number {num}"),
            )
            .hint("rename the directory or fix kep-number; links and PRR files use the number"),
        );
    }
}

fn duplicates(model: &Model) -> Vec<Finding> {
    let mut by_number: BTreeMap<u32, Vec<&Kep>> = BTreeMap::new();
    for k in &model.keps {
        if let Some(n) = k.number() {
            by_number.entry(n).or_default().push(k);
        }
    }
    let mut out = Vec::new();
    for (n, keps) in by_number {
        if keps.len() < 2 {
            continue;
        }
        let paths: Vec<&str> = keps.iter().map(|k| k.path.as_str()).collect();
        for k in &keps {
            out.push(
                at(
                    k,
                    "duplicate-kep-number",
                    "kep-number",
                    format!(
                        "KEP number {n} is used by {} KEPs: {}",
                        keps.len(),
                        paths.join(", ")
                    ),
                )
                .kep(Some(n))
                .hint("each KEP takes the number of its own enhancement issue"),
            );
        }
    }
    out
}

/// Whether `s` is a real calendar date `YYYY-MM-DD`.
pub fn is_valid_date(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let num = |r: std::ops::Range<usize>| s[r].parse::<u32>().ok();
    let (Some(y), Some(m), Some(d)) = (num(0..4), num(5..7), num(8..10)) else {
        return false;
    };
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&d) && (2014..=2100).contains(&y)
}

/// `2025-10-9` → `Some("2025-10-09")` when padding makes it a real date.
fn zero_padded(s: &str) -> Option<String> {
    let mut parts = s.split('-');
    let (y, m, d) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() || (m.len() == 2 && d.len() == 2) {
        return None;
    }
    let padded = format!("{y}-{m:0>2}-{d:0>2}");
    is_valid_date(&padded).then_some(padded)
}

fn dates(kep: &Kep, out: &mut Vec<Finding>) {
    for (key, value) in [
        ("creation-date", &kep.meta.creation_date),
        ("last-updated", &kep.meta.last_updated),
    ] {
        if value.is_empty() {
            continue;
        }
        if value.eq_ignore_ascii_case("yyyy-mm-dd") || value.eq_ignore_ascii_case("tbd") {
            out.push(
                at(
                    kep,
                    "date-invalid",
                    key,
                    format!("{key} is the template placeholder `{value}`"),
                )
                .hint("write the real date as YYYY-MM-DD"),
            );
        } else if let Some(padded) = zero_padded(value) {
            out.push(
                at(
                    kep,
                    "date-format",
                    key,
                    format!("{key} `{value}` is not zero-padded"),
                )
                .hint(format!("write `{padded}`")),
            );
        } else if !is_valid_date(value) {
            out.push(
                at(
                    kep,
                    "date-invalid",
                    key,
                    format!("{key} `{value}` is not a real date"),
                )
                .hint("write the date as YYYY-MM-DD (month before day)"),
            );
        }
    }
    if is_valid_date(&kep.meta.creation_date)
        && is_valid_date(&kep.meta.last_updated)
        && kep.meta.last_updated < kep.meta.creation_date
    {
        out.push(
            at(
                kep,
                "date-invalid",
                "last-updated",
                format!(
                    "last-updated {} is before creation-date {}",
                    kep.meta.last_updated, kep.meta.creation_date
                ),
            )
            .hint("last-updated cannot precede creation-date"),
        );
    }
}

fn milestones(kep: &Kep, out: &mut Vec<Finding>) {
    let m = &kep.meta;
    let mut parsed = Vec::new();
    let mut check = |key: String, value: &str| {
        if value.is_empty() || is_placeholder(value) {
            return None;
        }
        let v = Release::parse(value);
        if v.is_none() {
            out.push(
                at(
                    kep,
                    "milestone-invalid",
                    &key,
                    format!("{key} `{value}` is not a release like v1.36"),
                )
                .hint("write milestones as vMAJOR.MINOR"),
            );
        }
        v
    };
    let latest = check("latest-milestone".into(), &m.latest_milestone);
    for (stage, value) in m.milestone.entries() {
        if let Some(v) = check(format!("milestone.{stage}"), value) {
            parsed.push((stage, v));
        }
    }
    let order = [Stage::Alpha, Stage::Beta, Stage::Stable];
    for pair in order.windows(2) {
        let a = parsed.iter().find(|(s, _)| *s == pair[0]);
        let b = parsed.iter().find(|(s, _)| *s == pair[1]);
        if let (Some((sa, va)), Some((sb, vb))) = (a, b)
            && vb < va
        {
            out.push(
                at(
                    kep,
                    "milestone-order",
                    &format!("milestone.{sb}"),
                    format!("milestone.{sb} {vb} is before milestone.{sa} {va}"),
                )
                .hint("stages graduate in order: alpha ≤ beta ≤ stable"),
            );
        }
    }
    if let Some(latest) = latest
        && let Some((_, stage_v)) = parsed.iter().find(|(s, _)| *s == m.stage)
        && latest < *stage_v
    {
        out.push(
            at(
                kep,
                "latest-milestone-behind",
                "latest-milestone",
                format!(
                    "latest-milestone {latest} is before milestone.{} {stage_v}",
                    m.stage
                ),
            )
            .hint("latest-milestone is the newest release with work on this KEP; bump it"),
        );
    }
}

fn placeholders(kep: &Kep, out: &mut Vec<Finding>) {
    let m = &kep.meta;
    let mut seen = |key: &str, value: &str| {
        let v = value.trim();
        let lower = v.to_ascii_lowercase();
        let hit = lower == "tbd"
            || lower == "todo"
            || lower == "@jane.doe"
            || lower == "@alice.doe"
            || lower == "@oscar.doe"
            || lower == "yyyy-mm-dd"
            || lower == "sig-xyz"
            || lower == "nnnn"
            || (v.contains('|') && !v.contains(' '));
        if hit {
            out.push(
                at(
                    kep,
                    "template-placeholder",
                    key,
                    format!("`{key}` still holds the template placeholder `{v}`"),
                )
                .hint("replace it with the real value, or remove the entry"),
            );
        }
    };
    for (key, value) in [
        ("title", m.title.as_str()),
        ("kep-number", &m.kep_number),
        ("owning-sig", &m.owning_sig),
        ("status", m.status.as_str()),
        ("stage", m.stage.as_str()),
        ("creation-date", &m.creation_date),
        ("last-updated", &m.last_updated),
        ("editor", &m.editor),
        ("latest-milestone", &m.latest_milestone),
    ] {
        seen(key, value);
    }
    for (key, values) in [
        ("authors", &m.authors),
        ("reviewers", &m.reviewers),
        ("approvers", &m.approvers),
        ("participating-sigs", &m.participating_sigs),
    ] {
        for v in values {
            seen(key, v);
        }
    }
}

fn unknown_fields(kep: &Kep, out: &mut Vec<Finding>) {
    for (key, line) in kep.lines.unknown() {
        out.push(
            at(kep, "unknown-field", &key, format!("unknown field `{key}`"))
                .at(Some(line))
                .hint("the enhancements repo's Go tooling refuses unknown fields; remove or rename it"),
        );
    }
}

fn sigs(model: &Model, kep: &Kep, out: &mut Vec<Finding>) {
    let Some(list) = &model.sigs else { return };
    let m = &kep.meta;
    if !m.owning_sig.is_empty()
        && !is_placeholder(&m.owning_sig)
        && list.get(&m.owning_sig).is_none()
    {
        out.push(
            at(kep, "owning-sig-unknown", "owning-sig", format!("owning-sig `{}` is not in sigs.yaml", m.owning_sig))
                .hint("use the directory name of a SIG, WG or committee from kubernetes/community sigs.yaml"),
        );
    }
    for sig in &m.participating_sigs {
        if !is_placeholder(sig) && list.get(sig).is_none() {
            out.push(
                at(
                    kep,
                    "participating-sig-unknown",
                    "participating-sigs",
                    format!("participating SIG `{sig}` is not in sigs.yaml"),
                )
                .hint("use the directory name from kubernetes/community sigs.yaml"),
            );
        }
    }
}

fn prr(model: &Model, kep: &Kep, out: &mut Vec<Finding>) {
    let Some(n) = kep.number() else { return };
    let file = model.prr_for(kep);
    let expected = format!("keps/prod-readiness/{}/{n}.yaml", kep.meta.owning_sig);
    if file.is_none()
        && let Some(elsewhere) = model.prr_anywhere(n)
        && !kep.meta.owning_sig.is_empty()
    {
        out.push(
            Finding::error(
                "prr-wrong-sig",
                &elsewhere.path,
                format!(
                    "PRR file for KEP-{n} is not under the owning SIG ({})",
                    kep.meta.owning_sig
                ),
            )
            .kep(Some(n))
            .hint(format!("move it to {expected}")),
        );
    }
    if let Some(file) = file {
        // The current stage's approver is checked (as an error) below.
        let checked = prr_required(kep).then_some(&kep.meta.stage);
        for (stage, approval) in &file.approvals {
            if !approval.approver.is_empty()
                && model.aliases.present
                && !model
                    .aliases
                    .is_prr_approver_or_emeritus(&approval.approver)
                && checked != Some(stage)
            {
                out.push(
                    Finding::warning(
                        "prr-approver-unknown",
                        &file.path,
                        format!(
                            "{stage} approver {} is not a PRR approver in OWNERS_ALIASES",
                            approval.approver
                        ),
                    )
                    .at(approval.line)
                    .kep(Some(n))
                    .hint("PRR approvers are listed under prod-readiness-approvers"),
                );
            }
        }
    }
    if !prr_required(kep) {
        return;
    }
    let Some(file) = file else {
        if model.prr_anywhere(n).is_none() {
            out.push(
                at(
                    kep,
                    "prr-file-missing",
                    "latest-milestone",
                    format!(
                        "{} KEP targeting {} needs a production readiness review, but {expected} does not exist",
                        kep.meta.status, kep.meta.latest_milestone
                    ),
                )
                .hint(format!("add {expected} with the approver for stage {}", kep.meta.stage)),
            );
        }
        return;
    };
    let stage = &kep.meta.stage;
    if stage.valid().is_none() {
        return; // reported by stage-required / stage-enum
    }
    match file.approval(stage) {
        None => out.push(
            Finding::error(
                "prr-stage-missing",
                &file.path,
                format!("PRR file has no approver for the KEP's current stage `{stage}`"),
            )
            .at(Some(1))
            .kep(Some(n))
            .hint(format!(
                "add `{stage}:\\n  approver: \"@<prr-approver>\"` once PRR approves this stage"
            )),
        ),
        Some(a) => {
            if model.aliases.present && !model.aliases.is_prr_approver_or_emeritus(&a.approver) {
                out.push(
                    Finding::error(
                        "prr-approver-invalid",
                        &file.path,
                        format!(
                            "{stage} approver {} is not in OWNERS_ALIASES prod-readiness-approvers",
                            a.approver
                        ),
                    )
                    .at(a.line)
                    .kep(Some(n))
                    .hint("ask one of the prod-readiness-approvers to review and approve"),
                );
            }
        }
    }
}

/// Findings from the README analysis: a stale table of contents, and PRR
/// questions an implementable KEP has not answered for its stage.
fn document_findings(kep: &Kep, a: &KepAnalysis) -> Vec<Finding> {
    let Some(readme) = kep.readme_path.as_deref() else {
        return Vec::new();
    };
    let n = kep.number();
    let mut out = Vec::new();
    for m in &a.toc_mismatches {
        let (line, message) = match m {
            TocMismatch::UnknownAnchor { text, anchor, line } => (
                *line,
                format!(
                    "table of contents entry `{text}` links to #{anchor}, which no heading has"
                ),
            ),
            TocMismatch::MissingEntry { title, line, .. } => (
                *line,
                format!("heading `{title}` is missing from the table of contents"),
            ),
        };
        out.push(
            Finding::warning("toc-mismatch", readme, message)
                .at(Some(line + kep.readme_offset))
                .kep(n)
                .hint("regenerate the table of contents (hack/update-toc.sh in kubernetes/enhancements)"),
        );
    }
    if kep.meta.status == Status::Implementable {
        let q = &a.assessment.prr;
        let c = match a.assessment.target {
            Some(crate::analysis::completeness::PrrTarget::Alpha) => Some(&q.alpha),
            Some(crate::analysis::completeness::PrrTarget::Beta) => Some(&q.beta),
            Some(crate::analysis::completeness::PrrTarget::Stable) => Some(&q.stable),
            None => None,
        };
        let stage = if kep.meta.stage.is_unset() {
            "alpha"
        } else {
            kep.meta.stage.as_str()
        };
        for u in c.map(|c| c.unanswered.as_slice()).unwrap_or_default() {
            out.push(
                Finding::warning(
                    "prr-unanswered",
                    readme,
                    format!(
                        "PRR question not answered (required at {stage}): {}",
                        u.title
                    ),
                )
                .at(u.line)
                .kep(n)
                .hint("answer it in the README's Production Readiness Review Questionnaire"),
            );
        }
    }
    out
}

fn prr_files(model: &Model) -> Vec<Finding> {
    let mut out = Vec::new();
    for f in &model.prr_files {
        if f.error.is_some() {
            continue;
        }
        let written = crate::kep::parse_number(&f.kep_number);
        if let (Some(file_n), Some(w)) = (f.file_number, written)
            && file_n != w
        {
            out.push(
                Finding::warning(
                    "prr-number-mismatch",
                    &f.path,
                    format!("kep-number {w} differs from the file name's {file_n}"),
                )
                .at(Some(1))
                .kep(Some(file_n))
                .hint("the file is looked up by its name; fix kep-number"),
            );
        }
        if let Some(n) = f.number()
            && model.kep(n).is_none()
        {
            out.push(
                Finding::warning(
                    "prr-orphan",
                    &f.path,
                    format!("no KEP with number {n} exists"),
                )
                .kep(Some(n))
                .hint("remove the file or fix its name"),
            );
        }
    }
    out
}

#[cfg(test)]
mod tests;
