//! Command-line interface: clap derive, one args struct per subcommand, and
//! [`run`] (in `cli/run.rs`), which wires each subcommand to the library and
//! returns the exit code.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use anyhow::Result;
use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::project::{Input, Walk};
use crate::query;
use crate::repo::EMBEDDED_ROOT;

/// kepsite: a fast portal, validator and query tool for Kubernetes Enhancement Proposals.
#[derive(Debug, Parser)]
#[command(name = "kepsite", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Validate every KEP: the enhancements CI rules, the rules its code defines, and kepsite's own.
    Check(CheckArgs),
    /// List KEPs matching filters (kepctl's filter names, plus more).
    Query(Box<QueryArgs>),
    /// Write every KEP as JSON (a superset of kepctl's fields).
    Export(ExportArgs),
    /// Build the static KEP portal.
    Build(BuildArgs),
    /// Release-team status report: freeze readiness of every KEP in a release, and what changed.
    Report(Box<ReportArgs>),
    /// Preview the portal locally, rebuilding and reloading open pages on every save.
    Serve(ServeArgs),
}

/// Arguments of `serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    #[command(flatten)]
    /// Input, as every subcommand reads it; with --rev the revision is served
    /// and nothing is watched (a commit does not change).
    pub input: InputArgs,
    /// Port to listen on (0 picks a free one).
    #[arg(long, default_value_t = 1313)]
    pub port: u16,
    /// Address to listen on; anything but loopback exposes the preview to the network.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1")]
    pub bind: std::net::IpAddr,
    /// Open the site in a browser once it is ready.
    #[arg(long)]
    pub open: bool,
    /// A theme directory overriding themes/default file by file (watched too).
    #[arg(long, value_name = "DIR")]
    pub theme: Option<PathBuf>,
    #[command(flatten)]
    /// Where links into the repository go.
    pub links: RepoLinks,
    #[command(flatten)]
    /// The git history and the cache directory.
    pub history: HistoryArgs,
}

/// Arguments of `report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    #[command(flatten)]
    /// Input.
    pub input: InputArgs,
    /// The release, vX.Y: KEPs whose latest-milestone or a stage milestone is in it.
    #[arg(long, value_name = "vX.Y")]
    pub release: String,
    /// Also report what changed since this earlier revision (an ancestor of --rev, or of HEAD), or since a date (YYYY-MM-DD, UTC: the first-parent commit that day began with).
    #[arg(long, value_name = "REV|DATE", requires = "repo")]
    pub since: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value = "md")]
    pub format: crate::report::render::ReportFormat,
    /// Write here (atomically) instead of standard output.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Date of the next freeze, for the release's red/yellow/green line.
    #[arg(long, value_name = "YYYY-MM-DD")]
    pub freeze: Option<String>,
    /// Count days to the freeze from this date instead of today (UTC).
    #[arg(long, value_name = "YYYY-MM-DD", requires = "freeze")]
    pub today: Option<String>,
    /// Link KEPs to their pages on a kepsite portal at this URL (default: the repository).
    #[arg(long, value_name = "URL")]
    pub site_url: Option<String>,
    #[command(flatten)]
    /// Where links into the repository go.
    pub links: RepoLinks,
    #[command(flatten)]
    /// The git history and the cache directory.
    pub history: HistoryArgs,
    /// A theme directory overriding themes/default (HTML format).
    #[arg(long, value_name = "DIR")]
    pub theme: Option<PathBuf>,
    /// The moment the comments are for (--format comments, comments-json; default: the snapshot's own: the next deadline's reminder, the freeze's message for a week after the Enhancements Freeze, Code Freeze's once it has passed).
    #[arg(long, value_enum)]
    pub phase: Option<crate::report::comments::Phase>,
    /// The comments' wording: a Markdown file of headed sections with fenced blocks and {placeholders} (default: kepsite's own).
    #[arg(long, value_name = "FILE")]
    pub templates: Option<PathBuf>,
}

/// Arguments of `build`.
#[derive(Debug, Args)]
pub struct BuildArgs {
    #[command(flatten)]
    /// Input.
    pub input: InputArgs,
    /// Output directory (replaced only when the build is complete, and only if kepsite made it).
    #[arg(long, value_name = "DIR", default_value = "public")]
    pub out: PathBuf,
    /// URL prefix of every link.
    #[arg(long, value_name = "URL", default_value = "/")]
    pub base_url: String,
    /// A theme directory overriding themes/default file by file.
    #[arg(long, value_name = "DIR")]
    pub theme: Option<PathBuf>,
    /// Stop the build, with a message, once it has written this many MB
    /// (default: 512 MB plus 64 times the KEP text read).
    #[arg(long, value_name = "MB")]
    pub max_output: Option<u64>,
    #[command(flatten)]
    /// Where links into the repository go.
    pub links: RepoLinks,
    #[command(flatten)]
    /// The git history and the cache directory.
    pub history: HistoryArgs,
}

/// Where links to KEP files, issues and commits point (`build`, `serve`, `report`).
#[derive(Debug, Clone, Args)]
pub struct RepoLinks {
    /// Repository URL for "view source" and "edit" links, issues and commits.
    #[arg(
        long,
        value_name = "URL",
        default_value = "https://github.com/kubernetes/enhancements"
    )]
    pub repo_url: String,
    /// Branch for links into the repository.
    #[arg(long, default_value = "master")]
    pub branch: String,
}

/// The git history, and where its walk is cached (`build`, `serve`,
/// `report`, `query --release`).
#[derive(Debug, Clone, Args)]
pub struct HistoryArgs {
    /// Leave out the git history (stage timelines and last changes, stale
    /// KEPs, the Atom feed).
    #[arg(long)]
    pub no_history: bool,
    /// Where the history walk is cached between runs (the only cache).
    /// Default: `kepsite` in the user cache directory
    /// (`$XDG_CACHE_HOME`, else `~/.cache`); created 0700, refused if others
    /// can write it.
    #[arg(long, value_name = "DIR")]
    pub cache_dir: Option<PathBuf>,
    /// Use no cache: nothing is read from or written to any cache (the
    /// history is walked from nothing, and no cache directory is made).
    #[arg(long)]
    pub no_cache: bool,
}

impl HistoryArgs {
    /// The cache directory, created and checked.
    pub fn dir(&self) -> Result<PathBuf> {
        crate::cache_file::dir(self.cache_dir.as_deref())
    }

    /// How [`crate::project::Project::load`] walks the history: not at all
    /// with `--no-history`, from nothing with `--no-cache` (no cache
    /// directory is made), else cached in [`HistoryArgs::dir`]. The same
    /// for every subcommand that reads the history.
    pub fn walk(&self) -> Result<Walk> {
        match (self.no_history, self.no_cache) {
            (true, _) => Ok(Walk::Skip),
            (false, true) => Ok(Walk::Uncached),
            (false, false) => self.dir().map(Walk::Cached),
        }
    }
}

/// Where to read the enhancements repository from.
#[derive(Debug, Clone, Args)]
pub struct InputArgs {
    /// An enhancements checkout (default: ./content when present, else the sample compiled into kepsite).
    #[arg(long, value_name = "DIR")]
    pub repo: Option<PathBuf>,
    /// Read this commit, branch or tag from git instead of the working tree.
    #[arg(long, value_name = "REV", requires = "repo")]
    pub rev: Option<String>,
    /// kubernetes/community's sigs.yaml, to validate SIG names and show leadership.
    #[arg(long, value_name = "FILE")]
    pub sigs: Option<PathBuf>,
    /// The release in progress (default: the first release in kepsite's
    /// calendar not yet out at the snapshot's commit date).
    #[arg(long, value_name = "vX.Y", value_parser = parse_release)]
    pub current: Option<crate::kep::domain::Release>,
    /// A kubernetes/kubernetes checkout (a sparse one with only the
    /// feature-gate files will do): what the code shipped beside what the
    /// KEPs say, and whether a tracked KEP's code has landed.
    #[arg(long, value_name = "DIR")]
    pub kubernetes: Option<PathBuf>,
    /// Read this revision of the --kubernetes checkout instead of HEAD.
    #[arg(long, value_name = "REV", requires = "kubernetes")]
    pub kubernetes_rev: Option<String>,
    /// Enhancement issues (`gh issue list -R kubernetes/enhancements --state
    /// all --limit 5000 --json number,title,labels,milestone,state,url,assignees,comments`):
    /// the opted-in issue decides who is in the release in progress.
    #[arg(long, value_name = "FILE")]
    pub issues: Option<PathBuf>,
    /// Open pull requests (`gh pr list -R kubernetes/enhancements --state open
    /// --limit 1000 --json number,title,url,headRefOid,files,author`), each
    /// judged at its head (fetch the heads into --repo first).
    #[arg(long, value_name = "FILE")]
    pub prs: Option<PathBuf>,
    /// The release's tracking board (`gh project item-list N --owner
    /// kubernetes --format json --limit 1000`): items whose Status, Stage or
    /// SIG differ are listed.
    #[arg(long, value_name = "FILE")]
    pub board: Option<PathBuf>,
    /// kubernetes/sig-release's `releases/release-1.NN/exceptions.yaml`:
    /// exception requests and their decisions.
    #[arg(long, value_name = "FILE")]
    pub exceptions: Option<PathBuf>,
}

fn parse_release(s: &str) -> std::result::Result<crate::kep::domain::Release, String> {
    crate::kep::domain::Release::from_flag(s)
}

impl InputArgs {
    /// The input as every command reads it: `--repo` (default `./content`
    /// when present, else the sample compiled into kepsite), `--rev`,
    /// `--sigs` and `--current`, normalised here and nowhere else.
    pub fn input(&self) -> Input {
        let root = match &self.repo {
            Some(r) => r.clone(),
            None if Path::new("content/keps").is_dir() => PathBuf::from("content"),
            None => PathBuf::from(EMBEDDED_ROOT),
        };
        Input {
            root,
            rev: self.rev.clone(),
            sigs: self.sigs.clone(),
            current: self.current,
            kubernetes: self
                .kubernetes
                .clone()
                .map(|path| crate::project::Kubernetes {
                    path,
                    rev: self.kubernetes_rev.clone(),
                }),
            team: crate::team::Files {
                issues: self.issues.clone(),
                prs: self.prs.clone(),
                board: self.board.clone(),
                exceptions: self.exceptions.clone(),
            },
        }
    }
}

/// When to colour output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Color {
    /// On a terminal, unless NO_COLOR is set.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

impl Color {
    fn enabled(self) -> bool {
        match self {
            Color::Always => true,
            Color::Never => false,
            Color::Auto => {
                std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none()
            }
        }
    }
}

/// A yes/no filter value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum YesNo {
    /// Yes.
    Yes,
    /// No.
    No,
}

/// Output of `check`.
pub use crate::check::CheckFormat;

/// What `--deny` can make fatal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Deny {
    /// Warnings count as errors for the exit code.
    Warnings,
}

/// Arguments of `check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    #[command(flatten)]
    /// Input.
    pub input: InputArgs,
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    pub format: CheckFormat,
    /// Make warnings fail the check too.
    #[arg(long, value_enum)]
    pub deny: Option<Deny>,
    /// Only these rules (repeatable or comma-separated); see --list-rules.
    #[arg(long, value_delimiter = ',')]
    pub rule: Vec<String>,
    /// Only KEPs whose owning SIG matches this regex.
    #[arg(long, value_name = "REGEX")]
    pub sig: Option<String>,
    /// Colour.
    #[arg(long, value_enum, default_value = "auto")]
    pub color: Color,
    /// Print every rule and exit.
    #[arg(long)]
    pub list_rules: bool,
    /// Show every advice finding (each unanswered PRR question) in full,
    /// instead of one line per KEP.
    #[arg(long, short)]
    pub verbose: bool,
    /// Report only findings in KEPs the change since REV touched (from its
    /// merge base with HEAD to the working tree, or to --rev), plus findings
    /// the change introduced elsewhere.
    #[arg(
        long,
        value_name = "REV",
        requires = "repo",
        conflicts_with = "changed_in"
    )]
    pub changed_since: Option<String>,
    /// As --changed-since, for the change from REV1 to REV2 (REV1...REV2:
    /// from their merge base).
    #[arg(
        long,
        value_name = "REV1..REV2",
        requires = "repo",
        conflicts_with = "rev"
    )]
    pub changed_in: Option<String>,
    /// Link KEPs in the Markdown summary to a kepsite portal at this URL
    /// (default: their directory in --repo-url at the change's commit).
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// Repository URL for the Markdown summary's links.
    #[arg(
        long,
        value_name = "URL",
        default_value = "https://github.com/kubernetes/enhancements"
    )]
    pub repo_url: String,
    /// Branch for those links when the change has no commit (a working tree).
    #[arg(long, default_value = "master")]
    pub branch: String,
}

/// Arguments of `query`.
#[derive(Debug, Args)]
pub struct QueryArgs {
    #[command(flatten)]
    /// Input.
    pub input: InputArgs,
    #[command(flatten)]
    /// With `--release`: the history that decides what was in a release
    /// (as on the release pages and in the report).
    pub history: HistoryArgs,
    /// Owning SIG (regex; repeatable or comma-separated).
    #[arg(long, value_delimiter = ',')]
    pub sig: Vec<String>,
    /// Status (provisional, implementable, implemented, ...).
    #[arg(long, value_delimiter = ',')]
    pub status: Vec<String>,
    /// Stage (alpha, beta, stable, deprecated, disabled, removed, or `none`).
    #[arg(long, value_delimiter = ',')]
    pub stage: Vec<String>,
    /// Author GitHub handle.
    #[arg(long, value_delimiter = ',')]
    pub author: Vec<String>,
    /// Approver GitHub handle.
    #[arg(long, value_delimiter = ',')]
    pub approver: Vec<String>,
    /// Participating SIG (regex).
    #[arg(long, value_delimiter = ',')]
    pub participating_sig: Vec<String>,
    /// PRR approver, from keps/prod-readiness files.
    #[arg(long, value_delimiter = ',')]
    pub prr_approver: Vec<String>,
    /// Release vX.Y: latest-milestone or any stage's milestone.
    #[arg(long, value_delimiter = ',')]
    pub release: Vec<String>,
    /// Feature gate name.
    #[arg(long, value_delimiter = ',')]
    pub feature_gate: Vec<String>,
    /// Text in the title or summary (case-insensitive).
    #[arg(long)]
    pub text: Option<String>,
    /// PRR complete (questionnaire answered and approved) for the KEP's stage.
    #[arg(long, value_enum)]
    pub prr_complete: Option<YesNo>,
    /// README lacks, or leaves unanswered, this template section (e.g. "Test Plan").
    #[arg(long, value_name = "SECTION")]
    pub missing: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    pub format: query::QueryFormat,
}

/// Arguments of `export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    #[command(flatten)]
    /// Input.
    pub input: InputArgs,
    /// Write here instead of standard output.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Add each KEP's stage history from git (needs --repo to be a git repository).
    #[arg(long)]
    pub history: bool,
    /// Where the history walk is cached between runs.
    /// Default: `kepsite` in the user cache directory (`$XDG_CACHE_HOME`,
    /// else `~/.cache`); created 0700, refused if others can write it.
    #[arg(long, value_name = "DIR")]
    pub cache_dir: Option<PathBuf>,
    /// Use no cache: the history (with --history) is walked from nothing,
    /// and nothing is read from or written to any cache.
    #[arg(long)]
    pub no_cache: bool,
    /// A KEP untouched for this many days is stale.
    #[arg(long, value_name = "DAYS", default_value_t = 365)]
    pub stale_days: i64,
}

impl ExportArgs {
    /// How the history is walked: only with `--history`, cached in
    /// `--cache-dir` (default as for every subcommand).
    pub fn walk(&self) -> Result<Walk> {
        match (self.history, self.no_cache) {
            (true, true) => Ok(Walk::Uncached),
            (true, false) => crate::cache_file::dir(self.cache_dir.as_deref()).map(Walk::Cached),
            (false, _) => Ok(Walk::Skip),
        }
    }
}

mod run;

pub use run::run;
