//! Reading one file version: raw text (`&str`) or a `keps/` path to the
//! four metadata scalars (`Fields`) and to the KEP unit it belongs to (`Unit`).
//!
//! A full YAML parse of every kep.yaml version in the history would dominate
//! the walk, and only four top-level scalars matter, so this is a line scan.

/// The top-level scalars of a kep.yaml (or legacy front matter) version
/// that the history follows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Fields {
    pub kep_number: Option<String>,
    pub status: Option<String>,
    pub stage: Option<String>,
    pub latest_milestone: Option<String>,
    /// `title`: pairs a legacy file with the directory it was migrated to
    /// when their names differ.
    pub title: Option<String>,
}

impl Fields {
    /// `kep-number` as a number; `NNNN`, empty or garbage give `None`.
    pub fn number(&self) -> Option<u32> {
        self.kep_number.as_deref().and_then(parse_number)
    }
}

/// Parses a KEP number, tolerating leading zeros but not dates or garbage.
fn parse_number(s: &str) -> Option<u32> {
    if s.is_empty() || s.len() > 6 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// Scans top-level `key: value` lines of a YAML document.
pub(crate) fn extract_yaml(text: &str) -> Fields {
    let mut f = Fields::default();
    for line in text.lines() {
        let Some(first) = line.bytes().next() else {
            continue;
        };
        // Indented lines, comments, list items and document markers are not
        // top-level scalars.
        if matches!(first, b' ' | b'\t' | b'#' | b'-') {
            continue;
        }
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let slot = match key.trim_end() {
            "kep-number" => &mut f.kep_number,
            "status" => &mut f.status,
            "stage" => &mut f.stage,
            "latest-milestone" => &mut f.latest_milestone,
            "title" => &mut f.title,
            _ => continue,
        };
        // The first occurrence wins: later duplicates are usually pasted
        // template leftovers.
        if slot.is_none() {
            *slot = clean_value(value);
        }
    }
    f
}

/// Scans the YAML front matter (between leading `---` lines) of a markdown file.
pub(crate) fn extract_front_matter(text: &str) -> Fields {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.lines();
    if lines.next().map(str::trim_end) != Some("---") {
        return Fields::default();
    }
    let start = text.find('\n').map_or(text.len(), |i| i + 1);
    let mut end = text.len();
    let mut offset = start;
    for line in lines {
        if line.trim_end() == "---" {
            end = offset;
            break;
        }
        offset += line.len() + 1;
    }
    extract_yaml(&text[start..end.min(text.len())])
}

/// Strips a trailing `# comment`, whitespace and surrounding quotes.
fn clean_value(raw: &str) -> Option<String> {
    let mut v = raw.trim();
    if v.starts_with('#') {
        return None;
    }
    // A `#` starts a comment only after whitespace, and not inside quotes.
    if !(v.starts_with('"') || v.starts_with('\'')) {
        if let Some(i) = v
            .char_indices()
            .find(|&(i, c)| c == '#' && v[..i].ends_with([' ', '\t']))
            .map(|(i, _)| i)
        {
            v = v[..i].trim_end();
        }
    } else {
        let q = &v[..1];
        if let Some(close) = v[1..].find(q) {
            v = &v[1..1 + close];
        }
    }
    let v = v.trim();
    (!v.is_empty()).then(|| v.to_string())
}

/// What a path under `keps/` belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unit {
    /// The KEP directory (`keps/<sig>/[<sub>/]<n>-<slug>`) or legacy file path.
    pub key: String,
    /// `true` for a pre-2020 single-file KEP.
    pub legacy: bool,
    /// `true` when the path is the unit's metadata (kep.yaml or the legacy file).
    pub meta: bool,
}

impl Unit {
    /// The number a directory name carries (`2400-node-swap` → 2400); date
    /// prefixes (`20190603-...`) and legacy files carry none.
    pub fn dir_number(&self) -> Option<u32> {
        if self.legacy {
            return None;
        }
        let name = self.key.rsplit('/').next().unwrap_or("");
        name.split_once('-').and_then(|(n, _)| parse_number(n))
    }

    /// The name without its number or date prefix, used to pair a legacy file
    /// with the directory it was migrated to.
    pub fn slug(&self) -> &str {
        let name = self.key.rsplit('/').next().unwrap_or("");
        let name = name.strip_suffix(".md").unwrap_or(name);
        let name = name.strip_prefix("draft-").unwrap_or(name);
        match name.split_once('-') {
            Some((n, rest)) if n.bytes().all(|b| b.is_ascii_digit() || b == b'x') => rest,
            _ => name,
        }
    }
}

fn numbered_dir(name: &str) -> bool {
    name.split_once('-')
        .is_some_and(|(n, _)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Maps a repository path to its KEP unit, or `None` for paths that are not
/// part of a KEP (templates, prod-readiness files, SIG READMEs, ...).
pub(crate) fn classify(path: &str) -> Option<Unit> {
    if path.contains("template") || path.starts_with("keps/prod-readiness/") {
        return None;
    }
    let comps: Vec<&str> = path.split('/').collect();
    if comps.len() < 3 || comps[0] != "keps" {
        return None;
    }
    let file = comps[comps.len() - 1];
    if file == "kep.yaml" && comps.len() >= 4 {
        let dir = &comps[..comps.len() - 1];
        return Some(Unit {
            key: dir.join("/"),
            legacy: false,
            meta: true,
        });
    }
    // Files inside a KEP directory at keps/<sig>/<n>-<slug>/ or one level deeper.
    for depth in [2, 3] {
        if depth + 1 < comps.len() && numbered_dir(comps[depth]) {
            return Some(Unit {
                key: comps[..=depth].join("/"),
                legacy: false,
                meta: false,
            });
        }
    }
    let lower = file.to_ascii_lowercase();
    if (comps.len() == 3 || comps.len() == 4)
        && lower.ends_with(".md")
        && lower != "readme.md"
        && lower != "owners.md"
    {
        return Some(Unit {
            key: path.to_string(),
            legacy: true,
            meta: true,
        });
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &str) -> Option<String> {
        Some(v.to_string())
    }

    #[test]
    fn yaml_scalars() {
        let f = extract_yaml(
            "title: X\nkep-number: 2400\nstatus: \"implementable\"  # was provisional\n\
             stage: 'beta'\nlatest-milestone: v1.28#x\nreviewers:\n  - status: no\n",
        );
        assert_eq!(f.kep_number, s("2400"));
        assert_eq!(f.number(), Some(2400));
        assert_eq!(f.status, s("implementable"));
        assert_eq!(f.stage, s("beta"));
        assert_eq!(f.latest_milestone, s("v1.28#x"));
    }

    #[test]
    fn empty_and_odd_values() {
        let f = extract_yaml("kep-number: NNNN\nstatus:\nstage: \"\"\nlatest-milestone: # tbd\r\n");
        assert_eq!(f.number(), None);
        assert_eq!(
            f,
            Fields {
                kep_number: s("NNNN"),
                ..Fields::default()
            }
        );
        assert_eq!(extract_yaml("kep-number: 20190101\n").number(), None);
        assert_eq!(extract_yaml(""), Fields::default());
        assert_eq!(extract_yaml(":\n:::\n\u{0}\n"), Fields::default());
    }

    #[test]
    fn front_matter() {
        let f = extract_front_matter(
            "---\ntitle: A\nkep-number: 12\nstatus: implemented\n---\nstatus: nope\n",
        );
        assert_eq!(f.number(), Some(12));
        assert_eq!(f.status, s("implemented"));
        assert_eq!(
            extract_front_matter("# Title\nstatus: x\n"),
            Fields::default()
        );
        // Unterminated front matter: read to the end, never panic.
        assert_eq!(extract_front_matter("---\nstatus: x").status, s("x"));
        assert_eq!(extract_front_matter("---"), Fields::default());
    }

    #[test]
    fn classify_paths() {
        let u = classify("keps/sig-node/2400-node-swap/kep.yaml").unwrap();
        assert_eq!(
            (u.key.as_str(), u.legacy, u.meta),
            ("keps/sig-node/2400-node-swap", false, true)
        );
        assert_eq!(u.dir_number(), Some(2400));
        assert_eq!(u.slug(), "node-swap");
        let u = classify("keps/sig-cloud-provider/azure/123-x/images/a.png").unwrap();
        assert_eq!(
            (u.key.as_str(), u.meta),
            ("keps/sig-cloud-provider/azure/123-x", false)
        );
        let u = classify("keps/sig-api-machinery/20190206-watch-bookmark.md").unwrap();
        assert!(u.legacy && u.meta);
        assert_eq!(u.dir_number(), None);
        assert_eq!(u.slug(), "watch-bookmark");
        let u = classify("keps/sig-network/20190603-endpointslices/kep.yaml").unwrap();
        assert_eq!(u.dir_number(), None);
        for p in [
            "keps/NNNN-kep-template/kep.yaml",
            "keps/sig-cloud-provider/providers/0000-cloud-provider-template/README.md",
            "keps/prod-readiness/sig-node/2400.yaml",
            "keps/sig-node/README.md",
            "keps/README.md",
            "keps/sig-node/OWNERS",
            "OWNERS_ALIASES",
            "",
        ] {
            assert_eq!(classify(p), None, "{p}");
        }
    }
}
