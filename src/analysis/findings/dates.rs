//! The rules over a KEP's dates and milestones.

use super::{at, is_placeholder};
use crate::finding::Finding;
use crate::kep::Kep;
use crate::kep::domain::Status;
use crate::kep::metadata::{Release, Stage};

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

pub(super) fn dates(kep: &Kep, out: &mut Vec<Finding>) {
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

pub(super) fn milestones(kep: &Kep, out: &mut Vec<Finding>) {
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

/// `stage` is "the current stage this KEP is targeting" (the template): a
/// KEP whose `milestone.<stage>` names the release in progress targets
/// that stage there, and `stage` should say so (the board and the release
/// team read the stage from it).
pub(super) fn stage_vs_target(kep: &Kep, current: Release) -> Option<Finding> {
    let m = &kep.meta;
    if !kep.meta_ok || !matches!(m.status, Status::Provisional | Status::Implementable) {
        return None;
    }
    let own = m.stage.nearest()?;
    if m.stage.is_deprecation() {
        return None;
    }
    let target = [Stage::Stable, Stage::Beta, Stage::Alpha]
        .into_iter()
        .find(|s| m.milestone.release(s) == Some(current))?;
    if own == target {
        return None;
    }
    let key = if kep.line("stage").is_some() {
        "stage"
    } else {
        "milestone"
    };
    Some(
        at(
            kep,
            "stage-vs-target",
            key,
            format!(
                "stage is {own}, but milestone.{target} names {current}, the release in progress"
            ),
        )
        .hint(format!(
            "set `stage: {target}` when the KEP is opted in for {current}, or move milestone.{target}"
        )),
    )
}
