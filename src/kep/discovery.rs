//! Discovery: which files of a snapshot are KEPs (directories with a
//! kep.yaml, markdown files with front matter), which are templates, and
//! findings for files named like a KEP that are none.

use std::collections::{BTreeMap, BTreeSet};

use rayon::prelude::*;

use super::front_matter::{self, Found};
use super::load::Job;
use super::{Kep, decode, file_name, is_template_dir, leading_number, parent};
use crate::finding::Finding;
use crate::repo::{RepoFile, RepoSnapshot};

/// What discovery found: KEPs, templates and findings not tied to one KEP.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Discovered {
    /// Every KEP, sorted by number (KEPs without one last) then path.
    pub keps: Vec<Kep>,
    /// Template directories (`keps/NNNN-kep-template`, `...-template`).
    pub templates: Vec<String>,
    /// Findings about files that belong to no KEP (orphan READMEs, ...).
    pub findings: Vec<Finding>,
}

/// The directories holding a kep.yaml (templates too), of `paths`.
fn kep_dirs<'p>(paths: impl Iterator<Item = &'p str>) -> BTreeSet<&'p str> {
    paths
        .filter(|p| file_name(p) == "kep.yaml" && !p.starts_with("keps/prod-readiness/"))
        .map(parent)
        .collect()
}

/// Which of `paths` are the READMEs of KEP directories (a kep.yaml beside
/// them; not the templates'): the KEPs' texts, which a revision's load may
/// leave unread (the source layer's `load_with`).
pub fn kep_readmes(paths: &[&str]) -> BTreeSet<String> {
    let dirs: BTreeSet<&str> = kep_dirs(paths.iter().copied())
        .into_iter()
        .filter(|d| !is_template_dir(d))
        .collect();
    paths
        .iter()
        .filter(|p| file_name(p).eq_ignore_ascii_case("readme.md"))
        .filter(|p| dirs.contains(parent(p)))
        .map(|p| p.to_string())
        .collect()
}

/// The README of every KEP directory ([`kep_readmes`]), by directory,
/// taken out of `snapshot` (its entries stay, empty) so that [`discover`]
/// makes each one the KEP's text without copying it.
pub fn take_readmes(snapshot: &mut RepoSnapshot) -> BTreeMap<String, RepoFile> {
    let paths: Vec<&str> = snapshot.files.iter().map(|f| f.path.as_str()).collect();
    let readmes = kep_readmes(&paths);
    snapshot
        .files
        .iter_mut()
        .filter(|f| readmes.contains(&f.path))
        .map(|f| {
            let file = RepoFile {
                path: f.path.clone(),
                bytes: std::mem::take(&mut f.bytes),
            };
            (parent(&f.path).to_string(), file)
        })
        .collect()
}

/// Discover and parse every KEP in the snapshot, in parallel; `readmes` are
/// the KEP directories' READMEs ([`take_readmes`]); a kep.yaml `known`
/// has parsed already takes that parse.
pub fn discover(
    snapshot: &RepoSnapshot,
    mut readmes: BTreeMap<String, RepoFile>,
    known: Option<&super::load::Known>,
) -> Discovered {
    let files = &snapshot.files;
    let kep_dirs = kep_dirs(files.iter().map(|f| f.path.as_str()));
    let inside_kep_dir = |path: &str| {
        let mut dir = parent(path);
        while !dir.is_empty() {
            if kep_dirs.contains(dir) {
                return true;
            }
            dir = parent(dir);
        }
        false
    };
    let mut templates = Vec::new();
    let mut jobs: Vec<Job> = Vec::new();
    for dir in &kep_dirs {
        if is_template_dir(dir) {
            templates.push(dir.to_string());
            continue;
        }
        let yaml = snapshot
            .file(&format!("{dir}/kep.yaml"))
            .expect("kep_dirs is built from files");
        jobs.push(Job::Directory {
            dir,
            yaml,
            readme: readmes.remove(*dir),
        });
    }
    let mut findings = control_character_findings(files);
    for f in files {
        let path = f.path.as_str();
        if !path.starts_with("keps/")
            || path.starts_with("keps/prod-readiness/")
            || !file_name(path).to_ascii_lowercase().ends_with(".md")
            || inside_kep_dir(path)
            || is_template_dir(parent(path))
        {
            continue;
        }
        let opens_front_matter = f.bytes.starts_with(b"---\n")
            || f.bytes.starts_with(b"---\r\n")
            || f.bytes.starts_with(b"\xef\xbb\xbf---");
        let has_metadata = opens_front_matter || has_other_metadata(f);
        if has_metadata && is_template_dir(path) {
            templates.push(path.to_string());
        } else if has_metadata {
            jobs.push(Job::SingleFile { file: f });
        } else if is_template_dir(path) {
            continue;
        } else if let Some(finding) = looks_like_a_kep(path) {
            findings.push(finding);
        }
    }

    let mut keps: Vec<Kep> = jobs.into_par_iter().map(|j| j.parse(known)).collect();
    keps.sort_by(|a, b| {
        let key = |k: &Kep| (k.number().is_none(), k.number(), k.path.clone());
        key(a).cmp(&key(b))
    });
    templates.sort();
    Discovered {
        keps,
        templates,
        findings,
    }
}

/// A finding per file or directory name under `keps/` that holds control
/// characters (an escape sequence, a newline): the path in the message is
/// shown escaped (`\u{1b}`), so no terminal, CI log or annotation acts on it.
fn control_character_findings(files: &[RepoFile]) -> Vec<Finding> {
    let mut names = BTreeSet::new();
    for f in files.iter().filter(|f| f.path.starts_with("keps/")) {
        let mut end = 0;
        for part in f.path.split('/') {
            end += part.len();
            if part.chars().any(crate::escape::is_control) {
                names.insert(&f.path[..end]);
                break;
            }
            end += 1;
        }
    }
    names
        .into_iter()
        .map(|name| {
            Finding::error(
                "path-control-character",
                name,
                format!(
                    "the name {} holds control characters, which terminals and logs act on",
                    crate::escape::terminal(name)
                ),
            )
            .hint("rename it with printable characters only")
        })
        .collect()
}

/// Whether a markdown file that does not open with `---` holds KEP metadata
/// in another form (front matter after a heading, a yaml block). Few files
/// get here, so they are decoded on the spot.
fn has_other_metadata(f: &RepoFile) -> bool {
    matches!(front_matter::locate(&decode(f).0), Found::Metadata(_))
}

/// A finding for a markdown file without metadata that is named like a KEP:
/// a README in a numbered directory without kep.yaml, or a numbered file
/// (`keps/sig-x/20190711-title.md`). Other files (FAQs, SIG READMEs) are
/// documentation and get none.
fn looks_like_a_kep(path: &str) -> Option<Finding> {
    let name = file_name(path);
    if name.eq_ignore_ascii_case("readme.md") {
        let n = leading_number(file_name(parent(path)))?;
        return Some(
            Finding::error(
                "readme-without-kep-yaml",
                path,
                "KEP README has no kep.yaml beside it",
            )
            .kep(Some(n))
            .hint("add a kep.yaml with the KEP's metadata (see keps/NNNN-kep-template)"),
        );
    }
    let n = leading_number(name)?;
    Some(
        Finding::warning(
            "kep-file-without-metadata",
            path,
            "file is named like a KEP but has no KEP metadata, so it is not loaded as one",
        )
        .at(Some(1))
        .kep(Some(n).filter(|n| *n < 100_000))
        .hint("add YAML front matter (between `---` lines at the top) or move the KEP into a directory with kep.yaml"),
    )
}
