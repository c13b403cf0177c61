//! The files' outcome beside the code's for one KEP in one release
//! ([`note`]).

use serde::Serialize;

use super::{Code, KepCode, code_stage};
use crate::analysis::outcome::{Outcome, ReleaseEntry, Step};
use crate::kep::domain::{Release, Stage};
use crate::repo::gates::PreRelease;

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

impl<'a> From<&'a ReleaseEntry> for Said<'a> {
    fn from(e: &'a ReleaseEntry) -> Self {
        Said {
            stage: &e.stage,
            outcome: &e.outcome,
            step: e.step,
        }
    }
}

/// The stage change the files record for an entry of a release that is
/// out: new or graduated, or a deprecation.
pub(super) fn files_change(e: Said) -> Option<Stage> {
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
    if !code.gates_of.contains_key(&n) {
        // Gates its kep.yaml lists, none found: in a release not read
        // whole, they may be in what was not read.
        let says = code.unknown.get(&n).and(code.cannot_tell(release.minor))?;
        return Some(CodeNote {
            code: None,
            agrees: false,
            says,
        });
    }
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
                None => match code.cannot_tell(release.minor) {
                    Some(t) => (false, t),
                    None => (
                        false,
                        format!("{said}; its gates never reached {}", level(s)),
                    ),
                },
            }
        }
        None => match at_here.first() {
            Some((c, _, g)) => (
                false,
                format!(
                    "gate {g} reached {} in {release}; the KEP's files say {}{}",
                    level(c),
                    e.outcome.label(release).to_lowercase(),
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

/// Whether a KEP's code carries its target stage in the release in
/// progress ([`landing`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Landing {
    /// The stage the KEP targets.
    pub want: Stage,
    /// A gate took that stage for the release: the gate and where.
    pub landed: Option<super::Landed>,
    /// A gate already had that stage before the release (`Gate Beta since
    /// 1.36`): nothing to land.
    pub in_place: Option<String>,
}

impl Landing {
    /// Whether the code is there (landed or in place).
    pub fn ok(&self) -> bool {
        self.landed.is_some() || self.in_place.is_some()
    }

    /// Whether the code was there at the instant `at` (unix seconds): in
    /// place, or landed by then.
    pub fn ok_at(&self, at: i64) -> bool {
        self.in_place.is_some() || self.landed.as_ref().is_some_and(|l| l.commit.time <= at)
    }
}

/// Whether KEP `n`'s gates carry `stage` for `release` (the release in
/// progress) on master; `None` when the KEP has no gate in the code, or no
/// stage to look for.
pub fn landing(code: &Code, n: u32, release: Release, stage: &Stage) -> Option<Landing> {
    code.gates_of.get(&n)?;
    let want = stage.nearest().unwrap_or_default();
    if want.is_unset() {
        return None;
    }
    let ok = |p: PreRelease| code_stage(p).map_or(want.is_deprecation(), |s| s == want);
    let landed = code.gates_of.get(&n).into_iter().flatten().find_map(|g| {
        let l = code.landed.get(g)?;
        let fresh = code.shots.get(&release.minor).is_some_and(|s| {
            s.snapshot
                .gates
                .get(g)
                .and_then(|x| x.stage_at(release.minor))
                .is_some_and(|sp| sp.minor == release.minor)
        });
        (ok(l.stage) && fresh).then(|| l.clone())
    });
    let in_place = if landed.is_none() {
        let shot = code.shots.get(&release.minor)?;
        code.gates_of.get(&n)?.iter().find_map(|g| {
            let spec = shot.snapshot.gates.get(g)?.stage_at(release.minor)?;
            ok(spec.pre_release)
                .then(|| format!("{g} {} since 1.{}", spec.pre_release.as_str(), spec.minor))
        })
    } else {
        None
    };
    Some(Landing {
        want,
        landed,
        in_place,
    })
}

/// The release in progress: whether the KEP's gates carry its target stage
/// for the release on master.
fn landed_note(code: &Code, n: u32, release: Release, e: Said, here: Option<KepCode>) -> CodeNote {
    let l = landing(code, n, release, e.stage);
    let says = match &l {
        None => String::new(),
        Some(l) => landing_says(code, release, l, here.as_ref()),
    };
    CodeNote {
        agrees: l.as_ref().is_none_or(Landing::ok),
        code: here,
        says,
    }
}

/// For people: "code landed: gate X Alpha in 1.37 (…)", "code in place:
/// …", "code not landed: …".
pub fn landing_says(code: &Code, release: Release, l: &Landing, here: Option<&KepCode>) -> String {
    let want = &l.want;
    if let Some(l) = &l.landed {
        return format!(
            "code landed: gate {} {} in {}.{} ({}, {})",
            l.gate,
            l.stage.as_str(),
            release.major,
            release.minor,
            &l.commit.id[..l.commit.id.len().min(10)],
            l.commit.date
        );
    }
    if let Some(p) = &l.in_place {
        return format!("code in place: gate {p} (no change needed for {want})");
    }
    if let Some(why) = code.cannot_tell(release.minor) {
        return why;
    }
    let now = here
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
