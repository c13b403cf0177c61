//! The release views' entries as the pages show them: a [`ReleaseEntry`]
//! → its JSON (outcome, checklist, phases, PRs, code), and the release in
//! progress' [`ReleaseView`] → the board's JSON (counts by status, the
//! deadlines, what decided who is in it, the KEPs listed apart).

use serde::Serialize;
use serde_json::{Value, json};

use super::Ctx;
use crate::analysis::board::{Tally, Tracking};
use crate::analysis::freeze::CheckId;
use crate::analysis::outcome::{CodeNote, Decided, KepRow, ReleaseEntry, ReleaseView, Tone};
use crate::analysis::readiness::Verdict;
use crate::site::view::KepRef;
use crate::team::Freeze;

/// One entry of a release view as the pages show it: its fields in the
/// order the templates' JSON had them.
#[derive(Debug, Clone, Serialize)]
pub(in crate::site) struct Entry<'a> {
    /// What the code says of it (with `--kubernetes`), when it says something.
    pub code: Option<CodeNote>,
    /// Which source decided, where the code did.
    pub decided: Option<&'a Decided>,
    /// The KEP.
    pub kep: &'a KepRef,
    /// Its stage in the release.
    pub stage: &'a str,
    /// Whether someone has to act (at risk, an exception).
    pub open: bool,
    /// Whether it went well (shipped, tracked).
    pub good: bool,
    /// Whether it waits on an exception.
    pub exception: bool,
    /// The failing items' ids, space-separated (a filter key).
    pub missing: String,
    /// The failing items of the checklist the status is about.
    pub failing: Vec<Failing<'a>>,
    /// Advice items that fail.
    pub advice: Vec<&'a str>,
    /// What the verdict was taken on, unless it went well.
    pub basis: Option<String>,
    /// The outcome's id.
    pub outcome: &'static str,
    /// How it reads at a glance.
    pub tone: Tone,
    /// The outcome for people.
    pub label: String,
    /// Why, in short.
    pub reasons: Vec<&'a str>,
    /// Slipped: where it went.
    pub went: Option<&'a str>,
    /// New, graduated or continued.
    pub step: Option<&'static str>,
    /// Each deadline's verdict (the release in progress).
    pub phases: Vec<PhaseVerdict>,
    /// What decided it is on the board.
    pub why: Option<&'a str>,
    /// The board's notes.
    pub notes: &'a [String],
    /// Its open pull requests.
    pub prs: Vec<PrLink<'a>>,
    /// The commit where its stage landed (with history).
    pub landed: Option<LandedLink<'a>>,
}

/// A failing checklist item.
#[derive(Debug, Clone, Serialize)]
pub(in crate::site) struct Failing<'a> {
    /// Its id.
    pub id: CheckId,
    /// What was found.
    pub detail: &'a str,
}

/// One deadline's verdict on an entry.
#[derive(Debug, Clone, Serialize)]
pub(in crate::site) struct PhaseVerdict {
    /// The deadline's name in the schedule.
    name: &'static str,
    /// The verdict.
    verdict: Verdict,
    /// The verdict for people.
    says: &'static str,
}

/// A pull request of an entry, linked.
#[derive(Debug, Clone, Serialize)]
pub(in crate::site) struct PrLink<'a> {
    number: u32,
    title: &'a str,
    url: String,
}

/// The commit where an entry's stage landed, linked.
#[derive(Debug, Clone, Serialize)]
pub(in crate::site) struct LandedLink<'a> {
    date: &'a str,
    url: String,
    short: String,
}

impl Entry<'_> {
    /// Whether it went badly (slipped, removed).
    pub fn bad(&self) -> bool {
        self.tone == Tone::Bad
    }
}

/// The open pull requests the board saw for a KEP, linked.
fn pr_links<'a>(c: &Ctx, t: &'a Tracking) -> Vec<PrLink<'a>> {
    t.prs
        .iter()
        .map(|p| PrLink {
            number: p.number,
            title: &p.title,
            url: format!("{}/pull/{}", c.urls.repo_url, p.number),
        })
        .collect()
}

/// One entry of a release view as the pages show it: what the report's
/// rows show of it too ([`KepRow`]), and what only the pages have (the
/// failing items' ids, each deadline's verdict, the board's notes, links).
pub(in crate::site) fn entry<'a>(c: &Ctx<'a>, e: &'a ReleaseEntry) -> Entry<'a> {
    let k = KepRow::of(e, c.code);
    let failing: Vec<Failing> = k
        .focus
        .map(|r| {
            r.failing()
                .map(|i| Failing {
                    id: i.id,
                    detail: &i.detail,
                })
                .collect()
        })
        .unwrap_or_default();
    let missing: Vec<&str> = failing.iter().map(|f| f.id.as_str()).collect();
    let phases = e
        .tracking
        .iter()
        .flat_map(|t| &t.phases)
        .map(|p| PhaseVerdict {
            name: p.freeze.name(p.release),
            verdict: p.verdict(),
            says: p.verdict().label(),
        })
        .collect();
    let tracking = e.tracking.as_ref();
    Entry {
        // A note that says nothing is left off the pages.
        code: k.code.filter(|n| !n.says.is_empty()),
        decided: k.decided,
        kep: &c.refs[e.id],
        stage: k.stage,
        open: e.outcome.needs_action(),
        good: k.good,
        exception: e
            .outcome
            .status()
            .is_some_and(|s| s.tally() == Tally::Exception),
        missing: missing.join(" "),
        failing,
        advice: k.advice,
        // What a verdict that went well was taken on is left unsaid.
        basis: k.basis.filter(|_| k.tone != Tone::Good),
        outcome: k.outcome,
        tone: k.tone,
        label: k.label,
        reasons: k.reasons,
        went: k.went,
        step: k.step,
        phases,
        why: tracking.and_then(|t| t.why.as_deref()),
        notes: tracking.map(|t| t.notes.as_slice()).unwrap_or_default(),
        prs: tracking.map(|t| pr_links(c, t)).unwrap_or_default(),
        landed: k.landed.map(|l| LandedLink {
            date: &l.date,
            url: format!("{}/commit/{}", c.urls.repo_url, l.commit),
            short: l.commit.chars().take(8).collect(),
        }),
    }
}

/// The board's view of the release in progress, for pages: its counts
/// by status, the deadlines by their names in the schedule, what decided
/// who is in it, and the KEPs listed apart.
pub(in crate::site) fn board_json(c: &Ctx, view: &ReleaseView) -> Value {
    let counts = view.counts();
    let of = |t: Tally| match t {
        Tally::Tracked => counts.tracked,
        Tally::AtRisk => counts.at_risk,
        Tally::Exception => counts.exception,
        Tally::Removed => counts.removed,
        Tally::Deferred => counts.deferred,
    };
    let tallies: Vec<Value> = Tally::ALL
        .into_iter()
        // "0 at risk" says something only while a deadline is ahead.
        .filter(|t| {
            of(*t) > 0 || *t == Tally::Tracked || (*t == Tally::AtRisk && view.next.is_some())
        })
        .map(|t| json!({ "id": t.id(), "label": t.label(), "count": of(t) }))
        .collect();
    let cycle = view.cycle;
    let deadlines: Vec<Value> = Freeze::ALL
        .into_iter()
        .map(|f| {
            json!({
                "name": f.name(view.release),
                "at": cycle.and_then(|c| c.deadline(f)).map(|t| t.strftime("%Y-%m-%d %H:%M UTC").to_string()),
                "past": crate::analysis::board::past(&c.analysis.current, f),
            })
        })
        .collect();
    let apart: Vec<Value> = view
        .apart
        .iter()
        .map(|a| json!({ "kep": &c.refs[a.id], "stage": a.stage.as_str(), "why": a.why.says(view.release) }))
        .collect();
    json!({
        "total": counts.total,
        "tallies": tallies,
        "share_at_risk": format!("{:.0}", counts.share_at_risk()),
        "deadlines": deadlines,
        "next": view.next.map(|f| f.name(view.release)),
        "membership": view.membership.map(|m| m.label()),
        "apart": apart,
    })
}
