//! One KEP of a release as the report's rows and the site's listings both
//! show it ([`KepRow`]): what became of it in ids and words, what the code
//! says of it, and what fails in the checklist its status is about. Both
//! renderers build their own row from it, so neither computes these again.

use super::{CodeNote, Decided, Landed, ReleaseEntry, Tone, note};
use crate::analysis::Readiness;
use crate::analysis::code::Code;

/// What the report and the site both say of one entry of a release view,
/// computed once from it.
#[derive(Debug, Clone)]
pub struct KepRow<'a> {
    /// Its stage in the release, as written ("" for no stage change).
    pub stage: &'a str,
    /// The outcome's id.
    pub outcome: &'static str,
    /// How it reads at a glance.
    pub tone: Tone,
    /// The outcome for people, in the release.
    pub label: String,
    /// Whether it went well (shipped, tracked).
    pub good: bool,
    /// Slipped: where it went.
    pub went: Option<&'a str>,
    /// The commit where its stage landed (with history).
    pub landed: Option<&'a Landed>,
    /// Shipped: new, graduated or continued.
    pub step: Option<&'static str>,
    /// What the code says of it (with `--kubernetes`), said or not: the
    /// report shows an empty note, the site leaves it out.
    pub code: Option<CodeNote>,
    /// Out, with `--kubernetes`: which source decided.
    pub decided: Option<&'a Decided>,
    /// In progress, the checklist the status is about (the PRR Freeze's
    /// before it, the Code Freeze's at the end); none otherwise.
    pub focus: Option<&'a Readiness>,
    /// What fails in it (required items), for people.
    pub reasons: Vec<&'a str>,
    /// The Enhancements Freeze checklist's failing advice items.
    pub advice: Vec<&'a str>,
    /// What the verdict was taken on (at the deadline, or on these files).
    pub basis: Option<String>,
}

impl<'a> KepRow<'a> {
    /// The row of `e`, with the code's note when `code` is at hand.
    pub fn of(e: &'a ReleaseEntry, code: Option<&Code>) -> KepRow<'a> {
        // The board's tracking names the checklist that decides; without
        // it (never, in progress) the Enhancements Freeze's.
        let focus = e.tracking.as_ref().map(|t| t.focus());
        let focus = focus.or(e.readiness.as_ref());
        KepRow {
            stage: e.stage.as_str(),
            outcome: e.outcome.id(),
            tone: e.outcome.tone(),
            label: e.outcome.label(e.release),
            good: e.outcome.is_good(),
            went: e.outcome.went(),
            landed: e.outcome.landed(),
            step: e.step.map(|s| s.label()),
            code: code
                .zip(e.number)
                .and_then(|(code, n)| note(code, n, e.release, e.into())),
            decided: e.decided.as_ref(),
            focus,
            reasons: focus.map(|r| r.reasons()).unwrap_or_default(),
            advice: e.readiness.as_ref().map(|r| r.advice()).unwrap_or_default(),
            basis: focus.and_then(|r| r.basis()),
        }
    }
}
