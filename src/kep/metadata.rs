//! kep.yaml (and legacy front matter) text → [`RawKepYaml`] (the serde shape)
//! plus [`FieldLines`] (where each key sits) → [`Metadata`] (the domain shape).
//!
//! Scalars are kept exactly as written (`"1.20"` stays `1.20`, dates stay
//! strings); milestones are parsed into comparable [`Version`]s on the side.
//! Alias expansion is bounded so a "billion laughs" file is refused.

use std::fmt;

use serde::{Deserialize, Serialize};

/// Top-level kep.yaml keys the enhancements tooling knows (its Go struct,
/// including `name`, `id` and `prnumber` that it maps implicitly).
pub const KNOWN_FIELDS: &[&str] = &[
    "title",
    "kep-number",
    "authors",
    "owning-sig",
    "participating-sigs",
    "reviewers",
    "approvers",
    "prr-approvers",
    "editor",
    "creation-date",
    "last-updated",
    "status",
    "see-also",
    "replaces",
    "superseded-by",
    "stage",
    "latest-milestone",
    "milestone",
    "feature-gates",
    "disable-supported",
    "metrics",
    "name",
    "id",
    "prnumber",
];

pub use super::domain::{Release, Stage, Status};

/// The serde shape of kep.yaml: every field optional, scalars as written.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[allow(missing_docs)]
pub struct RawKepYaml {
    pub title: Option<String>,
    pub kep_number: Option<String>,
    pub authors: Option<Vec<ListItem>>,
    pub owning_sig: Option<String>,
    pub participating_sigs: Option<Vec<ListItem>>,
    pub reviewers: Option<Vec<ListItem>>,
    pub approvers: Option<Vec<ListItem>>,
    pub prr_approvers: Option<Vec<ListItem>>,
    pub editor: Option<String>,
    pub creation_date: Option<String>,
    pub last_updated: Option<String>,
    pub status: Option<String>,
    pub see_also: Option<Vec<ListItem>>,
    pub replaces: Option<Vec<ListItem>>,
    pub superseded_by: Option<Vec<ListItem>>,
    pub stage: Option<String>,
    pub latest_milestone: Option<String>,
    pub milestone: Option<RawMilestones>,
    pub feature_gates: Option<Vec<RawFeatureGate>>,
    pub disable_supported: Option<String>,
    pub metrics: Option<Vec<ListItem>>,
}

/// One list entry: a scalar, or (in pre-2020 front matter) a `{name: ...}` map.
/// Any scalar is kept as its text; other shapes become empty and are dropped.
#[derive(Debug, Default)]
pub struct ListItem(pub Option<String>);

impl<'de> Deserialize<'de> for ListItem {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = ListItem;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string or a map with `name`")
            }
            fn visit_str<E>(self, v: &str) -> Result<ListItem, E> {
                Ok(ListItem(Some(v.to_string())))
            }
            fn visit_i64<E>(self, v: i64) -> Result<ListItem, E> {
                Ok(ListItem(Some(v.to_string())))
            }
            fn visit_u64<E>(self, v: u64) -> Result<ListItem, E> {
                Ok(ListItem(Some(v.to_string())))
            }
            fn visit_f64<E>(self, v: f64) -> Result<ListItem, E> {
                Ok(ListItem(Some(v.to_string())))
            }
            fn visit_bool<E>(self, v: bool) -> Result<ListItem, E> {
                Ok(ListItem(Some(v.to_string())))
            }
            fn visit_unit<E>(self) -> Result<ListItem, E> {
                Ok(ListItem(None))
            }
            fn visit_none<E>(self) -> Result<ListItem, E> {
                Ok(ListItem(None))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<ListItem, A::Error> {
                let mut name = None;
                while let Some(k) = map.next_key::<String>()? {
                    let v: ListItem = map.next_value()?;
                    if k == "name" || k == "github" {
                        name = name.or(v.0);
                    }
                }
                Ok(ListItem(name))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<ListItem, A::Error> {
                while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
                Ok(ListItem(None))
            }
        }
        d.deserialize_any(V)
    }
}

/// The serde shape of `milestone:`.
#[derive(Debug, Default, Deserialize)]
#[allow(missing_docs)]
pub struct RawMilestones {
    pub alpha: Option<String>,
    pub beta: Option<String>,
    pub stable: Option<String>,
    pub deprecated: Option<String>,
    pub disabled: Option<String>,
    pub removed: Option<String>,
}

/// The serde shape of one `feature-gates:` entry.
#[derive(Debug, Default, Deserialize)]
#[allow(missing_docs)]
pub struct RawFeatureGate {
    pub name: Option<String>,
    pub components: Option<Vec<ListItem>>,
}

/// A YAML syntax or shape error with its position in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamlError {
    /// 1-based line in the file (front matter offset applied).
    pub line: Option<usize>,
    /// 1-based column.
    pub column: Option<usize>,
    /// The parser's message.
    pub message: String,
}

#[cfg(test)]
thread_local! {
    /// How many times [`FieldLines::line`] was asked (tests count it).
    pub(crate) static LINE_LOOKUPS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Where each key was written: `status` → line, `milestone.beta` → line.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct FieldLines {
    /// Keys in file order with their line (top level and `milestone.*`): a
    /// few dozen, so a key is looked up along them (a map beside them held
    /// every key twice, 7 MB of the 10x corpus's model).
    order: Vec<(String, usize)>,
}

impl FieldLines {
    /// The 1-based line of `key` (`milestone.alpha` for nested keys); the
    /// first when it is written twice.
    pub fn line(&self, key: &str) -> Option<usize> {
        #[cfg(test)]
        LINE_LOOKUPS.with(|c| c.set(c.get() + 1));
        self.order.iter().find(|(k, _)| k == key).map(|&(_, n)| n)
    }

    /// Top-level keys not known to the enhancements tooling, and unknown
    /// `milestone.*` keys, with their lines.
    pub fn unknown(&self) -> Vec<(String, usize)> {
        self.order
            .iter()
            .filter(|(k, _)| match k.strip_prefix("milestone.") {
                Some(stage) => Stage::parse(stage).valid().is_none(),
                None => !KNOWN_FIELDS.contains(&k.as_str()),
            })
            .cloned()
            .collect()
    }

    /// Scan YAML text for block-style keys. `offset` is added to line numbers
    /// (front matter starts after the `---` line).
    pub fn scan(text: &str, offset: usize) -> Self {
        let mut out = FieldLines::default();
        let mut in_milestone = false;
        for (i, line) in text.lines().enumerate() {
            let n = i + 1 + offset;
            let trimmed = line.trim_start();
            if trimmed.is_empty() || trimmed.starts_with('#') {
                continue;
            }
            let indented = trimmed.len() != line.len();
            let Some(key) = key_of(trimmed) else {
                if !indented {
                    in_milestone = false;
                }
                continue;
            };
            if !indented {
                in_milestone = key == "milestone";
                out.push(key.to_string(), n);
            } else if in_milestone && !trimmed.starts_with('-') {
                out.push(format!("milestone.{key}"), n);
            }
        }
        out
    }

    fn push(&mut self, key: String, line: usize) {
        self.order.push((key, line));
    }
}

/// The key of a `key: value` line, without quotes.
fn key_of(line: &str) -> Option<&str> {
    if line.starts_with('-') || line.starts_with('[') || line.starts_with('{') {
        return None;
    }
    let colon = line.find(':')?;
    let rest = &line[colon + 1..];
    if !(rest.is_empty() || rest.starts_with(' ') || rest.starts_with('\t')) {
        return None;
    }
    let key = line[..colon].trim().trim_matches(|c| c == '"' || c == '\'');
    (!key.is_empty()).then_some(key)
}

/// Parse YAML text into the raw shape. `offset` is the number of lines before
/// `text` in its file. Alias expansion and nesting are bounded.
pub fn parse_raw(text: &str, offset: usize) -> Result<RawKepYaml, YamlError> {
    parse_yaml(text, offset)
}

/// Parse any YAML document into `T` with kepsite's safety limits.
pub fn parse_yaml<T: for<'de> Deserialize<'de>>(text: &str, offset: usize) -> Result<T, YamlError> {
    if text.trim().is_empty() {
        // An empty document deserializes as null; treat it as an empty mapping.
        return serde_saphyr::from_str_with_options::<T>("{}", yaml_options()).map_err(|e| {
            YamlError {
                line: None,
                column: None,
                message: e.to_string(),
            }
        });
    }
    serde_saphyr::from_str_with_options::<T>(text, yaml_options()).map_err(|e| {
        let loc = e.location();
        let message = first_line(&e.to_string());
        YamlError {
            line: loc
                .map(|l| l.line() as usize)
                .filter(|l| *l > 0)
                .map(|l| l + offset),
            column: loc.map(|l| l.column() as usize).filter(|c| *c > 0),
            message,
        }
    })
}

fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or(s).trim().to_string()
}

fn yaml_options() -> serde_saphyr::Options {
    let mut alias_limits = serde_saphyr::options::AliasLimits::default();
    alias_limits.max_total_replayed_events = 10_000;
    alias_limits.max_replay_stack_depth = 8;
    alias_limits.max_alias_expansions_per_anchor = 64;
    serde_saphyr::options! {
        budget: serde_saphyr::budget! {
            max_aliases: 256,
            max_anchors: 256,
            max_events: 200_000,
            max_depth: 32,
            max_nodes: 100_000,
            max_documents: 1,
        },
        alias_limits: alias_limits,
        with_snippet: false,
        crop_radius: 0,
    }
}

/// The milestone of each stage, as written.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[allow(missing_docs)]
pub struct Milestones {
    pub alpha: String,
    pub beta: String,
    pub stable: String,
    pub deprecated: String,
    pub disabled: String,
    pub removed: String,
}

impl Milestones {
    /// `(stage, milestone)` for every stage that has one, in stage order.
    pub fn entries(&self) -> Vec<(Stage, &str)> {
        Stage::ALL
            .into_iter()
            .map(|s| {
                let m = self.get(&s);
                (s, m)
            })
            .filter(|(_, m)| !m.is_empty())
            .collect()
    }

    /// The milestone written for `stage` ("" when none, or for an invalid stage).
    pub fn get(&self, stage: &Stage) -> &str {
        match stage {
            Stage::Alpha => &self.alpha,
            Stage::Beta => &self.beta,
            Stage::Stable => &self.stable,
            Stage::Deprecated => &self.deprecated,
            Stage::Disabled => &self.disabled,
            Stage::Removed => &self.removed,
            Stage::Unset | Stage::Invalid(_) => "",
        }
    }

    /// The release written for `stage`, when it reads as one.
    pub fn release(&self, stage: &Stage) -> Option<Release> {
        Release::parse(self.get(stage))
    }
}

/// A feature gate and the components it must be enabled on.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct FeatureGate {
    /// Gate name.
    pub name: String,
    /// Components, e.g. `kube-apiserver`.
    pub components: Vec<String>,
}

/// The domain shape of a KEP's metadata. Missing scalars are empty strings;
/// values are trimmed but otherwise as written.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)]
pub struct Metadata {
    pub title: String,
    #[serde(rename = "kep-number")]
    pub kep_number: String,
    pub authors: Vec<String>,
    pub owning_sig: String,
    pub participating_sigs: Vec<String>,
    pub reviewers: Vec<String>,
    pub approvers: Vec<String>,
    pub prr_approvers: Vec<String>,
    pub editor: String,
    pub creation_date: String,
    pub last_updated: String,
    pub status: Status,
    pub see_also: Vec<String>,
    pub replaces: Vec<String>,
    pub superseded_by: Vec<String>,
    pub stage: Stage,
    pub latest_milestone: String,
    pub milestone: Milestones,
    pub feature_gates: Vec<FeatureGate>,
    pub disable_supported: Option<bool>,
    pub metrics: Vec<String>,
}

impl Metadata {
    /// The release `latest-milestone` names, when it reads as one.
    pub fn latest_release(&self) -> Option<Release> {
        Release::parse(&self.latest_milestone)
    }
}

fn s(v: Option<String>) -> String {
    v.map(|v| v.trim().to_string()).unwrap_or_default()
}

fn list(v: Option<Vec<ListItem>>) -> Vec<String> {
    v.unwrap_or_default()
        .into_iter()
        .filter_map(|e| e.0)
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

impl From<RawKepYaml> for Metadata {
    fn from(r: RawKepYaml) -> Self {
        let m = r.milestone.unwrap_or_default();
        Metadata {
            title: s(r.title),
            kep_number: s(r.kep_number),
            authors: list(r.authors),
            owning_sig: s(r.owning_sig),
            participating_sigs: list(r.participating_sigs),
            reviewers: list(r.reviewers),
            approvers: list(r.approvers),
            prr_approvers: list(r.prr_approvers),
            editor: s(r.editor),
            creation_date: s(r.creation_date),
            last_updated: s(r.last_updated),
            status: Status::parse(&s(r.status)),
            see_also: list(r.see_also),
            replaces: list(r.replaces),
            superseded_by: list(r.superseded_by),
            stage: Stage::parse(&s(r.stage)),
            latest_milestone: s(r.latest_milestone),
            milestone: Milestones {
                alpha: s(m.alpha),
                beta: s(m.beta),
                stable: s(m.stable),
                deprecated: s(m.deprecated),
                disabled: s(m.disabled),
                removed: s(m.removed),
            },
            feature_gates: r
                .feature_gates
                .unwrap_or_default()
                .into_iter()
                .map(|g| FeatureGate {
                    name: s(g.name),
                    components: list(g.components),
                })
                .collect(),
            disable_supported: r.disable_supported.and_then(|v| {
                match v.trim().to_ascii_lowercase().as_str() {
                    "true" | "yes" => Some(true),
                    "false" | "no" => Some(false),
                    _ => None,
                }
            }),
            metrics: list(r.metrics),
        }
    }
}

/// Split a legacy single-file KEP into (front matter, line offset of the
/// front matter's first line minus one, body). `None` when the file does not
/// open with a `---` line followed by a closing `---`.
pub fn split_front_matter(text: &str) -> Option<(&str, usize, &str)> {
    let text_nb = text.strip_prefix('\u{feff}').unwrap_or(text);
    let first_end = text_nb.find('\n')?;
    if text_nb[..first_end].trim_end() != "---" {
        return None;
    }
    let rest = &text_nb[first_end + 1..];
    let mut pos = 0;
    for line in rest.split_inclusive('\n') {
        let t = line.trim_end();
        if t == "---" || t == "..." {
            let fm = &rest[..pos];
            let body = &rest[pos + line.len()..];
            return Some((fm, 1, body));
        }
        pos += line.len();
    }
    None
}

#[cfg(test)]
mod tests;
