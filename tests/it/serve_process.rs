//! A `kepsite serve` child process on an ephemeral port against a temp copy
//! of `content/`, for the serve tests and the browser tests.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::support::content_copy;

/// A running `kepsite serve`, killed when dropped.
pub(crate) struct Serve {
    pub(crate) child: Child,
    pub(crate) addr: String,
    pub(crate) log: mpsc::Receiver<String>,
    /// Lines read but not yet matched by a wait.
    pub(crate) backlog: Vec<String>,
    _dir: tempfile::TempDir,
    pub(crate) root: PathBuf,
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub(crate) fn start(extra: &[&str]) -> Serve {
    let (dir, root) = content_copy();
    start_in(dir, root, extra)
}

pub(crate) fn start_in(dir: tempfile::TempDir, root: PathBuf, extra: &[&str]) -> Serve {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kepsite"))
        .arg("serve")
        .arg("--repo")
        .arg(&root)
        .args(["--port", "0"])
        .args(extra)
        .env("NO_COLOR", "1")
        .env("XDG_CACHE_HOME", crate::support::test_cache_home())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starting kepsite serve");
    let (tx, log) = mpsc::channel();
    for stream in [
        Box::new(child.stdout.take().unwrap()) as Box<dyn Read + Send>,
        Box::new(child.stderr.take().unwrap()),
    ] {
        let tx = tx.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stream).lines() {
                let Ok(line) = line else { return };
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
    }
    let mut serve = Serve {
        child,
        addr: String::new(),
        log,
        backlog: Vec::new(),
        _dir: dir,
        root,
    };
    let line = serve.wait_log(|l| l.contains("http://"), Duration::from_secs(120));
    let url = line
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .unwrap();
    serve.addr = url
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_string();
    serve
}

impl Serve {
    /// Wait for a log line (stdout or stderr) matching `pred`, returning it.
    pub(crate) fn wait_log(&mut self, pred: impl Fn(&str) -> bool, limit: Duration) -> String {
        if let Some(i) = self.backlog.iter().position(|l| pred(l)) {
            return self.backlog.remove(i);
        }
        let end = Instant::now() + limit;
        loop {
            let left = end.saturating_duration_since(Instant::now());
            match self.log.recv_timeout(left) {
                Ok(l) if pred(&l) => return l,
                Ok(l) => self.backlog.push(l),
                Err(_) => panic!("no matching log line; saw:\n{}", self.backlog.join("\n")),
            }
        }
    }

    pub(crate) fn expect_log(&mut self, what: &str) {
        self.wait_log(|l| l.contains(what), Duration::from_secs(30));
    }

    pub(crate) fn get(&self, target: &str) -> Reply {
        request(&self.addr, "GET", target, &[])
    }

    pub(crate) fn generation(&self) -> u64 {
        let r = self.get("/__kepsite/events");
        let v: serde_json::Value = serde_json::from_slice(&r.body).unwrap();
        v["generation"].as_u64().unwrap()
    }

    /// Open a long poll for the next change after `since`; the reply comes on the channel.
    pub(crate) fn poll(&self, since: u64) -> mpsc::Receiver<serde_json::Value> {
        let (tx, rx) = mpsc::channel();
        let addr = self.addr.clone();
        std::thread::spawn(move || {
            let r = request(
                &addr,
                "GET",
                &format!("/__kepsite/events?since={since}"),
                &[],
            );
            let _ = tx.send(serde_json::from_slice(&r.body).unwrap_or_default());
        });
        rx
    }

    /// Write a file under the repository, then wait for the reload signal.
    pub(crate) fn edit_and_wait(&self, rel: &str, text: &str) -> serde_json::Value {
        let since = self.generation();
        let rx = self.poll(since);
        std::thread::sleep(Duration::from_millis(100)); // let the poll park
        std::fs::write(self.root.join(rel), text).unwrap();
        let v = rx
            .recv_timeout(Duration::from_secs(60))
            .expect("a reload signal after the edit");
        assert!(v["generation"].as_u64().unwrap() > since, "{v}");
        v
    }
}

/// A response: status, headers and body (dechunked).
pub(crate) struct Reply {
    pub(crate) status: u16,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) body: Vec<u8>,
}

impl Reply {
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
    pub(crate) fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// One HTTP/1.1 request over a fresh connection, the target sent verbatim.
pub(crate) fn request(addr: &str, method: &str, target: &str, headers: &[(&str, &str)]) -> Reply {
    request_as(addr, addr, method, target, headers)
}

/// [`request`] with the `Host` header `host`.
pub(crate) fn request_as(
    addr: &str,
    host: &str,
    method: &str,
    target: &str,
    headers: &[(&str, &str)],
) -> Reply {
    let mut s = TcpStream::connect(addr).expect("connecting");
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let mut req = format!("{method} {target} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n");
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    s.write_all(req.as_bytes()).unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a complete response head");
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|c| c.parse().ok())
        .expect("a status line");
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect();
    let mut body = raw[split + 4..].to_vec();
    let chunked = headers.iter().any(|(k, v)| {
        k.eq_ignore_ascii_case("transfer-encoding") && v.eq_ignore_ascii_case("chunked")
    });
    if chunked {
        body = dechunk(&body);
    }
    Reply {
        status,
        headers,
        body,
    }
}

pub(crate) fn dechunk(mut b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let Some(eol) = b.windows(2).position(|w| w == b"\r\n") else {
            return out;
        };
        let size =
            usize::from_str_radix(std::str::from_utf8(&b[..eol]).unwrap().trim(), 16).unwrap_or(0);
        if size == 0 {
            return out;
        }
        out.extend_from_slice(&b[eol + 2..eol + 2 + size]);
        b = &b[eol + 2 + size + 2..];
    }
}
