//! History walk benchmark on the real corpus: cold walk, warm (cached) walk,
//! incremental walk (cache at HEAD~50) and, for comparison, the git CLI
//! pipeline reading every kep.yaml version.
//!
//! Run with `cargo bench --bench history`; prints the median of 5 runs each.

use std::io::{Read as _, Write as _};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[allow(dead_code)] // each bench uses a part of it
mod support;

use kepsite::repo::history::{HistoryOptions, walk};

const RUNS: usize = 5;

fn git(dir: &Path, args: &[&str]) -> Vec<u8> {
    let out = Command::new("git")
        .current_dir(dir)
        .args(args)
        .output()
        .expect("running git");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// `git log --raw` over kep.yaml files, then every blob through `git cat-file --batch`.
fn git_cli_pipeline(repo: &Path) -> (usize, usize) {
    let log = git(
        repo,
        &[
            "log",
            "--raw",
            "--no-abbrev",
            "--format=C %H %ct",
            "--",
            ":(glob)keps/**/kep.yaml",
        ],
    );
    let log = String::from_utf8_lossy(&log);
    let mut ids = String::new();
    let mut n = 0;
    for line in log.lines().filter(|l| l.starts_with(':')) {
        let mut f = line.split_whitespace();
        let (new, status) = (f.nth(3), f.next());
        if let (Some(new), Some(s)) = (new, status)
            && !s.starts_with('D')
        {
            ids.push_str(new);
            ids.push('\n');
            n += 1;
        }
    }
    let mut child = Command::new("git")
        .current_dir(repo)
        .args(["cat-file", "--batch"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawning git cat-file");
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || stdin.write_all(ids.as_bytes()));
    let mut out = vec![];
    child
        .stdout
        .take()
        .expect("stdout")
        .read_to_end(&mut out)
        .expect("reading");
    writer.join().expect("writer").expect("writing ids");
    assert!(child.wait().expect("git cat-file").success());
    (n, out.len())
}

fn median(mut f: impl FnMut()) -> (Duration, Duration, Duration) {
    let mut times: Vec<Duration> = (0..RUNS)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect();
    times.sort();
    (times[RUNS / 2], times[0], times[RUNS - 1])
}

fn main() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let repo = support::corpus(&support::cache_dir().expect("bench cache")).expect("the corpus");
    let commits = String::from_utf8_lossy(&git(&repo, &["rev-list", "--count", "HEAD"]))
        .trim()
        .to_string();

    let cold_opts = HistoryOptions::default();
    let mut keps = 0;
    let mut changes = 0;
    let cold = median(|| {
        let h = walk(&repo, "HEAD", &cold_opts).expect("cold walk");
        keps = h.keps.len();
        changes = h.keps.values().map(|k| k.changes.len()).sum();
    });

    let warm_opts = HistoryOptions {
        cache_dir: Some(tmp.path().join("warm")),
        progress: false,
    };
    walk(&repo, "HEAD", &warm_opts).expect("priming cache");
    let warm = median(|| {
        walk(&repo, "HEAD", &warm_opts).expect("warm walk");
    });

    let base_dir = tmp.path().join("base");
    let base_opts = HistoryOptions {
        cache_dir: Some(base_dir.clone()),
        progress: false,
    };
    walk(&repo, "HEAD~50", &base_opts).expect("walk to HEAD~50");
    // the cache file's name carries its format's version
    let cache_name = std::fs::read_dir(&base_dir)
        .expect("base cache dir")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name())
        .find(|n| n.to_string_lossy().starts_with("history-"))
        .expect("a history cache file");
    let base_cache = std::fs::read(base_dir.join(&cache_name)).expect("base cache");
    let inc_dir = tmp.path().join("inc");
    std::fs::create_dir_all(&inc_dir).expect("inc dir");
    let inc_opts = HistoryOptions {
        cache_dir: Some(inc_dir.clone()),
        progress: false,
    };
    let mut inc_samples = vec![];
    for _ in 0..RUNS {
        std::fs::write(inc_dir.join(&cache_name), &base_cache).expect("seeding cache");
        let t = Instant::now();
        walk(&repo, "HEAD", &inc_opts).expect("incremental walk");
        inc_samples.push(t.elapsed());
    }
    inc_samples.sort();
    let inc = (inc_samples[RUNS / 2], inc_samples[0], inc_samples[RUNS - 1]);

    let mut blobs = (0, 0);
    let cli = median(|| blobs = git_cli_pipeline(&repo));
    // the anchor: git's own first-parent walk of the same paths,
    // which reads trees only (kepsite also reads each kep.yaml version)
    let first_parent = |extra: &'static [&'static str]| {
        median(|| {
            let mut args = vec![
                "log",
                "--first-parent",
                "--raw",
                "--no-abbrev",
                "--format=%H",
            ];
            args.extend(extra);
            args.extend(["--", "keps/"]);
            git(&repo, &args);
        })
    };
    let log_renames = first_parent(&[]);
    let log_plain = first_parent(&["--no-renames"]);

    println!(
        "history walk, {commits} commits, {keps} KEPs, {changes} recorded changes, {} threads",
        rayon::current_num_threads()
    );
    println!("{:<44} {:>9} {:>9} {:>9}", "case", "median", "min", "max");
    let row = |name: &str, (m, lo, hi): (Duration, Duration, Duration)| {
        println!(
            "{name:<44} {:>7.1}ms {:>7.1}ms {:>7.1}ms",
            ms(m),
            ms(lo),
            ms(hi)
        );
    };
    row("cold walk (no cache)", cold);
    row("warm walk (cache at HEAD)", warm);
    row("incremental (cache at HEAD~50)", inc);
    row(
        &format!("git log --raw + cat-file --batch ({} blobs)", blobs.0),
        cli,
    );
    row("git log --first-parent --raw -- keps/", log_renames);
    row("the same, --no-renames", log_plain);
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
