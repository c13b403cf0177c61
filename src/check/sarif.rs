//! Findings → a SARIF 2.1.0 log, for code-scanning dashboards.
//!
//! One run; `tool.driver.rules` is the whole rules table (id, summary,
//! default level, origin), and each result points at its rule by id and
//! index. A finding's hint is kept twice: appended to the message, which is
//! what dashboards show, and as the result property `help`.

use percent_encoding::{AsciiSet, CONTROLS, utf8_percent_encode};
use serde_json::{Value, json};

use crate::analysis::findings::RULES;
use crate::finding::{Finding, Severity};

/// Characters escaped in an `artifactLocation.uri`: everything a URI
/// reference cannot hold as is, except `/`, which separates the path.
const URI: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'%')
    .add(b'<')
    .add(b'>')
    .add(b'?')
    .add(b'[')
    .add(b'\\')
    .add(b']')
    .add(b'^')
    .add(b'`')
    .add(b'{')
    .add(b'|')
    .add(b'}');

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

fn rules() -> Vec<Value> {
    RULES
        .iter()
        .map(|r| {
            json!({
                "id": r.id,
                "shortDescription": { "text": r.summary },
                "help": { "text": r.summary },
                "defaultConfiguration": { "level": level(r.severity) },
                "properties": { "origin": r.origin },
            })
        })
        .collect()
}

fn result(f: &Finding) -> Value {
    let mut text = f.message.clone();
    if let Some(h) = &f.hint {
        text.push_str("\nhelp: ");
        text.push_str(h);
    }
    let mut region = json!({});
    if let Some(line) = f.line {
        region = json!({ "startLine": line });
    }
    let mut location = json!({
        "artifactLocation": {
            "uri": utf8_percent_encode(&f.path, URI).to_string(),
            "uriBaseId": "SRCROOT",
        },
    });
    if f.line.is_some() {
        location["region"] = region;
    }
    let mut out = json!({
        "ruleId": f.rule,
        "level": level(f.severity),
        "message": { "text": text },
        "locations": [{ "physicalLocation": location }],
    });
    if let Some(i) = RULES.iter().position(|r| r.id == f.rule) {
        out["ruleIndex"] = json!(i);
    }
    let mut props = serde_json::Map::new();
    if let Some(h) = &f.hint {
        props.insert("help".into(), json!(h));
    }
    if let Some(n) = f.kep {
        props.insert("kep".into(), json!(n));
    }
    if !props.is_empty() {
        out["properties"] = Value::Object(props);
    }
    out
}

/// The SARIF log of `findings`, pretty-printed, ending in a newline.
pub fn render(findings: &[Finding]) -> String {
    let log = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "kepsite",
                    "version": env!("CARGO_PKG_VERSION"),
                    "rules": rules(),
                },
            },
            "originalUriBaseIds": {
                "SRCROOT": { "description": { "text": "The root of the enhancements repository." } },
            },
            "results": findings.iter().map(result).collect::<Vec<_>>(),
        }],
    });
    let mut out = serde_json::to_string_pretty(&log).unwrap_or_default();
    out.push('\n');
    out
}
