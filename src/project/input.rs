//! What a load reads: the command line's input normalised ([`Input`]) and
//! what a command needs beyond the files ([`Needs`]).

use std::path::{Path, PathBuf};

use anyhow::Result;

#[cfg(doc)]
use super::Project;
#[cfg(doc)]
use crate::analysis::findings;
use crate::kep::domain::Release;
use crate::model::{self, Model};
use crate::repo::EMBEDDED_ROOT;
use crate::repo::history::History;

/// What to read: the repository (a directory, a git revision of one, or the
/// sample compiled into kepsite), sigs.yaml, and the release in progress
/// when the user names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Input {
    /// The repository root ([`EMBEDDED_ROOT`] for the compiled-in sample).
    pub root: PathBuf,
    /// A commit, branch or tag to read instead of the working tree.
    pub rev: Option<String>,
    /// kubernetes/community's sigs.yaml.
    pub sigs: Option<PathBuf>,
    /// `--current`: the release in progress, overriding the calendar.
    pub current: Option<Release>,
    /// `--kubernetes` (and `--kubernetes-rev`): a kubernetes/kubernetes
    /// checkout whose feature gates say what the code shipped.
    pub kubernetes: Option<Kubernetes>,
    /// The release team's files: `--issues`, `--prs`, `--board`, `--exceptions`.
    pub team: crate::team::Files,
}

/// A kubernetes/kubernetes checkout to read feature gates from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kubernetes {
    /// Its root (a sparse checkout with only the feature files will do).
    pub path: PathBuf,
    /// A revision to read instead of HEAD.
    pub rev: Option<String>,
}

impl Input {
    /// The repository at `root` as it stands, and nothing else: no
    /// revision, sigs.yaml, `--current`, `--kubernetes` or team files (what
    /// `--repo ROOT` alone reads). The methods below add to it, as the
    /// flags do: `Input::at(root).rev("HEAD")`.
    pub fn at(root: impl Into<PathBuf>) -> Input {
        Input {
            root: root.into(),
            rev: None,
            sigs: None,
            current: None,
            kubernetes: None,
            team: Default::default(),
        }
    }

    /// The input at revision `rev` (`--rev`) instead of the working tree.
    pub fn rev(self, rev: impl Into<String>) -> Input {
        Input {
            rev: Some(rev.into()),
            ..self
        }
    }

    /// The input with kubernetes/community's sigs.yaml at `path` (`--sigs`).
    pub fn sigs(self, path: impl Into<PathBuf>) -> Input {
        Input {
            sigs: Some(path.into()),
            ..self
        }
    }

    /// The input with the kubernetes/kubernetes checkout at `path`, at its
    /// HEAD (`--kubernetes`).
    pub fn kubernetes(self, path: impl Into<PathBuf>) -> Input {
        Input {
            kubernetes: Some(Kubernetes {
                path: path.into(),
                rev: None,
            }),
            ..self
        }
    }

    /// Whether the input is the sample compiled into kepsite.
    pub fn is_embedded(&self) -> bool {
        self.root == Path::new(EMBEDDED_ROOT)
    }

    /// Load the model: the first step of [`Project::load`], and `serve`'s
    /// reading of the files again before [`Project::reload`].
    pub(crate) fn model(&self) -> Result<Model> {
        self.model_knowing(None, None)
    }

    /// [`Input::model`], knowing `known` (its parses of the same files are
    /// taken) and, at a revision, reading only the READMEs of the KEPs
    /// `reads_readme` picks ([`model::load_for`]).
    pub(super) fn model_knowing(
        &self,
        known: Option<&Model>,
        reads_readme: Option<&model::ReadsReadme>,
    ) -> Result<Model> {
        let mut m = model::load_for(
            &self.root,
            self.rev.as_deref(),
            self.sigs.as_deref(),
            known,
            reads_readme,
        )?;
        m.current_release = self.current;
        Ok(m)
    }

    /// The git history of the input, when its root is a git repository
    /// (`None` for a plain directory or the embedded sample). A walk that
    /// fails is reported and treated as no history.
    /// `cache_dir` `None` walks without reading or writing any cache
    /// (`build --no-cache`).
    pub(super) fn history(&self, cache_dir: Option<&Path>) -> Option<History> {
        crate::repo::history::walk_if_git(&self.root, self.rev.as_deref(), cache_dir)
    }
}

/// Whether and how [`Project::load`] walks the git history.
/// Every subcommand's history flags become one of these in one place
/// (`cli::HistoryArgs::walk`, or `export`'s `--history`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Walk {
    /// No history (`--no-history`).
    Skip,
    /// Walk it, reading and refreshing the cache in this directory.
    Cached(PathBuf),
    /// Walk it from nothing, reading and writing no cache (`--no-cache`).
    Uncached,
}

/// What a command reads beyond the repository's files: [`Project::load`]'s
/// one argument besides the [`Input`].
#[derive(Clone)]
pub struct Needs<'a> {
    /// Whether and how the git history is walked.
    pub walk: Walk,
    /// The freeze checklists at the deadlines of the release in progress
    /// (a second and third reading of the repository, at those commits).
    pub deadlines: bool,
    /// Which of `check`'s findings are sought.
    pub findings: Findings,
    /// Whose READMEs the analysis reads.
    pub readmes: Readmes<'a>,
}

/// Which KEPs' READMEs a load's analysis reads (each is parsed when first
/// read, [`crate::kep::Readme`]).
#[derive(Clone, Copy)]
pub enum Readmes<'a> {
    /// Every KEP's.
    All,
    /// Those of the KEPs `pick` marks (model order), given the model and
    /// the history; it may refuse the load. The other KEPs are analysed
    /// without their README. One release's report reads about 100 of the
    /// corpus's 680 (parsing them all was 115 ms of its 417 ms of CPU).
    Of(&'a Pick<'a>),
}

/// A reader's choice of KEPs ([`Readmes::Of`]).
pub type Pick<'a> = dyn Fn(&Model, Option<&History>) -> Result<Vec<bool>> + Sync + 'a;

/// Which of `check`'s findings a load seeks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Findings {
    /// Every finding, beside the full analysis.
    All,
    /// The findings alone (`check` of the whole repository): only the
    /// READMEs the rules read the questionnaire of
    /// ([`findings::reads_questionnaire`]) are assessed; the other KEPs'
    /// analyses hold their table of contents' mismatches alone.
    Only,
    /// None: the rules are not run (a report reads no finding: sparing
    /// them is about 11 ms of its CPU on the corpus).
    Skip,
}

impl Needs<'_> {
    /// Everything: the history as `walk` says, the deadlines' checklists
    /// (the site, `query`, `export`, `serve`).
    pub fn everything(walk: Walk) -> Needs<'static> {
        Needs {
            walk,
            deadlines: true,
            findings: Findings::All,
            readmes: Readmes::All,
        }
    }

    /// The files as they are: no history and no freeze verdicts at a
    /// deadline (`check --format md`, the sides of a changed-only check,
    /// `report --since`'s baseline; the deadlines' readings, about 0.28 s
    /// on the corpus, are spared).
    pub fn files() -> Needs<'static> {
        Needs {
            walk: Walk::Skip,
            deadlines: false,
            findings: Findings::All,
            readmes: Readmes::All,
        }
    }

    /// The files, for the findings alone (see [`Findings::Only`]).
    pub fn findings() -> Needs<'static> {
        Needs {
            findings: Findings::Only,
            ..Needs::files()
        }
    }
}
