//! The release in progress as the board tracks it: the [`Sources`] and
//! the release → its [`ReleaseView`], each KEP the files or the team's
//! issues tie to it either tracked on the board (its [`Tracking`](board::Tracking) and
//! status) or listed apart.

use super::{ApartEntry, Outcome, Phase, ReleaseEntry, ReleaseView, Sources, history_of, stage_in};
use crate::analysis::board::{self, Facts, Kept, Membership, Source, TeamFacts};
use crate::analysis::calendar::{Current, cycle};
use crate::kep::domain::{Release, Stage};
use crate::model::KepId;
use crate::team::Freeze;

impl<'a> Sources<'a> {
    fn facts(&self) -> Facts<'a> {
        Facts {
            deadlines: &self.analysis.deadlines,
            code: self.code,
            team: self.team,
        }
    }
}

/// The release in progress, as the board tracks it.
pub(super) fn in_progress_view(src: &Sources, release: Release) -> ReleaseView {
    let current = &src.current;
    let facts = src.facts();
    let issues = src.team.and_then(TeamFacts::issue_index);
    let mut entries = Vec::new();
    let mut apart = Vec::new();
    for (i, kep) in src.model.keps.iter().enumerate() {
        let hist = history_of(src.history, kep);
        let opted = kep
            .number()
            .and_then(|n| issues.as_ref()?.get(&n))
            .filter(|x| x.opted_in(release));
        let Some(stage) = stage_in(kep, hist, release).or_else(|| {
            let from_label = opted?.stage().map(Stage::parse).and_then(|s| s.nearest());
            Some(
                from_label
                    .or_else(|| kep.meta.stage.nearest())
                    .unwrap_or_default(),
            )
        }) else {
            continue;
        };
        let Some(membership) = board::membership(kep, hist, current, issues.as_ref()) else {
            continue;
        };
        if let Membership::Apart(why) = membership {
            apart.push(ApartEntry {
                id: KepId(i),
                number: kep.number(),
                stage,
                why,
            });
            continue;
        }
        let kept = Kept {
            model: src.model,
            kep,
            analysis: &src.analysis.keps[i],
            hist,
            current,
            stage: &stage,
            membership: &membership,
        };
        let tracking = board::track(&kept, &facts);
        entries.push(ReleaseEntry {
            id: KepId(i),
            number: kep.number(),
            release,
            outcome: Outcome::Tracking {
                status: tracking.status,
            },
            readiness: Some(tracking.phase(Freeze::Enhancements).clone()),
            stage,
            step: None,
            tracking: Some(tracking),
            decided: None,
        });
    }
    entries.sort_by_key(|e| (e.stage.is_unset(), e.stage.rank(), e.number, e.id));
    apart.sort_by_key(|e| (e.number, e.id));
    ReleaseView {
        release,
        phase: Phase::InProgress,
        frozen: past_enhancements_freeze(current),
        cycle: cycle(release),
        entries,
        membership: Some(if issues.is_some() {
            Source::Issues
        } else {
            Source::Files
        }),
        next: Freeze::ALL.into_iter().find(|f| !board::past(current, *f)),
        apart,
    }
}

/// Whether the snapshot is past the Enhancements Freeze deadline of the
/// release in progress.
pub fn past_enhancements_freeze(current: &Current) -> bool {
    board::past(current, Freeze::Enhancements)
}

/// Whether the snapshot is past the PRR Freeze of the release in progress.
pub fn past_prr_freeze(current: &Current) -> bool {
    board::past(current, Freeze::Prr)
}
