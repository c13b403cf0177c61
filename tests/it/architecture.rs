//! The shape of the crate: the top-level modules form a graph without
//! cycles (the domain below the renderers, the renderers below the command
//! layer), read from the `crate::…` paths in `src/`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Top-level module → the top-level modules its code names (`crate::x`),
/// comments left out.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut stack = vec![src.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let rel = path.strip_prefix(&src).unwrap();
            let first = rel.components().next().unwrap().as_os_str();
            let top = first.to_str().unwrap().trim_end_matches(".rs").to_string();
            if top == "lib" || top == "main" {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let uses = graph.entry(top.clone()).or_default();
            for line in text.lines() {
                let code = line.split("//").next().unwrap_or("");
                for (at, _) in code.match_indices("crate::") {
                    let name: String = code[at + 7..]
                        .chars()
                        .take_while(|c| c.is_ascii_lowercase() || *c == '_')
                        .collect();
                    if !name.is_empty() && name != top {
                        uses.insert(name);
                    }
                }
                // `use crate::{a, b::c}`
                if let Some(rest) = code.trim().strip_prefix("use crate::{") {
                    for part in rest.split([',', '}']) {
                        let name = part.trim().split("::").next().unwrap_or("").trim();
                        if !name.is_empty() && name != top && name != "self" {
                            uses.insert(name.to_string());
                        }
                    }
                }
            }
        }
    }
    graph
}

/// A cycle through `start`, if any (depth-first).
fn cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|n| n == node) {
            let mut c = path[at..].to_vec();
            c.push(node.to_string());
            return Some(c);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(c) = visit(next, graph, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|n| visit(n, graph, &mut Vec::new(), &mut done))
}

#[test]
fn top_level_modules_have_no_cycle() {
    let g = graph();
    // The reader sees the modules it must: a wrong reading fails here first.
    assert!(g["site"].contains("project"), "{g:?}");
    assert!(g["report"].contains("project"), "{g:?}");
    assert!(g["cli"].contains("site"), "{g:?}");
    assert_eq!(cycle(&g), None, "module graph: {g:#?}");
}

#[test]
fn the_cycle_finder_finds_a_planted_cycle() {
    let mut g = graph();
    g.entry("project".into()).or_default().insert("site".into());
    let c = cycle(&g).expect("project → site → project is a cycle");
    assert!(c.contains(&"site".to_string()) && c.contains(&"project".to_string()));
}

#[test]
fn nothing_but_main_uses_the_command_layer() {
    let g = graph();
    for (module, uses) in &g {
        assert!(
            !uses.contains("cli") || module == "cli",
            "{module} uses crate::cli: {uses:?}"
        );
    }
}

/// Every `.rs` file under `dir`, recursively.
fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// A plain `cargo test` needs nothing outside the repository: no unit test
/// and no test of this target names the shared folder (the corpus, the
/// seeds). Those tests belong to the `corpus` target.
#[test]
fn plain_cargo_test_reads_nothing_from_the_shared_folder() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    rust_files(&root.join("tests/it"), &mut files);
    assert!(files.len() > 50, "found {} files", files.len());
    let offenders: Vec<String> = files
        .iter()
        .filter(|p| !p.ends_with("tests/it/architecture.rs"))
        .filter(|p| {
            let text = std::fs::read_to_string(p).unwrap();
            [
                "../shared",
                "KEPSITE_SHARED",
                "shared/corpus",
                "shared/seeds",
            ]
            .iter()
            .any(|needle| text.contains(needle))
        })
        .map(|p| p.strip_prefix(root).unwrap().display().to_string())
        .collect();
    assert_eq!(offenders, Vec::<String>::new());
}

/// Verdicts are typed end to end: the string id of a board status, an
/// outcome, a checklist verdict, a tally or a checklist item is written
/// only in the module of its enum (its `id()`/`as_str()`), never matched
/// back elsewhere in `src/` (test modules aside). Ids that are also other
/// things are left out, each for its reason: `latest-milestone` is a
/// kep.yaml key; `tracked`, `removed`, `deferred`, `deprecated`, `planned`
/// (and `exception`) are also KEP statuses, stages, keywords or words for
/// people; a literal followed by
/// `:` is a JSON key.
#[test]
fn verdict_ids_are_written_only_in_their_enum_module() {
    use kepsite::analysis::board::{Status, Tally};
    use kepsite::analysis::freeze::CHECKLIST;
    use kepsite::analysis::outcome::Outcome;
    use kepsite::analysis::readiness::Verdict;
    use kepsite::team::Freeze;

    let mut ids: BTreeSet<String> = BTreeSet::new();
    for f in Freeze::ALL {
        for s in [
            Status::Tracked(f),
            Status::AtRisk(f),
            Status::ExceptionRequired(f),
            Status::ExceptionRequested(f),
        ] {
            ids.insert(s.id().into());
        }
    }
    ids.extend([Status::Removed.id(), Status::Deferred.id()].map(String::from));
    ids.extend(Tally::ALL.iter().map(|t| t.id().to_string()));
    ids.extend(
        [
            Verdict::Met,
            Verdict::NotMet,
            Verdict::MetLate,
            Verdict::NotChecked,
        ]
        .iter()
        .map(|v| v.id().to_string()),
    );
    ids.extend(
        [
            Outcome::Shipped { commit: None },
            Outcome::Slipped {
                went: String::new(),
                to: None,
                late: false,
            },
            Outcome::LatestOnly,
        ]
        .iter()
        .map(|o| o.id().to_string()),
    );
    ids.extend(CHECKLIST.iter().map(|c| c.id.as_str().to_string()));
    // The names of the model before the board: none may come back.
    ids.extend(["missed-freeze", "tracked-late", "ready"].map(String::from));
    for other in [
        "latest-milestone",
        "tracked",
        "removed",
        "deferred",
        "deprecated",
        "planned",
        "met",
        "exception",
    ] {
        ids.remove(other);
    }
    assert!(ids.len() >= 30, "{ids:?}");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let homes = [
        "src/analysis/board/mod.rs",
        "src/analysis/outcome.rs",
        "src/analysis/readiness.rs",
        "src/analysis/freeze.rs",
    ];
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    let mut offenders = Vec::new();
    for p in &files {
        let rel = p.strip_prefix(root).unwrap().to_str().unwrap().to_string();
        if homes.contains(&rel.as_str()) || rel.ends_with("tests.rs") {
            continue;
        }
        let text = std::fs::read_to_string(p).unwrap();
        let code = text.split("#[cfg(test)]").next().unwrap();
        for (n, line) in code.lines().enumerate() {
            let line = line.split("//").next().unwrap_or("");
            for id in &ids {
                let lit = format!("\"{id}\"");
                for (at, _) in line.match_indices(&lit) {
                    let after = line[at + lit.len()..].trim_start();
                    if !after.starts_with(':') {
                        offenders.push(format!("{rel}:{}: {lit}", n + 1));
                    }
                }
            }
        }
    }
    assert_eq!(offenders, Vec::<String>::new());
}

/// `text` without its comments (`//` to the line's end; doc comments too).
fn code_of(text: &str) -> String {
    text.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Git and the file system are read in one layer, `src/repo/` (issue 47):
/// no other module names `git2` or `std::fs`, except these, each for a
/// reason of its own.
#[test]
fn git_and_the_file_system_are_read_in_the_source_layer() {
    const ELSEWHERE: [(&str, &str); 8] = [
        (
            "src/input_file.rs",
            "untrusted input files named on the command line, bounded",
        ),
        (
            "src/theme.rs",
            "the --theme directory, the user's own templates",
        ),
        ("src/timing.rs", "/proc/self/status, for KEPSITE_TIMINGS"),
        ("src/cache_file.rs", "kepsite's own cache files"),
        ("src/atomic_write.rs", "writes a report's --out file"),
        ("src/site/output.rs", "writes the site's --out directory"),
        ("src/site/output/", "writes the site's --out directory"),
        (
            "src/errors.rs",
            "names libgit2's error class in messages; opens nothing",
        ),
    ];
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    let mut found = Vec::new();
    let mut checked = 0;
    for path in &files {
        let rel = path
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        if rel.starts_with("src/repo/") || ELSEWHERE.iter().any(|(p, _)| rel.starts_with(p)) {
            continue;
        }
        checked += 1;
        let code = code_of(&std::fs::read_to_string(path).unwrap());
        for needle in [
            "git2",
            "std::fs",
            "fs::read",
            "fs::write",
            "fs::metadata",
            "File::open",
        ] {
            if code.contains(needle) {
                found.push(format!("{rel}: {needle}"));
            }
        }
    }
    assert!(checked > 100, "{checked} files checked");
    assert_eq!(found, Vec::<String>::new());
    // The layer itself reads, and knows nothing of what is built on it.
    let g = graph();
    let below: BTreeSet<&str> = ["errors", "timing", "cache_file", "escape"].into();
    for m in &g["repo"] {
        assert!(below.contains(m.as_str()), "repo uses crate::{m}");
    }
}

/// The modules directly inside `src/<dir>/` → the sibling modules their
/// code names (`crate::<dir>::x`, and `super::x` in a file directly inside).
fn inner_graph(dir: &str) -> BTreeMap<String, BTreeSet<String>> {
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("src").join(dir);
    let mut files = Vec::new();
    rust_files(&base, &mut files);
    let name_of = |p: &Path| {
        let rel = p.strip_prefix(&base).unwrap();
        let depth = rel.components().count();
        let first = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy();
        (first.trim_end_matches(".rs").to_string(), depth)
    };
    let modules: BTreeSet<String> = files
        .iter()
        .map(|p| name_of(p).0)
        .filter(|m| m != "mod")
        .collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let word = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_lowercase() || *c == '_')
            .collect()
    };
    for path in &files {
        let (me, depth) = name_of(path);
        if me == "mod" {
            continue;
        }
        let code = code_of(&std::fs::read_to_string(path).unwrap());
        let uses = graph.entry(me.clone()).or_default();
        let mut prefixes = vec![format!("crate::{dir}::")];
        if depth == 1 {
            prefixes.push("super::".into());
        }
        for prefix in &prefixes {
            for (at, _) in code.match_indices(prefix.as_str()) {
                let rest = &code[at + prefix.len()..];
                let names: Vec<String> = match rest.strip_prefix('{') {
                    Some(group) => group
                        .split('}')
                        .next()
                        .unwrap_or("")
                        .split(',')
                        .map(|p| word(p.trim()))
                        .collect(),
                    None => vec![word(rest)],
                };
                for n in names {
                    if n != me && modules.contains(&n) {
                        uses.insert(n);
                    }
                }
            }
        }
    }
    graph
}

/// Issue 47: the parts of the analysis (freeze readiness, deadlines, the
/// board, outcomes, the code's facts, completeness and the template, …)
/// and of the site (listings, pages, dashboards, feed, …) form graphs
/// without cycles, as the top-level modules do.
#[test]
fn analysis_and_site_have_no_cycle_inside() {
    let a = inner_graph("analysis");
    // The reader sees the modules it must: a wrong reading fails here first.
    assert!(
        a["outcome"].contains("board") && a["outcome"].contains("code"),
        "{a:?}"
    );
    assert!(a["board"].contains("readiness"), "{a:?}");
    assert_eq!(cycle(&a), None, "analysis: {a:#?}");
    let s = inner_graph("site");
    assert!(
        s["pages"].contains("listing") && s["dashboards"].contains("listing"),
        "{s:?}"
    );
    assert_eq!(cycle(&s), None, "site: {s:#?}");
    // And a cycle planted is found.
    let mut planted = a.clone();
    planted
        .entry("code".into())
        .or_default()
        .insert("outcome".into());
    assert!(cycle(&planted).is_some());
}

/// The names of the methods taking `&mut self` in every `impl <ty> {`
/// block of `src/` (comments left out).
fn mutators_of(ty: &str) -> BTreeSet<String> {
    let mut files = Vec::new();
    rust_files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut files,
    );
    let head = format!("impl {ty} {{");
    let mut out = BTreeSet::new();
    for f in files {
        let code = code_of(&std::fs::read_to_string(&f).unwrap());
        for (at, _) in code.match_indices(&head) {
            // the block, to its closing brace
            let body = &code[at + head.len()..];
            let mut depth = 1;
            let end = body
                .char_indices()
                .find(|&(_, c)| {
                    depth += match c {
                        '{' => 1,
                        '}' => -1,
                        _ => 0,
                    };
                    depth == 0
                })
                .map_or(body.len(), |(i, _)| i);
            let block = &body[..end];
            for (i, m) in block.match_indices("&mut self") {
                // a receiver, first in the parameters (on the signature's
                // line or, formatted long, on a line of its own), not
                // `(&mut self.field`
                let before = block[..i].trim_end();
                if !before.ends_with('(') || !block[i + m.len()..].starts_with([',', ')']) {
                    continue;
                }
                let name = before[..before.len() - 1]
                    .rsplit("fn ")
                    .next()
                    .unwrap_or("");
                out.insert(name.trim().to_string());
            }
        }
    }
    out
}

/// A model and its KEPs are not changed after the load (issue 47): the
/// one method that changes a model is `serve`'s preview of an edited KEP.
#[test]
fn a_model_is_not_changed_after_its_load() {
    assert_eq!(
        mutators_of("Model"),
        BTreeSet::from(["replace_kep".to_string()])
    );
    assert_eq!(mutators_of("Kep"), BTreeSet::new());
    // the scan finds a method that takes `&mut self`
    assert!(mutators_of("Project").contains("read_code"));
}

/// What a load gives: a value of one of these, or of `Self` in an `impl`
/// of one, is a loaded repository (or a part of one).
const LOADED: [&str; 5] = [
    "Model",
    "RepoSnapshot",
    "Analysis",
    "KepAnalysis",
    "Project",
];

/// Whether `text` holds `word` as a whole word, not borrowed (`&Model`,
/// `&'a Model`, `&mut crate::model::Model` borrow a value loaded already).
fn names_by_value(text: &str, word: &str) -> bool {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    text.match_indices(word).any(|(at, _)| {
        let before = &text[..at];
        let after = &text[at + word.len()..];
        if before.ends_with(ident) || after.starts_with(ident) {
            return false;
        }
        // the path before the name, `mut` and a lifetime, then `&` or not
        let mut rest = before.trim_end_matches(|c: char| ident(c) || c == ':');
        rest = rest.trim_end();
        rest = rest.strip_suffix("mut").unwrap_or(rest).trim_end();
        if let Some(i) = rest.rfind('\'')
            && rest[i + 1..].chars().all(ident)
        {
            rest = rest[..i].trim_end();
        }
        !rest.ends_with('&')
    })
}

/// Where the first `open` bracket of `code` closes: the index just past
/// its matching `close` (the `>` of an arrow, `->`, is no bracket).
fn past_matching(code: &str, open: char, close: char) -> usize {
    let mut depth = 0;
    for (i, c) in code.char_indices() {
        if c == open {
            depth += 1;
        } else if c == close && !(close == '>' && code[..i].ends_with('-')) {
            depth -= 1;
            if depth == 0 {
                return i + 1;
            }
        }
    }
    code.len()
}

/// The public functions of `code` (a source file's text) that give a
/// loaded value: each `pub fn` (exactly: not `pub(crate)`, `pub(super)`)
/// whose return type names one of [`LOADED`] by value, or `Self` in an
/// `impl` of one; `Type::name` in an `impl`, else `name`.
fn loaders_in(code: &str) -> Vec<String> {
    let code = code_of(code);
    // every `impl … {` block that opens a line: (its span, its type's name)
    let mut impls = Vec::new();
    let mut at = 0;
    for line in code.split_inclusive('\n') {
        let head = line.trim_start();
        if head.starts_with("impl ") || head.starts_with("impl<") {
            let open = at + line.find('{').unwrap_or(line.len());
            let mut head = head.split('{').next().unwrap_or("");
            if head.starts_with("impl<") {
                head = &head[4 + past_matching(&head[4..], '<', '>')..];
            } else {
                head = &head[4..];
            }
            let ty = head.rsplit(" for ").next().unwrap_or(head).trim();
            let ty = ty.split('<').next().unwrap_or(ty);
            let ty = ty.rsplit("::").next().unwrap_or(ty).trim().to_string();
            let end = open + past_matching(&code[open..], '{', '}');
            impls.push((open..end, ty));
        }
        at += line.len();
    }
    let mut out = Vec::new();
    for (at, m) in code.match_indices("pub fn ") {
        if code[..at].ends_with(|c: char| !c.is_whitespace()) {
            continue;
        }
        let rest = &code[at + m.len()..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        let mut sig = &rest[name.len()..];
        if sig.starts_with('<') {
            sig = &sig[past_matching(sig, '<', '>')..];
        }
        let sig = &sig[past_matching(sig, '(', ')')..];
        // the return type ends at the body, or at a `where` clause
        let end = [
            sig.find('{'),
            sig.find(';'),
            sig.find(" where"),
            sig.find("\nwhere"),
        ]
        .into_iter()
        .flatten()
        .min()
        .unwrap_or(sig.len());
        let returns = sig[..end].split_once("->").map_or("", |(_, r)| r);
        let ty = impls
            .iter()
            .filter(|(span, _)| span.contains(&at))
            .min_by_key(|(span, _)| span.len())
            .map(|(_, ty)| ty.as_str());
        let gives = LOADED.iter().any(|l| names_by_value(returns, l))
            || (ty.is_some_and(|t| LOADED.contains(&t)) && names_by_value(returns, "Self"));
        if gives {
            out.push(match ty {
                Some(t) => format!("{t}::{name}"),
                None => name,
            });
        }
    }
    out
}

/// One public way to load (issue 47): outside the crate, a repository is
/// loaded by `Project::load` and nothing else, and `serve` takes an edit
/// by `Project::reload`. The steps of a load (the source layer's
/// snapshot, the model, the analysis) and the project's builders are
/// `pub(crate)`; a `pub fn` that gives one of their values fails here.
#[test]
fn the_only_public_loads_are_project_load_and_reload() {
    const ALLOWED: [&str; 2] = ["Project::load", "Project::reload"];
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    let mut found = Vec::new();
    for path in &files {
        let rel = path.strip_prefix(root).unwrap().display().to_string();
        for name in loaders_in(&std::fs::read_to_string(path).unwrap()) {
            found.push((name, rel.clone()));
        }
    }
    // The reader sees the two it must: a wrong reading fails here first.
    for allowed in ALLOWED {
        assert!(found.iter().any(|(n, _)| n == allowed), "{found:?}");
    }
    let others: Vec<String> = found
        .iter()
        .filter(|(n, _)| !ALLOWED.contains(&n.as_str()))
        .map(|(n, file)| format!("{file}: {n}"))
        .collect();
    assert_eq!(others, Vec::<String>::new());
}

/// The finder can fail: a public constructor planted in `impl Project` is
/// found, as a planted cycle is by the cycle finder.
#[test]
fn the_load_finder_finds_a_planted_loader() {
    let planted = "impl Project {\n    pub fn new(model: Model) -> Self {\n        Project::of(model)\n    }\n}\n";
    assert_eq!(loaders_in(planted), ["Project::new"]);
    let free =
        "pub fn load<F: Fn(&str) -> bool>(root: &Path, f: F) -> Result<crate::model::Model> {\n}\n";
    assert_eq!(loaders_in(free), ["load"]);
    // not one: crate-private, a borrow, an argument, another type's `Self`,
    // a bound
    let not = "impl Project {\n    pub(crate) fn new(model: Model) -> Self {}\n    pub fn model(&self) -> &Model {}\n}\n\
               pub fn count(model: &Model) -> usize {}\n\
               impl Input {\n    pub fn rev(self, rev: String) -> Self {}\n}\n\
               pub fn of<'a>(a: &'a Analysis) -> Option<&'a KepAnalysis> {}\n\
               pub fn run<F>(f: F) -> usize\nwhere\n    F: Fn() -> Model,\n{\n}\n";
    assert_eq!(loaders_in(not), Vec::<String>::new());
}
