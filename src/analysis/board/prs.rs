//! Open pull requests on the board: each PR touching a KEP, judged at its
//! head commit ([`PrCheck`]), and what that does to the KEP's checklists
//! ([`apply`]): the PRR Freeze counts a PR "open or merged", the
//! Enhancements Freeze wants "no other outstanding (unmerged) PRs that
//! modify the KEP readme or kep.yaml", and a KEP at risk whose PR would fix
//! it is "Tracked if #N merges".

use serde::Serialize;

use crate::analysis::freeze::CheckId;
use crate::analysis::readiness::{Item, Readiness, meets, meets_but_for, weigh};
use crate::team::Freeze;
use crate::team::prs::FETCH;

/// A PR at its head commit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum HeadCheck {
    /// The head commit is not in this checkout (never guessed).
    Missing {
        /// The head commit id from the PRs file.
        head: String,
        /// The command that fetches every PR head.
        fetch: &'static str,
    },
    /// The KEP's checklists with the PR's files.
    Judged {
        /// The PRR Freeze's checklist there.
        prr: Box<Readiness>,
        /// The Enhancements Freeze's checklist there.
        enhancements: Box<Readiness>,
    },
    /// The KEP could not be read at the head (its kep.yaml removed, say).
    Unreadable {
        /// Why, for people.
        why: String,
    },
}

/// An open PR touching a KEP.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PrCheck {
    /// Its number.
    pub number: u32,
    /// Its title, as written (untrusted: escaped by every view).
    pub title: String,
    /// Its author's login.
    pub author: String,
    /// It changes the KEP's README or kep.yaml (not only its PRR file).
    pub touches_kep: bool,
    /// The KEP at its head.
    pub head: HeadCheck,
}

impl PrCheck {
    /// The checklist at `freeze` at the PR's head, when judged.
    pub fn at(&self, freeze: Freeze) -> Option<&Readiness> {
        match &self.head {
            HeadCheck::Judged { prr, .. } if freeze == Freeze::Prr => Some(prr),
            HeadCheck::Judged { enhancements, .. } if freeze == Freeze::Enhancements => {
                Some(enhancements)
            }
            _ => None,
        }
    }
}

/// Read `prs` (the KEP's open PRs; `known`: `--prs` was given) into the PRR
/// and Enhancements Freeze checklists in `phases` (those two, in order):
/// a PRR item met at a PR's head is met ("open or merged"); the
/// Enhancements Freeze gains its "no outstanding PRs" item; and notes say
/// which PR would make the KEP tracked, and which heads are missing.
pub fn apply(phases: &mut [Readiness], prs: &[PrCheck], known: bool, notes: &mut Vec<String>) {
    for pr in prs {
        if let HeadCheck::Missing { head, fetch } = &pr.head {
            notes.push(format!(
                "PR #{}'s head {} is not in this checkout: `{fetch}`",
                pr.number,
                head.get(..10).unwrap_or(head)
            ));
        }
    }
    if let Some(prr) = phases.iter_mut().find(|p| p.freeze == Freeze::Prr) {
        open_or_merged(prr, prs);
    }
    let Some(ef) = phases.iter_mut().find(|p| p.freeze == Freeze::Enhancements) else {
        return;
    };
    if known {
        let open: Vec<String> = prs
            .iter()
            .filter(|p| p.touches_kep)
            .map(|p| format!("#{}", p.number))
            .collect();
        let item = Item {
            id: CheckId::NoOpenPrs,
            ok: open.is_empty(),
            required: true,
            detail: if open.is_empty() {
                "no open PR modifies the README or kep.yaml".into()
            } else {
                format!(
                    "open PR{} {} modif{} the README or kep.yaml: merge or close before the freeze",
                    if open.len() == 1 { "" } else { "s" },
                    open.join(", "),
                    if open.len() == 1 { "ies" } else { "y" }
                )
            },
        };
        let mut items = std::mem::take(&mut ef.items);
        items.push(item);
        ef.items = weigh(items, Freeze::Enhancements);
        ef.ready = meets(&ef.items);
    }
    if !ef.ready {
        let fixes = prs.iter().find(|p| {
            p.at(Freeze::Enhancements)
                .is_some_and(|r| meets_but_for(&r.items, CheckId::NoOpenPrs))
        });
        if let Some(p) = fixes {
            notes.push(if ef.frozen {
                format!(
                    "#{} would meet the {} checklist, but the deadline has passed: it needs an exception",
                    p.number,
                    ef.freeze.name(ef.release)
                )
            } else {
                format!("Tracked if #{} merges", p.number)
            });
        }
    }
}

/// The PRR Freeze counts what a PR has open: an item that fails on the
/// merged files and passes at an open PR's head passes, saying which PR.
fn open_or_merged(prr: &mut Readiness, prs: &[PrCheck]) {
    for item in prr.items.iter_mut().filter(|i| !i.ok) {
        let at_head = prs.iter().find_map(|p| {
            let there = p.at(Freeze::Prr)?.item(item.id)?;
            there.ok.then(|| (p.number, there.detail.clone()))
        });
        if let Some((n, detail)) = at_head {
            item.ok = true;
            item.detail = format!("{detail} (in open PR #{n})");
        }
    }
    prr.ready = meets(&prr.items);
}

/// A missing head, as [`HeadCheck::Missing`] says it.
pub fn missing(head: &str) -> HeadCheck {
    HeadCheck::Missing {
        head: head.to_string(),
        fetch: FETCH,
    }
}
