//! Open pull requests of the enhancements repository: the JSON of `gh pr
//! list -R kubernetes/enhancements --state open --json
//! number,title,url,headRefOid,files,author` → [`Pr`]s, and which KEPs each
//! one touches ([`Pr::keps`]).
//!
//! The release team's templates count a PR "open or merged", and the
//! Enhancements Freeze asks for "no other outstanding (unmerged) PRs that
//! modify the KEP readme or kep.yaml": an open PR is half of a KEP's state.
//! Its head commit is read from the checkout (`git fetch origin
//! '+refs/pull/*/head:refs/remotes/origin/pr/*'` brings every PR head in).

use anyhow::{Context, Result, bail};
use serde::Deserialize;

/// The fields `--prs` needs in every element.
pub const FIELDS: &[&str] = &["number", "title", "url", "headRefOid", "files", "author"];

/// The command that brings every open PR's head into a clone.
pub const FETCH: &str = "git fetch origin '+refs/pull/*/head:refs/remotes/origin/pr/*'";

/// One open pull request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pr {
    /// Its number.
    pub number: u32,
    /// Its title.
    pub title: String,
    /// Its web URL, as given (checked before any view links to it).
    pub url: String,
    /// Its head commit (`headRefOid`).
    pub head: String,
    /// The paths it changes.
    pub files: Vec<String>,
    /// Its author's login.
    pub author: String,
}

/// The pull-requests file: how it is named, and the largest read.
pub const FILE: crate::input_file::Kind = crate::input_file::Kind {
    what: "the pull-requests file",
    item: "pull request",
    limit: 64 << 20,
    hint: "export with `gh pr list --state open --json number,title,url,headRefOid,files,author`",
};

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Raw {
    number: u32,
    title: String,
    url: String,
    head_ref_oid: String,
    #[serde(deserialize_with = "read_files")]
    files: Option<Vec<RawFile>>,
    #[serde(deserialize_with = "crate::input_file::nullable")]
    author: Option<RawAuthor>,
}

fn read_files<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Vec<RawFile>>, D::Error> {
    // Only the paths under keps/ are kept: a PR of a million files costs
    // what its KEPs do.
    let v: Option<Vec<RawFile>> = crate::input_file::nullable(d)?;
    Ok(v.map(|mut v| {
        v.retain(|f| f.path.starts_with("keps/"));
        v
    }))
}

#[derive(Deserialize)]
struct RawFile {
    path: String,
}

#[derive(Deserialize)]
struct RawAuthor {
    #[serde(default)]
    login: String,
}

/// Parse a `--prs` file ([`crate::input_file::parse_list`]), naming the
/// element and field that is wrong.
pub fn parse(bytes: &[u8]) -> Result<Vec<Pr>> {
    let raw: Vec<Raw> = crate::input_file::parse_list(&FILE, bytes)?;
    raw.into_iter()
        .enumerate()
        .map(|(i, raw)| {
            if !is_object_id(&raw.head_ref_oid) {
                bail!("pull request {i} of the pull-requests file: headRefOid is not a commit id");
            }
            Ok(Pr {
                number: raw.number,
                title: raw.title,
                url: raw.url,
                head: raw.head_ref_oid.to_ascii_lowercase(),
                files: raw
                    .files
                    .unwrap_or_default()
                    .into_iter()
                    .map(|f| f.path)
                    .collect(),
                author: raw.author.map(|a| a.login).unwrap_or_default(),
            })
        })
        .collect()
}

/// Read and parse the pull-requests file at `path`, within [`FILE`]'s limit.
pub fn read(path: &std::path::Path) -> Result<Vec<Pr>> {
    let bytes = crate::input_file::read_bytes(&FILE, path)?;
    parse(&bytes).with_context(|| {
        format!(
            "in {} {}",
            FILE.what,
            crate::escape::terminal(&path.display().to_string())
        )
    })
}

/// Whether `s` is a full hexadecimal git object id (SHA-1 or SHA-256).
fn is_object_id(s: &str) -> bool {
    (s.len() == 40 || s.len() == 64) && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// What a PR's path says about the KEP it belongs to.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Touch {
    /// A file in a KEP's directory (`keps/<sig>/<n>-<slug>/…`): the directory.
    Dir(String),
    /// A prod-readiness file: (owning SIG, KEP number).
    Prr(String, u32),
}

impl Pr {
    /// What each changed path of the PR touches: the KEP directory of every
    /// `kep.yaml` or README under `keps/` (found by `dir_of`, which knows
    /// the repository's KEPs and their READMEs), and every prod-readiness
    /// file; sorted, each once.
    pub fn touches(&self, dir_of: impl Fn(&str) -> Option<String>) -> Vec<Touch> {
        let mut out: Vec<Touch> = self
            .files
            .iter()
            .filter_map(|p| touch(p, &dir_of))
            .collect();
        out.sort();
        out.dedup();
        out
    }
}

fn touch(path: &str, dir_of: &impl Fn(&str) -> Option<String>) -> Option<Touch> {
    let rest = path.strip_prefix("keps/prod-readiness/");
    if let Some(rest) = rest {
        let (sig, file) = rest.split_once('/')?;
        let n = file.strip_suffix(".yaml")?.parse().ok()?;
        return Some(Touch::Prr(sig.to_string(), n));
    }
    if !path.starts_with("keps/") {
        return None;
    }
    if let Some(d) = dir_of(path) {
        return Some(Touch::Dir(d));
    }
    // A KEP not in the repository yet: the directory of its kep.yaml or README.
    let (dir, name) = path.rsplit_once('/')?;
    let lower = name.to_ascii_lowercase();
    (name == "kep.yaml" || lower == "readme.md").then(|| Touch::Dir(dir.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &str = "0123456789abcdef0123456789abcdef01234567";

    #[test]
    fn a_gh_export_parses_and_bad_ones_name_the_problem() {
        let ok = parse(format!(
            r#"[{{"number": 7, "title": "KEP-1: beta", "url": "https://github.com/kubernetes/enhancements/pull/7",
                "headRefOid": "{HEAD}", "files": [{{"path": "keps/sig-a/1-x/kep.yaml", "additions": 1, "deletions": 0}}],
                "author": {{"login": "dev", "is_bot": false}}}}]"#
        ).as_bytes())
        .unwrap();
        assert_eq!(ok[0].number, 7);
        assert_eq!(ok[0].files, ["keps/sig-a/1-x/kep.yaml"]);
        assert_eq!(ok[0].author, "dev");
        for (text, says) in [
            ("[", "EOF while parsing a list"),
            ("{}", "JSON list"),
            (r#"[{"number": 1}]"#, "missing field `title`"),
            (
                r#"[{"number": 1, "title": "t", "url": "u", "headRefOid": "zz", "files": [], "author": null}]"#,
                "not a commit id",
            ),
            (
                r#"[{"number": "1", "title": "t", "url": "u", "headRefOid": "zz", "files": [], "author": null}]"#,
                "invalid type",
            ),
        ] {
            let e = format!("{:#}", parse(text.as_bytes()).unwrap_err());
            assert!(e.contains(says), "{text}: {e}");
        }
    }

    #[test]
    fn paths_name_the_keps_they_touch() {
        let pr = Pr {
            number: 1,
            title: String::new(),
            url: String::new(),
            head: HEAD.into(),
            files: vec![
                "keps/sig-a/1-x/README.md".into(),
                "keps/sig-a/1-x/kep.yaml".into(),
                "keps/prod-readiness/sig-a/1.yaml".into(),
                "keps/sig-b/9-new/kep.yaml".into(),
                "keps/sig-b/9-new/diagram.png".into(),
                "README.md".into(),
                "keps/prod-readiness/sig-a/template.yaml".into(),
            ],
            author: String::new(),
        };
        let dir_of = |p: &str| {
            p.starts_with("keps/sig-a/1-x/")
                .then(|| "keps/sig-a/1-x".to_string())
        };
        assert_eq!(
            pr.touches(dir_of),
            vec![
                Touch::Dir("keps/sig-a/1-x".into()),
                Touch::Dir("keps/sig-b/9-new".into()),
                Touch::Prr("sig-a".into(), 1),
            ]
        );
    }
}
