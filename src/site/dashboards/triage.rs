//! What a dashboard reader came for: the KEPs that need something first,
//! the most missing on top, and a summary line whose parts filter the list.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::analysis::freeze::CHECKLIST;
use crate::site::listing::Entry;

/// A dashboard row: a release entry, and what a PRR row adds to it.
pub trait Row {
    /// The release entry.
    fn entry(&self) -> &Entry<'_>;
    /// How many PRR questions are unanswered (none for a plain entry).
    fn unanswered(&self) -> usize {
        0
    }
}

impl Row for Entry<'_> {
    fn entry(&self) -> &Entry<'_> {
        self
    }
}

/// How much a row lacks: its failing checklist items, then its unanswered
/// PRR questions.
fn lack(row: &impl Row) -> (usize, usize) {
    (row.entry().failing.len(), row.unanswered())
}

/// Orders dashboard rows by what needs doing: open rows (At risk, Missed
/// the freeze) first, the most missing first among them, then by KEP
/// number (unnumbered last), then title.
pub fn order(rows: &mut [impl Row]) {
    rows.sort_by_cached_key(|r| {
        let (items, questions) = lack(r);
        let e = r.entry();
        (
            !e.open,
            std::cmp::Reverse(items),
            std::cmp::Reverse(questions),
            e.kep.number.map_or(u64::MAX, u64::from),
            e.kep.title.clone(),
        )
    });
}

/// The summary line of a dashboard's rows for one release: how many are
/// tracked, how many need action (at risk, or an exception), how many wait
/// on an exception, how many were removed, and per checklist item how many
/// rows not tracked lack it,
/// each part carrying the id a link filters the list by.
pub fn summary<'r, R: Row + 'r>(rows: impl IntoIterator<Item = &'r R>, release: &str) -> Value {
    let rows: Vec<&Entry> = rows.into_iter().map(Row::entry).collect();
    // What is missing, over every row not tracked: those that need action
    // and those removed for it (an exception request starts from the list).
    let mut by_id = BTreeMap::new();
    for r in rows.iter().filter(|r| !r.good) {
        for f in &r.failing {
            *by_id.entry(f.id).or_insert(0usize) += 1;
        }
    }
    let parts: Vec<Value> = CHECKLIST
        .iter()
        .filter_map(|c| {
            by_id.get(&c.id).map(|&n| {
                let says = if n == 1 { c.one } else { c.many };
                json!({ "id": c.id, "count": n, "says": says })
            })
        })
        .collect();
    json!({
        "release": release,
        "total": rows.len(),
        "ok": rows.iter().filter(|r| r.good).count(),
        "late": rows.iter().filter(|r| r.exception).count(),
        "ok_label": "tracked",
        "open": rows.iter().filter(|r| r.open).count(),
        "open_label": "need action",
        "removed": rows.iter().filter(|r| r.bad()).count(),
        "parts": parts,
    })
}

/// What a PRR reviewer does next for one row of their queue, in one line,
/// and how soon: 0 = the reviewer can act now, 1 = waiting on the authors,
/// 2 = nothing left to do. `stage`: the stage whose PRR it needs;
/// `approved`: whether that stage's PRR is approved.
pub fn todo(stage: &str, approved: bool, unanswered: usize) -> (u8, String) {
    let questions = |n: usize| {
        if n == 1 {
            "1 PRR question is".to_string()
        } else {
            format!("{n} PRR questions are")
        }
    };
    match (approved, unanswered) {
        (false, 0) => (
            0,
            format!("Review the PRR and approve it for {stage}: the questionnaire is answered."),
        ),
        (false, n) => (
            1,
            format!(
                "Waiting on the authors: {} unanswered for {stage}; review once they are.",
                questions(n)
            ),
        ),
        (true, 0) => (2, format!("Done: approved for {stage}.")),
        (true, n) => (
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
    use crate::analysis::freeze::CheckId;
    use crate::analysis::outcome::Tone;
    use crate::site::listing::Failing;
    use crate::site::view::KepRef;

    /// A row of KEP `n` with these failing items and unanswered questions.
    struct T {
        entry: Entry<'static>,
        unanswered: usize,
    }

    impl Row for T {
        fn entry(&self) -> &Entry<'_> {
            &self.entry
        }
        fn unanswered(&self) -> usize {
            self.unanswered
        }
    }

    fn row(n: u32, tone: Tone, failing: &[CheckId], unanswered: usize) -> T {
        let kep: &'static KepRef = Box::leak(Box::new(KepRef {
            number: Some(n),
            title: format!("KEP {n}"),
            sig: String::new(),
            status: String::new(),
            stage: String::new(),
            latest_milestone: String::new(),
            url: String::new(),
            prr_state: String::new(),
            prr_complete: String::new(),
            readiness: String::new(),
            tone: None,
            target_release: String::new(),
        }));
        let entry = Entry {
            code: None,
            decided: None,
            kep,
            stage: "beta",
            open: tone == Tone::Risk,
            good: tone == Tone::Good,
            exception: false,
            missing: String::new(),
            failing: failing
                .iter()
                .map(|&id| Failing { id, detail: "" })
                .collect(),
            advice: Vec::new(),
            basis: None,
            outcome: "",
            tone,
            label: String::new(),
            reasons: Vec::new(),
            went: None,
            step: None,
            phases: Vec::new(),
            why: None,
            notes: &[],
            prs: Vec::new(),
            landed: None,
        };
        T { entry, unanswered }
    }

    #[test]
    fn open_rows_come_first_with_the_most_missing_on_top() {
        use CheckId::*;
        let mut rows = vec![
            row(1, Tone::Good, &[], 0),
            row(2, Tone::Risk, &[PrrApproved], 0),
            row(3, Tone::Risk, &[PrrApproved, PrrQuestionnaire], 2),
            row(4, Tone::Risk, &[PrrApproved], 5),
        ];
        order(&mut rows);
        let got: Vec<u32> = rows.iter().filter_map(|r| r.entry.kep.number).collect();
        assert_eq!(got, [3, 4, 2, 1]);
    }

    #[test]
    fn the_summary_counts_what_open_rows_lack() {
        use CheckId::*;
        let rows = vec![
            row(1, Tone::Good, &[], 0),
            row(2, Tone::Risk, &[PrrApproved], 0),
            row(3, Tone::Risk, &[PrrApproved, TestPlanCheckbox], 2),
            // Removed for what it lacks: counted in the parts, not as open.
            row(4, Tone::Bad, &[PrrApproved], 0),
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
        assert_eq!(todo("beta", false, 0).0, 0);
        assert!(todo("beta", false, 0).1.starts_with("Review the PRR"));
        assert_eq!(
            todo("beta", false, 1),
            (
                1,
                "Waiting on the authors: 1 PRR question is unanswered for beta; review once they are."
                    .to_string()
            )
        );
        assert_eq!(todo("beta", true, 1).0, 1);
        assert_eq!(
            todo("beta", true, 0),
            (2, "Done: approved for beta.".to_string())
        );
    }
}
