//! The code decides (issue 45): with `--kubernetes`, one KEP in one release
//! that is out ([`Code`], the files' reading from [`super::out_entry`]) →
//! its stage, outcome and step, and [`Decided`]: which source decided and,
//! where the files read otherwise, what they say.
//!
//! The rule, in one place (docs/release-rules.md, "When the code decides"):
//!
//! - A KEP with gates in the code, in a release whose code was read whole:
//!   its stage in R is the highest stage one of its gates reached for the
//!   first time in R (the KEP's first release at that stage, as
//!   [`Code::reached`] counts it), naming that gate; new when the code
//!   had no stage for it before, graduated otherwise. No gate reached a
//!   stage: a gate newly deprecated in R, or an alpha or beta gate removed
//!   in R, is a deprecation. Otherwise the files' target is judged by the
//!   code: reached earlier, it continued; not reached, it slipped (whatever
//!   kep.yaml says), and the slip says where the code took it.
//! - The files decide the rest: KEPs without gates, or whose every gate
//!   is shared with another KEP (an umbrella gate), releases whose code
//!   was not read whole, KEPs withdrawn in R, and a deprecation kep.yaml
//!   records that no gate shows (deprecating a feature does not always
//!   touch its gate).

use serde::Serialize;

use super::{Landed, Outcome, Step, out_entry, withdrawn_in};
use crate::analysis::code::Code;
use crate::kep::Kep;
use crate::kep::domain::{Release, Stage};
use crate::repo::history::KepHistory;

/// Which source decided a KEP's outcome in a release that is out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Decider {
    /// Kubernetes' feature gates (`--kubernetes`).
    Code,
    /// The KEP's files (kep.yaml, with history its past versions).
    Files,
}

impl Decider {
    /// For people: `from the code`, `from the KEP files`.
    pub fn says(self) -> &'static str {
        match self {
            Decider::Code => "from the code",
            Decider::Files => "from the KEP files",
        }
    }
}

/// How an outcome was decided (set only with `--kubernetes`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Decided {
    /// The source that decided.
    pub by: Decider,
    /// For people: `from the code`, `from the KEP files`.
    pub says: &'static str,
    /// The gate whose stage decided it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gate: Option<String>,
    /// Where the files read otherwise, what they say: `kep.yaml: alpha
    /// v1.33, moved after release day`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub files: Option<String>,
}

/// A KEP's reading in a release: stage, outcome, step.
type Reading = (Stage, Outcome, Option<Step>);

/// `kep` in `release` (out) with the code at hand: its reading and who
/// decided it; `None` when neither source puts it in the release.
pub(super) fn out_decided(
    code: &Code,
    kep: &Kep,
    hist: Option<&KepHistory>,
    release: Release,
) -> Option<(Stage, Outcome, Option<Step>, Decided)> {
    let files = out_entry(kep, hist, release);
    let by_files = |f: Reading| {
        let d = Decided {
            by: Decider::Files,
            says: Decider::Files.says(),
            gate: None,
            files: None,
        };
        (f.0, f.1, f.2, d)
    };
    let n = match kep.number() {
        Some(n) if owns_a_gate(code, n) => n,
        _ => return files.map(by_files),
    };
    if code.cannot_tell(release.minor).is_some() || withdrawn_in(kep, release) {
        return files.map(by_files);
    }
    let (reading, gate) = match moved(code, n, release.minor, files.as_ref()) {
        Some(m) => m,
        None => match &files {
            None => return None,
            Some((_, Outcome::Deprecated { .. }, _)) => return files.map(by_files),
            Some(f) => (judge(code, n, release.minor, f), None),
        },
    };
    let differs = files.as_ref().is_none_or(|f| !same(f, &reading));
    let said = differs.then(|| files_say(kep, release, files.as_ref(), &reading.0));
    let d = Decided {
        by: Decider::Code,
        says: Decider::Code.says(),
        gate,
        files: said,
    };
    Some((reading.0, reading.1, reading.2, d))
}

/// Whether KEP `n` has a gate of its own: one no other KEP's kep.yaml
/// lists, or one its `// kep:` comment gives it among those that do. An
/// umbrella gate (`CPUManagerPolicyBetaOptions`, shared by every CPU
/// manager option) cannot tell one KEP's stage.
fn owns_a_gate(code: &Code, n: u32) -> bool {
    code.gates_of.get(&n).is_some_and(|gates| {
        gates
            .iter()
            .any(|g| match code.keps_of.get(g).map(Vec::as_slice) {
                Some([only]) => *only == n,
                _ => code.owner(g) == Some(n),
            })
    })
}

/// What KEP `n`'s gates did in 1.`minor`: the highest stage first reached
/// there, else a deprecation or removal; with the gate.
fn moved(
    code: &Code,
    n: u32,
    minor: u32,
    files: Option<&Reading>,
) -> Option<(Reading, Option<String>)> {
    let mut reached = code.reached(n);
    // A beta turned on by default is the beta the release ships to
    // everyone (the posts' "New features in Beta"), when no gate of the
    // KEP reached a stage there and its code is not already stable.
    let moved_or_stable = reached
        .iter()
        .any(|(s, m, _)| *m == minor || (*s == Stage::Stable && *m < minor));
    let on = code.gates_of.get(&n).into_iter().flatten().find(|g| {
        code.gate_events(g)
            .iter()
            .any(|(e, m)| *e == "beta-on" && *m == minor)
    });
    if let Some(g) = on.filter(|_| !moved_or_stable) {
        reached.push((Stage::Beta, minor, format!("{g} (beta, on by default)")));
    }
    let best = reached
        .iter()
        .filter(|(s, m, _)| *m == minor && !s.is_deprecation())
        .max_by_key(|(s, _, _)| s.rank());
    if let Some((s, _, g)) = best {
        let before = reached
            .iter()
            .any(|(s2, m, _)| *m < minor && !s2.is_deprecation());
        let step = if before {
            Step::Graduated
        } else {
            Step::Introduced
        };
        let commit = files_commit(files, s);
        return Some((
            (s.clone(), Outcome::Shipped { commit }, Some(step)),
            Some(g.clone()),
        ));
    }
    let g = code.deprecated_in(n, minor)?;
    let commit = files_commit(files, &Stage::Deprecated);
    Some((
        (Stage::Deprecated, Outcome::Deprecated { commit }, None),
        Some(g),
    ))
}

/// The files' commit for `stage`, when they record the same change.
fn files_commit(files: Option<&Reading>, stage: &Stage) -> Option<Landed> {
    match files? {
        (s, Outcome::Shipped { commit } | Outcome::Deprecated { commit }, _)
            if s == stage || (s.is_deprecation() && stage.is_deprecation()) =>
        {
            commit.clone()
        }
        _ => None,
    }
}

/// No gate moved in 1.`minor`: the files' target judged by the code.
fn judge(code: &Code, n: u32, minor: u32, files: &Reading) -> Reading {
    let (stage, outcome, _) = files;
    let target = match outcome {
        Outcome::Shipped { .. } | Outcome::Slipped { .. } => stage.clone(),
        _ => return files.clone(),
    };
    let here = code.kep_stage(n, minor);
    let has = here
        .as_ref()
        .is_some_and(|k| !k.stage.is_deprecation() && k.stage.rank() >= target.rank());
    if has {
        // Reached before this release: continued (stable again is no
        // stage change, as the files read it).
        if target == Stage::Stable {
            return (Stage::Unset, Outcome::LatestOnly, Some(Step::Continued));
        }
        return (
            target,
            Outcome::Shipped { commit: None },
            Some(Step::Continued),
        );
    }
    let later = code
        .reached(n)
        .into_iter()
        .find(|(s, m, _)| *s == target && *m > minor);
    let (went, to) = match later {
        Some((s, m, g)) => (
            format!("{s} in v1.{m} (gate {g})"),
            Some(Release::new(1, m)),
        ),
        None => {
            let now: Vec<String> = here
                .iter()
                .flat_map(|k| &k.gates)
                .map(|(g, p)| format!("{g} {}", p.as_str()))
                .collect();
            let now = match now.is_empty() {
                true => "no gate in the code".to_string(),
                false => now.join(", "),
            };
            (format!("not {target} in the code: {now}"), None)
        }
    };
    let late = matches!(outcome, Outcome::Slipped { late: true, .. });
    (target, Outcome::Slipped { went, to, late }, None)
}

/// Whether two readings record the same thing (stage, outcome, and
/// whether it was a change).
fn same(a: &Reading, b: &Reading) -> bool {
    let change = |r: &Reading| r.2.map(|s| s != Step::Continued);
    a.0 == b.0 && a.1.id() == b.1.id() && change(a) == change(b)
}

/// What the files say, for people, where they read otherwise than the
/// code: `kep.yaml: alpha v1.33, moved after release day`.
fn files_say(kep: &Kep, release: Release, files: Option<&Reading>, code: &Stage) -> String {
    let Some((stage, outcome, step)) = files else {
        let stage = if code.is_deprecation() {
            "deprecated"
        } else {
            code.as_str()
        };
        return match kep.meta.milestone.release(code) {
            Some(r) => format!("kep.yaml: {stage} {r}"),
            None => format!("kep.yaml: no {stage} milestone"),
        };
    };
    match outcome {
        Outcome::Slipped { to, late, went } => {
            let at = match to {
                Some(r) => format!("kep.yaml: {stage} {r}"),
                None => format!("kep.yaml: slipped ({went})"),
            };
            match late {
                true => format!("{at}, moved after release day"),
                false => at,
            }
        }
        Outcome::LatestOnly => format!("kep.yaml: no stage change in {release}"),
        _ => match step {
            Some(s) => format!("kep.yaml: {stage} {release} ({})", s.label()),
            None => format!("kep.yaml: {stage} {release}"),
        },
    }
}

/// One KEP's outcome in one release that is out, with who decided: what
/// `query --release`, `export` and the KEP page list with `--kubernetes`.
#[derive(Debug, Clone, Serialize)]
pub struct KepOutcome {
    /// The release.
    pub release: Release,
    /// The stage there (unset: no stage change).
    pub stage: Stage,
    /// `shipped`, `deprecated`, `slipped`, `latest-only`.
    pub outcome: &'static str,
    /// For people: `Shipped`, `Slipped`, ...
    pub label: String,
    /// Shipped: `new`, `graduated`, `continued`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub step: Option<&'static str>,
    /// Where a slipped KEP went.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub went: Option<String>,
    /// Who decided, and what the files say where they differ.
    pub decided: Decided,
}

/// With the code at hand, each KEP's outcomes (model order) in the
/// releases of `releases` that are out, oldest first; without it, none.
pub fn outcomes_by_kep(
    src: &super::Sources,
    releases: impl IntoIterator<Item = Release>,
) -> Vec<Vec<KepOutcome>> {
    let mut out = vec![Vec::new(); src.model.keps.len()];
    if src.code.is_none() {
        return out;
    }
    let mut releases: Vec<Release> = releases
        .into_iter()
        .filter(|r| super::phase(&src.current, *r) == super::Phase::Out)
        .collect();
    releases.sort();
    releases.dedup();
    for r in releases {
        for e in super::release_view(src, r).entries {
            let Some(decided) = e.decided else { continue };
            out[e.id].push(KepOutcome {
                release: r,
                label: e.outcome.label(r),
                outcome: e.outcome.id(),
                went: e.outcome.went().map(str::to_string),
                stage: e.stage,
                step: e.step.map(Step::label),
                decided,
            });
        }
    }
    out
}
