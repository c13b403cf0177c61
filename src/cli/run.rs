//! What each subcommand does: its parsed arguments to the library's calls,
//! the output written and the exit code returned.

use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result, bail};

use super::{
    BuildArgs, CheckArgs, Cli, Command, Deny, ExportArgs, QueryArgs, ReportArgs, ServeArgs, YesNo,
};
use crate::analysis::findings::{self, RULES};
use crate::atomic_write::{self, Access};
use crate::check;
use crate::project::{Needs, Project, Walk};
use crate::query::{self, Filters};

/// Run the parsed command; returns the process exit code. The process is
/// meant to end right after: what a command loaded is left to the kernel
/// ([`leave`]), not freed.
pub fn run(cli: &Cli) -> Result<i32> {
    match &cli.command {
        Command::Check(a) => check(a),
        Command::Query(a) => query_cmd(a),
        Command::Export(a) => export(a),
        Command::Build(a) => build(a),
        Command::Report(a) => report(a),
        Command::Serve(a) => serve(a),
    }
}

fn serve(a: &ServeArgs) -> Result<i32> {
    let input = a.input.input();
    if !input.is_embedded() && !input.root.is_dir() {
        bail!("{} is not a directory", input.root.display());
    }
    if let Some(t) = &a.theme
        && !t.is_dir()
    {
        bail!("theme {} is not a directory", t.display());
    }
    let walk = a.history.walk()?;
    crate::serve::run(&crate::serve::ServeOptions {
        input,
        theme: a.theme.clone(),
        bind: a.bind,
        port: a.port,
        open: a.open,
        repo_url: a.links.repo_url.clone(),
        branch: a.links.branch.clone(),
        walk,
    })?;
    Ok(0)
}

fn check(a: &CheckArgs) -> Result<i32> {
    if a.list_rules {
        let mut out = String::new();
        for r in RULES {
            out.push_str(&format!(
                "{:<28} {:<8} {:<8} {}\n",
                r.id,
                r.severity.as_str(),
                r.origin,
                r.summary
            ));
        }
        write_stdout(&out)?;
        return Ok(0);
    }
    for r in &a.rule {
        if findings::rule_by_id(r).is_none() {
            bail!("unknown rule {r:?}; `kepsite check --list-rules` lists them");
        }
    }
    let sig = a
        .sig
        .as_ref()
        .map(|s| query::compile_patterns(std::slice::from_ref(s)))
        .transpose()?
        .map(|mut v| v.remove(0));
    let range = match (&a.changed_since, &a.changed_in) {
        (Some(base), _) => Some(crate::repo::Range::Since {
            base: base.clone(),
            head: None,
        }),
        (None, Some(spec)) => Some(crate::repo::Range::parse_in(spec)?),
        (None, None) => None,
    };
    let base_url = a.base_url.as_deref().map(with_slash);
    let mut opts = check::Options {
        input: a.input.input(),
        range,
        format: a.format,
        rules: a.rule.clone(),
        sig,
        deny_warnings: a.deny == Some(Deny::Warnings),
        color: a.color.enabled(),
        verbose: a.verbose,
        links: check::summary::SummaryLinks {
            base_url,
            repo_url: a.repo_url.clone(),
            tree: a.branch.clone(),
        },
    };
    let checked = check::collect(&opts)?;
    if let Some(head) = checked.changes.as_ref().and_then(|c| c.head.as_ref()) {
        opts.links.tree = head.clone();
    }
    write_stdout(&check::render(&checked, &opts))?;
    let code = check::exit_code(&checked.findings, opts.deny_warnings);
    leave(checked);
    Ok(code)
}

/// Leaves what a command loaded to the kernel, which takes the process's
/// memory back at exit at once: freeing the corpus model piece by piece
/// (about 700 documents, each a tree of strings) took 16 ms of one core,
/// on the path of every `check` (perf, 3% of its samples; 2% of `report`'s).
fn leave<T>(loaded: T) {
    std::mem::forget(loaded);
}

fn query_cmd(a: &QueryArgs) -> Result<i32> {
    let filters = Filters {
        sig: query::compile_patterns(&a.sig)?,
        status: a.status.clone(),
        stage: a.stage.clone(),
        author: a.author.clone(),
        approver: a.approver.clone(),
        participating_sig: query::compile_patterns(&a.participating_sig)?,
        prr_approver: a.prr_approver.clone(),
        feature_gate: a.feature_gate.clone(),
        text: a.text.clone(),
        prr_complete: a.prr_complete.map(|v| v == YesNo::Yes),
        missing: a.missing.clone(),
    };
    // `--release` reads the one release model, with the history (cached as
    // for `report`) unless `--no-history`: a KEP that named the release on
    // the default branch and moved on is in it, as on the release pages.
    let releases = query::parse_releases(&a.release)?;
    let walk = match releases.is_empty() {
        true => Walk::Skip,
        false => a.history.walk()?,
    };
    let project = Project::load(&a.input.input(), &Needs::everything(walk))?;
    // The same check as `report --release`: a release no KEP names is an
    // error that lists the known ones, not "0 KEPs".
    for r in &releases {
        crate::report::check_release(&project.model, &project.analysis.current, &r.to_string())?;
    }
    let in_release = (!releases.is_empty()).then(|| query::in_releases(&project, &releases));
    let mut trackings = project.trackings();
    let mut outcomes =
        crate::analysis::outcome::outcomes_by_kep(&project.sources(), releases.iter().copied());
    let Project {
        model,
        analysis,
        findings: found,
        ..
    } = project;
    let mut by_kep = crate::view::findings_by_kep(&model, &found);
    let views: Vec<_> = model
        .keps
        .iter()
        .zip(by_kep.iter_mut())
        .zip(model.ids())
        .filter(|(_, id)| in_release.as_ref().is_none_or(|s| s.contains(id)))
        .filter(|(_, id)| filters.matches(&model, &analysis, *id))
        .map(|((_, f), id)| {
            let mut v = crate::view::kep_view(&model, &analysis, id, std::mem::take(f));
            v.tracking = trackings.get_mut(id.0).and_then(Option::take);
            v.releases = outcomes
                .get_mut(id.0)
                .map(std::mem::take)
                .unwrap_or_default();
            v
        })
        .collect();
    write_stdout(&query::render(&views, a.format)?)?;
    Ok(0)
}

fn build(a: &BuildArgs) -> Result<i32> {
    let started = std::time::Instant::now();
    // `--no-cache`: no cache directory at all; the history is walked from
    // nothing, and nothing is read from or written to any cache. The
    // history's is the only cache: without the history, none is made.
    let walk = a.history.walk()?;
    let input = a.input.input();
    refuse_out_inside_inputs(&a.out, &input, a.theme.as_deref())?;
    let opts = crate::site::SiteOptions {
        out: a.out.clone(),
        base_url: with_slash(&a.base_url),
        theme: a.theme.clone(),
        repo_url: crate::urls::repo_url(&a.links.repo_url),
        branch: a.links.branch.clone(),
        max_output: a.max_output.map(|mb| mb << 20),
    };
    let report = crate::site::build_loading(
        || Project::load(&input, &Needs::everything(walk.clone())),
        &opts,
    )?;
    eprintln!(
        "built {} pages ({} files, {} KB) for {} KEPs into {} in {:.2} s",
        report.pages,
        report.files,
        report.bytes / 1024,
        report.keps,
        a.out.display(),
        started.elapsed().as_secs_f64(),
    );
    eprintln!(
        "preview it (with its 404 page, live-reloading): {}",
        preview_command(a)
    );
    Ok(0)
}

/// Refuse an output directory inside what kepsite reads: the repository's
/// `keps/` (a site there is read back as KEPs and grows with every build)
/// or the theme directory.
fn refuse_out_inside_inputs(
    out: &Path,
    input: &crate::project::Input,
    theme: Option<&Path>,
) -> Result<()> {
    let out_abs = absolute(out);
    let mut read = Vec::new();
    if !input.is_embedded() {
        read.push(("the repository's keps/ directory", input.root.join("keps")));
    }
    if let Some(t) = theme {
        read.push(("the theme directory", t.to_path_buf()));
    }
    for (what, dir) in read {
        let dir_abs = absolute(&dir);
        if out_abs.starts_with(&dir_abs) {
            bail!(
                "--out {} is inside {what} ({}), which kepsite reads: the site would be read back \
                 as input by the next build; write it outside, e.g. --out public",
                crate::escape::terminal(&out.display().to_string()),
                crate::escape::terminal(&dir.display().to_string()),
            );
        }
    }
    Ok(())
}

/// `p` made absolute without needing it to exist: its longest existing
/// ancestor canonicalized (symlinks resolved), the rest appended with `.`
/// and `..` applied.
fn absolute(p: &Path) -> std::path::PathBuf {
    let joined = std::env::current_dir().map_or_else(|_| p.to_path_buf(), |cwd| cwd.join(p));
    let mut existing = joined.as_path();
    let mut rest = Vec::new();
    let base = loop {
        if let Ok(c) = existing.canonicalize() {
            break c;
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                existing = parent;
            }
            _ => break existing.to_path_buf(),
        }
    };
    let mut out = base;
    for part in rest.iter().rev() {
        match part.to_str() {
            Some("..") => {
                out.pop();
            }
            Some(".") => {}
            _ => out.push(part),
        }
    }
    out
}

/// The `kepsite serve` command that previews what `a` built: the same
/// repository, sigs.yaml and theme, served at `/` (`serve` reads the working
/// tree; it has no `--rev`).
fn preview_command(a: &BuildArgs) -> String {
    let mut cmd = String::from("kepsite serve");
    let mut arg = |flag: &str, value: &std::ffi::OsStr| {
        let value = value.to_string_lossy();
        let plain = !value.is_empty()
            && value
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_./:@~+,=".contains(c));
        let quoted = match plain {
            true => value.into_owned(),
            false => format!("'{}'", value.replace('\'', r"'\''")),
        };
        cmd.push_str(&format!(" {flag} {quoted}"));
    };
    if let Some(repo) = &a.input.repo {
        arg("--repo", repo.as_os_str());
    }
    if let Some(sigs) = &a.input.sigs {
        arg("--sigs", sigs.as_os_str());
    }
    if let Some(theme) = &a.theme {
        arg("--theme", theme.as_os_str());
    }
    cmd
}

fn export(a: &ExportArgs) -> Result<i32> {
    let input = a.input.input();
    let project = Project::load(&input, &Needs::everything(a.walk()?))?;
    if a.history && project.history.is_none() {
        bail!(
            "--history needs --repo to be a git repository: no history could be read from {}",
            crate::escape::terminal(&input.root.display().to_string())
        );
    }
    let ctx = project
        .history
        .as_ref()
        .map(|h| crate::view::HistoryContext {
            history: h,
            now: project.now,
            stale_days: a.stale_days,
        });
    let trackings = project.trackings();
    let src = project.sources();
    let releases = crate::analysis::outcome::releases(&project.model, &project.analysis.current);
    let outcomes = crate::analysis::outcome::outcomes_by_kep(&src, releases);
    let json = query::export(
        &project.model,
        &project.analysis,
        &project.findings,
        ctx,
        &trackings,
        outcomes,
    )?;
    write_out(a.out.as_deref(), &json)?;
    Ok(0)
}

fn report(a: &ReportArgs) -> Result<i32> {
    let req = crate::report::run::Request {
        input: a.input.input(),
        release: a.release.clone(),
        since: a.since.clone(),
        format: a.format,
        freeze: a.freeze.clone(),
        today: a.today.clone(),
        site_url: a.site_url.clone(),
        repo_url: a.links.repo_url.clone(),
        branch: a.links.branch.clone(),
        history: a.history.walk()?,
        theme: a.theme.clone(),
        phase: a.phase,
        templates: a.templates.clone(),
    };
    let crate::report::run::Written { text, project } = crate::report::run::run(&req)?;
    write_out(a.out.as_deref(), &text)?;
    leave(project);
    Ok(0)
}

/// Write to stdout; a closed pipe (`| head`) is not an error.
fn write_stdout(s: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(s.as_bytes()).and_then(|_| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        r => r.context("writing to standard output"),
    }
}

/// `text` to the file `out` (written atomically), or to stdout.
fn write_out(out: Option<&Path>, text: &str) -> Result<()> {
    match out {
        Some(path) => atomic_write::write(path, text.as_bytes(), Access::Shared)
            .with_context(|| format!("writing {}", path.display())),
        None => write_stdout(text),
    }
}

/// A URL prefix ending in `/`.
fn with_slash(url: &str) -> String {
    match url.ends_with('/') {
        true => url.to_string(),
        false => format!("{url}/"),
    }
}
