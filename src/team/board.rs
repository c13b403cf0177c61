//! The release team's tracking board: the JSON of `gh project item-list N
//! --owner kubernetes --format json --limit 1000` → [`Item`]s (the
//! enhancement issue of each, and the board's Status, Stage and SIG fields
//! as the team set them).
//!
//! `gh` names each field of the board by its name with the first letter in
//! lower case ("Status" → `status`, "SIG" → `sIG`); the fields are found by
//! name in any case, so a board whose fields are named a little differently
//! still reads.

use std::fmt;

use anyhow::{Result, bail};
use serde::de::{IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};

/// The board file: how it is named, and the largest read.
pub const FILE: crate::input_file::Kind = crate::input_file::Kind {
    what: "the board file",
    item: "item",
    limit: 64 << 20,
    hint: "export with `gh project item-list N --owner kubernetes --format json --limit 1000`",
};

/// One item of the board: an enhancement issue and its fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    /// The issue's number (= KEP number).
    pub number: u32,
    /// The issue's title, as the board shows it.
    pub title: String,
    /// The Status field, as written ("Tracked for enhancements freeze").
    pub status: Option<String>,
    /// The Stage field ("Alpha", "Beta", "Stable", …).
    pub stage: Option<String>,
    /// The SIG field.
    pub sig: Option<String>,
}

#[derive(Deserialize)]
struct Raw {
    items: Vec<RawItem>,
}

#[derive(Deserialize, Default)]
struct RawContent {
    #[serde(rename = "type", default)]
    kind: Option<String>,
    #[serde(default)]
    number: Option<u64>,
    #[serde(default)]
    repository: Option<String>,
    #[serde(default)]
    title: Option<String>,
}

/// A field's value: text, or anything else (ignored).
#[derive(Deserialize)]
#[serde(untagged)]
enum Field {
    Text(String),
    Other(IgnoredAny),
}

impl Field {
    fn text(self) -> Option<String> {
        match self {
            Field::Text(s) => Some(s.trim().to_string()).filter(|s| !s.is_empty()),
            Field::Other(_) => None,
        }
    }
}

/// An item, its fields found by name in any case, the rest skipped unread.
#[derive(Default)]
struct RawItem {
    content: Option<RawContent>,
    title: Option<String>,
    status: Option<String>,
    stage: Option<String>,
    sig: Option<String>,
}

impl<'de> Deserialize<'de> for RawItem {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RawItem;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a board item (an object)")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawItem, A::Error> {
                let mut item = RawItem::default();
                while let Some(key) = map.next_key::<String>()? {
                    match key.to_ascii_lowercase().as_str() {
                        "content" => item.content = Some(map.next_value()?),
                        "title" => item.title = map.next_value::<Field>()?.text(),
                        "status" => item.status = map.next_value::<Field>()?.text(),
                        "stage" => item.stage = map.next_value::<Field>()?.text(),
                        "sig" => item.sig = map.next_value::<Field>()?.text(),
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(item)
            }
        }
        d.deserialize_map(V)
    }
}

/// Parse a `--board` file in one pass. Items that are not issues of an
/// enhancements repository (draft issues, pull requests, other
/// repositories) are left out; an issue with no number is an error naming it.
pub fn parse(bytes: &[u8]) -> Result<Vec<Item>> {
    let raw: Raw = serde_json::from_slice(bytes).map_err(|e| {
        anyhow::anyhow!(
            "{} is not a JSON object with `items` as expected: {} ({})",
            FILE.what,
            crate::escape::terminal(&e.to_string()),
            FILE.hint
        )
    })?;
    let mut out = Vec::new();
    for (i, item) in raw.items.into_iter().enumerate() {
        let content = item.content.unwrap_or_default();
        if content.kind.as_deref().is_some_and(|k| k != "Issue") {
            continue;
        }
        let repo = content.repository.as_deref().unwrap_or("");
        if !repo.is_empty() && !repo.ends_with("/enhancements") {
            continue;
        }
        let Some(number) = content.number.and_then(|n| u32::try_from(n).ok()) else {
            bail!("item {i} of the board file has no issue number (content.number)");
        };
        out.push(Item {
            number,
            title: content.title.or(item.title).unwrap_or_default(),
            status: item.status,
            stage: item.stage,
            sig: item.sig,
        });
    }
    Ok(out)
}

/// Read and parse the board file at `path`, within [`FILE`]'s limit.
pub fn read(path: &std::path::Path) -> Result<Vec<Item>> {
    let bytes = crate::input_file::read_bytes(&FILE, path)?;
    parse(&bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gh_export_parses() {
        let items = parse(
            br#"{"items": [
              {"id": "A", "content": {"type": "Issue", "number": 5325, "repository": "kubernetes/enhancements", "title": "X"},
               "status": "At risk for enhancements freeze", "stage": "Stable", "sIG": "SIG Node"},
              {"id": "B", "content": {"type": "DraftIssue", "title": "draft"}},
              {"id": "C", "content": {"type": "Issue", "number": 3, "repository": "kubernetes/website"}},
              {"id": "D", "content": {"type": "Issue", "number": 7}, "status": "  "}
            ], "totalCount": 4}"#,
        )
        .unwrap();
        assert_eq!(items.len(), 2);
        assert_eq!(items[0].number, 5325);
        assert_eq!(
            items[0].status.as_deref(),
            Some("At risk for enhancements freeze")
        );
        assert_eq!(items[0].sig.as_deref(), Some("SIG Node"));
        assert_eq!(items[1].status, None);
        for (text, says) in [
            ("[", "not a JSON object"),
            ("[]", "`items`"),
            (r#"{"items": [1]}"#, "a board item"),
            (
                r#"{"items": [{"content": {"type": "Issue"}}]}"#,
                "no issue number",
            ),
        ] {
            let e = format!("{:#}", parse(text.as_bytes()).unwrap_err());
            assert!(e.contains(says), "{text}: {e}");
        }
    }
}
