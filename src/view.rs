//! Borrowed views for JSON, YAML, CSV and templates: ([`Model`], [`Kep`],
//! findings) → [`KepView`]. Templates and exports never see raw YAML.
//!
//! The JSON shape is a superset of `kepctl`'s (same keys: `title`,
//! `kep-number`, `owningSig`, `latestMilestone`, `milestone`, `featureGates`,
//! ...), so consumers of kepctl's output can switch. Keys come in a fixed
//! order, so exports are byte-identical between runs.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use crate::analysis::board::Tracking;
use crate::analysis::{Analysis, KepAnalysis};
use crate::finding::Finding;
use crate::kep::metadata::{FeatureGate, Milestones};
use crate::kep::{Kep, KepFormat};
use crate::model::{KepId, Model};
use crate::repo::history::{History, KepHistory};

/// One stage's PRR approval as exported.
#[derive(Debug, Clone, Serialize)]
pub struct ApprovalView<'a> {
    /// Approver as written.
    pub approver: &'a str,
    /// Whether the approver is (or was) in prod-readiness-approvers.
    pub valid: bool,
}

/// The prod-readiness file of a KEP as exported.
#[derive(Debug, Clone, Serialize)]
pub struct PrrView<'a> {
    /// Path of the prod-readiness file.
    pub path: &'a str,
    /// Approval per stage.
    pub approvals: BTreeMap<&'a str, ApprovalView<'a>>,
}

/// A KEP as exported and shown.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct KepView<'a> {
    /// Directory (or file) name, as kepctl's `id`/`name`.
    pub id: &'a str,
    /// Same as `id`.
    pub name: &'a str,
    /// Title.
    pub title: &'a str,
    /// `kep-number` as written.
    #[serde(rename = "kep-number")]
    pub kep_number: &'a str,
    /// The KEP number, parsed (from the directory when kep-number is unusable).
    pub number: Option<u32>,
    /// Authors.
    pub authors: &'a [String],
    /// Owning SIG (the directory's when kep.yaml lacks one).
    pub owning_sig: &'a str,
    /// Participating SIGs.
    pub participating_sigs: &'a [String],
    /// Reviewers.
    pub reviewers: &'a [String],
    /// Approvers.
    pub approvers: &'a [String],
    /// PRR approvers listed in kep.yaml (legacy field).
    pub prr_approvers: &'a [String],
    /// Editor.
    pub editor: &'a str,
    /// Creation date as written.
    pub creation_date: &'a str,
    /// Last-updated date as written.
    pub last_updated: &'a str,
    /// Status as written.
    pub status: &'a str,
    /// See-also links.
    pub see_also: &'a [String],
    /// Replaces.
    pub replaces: &'a [String],
    /// Superseded by.
    pub superseded_by: &'a [String],
    /// Stage as written.
    pub stage: &'a str,
    /// Latest milestone as written.
    pub latest_milestone: &'a str,
    /// Milestone per stage.
    pub milestone: &'a Milestones,
    /// Feature gates.
    pub feature_gates: &'a [FeatureGate],
    /// Whether disabling is supported.
    pub disable_supported: Option<bool>,
    /// Metrics.
    pub metrics: &'a [String],
    /// Repository path of the KEP directory (or single file).
    pub path: &'a str,
    /// Path of kep.yaml (or the single file).
    pub metadata_path: &'a str,
    /// Path of the README.
    pub readme_path: Option<&'a str>,
    /// `directory` or `single-file`.
    pub format: KepFormat,
    /// Whether the metadata parsed.
    pub metadata_valid: bool,
    /// The prod-readiness file, when there is one.
    pub prr: Option<PrrView<'a>>,
    /// README and PRR completeness, target release and readiness.
    pub analysis: Option<&'a KepAnalysis>,
    /// Stage history from git, when the export was asked for it.
    pub history: Option<HistoryView<'a>>,
    /// This KEP's findings.
    pub findings: Vec<&'a Finding>,
    /// In the release in progress: how the Enhancements team tracks it
    /// (the board's status, each deadline's checklist).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tracking: Option<Tracking>,
    /// With `--kubernetes`: its outcome in each release that is out
    /// (`export`: every one; `query --release`: those asked), with who
    /// decided it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub releases: Vec<crate::analysis::outcome::KepOutcome>,
}

/// A KEP's git history as exported.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HistoryView<'a> {
    /// Changes of (status, stage, latest-milestone), oldest first, with first/last commits.
    #[serde(flatten)]
    pub history: &'a KepHistory,
    /// Days since the last commit touching the KEP.
    pub days_since_last_change: i64,
    /// Whether that is over the staleness threshold.
    pub stale: bool,
}

/// History and the clock it is judged against.
#[derive(Debug, Clone, Copy)]
pub struct HistoryContext<'a> {
    /// The walk.
    pub history: &'a History,
    /// "Now", unix seconds (the walked head's commit time keeps exports reproducible).
    pub now: i64,
    /// Stale after this many days.
    pub stale_days: i64,
}

/// Build the view of one KEP; `findings` are its own (see [`findings_of`]).
pub fn kep_view<'a>(
    model: &'a Model,
    analysis: &'a Analysis,
    id: KepId,
    findings: Vec<&'a Finding>,
) -> KepView<'a> {
    let kep = model.get(id);
    let m = &kep.meta;
    let name = kep.path.rsplit('/').next().unwrap_or(&kep.path);
    let prr = model.prr_for(kep).map(|p| PrrView {
        path: &p.path,
        approvals: p
            .approvals
            .iter()
            .map(|(stage, a)| {
                (
                    stage.as_str(),
                    ApprovalView {
                        approver: &a.approver,
                        valid: model.aliases.is_prr_approver_or_emeritus(&a.approver),
                    },
                )
            })
            .collect(),
    });
    KepView {
        id: name,
        name,
        title: kep.title(),
        kep_number: &m.kep_number,
        number: kep.number(),
        authors: &m.authors,
        owning_sig: kep.sig(),
        participating_sigs: &m.participating_sigs,
        reviewers: &m.reviewers,
        approvers: &m.approvers,
        prr_approvers: &m.prr_approvers,
        editor: &m.editor,
        creation_date: &m.creation_date,
        last_updated: &m.last_updated,
        status: m.status.as_str(),
        see_also: &m.see_also,
        replaces: &m.replaces,
        superseded_by: &m.superseded_by,
        stage: m.stage.as_str(),
        latest_milestone: &m.latest_milestone,
        milestone: &m.milestone,
        feature_gates: &m.feature_gates,
        disable_supported: m.disable_supported,
        metrics: &m.metrics,
        path: &kep.path,
        metadata_path: &kep.metadata_path,
        readme_path: kep.readme_path.as_deref(),
        format: kep.format,
        metadata_valid: kep.meta_ok,
        prr,
        analysis: analysis.of(id),
        history: None,
        findings,
        tracking: None,
        releases: Vec::new(),
    }
}

/// The findings that belong to `kep`: those on its files, and those naming its number.
pub fn findings_of<'a>(kep: &Kep, findings: &'a [Finding]) -> Vec<&'a Finding> {
    let dir = format!("{}/", kep.path);
    let number = kep.number();
    findings
        .iter()
        .filter(|f| {
            f.path == kep.metadata_path
                || Some(f.path.as_str()) == kep.readme_path.as_deref()
                || (kep.format == KepFormat::Directory && f.path.starts_with(&dir))
                || (f.kep.is_some()
                    && f.kep == number
                    && f.path.starts_with("keps/prod-readiness/"))
        })
        .collect()
}

/// Every KEP's findings, in model order: for each KEP what [`findings_of`]
/// picks, found in one pass over the findings instead of one pass per KEP.
pub fn findings_by_kep<'a>(model: &Model, findings: &'a [Finding]) -> Vec<Vec<&'a Finding>> {
    let mut files: HashMap<&str, Vec<usize>> = HashMap::new();
    let mut dirs: HashMap<&str, Vec<usize>> = HashMap::new();
    let mut numbers: HashMap<u32, Vec<usize>> = HashMap::new();
    for (i, k) in model.keps.iter().enumerate() {
        files.entry(k.metadata_path.as_str()).or_default().push(i);
        if let Some(r) = &k.readme_path
            && *r != k.metadata_path
        {
            files.entry(r.as_str()).or_default().push(i);
        }
        if k.format == KepFormat::Directory {
            dirs.entry(k.path.as_str()).or_default().push(i);
        }
        if let Some(n) = k.number() {
            numbers.entry(n).or_default().push(i);
        }
    }
    let mut out: Vec<Vec<&Finding>> = vec![Vec::new(); model.keps.len()];
    let mut owners: Vec<usize> = Vec::new();
    for f in findings {
        owners.clear();
        owners.extend(files.get(f.path.as_str()).into_iter().flatten());
        // Every directory above the file: `a/b/c` is under `a/b` and `a`.
        let mut p = f.path.as_str();
        while let Some(slash) = p.rfind('/') {
            p = &p[..slash];
            owners.extend(dirs.get(p).into_iter().flatten());
        }
        if let Some(n) = f.kep
            && f.path.starts_with("keps/prod-readiness/")
        {
            owners.extend(numbers.get(&n).into_iter().flatten());
        }
        owners.sort_unstable();
        owners.dedup();
        for &i in &owners {
            out[i].push(f);
        }
    }
    out
}

/// Every KEP's view, in model order, with history when given and each
/// KEP's tracking in the release in progress (`trackings`, model order).
pub fn all<'a>(
    model: &'a Model,
    analysis: &'a Analysis,
    findings: &'a [Finding],
    history: Option<HistoryContext<'a>>,
    trackings: &[Option<Tracking>],
) -> Vec<KepView<'a>> {
    model
        .keps
        .iter()
        .zip(findings_by_kep(model, findings))
        .zip(model.ids())
        .map(|((k, found), id)| {
            let mut v = kep_view(model, analysis, id, found);
            v.tracking = trackings.get(id.0).cloned().flatten();
            if let (Some(h), Some(n)) = (history, k.number())
                && let Some(kh) = h.history.keps.get(&n)
            {
                v.history = Some(HistoryView {
                    history: kh,
                    days_since_last_change: kh.days_since_last_change(h.now),
                    stale: kh.is_stale(h.now, h.stale_days),
                });
            }
            v
        })
        .collect()
}

/// `n` KEPs in words: "1 KEP", "2 KEPs".
pub fn keps(n: usize) -> String {
    match n {
        1 => "1 KEP".to_string(),
        n => format!("{n} KEPs"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model;

    /// Findings on every kind of path a KEP owns (its files, any file under
    /// its directory, a PRR file naming its number) and on paths nobody owns
    /// are grouped exactly as the per-KEP filter picks them.
    #[test]
    fn grouping_findings_matches_the_per_kep_filter() {
        let m = model::from_snapshot(crate::repo::load_embedded(), None);
        let mut found = Vec::new();
        for k in &m.keps {
            found.push(Finding::warning("r", &k.metadata_path, "meta"));
            found.push(Finding::warning(
                "r",
                format!("{}/img/a.png", k.path),
                "deep",
            ));
            found.push(Finding::warning(
                "r",
                format!("{}-other/x.md", k.path),
                "sibling",
            ));
            if let Some(n) = k.number() {
                let prr = format!("keps/prod-readiness/any/{n}.yaml");
                found.push(Finding::warning("r", &prr, "prr").kep(Some(n)));
                found.push(Finding::warning("r", "keps/other.md", "named").kep(Some(n)));
            }
        }
        found.push(Finding::warning("r", "OWNERS_ALIASES", "nobody's"));
        crate::finding::sort(&mut found);
        let grouped = findings_by_kep(&m, &found);
        let mut deep = 0;
        for (k, group) in m.keps.iter().zip(&grouped) {
            assert_eq!(group, &findings_of(k, &found), "{}", k.path);
            deep += group.iter().filter(|f| f.message == "deep").count();
        }
        assert!(
            deep >= m.keps.len() / 2,
            "{deep} findings under KEP directories"
        );
        assert!(grouped.iter().flatten().all(|f| f.message != "nobody's"));
    }

    #[test]
    fn keps_counts_in_words() {
        assert_eq!(keps(0), "0 KEPs");
        assert_eq!(keps(1), "1 KEP");
        assert_eq!(keps(2), "2 KEPs");
    }
}
