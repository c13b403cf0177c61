//! The loaded repository: [`RepoSnapshot`] (+ optional sigs.yaml) → [`Model`],
//! every KEP, template, prod-readiness file and alias, immutable after load.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Result;
use rayon::prelude::*;

use crate::finding::{self, Finding};
use crate::kep::prr::{OwnersAliases, PrrFile, SigList, parse_prr};
use crate::kep::{self, Kep, decode};
use crate::repo::{self, RepoSnapshot, Source};
use index::KepIndex;

mod assets;
mod index;
mod readmes;

/// The path of the repository's own KEP template README.
pub const TEMPLATE_README: &str = "keps/NNNN-kep-template/README.md";

/// Everything kepsite knows about one repository state.
#[derive(Debug, Clone)]
pub struct Model {
    /// Where it was read from.
    pub source: Source,
    /// Every KEP, sorted by number then path.
    pub keps: Vec<Kep>,
    /// Template directories, listed but not treated as KEPs.
    pub templates: Vec<String>,
    /// Every prod-readiness file, sorted by path.
    pub prr_files: Vec<PrrFile>,
    /// OWNERS_ALIASES.
    pub aliases: OwnersAliases,
    /// kubernetes/community's sigs.yaml, when given.
    pub sigs: Option<SigList>,
    /// The repository's template README, when present (carries DIRECTIVE markers).
    pub template_readme: Option<String>,
    /// Non-input files under keps/ (images and the like), sorted: those
    /// the site may publish are [`Model::assets`].
    asset_paths: Vec<String>,
    /// [`Model::assets`], judged when first asked: the SVGs are read to be
    /// judged, which a freeze deadline's model never needs (reading the
    /// corpus's 16, 2.8 MB, from a revision was 15 ms of each deadline).
    publishable: std::sync::OnceLock<Vec<String>>,
    /// Findings from loading that belong to no single KEP.
    pub load_findings: Vec<Finding>,
    /// `--current`: the release in progress, when the user names it instead
    /// of the calendar at the snapshot's date.
    pub current_release: Option<crate::kep::domain::Release>,
    /// Text of every YAML input (kep.yaml, PRR files, OWNERS_ALIASES), for
    /// showing the source line of a finding.
    yaml_texts: BTreeMap<String, String>,
    prr_index: BTreeMap<(String, u32), usize>,
    /// Number → first prod-readiness file with it, under any SIG directory.
    prr_by_number: BTreeMap<u32, usize>,
    /// Lookups into `keps`, rebuilt whenever a KEP is replaced.
    kep_index: KepIndex,
}

/// Which KEPs' READMEs a revision's load reads ([`load_for`]): the others
/// are left unread (their blobs are never inflated).
pub(crate) type ReadsReadme = dyn Fn(&Kep) -> bool + Sync;

impl PartialEq for Model {
    /// Two models are equal when they hold the same content, wherever it was read from.
    fn eq(&self, other: &Self) -> bool {
        self.keps == other.keps
            && self.templates == other.templates
            && self.prr_files == other.prr_files
            && self.aliases == other.aliases
            && self.template_readme == other.template_readme
            && self.asset_paths == other.asset_paths
            && self.load_findings == other.load_findings
    }
}

/// Load a repository: `root` as a working tree, or revision `rev` of it,
/// plus sigs.yaml when given: a step of `Project::load` (through
/// [`crate::project::Input`]), outside the crate the only way to load.
///
/// Knowing `known`, a model read before with the same `sigs` (today's
/// files, when a freeze deadline's revision is read): its sigs.yaml is
/// taken, a kep.yaml with the same path and text takes its parse (parsing
/// the corpus's 650 kep.yaml files again was about 26 ms of one core for
/// each deadline, 9 ms since), and a README
/// with the same path and text is the same [`kep::Readme`], parsed once for
/// both. A revision's READMEs are read for the KEPs `reads_readme` picks only
/// (all without it): inflating every README blob was 100 ms of the
/// corpus's 160.
pub(crate) fn load_for(
    root: &Path,
    rev: Option<&str>,
    sigs: Option<&Path>,
    known: Option<&Model>,
    reads_readme: Option<&ReadsReadme>,
) -> Result<Model> {
    let read = || {
        if root == Path::new(repo::EMBEDDED_ROOT) {
            return Ok(repo::load_embedded());
        }
        let defer = reads_readme.map(|_| kep::kep_readmes as repo::Defer);
        let held = |path: &str, id: &repo::BlobId| known?.held_yaml(path, id);
        let held = known.is_some().then_some(&held as &repo::Held<'_>);
        crate::timing::timed("load: read files", || {
            repo::load_with(root, rev, defer, held)
        })
    };
    // `known` was read with the same sigs.yaml (a deadline's revision is
    // read with today's flags): its parse is taken, as parsing the file
    // again was about 10 ms of one core for each freeze deadline. Else the
    // file is parsed beside the reading of the repository: on one thread
    // after it, it was 8-10 ms of `check`'s wall time on the corpus.
    let (snapshot, sigs) = match known {
        Some(k) if sigs.is_some() => (read(), Ok(k.sigs.clone())),
        _ => rayon::join(read, || sigs.map(load_sigs).transpose()),
    };
    let (snapshot, sigs) = (snapshot?, sigs?);
    Ok(crate::timing::timed("load: parse", || {
        from_snapshot_for(snapshot, sigs, known, reads_readme)
    }))
}

/// Read and parse kubernetes/community's sigs.yaml.
pub fn load_sigs(p: &Path) -> Result<SigList> {
    const SIGS: crate::input_file::Kind = crate::input_file::Kind {
        what: "sigs.yaml",
        item: "group",
        limit: 16 << 20,
        hint: "pass kubernetes/community's sigs.yaml",
    };
    let bytes = crate::input_file::read_bytes(&SIGS, p)?;
    let text = String::from_utf8_lossy(&bytes);
    SigList::parse(&text).map_err(|e| {
        anyhow::anyhow!(
            "{}:{}: sigs.yaml does not parse: {}",
            p.display(),
            e.line.unwrap_or(0),
            e.message
        )
    })
}

/// Build the model from a snapshot.
pub(crate) fn from_snapshot(snapshot: RepoSnapshot, sigs: Option<SigList>) -> Model {
    from_snapshot_for(snapshot, sigs, None, None)
}

/// [`from_snapshot`], knowing `known` and reading the deferred READMEs of
/// the KEPs `reads_readme` picks ([`load_for`]).
fn from_snapshot_for(
    mut snapshot: RepoSnapshot,
    sigs: Option<SigList>,
    known: Option<&Model>,
    reads_readme: Option<&ReadsReadme>,
) -> Model {
    // The READMEs' bytes become the KEPs' texts, not copies of them.
    let readmes = kep::take_readmes(&mut snapshot);
    let deferred = snapshot.deferred.take();
    // KEPs and prod-readiness files are parsed side by side, each in parallel.
    let (mut discovered, parsed_prr) = rayon::join(
        || match known {
            None => kep::discover(&snapshot, readmes, None),
            Some(m) => kep::discover(&snapshot, readmes, Some(&|p, t| m.parsed_yaml(p, t))),
        },
        || parse_prr_files(&snapshot, known),
    );
    if let Some(d) = deferred {
        let reads_readme = reads_readme.unwrap_or(&|_| true);
        readmes::read_deferred(
            &mut discovered.keps,
            d,
            reads_readme,
            &snapshot.source,
            known,
        );
    }
    if let Some(m) = known {
        readmes::share(&mut discovered.keps, m);
    }
    let mut load_findings = discovered.findings;
    load_findings.extend(snapshot.problems.iter().map(problem_finding));
    let yaml_texts = yaml_texts(&snapshot);
    let mut prr_files = Vec::new();
    for (path, prr, bad) in parsed_prr {
        load_findings.extend(bad);
        load_findings.extend(prr_parse_finding(path, &prr));
        prr_files.push(prr);
    }
    let (aliases, template_readme) = aliases_and_template(&snapshot, &mut load_findings);
    let (prr_index, prr_by_number) = prr_indexes(&prr_files);
    finding::sort(&mut load_findings);
    let kep_index = KepIndex::new(&discovered.keps);
    Model {
        current_release: None,
        source: snapshot.source,
        keps: discovered.keps,
        templates: discovered.templates,
        prr_files,
        aliases,
        sigs,
        template_readme,
        asset_paths: snapshot.assets,
        publishable: std::sync::OnceLock::new(),
        load_findings,
        yaml_texts,
        prr_index,
        prr_by_number,
        kep_index,
    }
}

/// Whether `f` is a prod-readiness file (`keps/prod-readiness/<sig>/<n>.yaml`).
fn is_prr(f: &repo::RepoFile) -> bool {
    f.path.starts_with("keps/prod-readiness/")
        && f.path.ends_with(".yaml")
        // not keps/prod-readiness/OWNERS-like files at other depths
        && f.path.matches('/').count() == 3
}

/// Every prod-readiness file parsed in parallel: (path, file, decoding
/// finding). One with the same path and bytes as one of `known`'s takes
/// its parse (a freeze deadline's are mostly today's: parsing them again
/// was about 10 ms of one core for each deadline).
fn parse_prr_files<'s>(
    snapshot: &'s RepoSnapshot,
    known: Option<&Model>,
) -> Vec<(&'s str, PrrFile, Option<Finding>)> {
    snapshot
        .files
        .par_iter()
        .filter(|f| is_prr(f))
        .map(|f| {
            let (text, bad) = decode(f);
            let prr = known
                .and_then(|m| m.parsed_prr(&f.path, &f.bytes))
                .unwrap_or_else(|| parse_prr(&f.path, &text));
            (f.path.as_str(), prr, bad)
        })
        .collect()
}

/// The finding for a file the snapshot could not read.
fn problem_finding(p: &repo::LoadProblem) -> Finding {
    let n = p
        .path
        .split('/')
        .find_map(kep::leading_number)
        .filter(|n| *n < 100_000);
    Finding::error(p.rule, &p.path, &p.message)
        .kep(n)
        .hint("the rest of the repository is still loaded")
}

/// Text of every YAML input (and OWNERS_ALIASES) by path.
fn yaml_texts(snapshot: &RepoSnapshot) -> BTreeMap<String, String> {
    snapshot
        .files
        .iter()
        .filter(|f| f.path.ends_with(".yaml") || f.path == "OWNERS_ALIASES")
        .map(|f| (f.path.clone(), crate::repo::text(&f.bytes).into_owned()))
        .collect()
}

/// The finding for a prod-readiness file that does not parse, if it does not.
fn prr_parse_finding(path: &str, prr: &PrrFile) -> Option<Finding> {
    let e = prr.error.as_ref()?;
    Some(
        Finding::error(
            "prr-file-parse",
            path,
            format!("prod-readiness file does not parse: {}", e.message),
        )
        .at(e.line)
        .kep(prr.file_number),
    )
}

/// OWNERS_ALIASES and the template README, their findings added to `findings`.
fn aliases_and_template(
    snapshot: &RepoSnapshot,
    findings: &mut Vec<Finding>,
) -> (OwnersAliases, Option<String>) {
    let mut aliases = OwnersAliases::default();
    let mut template_readme = None;
    for f in &snapshot.files {
        if f.path == "OWNERS_ALIASES" {
            let (text, bad) = decode(f);
            findings.extend(bad);
            aliases = OwnersAliases::parse(&text);
            if let Some(e) = &aliases.error {
                findings.push(
                    Finding::error(
                        "owners-aliases-parse",
                        &f.path,
                        format!("OWNERS_ALIASES does not parse: {}", e.message),
                    )
                    .at(e.line),
                );
            }
        } else if f.path == TEMPLATE_README {
            template_readme = Some(decode(f).0);
        }
    }
    (aliases, template_readme)
}

/// (SIG, number) → prod-readiness file, and number → the first file with it.
type PrrIndexes = (BTreeMap<(String, u32), usize>, BTreeMap<u32, usize>);

/// The model's two prod-readiness lookups over `prr_files`.
fn prr_indexes(prr_files: &[PrrFile]) -> PrrIndexes {
    let prr_index = prr_files
        .iter()
        .enumerate()
        .filter_map(|(i, p)| p.file_number.map(|n| ((p.sig.clone(), n), i)))
        .collect();
    let mut prr_by_number = BTreeMap::new();
    for (i, p) in prr_files.iter().enumerate() {
        if let Some(n) = p.file_number {
            prr_by_number.entry(n).or_insert(i);
        }
    }
    (prr_index, prr_by_number)
}

/// A KEP of a [`Model`]: its index in `model.keps`, the same index as its
/// analysis in `Analysis::keps`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct KepId(pub usize);

/// A list in model order (the KEPs, their analyses, their URLs) read at a
/// KEP's id.
impl<T> std::ops::Index<KepId> for Vec<T> {
    type Output = T;
    fn index(&self, id: KepId) -> &T {
        &self[id.0]
    }
}

impl<T> std::ops::IndexMut<KepId> for Vec<T> {
    fn index_mut(&mut self, id: KepId) -> &mut T {
        &mut self[id.0]
    }
}

impl<T> std::ops::Index<KepId> for [T] {
    type Output = T;
    fn index(&self, id: KepId) -> &T {
        &self[id.0]
    }
}

#[cfg(test)]
thread_local! {
    /// How many times [`Model::source_text`] was asked (tests count it).
    pub(crate) static SOURCE_TEXTS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

impl Model {
    /// The prod-readiness file for a KEP, at `keps/prod-readiness/<owning-sig>/<n>.yaml`.
    pub fn prr_for(&self, kep: &Kep) -> Option<&PrrFile> {
        let n = kep.number()?;
        self.prr_index
            .get(&(kep.meta.owning_sig.clone(), n))
            .map(|i| &self.prr_files[*i])
    }

    /// A prod-readiness file for this KEP's number under any SIG directory.
    pub fn prr_anywhere(&self, number: u32) -> Option<&PrrFile> {
        self.prr_by_number.get(&number).map(|&i| &self.prr_files[i])
    }

    /// The text of a kep.yaml or README the findings point into, and how
    /// many lines of the file come before it (a README's front matter).
    pub fn source_text(&self, path: &str) -> Option<(&str, usize)> {
        #[cfg(test)]
        SOURCE_TEXTS.with(|c| c.set(c.get() + 1));
        if let Some(t) = self.yaml_texts.get(path) {
            return Some((t.as_str(), 0));
        }
        let kep = &self.keps[*self.kep_index.by_readme.get(path)?];
        Some((kep.readme_text(), kep.readme_offset))
    }

    /// Replace the KEP `id` with a re-parsed version of the same KEP
    /// (same path), and the text of its kep.yaml when it has one. Returns
    /// the KEP replaced.
    pub(crate) fn replace_kep(
        &mut self,
        id: KepId,
        kep: Kep,
        metadata_text: Option<String>,
    ) -> Kep {
        if let Some(text) = metadata_text {
            self.yaml_texts.insert(kep.metadata_path.clone(), text);
        }
        let old = std::mem::replace(&mut self.keps[id], kep);
        self.kep_index = KepIndex::new(&self.keps);
        old
    }

    /// The metadata and field lines of the directory KEP whose kep.yaml is
    /// at `path`, when its text was `text` and it parsed without a finding.
    fn parsed_yaml(
        &self,
        path: &str,
        text: &str,
    ) -> Option<(kep::metadata::Metadata, kep::metadata::FieldLines)> {
        if self.yaml_texts.get(path).map(String::as_str) != Some(text) {
            return None;
        }
        let readme = format!("{}/README.md", path.strip_suffix("/kep.yaml")?);
        let kep = &self.keps[*self.kep_index.by_readme.get(&readme)?];
        (kep.format == kep::KepFormat::Directory && kep.meta_ok && kep.metadata_path == path)
            .then(|| (kep.meta.clone(), kep.lines.clone()))
    }

    /// The bytes of the YAML input at `path` (kep.yaml, prod-readiness
    /// file, OWNERS_ALIASES), when they are those of blob `id`.
    fn held_yaml(&self, path: &str, id: &repo::BlobId) -> Option<Vec<u8>> {
        let text = self.yaml_texts.get(path)?;
        (repo::blob_id(text.as_bytes()) == *id).then(|| text.as_bytes().to_vec())
    }

    /// The prod-readiness file at `path`, when its bytes were `bytes`.
    fn parsed_prr(&self, path: &str, bytes: &[u8]) -> Option<PrrFile> {
        if self.yaml_texts.get(path)?.as_bytes() != bytes {
            return None;
        }
        let i = self
            .prr_files
            .binary_search_by(|p| p.path.as_str().cmp(path))
            .ok()?;
        Some(self.prr_files[i].clone())
    }

    /// Every KEP's id, in model order.
    pub fn ids(&self) -> impl Iterator<Item = KepId> + use<> {
        (0..self.keps.len()).map(KepId)
    }

    /// The KEP `id`.
    pub fn get(&self, id: KepId) -> &Kep {
        &self.keps[id]
    }

    /// The bytes of every kep.yaml read.
    pub fn yaml_text_bytes(&self) -> usize {
        self.yaml_texts.values().map(String::len).sum()
    }

    /// The KEP with this number (the first, if duplicated).
    pub fn kep(&self, number: u32) -> Option<&Kep> {
        self.kep_at(number).map(|id| &self.keps[id])
    }

    /// The id of [`Model::kep`]'s KEP.
    pub fn kep_at(&self, number: u32) -> Option<KepId> {
        self.kep_index
            .by_number
            .get(&number)
            .and_then(|ids| ids.first())
            .copied()
            .map(KepId)
    }

    /// Every KEP with this number, in model order.
    pub fn keps_numbered(&self, number: u32) -> impl Iterator<Item = &Kep> + '_ {
        self.kep_index
            .by_number
            .get(&number)
            .into_iter()
            .flatten()
            .map(|&i| &self.keps[i])
    }
}

#[cfg(test)]
mod known_tests;
