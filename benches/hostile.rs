//! README rendering under hostile input (issue 17): 10 MB READMEs of raw
//! HTML built to make a parser work hard, beside an ordinary 10 MB README,
//! through `markdown::render` (the sanitizer included); and the sanitizer's
//! share of rendering the real corpus.
//!
//! Run with `cargo bench --bench hostile`; prints the best of 3 runs each.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::time::{Duration, Instant};

#[allow(dead_code)] // each bench uses a part of it
mod support;

#[path = "hostile/gate_inputs.rs"]
mod gate_inputs;

use kepsite::project::{Input, Needs, Project};
use kepsite::site::highlight::Highlighter;
use kepsite::site::markdown::{Links, render};
use kepsite::site::sanitize::{Budget, Policy, clean};

const SIZE: usize = 10 * 1024 * 1024;
const RUNS: usize = 3;

fn best(mut f: impl FnMut()) -> Duration {
    (0..RUNS)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap_or_default()
}

/// The project of `input`, loaded as `check` loads it.
fn load(input: &Input) -> Project {
    Project::load(input, &Needs::files()).expect("loads")
}

/// `unit` repeated to 10 MB.
fn repeat(unit: &str) -> String {
    unit.repeat(SIZE / unit.len())
}

/// An ordinary README: sections of prose, lists, links and inline code
/// (under the same heading each time: 40,000 anchors `design-details-N`).
fn ordinary() -> String {
    let section = "## Design Details\n\nThe kubelet reports the **pull progress** of each image \
        to the API server, see [the proposal](../1480-pod-restart-budget/README.md) and \
        `imagePullProgress`. Risks are listed below.\n\n- first item with *emphasis*\n- second \
        item, a [link](https://kubernetes.io/docs/)\n\n> A quoted note about graduation.\n\n";
    repeat(section)
}

/// An ordinary README with raw HTML an author would write: tables, details.
fn ordinary_html() -> String {
    let unit = "<details><summary>More</summary>\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n</details>\n\n\
        <p align=\"center\"><img src=\"img.png\" width=\"300\" alt=\"diagram\"></p>\n\n\
        Some text with <b>bold</b> and <sub>sub</sub>.\n\n";
    repeat(unit)
}

/// `check` (load, rules, the default report) on one kep.yaml with `n`
/// unknown keys (issue 37: 49,000 keys took 27 s).
fn unknown_keys() {
    println!("| unknown keys in one kep.yaml | check (load, rules, report) | per 1,000 keys |");
    println!("|---|---|---|");
    for n in [6_250usize, 12_500, 25_000, 49_000] {
        let mut yaml =
            String::from("title: X\nkep-number: 100\nowning-sig: sig-node\nstatus: provisional\n");
        for i in 0..n {
            yaml.push_str(&format!("unknown_key_{i}: v\n"));
        }
        let dir = tempfile::tempdir().expect("tempdir");
        let kep = dir.path().join("keps/sig-node/100-x");
        std::fs::create_dir_all(&kep).expect("mkdir");
        std::fs::write(kep.join("kep.yaml"), &yaml).expect("write");
        std::fs::write(kep.join("README.md"), "# X\n").expect("write");
        let t = best(|| {
            let p = load(&Input::at(dir.path()));
            assert!(
                kepsite::diagnostics::human(&p.model, &p.findings, false)
                    .contains("more `unknown-field` findings")
            );
        });
        println!(
            "| {n} | {:.3} s | {:.2} ms |",
            t.as_secs_f64(),
            t.as_secs_f64() * 1e6 / n as f64
        );
    }
}

/// The four `--kubernetes` inputs that took quadratic time (issue 49),
/// each at ×1, ×2 and ×4: the gate files parsed and resolved
/// (`gates::parse_file`), and for the gates naming one KEP the whole
/// `Code::load` of a one-commit checkout against `content/`.
fn gate_files() {
    type Make = fn(usize) -> Vec<(String, String)>;
    let cases: [(&str, Make, usize); 3] = [
        (
            "spec map keys `pkg.Gate`",
            gate_inputs::qualified_keys,
            10_000,
        ),
        (
            "N comment lines, N constants on one line",
            gate_inputs::one_line,
            20_000,
        ),
        (
            "one `// kep:` line naming N numbers",
            gate_inputs::kep_numbers,
            250_000,
        ),
    ];
    println!("| gate files | N | parse and resolve | per 1,000 |");
    println!("|---|---|---|---|");
    for (name, make, base) in cases {
        for n in [base, 2 * base, 4 * base] {
            let files = make(n);
            let t = best(|| {
                let mut s = kepsite::repo::gates::Snapshot::default();
                for (path, text) in &files {
                    kepsite::repo::gates::parse_file(path, text, &mut s);
                }
                assert!(!s.gates.is_empty());
            });
            println!(
                "| {name} | {n} | {:.3} s | {:.3} ms |",
                t.as_secs_f64(),
                t.as_secs_f64() * 1e6 / n as f64
            );
        }
    }
    let content = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("content");
    let model = load(&Input::at(&content)).model;
    for n in [40_000, 80_000, 160_000] {
        let dir = tempfile::tempdir().expect("tempdir");
        gate_inputs::commit(
            dir.path(),
            &gate_inputs::same_kep(n, 5204),
            1_772_409_600,
            &[],
        );
        let current = kepsite::kep::domain::Release::new(1, 36);
        let t = best(|| {
            let code = kepsite::analysis::code::Code::load(dir.path(), None, &model, current, None)
                .expect("loads");
            assert_eq!(code.gates_of[&5204].len(), n);
        });
        println!(
            "| gates all `// kep: 5204` (Code::load) | {n} | {:.3} s | {:.3} ms |",
            t.as_secs_f64(),
            t.as_secs_f64() * 1e6 / n as f64
        );
    }
}

fn main() {
    let only = std::env::var("HOSTILE_ONLY").ok();
    if only.as_deref().is_none_or(|o| o.contains("keys")) {
        unknown_keys();
    }
    if only.as_deref().is_none_or(|o| o.contains("gates")) {
        gate_files();
    }
    let keps = BTreeMap::new();
    let assets = BTreeSet::from(["img.png".to_string()]);
    let links = Links {
        keps: &keps,
        local_assets: &assets,
        repo_url: "https://github.com/kubernetes/enhancements",
        branch: "master",
    };
    let hl = Highlighter::new();
    let attrs: String = (0..SIZE / 8).map(|i| format!(" a{i}")).collect();
    let inputs: Vec<(&str, String)> = vec![
        ("ordinary markdown", ordinary()),
        (
            "ordinary raw HTML (details, tables, images)",
            ordinary_html(),
        ),
        ("ordinary short paragraphs", repeat("text\n\n")),
        ("`<div ` repeated", repeat("<div ")),
        ("`<script></script>` pairs", repeat("<script></script>")),
        (
            "one tag, distinct attributes",
            format!("<div{attrs}>x</div>"),
        ),
        ("`<div>` nested, never closed", repeat("<div>")),
        (
            "`<b>` unclosed, then paragraphs",
            format!("{}{}", "<b id=x>".repeat(2000), repeat("text\n\n")),
        ),
        (
            "`<li><div><li>` (implied end tags)",
            repeat("<li><div><li>x</li></div></li>"),
        ),
        (
            "`<dd><div><dt>` (implied end tags)",
            repeat("<dd><div><dt>x</dt></div></dd>"),
        ),
        (
            "12 KB Bash blocks of `&a ` (the scanner reads ahead)",
            repeat(&format!("```bash\n{}\n```\n\n", "&a ".repeat(4000))),
        ),
        (
            "64 KB Go blocks of `\"` (error recovery)",
            repeat(&format!("```go\n{}\n```\n\n", "\"".repeat(60_000))),
        ),
        (
            "64 KB Go blocks of `(` (a deep tree)",
            repeat(&format!("```go\n{}\n```\n\n", "(".repeat(60_000))),
        ),
    ];
    println!("| 10 MB README | render | vs ordinary |");
    println!("|---|---|---|");
    let mut base = None;
    for (name, md) in &inputs {
        if std::env::var("HOSTILE_ONLY").is_ok_and(|only| !name.contains(&only)) {
            continue;
        }
        let mut out = 0;
        let t = best(|| {
            out = render(md, "keps/sig-a/1-x/README.md", &links, &hl)
                .html
                .len()
        });
        let base = *base.get_or_insert(t);
        println!(
            "| {name} | {:.2} s | {:.2}x |",
            t.as_secs_f64(),
            t.as_secs_f64() / base.as_secs_f64()
        );
        assert!(out > 0);
    }

    if std::env::var("HOSTILE_ONLY").is_ok() {
        return;
    }
    // The corpus: every README rendered, and the tree sanitizer run again on
    // the output of those with raw HTML (parse, write, re-parse: its cost).
    let repo = support::corpus(&support::cache_dir().expect("bench cache")).expect("the corpus");
    let model = load(&Input::at(&repo)).model;
    let mut rendered = Vec::new();
    let all = best(|| {
        rendered = model
            .keps
            .iter()
            .map(|k| render(k.readme_text(), &k.metadata_path, &links, &hl).html)
            .collect();
    });
    let raw: Vec<&String> = model
        .keps
        .iter()
        .zip(&rendered)
        // raw HTML other than comments (what makes render() clean on a tree)
        .filter(|(k, _)| {
            let r = k.readme_text();
            r.contains("</") || r.contains("<img") || r.contains("<br") || r.contains("/>")
        })
        .map(|(_, h)| h)
        .collect();
    let none = HashSet::new();
    let policy = Policy {
        generated_ids: &none,
        trusted_urls: &none,
        resolve: &|u, _| u.to_string(),
    };
    let sanitize = best(|| {
        for h in &raw {
            let _ = clean(h, &policy, &Budget { depth: 1000 });
        }
    });
    println!(
        "corpus: {} READMEs rendered in {:.0} ms (one thread); the tree sanitizer over the {} \
         with raw HTML: {:.0} ms",
        model.keps.len(),
        all.as_secs_f64() * 1e3,
        raw.len(),
        sanitize.as_secs_f64() * 1e3
    );
}
