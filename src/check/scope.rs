//! The findings a change answers for: (the model after the change, its
//! findings, the findings before, the touched paths) → [`Scoped`].
//!
//! A KEP is touched when the change added, modified or deleted its kep.yaml,
//! its README, its prod-readiness file (`keps/prod-readiness/<sig>/<n>.yaml`,
//! under any SIG) or anything under its directory. Every finding in a
//! touched KEP is reported, old or new; elsewhere only the findings the
//! change introduced: present after but not before, compared by rule, path
//! and message (lines move when text is inserted above them).

use std::collections::{BTreeSet, HashMap};

use crate::finding::Finding;
use crate::kep::{Kep, KepFormat};
use crate::model::Model;

/// The findings to report and the KEPs the change touched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scoped {
    /// Findings in touched KEPs or touched files, then those introduced
    /// elsewhere; canonical order.
    pub findings: Vec<Finding>,
    /// Indices into `model.keps` of the touched KEPs, in model order.
    pub touched: Vec<usize>,
}

/// The number of a prod-readiness file (`keps/prod-readiness/<sig>/<n>.yaml`).
pub fn prr_number(path: &str) -> Option<u32> {
    let rest = path.strip_prefix("keps/prod-readiness/")?;
    let (_sig, name) = rest.split_once('/')?;
    if name.contains('/') {
        return None;
    }
    crate::kep::parse_number(name.strip_suffix(".yaml")?)
}

/// Whether `path` is one of `kep`'s files.
pub fn owns(kep: &Kep, path: &str) -> bool {
    path == kep.metadata_path
        || kep.readme_path.as_deref() == Some(path)
        || path == kep.path
        || (kep.format == KepFormat::Directory
            && path.len() > kep.path.len()
            && path.starts_with(kep.path.as_str())
            && path.as_bytes()[kep.path.len()] == b'/')
        || (prr_number(path).is_some() && prr_number(path) == kep.number())
}

/// The KEPs of `model` that `paths` touch, in model order.
pub fn touched_keps(model: &Model, paths: &BTreeSet<String>) -> Vec<usize> {
    model
        .keps
        .iter()
        .enumerate()
        .filter(|(_, k)| paths.iter().any(|p| owns(k, p)))
        .map(|(i, _)| i)
        .collect()
}

/// Keep the findings in touched KEPs (and in touched files that belong to
/// no KEP), plus those `after` has and `before` has not.
pub fn select(
    model: &Model,
    after: Vec<Finding>,
    before: &[Finding],
    paths: &BTreeSet<String>,
) -> Scoped {
    let touched = touched_keps(model, paths);
    let mut old: HashMap<(&str, &str, &str), usize> = HashMap::new();
    for f in before {
        *old.entry((f.rule, &f.path, &f.message)).or_default() += 1;
    }
    let in_scope = |f: &Finding| {
        paths.contains(&f.path) || touched.iter().any(|&i| owns(&model.keps[i], &f.path))
    };
    let was_there: Vec<bool> = after
        .iter()
        .map(
            |f| match old.get_mut(&(f.rule, f.path.as_str(), f.message.as_str())) {
                Some(n) if *n > 0 => {
                    *n -= 1;
                    true
                }
                _ => false,
            },
        )
        .collect();
    let mut keep = Vec::new();
    let mut introduced = Vec::new();
    for (f, was_there) in after.into_iter().zip(was_there) {
        if in_scope(&f) {
            keep.push(f);
        } else if !was_there {
            introduced.push(f);
        }
    }
    keep.extend(introduced);
    crate::finding::sort(&mut keep);
    Scoped {
        findings: keep,
        touched,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prr_numbers() {
        let cases = [
            ("keps/prod-readiness/sig-node/1480.yaml", Some(1480)),
            ("keps/prod-readiness/sig-node/1480.yml", None),
            ("keps/prod-readiness/sig-node/x/1480.yaml", None),
            ("keps/prod-readiness/1480.yaml", None),
            ("keps/sig-node/1480-x/kep.yaml", None),
        ];
        for (path, want) in cases {
            assert_eq!(prr_number(path), want, "{path}");
        }
    }
}
