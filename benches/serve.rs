//! `kepsite serve` on the real corpus: clones `../shared/corpus/enhancements.bundle`
//! (or `$KEPSITE_CORPUS`, a bundle or a checkout) into a temp dir and measures
//!
//! - `kepsite build` against the time until `serve` prints its URL;
//! - from writing a README (and a kep.yaml) to the reload signal arriving on
//!   an open long poll (median and worst of several edits);
//! - with `wrk` on the PATH (`apt-get install -y wrk`): 64 connections for
//!   10 s on loopback against a KEP page, printing wrk's latency
//!   distribution (p99) and errors. Without wrk that part is skipped with a note.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_kepsite");

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

    match Command::new("wrk").arg("--version").output() {
        Ok(_) => {
            let url = format!("http://{addr}/keps/2400/");
            let out = Command::new("wrk")
                .args(["-t2", "-c64", "-d10s", "--timeout", "5s", "--latency", &url])
                .output()
                .unwrap();
            println!("wrk -t2 -c64 -d10s --latency {url}");
            println!("{}", String::from_utf8_lossy(&out.stdout));
        }
        Err(_) => println!("wrk not found: load test skipped (apt-get install -y wrk)"),
    }
    let _ = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    let _ = child.wait();
    for l in log.join().unwrap_or_default() {
        println!("  serve: {l}");
    }
}
