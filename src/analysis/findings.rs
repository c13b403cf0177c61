//! Validation rules: [`Model`] → `Vec<Finding>`.
//!
//! Three families, listed in [`RULES`]: the rules the enhancements repo's CI
//! enforces, the rules its Go code defines but CI never runs, and kepsite's
//! own. Each rule is a small function over one KEP (run in parallel) or over
//! the whole model (duplicates, orphan files).

use rayon::prelude::*;

use crate::analysis::Analysis;
use crate::finding::Severity::{Error as E, Warning as W};
use crate::finding::{self, Finding};
use crate::kep::Kep;
use crate::kep::metadata::{Release, Stage, Status};
use crate::model::Model;

mod dates;
mod document;
mod images;
mod metadata;
mod paths;
mod prr;
mod rules;

pub use dates::is_valid_date;
pub use document::reads_questionnaire;
pub use images::{ImageRef, image_refs};
pub use rules::{RULES, Rule, rule_by_id};

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

/// The metadata rules only (kep.yaml, PRR files, aliases), without the README
/// analysis: the same pass the enhancements repo's Go tooling makes.
pub fn check_metadata(model: &Model) -> Vec<Finding> {
    let mut out: Vec<Finding> = model.load_findings.clone();
    let per_kep: Vec<Vec<Finding>> = model.keps.par_iter().map(|k| check_kep(model, k)).collect();
    out.extend(per_kep.into_iter().flatten());
    out.extend(metadata::duplicates(model));
    out.extend(prr::prr_files(model));
    finding::sort(&mut out);
    out
}

/// Run every rule, reusing an analysis of the same model.
pub fn check_with(model: &Model, analysis: &Analysis) -> Vec<Finding> {
    let mut out = check_metadata(model);
    // judged once, before every KEP's job asks (Model::assets)
    model.assets();
    let documents: Vec<Vec<Finding>> = model
        .keps
        .par_iter()
        .zip(analysis.keps.par_iter())
        .map(|(kep, a)| {
            let mut f = document::document_findings(kep, a);
            f.extend(images::image_findings(model, kep));
            f
        })
        .collect();
    out.extend(documents.into_iter().flatten());
    let current = analysis.current.release;
    out.extend(
        model
            .keps
            .iter()
            .filter_map(|k| dates::stage_vs_target(k, current).map(|f| f.kep(k.number()))),
    );
    finding::sort(&mut out);
    finding::cap(out)
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
        metadata::required_fields(kep, &mut out);
        metadata::enums(kep, &mut out);
        metadata::numbers(kep, &mut out);
        dates::dates(kep, &mut out);
        dates::milestones(kep, &mut out);
        metadata::placeholders(kep, &mut out);
        metadata::placeholder_title(kep, &mut out);
        metadata::unknown_fields(kep, &mut out);
        metadata::sigs(model, kep, &mut out);
        paths::path_values(kep, &mut out);
        prr::prr(model, kep, &mut out);
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

fn file_kind(kep: &Kep) -> &'static str {
    match kep.format {
        crate::kep::KepFormat::Directory => "kep.yaml",
        crate::kep::KepFormat::SingleFile => "the front matter",
    }
}

fn is_placeholder(v: &str) -> bool {
    v.contains('|') || v.eq_ignore_ascii_case("tbd") || v == "yyyy-mm-dd"
}

#[cfg(test)]
mod tests;
