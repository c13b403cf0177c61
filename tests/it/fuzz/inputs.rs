//! Fuzz targets for the `--kubernetes` gate parser and the input-file
//! readers (issue 49), with the same budget as the others ([`super::cases`]).
//!
//! To fuzz a new input file (`--prs`, `--board`): add its reader to
//! [`input_file_readers`]; every target below feeds it the same inputs.

use kepsite::repo::gates::{MAX_FILE_BYTES, Snapshot, parse_file};
use proptest::prelude::*;

use super::{cases, config};

/// A reader: a file's bytes → how many elements it read, or the error.
type Reader = fn(&[u8]) -> anyhow::Result<usize>;

/// Every reader of an untrusted input file: its name, and a function from
/// the file's bytes to how many elements it read (or the error).
fn input_file_readers() -> Vec<(&'static str, Reader)> {
    vec![
        ("--issues", |b| {
            kepsite::team::issues::parse(b).map(|v| v.len())
        }),
        ("--prs", |b| kepsite::team::prs::parse(b).map(|v| v.len())),
        ("--board", |b| {
            kepsite::team::board::parse(b).map(|v| v.len())
        }),
        ("--exceptions", |b| {
            kepsite::team::exceptions::parse(&String::from_utf8_lossy(b)).map(|v| v.len())
        }),
    ]
}

/// A reader never panics, and a refusal says which file, or which element
/// of it, is wrong.
pub fn check_readers(bytes: &[u8]) {
    for (name, read) in input_file_readers() {
        if let Err(e) = read(bytes) {
            let e = e.to_string();
            assert!(e.contains(" of the ") || e.contains(" file"), "{name}: {e}");
            assert!(!e.contains(|c: char| c.is_control()), "{name}: {e:?}");
        }
    }
}

/// The gate parser never panics, and what it gives stays within its
/// bounds: a `kep:` line read for 16 KEPs and 256 bytes, problems at lines
/// of the file.
pub fn check_gates(text: &str) {
    let mut s = Snapshot::default();
    parse_file("pkg/features/kube_features.go", text, &mut s);
    parse_file(
        "staging/src/k8s.io/apiserver/pkg/features/kube_features.go",
        text,
        &mut s,
    );
    let lines = text.lines().count() + 1;
    for g in s.gates.values() {
        assert!(g.keps.len() <= 16, "{g:?}");
        assert!(g.kep_text.as_ref().is_none_or(|t| t.len() <= 259), "{g:?}");
        assert!(
            g.specs.windows(2).all(|w| w[0].minor <= w[1].minor),
            "{g:?}"
        );
    }
    for p in &s.problems {
        assert!(p.line <= lines, "{p:?} in {lines} lines");
    }
    assert!(text.len() <= MAX_FILE_BYTES);
}

const GO: &[&str] = &[
    "package features\n",
    "import (\n",
    "generic \"k8s.io/apiserver/pkg/features\"\n",
    "\"k8s.io/component-base/featuregate\"\n",
    ")\n",
    "const (\n",
    "var x = ",
    "G",
    "H",
    "generic.G",
    " featuregate.Feature",
    " = ",
    "\"G\"",
    "\"H\"",
    "`G`",
    "featuregate.Feature(\"G\")",
    "map[featuregate.Feature]featuregate.VersionedSpecs{",
    "map[featuregate.Feature]featuregate.FeatureSpec{",
    "{",
    "}",
    ": ",
    ", ",
    ";",
    "\n",
    "{Version: version.MustParse(\"1.",
    "33",
    "4294967296",
    "\")",
    "version.MajorMinor(1, 9)",
    "Default: ",
    "true",
    "false",
    "PreRelease: featuregate.",
    "Alpha",
    "Beta",
    "GA",
    "LockToDefault: true",
    "// kep: ",
    "https://kep.k8s.io/",
    "4639",
    "#12, KEP-7 ",
    "// key: ",
    "//",
    "/*",
    "*/",
    "\0",
    "é",
    "\u{202e}",
    "\r",
    "\"\n",
];

fn go_soup() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(GO), 0..120).prop_map(|v| v.concat())
}

const JSON: &[&str] = &[
    "[",
    "]",
    "{",
    "}",
    ",",
    ":",
    "\"number\"",
    "\"title\"",
    "\"labels\"",
    "\"milestone\"",
    "\"state\"",
    "\"url\"",
    "\"name\"",
    "\"tracked/yes\"",
    "\"stage/beta\"",
    "\"lead-opted-in\"",
    "\"v1.36\"",
    "\"OPEN\"",
    "null",
    "true",
    "1",
    "-1",
    "4294967296",
    "1e999",
    "\"\\u0000\"",
    "\"\\ud800\"",
    "\"é\u{202e}\"",
    " ",
    "\n",
    "\"",
    "\\",
];

fn json_soup() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(prop::sample::select(JSON), 0..80).prop_map(|v| v.concat().into_bytes())
}

/// A well-formed issue with generated values: the reader keeps it, and
/// keeps of its labels just those kepsite reads.
fn issue() -> impl Strategy<Value = serde_json::Value> {
    (
        any::<u32>(),
        "\\PC{0,20}",
        prop::collection::vec(
            prop::sample::select(&["lead-opted-in", "tracked/yes", "stage/beta", "sig/node", "x"][..]),
            0..6,
        ),
        prop::option::of("v1\\.[0-9]{1,2}"),
    )
        .prop_map(|(number, title, labels, milestone)| {
            serde_json::json!({
                "number": number, "title": title, "state": "OPEN", "url": "https://x/1",
                "labels": labels.iter().map(|l| serde_json::json!({"name": l, "color": "fff"})).collect::<Vec<_>>(),
                "milestone": milestone.map(|t| serde_json::json!({"title": t})),
            })
        })
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn the_gate_parser_never_panics_and_stays_bounded(text in go_soup()) {
        check_gates(&text);
    }

    #[test]
    fn the_input_file_readers_never_panic_and_name_what_is_wrong(bytes in json_soup()) {
        check_readers(&bytes);
    }

    #[test]
    fn a_well_formed_issues_file_reads_back(list in prop::collection::vec(issue(), 0..8)) {
        let bytes = serde_json::to_vec(&list).unwrap();
        let read = kepsite::team::issues::parse(&bytes).unwrap();
        prop_assert_eq!(read.len(), list.len());
        for (got, want) in read.iter().zip(&list) {
            prop_assert_eq!(u64::from(got.number), want["number"].as_u64().unwrap());
            let kept: Vec<&str> = want["labels"].as_array().unwrap().iter()
                .map(|l| l["name"].as_str().unwrap())
                .filter(|n| *n != "sig/node" && *n != "x")
                .collect();
            let names: Vec<&str> = got.labels.iter().map(|l| l.name.as_str()).collect();
            prop_assert_eq!(names, kept);
        }
    }
}

proptest! {
    // Long Go files: a fortieth of the cases, as the other long inputs.
    #![proptest_config(proptest::test_runner::Config { cases: (cases() / 40).max(8), ..config() })]

    #[test]
    fn long_gate_files_parse_bounded(
        text in prop::collection::vec(prop::sample::select(GO), 0..4000).prop_map(|v| v.concat())
    ) {
        check_gates(&text);
    }
}
