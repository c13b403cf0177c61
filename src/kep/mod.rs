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
pub mod segment;

mod discovery;
mod load;
mod readme;
pub use load::Known;
pub use readme::Readme;

use serde::Serialize;

use crate::finding::Finding;
use crate::repo::RepoFile;
pub use discovery::{Discovered, discover, kep_readmes, take_readmes};
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
    /// The README's text ([`Kep::readme`]) and its one parse
    /// ([`Kep::doc`], made when first asked for): what the analysis reads
    /// and, when the command renders pages, what the page is written from.
    #[serde(skip)]
    pub readme: std::sync::Arc<Readme>,
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
    /// The README's first `#` title (without its `KEP-NNNN: `), read only
    /// when the metadata's title is the template's placeholder: what
    /// [`Kep::title`] shows instead.
    #[serde(skip)]
    pub readme_title: Option<String>,
}

/// How a KEP is known across snapshots (two revisions, a deadline's and
/// today's, an open pull request's head): its number, else its path.
/// Numbers order numerically, before paths.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum KepKey {
    /// The KEP's number.
    Number(u32),
    /// The path of a KEP without one.
    Path(String),
}

impl KepKey {
    /// The key of a KEP directory not in the repository yet (a pull
    /// request adding it): the number its name starts with, else its path.
    pub fn of_dir(dir: &str) -> KepKey {
        let name = dir.rsplit('/').next().unwrap_or(dir);
        match leading_number(name) {
            Some(n) => KepKey::Number(n),
            None => KepKey::Path(dir.to_string()),
        }
    }
}

impl Kep {
    /// Its [`KepKey`].
    pub fn key(&self) -> KepKey {
        match self.number() {
            Some(n) => KepKey::Number(n),
            None => KepKey::Path(self.path.clone()),
        }
    }

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

    /// The title every view shows: kep.yaml's; the README's first title
    /// when kep.yaml's is the template's placeholder (`KEP Template`); the
    /// path when there is none.
    pub fn title(&self) -> &str {
        if let Some(t) = &self.readme_title {
            return t;
        }
        if self.meta.title.is_empty() {
            &self.path
        } else {
            &self.meta.title
        }
    }

    /// README markdown ("" when there is none); for single files, the body.
    pub fn readme_text(&self) -> &str {
        self.readme.text()
    }

    /// The README's parse, made the first time it is asked for.
    pub fn doc(&self) -> &document::Document {
        self.readme.doc()
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

/// One directory KEP read from its kep.yaml and README, by the loader
/// [`discover`] parses every KEP with: `serve`'s preview of a README edit
/// reads the edited KEP again this way.
pub fn parse_directory(dir: &str, yaml: &RepoFile, readme: Option<RepoFile>) -> Kep {
    load::Job::Directory { dir, yaml, readme }.parse(None)
}

/// Whether a title is one the KEP template leaves in place: kep.yaml's
/// `KEP Template`, or the README's `Your short, descriptive title`.
pub fn is_placeholder_title(title: &str) -> bool {
    let t = title.trim().trim_matches(['"', '\'']).trim();
    ["KEP Template", "Your short, descriptive title"]
        .iter()
        .any(|p| t.eq_ignore_ascii_case(p))
}

/// The README's first `#` title without a leading `KEP-NNNN: `, when
/// `meta_title` is a placeholder (see [`is_placeholder_title`]) and the
/// README's title is not one too.
pub fn readme_title(meta_title: &str, readme: &Readme) -> Option<String> {
    if !is_placeholder_title(meta_title) {
        return None;
    }
    let h1 = readme.doc().sections.iter().find(|s| s.level == 1)?;
    let t = strip_kep_prefix(&h1.title).trim();
    (!t.is_empty() && !is_placeholder_title(t)).then(|| t.to_string())
}

/// `KEP-1234: Title`, `KEP 1234 - Title`, `KEP-NNNN: Title` → `Title`.
fn strip_kep_prefix(title: &str) -> &str {
    let Some(rest) = title
        .get(..3)
        .filter(|p| p.eq_ignore_ascii_case("kep"))
        .map(|_| &title[3..])
    else {
        return title;
    };
    let rest = rest.trim_start_matches(['-', ' ', '#']);
    let number_end = rest
        .find(|c: char| !(c.is_ascii_digit() || c == 'N'))
        .unwrap_or(rest.len());
    if number_end == 0 {
        return title;
    }
    let rest = rest[number_end..].trim_start();
    match rest.strip_prefix([':', '-', '—', '–']) {
        Some(r) => r.trim_start(),
        None => title,
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
pub(crate) fn decode_owned(file: RepoFile) -> (String, Option<Finding>) {
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

    #[test]
    fn a_placeholder_title_gives_way_to_the_readme_title() {
        let title = |meta: &str, readme: &str| readme_title(meta, &Readme::new(readme.into()));
        let readme = "<!-- x -->\n# KEP-5468: Invariant `Testing`\n\n## Summary\n";
        assert_eq!(
            title("KEP Template", readme).as_deref(),
            Some("Invariant Testing")
        );
        assert_eq!(title("Real title", readme), None);
        // The README's own placeholder, or no title, leaves it as it was.
        let template = "# KEP-NNNN: Your short, descriptive title\n";
        assert_eq!(title("KEP Template", template), None);
        assert_eq!(title("kep template", "## Summary\n"), None);
        assert_eq!(strip_kep_prefix("KEP 12 - Foo"), "Foo");
        assert_eq!(strip_kep_prefix("Keps everywhere"), "Keps everywhere");
        assert_eq!(strip_kep_prefix("KEP-1: "), "");
    }
}
