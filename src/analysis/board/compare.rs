//! The team's board beside kepsite's reading: the board's items (`--board`)
//! and the release's KEPs (number, status, stage, SIG) → the items whose
//! Status, Stage or SIG differ ([`BoardDiff`]), each with the value to set
//! in the board's own words, ready for the lead to apply.

use std::collections::BTreeMap;

use serde::Serialize;

use super::Status;
use crate::kep::domain::{Release, Stage};
use crate::team::board::Item;

/// One board item that disagrees with the files.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BoardDiff {
    /// The issue (= KEP number).
    pub number: u32,
    /// The board's title for it.
    pub title: String,
    /// Each field that differs: (field, the board's value, kepsite's value).
    pub fields: Vec<(&'static str, String, String)>,
}

/// What kepsite says of one KEP, for the comparison.
#[derive(Debug, Clone)]
pub struct Said<'a> {
    /// The KEP number.
    pub number: u32,
    /// Its status on the board.
    pub status: Status,
    /// Its stage in the release.
    pub stage: &'a Stage,
    /// Its owning SIG (`sig-node`).
    pub sig: &'a str,
}

/// A status as the board writes it, folded: lower case, "enhancement
/// freeze" and "enhancements freeze" alike.
fn fold(s: &str) -> String {
    s.trim()
        .to_lowercase()
        .replace("enhancement freeze", "enhancements freeze")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// A SIG as a key: `SIG Node`, `sig-node` and `node` alike.
fn sig_key(s: &str) -> String {
    let l = s.trim().to_lowercase();
    let l = l.strip_prefix("sig").unwrap_or(&l);
    l.chars().filter(|c| c.is_alphanumeric()).collect()
}

/// The board's word for a stage: `Alpha`, `Beta`, `Stable`, `Deprecation`.
fn stage_word(s: &Stage) -> &'static str {
    match s.nearest() {
        Some(Stage::Alpha) => "Alpha",
        Some(Stage::Beta) => "Beta",
        Some(Stage::Stable) => "Stable",
        Some(_) => "Deprecation",
        None => "",
    }
}

/// Every item of `board` whose Status, Stage or SIG differ from `said`
/// (the release's KEPs), by number; an item for a KEP kepsite does not
/// count in the release says so in its Status.
pub fn compare(board: &[Item], said: &[Said], release: Release) -> Vec<BoardDiff> {
    let by_number: BTreeMap<u32, &Said> = said.iter().map(|s| (s.number, s)).collect();
    let mut out: Vec<BoardDiff> = board
        .iter()
        .filter_map(|item| {
            let mut fields = Vec::new();
            let board = |v: &Option<String>| v.clone().unwrap_or_default();
            match by_number.get(&item.number) {
                None => {
                    if item.status.as_deref().map(fold).as_deref() != Some("removed from milestone")
                    {
                        fields.push((
                            "Status",
                            board(&item.status),
                            format!("not in {release} by kepsite's reading"),
                        ));
                    }
                }
                Some(s) => {
                    let want = s.status.label(release);
                    if item.status.as_deref().map(fold) != Some(fold(&want)) {
                        fields.push(("Status", board(&item.status), want));
                    }
                    let stage = stage_word(s.stage);
                    if !stage.is_empty()
                        && !item
                            .stage
                            .as_deref()
                            .is_some_and(|b| b.trim().eq_ignore_ascii_case(stage))
                    {
                        fields.push(("Stage", board(&item.stage), stage.to_string()));
                    }
                    if item
                        .sig
                        .as_deref()
                        .is_some_and(|b| sig_key(b) != sig_key(s.sig))
                    {
                        fields.push(("SIG", board(&item.sig), s.sig.to_string()));
                    }
                }
            }
            (!fields.is_empty()).then(|| BoardDiff {
                number: item.number,
                title: item.title.clone(),
                fields,
            })
        })
        .collect();
    out.sort_by_key(|d| d.number);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::team::Freeze;

    fn item(n: u32, status: &str, stage: &str, sig: &str) -> Item {
        Item {
            number: n,
            title: format!("KEP {n}"),
            status: Some(status.into()),
            stage: Some(stage.into()),
            sig: Some(sig.into()),
        }
    }

    #[test]
    fn only_differing_fields_are_listed() {
        let r = Release::new(1, 37);
        let (alpha, beta) = (Stage::Alpha, Stage::Beta);
        let said = [
            Said {
                number: 1,
                status: Status::Tracked(Freeze::Enhancements),
                stage: &alpha,
                sig: "sig-node",
            },
            Said {
                number: 2,
                status: Status::AtRisk(Freeze::Enhancements),
                stage: &beta,
                sig: "sig-apps",
            },
        ];
        let board = [
            item(1, "Tracked For Enhancement Freeze", "Alpha", "SIG Node"),
            item(2, "Tracked for enhancements freeze", "Alpha", "sig-apps"),
            item(3, "Removed from Milestone", "Beta", "SIG Apps"),
            item(4, "Tracked for code freeze", "Beta", "SIG Apps"),
        ];
        let d = compare(&board, &said, r);
        assert_eq!(d.iter().map(|d| d.number).collect::<Vec<_>>(), [2, 4]);
        assert_eq!(
            d[0].fields,
            vec![
                (
                    "Status",
                    "Tracked for enhancements freeze".into(),
                    "At risk for enhancements freeze".into()
                ),
                ("Stage", "Alpha".into(), "Beta".into()),
            ]
        );
        assert_eq!(d[1].fields[0].2, "not in v1.37 by kepsite's reading");
    }
}
