//! Whether a KEP's code carries its target stage in the release in
//! progress ([`landing`]), and what that reads as ([`landing_says`]).

use super::{Code, KepCode, code_stage};
use crate::kep::domain::{Release, Stage};
use crate::repo::gates::PreRelease;

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
        self.in_place.is_some()
            || self
                .landed
                .as_ref()
                .is_some_and(|l| crate::repo::committed_before(l.commit.time, at))
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
