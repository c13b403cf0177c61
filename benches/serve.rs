//! `kepsite serve` under load and abuse, then on the real corpus.
//!
//! First, on a copy of `content/` (loopback only, bounded loops; see
//! `load/mod.rs`): sequential small GETs, 16 connections at once, and normal
//! GETs during 2,100 slow-header connections and 8 slow readers, for this
//! kepsite and, with `KEPSITE_SERVE_REFERENCE=/path/to/another/kepsite`, a
//! reference binary side by side (e.g. one built from an earlier commit).
//!
//! Then it clones `../shared/corpus/enhancements.bundle`
//! (or `$KEPSITE_CORPUS`, a bundle or a checkout) into a temp dir and measures
//!
//! - `kepsite build` against the time until `serve` prints its URL;
//! - from writing a README (and a kep.yaml) to the reload signal arriving on
//!   an open long poll (median and worst of several edits);

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

#[path = "load/mod.rs"]
mod load;

const BIN: &str = env!("CARGO_BIN_EXE_kepsite");

/// The load and abuse figures of this kepsite (and the reference binary).
fn load_figures() {
    load::raise_fd_limit();
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("content");
    let copied = Command::new("cp")
        .arg("-r")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("content"))
        .arg(&repo)
        .status()
        .is_ok_and(|s| s.success());
    assert!(copied, "copying content/");
    // The largest file of the site: the diagram script (3.5 MB).
    let out = tmp.path().join("site");
    let ok = Command::new(BIN)
        .args(["build", "--repo"])
        .arg(&repo)
        .arg("--out")
        .arg(&out)
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "building content/");
    let big = std::fs::read_dir(out.join("static/immutable"))
        .unwrap()
        .filter_map(Result::ok)
        .max_by_key(|e| e.metadata().map(|m| m.len()).unwrap_or(0))
        .map(|e| format!("/static/immutable/{}", e.file_name().to_string_lossy()))
        .unwrap();
    let small = "/static/favicon.svg";
    let mut rows = vec![load::measure(
        "kepsite (hyper)",
        Path::new(BIN),
        &repo,
        small,
        &big,
    )];
    if let Ok(reference) = std::env::var("KEPSITE_SERVE_REFERENCE") {
        rows.push(load::measure(
            &format!("reference: {reference}"),
            Path::new(&reference),
            &repo,
            small,
            &big,
        ));
    }
    println!("serve under load on loopback (content/, small file {small}, slow readers on {big}):");
    println!("{}", load::table(&rows));
}

fn corpus(tmp: &Path) -> Option<PathBuf> {
    let src = std::env::var("KEPSITE_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|_| {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/enhancements.bundle")
        });
    let dest = tmp.join("enhancements");
    let ok = Command::new("git")
        .args(["clone", "--quiet"])
        .arg(&src)
        .arg(&dest)
        .status()
        .is_ok_and(|s| s.success());
    ok.then_some(dest)
}

fn get(addr: &str, target: &str) -> Vec<u8> {
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    write!(
        s,
        "GET {target} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    let at = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap_or(0);
    raw[at + 4..].to_vec()
}

fn generation(addr: &str) -> u64 {
    let v: serde_json::Value = serde_json::from_slice(&get(addr, "/__kepsite/events")).unwrap();
    v["generation"].as_u64().unwrap()
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// Write `text` to `path` while a poll is parked; the times until each of
/// the next `signals` reload signals arrive.
fn edit_to_signals(addr: &str, path: &Path, text: &str, signals: usize) -> Vec<Duration> {
    let mut since = generation(addr);
    let (tx, rx) = mpsc::channel();
    let a = addr.to_string();
    std::thread::spawn(move || {
        for _ in 0..signals {
            let body = get(&a, &format!("/__kepsite/events?since={since}"));
            let v: serde_json::Value = serde_json::from_slice(&body).unwrap();
            let g = v["generation"].as_u64().unwrap();
            assert!(g > since, "no change signalled");
            since = g;
            let _ = tx.send(Instant::now());
        }
    });
    std::thread::sleep(Duration::from_millis(150));
    let t = Instant::now();
    std::fs::write(path, text).unwrap();
    (0..signals)
        .map(|_| rx.recv_timeout(Duration::from_secs(60)).expect("a signal") - t)
        .collect()
}

fn main() {
    load_figures();
    if std::env::var_os("KEPSITE_SERVE_LOAD_ONLY").is_some() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let Some(root) = corpus(tmp.path()) else {
        eprintln!("corpus not found; set KEPSITE_CORPUS");
        return;
    };
    let out = tmp.path().join("public");
    let mut builds = Vec::new();
    for _ in 0..3 {
        let t = Instant::now();
        let ok = Command::new(BIN)
            .args(["build", "--repo"])
            .arg(&root)
            .arg("--out")
            .arg(&out)
            .stderr(Stdio::null())
            .status()
            .unwrap()
            .success();
        assert!(ok);
        builds.push(t.elapsed());
    }
    println!("kepsite build (median of 3): {:?}", median(builds));

    let t = Instant::now();
    let mut child = Command::new(BIN)
        .args(["serve", "--port", "0", "--repo"])
        .arg(&root)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    let stderr = child.stderr.take().unwrap();
    let log = std::thread::spawn(move || {
        BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
            .filter(|l| l.starts_with("rebuilt") || l.starts_with("updated"))
            .collect::<Vec<_>>()
    });
    let mut addr = String::new();
    for line in stdout.lines() {
        let line = line.unwrap();
        if let Some(u) = line.split_whitespace().find(|w| w.starts_with("http://")) {
            addr = u
                .trim_start_matches("http://")
                .trim_end_matches('/')
                .to_string();
            break;
        }
    }
    println!(
        "serve: first build ready (URL printed) in {:?}",
        t.elapsed()
    );

    let readmes = [
        "keps/sig-node/2400-node-swap/README.md",
        "keps/sig-storage/1979-object-storage-support/README.md",
        "keps/sig-apps/961-maxunavailable-for-statefulset/README.md",
    ];
    let mut first = Vec::new();
    let mut complete = Vec::new();
    for i in 0..9 {
        let p = root.join(readmes[i % readmes.len()]);
        let mut text = std::fs::read_to_string(&p).unwrap();
        text.push_str(&format!(
            "\nBenchmark paragraph {i} about kubeletbench{i}.\n"
        ));
        // The page's own signal, then the one for listings and search.
        let t = edit_to_signals(&addr, &p, &text, 2);
        first.push(t[0]);
        complete.push(t[1]);
    }
    println!(
        "README save → reload signal of its page: median {:?}, worst {:?} ({} edits)",
        median(first.clone()),
        first.iter().max().unwrap(),
        first.len()
    );
    println!(
        "README save → listings and search updated: median {:?}, worst {:?}",
        median(complete.clone()),
        complete.iter().max().unwrap()
    );
    let yaml = root.join("keps/sig-node/2400-node-swap/kep.yaml");
    let original = std::fs::read_to_string(&yaml).unwrap();
    let mut ytimes = Vec::new();
    for i in 0..5 {
        let text = original.replacen("title: ", &format!("title: Bench {i} "), 1);
        ytimes.push(edit_to_signals(&addr, &yaml, &text, 1)[0]);
    }
    println!(
        "kep.yaml save → reload signal (every page re-planned): median {:?}",
        median(ytimes)
    );

    let _ = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    let _ = child.wait();
    for l in log.join().unwrap_or_default() {
        println!("  serve: {l}");
    }
}
