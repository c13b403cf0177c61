//! What Kubernetes' code shipped (`--kubernetes DIR`): each KEP's feature
//! gates and the stage they had in every release, read from a
//! kubernetes/kubernetes checkout ([`crate::repo::gates`]), beside what the KEP's
//! files say.
//!
//! - A release that is out is read at its release tag (the highest patch
//!   tag `v1.N.x`), else at the last commit of the checkout's first-parent
//!   history on or before its release day.
//! - The release in progress is read at the last commit on or before the
//!   enhancements snapshot's date (its newest commit), so that one revision
//!   of both repositories always gives the same answer.
//! - A release before the first one read is read from the versioned specs
//!   of the oldest snapshot (`{Version: "1.27", PreRelease: Beta}`).
//!
//! Gates belong to KEPs by kep.yaml's `feature-gates` list and by the
//! gate's `// kep:` comment; where the two name different KEPs the gate is
//! listed in [`Code::conflicts`].

mod compare;
mod coverage;
mod milestones;
mod orphans;
mod removal;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::Arc;

use anyhow::Result;
use serde::Serialize;

pub use compare::{Landing, landing, landing_says};
pub use milestones::{MilestoneNote, findings, gate_steps, kep_panel, milestone_notes};
pub use orphans::Adopted;

use super::calendar::cycle;
use crate::kep::domain::{Release, Stage};
use crate::model::Model;
use crate::repo::gates::{self, CommitInfo, Kubernetes, PreRelease, Snapshot};

/// The files a release's code is read from.
#[derive(Debug, Clone, Serialize)]
pub struct Shot {
    /// Kubernetes minor version (1.`minor`).
    pub minor: u32,
    /// For people: `v1.35.4`, or `master on 2026-04-20`.
    pub label: String,
    /// Commit id.
    pub commit: String,
    /// Its commit date, `YYYY-MM-DD`.
    pub date: String,
    /// The gates there.
    #[serde(skip)]
    pub snapshot: Arc<Snapshot>,
}

/// A gate named by two KEPs' files: kep.yaml of one, `// kep:` of another.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Conflict {
    /// The gate.
    pub gate: String,
    /// KEPs whose kep.yaml lists it.
    pub kep_yaml: Vec<u32>,
    /// KEPs its `// kep:` comment names.
    pub comment: Vec<u32>,
}

/// A KEP's gates in one release and the stage they give it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct KepCode {
    /// The highest of its gates' stages (alpha < beta < stable); a KEP
    /// whose every gate is deprecated is `deprecated`.
    pub stage: Stage,
    /// Each gate there with its stage: `("ImageVolume", Beta)`.
    pub gates: Vec<(String, PreRelease)>,
}

/// Where a gate carries the stage a KEP targets in the release in progress.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Landed {
    /// The gate.
    pub gate: String,
    /// Its stage for the release.
    pub stage: PreRelease,
    /// The first commit of the run of commits up to the snapshot in which
    /// it had that stage.
    pub commit: CommitInfo,
}

/// Kubernetes' feature gates, read for every release kepsite reports on.
#[derive(Debug, Clone)]
pub struct Code {
    /// Where they were read from, for people (`/src/kubernetes at HEAD`).
    pub source: String,
    /// The files of each release, oldest first (releases out, and the
    /// release in progress at the snapshot's date).
    pub shots: BTreeMap<u32, Shot>,
    /// The release in progress.
    pub current: Release,
    /// Gate name → KEP numbers (kep.yaml's `feature-gates`, then `// kep:`).
    pub keps_of: BTreeMap<String, Vec<u32>>,
    /// KEP number → its gates found in the code, by name.
    pub gates_of: BTreeMap<u32, Vec<String>>,
    /// Gates whose kep.yaml and `// kep:` name different KEPs.
    pub conflicts: Vec<Conflict>,
    /// Gates whose `// kep:` names no KEP of the repository, given to a
    /// KEP by the rule of [`orphans`].
    pub adopted: Vec<Adopted>,
    /// KEP number → the gates its kep.yaml lists that the code declares.
    pub yaml_gates: BTreeMap<u32, Vec<String>>,
    /// Gates listed in a kep.yaml that no file read declares, by KEP.
    pub unknown: BTreeMap<u32, Vec<String>>,
    /// The release in progress: gate → where it took its stage for it.
    pub landed: BTreeMap<String, Landed>,
    /// The snapshot is past the release in progress's Code Freeze: a
    /// tracked KEP whose code has not landed is at risk of removal.
    pub past_code_freeze: bool,
    /// The releases at which a gate's stage can change, oldest first (see
    /// `coverage::change_points`): what the walks over releases visit.
    pub minors: Vec<u32>,
}

impl Code {
    /// Read the gates of `path` (at `rev`) for `model`: every release out
    /// up to the release in progress `current`, whose files are read at the
    /// last commit on or before `until` (unix seconds; `None`: the tip).
    pub fn load(
        path: &Path,
        rev: Option<&str>,
        model: &Model,
        current: Release,
        until: Option<i64>,
    ) -> Result<Code> {
        let shown = crate::escape::terminal(&path.display().to_string()).into_owned();
        let at = |e: anyhow::Error| e.context(format!("--kubernetes {shown}"));
        let k = Kubernetes::open(path, rev)?;
        let mut shots = BTreeMap::new();
        for minor in coverage::releases_to_read(&k, current) {
            if let Some(s) = release_shot(&k, minor).map_err(at)? {
                shots.insert(minor, s);
            }
        }
        let tip = match until {
            Some(t) => k.last_before(t),
            None => k.master_commits().last().cloned(),
        };
        if let Some(c) = tip {
            let snapshot = k.snapshot_at(&c.id).map_err(at)?;
            let label = format!("master on {}", c.date);
            shots.insert(current.minor, shot(current.minor, label, &c, snapshot));
        }
        let source = match rev {
            Some(r) => format!("{} at {r}", path.display()),
            None => path.display().to_string(),
        };
        let mut code = Code {
            source,
            minors: coverage::change_points(&shots, current),
            shots,
            current,
            keps_of: BTreeMap::new(),
            gates_of: BTreeMap::new(),
            conflicts: Vec::new(),
            adopted: Vec::new(),
            yaml_gates: BTreeMap::new(),
            unknown: BTreeMap::new(),
            landed: BTreeMap::new(),
            past_code_freeze: match (until, cycle(current).and_then(|c| c.code_freeze_at)) {
                (Some(t), Some(at)) => t >= at.as_second(),
                _ => false,
            },
        };
        code.link(model);
        code.adopt_orphans(model);
        code.landed = code.find_landed(&k, model, until);
        code.warn_unread();
        Ok(code)
    }

    /// Every gate name declared in any file read.
    fn declared(&self) -> BTreeSet<&str> {
        self.shots
            .values()
            .flat_map(|s| s.snapshot.gates.keys().map(String::as_str))
            .collect()
    }

    /// The KEP a gate shared by several KEPs' kep.yaml belongs to: the one
    /// its `// kep:` comment names, when it names exactly one of them.
    pub fn owner(&self, gate: &str) -> Option<u32> {
        let keps = self.keps_of.get(gate)?;
        let named: Vec<u32> = self
            .newest(gate)?
            .keps
            .iter()
            .copied()
            .filter(|n| keps.contains(n))
            .collect();
        match named.as_slice() {
            [n] => Some(*n),
            _ => None,
        }
    }

    /// The newest declaration of `gate` (for its `// kep:` comment).
    fn newest(&self, gate: &str) -> Option<&gates::Gate> {
        self.shots
            .values()
            .rev()
            .find_map(|s| s.snapshot.gates.get(gate))
    }

    /// Tie gates to KEPs: kep.yaml's lists first, then `// kep:` comments.
    fn link(&mut self, model: &Model) {
        let declared: BTreeSet<String> = self.declared().into_iter().map(String::from).collect();
        let mut by_yaml: BTreeMap<String, Vec<u32>> = BTreeMap::new();
        // (KEP, gate) pairs seen: the lists stay free of repeats in one
        // lookup each, however long a kep.yaml's list (no scan per push).
        let mut seen = std::collections::HashSet::new();
        for kep in &model.keps {
            let Some(n) = kep.number() else { continue };
            for g in &kep.meta.feature_gates {
                let name = g.name.trim().trim_matches('"').to_string();
                if !seen.insert((n, name.clone())) {
                    continue;
                }
                if declared.contains(&name) {
                    self.yaml_gates.entry(n).or_default().push(name.clone());
                    by_yaml.entry(name).or_default().push(n);
                } else if !name.is_empty() {
                    self.unknown.entry(n).or_default().push(name);
                }
            }
        }
        for gate in &declared {
            let yaml = by_yaml.get(gate).cloned().unwrap_or_default();
            let comment = self
                .newest(gate)
                .map(|g| g.keps.clone())
                .unwrap_or_default();
            let mut keps = yaml.clone();
            for n in &comment {
                push_new(&mut keps, *n);
            }
            if !yaml.is_empty() && !comment.is_empty() && !comment.iter().any(|n| yaml.contains(n))
            {
                self.conflicts.push(Conflict {
                    gate: gate.clone(),
                    kep_yaml: yaml,
                    comment,
                });
            }
            // `declared` is a set and `keps` has no repeats: each pair
            // comes once, so a plain push keeps the lists free of repeats.
            for n in &keps {
                self.gates_of.entry(*n).or_default().push(gate.clone());
            }
            if !keps.is_empty() {
                self.keps_of.insert(gate.clone(), keps);
            }
        }
    }

    /// The stage `gate` had in release 1.`minor`: read at that release's
    /// files, or, before the first release read, from the oldest versioned
    /// specs. `None`: no such gate then.
    pub fn gate_stage(&self, gate: &str, minor: u32) -> Option<PreRelease> {
        self.gate_spec(gate, minor).map(|s| s.pre_release)
    }

    /// The spec of `gate` in force in release 1.`minor` (see
    /// [`Code::gate_stage`]). A release whose files give the gate one
    /// unversioned spec (v1.31's format) is read from the oldest versioned
    /// record of it, the code's own account of its releases, when one exists.
    pub fn gate_spec(&self, gate: &str, minor: u32) -> Option<gates::Spec> {
        let versioned = || {
            self.shots
                .values()
                .find_map(|s| s.snapshot.gates.get(gate).filter(|g| g.versioned))
        };
        if let Some(s) = self.shots.get(&minor) {
            let g = s.snapshot.gates.get(gate)?;
            let g = if g.versioned {
                g
            } else {
                versioned().unwrap_or(g)
            };
            return g.stage_at(minor).cloned();
        }
        let first = *self.shots.keys().next()?;
        if minor > first {
            return None;
        }
        versioned()?.stage_at(minor).cloned()
    }

    /// What each release did to `gate`: the first release at each stage
    /// (`alpha`, `beta`, `stable`, `deprecated`), the first where a beta
    /// turned on by default (`beta-on`), and the first where a default
    /// turned off after being on (`off`: a removal in progress).
    pub fn gate_events(&self, gate: &str) -> Vec<(&'static str, u32)> {
        let mut out: Vec<(&'static str, u32)> = Vec::new();
        let mut was_on = false;
        for &minor in &self.minors {
            let Some(spec) = self.gate_spec(gate, minor) else {
                continue;
            };
            let mut seen = |e: &'static str| {
                if !out.iter().any(|(x, _)| *x == e) {
                    out.push((e, minor));
                }
            };
            seen(match spec.pre_release {
                PreRelease::Alpha => "alpha",
                PreRelease::Beta => "beta",
                PreRelease::Ga => "stable",
                PreRelease::Deprecated => "deprecated",
            });
            if spec.pre_release == PreRelease::Beta && spec.default {
                seen("beta-on");
            }
            if was_on && !spec.default {
                seen("off");
            }
            was_on = spec.default;
        }
        out
    }

    /// KEP `n`'s gates in release 1.`minor` and the stage they give it.
    pub fn kep_stage(&self, n: u32, minor: u32) -> Option<KepCode> {
        let gates: Vec<(String, PreRelease)> = self
            .gates_of
            .get(&n)?
            .iter()
            .filter_map(|g| Some((g.clone(), self.gate_stage(g, minor)?)))
            .collect();
        let best = gates
            .iter()
            .filter_map(|(_, p)| code_stage(*p))
            .max_by_key(|s| s.rank());
        let stage = match best {
            Some(s) => s,
            None if !gates.is_empty() => Stage::Deprecated,
            None => return None,
        };
        Some(KepCode { stage, gates })
    }

    /// The releases where KEP `n`'s code first reached each stage (the
    /// first release where one of its gates had it), oldest first, with
    /// that gate; and the first release where all of its gates were
    /// deprecated.
    pub fn reached(&self, n: u32) -> Vec<(Stage, u32, String)> {
        let mut out: Vec<(Stage, u32, String)> = Vec::new();
        for &minor in &self.minors {
            let Some(k) = self.kep_stage(n, minor) else {
                continue;
            };
            let mut seen = |s: Stage, g: &str| {
                if !out.iter().any(|(x, _, _)| *x == s) {
                    out.push((s, minor, g.to_string()));
                }
            };
            if k.stage == Stage::Deprecated {
                seen(Stage::Deprecated, &k.gates[0].0);
                continue;
            }
            for (g, p) in &k.gates {
                if let Some(s) = code_stage(*p) {
                    seen(s, g);
                }
            }
        }
        out
    }

    /// Where each gate of the KEPs in the release in progress took the
    /// stage it has there (see [`gates::landed`]).
    fn find_landed(
        &self,
        k: &Kubernetes,
        model: &Model,
        until: Option<i64>,
    ) -> BTreeMap<String, Landed> {
        let minor = self.current.minor;
        let until = until.unwrap_or(i64::MAX);
        let mut out = BTreeMap::new();
        for kep in &model.keps {
            if !self.current.is(&kep.meta.latest_milestone) {
                continue;
            }
            let Some(gates) = kep.number().and_then(|n| self.gates_of.get(&n)) else {
                continue;
            };
            for g in gates {
                let Some(stage) = self.gate_stage(g, minor) else {
                    continue;
                };
                if let Some(commit) = gates::landed(k, g, minor, stage, until) {
                    let gate = g.clone();
                    out.insert(
                        g.clone(),
                        Landed {
                            gate,
                            stage,
                            commit,
                        },
                    );
                }
            }
        }
        out
    }
}

/// The stage a gate's pre-release level is for a KEP (deprecated: none).
pub fn code_stage(p: PreRelease) -> Option<Stage> {
    match p {
        PreRelease::Alpha => Some(Stage::Alpha),
        PreRelease::Beta => Some(Stage::Beta),
        PreRelease::Ga => Some(Stage::Stable),
        PreRelease::Deprecated => None,
    }
}

/// The files of release 1.`minor`: its highest patch tag, else the last
/// first-parent commit on or before its release day.
fn release_shot(k: &Kubernetes, minor: u32) -> Result<Option<Shot>> {
    if let Some(t) = k.release_tag(minor) {
        let snapshot = k.snapshot_at(&t.commit.id)?;
        return Ok(Some(shot(minor, t.name.clone(), &t.commit, snapshot)));
    }
    let Some(day) = cycle(Release::new(1, minor)).and_then(|c| c.release_date) else {
        return Ok(None);
    };
    let end = day
        .at(23, 59, 59, 0)
        .to_zoned(jiff::tz::TimeZone::UTC)
        .map(|z| z.timestamp().as_second())?;
    // A release before the checkout's first commit is not in it.
    let commits = k.master_commits();
    if commits.first().is_none_or(|c| c.time > end) {
        return Ok(None);
    }
    let Some(c) = k.last_before(end) else {
        return Ok(None);
    };
    let snapshot = k.snapshot_at(&c.id)?;
    Ok(Some(shot(
        minor,
        format!("master on {}", c.date),
        &c,
        snapshot,
    )))
}

fn shot(minor: u32, label: String, c: &CommitInfo, snapshot: Arc<Snapshot>) -> Shot {
    Shot {
        minor,
        label,
        commit: c.id.clone(),
        date: c.date.clone(),
        snapshot,
    }
}

fn push_new<T: PartialEq>(v: &mut Vec<T>, x: T) {
    if !v.contains(&x) {
        v.push(x);
    }
}
