//! Values that become paths of the site (issue 37): an `owning-sig` that
//! cannot name `/sigs/<sig>/` is an error, a handle that is not a GitHub
//! login a warning (it gets no people or PRR page). `build` applies the
//! same rule (`kep::segment`), so what `check` passes, `build` builds.

use super::at;
use crate::finding::Finding;
use crate::kep::Kep;
use crate::kep::prr::handle;
use crate::kep::segment::{handle_problem, max_handles, sig_problem};

/// At most 60 characters of a value, for a message.
fn shown(v: &str) -> String {
    let mut s: String = v.chars().take(60).collect();
    if s.len() < v.len() {
        s.push('…');
    }
    s
}

pub(super) fn path_values(kep: &Kep, out: &mut Vec<Finding>) {
    let m = &kep.meta;
    let sig = m.owning_sig.trim();
    if !sig.is_empty()
        && let Some(why) = sig_problem(sig)
    {
        out.push(
            at(
                kep,
                "sig-invalid",
                "owning-sig",
                format!(
                    "`owning-sig` {:?} {why}: it cannot name a SIG page",
                    shown(sig)
                ),
            )
            .hint("use the SIG's directory name in kubernetes/community, e.g. `sig-node`"),
        );
    }
    for (key, list) in [
        ("authors", &m.authors),
        ("reviewers", &m.reviewers),
        ("approvers", &m.approvers),
        ("prr-approvers", &m.prr_approvers),
    ] {
        let max = max_handles(key);
        if list.len() > max {
            out.push(
                at(
                    kep,
                    "handles-too-many",
                    key,
                    format!(
                        "`{key}` names {} handles: the first {max} get pages, the rest are shown as text",
                        list.len()
                    ),
                )
                .hint("list the people who act on this KEP; a team belongs in OWNERS_ALIASES"),
            );
        }
        for a in list {
            let h = handle(a);
            let placeholder = matches!(
                h.as_str(),
                "tbd" | "todo" | "jane.doe" | "alice.doe" | "oscar.doe"
            );
            let Some(why) = handle_problem(&h).filter(|_| !placeholder) else {
                continue;
            };
            out.push(
                at(
                    kep,
                    "handle-invalid",
                    key,
                    format!(
                        "`{key}` entry {:?} {why}: it gets no people page",
                        shown(a.trim())
                    ),
                )
                .hint("write one GitHub handle per entry, e.g. `\"@deads2k\"`"),
            );
        }
    }
}
