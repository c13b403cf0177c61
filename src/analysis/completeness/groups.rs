//! PRR questions a README does not ask one by one: a group answered as a
//! whole, the whole questionnaire answered at once, or the questionnaire
//! handed over to another KEP's. ([`Document`], [`Template`], the sections
//! matched) → the [`SectionStatus`] of those questions, as a PRR reviewer
//! reads them.

use super::{OwnAnswers, Reading, SectionStatus, no_reason_given};
use crate::analysis::template::Template;
use crate::kep::document::Document;

/// PRR questions the README neither asks by heading nor inline, answered by
/// the text of their nearest enclosing section it has: a group answered as
/// a whole (`### Scalability` then "N/A, no code changes"), or the whole
/// questionnaire ("Not applicable: documentation only", "see KEP-625's
/// questionnaire"), as a PRR reviewer reads it. The question counts as asked
/// there, at that heading's line.
pub(super) fn answered_as_a_group(
    doc: &Document,
    template: &Template,
    matched: &[Option<usize>],
    own: &OwnAnswers,
    sections: &mut [SectionStatus],
) {
    let questions = template.prr_questions();
    // Whether the README asks any question below template section `p`
    // itself (by heading or inline): then its text is not one answer to all.
    let asked: Vec<bool> = sections.iter().map(|s| s.present).collect();
    let asks_below = |p: usize| {
        questions.iter().any(|&q| {
            asked[q]
                && std::iter::successors(template.sections[q].parent, |&a| {
                    template.sections[a].parent
                })
                .any(|a| a == p)
        })
    };
    for &ti in &questions {
        if sections[ti].present {
            continue;
        }
        let mut parent = template.sections[ti].parent;
        // Within the questionnaire: never the KEP's title or Design Details.
        let enclosing = loop {
            match parent {
                Some(p) if template.sections[p].in_prr => match matched[p] {
                    Some(di) => break Some((p, di)),
                    None => parent = template.sections[p].parent,
                },
                _ => break None,
            }
        };
        let Some((p, di)) = enclosing else { continue };
        if asks_below(p) {
            continue;
        }
        let reading = Reading {
            question: true,
            guidance: &template.sections[p].guidance,
        };
        if own.get_as(di, Some(reading)) {
            let s = &mut sections[ti];
            s.present = true;
            s.answered = true;
            s.no_reason = no_reason_given(&doc.body(di).text);
            s.line = Some(doc.sections[di].line);
        }
    }
}

/// The questions the README does not ask itself, read from the KEP its
/// questionnaire hands over to (`theirs`, that README's statuses): asked
/// there, at this README's questionnaire heading; answered as they are there.
pub(super) fn adopt(
    doc: &Document,
    template: &Template,
    matched: &[Option<usize>],
    theirs: &[SectionStatus],
    sections: &mut [SectionStatus],
) {
    let Some(at) = questionnaire(template).and_then(|q| matched[q]) else {
        return;
    };
    for ti in template.prr_questions() {
        if !sections[ti].present {
            let s = &mut sections[ti];
            s.present = true;
            s.answered = theirs[ti].answered;
            s.no_reason = theirs[ti].no_reason;
            s.line = Some(doc.sections[at].line);
        }
    }
}

/// The template's questionnaire section.
fn questionnaire(template: &Template) -> Option<usize> {
    template
        .sections
        .iter()
        .position(|s| s.in_prr && s.parent.is_none_or(|p| !template.sections[p].in_prr))
}

/// The KEP a README's questionnaire hands over to: a link in the
/// questionnaire's own text (`keps/sig-storage/625-csi-migration`,
/// `kep.k8s.io/625`) when the questionnaire asks no question of its own.
/// `template_text` is the template's README: a link it carries (the PRR
/// KEP, which the template's introduction names) is guidance, not a handover.
pub fn delegated_kep(doc: &Document, own: Option<u32>, template_text: &str) -> Option<u32> {
    let i = doc.sections.iter().position(|s| {
        let t = s.title.to_lowercase();
        t.contains("production readiness") && t.contains("questionnaire")
    })?;
    if !doc.sections[i].children.is_empty() {
        return None;
    }
    let guidance = kep_links(template_text);
    kep_links(&doc.body(i).text)
        .into_iter()
        .find(|&n| Some(n) != own && !guidance.contains(&n))
}

/// KEP numbers linked from `text`: `keps/<sig>/[<sub>/]NNNN-...` paths and
/// `kep.k8s.io/NNNN`.
fn kep_links(text: &str) -> Vec<u32> {
    let mut out = Vec::new();
    for (at, _) in text.match_indices("keps/") {
        for seg in text[at + 5..].split('/').take(3) {
            let digits: String = seg.chars().take_while(char::is_ascii_digit).collect();
            if !digits.is_empty() && seg[digits.len()..].starts_with('-') {
                out.extend(digits.parse::<u32>().ok());
                break;
            }
        }
    }
    for (at, _) in text.match_indices("kep.k8s.io/") {
        let digits: String = text[at + 11..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        out.extend(digits.parse::<u32>().ok());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kep::document::parse;

    #[test]
    fn a_questionnaire_hands_over_by_link() {
        let doc = parse(
            "# KEP-2923\n## Production Readiness Review Questionnaire\n\nPlease refer to the [CSI Migration PRR](https://github.com/kubernetes/enhancements/tree/master/keps/sig-storage/625-csi-migration/README.md#production-readiness-review-questionnaire).\n",
        );
        assert_eq!(delegated_kep(&doc, Some(2923), ""), Some(625));
        // A link the template's own introduction carries is not a handover.
        let template = "See the PRR KEP at https://git.k8s.io/enhancements/keps/sig-storage/625-x";
        assert_eq!(delegated_kep(&doc, Some(2923), template), None);
        // A questionnaire that asks its own questions hands nothing over.
        let asks = parse(
            "## Production Readiness Review Questionnaire\nSee kep.k8s.io/625\n### Scalability\nNo.\n",
        );
        assert_eq!(delegated_kep(&asks, Some(1), ""), None);
        assert_eq!(
            kep_links("kep.k8s.io/4222 and keps/sig-node/sub/123-x"),
            [123, 4222]
        );
    }
}
