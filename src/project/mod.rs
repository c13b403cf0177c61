//! The one value every renderer reads: a [`Project`] is the repository
//! ([`Model`]), its analysis (README and PRR completeness, release tracking,
//! the release in progress), every finding of `check`, and (when the input is
//! a git repository) each KEP's history. It is built once from an [`Input`],
//! the command line's input normalised in one place, by [`Project::load`];
//! the site, the report, `check`, `export`/`query` and `serve` all render
//! from it.

use std::sync::Arc;

use anyhow::Result;

mod deadlines;
mod heads;
mod input;
mod team;

pub use input::{Findings, Input, Kubernetes, Needs, Pick, Readmes, Walk};

use crate::analysis::board::{self, TeamFacts};
use crate::analysis::code::Code;
use crate::analysis::outcome::Sources;
use crate::analysis::{Analysis, findings};
use crate::analysis::{KepAnalysis, analyze_kep};
use crate::finding::Finding;
use crate::kep::Kep;
use crate::model::{KepId, Model};
use crate::repo::history::History;
use crate::team::Freeze;
use crate::timing::timed;
use deadlines::deadlines_of;
use team::team_facts;

/// A KEP's README for the renderer: its text and its one parse.
pub type Readme = Arc<crate::kep::Readme>;

/// The model, its analysis and findings, and (when the input is a git
/// repository) each KEP's history.
#[derive(Debug, Clone)]
pub struct Project {
    /// The repository.
    pub model: Model,
    /// README analysis, PRR completeness and release readiness.
    pub analysis: Analysis,
    /// Every finding of `check` (metadata, PRR and README rules).
    pub findings: Vec<Finding>,
    /// Stage history from git, when available.
    pub history: Option<History>,
    /// The clock history is judged against (unix seconds): the newest commit
    /// in the history, so that builds of one revision are identical.
    pub now: i64,
    /// What Kubernetes' code shipped (`--kubernetes`).
    pub code: Option<Code>,
    /// The release team's records, with each open PR judged at its head.
    pub team: Option<TeamFacts>,
}

impl Project {
    /// Analyse `model` and run every check.
    fn new(model: Model) -> Self {
        let (analysis, findings) = analysed(&model, true, None);
        Project::of(model, analysis, findings)
    }

    /// The project of a model, its analysis and findings: no history, no
    /// code read yet.
    fn of(model: Model, analysis: Analysis, findings: Vec<Finding>) -> Self {
        Project {
            model,
            analysis,
            findings,
            history: None,
            now: 0,
            code: None,
            team: None,
        }
    }

    /// What the release views read of the project.
    pub fn sources(&self) -> Sources<'_> {
        Sources {
            history: self.history.as_ref(),
            code: self.code.as_ref(),
            team: self.team.as_ref(),
            ..Sources::of(&self.model, &self.analysis)
        }
    }

    /// Each KEP's tracking in the release in progress (model order; `None`
    /// for a KEP not on its board): the release view's, read by the pages
    /// that show one KEP.
    pub fn trackings(&self) -> Vec<Option<board::Tracking>> {
        let view =
            crate::analysis::outcome::release_view(&self.sources(), self.analysis.current.release);
        let mut out = vec![None; self.model.keps.len()];
        for e in view.entries {
            out[e.id] = e.tracking;
        }
        out
    }

    /// Take every KEP's README out of the model (in model order), leaving
    /// empty ones: a build hands each one to its renderer and frees it once
    /// rendered, so the READMEs (207 MB on the 10x corpus) are not all held
    /// while the listings are built and written.
    pub fn take_readmes(&mut self) -> Vec<Readme> {
        self.model
            .keps
            .iter_mut()
            .map(|k| std::mem::take(&mut k.readme))
            .collect()
    }

    /// Every KEP's README, shared (model order).
    pub fn readmes(&self) -> Vec<Readme> {
        self.model.keps.iter().map(|k| k.readme.clone()).collect()
    }

    /// Add the git history (stage timelines, stale KEPs, the Atom feed).
    fn with_history(mut self, history: History) -> Self {
        self.now = history.newest_time();
        self.history = Some(history);
        self
    }
}

impl Project {
    /// Load `input` and analyse it, reading what `needs` asks for: unless
    /// its walk is [`Walk::Skip`], the git history first (the walk reads
    /// git objects on every thread), then the files. Walked beside the
    /// load, the walk's mapped packfile was held with the whole model, and
    /// the load's READMEs beside it: 14 MiB more at the corpus build's peak
    /// for about the same time (farm-bench, 15 pairs: CPU 1.01x, wall 1.01x
    /// walked first). The READMEs are parsed when the analysis first asks.
    pub fn load(input: &Input, needs: &Needs) -> Result<Project> {
        if needs.findings == Findings::Only {
            return Project::for_findings(input);
        }
        let history = walk(input, &needs.walk);
        let model = timed("load", || input.model())?;
        let readmes = match needs.readmes {
            Readmes::All => None,
            Readmes::Of(pick) => Some(pick(&model, history.as_ref())?),
        };
        Project::judged(model, history, input, needs, readmes.as_deref())
    }

    /// The project of `model` and its `history`, with the freeze verdicts
    /// at the deadline judged beside the analysis: reading the deadline's
    /// revision is mostly one thread (on the corpus, `report`'s wall time
    /// fell by about 20 ms). The analysis reads the READMEs `readmes`
    /// marks (all without it).
    fn judged(
        model: Model,
        history: Option<History>,
        input: &Input,
        needs: &Needs,
        readmes: Option<&[bool]>,
    ) -> Result<Project> {
        let current = crate::analysis::current_of(&model, model.current_release);
        let check = needs.findings != Findings::Skip;
        let analysed = || analysed(&model, check, readmes);
        let ((analysis, findings), deadlines) = match needs.deadlines {
            true => rayon::join(analysed, || {
                timed("deadline", || deadlines_of(input, &current, &[], &model))
            }),
            false => (analysed(), Vec::new()),
        };
        let mut project = Project::of(model, analysis, findings);
        if let Some(h) = history {
            project = project.with_history(h);
        }
        let mut project = project.with_code(input)?;
        for d in deadlines {
            project
                .analysis
                .set_deadline(&project.model, project.history.as_ref(), d);
        }
        project.with_team(input)
    }

    /// Read Kubernetes' feature gates when the input names a checkout
    /// (`--kubernetes`), for the releases out and the release in progress
    /// at the snapshot's date (the history's newest commit, else the tip).
    fn with_code(mut self, input: &Input) -> Result<Self> {
        self.read_code(input)?;
        Ok(self)
    }

    /// [`Project::with_code`] in place.
    fn read_code(&mut self, input: &Input) -> Result<()> {
        let Some(k) = &input.kubernetes else {
            return Ok(());
        };
        let until = self.history.as_ref().map(|h| h.newest_time());
        let current = self.analysis.current.release;
        let code = timed("kubernetes", || {
            Code::load(&k.path, k.rev.as_deref(), &self.model, current, until)
        })?;
        add_code_findings(&mut self.findings, &code, &self.model);
        self.code = Some(code);
        Ok(())
    }

    /// Run `f` on the project with `keps` in place (each an index into the
    /// model and the same KEP read again: `serve`'s preview of a README
    /// edit), as [`Project::load`] would have them, then put the project
    /// back as it was. Only those KEPs are analysed again (with their
    /// freeze verdicts at the deadline); the findings are taken again; the
    /// history stays (edits are not commits). Other KEPs whose analysis
    /// reads a replaced README (a questionnaire handed over to it) keep
    /// theirs: the full update ([`Project::reload`]) redoes them.
    pub fn with_keps<T>(&mut self, keps: Vec<(KepId, Kep)>, f: impl FnOnce(&Project) -> T) -> T {
        let old_keps: Vec<(KepId, Kep)> = keps
            .into_iter()
            .map(|(i, kep)| (i, self.model.replace_kep(i, kep, None)))
            .collect();
        let a = &self.analysis;
        let fresh: Vec<KepAnalysis> = old_keps
            .iter()
            .map(|&(i, _)| {
                let kep = &self.model.keps[i];
                let mut fresh = analyze_kep(&self.model, &a.template, kep, &a.current);
                if let Some(d) = a.deadline(Freeze::Enhancements) {
                    fresh.set_deadline(kep, self.history.as_ref(), d, &a.current);
                }
                fresh
            })
            .collect();
        let old_analyses: Vec<KepAnalysis> = old_keps
            .iter()
            .zip(fresh)
            .map(|(&(i, _), a)| std::mem::replace(&mut self.analysis.keps[i], a))
            .collect();
        let findings = self.check();
        let old_findings = std::mem::replace(&mut self.findings, findings);
        let out = f(self);
        self.findings = old_findings;
        for ((i, kep), a) in old_keps.into_iter().zip(old_analyses).rev() {
            self.model.replace_kep(i, kep, None);
            self.analysis.keps[i] = a;
        }
        out
    }

    /// Every finding of the model and analysis as they stand: the rules',
    /// and the code's when it was read.
    fn check(&self) -> Vec<Finding> {
        let mut out = findings::check_with(&self.model, &self.analysis);
        if let Some(code) = &self.code {
            add_code_findings(&mut out, code, &self.model);
        }
        out
    }

    /// The project after an edit: `model` read again from the files, with
    /// `previous`'s history (edits are not commits), the gates read again
    /// (a checkout that no longer reads keeps the last reading) and the
    /// deadline judgement reused when its commit is the same. `serve`'s
    /// reload; it walks nothing and builds no model of its own.
    pub fn reload(model: Model, previous: &mut Project, input: &Input) -> Project {
        let earlier = std::mem::take(&mut previous.analysis.deadlines);
        let code = previous.code.take();
        let team = previous.team.take();
        let mut data = Project::new(model);
        if let Some(h) = previous.history.take() {
            data = data.with_history(h);
        }
        if let Err(e) = data.read_code(input) {
            tracing::warn!("--kubernetes: {}", crate::errors::one_line(&e));
            data.code = code;
        }
        let mut data = data.with_deadline(input, &earlier);
        // The team's files are read again; one that no longer reads keeps
        // the last reading.
        match team_facts(input, &data.model, &data.analysis) {
            Ok(t) => data.team = t,
            Err(e) => {
                tracing::warn!("{}", crate::errors::one_line(&e));
                data.team = team;
            }
        }
        data
    }

    /// [`Project::load`] with [`Needs::findings`].
    fn for_findings(input: &Input) -> Result<Project> {
        let model = timed("load", || input.model())?;
        let analysis = timed("analyze", || {
            crate::analysis::analyze_for_rules(
                &model,
                model.current_release,
                findings::reads_questionnaire,
            )
        });
        let found = timed("check", || findings::check_with(&model, &analysis));
        Project::of(model, analysis, found).with_code(input)
    }
}

/// The analysis of `model`, of the READMEs `readmes` marks (all without
/// it), and, with `check`, every finding of the rules.
fn analysed(model: &Model, check: bool, readmes: Option<&[bool]>) -> (Analysis, Vec<Finding>) {
    let analysis = timed("analyze", || {
        crate::analysis::analyze(model, model.current_release, readmes)
    });
    let found = match check {
        true => timed("check", || findings::check_with(model, &analysis)),
        false => Vec::new(),
    };
    (analysis, found)
}

/// The history `walk` asks for.
fn walk(input: &Input, walk: &Walk) -> Option<History> {
    match walk {
        Walk::Skip => None,
        Walk::Cached(dir) => timed("history", || input.history(Some(dir))),
        Walk::Uncached => timed("history", || input.history(None)),
    }
}

/// Add what the code says of `model`'s KEPs to `findings`, kept in order.
fn add_code_findings(findings: &mut Vec<Finding>, code: &Code, model: &Model) {
    findings.extend(crate::analysis::code::findings(code, &model.keps));
    crate::finding::sort(findings);
}
