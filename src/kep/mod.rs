//! The KEP model: [`RepoSnapshot`] files → [`Kep`]s (discovered at any depth
//! under `keps/`, parsed in parallel) plus templates and load findings.
//!
//! Three layers, as Zola does for pages: [`metadata::RawKepYaml`] is the serde
//! shape of kep.yaml, [`Kep`] the domain type, and `crate::view` the borrowed
//! shape that templates and JSON see.

pub mod document;
pub mod domain;
pub mod front_matter;
pub mod metadata;
pub mod prr;

use std::collections::{BTreeMap, BTreeSet};

use rayon::prelude::*;
use serde::Serialize;

use crate::finding::Finding;
use crate::repo::{RepoFile, RepoSnapshot};
use front_matter::{Form, Found};
use metadata::{FieldLines, Metadata};

/// How a KEP is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum KepFormat {
    /// `keps/<sig>/[<sub>/]<n>-<slug>/` with `kep.yaml` and `README.md`.
    Directory,
    /// A pre-2020 markdown file (or README) with YAML front matter.
    SingleFile,
}

/// One Kubernetes Enhancement Proposal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Kep {
    /// The KEP's directory (or single file) path, e.g. `keps/sig-node/2400-node-swap`.
    pub path: String,
    /// Directory or single file.
    pub format: KepFormat,
    /// The SIG directory it lives in (`keps/<sig>/...`).
    pub sig_dir: String,
    /// The number the directory (or file) name starts with.
    pub dir_number: Option<u32>,
    /// Path of kep.yaml, or of the single file holding the front matter.
    pub metadata_path: String,
    /// Path of the README (or single file), if any.
    pub readme_path: Option<String>,
    /// README markdown ("" when there is none); for single files, the body.
    #[serde(skip)]
    pub readme: String,
    /// Lines before `readme` in its file (the front matter of single files).
    pub readme_offset: usize,
    /// Parsed metadata (defaults when kep.yaml did not parse).
    pub meta: Metadata,
    /// Whether the metadata parsed.
    pub meta_ok: bool,
    /// Where each kep.yaml key was written.
    #[serde(skip)]
    pub lines: FieldLines,
    /// Problems found while loading this KEP.
    pub load_findings: Vec<Finding>,
}

impl Kep {
    /// The KEP number: `kep-number` when it is a number, else the directory's.
    pub fn number(&self) -> Option<u32> {
        parse_number(&self.meta.kep_number).or(self.dir_number)
    }

    /// The owning SIG from kep.yaml, else the directory it lives in.
    pub fn sig(&self) -> &str {
        if self.meta.owning_sig.is_empty() {
            &self.sig_dir
        } else {
            &self.meta.owning_sig
        }
    }

    /// Title, or the path when the title is missing.
    pub fn title(&self) -> &str {
        if self.meta.title.is_empty() {
            &self.path
        } else {
            &self.meta.title
        }
    }

    /// The line of a kep.yaml key, for findings.
    pub fn line(&self, key: &str) -> Option<usize> {
        self.lines.line(key)
    }

    /// The directory name without the leading number (`node-swap`).
    pub fn slug(&self) -> &str {
        let name = self.path.rsplit('/').next().unwrap_or(&self.path);
        let name = name.strip_suffix(".md").unwrap_or(name);
        match name.split_once('-') {
            Some((n, rest)) if n.chars().all(|c| c.is_ascii_digit()) => rest,
            _ => name,
        }
    }
}

/// Parse a KEP number as written (`"2400"`, `2400`); `None` for `NNNN` and the like.
pub fn parse_number(s: &str) -> Option<u32> {
    let s = s.trim().trim_matches('"');
    if s.is_empty() || !s.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// The number a directory or file name starts with (`2400-node-swap` → 2400).
pub fn leading_number(name: &str) -> Option<u32> {
    let digits: &str = &name[..name
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(name.len())];
    if digits.is_empty() || !name[digits.len()..].starts_with('-') {
        return None;
    }
    digits.parse().ok()
}

/// Whether a KEP directory is a template rather than a proposal.
///
/// A single-file KEP path (`keps/0000-kep-template.md`,
/// `keps/sig-cloud-provider/providers/0004-cloud-provider-template.md`) is a
/// template when its name, without `.md`, ends in `-template`.
pub fn is_template_dir(dir: &str) -> bool {
    let name = dir.rsplit('/').next().unwrap_or(dir);
    let single_file = name.strip_suffix(".md").or(name.strip_suffix(".MD"));
    name.starts_with("NNNN-")
        || name.starts_with("YYYYMMDD-")
        || (leading_number(name) == Some(0) && name.ends_with("-template"))
        || single_file.is_some_and(|n| n.ends_with("-template"))
}

/// Decode bytes as UTF-8; on failure, a finding with the line of the first bad byte
/// and the lossy text.
pub fn decode(file: &RepoFile) -> (String, Option<Finding>) {
    decode_bytes(&file.path, file.bytes.clone())
}

/// [`decode`], taking the bytes: valid UTF-8 becomes the text without a copy.
fn decode_owned(file: RepoFile) -> (String, Option<Finding>) {
    decode_bytes(&file.path, file.bytes)
}

fn decode_bytes(path: &str, bytes: Vec<u8>) -> (String, Option<Finding>) {
    match String::from_utf8(bytes) {
        Ok(mut s) => {
            if s.starts_with('\u{feff}') {
                s.drain(..'\u{feff}'.len_utf8());
            }
            (s, None)
        }
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            let bytes = e.into_bytes();
            let line = bytes[..at].iter().filter(|b| **b == b'\n').count() + 1;
            let finding = Finding::error(
                "file-not-utf8",
                path,
                format!("file is not valid UTF-8 (byte {at})"),
            )
            .at(Some(line))
            .hint("save the file as UTF-8");
            (String::from_utf8_lossy(&bytes).into_owned(), Some(finding))
        }
    }
}

fn parent(path: &str) -> &str {
    path.rsplit_once('/').map(|(d, _)| d).unwrap_or("")
}

fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

fn sig_dir_of(path: &str) -> String {
    path.split('/').nth(1).unwrap_or_default().to_string()
}

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

/// The directories holding a kep.yaml (templates too).
fn kep_dirs(files: &[RepoFile]) -> BTreeSet<&str> {
    files
        .iter()
        .filter(|f| file_name(&f.path) == "kep.yaml" && !f.path.starts_with("keps/prod-readiness/"))
        .map(|f| parent(&f.path))
        .collect()
}

/// The README of every KEP directory (not the templates'), by directory,
/// taken out of `snapshot` (its entries stay, empty) so that [`discover`]
/// makes each one the KEP's text without copying it.
pub fn take_readmes(snapshot: &mut RepoSnapshot) -> BTreeMap<String, RepoFile> {
    let dirs: BTreeSet<String> = kep_dirs(&snapshot.files)
        .into_iter()
        .filter(|d| !is_template_dir(d))
        .map(str::to_string)
        .collect();
    snapshot
        .files
        .iter_mut()
        .filter(|f| file_name(&f.path).eq_ignore_ascii_case("readme.md"))
        .filter(|f| dirs.contains(parent(&f.path)))
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
/// the KEP directories' READMEs ([`take_readmes`]).
pub fn discover(snapshot: &RepoSnapshot, mut readmes: BTreeMap<String, RepoFile>) -> Discovered {
    let files = &snapshot.files;
    let kep_dirs = kep_dirs(files);
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
    let mut findings = Vec::new();
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

    let mut keps: Vec<Kep> = jobs.into_par_iter().map(Job::parse).collect();
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

enum Job<'a> {
    Directory {
        dir: &'a str,
        yaml: &'a RepoFile,
        readme: Option<RepoFile>,
    },
    SingleFile {
        file: &'a RepoFile,
    },
}

impl Job<'_> {
    fn parse(self) -> Kep {
        match self {
            Job::Directory { dir, yaml, readme } => parse_directory(dir, yaml, readme),
            Job::SingleFile { file } => parse_single_file(file),
        }
    }
}

fn parse_directory(dir: &str, yaml: &RepoFile, readme: Option<RepoFile>) -> Kep {
    let mut findings = Vec::new();
    let (text, bad) = decode(yaml);
    findings.extend(bad);
    let dir_number = leading_number(file_name(dir));
    let (meta, meta_ok, lines) = parse_meta(&yaml.path, &text, 0, dir_number, &mut findings);
    let (readme_text, readme_path) = match readme {
        Some(r) => {
            let path = r.path.clone();
            let (t, bad) = decode_owned(r);
            findings.extend(bad);
            (t, Some(path))
        }
        None => {
            findings.push(
                Finding::error(
                    "kep-yaml-without-readme",
                    &yaml.path,
                    "kep.yaml has no README.md beside it",
                )
                .hint("add the KEP's README.md (see keps/NNNN-kep-template)"),
            );
            (String::new(), None)
        }
    };
    let kep = Kep {
        path: dir.to_string(),
        format: KepFormat::Directory,
        sig_dir: sig_dir_of(dir),
        dir_number,
        metadata_path: yaml.path.clone(),
        readme_path,
        readme: readme_text,
        readme_offset: 0,
        meta,
        meta_ok,
        lines,
        load_findings: Vec::new(),
    };
    with_load_findings(kep, findings)
}

fn parse_single_file(file: &RepoFile) -> Kep {
    let mut findings = Vec::new();
    let (text, bad) = decode(file);
    findings.extend(bad);
    let is_readme = file_name(&file.path).eq_ignore_ascii_case("readme.md");
    let path = if is_readme {
        parent(&file.path).to_string()
    } else {
        file.path.clone()
    };
    let dir_number = leading_number(file_name(&path)).filter(|n| *n < 100_000);
    let (meta, meta_ok, lines, body, offset) = match front_matter::locate(&text) {
        Found::Metadata(l) => {
            let (m, ok, fl) =
                parse_meta(&file.path, l.yaml, l.yaml_offset, dir_number, &mut findings);
            if l.form != Form::Standard {
                findings.push(
                    Finding::warning(
                        "kep-metadata-nonstandard",
                        &file.path,
                        format!(
                            "KEP metadata is in {}, not YAML front matter at the top of the file",
                            l.form.describe()
                        ),
                    )
                    .at(Some(l.line))
                    .hint("move the metadata to the top of the file between `---` lines (or into a kep.yaml)"),
                );
            }
            (m, ok, fl, l.body.to_string(), l.body_offset)
        }
        Found::Unterminated => {
            findings.push(
                Finding::error(
                    "front-matter-unterminated",
                    &file.path,
                    "front matter opened on line 1 is never closed",
                )
                .at(Some(1))
                .hint("close the front matter with a `---` line after the last metadata field"),
            );
            (Metadata::default(), false, FieldLines::default(), text, 0)
        }
        Found::Nothing => (Metadata::default(), false, FieldLines::default(), text, 0),
    };
    let kep = Kep {
        path,
        format: KepFormat::SingleFile,
        sig_dir: sig_dir_of(&file.path),
        dir_number,
        metadata_path: file.path.clone(),
        readme_path: Some(file.path.clone()),
        readme: body,
        readme_offset: offset,
        meta,
        meta_ok,
        lines,
        load_findings: Vec::new(),
    };
    with_load_findings(kep, findings)
}

/// Attach load findings, tagged with the KEP's number once it is known.
fn with_load_findings(mut kep: Kep, findings: Vec<Finding>) -> Kep {
    let n = kep.number();
    kep.load_findings = findings.into_iter().map(|f| f.kep(n)).collect();
    kep
}

fn parse_meta(
    path: &str,
    text: &str,
    offset: usize,
    dir_number: Option<u32>,
    findings: &mut Vec<Finding>,
) -> (Metadata, bool, FieldLines) {
    let lines = FieldLines::scan(text, offset);
    match metadata::parse_raw(text, offset) {
        Ok(raw) => (Metadata::from(raw), true, lines),
        Err(e) => {
            findings.push(
                Finding::error(
                    "yaml-parse",
                    path,
                    format!("metadata does not parse as YAML: {}", e.message),
                )
                .at(e.line)
                .kep(dir_number)
                .hint("fix the YAML syntax; the KEP is listed with its directory name until then"),
            );
            (Metadata::default(), false, lines)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers() {
        assert_eq!(leading_number("2400-node-swap"), Some(2400));
        assert_eq!(leading_number("20190317-title.md"), Some(20190317));
        assert_eq!(leading_number("NNNN-kep-template"), None);
        assert_eq!(leading_number("2400"), None);
        assert_eq!(parse_number(" 12 "), Some(12));
        assert_eq!(parse_number("NNNN"), None);
        assert!(is_template_dir("keps/NNNN-kep-template"));
        assert!(is_template_dir(
            "keps/sig-cloud-provider/providers/0000-cloud-provider-template"
        ));
        assert!(is_template_dir("keps/0000-kep-template.md"));
        assert!(is_template_dir(
            "keps/sig-cloud-provider/providers/0004-cloud-provider-template.md"
        ));
        assert!(!is_template_dir("keps/sig-node/20190101-templates.md"));
        assert!(!is_template_dir("keps/sig-node/2400-node-swap"));
        assert!(!is_template_dir(
            "keps/sig-node/5978-cluster-resource-claim-template"
        ));
    }

    #[test]
    fn non_utf8_is_a_finding_with_line() {
        let f = RepoFile {
            path: "keps/a/1-x/kep.yaml".into(),
            bytes: b"title: a\nstatus: \xff\n".to_vec(),
        };
        let (_, finding) = decode(&f);
        assert_eq!(finding.unwrap().line, Some(2));
    }
}
