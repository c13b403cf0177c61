//! The files' outcome beside the code's for one KEP in one release
//! ([`note`]): the comparison, which reads the code's facts
//! ([`crate::analysis::code`]) and never the other way round.

use serde::Serialize;

use super::{Outcome, ReleaseEntry, Step};
use crate::analysis::code::{Code, KepCode, Landing, landing, landing_says};
use crate::kep::domain::{Release, Stage};

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
pub(crate) fn files_change(e: Said) -> Option<Stage> {
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
