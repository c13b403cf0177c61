//! One spec literal: `{Version: version.MustParse("1.33"), Default: true,
//! PreRelease: featuregate.Beta, LockToDefault: true}` (or without
//! `Version`, the unversioned `FeatureSpec` of releases before 1.32).

use tree_sitter::Node;

use super::{RawSpec, Reader, bool_literal, inner, last_part, named, unquote};
use crate::repo::gates::PreRelease;

impl Reader<'_> {
    /// The spec `node` (a `literal_value`) writes. Go's zero values stand
    /// for fields left out: `Default` false, `LockToDefault` false and
    /// `PreRelease` GA (featuregate's `GA` is the empty string). Fields
    /// kepsite does not use (`MinCompatibilityVersion`) are skipped.
    pub(super) fn spec(&self, node: Node) -> Result<RawSpec, String> {
        if node.kind() != "literal_value" {
            return Err(format!("a spec that is not a literal: {}", self.src(node)));
        }
        let mut spec = RawSpec {
            minor: None,
            default: false,
            pre_release: PreRelease::Ga,
            locked: false,
        };
        for field in named(node) {
            let (Some(key), Some(value)) = (
                field.child_by_field_name("key").and_then(inner),
                field.child_by_field_name("value").and_then(inner),
            ) else {
                return Err(format!("unreadable spec field {}", self.src(field)));
            };
            match self.src(key) {
                "Version" => spec.minor = Some(self.version(value)?),
                "Default" => spec.default = self.boolean(value)?,
                "LockToDefault" => spec.locked = self.boolean(value)?,
                "PreRelease" => {
                    let text = self.src(value);
                    spec.pre_release = PreRelease::from_go(last_part(text))
                        .ok_or_else(|| format!("unknown PreRelease {text}"))?;
                }
                _ => {}
            }
        }
        Ok(spec)
    }

    fn boolean(&self, node: Node) -> Result<bool, String> {
        if let Some(b) = bool_literal(node.kind()) {
            return Ok(b);
        }
        let text = self.src(node);
        self.bools
            .get(text)
            .copied()
            .ok_or_else(|| format!("not a boolean this file defines: {text}"))
    }

    /// The minor of `version.MustParse("1.N")` (also `"v1.N"`, `"1.N.P"`)
    /// or `version.MajorMinor(1, N)`.
    fn version(&self, node: Node) -> Result<u32, String> {
        let text = self.src(node);
        let bad = || format!("unreadable Version {text}");
        if node.kind() != "call_expression" {
            return Err(bad());
        }
        let args = node.child_by_field_name("arguments").ok_or_else(bad)?;
        let args = named(args);
        let parts: Vec<&str> = match args.as_slice() {
            [one] if one.kind().ends_with("string_literal") => {
                let s = unquote(self.src(*one));
                s.strip_prefix('v').unwrap_or(s).split('.').collect()
            }
            [major, minor] => vec![self.src(*major), self.src(*minor)],
            _ => return Err(bad()),
        };
        match parts.as_slice() {
            ["1", minor, ..] => minor.trim().parse().map_err(|_| bad()),
            _ => Err(format!("not a 1.x version: {text}")),
        }
    }
}
