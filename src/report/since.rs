//! What changed since an older revision: the report's release at `--since`
//! ([`Baseline`]: the older [`Model`] and [`Analysis`], and the commits in
//! between, from `repo::since`) against the release now → [`Since`].

use std::collections::BTreeMap;

use serde::Serialize;

use super::{Options, Row, Selected, select};
use crate::analysis::Analysis;
use crate::analysis::approved;
use crate::analysis::outcome::Sources;
use crate::kep::Kep;
use crate::kep::KepKey;
use crate::kep::domain::Stage;
use crate::model::Model;
pub use crate::repo::since::{Range, RangeCommit, range};

/// The older side of a comparison.
pub struct Baseline<'a> {
    /// The repository at `--since`.
    pub model: &'a Model,
    /// Its analysis.
    pub analysis: &'a Analysis,
    /// The revision and the commits since.
    pub range: &'a Range,
}

/// One KEP that changed.
#[derive(Debug, Clone, Serialize)]
pub struct ChangedKep {
    /// KEP number.
    pub number: Option<u32>,
    /// Title (now, or at `--since` for a KEP that left the repository).
    pub title: String,
    /// Link.
    pub url: String,
    /// Owning SIG.
    pub sig: String,
    /// Before.
    pub from: String,
    /// After.
    pub to: String,
    /// Commits since `--since` that touched the KEP or its PRR file, newest first.
    pub commits: Vec<RangeCommit>,
}

/// Changes to the release since `--since`.
#[derive(Debug, Clone, Serialize)]
pub struct Since {
    /// `--since` as given.
    pub rev: String,
    /// Its commit.
    pub commit: String,
    /// Its date.
    pub date: String,
    /// Commits since then that touched `keps/`.
    pub commits: usize,
    /// KEPs newly in the release.
    pub added: Vec<ChangedKep>,
    /// KEPs no longer in it.
    pub dropped: Vec<ChangedKep>,
    /// KEPs whose targeted stage changed.
    pub stage_changed: Vec<ChangedKep>,
    /// KEPs whose status changed.
    pub status_changed: Vec<ChangedKep>,
    /// KEPs with a PRR approval for their stage that was not there before.
    pub prr_approved: Vec<ChangedKep>,
    /// KEPs At risk then, Ready now.
    pub newly_ready: Vec<ChangedKep>,
    /// KEPs Ready then, At risk now.
    pub newly_at_risk: Vec<ChangedKep>,
}

impl Since {
    /// Each kind of change with its heading, in report order.
    pub fn sections(&self) -> [(&'static str, &Vec<ChangedKep>); 7] {
        [
            ("Newly targeting the release", &self.added),
            ("Dropped out", &self.dropped),
            ("Stage changes", &self.stage_changed),
            ("Status changes", &self.status_changed),
            ("Newly approved PRRs", &self.prr_approved),
            ("Newly Ready", &self.newly_ready),
            ("Newly At risk", &self.newly_at_risk),
        ]
    }
}

/// The commits of `range` that touched the KEP or its PRR file.
fn touching(range: &Range, kep: &Kep) -> Vec<RangeCommit> {
    let dir = format!("{}/", kep.path);
    let prr = kep
        .number()
        .map(|n| format!("keps/prod-readiness/{}/{n}.yaml", kep.meta.owning_sig));
    range
        .commits
        .iter()
        .filter(|c| {
            c.paths
                .iter()
                .any(|p| p == &kep.path || p.starts_with(&dir) || Some(p) == prr.as_ref())
        })
        .cloned()
        .collect()
}

/// Compare the release now (`selected`, `rows`) with the release at the baseline.
pub fn diff(
    b: &Baseline,
    model: &Model,
    analysis: &Analysis,
    rows: &[Row],
    urls: &[String],
    opts: &Options,
) -> Since {
    // Both sides are judged in the same cycle and without history (the
    // baseline's would be a different walk), so membership means the same.
    let side = |model, analysis| Sources {
        current: opts.current,
        ..Sources::of(model, analysis)
    };
    let (old_sel, _) = select(&side(b.model, b.analysis), opts.release, None);
    let (selected, _) = select(&side(model, analysis), opts.release, None);
    let old: BTreeMap<KepKey, &Selected> = old_sel
        .iter()
        .map(|s| (b.model.keps[s.entry.id].key(), s))
        .collect();
    let new: BTreeMap<KepKey, &Selected> = selected
        .iter()
        .map(|s| (model.keps[s.entry.id].key(), s))
        .collect();
    let cmp = Compare {
        b,
        model,
        rows,
        urls,
        opts,
        old_by_key: b.model.keps.iter().map(|k| (k.key(), k)).collect(),
    };
    let mut out = Since {
        rev: b.range.rev.clone(),
        commit: b.range.commit.clone(),
        date: b.range.date.clone(),
        commits: b.range.commits.len(),
        added: vec![],
        dropped: vec![],
        stage_changed: vec![],
        status_changed: vec![],
        prr_approved: vec![],
        newly_ready: vec![],
        newly_at_risk: vec![],
    };
    for (key, s) in &new {
        match old.get(key) {
            None => cmp.added(&mut out, key, s),
            Some(o) => cmp.changed(&mut out, o, s),
        }
    }
    for (key, o) in &old {
        if !new.contains_key(key) {
            out.dropped.push(cmp.dropped(key, o));
        }
    }
    out
}

/// What [`diff`] compares: both sides, and how to link and describe a KEP.
struct Compare<'a, 'b> {
    b: &'a Baseline<'b>,
    model: &'a Model,
    rows: &'a [Row],
    urls: &'a [String],
    opts: &'a Options,
    /// Every KEP at the baseline by key.
    old_by_key: BTreeMap<KepKey, &'a Kep>,
}

impl Compare<'_, '_> {
    /// The entry for `kep`, with the commits since the baseline touching it.
    fn entry(&self, kep: &Kep, url: String, from: String, to: String) -> ChangedKep {
        ChangedKep {
            number: kep.number(),
            title: kep.title().to_string(),
            url,
            sig: kep.sig().to_string(),
            from,
            to,
            commits: touching(self.b.range, kep),
        }
    }

    /// The "newly approved PRR" entry for `kep`, at stage `s`.
    fn approved_entry(&self, kep: &Kep, url: String, s: &Selected) -> ChangedKep {
        let who = self
            .rows
            .iter()
            .find(|r| r.path == kep.path)
            .and_then(|r| r.prr_approver.clone())
            .unwrap_or_default();
        self.entry(
            kep,
            url,
            "no approval".into(),
            format!("{} approved by {who}", s.entry.stage),
        )
    }

    /// Record a KEP newly in the release (and its PRR approval, if new).
    fn added(&self, out: &mut Since, key: &KepKey, s: &Selected) {
        let kep = &self.model.keps[s.entry.id];
        let url = self.urls[s.entry.id].clone();
        let before = self.old_by_key.get(key).copied();
        let from = match before {
            None => "not in the repository".to_string(),
            Some(k) if k.meta.latest_milestone.is_empty() => {
                format!("status {}, no latest-milestone", k.meta.status)
            }
            Some(k) => format!("latest-milestone {}", k.meta.latest_milestone),
        };
        out.added
            .push(self.entry(kep, url.clone(), from, stage_text(&s.entry.stage)));
        if prr_ok(s) && !before.is_some_and(|k| approved(self.b.model, k, &s.readiness.stage)) {
            out.prr_approved.push(self.approved_entry(kep, url, s));
        }
    }

    /// Record what changed for a KEP in the release on both sides (`o` then, `s` now).
    fn changed(&self, out: &mut Since, o: &Selected, s: &Selected) {
        let kep = &self.model.keps[s.entry.id];
        let url = self.urls[s.entry.id].clone();
        let okep = &self.b.model.keps[o.entry.id];
        if o.entry.stage != s.entry.stage {
            out.stage_changed.push(self.entry(
                kep,
                url.clone(),
                stage_text(&o.entry.stage),
                stage_text(&s.entry.stage),
            ));
        }
        if okep.meta.status != kep.meta.status {
            out.status_changed.push(self.entry(
                kep,
                url.clone(),
                okep.meta.status.to_string(),
                kep.meta.status.to_string(),
            ));
        }
        if prr_ok(s) && !approved(self.b.model, okep, &s.readiness.stage) {
            out.prr_approved
                .push(self.approved_entry(kep, url.clone(), s));
        }
        match (o.readiness.ready, s.readiness.ready) {
            (false, true) => out.newly_ready.push(self.entry(
                kep,
                url,
                o.readiness.reasons().join("; "),
                "Ready".into(),
            )),
            (true, false) => out.newly_at_risk.push(self.entry(
                kep,
                url,
                "Ready".into(),
                s.readiness.reasons().join("; "),
            )),
            _ => {}
        }
    }

    /// The entry of a KEP that was in the release at the baseline and is not now.
    fn dropped(&self, key: &KepKey, o: &Selected) -> ChangedKep {
        let okep = &self.b.model.keps[o.entry.id];
        let now = self.model.keps.iter().position(|k| k.key() == *key);
        let (url, to, kep) = match now {
            None => (
                format!(
                    "{}/tree/{}/{}",
                    self.opts.repo_url, self.b.range.commit, okep.path
                ),
                "no longer in the repository".to_string(),
                okep,
            ),
            Some(i) => {
                let k = &self.model.keps[i];
                let to = if k.meta.latest_milestone.is_empty() {
                    format!("status {}, no latest-milestone", k.meta.status)
                } else {
                    format!(
                        "latest-milestone {}, status {}",
                        k.meta.latest_milestone, k.meta.status
                    )
                };
                (self.urls[i].clone(), to, k)
            }
        };
        self.entry(kep, url, stage_text(&o.entry.stage), to)
    }
}

/// Whether the KEP's checklist has its PRR approval now.
fn prr_ok(s: &Selected) -> bool {
    s.readiness
        .items
        .iter()
        .any(|i| i.id == crate::analysis::freeze::CheckId::PrrApproved && i.ok)
}

/// "no stage" or the stage.
fn stage_text(s: &Stage) -> String {
    if s.is_unset() {
        "no stage".into()
    } else {
        s.to_string()
    }
}
