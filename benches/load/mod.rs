//! Load and abuse on loopback for `kepsite serve`, with std sockets only and
//! bounded loops: small GETs one after another on one connection (kept alive
//! when the server allows it), 16 connections at once with a new connection
//! per request, and normal GETs while 2,100 connections send their request
//! head a byte at a time and 8 clients never read a 3.5 MB script.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// What one server did.
pub struct Figures {
    pub label: String,
    pub seq_p50: Duration,
    pub seq_p99: Duration,
    pub seq_rps: f64,
    pub conc_rps: f64,
    pub conc_p50: Duration,
    pub conc_p99: Duration,
    pub conc_errors: usize,
    pub abuse_ok: usize,
    pub abuse_total: usize,
    pub abuse_p50: Duration,
    pub abuse_p99: Duration,
    pub slow_opened: usize,
}

/// A `kepsite serve` child on an ephemeral port, killed when dropped.
struct Serve {
    child: Child,
    addr: String,
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(bin: &Path, repo: &Path) -> Serve {
    let mut child = Command::new(bin)
        .args(["serve", "--port", "0", "--repo"])
        .arg(repo)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starting kepsite serve");
    let (tx, rx) = std::sync::mpsc::channel();
    for stream in [
        Box::new(child.stdout.take().unwrap()) as Box<dyn Read + Send>,
        Box::new(child.stderr.take().unwrap()),
    ] {
        let tx = tx.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stream).lines().map_while(Result::ok) {
                if let Some(u) = line.split_whitespace().find(|w| w.starts_with("http://")) {
                    let _ = tx.send(
                        u.trim_start_matches("http://")
                            .trim_end_matches('/')
                            .to_string(),
                    );
                }
            }
        });
    }
    let addr = rx
        .recv_timeout(Duration::from_secs(120))
        .expect("serve printed its URL");
    Serve { child, addr }
}

/// One GET on `stream`; the status and whether the connection stays open.
fn get(
    stream: &mut TcpStream,
    addr: &str,
    target: &str,
    close: bool,
) -> std::io::Result<(u16, bool)> {
    let connection = if close { "close" } else { "keep-alive" };
    write!(
        stream,
        "GET {target} HTTP/1.1\r\nHost: {addr}\r\nConnection: {connection}\r\n\r\n"
    )?;
    let mut head = Vec::with_capacity(512);
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        if stream.read(&mut byte)? == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        head.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&head).to_ascii_lowercase();
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let length = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse::<usize>().ok());
    let closes = close || head.contains("connection: close");
    match length {
        Some(n) => {
            let mut body = vec![0u8; n];
            stream.read_exact(&mut body)?;
        }
        None => {
            let mut rest = Vec::new();
            stream.read_to_end(&mut rest)?;
            return Ok((status, false));
        }
    }
    Ok((status, !closes))
}

fn connect(addr: &str) -> std::io::Result<TcpStream> {
    let s = TcpStream::connect(addr)?;
    s.set_read_timeout(Some(Duration::from_secs(5)))?;
    s.set_write_timeout(Some(Duration::from_secs(5)))?;
    s.set_nodelay(true)?;
    Ok(s)
}

fn percentile(v: &mut [Duration], p: f64) -> Duration {
    if v.is_empty() {
        return Duration::ZERO;
    }
    v.sort();
    v[((v.len() - 1) as f64 * p).round() as usize]
}

/// `n` GETs one after another, on one connection while the server keeps it.
fn sequential(addr: &str, target: &str, n: usize) -> (Vec<Duration>, f64) {
    let mut times = Vec::with_capacity(n);
    let mut stream: Option<TcpStream> = None;
    let all = Instant::now();
    for _ in 0..n {
        let t = Instant::now();
        let mut s = match stream.take() {
            Some(s) => s,
            None => connect(addr).expect("connect"),
        };
        if let Ok((200, open)) = get(&mut s, addr, target, false) {
            times.push(t.elapsed());
            if open {
                stream = Some(s);
            }
        }
    }
    let rps = times.len() as f64 / all.elapsed().as_secs_f64();
    (times, rps)
}

/// 16 threads, each a new connection per GET, for `secs`.
fn concurrent(addr: &str, target: &str, secs: u64) -> (Vec<Duration>, f64, usize) {
    let end = Instant::now() + Duration::from_secs(secs);
    let threads: Vec<_> = (0..16)
        .map(|_| {
            let (addr, target) = (addr.to_string(), target.to_string());
            std::thread::spawn(move || {
                let (mut times, mut errors) = (Vec::new(), 0);
                while Instant::now() < end {
                    let t = Instant::now();
                    match connect(&addr).and_then(|mut s| get(&mut s, &addr, &target, true)) {
                        Ok((200, _)) => times.push(t.elapsed()),
                        _ => errors += 1,
                    }
                }
                (times, errors)
            })
        })
        .collect();
    let started = Instant::now();
    let (mut times, mut errors) = (Vec::new(), 0);
    for t in threads {
        let (t, e) = t.join().unwrap();
        times.extend(t);
        errors += e;
    }
    let rps = times.len() as f64 / started.elapsed().as_secs_f64().max(secs as f64);
    (times, rps, errors)
}

/// Normal GETs while 2,100 connections trickle their head and 8 never read
/// `big`: how many of `n` are answered, and how fast.
fn under_abuse(addr: &str, target: &str, big: &str, n: usize) -> (Vec<Duration>, usize, usize) {
    let mut slow = Vec::new();
    for _ in 0..2100 {
        match TcpStream::connect(addr) {
            Ok(mut s) => {
                let _ = s.set_write_timeout(Some(Duration::from_millis(200)));
                let _ = s.write_all(b"GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ");
                slow.push(s);
            }
            Err(_) => break,
        }
    }
    let opened = slow.len();
    let readers: Vec<TcpStream> = (0..8)
        .filter_map(|_| {
            let mut s = TcpStream::connect(addr).ok()?;
            write!(s, "GET {big} HTTP/1.1\r\nHost: {addr}\r\n\r\n").ok()?;
            Some(s) // never read
        })
        .collect();
    let stop = Arc::new(AtomicBool::new(false));
    let trickle = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            // One byte per connection every 2 s, for at most 20 s.
            let end = Instant::now() + Duration::from_secs(20);
            while !stop.load(Ordering::SeqCst) && Instant::now() < end {
                for s in &mut slow {
                    let _ = s.write_all(b"a");
                }
                for _ in 0..20 {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    std::thread::sleep(Duration::from_millis(100));
                }
            }
            drop(slow);
        })
    };
    std::thread::sleep(Duration::from_millis(500));
    let mut times = Vec::new();
    for _ in 0..n {
        let t = Instant::now();
        if let Ok((200, _)) = connect(addr).and_then(|mut s| get(&mut s, addr, target, true)) {
            times.push(t.elapsed());
        }
    }
    stop.store(true, Ordering::SeqCst);
    let _ = trickle.join();
    drop(readers);
    (times, opened, n)
}

/// Raise the open-file limit to its hard limit (the abuse opens ~2,100
/// sockets here and as many in the server, which inherits it).
pub fn raise_fd_limit() {
    #[cfg(unix)]
    unsafe {
        let mut l = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut l) == 0 {
            l.rlim_cur = l.rlim_max.min(65_536);
            libc::setrlimit(libc::RLIMIT_NOFILE, &l);
        }
    }
}

/// Every figure for the serve binary `bin` on `repo`; `big` is a large
/// file's path on the site.
pub fn measure(label: &str, bin: &Path, repo: &Path, small: &str, big: &str) -> Figures {
    let serve = start(bin, repo);
    let addr = serve.addr.clone();
    let (mut seq, seq_rps) = sequential(&addr, small, 2000);
    let (mut conc, conc_rps, conc_errors) = concurrent(&addr, small, 5);
    // Let the closed connections of the last phase drain.
    std::thread::sleep(Duration::from_secs(1));
    let (mut abuse, slow_opened, abuse_total) = under_abuse(&addr, small, big, 200);
    Figures {
        label: label.to_string(),
        seq_p50: percentile(&mut seq, 0.5),
        seq_p99: percentile(&mut seq, 0.99),
        seq_rps,
        conc_rps,
        conc_p50: percentile(&mut conc, 0.5),
        conc_p99: percentile(&mut conc, 0.99),
        conc_errors,
        abuse_ok: abuse.len(),
        abuse_total,
        abuse_p50: percentile(&mut abuse, 0.5),
        abuse_p99: percentile(&mut abuse, 0.99),
        slow_opened,
    }
}

/// The figures as a Markdown table, one row per server.
pub fn table(rows: &[Figures]) -> String {
    let ms = |d: Duration| format!("{:.2} ms", d.as_secs_f64() * 1000.0);
    let mut out = String::from(
        "| server | sequential GETs, one connection: p50 / p99 (req/s) | 16 connections, new per GET: req/s (p50 / p99, errors) | during 2,100 slow heads + 8 slow readers: answered (p50 / p99) |\n|---|---|---|---|\n",
    );
    for f in rows {
        out.push_str(&format!(
            "| {} | {} / {} ({:.0}) | {:.0} ({} / {}, {}) | {}/{} ({} / {}; {} slow connections opened) |\n",
            f.label,
            ms(f.seq_p50),
            ms(f.seq_p99),
            f.seq_rps,
            f.conc_rps,
            ms(f.conc_p50),
            ms(f.conc_p99),
            f.conc_errors,
            f.abuse_ok,
            f.abuse_total,
            ms(f.abuse_p50),
            ms(f.abuse_p99),
            f.slow_opened,
        ));
    }
    out
}
