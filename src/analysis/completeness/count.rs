//! Counting: the line each template section is reported at, and the
//! completeness of a set of sections (the template's, each PRR stage's).

use super::{Completeness, PrrQuestionnaire, PrrTarget, SectionStatus, Unanswered};
use crate::analysis::template::Template;
use crate::kep::document::Document;

/// The line each section is reported at: its own heading's, else that of
/// the nearest heading enclosing it, else the README's first heading's.
pub(super) fn nearest_lines(
    doc: &Document,
    template: &Template,
    sections: &[SectionStatus],
) -> Vec<usize> {
    let first_line = doc.sections.first().map_or(1, |s| s.line);
    let mut near: Vec<usize> = Vec::with_capacity(sections.len());
    for (ts, s) in template.sections.iter().zip(sections) {
        let parent = ts.parent.map_or(first_line, |p| near[p]);
        near.push(s.line.unwrap_or(parent));
    }
    near
}

/// The PRR questionnaire's completeness for each stage.
pub(super) fn prr_questionnaire(
    template: &Template,
    sections: &[SectionStatus],
    near: &[usize],
) -> PrrQuestionnaire {
    let mut is_question = vec![false; sections.len()];
    for i in template.prr_questions() {
        is_question[i] = true;
    }
    let prr_for = |t: PrrTarget| {
        completeness(
            (0..sections.len())
                .filter(|&i| {
                    let s = &sections[i];
                    is_question[i] && s.required && s.prr_stage.is_some_and(|st| t.requires(st))
                })
                .map(|i| (&sections[i], near[i])),
        )
    };
    PrrQuestionnaire {
        alpha: prr_for(PrrTarget::Alpha),
        beta: prr_for(PrrTarget::Beta),
        stable: prr_for(PrrTarget::Stable),
    }
}

/// Counts `(section, line to report it at)` pairs.
pub(super) fn completeness<'a>(
    sections: impl Iterator<Item = (&'a SectionStatus, usize)>,
) -> Completeness {
    let mut required: usize = 0;
    let mut answered: usize = 0;
    let mut unanswered = Vec::new();
    let mut no_reason = Vec::new();
    for (s, line) in sections {
        required += 1;
        if s.answered {
            answered += 1;
            if s.no_reason {
                no_reason.push(Unanswered {
                    title: s.title.clone(),
                    line: Some(line),
                });
            }
        } else {
            unanswered.push(Unanswered {
                title: s.title.clone(),
                line: Some(line),
            });
        }
    }
    let percent = (answered * 100)
        .checked_div(required)
        .map_or(100, |p| p.min(100) as u8);
    Completeness {
        required,
        answered,
        percent,
        unanswered,
        no_reason,
    }
}
