//! With `--kubernetes` (issue 45): a report row ([`Row`]) → the words and
//! CSV cells that say which source decided its outcome, what the files say
//! where the code decided otherwise, and what the code says.

use crate::report::{Report, Row};

/// For people: `from the code (gate PodLevelResources)`, then what the
/// files say where they read otherwise; nothing without `--kubernetes`.
pub fn decided_notes(k: &Row) -> Vec<String> {
    let Some(d) = &k.decided else {
        return Vec::new();
    };
    let mut out = vec![match &d.gate {
        Some(g) => format!("{} (gate {g})", d.says),
        None => d.says.to_string(),
    }];
    out.extend(d.files.clone());
    out
}

/// Whether the report was built with the code at hand: the CSV then has
/// the code's columns (none without `--kubernetes`, so that output stays
/// as it was).
pub fn has_code(r: &Report) -> bool {
    rows(r).any(|k| k.decided.is_some() || k.code.is_some())
}

fn rows(r: &Report) -> impl Iterator<Item = &Row> {
    r.groups.iter().flat_map(|g| &g.sigs).flat_map(|s| &s.keps)
}

/// The code's CSV columns.
pub const CSV_HEADER: [&str; 5] = [
    "decided_by",
    "decided_gate",
    "files_say",
    "code_agrees",
    "code_says",
];

/// The code's CSV cells of `k`.
pub fn csv_cells(k: &Row) -> [String; 5] {
    let d = k.decided.as_ref();
    let c = k.code.as_ref();
    [
        d.map(|d| d.says.to_string()).unwrap_or_default(),
        d.and_then(|d| d.gate.clone()).unwrap_or_default(),
        d.and_then(|d| d.files.clone()).unwrap_or_default(),
        c.map(|c| if c.agrees { "yes" } else { "no" }.to_string())
            .unwrap_or_default(),
        c.map(|c| c.says.clone()).unwrap_or_default(),
    ]
}
