//! Input files under attack (issue 49): `--issues` (and, through the same
//! reader, the files to come) is read within a size limit, in one pass
//! into what kepsite keeps: over the limit it is refused naming the file
//! and the limit; a file of a million labels costs a few times its size.

use std::path::Path;
use std::process::{Command, Stdio};

use crate::support::{kepsite, test_cache_home};

/// A valid issues file of `issues` issues with `labels` labels each (all
/// but three of them unread by kepsite).
fn issues_file(issues: usize, labels: usize) -> String {
    let mut out = String::from("[");
    for i in 0..issues {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&format!(
            r#"{{"number":{},"title":"t","state":"OPEN","url":"https://github.com/kubernetes/enhancements/issues/{}","milestone":{{"title":"v1.36"}},"labels":[{{"name":"lead-opted-in"}},{{"name":"tracked/yes"}}"#,
            5204 + i,
            5204 + i
        ));
        for l in 0..labels {
            out.push_str(&format!(r#",{{"name":"area/l{l}"}}"#));
        }
        out.push_str("]}");
    }
    out.push(']');
    out
}

/// The peak resident set (bytes) and exit code of kepsite run with `args`.
fn peak(args: &[&str]) -> (u64, i32) {
    let child = Command::new(env!("CARGO_BIN_EXE_kepsite"))
        .args(args)
        .env("XDG_CACHE_HOME", test_cache_home())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = libc::pid_t::try_from(child.id()).unwrap();
    let mut status: libc::c_int = 0;
    // SAFETY: rusage is plain old data, for which all-zero bytes are valid.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: pid is our own unreaped child; both pointers are to live locals.
        if unsafe { libc::wait4(pid, &mut status, 0, &mut usage) } == pid {
            break;
        }
        assert_eq!(
            std::io::Error::last_os_error().kind(),
            std::io::ErrorKind::Interrupted
        );
    }
    drop(child);
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        -1
    };
    (u64::try_from(usage.ru_maxrss).unwrap() * 1024, code)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn an_issues_file_over_the_limit_is_refused_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("issues.json");
    // A sparse file: its size is read, its bytes never are.
    std::fs::File::create(&path)
        .unwrap()
        .set_len(kepsite::team::issues::FILE.limit + 1)
        .unwrap();
    let run = kepsite(&["report", "--release", "v1.36", "--issues", s(&path)]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("the issues file")
            && run
                .stderr
                .contains("issues.json is larger than the limit of 64 MiB"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_million_labels_cost_a_few_times_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("issues.json");
    let text = issues_file(20, 50_000);
    std::fs::write(&path, &text).unwrap();
    let size = text.len() as u64;
    assert!(size > 20 << 20, "{size}");
    let args = ["report", "--release", "v1.36", "--format", "json"];
    let (base, code) = peak(&args);
    assert_eq!(code, 0);
    let mut with = args.to_vec();
    with.extend(["--issues", s(&path)]);
    let (read, code) = peak(&with);
    assert_eq!(code, 0);
    // The file itself, and at most twice its size again: the labels kepsite
    // does not read are dropped as they are read. (A serde_json::Value of
    // it was 50 times the file.)
    assert!(
        read < base + 3 * size,
        "peak {read} with a {size}-byte file, {base} without"
    );
    let run = kepsite(&with);
    let r: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let row = crate::support::report_rows(&r)
        .into_iter()
        .find(|r| r["number"] == 5204)
        .unwrap();
    assert_eq!(row["issue"]["tracked"], "yes", "{row}");
}

#[test]
fn issue_links_go_only_to_the_repository_s_host() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("issues.json");
    let mut text = issues_file(3, 0);
    text = text
        .replacen(
            "https://github.com/kubernetes/enhancements/issues/5204",
            "https://evil.example/5204",
            1,
        )
        .replacen(
            "https://github.com/kubernetes/enhancements/issues/5205",
            "javascript:alert(1)",
            1,
        )
        .replacen(
            "https://github.com/kubernetes/enhancements/issues/5206",
            "https://github.com/kubernetes/enhancements/issues/5206#x)",
            1,
        );
    std::fs::write(&path, &text).unwrap();
    let run = kepsite(&[
        "report",
        "--release",
        "v1.36",
        "--format",
        "json",
        "--issues",
        s(&path),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!run.stdout.contains("evil.example") && !run.stdout.contains("javascript:"));
    let md = kepsite(&["report", "--release", "v1.36", "--issues", s(&path)]);
    assert!(!md.stdout.contains("evil.example") && !md.stdout.contains("javascript:"));
    assert!(!md.stdout.contains("#x)"), "a ) is encoded in a link");
}
