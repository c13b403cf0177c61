//! A value from input is inert in every output (issue 49): a control
//! character (C0, DEL, C1, the bidirectional overrides and isolates) in a
//! finding's path, message or help goes through every `check` format
//! without acting: no raw control character on a line for people, no line
//! of its own (a GitHub Actions workflow command `::error …`, a spoofed
//! `warning[…]` line), and the machine formats keep the value exactly.

use kepsite::check::summary::SummaryLinks;
use kepsite::check::{CheckFormat, Options, collect, render};
use kepsite::project::Input;

use crate::support::{content, kepsite};

/// Every character [`kepsite::escape::is_control`] names that a YAML value
/// can carry, and a few neighbours that are not controls.
fn controls() -> Vec<char> {
    let mut out: Vec<char> = ('\u{0}'..='\u{1f}').collect();
    out.push('\u{7f}');
    out.extend('\u{80}'..='\u{9f}');
    out.extend('\u{202a}'..='\u{202e}');
    out.extend('\u{2066}'..='\u{2069}');
    out
}

const FORMATS: [CheckFormat; 6] = [
    CheckFormat::Human,
    CheckFormat::Json,
    CheckFormat::Github,
    CheckFormat::Sarif,
    CheckFormat::Junit,
    CheckFormat::Md,
];

fn options(format: CheckFormat) -> Options {
    Options {
        input: Input::at(content()),
        range: None,
        format,
        rules: Vec::new(),
        sig: None,
        deny_warnings: false,
        color: false,
        verbose: false,
        links: SummaryLinks {
            base_url: None,
            repo_url: "https://github.com/kubernetes/enhancements".into(),
            tree: "master".into(),
        },
    }
}

/// A line the value must never make: a workflow command or a finding of
/// its own.
fn injected(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with("::error file=README.md") || t.starts_with("warning[fake-rule]")
}

#[test]
fn every_control_character_is_inert_in_every_format() {
    let base = collect(&options(CheckFormat::Human)).unwrap();
    let kep = base
        .findings
        .iter()
        .position(|f| f.kep.is_some() && f.line.is_some())
        .expect("a finding on a KEP's line");
    for format in FORMATS {
        let opts = options(format);
        let mut checked = collect(&opts).unwrap();
        for c in controls() {
            let value =
                format!("x{c}::error file=README.md,line=1::INJECTED{c}warning[fake-rule]: y{c}");
            let f = &mut checked.findings[kep];
            f.message = format!("status `{value}` is not a valid status");
            f.hint = Some(format!("help {value}"));
            let message = f.message.clone();
            let out = render(&checked, &opts);
            let name = format!("{format:?} U+{:04X}", c as u32);
            assert!(!out.lines().any(injected), "{name}:\n{out}");
            match format {
                CheckFormat::Json | CheckFormat::Sarif => {
                    // Machine formats: escaped by JSON, the value kept whole.
                    let _: serde_json::Value = serde_json::from_str(&out).unwrap();
                    let quoted = serde_json::to_string(&message).unwrap();
                    assert!(out.contains(&quoted[1..quoted.len() - 1]), "{name}");
                    assert!(!out.contains(|d: char| d < ' ' && d != '\n'), "{name}");
                }
                _ => {
                    // For people (and CI logs): shown, never raw.
                    let raw = |d: char| d == c && d != '\n';
                    assert!(!out.contains(raw), "{name}: raw in\n{out}");
                }
            }
        }
    }
}

/// The case: a gate named `A\n::error …` in Kubernetes' code,
/// through `check --kubernetes` (the milestone-vs-code message names it).
#[test]
fn a_newline_in_a_gate_name_starts_no_line() {
    let dir = tempfile::tempdir().unwrap();
    let gates = crate::code_inputs::GATES.replace(
        "\"PodRestartBudget\"",
        "\"PodRestartBudget\\n::error file=README.md,line=1::INJECTED\\nwarning[fake-rule]: spoofed\"",
    );
    crate::code_inputs::tagged_checkout(dir.path(), &gates);
    let k8s = dir.path().to_str().unwrap();
    for format in ["human", "github", "md", "junit"] {
        let run = kepsite(&["check", "--format", format, "--kubernetes", k8s]);
        assert!(
            run.stdout.contains("INJECTED"),
            "{format}: the gate is named"
        );
        assert!(
            !run.stdout.lines().any(injected),
            "{format}:\n{}",
            run.stdout
        );
    }
}

/// A bidirectional override in a KEP's title and README is shown on every
/// page (`[U+202E]`, as GitHub marks it), never sent raw to reorder it.
#[test]
fn bidi_overrides_are_shown_on_pages() {
    let (_tmp, repo) = crate::support::content_copy();
    let kep = repo.join("keps/sig-apps/5204-job-completion-hooks");
    let yaml = std::fs::read_to_string(kep.join("kep.yaml")).unwrap();
    let yaml: String = yaml
        .lines()
        .map(|l| match l.starts_with("title:") {
            true => "title: \"\u{202e}gnp.exe \u{2066}\"\n".to_string(),
            false => format!("{l}\n"),
        })
        .collect();
    std::fs::write(kep.join("kep.yaml"), yaml).unwrap();
    let readme = std::fs::read_to_string(kep.join("README.md")).unwrap();
    std::fs::write(
        kep.join("README.md"),
        format!("{readme}\nText \u{202e}reversed\u{202c}.\n"),
    )
    .unwrap();
    let out = tempfile::tempdir().unwrap();
    let site = out.path().join("site");
    let run = kepsite(&[
        "build",
        "--no-history",
        "--repo",
        repo.to_str().unwrap(),
        "--out",
        site.to_str().unwrap(),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let page = std::fs::read_to_string(site.join("keps/5204/index.html")).unwrap();
    assert!(page.contains("[U+202E]reversed[U+202C]"), "the README");
    assert!(page.contains("[U+202E]gnp.exe [U+2066]"), "the title");
    for (path, bytes) in crate::support::files(&site) {
        if path.ends_with(".html") || path.ends_with(".xml") {
            let text = String::from_utf8_lossy(&bytes);
            assert!(
                !text.contains(['\u{202e}', '\u{2066}', '\u{202c}']),
                "{path}"
            );
        }
    }
}

/// Issue 49's README of 128,706 headings (a table of contents that lists
/// none of them): one `toc-mismatch` each made 30 MB of Markdown, 45 MB of
/// JSON, 128,707 annotations and a 23 MB page. Now capped in every output.
#[test]
fn a_readme_of_128706_headings_gives_capped_output() {
    let (_tmp, repo) = crate::support::content_copy();
    let readme = repo.join("keps/sig-apps/5204-job-completion-hooks/README.md");
    let mut text = std::fs::read_to_string(&readme).unwrap();
    for i in 0..128_706 {
        text.push_str(&format!("## Heading number {i} of many\n\nSome text.\n\n"));
    }
    std::fs::write(&readme, &text).unwrap();
    let r = repo.to_str().unwrap();
    let run = kepsite(&["check", "--repo", r, "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let toc: Vec<&serde_json::Value> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "toc-mismatch" && f["path"].as_str().unwrap().contains("5204"))
        .collect();
    assert_eq!(toc.len(), kepsite::finding::MAX_PER_RULE_AND_FILE + 1);
    let more = 128_706 - kepsite::finding::MAX_PER_RULE_AND_FILE;
    assert!(
        toc.iter().any(|f| f["message"]
            .as_str()
            .unwrap()
            .starts_with(&format!("{more} more `toc-mismatch` findings"))),
        "{}",
        toc[toc.len() - 1]
    );
    assert!(run.stdout.len() < 200_000, "{}", run.stdout.len());
    let md = kepsite(&["check", "--repo", r, "--format", "md"]);
    assert!(
        md.stdout.len() <= kepsite::check::summary::MAX_BYTES,
        "{}",
        md.stdout.len()
    );
    let gh = kepsite(&["check", "--repo", r, "--format", "github"]);
    for kind in ["::error ", "::warning "] {
        assert!(
            gh.stdout.lines().filter(|l| l.starts_with(kind)).count() <= 10,
            "{kind}"
        );
    }
    assert!(gh.stdout.contains("::notice title=kepsite check::"));
    let out = tempfile::tempdir().unwrap();
    let site = out.path().join("site");
    let b = kepsite(&[
        "build",
        "--no-history",
        "--repo",
        r,
        "--out",
        site.to_str().unwrap(),
    ]);
    assert_eq!(b.code, 0, "{}", b.stderr);
    let page = std::fs::read_to_string(site.join("keps/5204/index.html")).unwrap();
    assert!(
        page.len() < 6 * kepsite::kep::document::MAX_PAGE_BYTES,
        "{}",
        page.len()
    );
    assert!(page.contains("class=\"readme-cut\""));
    assert!(page.contains("Heading number 0 of many"));
    assert!(!page.contains("Heading number 128705 of many"));
}
