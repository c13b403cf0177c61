//! The files' outcome beside the code's: one KEP in one release
//! ([`note`]), and every stage change of a range of releases ([`agreement`],
//! the measurement the README reports).

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::{Code, KepCode, code_stage};
use crate::analysis::outcome::{Entry, Outcome, Step};
use crate::gates::PreRelease;
use crate::kep::domain::{Release, Stage};
use crate::model::Model;

/// What the code says of one KEP in one release.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CodeNote {
    /// Its gates and stage there, when it has gates in the code.
    pub code: Option<KepCode>,
    /// Whether the files and the code agree on the stage change here.
    pub agrees: bool,
    /// For people: "gate ImageVolume reached Beta in v1.33" or, where they
    /// disagree, "kep.yaml says stable in v1.30; gate X reached GA in v1.31".
    pub says: String,
}

/// What the files say of a KEP in a release: its stage there, what became
/// of it and, shipped, whether the stage was new.
#[derive(Debug, Clone, Copy)]
pub struct Said<'a> {
    /// The stage in the release.
    pub stage: &'a Stage,
    /// What became of it.
    pub outcome: &'a Outcome,
    /// New, graduated or continued.
    pub step: Option<Step>,
}

impl<'a> From<&'a Entry> for Said<'a> {
    fn from(e: &'a Entry) -> Self {
        Said {
            stage: &e.stage,
            outcome: &e.outcome,
            step: e.step,
        }
    }
}

/// The stage change the files record for an entry of a release that is
/// out: new or graduated, or a deprecation.
fn files_change(e: Said) -> Option<Stage> {
    match (e.outcome, e.step) {
        (Outcome::Shipped { .. }, Some(Step::Introduced | Step::Graduated)) => {
            Some(e.stage.clone())
        }
        (Outcome::Deprecated { .. }, _) => Some(Stage::Deprecated),
        _ => None,
    }
}

fn level(s: &Stage) -> &'static str {
    match s {
        Stage::Alpha => "Alpha",
        Stage::Beta => "Beta",
        Stage::Stable => "GA",
        _ => "Deprecated",
    }
}

fn is_change(s: &Stage, code: &Stage) -> bool {
    s == code || (s.is_deprecation() && code.is_deprecation())
}

/// What the code says of `e` (KEP `n`) in `release`, when the KEP has gates
/// in the code read. The release in progress: whether the gates already
/// carry the stage the KEP targets ("code landed").
pub fn note(code: &Code, n: u32, release: Release, e: Said) -> Option<CodeNote> {
    code.gates_of.get(&n)?;
    let here = code.kep_stage(n, release.minor);
    if release >= code.current {
        return Some(landed_note(code, n, release, e, here));
    }
    let reached = code.reached(n);
    let at_here: Vec<&(Stage, u32, String)> = reached
        .iter()
        .filter(|(_, m, _)| *m == release.minor)
        .collect();
    let files = files_change(e);
    let r = |m: u32| Release::new(1, m);
    let (agrees, says) = match &files {
        Some(s) if at_here.iter().any(|(c, _, _)| is_change(s, c)) => {
            let g = &at_here.iter().find(|(c, _, _)| is_change(s, c))?.2;
            (true, format!("gate {g} reached {} in {release}", level(s)))
        }
        Some(s) => {
            let elsewhere = reached.iter().find(|(c, _, _)| is_change(s, c));
            let said = format!("kep.yaml says {s} in {release}");
            match elsewhere {
                Some((_, m, g)) => (
                    false,
                    format!("{said}; gate {g} reached {} in {}", level(s), r(*m)),
                ),
                None => (
                    false,
                    format!("{said}; its gates never reached {}", level(s)),
                ),
            }
        }
        None => match at_here.first() {
            Some((c, _, g)) => (
                false,
                format!(
                    "gate {g} reached {} in {release}; the KEP's files say {}{}",
                    level(c),
                    e.outcome.label().to_lowercase(),
                    e.step
                        .map(|s| format!(" ({} {})", e.stage, s.label()))
                        .unwrap_or_default()
                ),
            ),
            None => (true, String::new()),
        },
    };
    Some(CodeNote {
        code: here,
        agrees,
        says,
    })
}

/// The release in progress: whether the KEP's gates carry its target stage
/// for the release on master.
fn landed_note(code: &Code, n: u32, release: Release, e: Said, here: Option<KepCode>) -> CodeNote {
    let want = e.stage.nearest().unwrap_or_default();
    let ok = |p: PreRelease| {
        code_stage(p).map_or(want.is_deprecation(), |s| s == want) && !want.is_unset()
    };
    let hit = code.gates_of.get(&n).into_iter().flatten().find_map(|g| {
        let l = code.landed.get(g)?;
        let fresh = code.shots.get(&release.minor).is_some_and(|s| {
            s.snapshot
                .gates
                .get(g)
                .and_then(|x| x.stage_at(release.minor))
                .is_some_and(|sp| sp.minor == release.minor)
        });
        (ok(l.stage) && fresh).then_some(l)
    });
    let already = || {
        let shot = code.shots.get(&release.minor)?;
        code.gates_of.get(&n)?.iter().find_map(|g| {
            let spec = shot.snapshot.gates.get(g)?.stage_at(release.minor)?;
            ok(spec.pre_release)
                .then(|| format!("{g} {} since 1.{}", spec.pre_release.as_str(), spec.minor))
        })
    };
    let in_place = if hit.is_none() { already() } else { None };
    let says = match hit {
        None if in_place.is_some() => format!(
            "code in place: gate {} (no change needed for {want})",
            in_place.as_deref().unwrap_or_default()
        ),
        Some(l) => format!(
            "code landed: gate {} {} in {}.{} ({}, {})",
            l.gate,
            l.stage.as_str(),
            release.major,
            release.minor,
            &l.commit.id[..l.commit.id.len().min(10)],
            l.commit.date
        ),
        None if want.is_unset() => String::new(),
        None => {
            let now = here
                .as_ref()
                .map(|k| {
                    k.gates
                        .iter()
                        .map(|(g, p)| format!("{g} is {}", p.as_str()))
                        .collect::<Vec<_>>()
                        .join(", ")
                })
                .filter(|s| !s.is_empty())
                .unwrap_or_else(|| "no gate in the code yet".into());
            let risk = if code.past_code_freeze {
                "; past Code Freeze: at risk of removal from the release"
            } else {
                ""
            };
            format!("code not landed: {want} targeted, {now}{risk}")
        }
    };
    CodeNote {
        agrees: hit.is_some() || in_place.is_some() || want.is_unset(),
        code: here,
        says,
    }
}

/// Stage changes found and agreed, for one stage.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct StageCount {
    /// Changes the files record (new, graduated, deprecated).
    pub files: usize,
    /// Changes the gates record (first reach of the stage).
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

/// A change set aside: the files cannot know it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Excluded {
    /// The change.
    pub change: Disagreement,
    /// Why the files cannot know it.
    pub reason: String,
}

/// The files-only model against the gates over a range of releases.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Agreement {
    /// KEPs compared (with at least one gate in the code).
    pub keps: usize,
    /// Per stage: alpha, beta, stable, deprecated.
    pub stages: BTreeMap<String, StageCount>,
    /// Changes the files cannot know, each with its reason.
    pub excluded: Vec<Excluded>,
    /// What remains.
    pub disagreements: Vec<Disagreement>,
}

/// Compare the release views `views` (every release out, oldest first)
/// with the gates over the releases `range`: every (KEP, stage, release)
/// change either side records there, minus those the files cannot know.
pub fn agreement(
    model: &Model,
    code: &Code,
    views: &[(Release, Vec<Entry>)],
    range: std::ops::RangeInclusive<u32>,
) -> Agreement {
    let in_range: BTreeSet<u32> = range.collect();
    let mut files: BTreeMap<(u32, String, u32), String> = BTreeMap::new();
    let mut shipped_before: BTreeMap<(u32, String), u32> = BTreeMap::new();
    for (r, entries) in views {
        for e in entries {
            let Some(n) = e.number.filter(|n| code.gates_of.contains_key(n)) else {
                continue;
            };
            if let Some(s) = files_change(e.into()).filter(|_| in_range.contains(&r.minor)) {
                files.insert((n, bucket(&s), r.minor), e.outcome.label().into());
            }
            if matches!(e.outcome, Outcome::Shipped { .. }) {
                let k = (n, bucket(&e.stage));
                let v = shipped_before.entry(k).or_insert(r.minor);
                *v = (*v).min(r.minor);
            }
        }
    }
    let mut code_changes: BTreeMap<(u32, String, u32), String> = BTreeMap::new();
    for n in code.gates_of.keys() {
        for (s, m, g) in code.reached(*n) {
            if in_range.contains(&m) {
                code_changes.insert((*n, bucket(&s), m), g);
            }
        }
    }
    let mut a = Agreement {
        keps: code.gates_of.len(),
        ..Agreement::default()
    };
    for (key, gate) in &code_changes {
        let c = a.stages.entry(key.1.clone()).or_default();
        if files.contains_key(key) {
            c.code += 1;
            c.files += 1;
            c.both += 1;
            continue;
        }
        let change = disagreement(key, "code", format!("gate {gate}; files: none"));
        match unknowable(code, key, gate, &shipped_before) {
            Some(reason) => a.excluded.push(Excluded { change, reason }),
            None => {
                c.code += 1;
                a.disagreements.push(change);
            }
        }
    }
    files_only(model, code, &files, &code_changes, &mut a);
    a
}

/// The changes only the files record: disagreements, unless the gate that
/// reached the stage is older than the KEP.
fn files_only(
    model: &Model,
    code: &Code,
    files: &BTreeMap<(u32, String, u32), String>,
    code_changes: &BTreeMap<(u32, String, u32), String>,
    a: &mut Agreement,
) {
    let first_release = first_releases(model);
    for (key, label) in files {
        if code_changes.contains_key(key) {
            continue;
        }
        let c = a.stages.entry(key.1.clone()).or_default();
        c.files += 1;
        let earlier = code
            .reached(key.0)
            .into_iter()
            .find(|(s, _, _)| bucket(s) == key.1);
        let when = earlier
            .as_ref()
            .map(|(_, m, g)| format!("gate {g} reached it in v1.{m}"))
            .unwrap_or_else(|| "no gate reached it".into());
        let change = disagreement(key, "files", format!("{label}; {when}"));
        let first = first_release.get(&key.0).copied();
        match earlier {
            Some((_, m, g)) if m < key.2 && first.is_some_and(|f| m < f) => {
                a.excluded.push(Excluded {
                    change,
                    reason: format!(
                        "gate {g} is older than the KEP: {} in v1.{m}, before the KEP's first \
                         milestone (v1.{})",
                        key.1,
                        first.unwrap_or_default()
                    ),
                });
                c.files -= 1;
            }
            _ => a.disagreements.push(change),
        }
    }
}

/// Each KEP's first release, by its milestones today.
fn first_releases(model: &Model) -> BTreeMap<u32, u32> {
    let mut out = BTreeMap::new();
    for k in &model.keps {
        let Some(n) = k.number() else { continue };
        let first = k
            .meta
            .milestone
            .entries()
            .into_iter()
            .filter_map(|(_, w)| Release::parse(w))
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

fn disagreement(key: &(u32, String, u32), side: &'static str, says: String) -> Disagreement {
    Disagreement {
        kep: key.0,
        stage: Stage::parse(&key.1),
        release: Release::new(1, key.2),
        side,
        says,
    }
}

/// Why the files cannot know a change only the code records, if they can't.
fn unknowable(
    code: &Code,
    (n, stage, minor): &(u32, String, u32),
    gate: &str,
    shipped_before: &BTreeMap<(u32, String), u32>,
) -> Option<String> {
    if let Some(m) = shipped_before
        .get(&(*n, stage.clone()))
        .filter(|m| **m < *minor)
    {
        return Some(format!(
            "a second gate ({gate}) reaching {stage}, which the KEP's files record in v1.{m}"
        ));
    }
    if let Some(c) = code.conflicts.iter().find(|c| c.gate == gate) {
        return Some(format!(
            "gate {gate}'s // kep: comment names KEP-{}, kep.yaml of KEP-{} lists it",
            join(&c.comment),
            join(&c.kep_yaml)
        ));
    }
    let owners = code.keps_of.get(gate).map_or(0, Vec::len);
    if owners > 1 {
        return Some(format!(
            "gate {gate} belongs to {owners} KEPs ({})",
            join(code.keps_of.get(gate)?)
        ));
    }
    None
}

fn join(v: &[u32]) -> String {
    v.iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(", KEP-")
}
