//! Open pull requests judged at their heads: the `--prs` list, the
//! repository and its analysis → for each KEP an open PR touches, the PR's
//! [`PrCheck`] (the KEP's PRR and Enhancements Freeze checklists with the
//! PR's files, or why they could not be read).
//!
//! Only the touched KEP's directory, its prod-readiness file,
//! `OWNERS_ALIASES` and the template README are read at the head, so a PR
//! costs a few blobs, not a snapshot. A head missing from the checkout is
//! named with the command that fetches it, never guessed.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use crate::analysis::Analysis;
use crate::analysis::analyze;
use crate::analysis::board::{HeadCheck, PrCheck, prs::missing};
use crate::analysis::outcome::stage_in;
use crate::analysis::readiness::checklist_in;
use crate::kep::Kep;
use crate::kep::KepKey;
use crate::model::{self, Model, TEMPLATE_README};
use crate::team::Freeze;
use crate::team::prs::{Pr, Touch};

/// Every open PR's checks, by the key of each KEP it touches.
pub fn judge(
    root: &Path,
    prs: &[Pr],
    model: &Model,
    analysis: &Analysis,
) -> BTreeMap<KepKey, Vec<PrCheck>> {
    let dirs: HashMap<&str, usize> = model
        .keps
        .iter()
        .enumerate()
        .map(|(i, k)| (k.path.as_str(), i))
        .collect();
    let dir_of = |path: &str| {
        let mut p = path;
        while let Some((parent, _)) = p.rsplit_once('/') {
            if dirs.contains_key(parent) {
                return Some(parent.to_string());
            }
            p = parent;
        }
        None
    };
    let mut out: BTreeMap<KepKey, Vec<PrCheck>> = BTreeMap::new();
    for pr in prs {
        let touches = pr.touches(dir_of);
        for t in &touches {
            let kep = match t {
                Touch::Dir(d) => dirs.get(d.as_str()).map(|&i| &model.keps[i]),
                Touch::Prr(_, n) => model.kep(*n),
            };
            let (k, dir) = match (kep, t) {
                (Some(k), _) => (k.key(), k.path.clone()),
                (None, Touch::Dir(d)) => (KepKey::of_dir(d), d.clone()),
                // A PRR file of a KEP that is not in the repository: nothing to judge.
                (None, Touch::Prr(..)) => continue,
            };
            let touches_kep = pr.files.iter().any(|f| {
                f.strip_prefix(&format!("{dir}/")).is_some_and(|rest| {
                    let l = rest.to_ascii_lowercase();
                    l == "kep.yaml" || l == "readme.md"
                }) || (f == &dir && f.ends_with(".md"))
            });
            let list = out.entry(k).or_default();
            if list.iter().any(|c| c.number == pr.number) {
                continue;
            }
            list.push(PrCheck {
                number: pr.number,
                title: pr.title.clone(),
                author: pr.author.clone(),
                touches_kep,
                head: at_head(root, pr, &dir, kep, analysis),
            });
        }
    }
    for list in out.values_mut() {
        list.sort_by_key(|c| c.number);
    }
    out
}

/// The KEP at directory `dir` judged at `pr`'s head.
fn at_head(root: &Path, pr: &Pr, dir: &str, kep: Option<&Kep>, analysis: &Analysis) -> HeadCheck {
    let sig = kep
        .map(|k| k.meta.owning_sig.clone())
        .unwrap_or_else(|| dir.split('/').nth(1).unwrap_or_default().to_string());
    let number = kep
        .and_then(Kep::number)
        .or_else(|| crate::kep::leading_number(dir.rsplit('/').next().unwrap_or(dir)));
    let prr = number.map(|n| format!("keps/prod-readiness/{sig}/{n}.yaml"));
    let dir_slash = format!("{dir}/");
    let wanted = |p: &str| {
        p == "OWNERS_ALIASES"
            || p == TEMPLATE_README
            || Some(p) == prr.as_deref()
            || p == dir
            || p.starts_with(&dir_slash)
            // a directory on the way to one of them
            || (p.ends_with('/')
                && (dir_slash.starts_with(p)
                    || TEMPLATE_README.starts_with(p)
                    || prr.as_deref().is_some_and(|x| x.starts_with(p))))
    };
    let snapshot = match crate::repo::load_only(root, &pr.head, &wanted) {
        Ok(s) => s,
        Err(_) => return missing(&pr.head),
    };
    let small = model::from_snapshot(snapshot, None);
    let release = analysis.current.release;
    let Some(i) = small.keps.iter().position(|k| k.path == dir) else {
        return HeadCheck::Unreadable {
            why: format!("no KEP at {dir} in the PR's head"),
        };
    };
    let a = analyze(&small, Some(release), None);
    let kep = &small.keps[i];
    let stage = stage_in(kep, None, release)
        .or_else(|| kep.meta.stage.nearest())
        .unwrap_or_default();
    let at = |f: Freeze| Box::new(checklist_in(&small, kep, &a.keps[i], release, &stage, f));
    HeadCheck::Judged {
        prr: at(Freeze::Prr),
        enhancements: at(Freeze::Enhancements),
    }
}
