//! Production readiness inputs: `keps/prod-readiness/<sig>/<n>.yaml` →
//! [`PrrFile`], `OWNERS_ALIASES` → [`OwnersAliases`], kubernetes/community's
//! `sigs.yaml` → [`SigList`].

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::metadata::{FieldLines, YamlError, parse_yaml};

/// Stages a prod-readiness file can approve, in order.
use super::metadata::Stage;

#[derive(Debug, Default, Deserialize)]
struct RawApproval {
    approver: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "kebab-case")]
struct RawPrr {
    kep_number: Option<String>,
    alpha: Option<RawApproval>,
    beta: Option<RawApproval>,
    stable: Option<RawApproval>,
    deprecated: Option<RawApproval>,
    disabled: Option<RawApproval>,
    removed: Option<RawApproval>,
}

/// One stage's PRR approval.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Approval {
    /// Approver as written, e.g. `@deads2k`.
    pub approver: String,
    /// Line of the stage key.
    pub line: Option<usize>,
}

impl Approval {
    /// The GitHub handle without `@`, lowercased.
    pub fn handle(&self) -> String {
        handle(&self.approver)
    }
}

/// A GitHub handle without `@`, lowercased, for comparisons.
pub fn handle(s: &str) -> String {
    s.trim().trim_start_matches('@').to_ascii_lowercase()
}

/// A parsed prod-readiness file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PrrFile {
    /// Repository-relative path.
    pub path: String,
    /// The SIG directory it sits in.
    pub sig: String,
    /// The number in the file name.
    pub file_number: Option<u32>,
    /// `kep-number` as written.
    pub kep_number: String,
    /// Approval per stage (only stages present in the file).
    pub approvals: BTreeMap<Stage, Approval>,
    /// Why the file could not be parsed, if it could not.
    #[serde(skip)]
    pub error: Option<YamlError>,
}

impl PrrFile {
    /// The KEP number this file is for: the file name's, else `kep-number`.
    pub fn number(&self) -> Option<u32> {
        self.file_number
            .or_else(|| self.kep_number.trim().parse().ok())
    }

    /// The approval for `stage`, if present with a non-empty approver.
    pub fn approval(&self, stage: &Stage) -> Option<&Approval> {
        self.approvals
            .get(stage)
            .filter(|a| !a.approver.trim().is_empty())
    }
}

/// Parse a prod-readiness file at `path` (`keps/prod-readiness/<sig>/<n>.yaml`).
pub fn parse_prr(path: &str, text: &str) -> PrrFile {
    let mut parts = path.split('/').skip(2);
    let sig = parts.next().unwrap_or_default().to_string();
    let file_number = path
        .rsplit('/')
        .next()
        .and_then(|n| n.strip_suffix(".yaml"))
        .and_then(|n| n.parse().ok());
    let lines = FieldLines::scan(text, 0);
    let mut file = PrrFile {
        path: path.to_string(),
        sig,
        file_number,
        kep_number: String::new(),
        approvals: BTreeMap::new(),
        error: None,
    };
    match parse_yaml::<RawPrr>(text, 0) {
        Ok(raw) => {
            file.kep_number = raw.kep_number.unwrap_or_default().trim().to_string();
            let stages = [
                raw.alpha,
                raw.beta,
                raw.stable,
                raw.deprecated,
                raw.disabled,
                raw.removed,
            ];
            for (stage, a) in Stage::ALL.into_iter().zip(stages) {
                if let Some(a) = a {
                    let line = lines.line(stage.as_str());
                    file.approvals.insert(
                        stage,
                        Approval {
                            approver: a.approver.unwrap_or_default().trim().to_string(),
                            line,
                        },
                    );
                }
            }
        }
        Err(e) => file.error = Some(e),
    }
    file
}

#[derive(Debug, Default, Deserialize)]
struct RawAliases {
    aliases: Option<BTreeMap<String, Option<Vec<String>>>>,
}

/// The parsed `OWNERS_ALIASES` file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct OwnersAliases {
    /// Every alias and its members (handles as written).
    pub aliases: BTreeMap<String, Vec<String>>,
    /// Whether the file was present.
    pub present: bool,
    /// Why it could not be parsed.
    #[serde(skip)]
    pub error: Option<YamlError>,
}

impl OwnersAliases {
    /// Parse `OWNERS_ALIASES` text.
    pub fn parse(text: &str) -> Self {
        match parse_yaml::<RawAliases>(text, 0) {
            Ok(raw) => OwnersAliases {
                aliases: raw
                    .aliases
                    .unwrap_or_default()
                    .into_iter()
                    .map(|(k, v)| (k, v.unwrap_or_default()))
                    .collect(),
                present: true,
                error: None,
            },
            Err(e) => OwnersAliases {
                present: true,
                error: Some(e),
                ..Default::default()
            },
        }
    }

    fn members(&self, alias: &str) -> impl Iterator<Item = String> + '_ {
        self.aliases
            .get(alias)
            .into_iter()
            .flatten()
            .map(|m| handle(m))
    }

    /// Whether `who` is a current PRR approver.
    pub fn is_prr_approver(&self, who: &str) -> bool {
        let h = handle(who);
        self.members("prod-readiness-approvers").any(|m| m == h)
    }

    /// Whether `who` is a current or emeritus PRR approver.
    pub fn is_prr_approver_or_emeritus(&self, who: &str) -> bool {
        let h = handle(who);
        self.is_prr_approver(who)
            || self
                .members("prod-readiness-approvers-emeritus")
                .any(|m| m == h)
    }
}

#[derive(Debug, Default, Deserialize)]
struct RawPerson {
    github: Option<String>,
    name: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
struct RawLeadership {
    chairs: Option<Vec<RawPerson>>,
    tech_leads: Option<Vec<RawPerson>>,
}

#[derive(Debug, Default, Deserialize)]
struct RawContact {
    slack: Option<String>,
    mailing_list: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
struct RawSubproject {
    name: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
struct RawGroup {
    dir: Option<String>,
    name: Option<String>,
    mission_statement: Option<String>,
    leadership: Option<RawLeadership>,
    contact: Option<RawContact>,
    subprojects: Option<Vec<RawSubproject>>,
}

#[derive(Debug, Default, Deserialize)]
struct RawSigs {
    sigs: Option<Vec<RawGroup>>,
    workinggroups: Option<Vec<RawGroup>>,
    committees: Option<Vec<RawGroup>>,
    usergroups: Option<Vec<RawGroup>>,
}

/// A person in a group's leadership.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Person {
    /// GitHub handle.
    pub github: String,
    /// Display name.
    pub name: String,
}

/// A SIG, working group, committee or user group from sigs.yaml.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Group {
    /// Directory name, e.g. `sig-node` (what `owning-sig` refers to).
    pub dir: String,
    /// Display name.
    pub name: String,
    /// `sig`, `wg`, `committee` or `ug`.
    pub kind: &'static str,
    /// Mission statement, trimmed.
    pub mission: String,
    /// Chairs.
    pub chairs: Vec<Person>,
    /// Technical leads.
    pub tech_leads: Vec<Person>,
    /// Slack channel.
    pub slack: String,
    /// Mailing list URL.
    pub mailing_list: String,
    /// Subproject names.
    pub subprojects: Vec<String>,
}

/// kubernetes/community's list of groups.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SigList {
    /// All groups, sorted by dir.
    pub groups: Vec<Group>,
}

impl SigList {
    /// Parse sigs.yaml text.
    pub fn parse(text: &str) -> Result<Self, YamlError> {
        let raw: RawSigs = parse_yaml(text, 0)?;
        let people = |v: Option<Vec<RawPerson>>| -> Vec<Person> {
            v.unwrap_or_default()
                .into_iter()
                .map(|p| Person {
                    github: p.github.unwrap_or_default(),
                    name: p.name.unwrap_or_default(),
                })
                .collect()
        };
        let mut groups = Vec::new();
        for (kind, list) in [
            ("sig", raw.sigs),
            ("wg", raw.workinggroups),
            ("committee", raw.committees),
            ("ug", raw.usergroups),
        ] {
            for g in list.unwrap_or_default() {
                let lead = g.leadership.unwrap_or_default();
                let contact = g.contact.unwrap_or_default();
                groups.push(Group {
                    dir: g.dir.unwrap_or_default(),
                    name: g.name.unwrap_or_default(),
                    kind,
                    mission: g.mission_statement.unwrap_or_default().trim().to_string(),
                    chairs: people(lead.chairs),
                    tech_leads: people(lead.tech_leads),
                    slack: contact.slack.unwrap_or_default(),
                    mailing_list: contact.mailing_list.unwrap_or_default(),
                    subprojects: g
                        .subprojects
                        .unwrap_or_default()
                        .into_iter()
                        .filter_map(|s| s.name)
                        .collect(),
                });
            }
        }
        groups.sort_by(|a, b| a.dir.cmp(&b.dir));
        Ok(SigList { groups })
    }

    /// The group with directory `dir`.
    pub fn get(&self, dir: &str) -> Option<&Group> {
        self.groups.iter().find(|g| g.dir == dir)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prr_file_parses_stages() {
        let f = parse_prr(
            "keps/prod-readiness/sig-node/2400.yaml",
            "kep-number: 2400\nalpha:\n  approver: \"@a\"\nbeta:\n  approver: \"@B\"\n",
        );
        assert_eq!(f.sig, "sig-node");
        assert_eq!(f.number(), Some(2400));
        assert_eq!(f.approval(&Stage::Beta).unwrap().handle(), "b");
        assert_eq!(f.approval(&Stage::Beta).unwrap().line, Some(4));
        assert!(f.approval(&Stage::Stable).is_none());
        assert!(f.error.is_none());
    }

    #[test]
    fn bad_prr_file_keeps_error() {
        let f = parse_prr("keps/prod-readiness/sig-x/1.yaml", "alpha: [unclosed\n");
        assert!(f.error.is_some());
    }

    #[test]
    fn aliases() {
        let a = OwnersAliases::parse(
            "aliases:\n  prod-readiness-approvers:\n    - alice\n  prod-readiness-approvers-emeritus:\n    - bob\n",
        );
        assert!(a.is_prr_approver("@Alice"));
        assert!(!a.is_prr_approver("@bob"));
        assert!(a.is_prr_approver_or_emeritus("@bob"));
        assert!(!a.is_prr_approver_or_emeritus("@carol"));
    }
}
