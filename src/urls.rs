//! The portal's URL scheme: where each KEP's page lives (`keps/<n>/`, or
//! `keps/<sig>/<dir>/` without a unique number), its old-style alias, and the
//! label links to it carry. Shared by the site, the report's portal links and
//! `check`'s summary, so every renderer agrees on one address per KEP.

use std::collections::{BTreeMap, BTreeSet};

use crate::kep::Kep;
use crate::model::Model;

/// Page URL → the KEP's label (`KEP-753: Sidecar Containers`), for the
/// title of links to KEP pages and for link text that is only the address.
pub type Titles = BTreeMap<String, String>;

/// Where each KEP's page lives, and its old-style alias.
pub struct KepPaths {
    /// Per KEP (same order as `model.keps`): page directory relative to the base (`keps/1480/`).
    pub dirs: Vec<String>,
    /// Per KEP: the alias directory (`keps/sig-node/1480-foo/`) when it differs.
    pub aliases: Vec<Option<String>>,
    /// KEP path → absolute URL, for link rewriting.
    pub by_path: BTreeMap<String, String>,
    /// Absolute URL → the KEP's label (`KEP-753: Sidecar Containers`), for
    /// the links that lead to it.
    pub titles: Titles,
}

/// A repository URL as every link is made from it: no surrounding space,
/// no trailing `/` (`https://github.com/kubernetes/enhancements`). The one
/// normaliser of `--repo-url`, the site options and the report's links.
pub fn repo_url(s: &str) -> String {
    s.trim().trim_end_matches('/').to_string()
}

/// The directory of a KEP under `keps/`, without `keps/` and `.md`.
fn kep_rel(kep: &Kep) -> String {
    let rel = kep.path.strip_prefix("keps/").unwrap_or(&kep.path);
    let rel = rel.strip_suffix(".md").unwrap_or(rel);
    // Control characters in a directory name (a finding of their own) never
    // reach a path of the site, nor does a name no file system can hold (a
    // git tree may carry one): a segment over 200 bytes is cut, and a short
    // hash of the whole keeps it apart from its neighbours.
    rel.split('/')
        .map(|seg| {
            let clean: String = seg
                .chars()
                .map(|c| if crate::escape::is_control(c) { '_' } else { c })
                .collect();
            if clean.len() <= 200 {
                return clean;
            }
            let mut cut = 180;
            while !clean.is_char_boundary(cut) {
                cut -= 1;
            }
            let hash = crate::hash::hash64(clean.as_bytes());
            format!("{}-{hash:016x}", &clean[..cut])
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// Which KEP of those sharing a number gets `/keps/<n>/` (`check` reports
/// the duplicate): the one whose directory carries the number, then the
/// oldest `creation-date`, then the first path. Not the order SIGs sort in,
/// so a new KEP in an alphabetically earlier SIG cannot take the page.
pub fn number_owners(model: &Model) -> BTreeMap<u32, usize> {
    let mut owners: BTreeMap<u32, usize> = BTreeMap::new();
    let rank = |i: usize| {
        let k = &model.keps[i];
        let dir = k.path.rsplit('/').next().unwrap_or_default();
        let carries = k
            .number()
            .is_some_and(|n| dir.split('-').next() == Some(n.to_string().as_str()));
        let created = match k.meta.creation_date.trim() {
            "" => "9999",
            d => d,
        };
        (!carries, created.to_string(), k.path.clone())
    };
    for (i, k) in model.keps.iter().enumerate() {
        let Some(n) = k.number() else { continue };
        match owners.get(&n) {
            Some(&o) if rank(o) <= rank(i) => {}
            _ => {
                owners.insert(n, i);
            }
        }
    }
    owners
}

/// Assign page directories: `/keps/<n>/` for the KEP [`number_owners`]
/// gives the number, `/keps/<sig>/<dir>/` otherwise.
pub fn kep_paths(model: &Model, base: &str) -> KepPaths {
    let owners = number_owners(model);
    let mut taken = BTreeSet::new();
    let mut dirs = Vec::with_capacity(model.keps.len());
    let mut aliases = Vec::with_capacity(model.keps.len());
    let mut by_path = BTreeMap::new();
    let mut titles = Titles::new();
    for (i, kep) in model.keps.iter().enumerate() {
        let alias = format!("keps/{}/", kep_rel(kep));
        let dir = match kep.number() {
            Some(n) if owners.get(&n) == Some(&i) && taken.insert(format!("keps/{n}/")) => {
                format!("keps/{n}/")
            }
            _ => alias.clone(),
        };
        taken.insert(alias.clone());
        by_path.insert(kep.path.clone(), format!("{base}{dir}"));
        let label = match kep.number() {
            Some(n) => format!("KEP-{n}: {}", kep.title()),
            None => kep.title().to_string(),
        };
        titles.entry(format!("{base}{dir}")).or_insert(label);
        aliases.push((alias != dir).then_some(alias));
        dirs.push(dir);
    }
    KepPaths {
        dirs,
        aliases,
        by_path,
        titles,
    }
}

#[cfg(test)]
mod tests {
    use super::kep_paths;
    use crate::model::from_snapshot;
    use crate::repo::RepoSnapshot;

    /// A directory name longer than any file system holds (a git tree can
    /// carry one) still gets a page path of bounded segments.
    #[test]
    fn page_paths_have_bounded_segments() {
        let long = format!("keps/sig-node/{}", "x".repeat(300));
        let (yaml, readme) = (format!("{long}/kep.yaml"), format!("{long}/README.md"));
        let snap = RepoSnapshot::from_files(&[
            (yaml.as_str(), "title: X\nowning-sig: sig-node\n"),
            (readme.as_str(), "# X\n"),
        ]);
        let model = from_snapshot(snap, None);
        let p = kep_paths(&model, "/");
        assert_eq!(p.dirs.len(), 1);
        assert!(
            p.dirs[0].split('/').all(|s| s.len() <= 200),
            "{}",
            p.dirs[0]
        );
        assert!(p.dirs[0].starts_with("keps/sig-node/xxx"), "{}", p.dirs[0]);
    }
}
