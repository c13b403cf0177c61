//! Questions asked in a section's text rather than as headings: the
//! questionnaire's older form, in which each question is a bold list item
//! (`* **How can this feature be enabled / disabled in a live cluster?**`)
//! followed by its answer, under the category's heading.

use super::matching::overlap_with_question;
use super::normalize_heading;
use crate::analysis::template::TemplateSection;
use crate::kep::document::Document;

/// A bold question, the text that answers it, and its 1-based line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct InlineQuestion {
    norm: String,
    pub(super) answer: String,
    pub(super) line: usize,
}

/// The bold questions in the own text of section `index` and of every
/// section below it, in order.
pub(super) fn in_subtree(doc: &Document, index: usize) -> Vec<InlineQuestion> {
    let mut out = in_section(doc, index);
    for i in doc.descendants(index) {
        out.extend(in_section(doc, i));
    }
    out
}

/// The bold questions in `s`'s own text, each answered by the text after it
/// up to the next one.
fn in_section(doc: &Document, index: usize) -> Vec<InlineQuestion> {
    let body = doc.body(index);
    let lines: Vec<&str> = body.text.lines().collect();
    // (question, line index it starts on, line index it ends on, text after it)
    let mut found: Vec<(String, usize, usize, &str)> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        match bold_question(&lines, i) {
            Some((q, end, rest)) => {
                found.push((q, i, end, rest));
                i = end + 1;
            }
            None => i += 1,
        }
    }
    let starts: Vec<usize> = found.iter().map(|f| f.1).skip(1).collect();
    found
        .iter()
        .enumerate()
        .map(|(n, (q, start, end, rest))| {
            let until = starts.get(n).copied().unwrap_or(lines.len());
            // The text on the question's own line is an answer of its own
            // (`**...?** No.`), not the start of the paragraph below it.
            let mut answer = rest.trim().to_string();
            if !answer.is_empty() {
                answer.push('\n');
            }
            for l in &lines[end + 1..until] {
                answer.push('\n');
                answer.push_str(l);
            }
            InlineQuestion {
                norm: normalize_heading(q),
                answer,
                line: body.line + start,
            }
        })
        .collect()
}

/// A bold question starting on line `i` (after an optional list marker),
/// possibly wrapped over up to three lines: its text, the index of the line
/// it ends on, and what follows it on that line. Bold text that does not end
/// with `?` is emphasis, not a question.
fn bold_question<'a>(lines: &[&'a str], i: usize) -> Option<(String, usize, &'a str)> {
    let first = lines[i].trim_start();
    let first = ["* ", "- ", "+ "]
        .iter()
        .find_map(|m| first.strip_prefix(m))
        .unwrap_or(first)
        .trim_start()
        .strip_prefix("**")?;
    let mut text = String::new();
    for (j, line) in lines.iter().enumerate().skip(i).take(3) {
        let part = if j == i { first } else { line.trim() };
        if let Some(close) = part.find("**") {
            text.push_str(&part[..close]);
            let q = text.trim();
            return q
                .ends_with('?')
                .then(|| (q.to_string(), j, &part[close + 2..]));
        }
        if part.is_empty() {
            return None;
        }
        text.push_str(part);
        text.push(' ');
    }
    None
}

/// The unused question in `questions` that asks template question `ts`: the
/// same normalised text, else the one sharing the most words (as reworded
/// headings are matched).
pub(super) fn find(
    ts: &TemplateSection,
    questions: &[InlineQuestion],
    used: &[bool],
) -> Option<usize> {
    let free = || (0..questions.len()).filter(|&k| !used[k]);
    if let Some(k) = free().find(|&k| questions[k].norm == ts.norm) {
        return Some(k);
    }
    let candidates: Vec<(usize, &str)> = free().map(|k| (k, questions[k].norm.as_str())).collect();
    overlap_with_question(ts, &candidates)
}
