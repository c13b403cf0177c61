//! The Code Freeze phase: one KEP of the release in progress ([`Kept`])
//! and Kubernetes' feature gates ([`Facts::code`]) → its Code Freeze
//! [`Readiness`], judged at the deadline once it has passed.

use super::{Facts, Freeze, Kept, past};
use crate::analysis::code::{self, Landing};
use crate::analysis::freeze::CheckId;
use crate::analysis::readiness::{AtDeadline, Item, Readiness, weigh};

/// The Code Freeze's checklist: whether the KEP's feature gates carry its
/// targeted stage in Kubernetes' code, at the deadline once it has passed.
pub(super) fn code_phase(k: &Kept, facts: &Facts) -> Readiness {
    let release = k.current.release;
    let frozen = past(k.current, Freeze::Code);
    let stage = if k.stage.is_unset() {
        k.kep.meta.stage.nearest().unwrap_or_default()
    } else {
        k.stage.clone()
    };
    let base = Readiness {
        freeze: Freeze::Code,
        release,
        stage: stage.clone(),
        ready: false,
        items: Vec::new(),
        frozen,
        prr_frozen: past(k.current, Freeze::Prr),
        deadline: None,
        not_checked: None,
    };
    let Some(code) = facts.code else {
        return Readiness {
            not_checked: Some("needs --kubernetes".into()),
            ..base
        };
    };
    if let Some(why) = code.cannot_tell(release.minor) {
        return Readiness {
            not_checked: Some(why),
            ..base
        };
    }
    let landing = k
        .kep
        .number()
        .and_then(|n| code::landing(code, n, release, &stage));
    let Some(l) = landing else {
        return Readiness {
            not_checked: Some(
                "no feature gate of this KEP for this stage in Kubernetes' code".into(),
            ),
            ..base
        };
    };
    let here = k
        .kep
        .number()
        .and_then(|n| code.kep_stage(n, release.minor));
    let says = code::landing_says(code, release, &l, here.as_ref());
    let item = Item {
        id: CheckId::CodeLanded,
        ok: l.ok(),
        required: true,
        detail: says,
    };
    let deadline = frozen.then(|| at_deadline(k, &l)).flatten();
    let items = weigh(vec![item], Freeze::Code);
    Readiness {
        ready: items.iter().all(|i| i.ok),
        items,
        deadline,
        ..base
    }
}

/// The Code Freeze's checklist as it stood at the deadline: whether the
/// code of `l` had landed by then. None when the cycle has no Code Freeze
/// date.
fn at_deadline(k: &Kept, l: &Landing) -> Option<AtDeadline> {
    k.current.cycle.and_then(|c| c.code_freeze_at).map(|at| {
        let ready = l.ok_at(at.as_second());
        AtDeadline {
            at: at.strftime("%Y-%m-%d %H:%M UTC").to_string(),
            commit: l
                .landed
                .as_ref()
                .map(|x| x.commit.id.clone())
                .unwrap_or_default(),
            ready,
            reasons: if ready {
                Vec::new()
            } else {
                vec![format!(
                    "code not landed by the deadline ({} targeted)",
                    l.want
                )]
            },
            failing: if ready {
                Vec::new()
            } else {
                vec![CheckId::CodeLanded]
            },
            met: None,
        }
    })
}
