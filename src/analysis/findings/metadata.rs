//! The rules over one KEP's metadata (required fields, enumerations,
//! numbers, placeholders, unknown fields, SIG names) and over the numbers
//! of all KEPs (duplicates).

use std::collections::BTreeMap;

use super::{at, file_kind, is_placeholder, stages, statuses};
use crate::finding::Finding;
use crate::kep::Kep;
use crate::kep::metadata::{Stage, Status};
use crate::model::Model;

pub(super) fn required_fields(kep: &Kep, out: &mut Vec<Finding>) {
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
    let needed = [
        (
            "stage-required",
            "stage",
            m.stage.is_unset(),
            "set `stage:` to alpha, beta or stable",
        ),
        (
            "latest-milestone-required",
            "latest-milestone",
            m.latest_milestone.is_empty(),
            "set `latest-milestone:` to the release being worked on, e.g. \"v1.36\"",
        ),
    ];
    for (rule, key, unset, hint) in needed {
        if active && unset {
            out.push(
                at(
                    kep,
                    rule,
                    key,
                    format!("status is {} but no {key} is set", m.status),
                )
                .at(kep.line(key).or(kep.line("status")))
                .hint(hint),
            );
        }
    }
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

pub(super) fn enums(kep: &Kep, out: &mut Vec<Finding>) {
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
pub(super) fn suggestion(value: &str, valid: &[&'static str]) -> Option<&'static str> {
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

pub(super) fn numbers(kep: &Kep, out: &mut Vec<Finding>) {
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

pub(super) fn duplicates(model: &Model) -> Vec<Finding> {
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

pub(super) fn placeholders(kep: &Kep, out: &mut Vec<Finding>) {
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

/// kep.yaml's title is the template's (`KEP Template`): the views show the
/// README's title instead, and say so here.
pub(super) fn placeholder_title(kep: &Kep, out: &mut Vec<Finding>) {
    let title = &kep.meta.title;
    if !crate::kep::is_placeholder_title(title) {
        return;
    }
    let hint = match &kep.readme_title {
        Some(t) => format!("set `title:` to the KEP's title; the README's is \"{t}\""),
        None => "set `title:` to the KEP's title".to_string(),
    };
    out.push(
        at(
            kep,
            "placeholder-title",
            "title",
            format!("`title` is the template's placeholder `{}`", title.trim()),
        )
        .hint(hint),
    );
}

pub(super) fn unknown_fields(kep: &Kep, out: &mut Vec<Finding>) {
    for (key, line) in kep.lines.unknown() {
        // Straight to the line: looking each key up again is quadratic in
        // the keys of a hostile kep.yaml.
        out.push(
            Finding::warning(
                "unknown-field",
                &kep.metadata_path,
                format!("unknown field `{key}`"),
            )
            .at(Some(line))
            .hint("the enhancements repo's Go tooling refuses unknown fields; remove or rename it"),
        );
    }
}

pub(super) fn sigs(model: &Model, kep: &Kep, out: &mut Vec<Finding>) {
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
