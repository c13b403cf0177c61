//! A KEP's `milestone.<stage>` against the release its gates reached that
//! stage: "kep.yaml says stable in v1.30; gate PDBUnhealthyPodEvictionPolicy
//! reached GA in v1.31". The KEP page shows these, and `check --kubernetes`
//! reports each as a `milestone-vs-code` finding at the milestone's line.

use serde::Serialize;

use super::Code;
use crate::finding::Finding;
use crate::kep::Kep;
use crate::kep::domain::{Release, Stage};

/// One stage whose milestone and code disagree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MilestoneNote {
    /// The stage.
    pub stage: Stage,
    /// What `milestone.<stage>` names.
    pub milestone: Release,
    /// Where the code reached it: the release and the gate, when it did.
    pub code: Option<(Release, String)>,
    /// For people.
    pub says: String,
}

/// Each of alpha, beta and stable whose milestone names a release out (or
/// one the code already reached the stage in) other than the release the
/// KEP's gates first reached it. A KEP without gates in the code has none.
pub fn milestone_notes(code: &Code, kep: &Kep) -> Vec<MilestoneNote> {
    let Some(n) = kep.number().filter(|n| code.gates_of.contains_key(n)) else {
        return Vec::new();
    };
    let reached = code.reached(n);
    let mut out = Vec::new();
    for stage in [Stage::Alpha, Stage::Beta, Stage::Stable] {
        let Some(m) = kep.meta.milestone.release(&stage) else {
            continue;
        };
        // The stage itself, else a later one (a gate that skipped it).
        let at = reached
            .iter()
            .find(|(s, _, _)| *s == stage)
            .or_else(|| {
                reached
                    .iter()
                    .find(|(s, _, _)| !s.is_deprecation() && s.rank() > stage.rank())
            })
            .map(|(_, minor, g)| (Release::new(1, *minor), g.clone()));
        // Nothing to compare before the first release whose code was read,
        // or for a release not out yet whose code has not reached it.
        let first = code.shots.keys().next().copied().unwrap_or(u32::MAX);
        if m.minor < first || (m >= code.current && at.is_none()) {
            continue;
        }
        let level = match stage {
            Stage::Stable => "GA",
            Stage::Beta => "Beta",
            _ => "Alpha",
        };
        let says = match &at {
            Some((r, _)) if *r == m => continue,
            // Reached before the first release read: the specs say so, but
            // an older gate may be another KEP's (shared gates).
            Some((r, _)) if r.minor < first => continue,
            Some((r, g)) => {
                format!("kep.yaml says {stage} in {m}; gate {g} reached {level} in {r}")
            }
            None if code.unread(m.minor).is_some() => code.cannot_tell(m.minor).unwrap_or_default(),
            None => {
                let gates = code
                    .gates_of
                    .get(&n)
                    .map(|g| g.join(", "))
                    .unwrap_or_default();
                format!(
                    "kep.yaml says {stage} in {m}; its gates ({gates}) have not reached {level}"
                )
            }
        };
        out.push(MilestoneNote {
            stage,
            milestone: m,
            code: at,
            says,
        });
    }
    out
}

/// `check --kubernetes`: a `milestone-vs-code` warning per note, at the
/// milestone's line of kep.yaml.
pub fn findings(code: &Code, keps: &[Kep]) -> Vec<Finding> {
    let mut out = Vec::new();
    for kep in keps {
        for note in milestone_notes(code, kep) {
            let line = kep.line(&format!("milestone.{}", note.stage));
            let hint = match &note.code {
                Some((r, _)) => format!(
                    "set `milestone.{}` to \"{r}\" if the gate's release is when it shipped",
                    note.stage
                ),
                None if code.unread(note.milestone.minor).is_some() => {
                    "the code of that release was not read whole (see the warnings): read it again once it is".into()
                }
                None => "the stage has not shipped in the code: move the milestone to the release that ships it".into(),
            };
            out.push(
                Finding::warning("milestone-vs-code", &kep.metadata_path, note.says)
                    .at(line)
                    .kep(kep.number())
                    .hint(hint),
            );
        }
    }
    out
}

/// The KEP page's panel: each gate's stages per release as the code read
/// them ("1.31 Alpha · 1.33 Beta · 1.36 GA"), the milestone notes, and
/// where the code was read. `None` for a KEP without gates in the code.
pub fn kep_panel(code: &Code, kep: &Kep, n: u32) -> Option<serde_json::Value> {
    let gates = code.gates_of.get(&n)?;
    let rows: Vec<serde_json::Value> = gates
        .iter()
        .map(|g| {
            let steps = gate_steps(code, g);
            let kep_yaml = kep.meta.feature_gates.iter().any(|x| x.name.trim() == g);
            serde_json::json!({ "name": g, "stages": steps, "kep_yaml": kep_yaml })
        })
        .collect();
    let notes: Vec<String> = milestone_notes(code, kep)
        .into_iter()
        .map(|m| m.says)
        .collect();
    let read: Vec<String> = code.shots.values().map(|s| s.label.clone()).collect();
    Some(serde_json::json!({
        "gates": rows,
        "notes": notes,
        "source": code.source,
        "read": format!("{} … {}", read.first()?, read.last()?),
    }))
}

/// A gate's stage changes as the code read them: `["1.31 Alpha", "1.33
/// Beta", "1.36 GA"]`.
pub fn gate_steps(code: &Code, gate: &str) -> Vec<String> {
    let mut steps: Vec<String> = Vec::new();
    let mut last = None;
    for &minor in &code.minors {
        // A release whose files lack the gate changes nothing here.
        let Some(now) = code.gate_stage(gate, minor) else {
            continue;
        };
        if last != Some(now) {
            steps.push(format!("1.{minor} {}", now.as_str()));
        }
        last = Some(now);
    }
    steps
}
