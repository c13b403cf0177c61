//! The rules over a KEP's README, from its analysis: a stale table of
//! contents, and PRR questions an implementable KEP has not answered.

use crate::analysis::KepAnalysis;
use crate::finding::Finding;
use crate::kep::Kep;
use crate::kep::document::TocMismatch;
use crate::kep::metadata::Status;

/// Whether the rules read `kep`'s PRR questionnaire (`prr-unanswered`):
/// for implementable KEPs. Every other README rule reads the table of
/// contents alone, so `check` assesses only these READMEs.
pub fn reads_questionnaire(kep: &Kep) -> bool {
    kep.meta.status == Status::Implementable
}

/// Findings from the README analysis: a stale table of contents, and PRR
/// questions an implementable KEP has not answered for its stage.
pub(super) fn document_findings(kep: &Kep, a: &KepAnalysis) -> Vec<Finding> {
    let Some(readme) = kep.readme_path.as_deref() else {
        return Vec::new();
    };
    let n = kep.number();
    let mut out = Vec::new();
    let size = kep.readme_text().len();
    if size > crate::kep::document::MAX_PAGE_BYTES {
        out.push(
            Finding::warning(
                "readme-too-large",
                readme,
                format!(
                    "the README is {size} bytes: its page on the portal shows its first {} MiB and links to the whole file",
                    crate::kep::document::MAX_PAGE_BYTES >> 20
                ),
            )
            .at(Some(1 + kep.readme_offset))
            .kep(n)
            .hint("split the README: move detail into files beside it and link them"),
        );
    }
    for m in &a.toc_mismatches {
        let (line, message) = match m {
            TocMismatch::UnknownAnchor { text, anchor, line } => (
                *line,
                format!(
                    "table of contents entry `{text}` links to #{anchor}, which no heading has"
                ),
            ),
            TocMismatch::MissingEntry { title, line, .. } => (
                *line,
                format!("heading `{title}` is missing from the table of contents"),
            ),
        };
        out.push(
            Finding::warning("toc-mismatch", readme, message)
                .at(Some(line + kep.readme_offset))
                .kep(n)
                .hint("regenerate the table of contents (hack/update-toc.sh in kubernetes/enhancements)"),
        );
    }
    if reads_questionnaire(kep) {
        let q = &a.assessment.prr;
        let c = match a.assessment.target {
            Some(crate::analysis::completeness::PrrTarget::Alpha) => Some(&q.alpha),
            Some(crate::analysis::completeness::PrrTarget::Beta) => Some(&q.beta),
            Some(crate::analysis::completeness::PrrTarget::Stable) => Some(&q.stable),
            None => None,
        };
        let stage = if kep.meta.stage.is_unset() {
            "alpha"
        } else {
            kep.meta.stage.as_str()
        };
        for u in c.map(|c| c.unanswered.as_slice()).unwrap_or_default() {
            out.push(
                Finding::warning(
                    "prr-unanswered",
                    readme,
                    format!(
                        "PRR question not answered (required at {stage}): {}",
                        u.title
                    ),
                )
                .at(u.line)
                .kep(n)
                .hint("answer it in the README's Production Readiness Review Questionnaire"),
            );
        }
    }
    out
}
