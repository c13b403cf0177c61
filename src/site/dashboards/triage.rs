//! What a dashboard reader came for: the KEPs that need something first,
//! the most missing on top, and a summary line whose parts filter the list.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::analysis::freeze::CHECKLIST;

/// How much a row lacks: its failing checklist items, then its unanswered
/// PRR questions.
fn lack(row: &Value) -> (usize, usize) {
    let n = |k: &str| row[k].as_array().map_or(0, Vec::len);
    (n("failing"), n("unanswered"))
}

/// Orders dashboard rows by what needs doing: open rows (At risk, Missed
/// the freeze) first, the most missing first among them, then by KEP
/// number (unnumbered last), then title.
pub fn order(rows: &mut [Value]) {
    rows.sort_by_cached_key(|r| {
        let (items, questions) = lack(r);
        (
            !r["open"].as_bool().unwrap_or(false),
            std::cmp::Reverse(items),
            std::cmp::Reverse(questions),
            r["kep"]["number"].as_u64().unwrap_or(u64::MAX),
            r["kep"]["title"].as_str().unwrap_or_default().to_string(),
        )
    });
}

/// The summary line of a dashboard's rows for one release: how many are
/// tracked, how many need action (at risk, or an exception), how many wait
/// on an exception, how many were removed, and per checklist item how many
/// rows not tracked lack it,
/// each part carrying the id a link filters the list by.
pub fn summary(rows: &[Value], release: &str) -> Value {
    let open: Vec<&Value> = rows.iter().filter(|r| r["open"] == true).collect();
    // What is missing, over every row not tracked: those that need action
    // and those removed for it (an exception request starts from the list).
    let mut by_id: BTreeMap<&str, usize> = BTreeMap::new();
    for r in rows.iter().filter(|r| r["good"] != true) {
        for f in r["failing"].as_array().into_iter().flatten() {
            if let Some(id) = f["id"].as_str() {
                *by_id.entry(id).or_default() += 1;
            }
        }
    }
    let parts: Vec<Value> = CHECKLIST
        .iter()
        .filter_map(|c| {
            by_id.get(c.id.as_str()).map(|&n| {
                let says = if n == 1 { c.one } else { c.many };
                json!({ "id": c.id, "count": n, "says": says })
            })
        })
        .collect();
    json!({
        "release": release,
        "total": rows.len(),
        "ok": rows.iter().filter(|r| r["good"] == true).count(),
        "late": rows.iter().filter(|r| r["exception"] == true).count(),
        "ok_label": "tracked",
        "open": open.len(),
        "open_label": "need action",
        "removed": rows.iter().filter(|r| r["tone"] == "bad").count(),
        "parts": parts,
    })
}

/// What a PRR reviewer does next for one row of their queue, in one line,
/// and how soon: 0 = the reviewer can act now, 1 = waiting on the authors,
/// 2 = nothing left to do.
pub fn todo(row: &Value) -> (u8, String) {
    let stage = row["prr_stage"].as_str().unwrap_or("its stage");
    let unanswered = row["unanswered"].as_array().map_or(0, Vec::len);
    let questions = |n: usize| {
        if n == 1 {
            "1 PRR question is".to_string()
        } else {
            format!("{n} PRR questions are")
        }
    };
    match (row["prr_approver"].is_null(), unanswered) {
        (true, 0) => (
            0,
            format!("Review the PRR and approve it for {stage}: the questionnaire is answered."),
        ),
        (true, n) => (
            1,
            format!(
                "Waiting on the authors: {} unanswered for {stage}; review once they are.",
                questions(n)
            ),
        ),
        (false, 0) => (2, format!("Done: approved for {stage}.")),
        (false, n) => (
            1,
            format!(
                "Approved for {stage}, but {} still unanswered: ask the authors.",
                questions(n)
            ),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::outcome::Tone;

    fn row(n: u64, outcome: Tone, failing: &[&str], unanswered: usize) -> Value {
        json!({
            "kep": { "number": n, "title": format!("KEP {n}") },
            "good": outcome == Tone::Good,
            "open": outcome == Tone::Risk,
            "tone": outcome,
            "failing": failing.iter().map(|id| json!({ "id": id, "detail": id })).collect::<Vec<_>>(),
            "unanswered": (0..unanswered).map(|i| json!({ "title": format!("Q{i}") })).collect::<Vec<_>>(),
            "prr_stage": "beta",
            "prr_approver": Value::Null,
        })
    }

    #[test]
    fn open_rows_come_first_with_the_most_missing_on_top() {
        let mut rows = vec![
            row(1, Tone::Good, &[], 0),
            row(2, Tone::Risk, &["prr-approved"], 0),
            row(3, Tone::Risk, &["prr-approved", "prr-questionnaire"], 2),
            row(4, Tone::Risk, &["prr-approved"], 5),
        ];
        order(&mut rows);
        let got: Vec<u64> = rows
            .iter()
            .map(|r| r["kep"]["number"].as_u64().unwrap())
            .collect();
        assert_eq!(got, [3, 4, 2, 1]);
    }

    #[test]
    fn the_summary_counts_what_open_rows_lack() {
        let rows = vec![
            row(1, Tone::Good, &[], 0),
            row(2, Tone::Risk, &["prr-approved"], 0),
            row(3, Tone::Risk, &["prr-approved", "test-plan-checkbox"], 2),
            // Removed for what it lacks: counted in the parts, not as open.
            row(4, Tone::Bad, &["prr-approved"], 0),
        ];
        let s = summary(&rows, "v1.37");
        assert_eq!(s["ok"], 1);
        assert_eq!(s["open"], 2);
        assert_eq!(s["removed"], 1);
        assert_eq!(s["open_label"], "need action");
        assert_eq!(
            s["parts"],
            json!([
                { "id": "prr-approved", "count": 3, "says": "need PRR approval" },
                { "id": "test-plan-checkbox", "count": 1, "says": "lacks the Test Plan checkbox (checked)" },
            ])
        );
    }

    #[test]
    fn a_reviewer_is_told_what_to_do() {
        let mut r = row(1, Tone::Risk, &[], 0);
        assert_eq!(todo(&r).0, 0);
        assert!(todo(&r).1.starts_with("Review the PRR"), "{}", todo(&r).1);
        r["unanswered"] = json!([{ "title": "Q" }]);
        assert_eq!(todo(&r), (1, "Waiting on the authors: 1 PRR question is unanswered for beta; review once they are.".to_string()));
        r["prr_approver"] = json!("jpbetz");
        assert_eq!(todo(&r).0, 1);
        r["unanswered"] = json!([]);
        assert_eq!(todo(&r), (2, "Done: approved for beta.".to_string()));
    }
}
