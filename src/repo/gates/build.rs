//! Every file's [`FileFacts`] → the snapshot's gates and problems.
//!
//! A constant's package is its file's directory. A map key `X` names the
//! constant `X` of the map's own package; `pkg.X` the constant `X` of the
//! package the file imports as `pkg`, found by the import path's being the
//! end of a directory's path (`k8s.io/apiserver/pkg/features` is
//! `staging/src/k8s.io/apiserver/pkg/features`). The gate's name is the
//! constant's string value (`CPUCFSQuotaPeriod` is `"CustomCPUCFSQuotaPeriod"`).
//! An untyped string constant (`ReloadKubeletClientCAFile =
//! "ReloadKubeletClientCAFile"`) is a gate only when a spec map names it.
//!
//! A gate whose constant two files declare is one gate, found first in path
//! order; its other files are in [`Gate::also_in`]. A gate registered in two
//! maps (a staging gate listed again in `pkg/features`) takes the specs of
//! its own package's map; differing specs elsewhere are a problem.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use super::parse::{ConstDecl, FileFacts, Key};
use super::{Gate, Problem, Spec};

/// The directory of a slash-separated path (`""` at the top).
fn dir_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

/// (package directory, identifier) → the first constant so declared and its file.
type Consts<'a> = HashMap<(&'a str, &'a str), (&'a str, &'a ConstDecl)>;

/// Each ending of a package directory's path at a `/` (and the whole path)
/// → the directories with that ending, in path order: an import path's
/// packages in one lookup (`k8s.io/apiserver/pkg/features` finds
/// `staging/src/k8s.io/apiserver/pkg/features`), not a scan of every
/// constant per map key.
type Dirs<'a> = HashMap<&'a str, Vec<&'a str>>;

fn dirs_by_ending<'a>(files: &'a [(String, Arc<FileFacts>)]) -> Dirs<'a> {
    let mut out: Dirs = HashMap::new();
    let mut last = None;
    for (path, _) in files {
        let dir = dir_of(path);
        if last == Some(dir) {
            continue;
        }
        last = Some(dir);
        let endings = dir.match_indices('/').map(|(i, _)| &dir[i + 1..]);
        for ending in std::iter::once(dir).chain(endings) {
            let dirs = out.entry(ending).or_default();
            if dirs.last() != Some(&dir) {
                dirs.push(dir);
            }
        }
    }
    out
}

/// A spec map entry resolved to its gate.
struct Resolved<'a> {
    name: String,
    home: bool,
    file: &'a str,
    line: usize,
    specs: &'a [Spec],
    versioned: bool,
}

/// The gates and problems of `files` (path, facts), sorted by path.
pub(super) fn build(files: &[(String, Arc<FileFacts>)]) -> (BTreeMap<String, Gate>, Vec<Problem>) {
    let mut problems = Vec::new();
    let mut gates: BTreeMap<String, Gate> = BTreeMap::new();
    let mut consts: Consts = HashMap::new();
    for (path, facts) in files {
        for (line, message) in &facts.problems {
            problems.push(Problem::unread(path, *line, message.clone()));
        }
        for (line, message) in &facts.notes {
            problems.push(Problem::new(path, *line, message.clone()));
        }
        for c in &facts.consts {
            consts
                .entry((dir_of(path), c.ident.as_str()))
                .or_insert((path.as_str(), c));
            if c.typed {
                add_const(&mut gates, path, c);
            }
        }
    }
    let mut resolved = Vec::new();
    let dirs = dirs_by_ending(files);
    let tables = Tables {
        consts: &consts,
        dirs: &dirs,
    };
    for (path, facts) in files {
        for entry in &facts.entries {
            let (name, decl) = resolve(path, facts, &entry.key, &tables, &mut problems, entry.line);
            if let Some((decl_path, decl)) = decl
                && !gates.contains_key(&name)
            {
                add_const(&mut gates, decl_path, decl);
            }
            let gate = gates.entry(name.clone()).or_insert_with(|| Gate {
                name: name.clone(),
                file: path.clone(),
                line: entry.line,
                ..Gate::default()
            });
            resolved.push(Resolved {
                home: dir_of(&gate.file) == dir_of(path),
                name,
                file: path,
                line: entry.line,
                specs: &entry.specs,
                versioned: entry.versioned,
            });
        }
    }
    resolved.sort_by(|a, b| (&a.name, !a.home).cmp(&(&b.name, !b.home)));
    attach(&mut gates, &resolved, &mut problems);
    for gate in gates.values().filter(|g| g.specs.is_empty()) {
        let message = format!("gate {} has no spec in any spec map", gate.name);
        problems.push(Problem::new(&gate.file, gate.line, message));
    }
    problems.sort_by(|a, b| (&a.file, a.line).cmp(&(&b.file, b.line)));
    problems.dedup();
    (gates, problems)
}

fn add_const(gates: &mut BTreeMap<String, Gate>, path: &str, c: &ConstDecl) {
    let (kep_text, keps) = match &c.kep {
        Some((text, keps)) => (Some(text.clone()), keps.clone()),
        None => (None, Vec::new()),
    };
    match gates.get_mut(&c.name) {
        Some(gate) => {
            // Files come in path order, each file's constants together:
            // the last one listed is the only one that can be this file.
            if gate.file != path && gate.also_in.last().is_none_or(|f| f != path) {
                gate.also_in.push(path.to_string());
            }
            if gate.kep_text.is_none() {
                gate.kep = keps.first().copied();
                gate.keps = keps;
                gate.kep_text = kep_text;
            }
        }
        None => {
            let gate = Gate {
                name: c.name.clone(),
                kep: keps.first().copied(),
                keps,
                kep_text,
                file: path.to_string(),
                line: c.line,
                ..Gate::default()
            };
            gates.insert(c.name.clone(), gate);
        }
    }
}

/// What [`resolve`] looks names up in.
struct Tables<'a, 'b> {
    consts: &'b Consts<'a>,
    dirs: &'b Dirs<'a>,
}

/// The gate name a map key stands for, and the constant it names. An
/// unknown constant is a problem; its specs are still kept, under the
/// identifier.
fn resolve<'a>(
    path: &str,
    facts: &FileFacts,
    key: &Key,
    tables: &Tables<'a, '_>,
    problems: &mut Vec<Problem>,
    line: usize,
) -> (String, Option<(&'a str, &'a ConstDecl)>) {
    let own = [dir_of(path)];
    let (dirs, ident): (&[&str], &str) = match key {
        Key::Local(ident) => (&own, ident),
        Key::Qualified(pkg, ident) => {
            let Some(import) = facts.imports.get(pkg) else {
                let message = format!("spec for {pkg}.{ident}: {pkg} is not imported");
                problems.push(Problem::new(path, line, message));
                return (ident.clone(), None);
            };
            let dirs = tables
                .dirs
                .get(import.as_str())
                .map_or(&[][..], Vec::as_slice);
            (dirs, ident)
        }
    };
    if let Some(&(file, decl)) = dirs.iter().find_map(|d| tables.consts.get(&(*d, ident))) {
        return (decl.name.clone(), Some((file, decl)));
    }
    let written = match key {
        Key::Local(i) => i.clone(),
        Key::Qualified(p, i) => format!("{p}.{i}"),
    };
    let message = format!("spec for {written}: no feature constant {ident} in its package");
    problems.push(Problem::new(path, line, message));
    (ident.to_string(), None)
}

/// Gives each gate the specs of its first entry (own package first), and
/// reports entries that say otherwise.
fn attach(gates: &mut BTreeMap<String, Gate>, resolved: &[Resolved], problems: &mut Vec<Problem>) {
    let mut first: HashMap<&str, &Resolved> = HashMap::new();
    for r in resolved {
        let Some(gate) = gates.get_mut(&r.name) else {
            continue;
        };
        match first.get(r.name.as_str()) {
            None => {
                let mut specs = r.specs.to_vec();
                specs.sort_by_key(|s| s.minor);
                gate.specs = specs;
                gate.versioned = r.versioned;
                first.insert(&r.name, r);
            }
            Some(f) if f.specs != r.specs || f.versioned != r.versioned => {
                let message = format!(
                    "gate {}: these specs differ from those at {}:{}, which are kept",
                    r.name, f.file, f.line
                );
                problems.push(Problem::new(r.file, r.line, message));
            }
            Some(_) => {}
        }
    }
}
