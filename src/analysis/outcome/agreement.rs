//! Every stage change of a range of releases, files against code: the
//! measurement docs/release-rules.md reports (`tests/corpus/code.rs` prints it).
//!
//! A change is a KEP's first release at a stage: on the files' side new or
//! graduated (or a deprecation: a withdrawal or deprecated stage), on the
//! code's the first release where one of its gates had the stage (deprecated:
//! all of them). A files change also agrees when one of the KEP's gates
//! took the stage in that release (the KEP has several gates), a beta when a
//! gate's beta turned on by default then, a deprecation when a gate turned
//! deprecated or off by default. What the files cannot know is set aside
//! with its reason, never counted.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::code_note::files_change;
use super::{Outcome, ReleaseEntry};
use crate::analysis::code::Code;
use crate::kep::domain::{Release, Stage};
use crate::model::Model;
use crate::repo::history::History;

/// Stage changes found and agreed, for one stage.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct StageCount {
    /// Changes the files record (new, graduated, deprecated).
    pub files: usize,
    /// Changes the gates record.
    pub code: usize,
    /// Recorded by both in the same release.
    pub both: usize,
}

impl StageCount {
    /// Of the files' changes, the share the code confirms.
    pub fn precision(&self) -> f64 {
        self.both as f64 / self.files.max(1) as f64
    }
    /// Of the code's changes, the share the files record.
    pub fn recall(&self) -> f64 {
        self.both as f64 / self.code.max(1) as f64
    }
}

/// A stage change one side records and the other does not.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Disagreement {
    /// KEP.
    pub kep: u32,
    /// The stage.
    pub stage: Stage,
    /// The release.
    pub release: Release,
    /// `files` or `code`: the side that records it.
    pub side: &'static str,
    /// What the other side says.
    pub says: String,
}

/// A change set aside: one side cannot know it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Excluded {
    /// The change.
    pub change: Disagreement,
    /// Why.
    pub reason: String,
}

/// The files-only model against the gates over a range of releases.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Agreement {
    /// KEPs compared (with at least one gate in the code).
    pub keps: usize,
    /// Per stage: alpha, beta, stable, deprecated.
    pub stages: BTreeMap<String, StageCount>,
    /// Changes set aside, each with its reason.
    pub excluded: Vec<Excluded>,
    /// What remains.
    pub disagreements: Vec<Disagreement>,
}

type Key = (u32, String, u32);

/// What both sides record, gathered once.
struct Sides<'a> {
    code: &'a Code,
    /// Files changes in range → the outcome's label.
    files: BTreeMap<Key, String>,
    /// Code changes in range → the gate.
    changes: BTreeMap<Key, String>,
    /// (KEP, stage) → the first release the files ship it.
    shipped: BTreeMap<(u32, String), u32>,
    /// KEP → its first release by today's milestones.
    first: BTreeMap<u32, u32>,
    /// (KEP, stage, release) whose milestone was moved past the release
    /// after release day: slipped, by the files.
    late: BTreeSet<Key>,
}

/// The reason for a change the files cannot know because its milestone was
/// moved after release day: 58 of the 63 alpha and beta re-targets of
/// v1.31-v1.36 slipped by the gates, and no kep.yaml, README or PRR file
/// tells the other 5 (a second round of the same stage) from them.
const REWRITTEN: &str =
    "a milestone moved after release day, which the files cannot tell from a slip";

/// Compare the release views `views` (every release out, oldest first)
/// with the gates over the releases `range`.
pub fn agreement(
    model: &Model,
    history: Option<&History>,
    code: &Code,
    views: &[(Release, Vec<ReleaseEntry>)],
    range: std::ops::RangeInclusive<u32>,
) -> Agreement {
    let sides = Sides::new(model, history, code, views, range);
    let mut a = Agreement {
        keps: code.gates_of.len(),
        ..Agreement::default()
    };
    let mut explained: BTreeMap<Key, String> = BTreeMap::new();
    for (key, label) in &sides.files {
        let c = a.stages.entry(key.1.clone()).or_default();
        c.files += 1;
        if sides.changes.contains_key(key) {
            c.code += 1;
            c.both += 1;
            continue;
        }
        if let Some(g) = sides.gate_took(key) {
            c.code += 1;
            c.both += 1;
            // The KEP-level change elsewhere is this one, by another gate.
            for (k2, g2) in sides.changes.range((key.0, key.1.clone(), 0)..) {
                if k2.0 != key.0 || k2.1 != key.1 {
                    break;
                }
                let why = if g2 == g {
                    format!(
                        "the files record {} in v1.{}, when gate {g}'s {} (on by default for beta)",
                        key.1,
                        key.2,
                        if key.1 == "beta" {
                            "beta turned on by default"
                        } else {
                            "default changed"
                        }
                    )
                } else {
                    format!(
                        "gate {g2} took {} first; the files record it in v1.{}, when the KEP's gate {g} took it",
                        key.1, key.2
                    )
                };
                explained.insert(k2.clone(), why);
            }
            continue;
        }
        let change = disagreement(key, "files", format!("{label}; {}", sides.code_says(key)));
        match sides.files_unknowable(key) {
            Some(reason) => {
                c.files -= 1;
                a.excluded.push(Excluded { change, reason });
            }
            None => a.disagreements.push(change),
        }
    }
    sides.code_side(&explained, &mut a);
    a.disagreements.sort_by_key(|d| (d.side, d.kep, d.release));
    a
}

impl<'a> Sides<'a> {
    /// The changes only the code records: disagreements, unless the files
    /// cannot know them or another gate's change explains them.
    fn code_side(&self, explained: &BTreeMap<Key, String>, a: &mut Agreement) {
        for (key, gate) in &self.changes {
            if self.files.contains_key(key) {
                continue;
            }
            let change = disagreement(
                key,
                "code",
                format!("gate {gate}; the files record no change"),
            );
            let reason = explained
                .get(key)
                .cloned()
                .or_else(|| self.code_unknowable(key, gate));
            match reason {
                Some(reason) => a.excluded.push(Excluded { change, reason }),
                None => {
                    a.stages.entry(key.1.clone()).or_default().code += 1;
                    a.disagreements.push(change);
                }
            }
        }
    }
    fn new(
        model: &Model,
        history: Option<&History>,
        code: &'a Code,
        views: &[(Release, Vec<ReleaseEntry>)],
        range: std::ops::RangeInclusive<u32>,
    ) -> Self {
        let in_range: BTreeSet<u32> = range.collect();
        let mut files = BTreeMap::new();
        let mut shipped: BTreeMap<(u32, String), u32> = BTreeMap::new();
        // A KEP's deprecation steps (deprecated, disabled, removed) count
        // once, at the first, as its stages do.
        let mut deprecated: BTreeSet<u32> = BTreeSet::new();
        let mut late = BTreeSet::new();
        for (r, entries) in views {
            for e in entries {
                let Some(n) = e.number.filter(|n| code.gates_of.contains_key(n)) else {
                    continue;
                };
                let change =
                    files_change(e.into()).filter(|s| !s.is_deprecation() || deprecated.insert(n));
                if let Some(s) = change.filter(|_| in_range.contains(&r.minor)) {
                    files.insert((n, bucket(&s), r.minor), e.outcome.label(*r));
                }
                if matches!(e.outcome, Outcome::Slipped { late: true, .. }) {
                    late.insert((n, bucket(&e.stage), r.minor));
                }
                if matches!(e.outcome, Outcome::Shipped { .. }) {
                    let v = shipped.entry((n, bucket(&e.stage))).or_insert(r.minor);
                    *v = (*v).min(r.minor);
                }
            }
        }
        let mut changes = BTreeMap::new();
        for n in code.gates_of.keys() {
            let mut first = code.first_deprecation(*n);
            for (s, m, g) in code.reached(*n) {
                if s.is_deprecation() && first.as_ref().is_some_and(|(f, _)| *f < m) {
                    continue;
                }
                if in_range.contains(&m) {
                    changes.insert((*n, bucket(&s), m), g);
                }
            }
            // A gate deprecated, or removed before GA: the KEP's first
            // deprecation, as the views with the code deciding count it.
            if let Some((m, g)) = first.take().filter(|(m, _)| in_range.contains(m)) {
                changes.entry((*n, "deprecated".into(), m)).or_insert(g);
            }
        }
        Sides {
            code,
            files,
            changes,
            shipped,
            first: first_releases(model, history),
            late,
        }
    }

    fn gates(&self, n: u32) -> &[String] {
        self.code.gates_of.get(&n).map_or(&[], Vec::as_slice)
    }

    /// A gate of the KEP that took the files' stage in the files' release.
    fn gate_took(&self, (n, stage, minor): &Key) -> Option<&String> {
        let wanted: &[&str] = match stage.as_str() {
            "beta" => &["beta", "beta-on"],
            "deprecated" => &["deprecated", "off"],
            s => &[if s == "stable" { "stable" } else { "alpha" }],
        };
        self.gates(*n).iter().find(|g| {
            self.code
                .gate_events(g)
                .iter()
                .any(|(e, m)| m == minor && wanted.contains(e))
        })
    }

    /// For people: where the code's gates took the stage.
    fn code_says(&self, (n, stage, _): &Key) -> String {
        self.code
            .reached(*n)
            .into_iter()
            .find(|(s, _, _)| bucket(s) == *stage)
            .map(|(_, m, g)| format!("gate {g} reached it in v1.{m}"))
            .unwrap_or_else(|| "no gate reached it".into())
    }

    /// Why the code cannot confirm a files change, if it cannot.
    fn files_unknowable(&self, (n, stage, minor): &Key) -> Option<String> {
        let reached = self.code.reached(*n);
        let at = reached.iter().find(|(s, _, _)| bucket(s) == *stage);
        if let Some((_, m, g)) = at {
            if *m < *minor && self.late.contains(&(*n, stage.clone(), *m)) {
                return Some(format!(
                    "{REWRITTEN}: gate {g} reached {stage} in v1.{m}, whose milestone the files moved after release day"
                ));
            }
            if let Some(f) = self.first.get(n).filter(|f| m < *f && m < minor) {
                return Some(format!(
                    "gate {g} is older than the KEP: {stage} in v1.{m}, before its first milestone (v1.{f})"
                ));
            }
            return self.shared(g, *n);
        }
        let rank = Stage::parse(stage).rank();
        let later = reached
            .iter()
            .find(|(s, _, _)| !s.is_deprecation() && s.rank() > rank);
        if let Some((s, m, g)) = later.filter(|_| stage != "deprecated") {
            return Some(format!(
                "its gates skipped {stage}: gate {g} began at {s} in v1.{m}"
            ));
        }
        if stage == "deprecated"
            && self
                .gates(*n)
                .iter()
                .any(|g| self.code.keps_of.get(g).is_some_and(|k| k.len() > 1))
        {
            return Some("its gates live on in another KEP".into());
        }
        None
    }

    /// Why the files cannot know a change only the code records, if they
    /// cannot.
    fn code_unknowable(&self, (n, stage, minor): &Key, gate: &str) -> Option<String> {
        if self.late.contains(&(*n, stage.clone(), *minor)) {
            return Some(format!(
                "{REWRITTEN}: milestone.{stage} moved past v1.{minor} after release day"
            ));
        }
        if let Some(m) = self
            .shipped
            .get(&(*n, stage.clone()))
            .filter(|m| *m < minor)
        {
            return Some(format!(
                "a second gate ({gate}) reaching {stage}, which the KEP's files record in v1.{m}"
            ));
        }
        if let Some(c) = self.code.conflicts.iter().find(|c| c.gate == gate) {
            return Some(format!(
                "gate {gate}'s // kep: comment names KEP-{}, kep.yaml of KEP-{} lists it",
                join(&c.comment),
                join(&c.kep_yaml)
            ));
        }
        if let Some(why) = self.shared(gate, *n) {
            return Some(why);
        }
        if let Some(f) = self.first.get(n).filter(|f| minor < *f) {
            return Some(format!(
                "gate {gate} is older than the KEP ({stage} in v1.{minor}, its first milestone v1.{f})"
            ));
        }
        let listed = self.code.yaml_gates.get(n);
        if listed.is_some_and(|l| !l.is_empty() && !l.iter().any(|x| x == gate)) {
            return Some(format!(
                "gate {gate} names KEP-{n} in its // kep: comment only; KEP-{n}'s kep.yaml lists other gates"
            ));
        }
        if listed.is_none_or(|l| l.is_empty()) {
            return Some(format!(
                "gate {gate} names KEP-{n} in its // kep: comment; KEP-{n}'s kep.yaml lists no gate the code declares"
            ));
        }
        self.born_beside(*n, stage, *minor, gate)
    }

    /// Why `gate`'s changes are not KEP `n`'s to record: it belongs to
    /// another KEP (its `// kep:` comment) or to several, none named.
    fn shared(&self, gate: &str, n: u32) -> Option<String> {
        let ks = self.code.keps_of.get(gate).filter(|k| k.len() > 1)?;
        match self.code.owner(gate) {
            Some(o) if o == n => None,
            Some(o) => Some(format!(
                "gate {gate} is KEP-{o}'s (its // kep: comment); KEP-{n} lists it too"
            )),
            None => Some(format!("gate {gate} is shared by KEP-{}", join(ks))),
        }
    }

    /// A gate introduced at a later stage beside the KEP's gate that is
    /// still lower (an auxiliary gate born at beta, say).
    fn born_beside(&self, n: u32, stage: &str, minor: u32, gate: &str) -> Option<String> {
        let events = self.code.gate_events(gate);
        let born = events
            .first()
            .is_some_and(|(e, m)| *e == stage && *m == minor);
        if !born || stage == "alpha" {
            return None;
        }
        let rank = Stage::parse(stage).rank();
        let k = self.code.kep_stage(n, minor)?;
        let (g, p) = k.gates.iter().find(|(g, p)| {
            g != gate && crate::analysis::code::code_stage(*p).is_some_and(|s| s.rank() < rank)
        })?;
        Some(format!(
            "gate {gate} was introduced at {stage} beside the KEP's gate {g} (still {})",
            p.as_str()
        ))
    }
}

/// Each KEP's first release: the earliest its milestones name today or its
/// latest-milestone named in its history (milestones get rewritten).
fn first_releases(model: &Model, history: Option<&History>) -> BTreeMap<u32, u32> {
    let mut out = BTreeMap::new();
    for k in &model.keps {
        let Some(n) = k.number() else { continue };
        let then = history
            .and_then(|h| h.keps.get(&n))
            .into_iter()
            .flat_map(|h| h.changes.iter())
            .filter_map(|c| c.latest_milestone.as_deref().and_then(Release::parse));
        let first = k
            .meta
            .milestone
            .entries()
            .into_iter()
            .filter_map(|(_, w)| Release::parse(w))
            .chain(then)
            .map(|r| r.minor)
            .min();
        if let Some(f) = first {
            out.insert(n, f);
        }
    }
    out
}

fn bucket(s: &Stage) -> String {
    if s.is_deprecation() {
        "deprecated".into()
    } else {
        s.as_str().to_string()
    }
}

fn disagreement(key: &Key, side: &'static str, says: String) -> Disagreement {
    Disagreement {
        kep: key.0,
        stage: Stage::parse(&key.1),
        release: Release::new(1, key.2),
        side,
        says,
    }
}

fn join(v: &[u32]) -> String {
    v.iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(", KEP-")
}
