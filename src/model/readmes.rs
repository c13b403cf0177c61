//! The READMEs of a model being built: a revision's deferred blobs read
//! for the KEPs a load picks, and the READMEs it shares with a model read
//! before.

use std::collections::HashMap;
use std::sync::Arc;

use rayon::prelude::*;

use super::{Model, ReadsReadme, problem_finding};
use crate::kep::{self, Kep, Readme};
use crate::repo::{self, Source};

/// Read the deferred READMEs of the KEPs `reads_readme` picks (their problems
/// become the KEP's findings); the others' are left unread. A blob holding
/// the text of `known`'s README at the same path is not read: its bytes
/// are that text, and [`share`] gives the KEP that [`Readme`].
pub(super) fn read_deferred(
    keps: &mut [Kep],
    mut deferred: repo::Deferred,
    reads_readme: &ReadsReadme,
    at: &Source,
    known: Option<&Model>,
) {
    // README path -> KEP, for every README the revision left unread
    let by_readme: HashMap<String, usize> = (0..keps.len())
        .filter_map(|i| Some((keps[i].readme_path.clone()?, i)))
        .filter(|(p, _)| deferred.contains(p))
        .collect();
    let mut paths: Vec<&str> = by_readme
        .iter()
        .filter(|&(_, &i)| reads_readme(&keps[i]))
        .map(|(p, _)| p.as_str())
        .collect();
    paths.sort_unstable();
    let held = |path: &str, id: &repo::BlobId| {
        let m = known?;
        let r = &m.keps[*m.kep_index.by_readme.get(path)?].readme;
        (r.blob_id().as_ref() == Some(id)).then(|| r.text().as_bytes().to_vec())
    };
    let taken = deferred.take(&paths, known.is_some().then_some(&held as &repo::Held<'_>));
    for &i in by_readme.values() {
        set_readme(&mut keps[i], Arc::new(Readme::unread()));
    }
    match taken {
        Ok((files, problems)) => {
            for f in files {
                let Some(&i) = by_readme.get(&f.path) else {
                    continue;
                };
                let (text, bad) = kep::decode_owned(f);
                set_readme(&mut keps[i], Arc::new(Readme::new(text)));
                keps[i].load_findings.extend(bad);
            }
            for p in &problems {
                if let Some(&i) = by_readme.get(&p.path) {
                    keps[i].load_findings.push(problem_finding(p));
                }
            }
        }
        Err(e) => tracing::warn!(
            "reading READMEs at {}: {}",
            at.commit.as_deref().unwrap_or("the revision"),
            crate::errors::one_line(&e)
        ),
    }
}

/// A KEP's README with the same path and text as one of `known`'s takes
/// that [`Readme`]: a freeze deadline's READMEs are mostly today's, and
/// each is parsed once for both.
pub(super) fn share(keps: &mut [Kep], known: &Model) {
    keps.par_iter_mut().for_each(|k| {
        let Some(path) = k.readme_path.as_deref() else {
            return;
        };
        let Some(&i) = known.kep_index.by_readme.get(path) else {
            return;
        };
        let other = &known.keps[i].readme;
        if k.readme.is_read() && other.is_read() && other.text() == k.readme_text() {
            k.readme = other.clone();
        }
    });
}

/// Give `kep` the README `readme` (its title follows).
fn set_readme(kep: &mut Kep, readme: Arc<Readme>) {
    kep.readme_title = kep::readme_title(&kep.meta.title, &readme);
    kep.readme = readme;
}

#[cfg(test)]
mod tests;
