//! Loading one KEP from its files: kep.yaml and README of a directory, or
//! one markdown file with front matter, with the findings on the way.

use super::front_matter::{self, Form, Found};
use super::metadata::{self, FieldLines, Metadata};
use super::{Kep, KepFormat, decode, decode_owned, file_name, leading_number, parent, sig_dir_of};
use std::sync::Arc;

use super::Readme;
use crate::finding::Finding;
use crate::repo::RepoFile;

pub(super) enum Job<'a> {
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
    pub(super) fn parse(self, known: Option<&Known>) -> Kep {
        match self {
            Job::Directory { dir, yaml, readme } => parse_directory(dir, yaml, readme, known),
            Job::SingleFile { file } => parse_single_file(file),
        }
    }
}

/// A kep.yaml parsed before (today's, when a freeze deadline's revision is
/// read): given a path and its text, the metadata and field lines of the
/// same path with the same text, when that parsed without a finding.
pub type Known<'a> = dyn Fn(&str, &str) -> Option<(Metadata, FieldLines)> + Sync + 'a;

fn parse_directory(
    dir: &str,
    yaml: &RepoFile,
    readme: Option<RepoFile>,
    known: Option<&Known>,
) -> Kep {
    let mut findings = Vec::new();
    let (text, bad) = decode(yaml);
    findings.extend(bad);
    let dir_number = leading_number(file_name(dir));
    // the same text parses to the same metadata, without findings
    let (meta, meta_ok, lines) = match known.and_then(|k| k(&yaml.path, &text)) {
        Some((meta, lines)) => (meta, true, lines),
        None => parse_meta(&yaml.path, &text, 0, dir_number, &mut findings),
    };
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
    let readme = Arc::new(Readme::new(readme_text));
    let kep = Kep {
        path: dir.to_string(),
        format: KepFormat::Directory,
        sig_dir: sig_dir_of(dir),
        dir_number,
        metadata_path: yaml.path.clone(),
        readme_path,
        readme_title: super::readme_title(&meta.title, &readme),
        readme,
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
    let readme = Arc::new(Readme::new(body));
    let kep = Kep {
        path,
        format: KepFormat::SingleFile,
        sig_dir: sig_dir_of(&file.path),
        dir_number,
        metadata_path: file.path.clone(),
        readme_path: Some(file.path.clone()),
        readme_title: super::readme_title(&meta.title, &readme),
        readme,
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
