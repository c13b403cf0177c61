//! The HTTP side of `serve`: a [`Site`] snapshot in memory → responses, from
//! tiny_http and a small pool of worker threads.
//!
//! - Files come from the in-memory map, never from disk. Request targets are
//!   still checked ([`resolve`]): `..` and `.` segments, encoded slashes and
//!   dots, backslashes, control bytes and NUL, empty segments and
//!   absolute-form targets are 400; dotfiles are 404.
//! - `ETag` / `If-None-Match` → 304, `HEAD` (tiny_http omits the body), the
//!   site's own 404 page, `Cache-Control: no-cache` so every view revalidates.
//! - HTML pages get the live-reload script, and the problem overlay when
//!   there are problems, injected at response time: neither is ever in the
//!   site itself, so `kepsite build` output has neither.
//! - `/__kepsite/events?since=N` is a long poll: it answers at once when the
//!   site is past generation `N`, else parks the request (holding no worker
//!   thread) until the next change or 25 s. The answer lists the paths that
//!   changed, so a page reloads only when it changed itself, the problems
//!   changed, or a script did; stylesheets are swapped in place.

use std::collections::HashMap;
use std::io::Cursor;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, RwLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow};
use tiny_http::{Header, Method, Request, Response, StatusCode};

use super::state::{Entry, Problem};

/// The reload endpoint.
pub const EVENTS: &str = "__kepsite/events";
/// How long a long poll waits before answering "no change".
const POLL_TIMEOUT: Duration = Duration::from_secs(25);
/// Parked polls beyond this get 503 (the script retries a second later).
const MAX_PARKED: usize = 512;

/// One version of the site, as served.
#[derive(Debug, Default)]
pub struct Site {
    /// Increases with every visible change; pages reload when it moves.
    pub generation: u64,
    /// Output path → file.
    pub files: HashMap<String, Arc<Entry>>,
    /// Shown as an overlay on every page while not empty.
    pub problems: Vec<Problem>,
    /// Whether the change to this generation touched only stylesheets.
    pub css_only: bool,
    /// Output paths that changed since the previous generation.
    pub changed: Vec<String>,
    /// Whether the problems changed since the previous generation.
    pub problems_changed: bool,
}

struct Parked {
    request: Request,
    since: u64,
    deadline: Instant,
}

struct Shared {
    site: RwLock<Arc<Site>>,
    polls: Mutex<Vec<Parked>>,
    wake: Condvar,
    stop: AtomicBool,
}

impl Shared {
    fn site(&self) -> Arc<Site> {
        self.site
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    fn polls(&self) -> std::sync::MutexGuard<'_, Vec<Parked>> {
        self.polls
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// A running server.
pub struct Server {
    shared: Arc<Shared>,
    threads: Vec<JoinHandle<()>>,
    addr: SocketAddr,
    _http: Arc<tiny_http::Server>,
}

impl Server {
    /// Listen on `addr` (port 0 picks a free port) and serve `site` with
    /// `workers` threads.
    pub fn start(addr: SocketAddr, mut site: Site, workers: usize) -> Result<Server> {
        let http = tiny_http::Server::from_listener(listener(addr)?, None)
            .map_err(|e| anyhow!("listening on {addr}: {e}"))?;
        let addr = http
            .server_addr()
            .to_ip()
            .ok_or_else(|| anyhow!("listening on {addr}: not an IP address"))?;
        let http = Arc::new(http);
        site.generation = site.generation.max(1);
        let shared = Arc::new(Shared {
            site: RwLock::new(Arc::new(site)),
            polls: Mutex::new(Vec::new()),
            wake: Condvar::new(),
            stop: AtomicBool::new(false),
        });
        let mut threads = Vec::new();
        for i in 0..workers.max(1) {
            let (http, shared) = (http.clone(), shared.clone());
            threads.push(
                std::thread::Builder::new()
                    .name(format!("kepsite-http-{i}"))
                    .spawn(move || worker(&http, &shared))?,
            );
        }
        let s = shared.clone();
        threads.push(
            std::thread::Builder::new()
                .name("kepsite-events".into())
                .spawn(move || notifier(&s))?,
        );
        Ok(Server {
            shared,
            threads,
            addr,
            _http: http,
        })
    }

    /// The address actually bound.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The current generation.
    pub fn generation(&self) -> u64 {
        self.shared.site().generation
    }

    /// Serve a new version of the site, in which `changed` (output paths)
    /// changed, and wake the open pages.
    pub fn publish(
        &self,
        files: HashMap<String, Arc<Entry>>,
        problems: Vec<Problem>,
        changed: Vec<String>,
    ) -> u64 {
        let generation = {
            let mut site = self
                .shared
                .site
                .write()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            let generation = site.generation + 1;
            let problems_changed = site.problems != problems;
            let css_only = !problems_changed
                && !changed.is_empty()
                && changed.iter().all(|f| f.ends_with(".css"));
            *site = Arc::new(Site {
                generation,
                files,
                problems,
                css_only,
                changed,
                problems_changed,
            });
            generation
        };
        let _polls = self.shared.polls();
        self.shared.wake.notify_all();
        generation
    }

    /// Stop: answer parked polls, stop the workers, close the socket.
    pub fn shutdown(self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        {
            let _polls = self.shared.polls();
            self.shared.wake.notify_all();
        }
        for t in self.threads {
            let _ = t.join();
        }
    }
}

/// A listening socket with `TCP_NODELAY`, which the connections accepted
/// from it inherit (on Linux): tiny_http writes the head and the body of a
/// response separately, and with Nagle's algorithm the last segment of the
/// body waits for the client's delayed ACK (~40 ms).
fn listener(addr: SocketAddr) -> Result<std::net::TcpListener> {
    use socket2::{Domain, Socket, Type};
    let socket = Socket::new(Domain::for_address(addr), Type::STREAM, None)
        .with_context(|| format!("creating a socket for {addr}"))?;
    #[cfg(unix)]
    socket.set_reuse_address(true)?;
    socket.set_tcp_nodelay(true)?;
    socket
        .bind(&addr.into())
        .with_context(|| format!("listening on {addr}"))?;
    socket
        .listen(1024)
        .with_context(|| format!("listening on {addr}"))?;
    Ok(socket.into())
}

fn worker(http: &tiny_http::Server, shared: &Shared) {
    while !shared.stop.load(Ordering::SeqCst) {
        if let Ok(Some(request)) = http.recv_timeout(Duration::from_millis(200)) {
            handle(request, shared);
        }
    }
}

/// Answer parked polls when the generation moves, their time is up, or the
/// server stops. The generation is read under the polls lock, and
/// [`Server::publish`] notifies under it, so no change is missed.
fn notifier(shared: &Shared) {
    let mut polls = shared.polls();
    loop {
        let site = shared.site();
        let stop = shared.stop.load(Ordering::SeqCst);
        let now = Instant::now();
        let (ready, waiting): (Vec<Parked>, Vec<Parked>) = polls
            .drain(..)
            .partition(|p| stop || p.since != site.generation || now >= p.deadline);
        *polls = waiting;
        if !ready.is_empty() {
            drop(polls);
            for p in ready {
                let _ = p.request.respond(events_response(&site, p.since));
            }
            polls = shared.polls();
            continue;
        }
        if stop {
            return;
        }
        polls = shared
            .wake
            .wait_timeout(polls, Duration::from_secs(1))
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .0;
    }
}

/// Where a request target leads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// The reload long poll, with the generation the page has.
    Events(Option<u64>),
    /// A site path (no leading `/`); `dir` when it named a directory (`/` or `…/`).
    Path {
        /// The key in the site map, `index.html` appended for directories.
        key: String,
        /// Whether the target ended in `/`.
        dir: bool,
        /// The query string, with its `?`, or empty.
        query: String,
    },
}

/// Why a request target is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// 400: a malformed or escaping target.
    BadRequest,
    /// 404: a hidden path.
    NotFound,
}

fn hex(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

fn percent_decode(s: &str) -> Option<Vec<u8>> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hi = hex(*b.get(i + 1)?)?;
            let lo = hex(*b.get(i + 2)?)?;
            out.push(hi << 4 | lo);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    Some(out)
}

/// Check and normalise a request target (`/keps/1480/?q=x`).
pub fn resolve(target: &str) -> Result<Target, Refusal> {
    let (path, query) = match target.find('?') {
        Some(i) => (&target[..i], &target[i..]),
        None => (target, ""),
    };
    let path = path.split('#').next().unwrap_or_default();
    let Some(rest) = path.strip_prefix('/') else {
        return Err(Refusal::BadRequest); // absolute-form, `*`, or relative
    };
    if path
        .bytes()
        .any(|b| b == b'\\' || b < 0x20 || b == 0x7f || b == b' ')
    {
        return Err(Refusal::BadRequest);
    }
    let segments: Vec<&str> = rest.split('/').collect();
    let mut parts: Vec<String> = Vec::with_capacity(segments.len());
    let mut hidden = false;
    for (i, seg) in segments.iter().enumerate() {
        if seg.is_empty() {
            if i + 1 == segments.len() {
                continue; // the trailing slash of a directory
            }
            return Err(Refusal::BadRequest); // `//`: an absolute path in disguise
        }
        let decoded = percent_decode(seg).ok_or(Refusal::BadRequest)?;
        if decoded
            .iter()
            .any(|&b| b == b'/' || b == b'\\' || b < 0x20 || b == 0x7f)
        {
            return Err(Refusal::BadRequest);
        }
        let decoded = String::from_utf8(decoded).map_err(|_| Refusal::BadRequest)?;
        if decoded == "." || decoded == ".." {
            return Err(Refusal::BadRequest);
        }
        hidden |= decoded.starts_with('.');
        parts.push(decoded);
    }
    if hidden {
        return Err(Refusal::NotFound);
    }
    let joined = parts.join("/");
    if joined == EVENTS {
        let since = query
            .trim_start_matches('?')
            .split('&')
            .find_map(|kv| kv.strip_prefix("since="))
            .and_then(|v| v.parse().ok());
        return Ok(Target::Events(since));
    }
    let dir = rest.is_empty() || rest.ends_with('/');
    let key = match (dir, joined.is_empty()) {
        (true, true) => "index.html".to_string(),
        (true, false) => format!("{joined}/index.html"),
        (false, _) => joined,
    };
    Ok(Target::Path {
        key,
        dir,
        query: query.to_string(),
    })
}

/// A header; `None` when `value` cannot be one (never a panic on a request).
fn header(name: &str, value: &str) -> Option<Header> {
    Header::from_bytes(name.as_bytes(), value.as_bytes()).ok()
}

/// The headers of `pairs` that can be headers.
fn headers<const N: usize>(pairs: [(&str, &str); N]) -> Vec<Header> {
    pairs
        .into_iter()
        .filter_map(|(name, value)| header(name, value))
        .collect()
}

/// A redirect's `Location` for site key `key` (decoded, any characters) and
/// the request's raw `query`: percent-encoded to printable ASCII.
fn location(key: &str, query: &str) -> String {
    let mut out = String::from("/");
    let keep_key = |b: u8| b.is_ascii_alphanumeric() || b"-._~/!$&'()*+,;=:@".contains(&b);
    let keep_query = |b: u8| b.is_ascii_graphic() && !b"\"<>\\^`{|}".contains(&b);
    for (text, keep) in [
        (key, &keep_key as &dyn Fn(u8) -> bool),
        (query, &keep_query),
    ] {
        for &b in text.as_bytes() {
            if keep(b) {
                out.push(b as char);
            } else {
                out.push_str(&format!("%{b:02X}"));
            }
        }
        out.push('/');
    }
    out.pop();
    out
}

/// A response body: shared bytes or an owned (injected) copy.
enum Body {
    Shared(Arc<Entry>),
    Owned(Vec<u8>),
}

impl AsRef<[u8]> for Body {
    fn as_ref(&self) -> &[u8] {
        match self {
            Body::Shared(e) => &e.bytes,
            Body::Owned(v) => v,
        }
    }
}

fn response(status: u16, headers: Vec<Header>, body: Body) -> Response<Cursor<Body>> {
    let len = body.as_ref().len();
    Response::new(
        StatusCode(status),
        headers,
        Cursor::new(body),
        Some(len),
        None,
    )
}

fn plain(status: u16, text: &str) -> Response<Cursor<Body>> {
    response(
        status,
        headers([
            ("Content-Type", "text/plain; charset=utf-8"),
            ("X-Content-Type-Options", "nosniff"),
        ]),
        Body::Owned(text.as_bytes().to_vec()),
    )
}

fn handle(request: Request, shared: &Shared) {
    let response = match request.method() {
        Method::Get | Method::Head => None,
        _ => {
            let mut r = plain(405, "method not allowed\n");
            if let Some(h) = header("Allow", "GET, HEAD") {
                r.add_header(h);
            }
            Some(r)
        }
    };
    if let Some(r) = response {
        let _ = request.respond(r);
        return;
    }
    let target = resolve(request.url());
    let site = shared.site();
    let response = match target {
        Err(Refusal::BadRequest) => plain(400, "bad request\n"),
        Err(Refusal::NotFound) => not_found(&site),
        Ok(Target::Events(since)) => {
            let Some(since) = since.filter(|s| *s == site.generation) else {
                let since = since.unwrap_or(site.generation);
                let _ = request.respond(events_response(&site, since));
                return;
            };
            let mut polls = shared.polls();
            // Re-read under the lock: a publish in between must not be missed.
            let now = shared.site();
            if now.generation != since || polls.len() >= MAX_PARKED {
                drop(polls);
                let r = if now.generation != since {
                    events_response(&now, since)
                } else {
                    let mut r = plain(503, "too many open pages\n");
                    if let Some(h) = header("Retry-After", "1") {
                        r.add_header(h);
                    }
                    r
                };
                let _ = request.respond(r);
                return;
            }
            polls.push(Parked {
                request,
                since,
                deadline: Instant::now() + POLL_TIMEOUT,
            });
            shared.wake.notify_all();
            return;
        }
        Ok(Target::Path { key, dir, query }) => match site.files.get(&key) {
            Some(entry) => file_response(&request, &site, entry, 200),
            None if !dir && site.files.contains_key(&format!("{key}/index.html")) => {
                let mut r = plain(301, "moved\n");
                if let Some(h) = header("Location", &location(&key, &query)) {
                    r.add_header(h);
                }
                r
            }
            None => not_found(&site),
        },
    };
    let _ = request.respond(response);
}

fn not_found(site: &Site) -> Response<Cursor<Body>> {
    match site.files.get("404.html") {
        Some(entry) => {
            let body = inject(&entry.bytes, site);
            response(
                404,
                headers([
                    ("Content-Type", entry.content_type),
                    ("Cache-Control", "no-cache"),
                    ("X-Content-Type-Options", "nosniff"),
                ]),
                Body::Owned(body),
            )
        }
        None => plain(404, "not found\n"),
    }
}

fn file_response(
    request: &Request,
    site: &Site,
    entry: &Arc<Entry>,
    status: u16,
) -> Response<Cursor<Body>> {
    let html = entry.content_type.starts_with("text/html");
    // Injected pages change with every generation (the script carries it).
    let etag = if html {
        format!("\"{:016x}-{}\"", entry.hash, site.generation)
    } else {
        format!("\"{:016x}\"", entry.hash)
    };
    let mut headers = headers([
        ("ETag", &etag),
        ("Cache-Control", "no-cache"),
        ("X-Content-Type-Options", "nosniff"),
    ]);
    let matched = request
        .headers()
        .iter()
        .filter(|h| h.field.equiv("If-None-Match"))
        .any(|h| {
            h.value
                .as_str()
                .split(',')
                .map(|t| t.trim().trim_start_matches("W/"))
                .any(|t| t == etag || t == "*")
        });
    if matched {
        return response(304, headers, Body::Owned(Vec::new()));
    }
    headers.extend(header("Content-Type", entry.content_type));
    let body = if html {
        Body::Owned(inject(&entry.bytes, site))
    } else {
        Body::Shared(entry.clone())
    };
    response(status, headers, body)
}

/// Changed paths listed in a reload signal; past this, pages just reload.
const MAX_LISTED: usize = 500;

fn events_response(site: &Site, since: u64) -> Response<Cursor<Body>> {
    // What changed is known only for a page one generation behind.
    let next = site.generation == since + 1;
    let css_only = site.css_only && next;
    let changed = (next && site.changed.len() <= MAX_LISTED).then_some(&site.changed);
    let body = serde_json::json!({
        "generation": site.generation,
        "css_only": css_only,
        "changed": changed,
        "problems_changed": !next || site.problems_changed,
        "problems": site.problems.iter().map(|p| serde_json::json!({
            "subject": p.subject, "message": p.message,
        })).collect::<Vec<_>>(),
    });
    response(
        200,
        headers([
            ("Content-Type", "application/json"),
            ("Cache-Control", "no-store"),
        ]),
        Body::Owned(serde_json::to_vec(&body).unwrap_or_default()),
    )
}

const RELOAD_SCRIPT: &str = include_str!("reload.js");

/// The page with the reload script (and the overlay, when there are
/// problems) inserted before `</body>`.
pub fn inject(page: &[u8], site: &Site) -> Vec<u8> {
    let mut extra = String::new();
    if !site.problems.is_empty() {
        extra.push_str(&overlay(&site.problems));
    }
    extra.push_str(&format!(
        "<script id=\"kepsite-reload\" data-generation=\"{}\">{RELOAD_SCRIPT}</script>\n",
        site.generation
    ));
    let at = page
        .windows(7)
        .rposition(|w| w.eq_ignore_ascii_case(b"</body>"))
        .unwrap_or(page.len());
    let mut out = Vec::with_capacity(page.len() + extra.len());
    out.extend_from_slice(&page[..at]);
    out.extend_from_slice(extra.as_bytes());
    out.extend_from_slice(&page[at..]);
    out
}

/// The problem overlay: every problem's subject and message, escaped.
pub fn overlay(problems: &[Problem]) -> String {
    let mut s = String::from(
        "<div id=\"kepsite-overlay\" role=\"alert\" style=\"position:fixed;left:1rem;right:1rem;bottom:1rem;max-height:60vh;overflow:auto;z-index:2147483647;background:#1d1f21;color:#f5f5f5;border:3px solid #e5484d;border-radius:8px;padding:1rem 1.25rem;font:13px/1.5 ui-monospace,SFMono-Regular,Menlo,monospace;box-shadow:0 8px 32px rgba(0,0,0,.45);text-align:left\">\
<button type=\"button\" onclick=\"this.parentNode.remove()\" aria-label=\"Dismiss\" style=\"float:right;background:none;border:1px solid #888;color:inherit;border-radius:4px;cursor:pointer;font:inherit;padding:0 .5rem\">×</button>",
    );
    s.push_str(&format!(
        "<p style=\"margin:0 0 .5rem;font-weight:bold;color:#ff8a8a\">kepsite serve: {} problem{} — showing the last good pages; fix and save to recover</p>",
        problems.len(),
        if problems.len() == 1 { "" } else { "s" }
    ));
    for p in problems {
        s.push_str(&format!(
            "<p style=\"margin:.75rem 0 .25rem;color:#ffd479\">{}</p><pre style=\"margin:0;white-space:pre-wrap;color:inherit;background:none;border:0;padding:0\">{}</pre>",
            crate::escape::html(&p.subject),
            crate::escape::html(&p.message)
        ));
    }
    s.push_str("</div>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(t: &str) -> String {
        match resolve(t) {
            Ok(Target::Path { key, .. }) => key,
            other => panic!("{t}: {other:?}"),
        }
    }

    #[test]
    fn targets_map_to_site_keys() {
        assert_eq!(key("/"), "index.html");
        assert_eq!(key("/keps/1480/"), "keps/1480/index.html");
        assert_eq!(key("/keps/1480/?q=a/../b"), "keps/1480/index.html");
        assert_eq!(key("/static/site.css"), "static/site.css");
        assert_eq!(key("/keps/my%20file.png"), "keps/my file.png");
        assert_eq!(key("/%252e%252e/x"), "%2e%2e/x");
        assert_eq!(
            resolve("/__kepsite/events?since=4"),
            Ok(Target::Events(Some(4)))
        );
    }

    #[test]
    fn escaping_targets_are_refused() {
        for bad in [
            "/../etc/passwd",
            "/keps/../../etc/passwd",
            "/%2e%2e/etc/passwd",
            "/%2E%2E/%2E%2E/etc/passwd",
            "/keps/%2e%2e%2f%2e%2e%2fetc%2fpasswd",
            "/..%2f..%2fetc/passwd",
            "/keps/..%5c..%5cetc",
            "/keps\\..\\etc",
            "//etc/passwd",
            "/./index.html",
            "/%2e/index.html",
            "/index.html%00.css",
            "/a%",
            "/a%zz",
            "http://example.com/index.html",
            "*",
            "etc/passwd",
            "/%ff%fe",
        ] {
            assert_eq!(resolve(bad), Err(Refusal::BadRequest), "{bad}");
        }
        for hidden in [
            "/.git/config",
            "/.kepsite-build",
            "/keps/.env",
            "/%2egit/config",
        ] {
            assert_eq!(resolve(hidden), Err(Refusal::NotFound), "{hidden}");
        }
    }

    #[test]
    fn injection_goes_before_body_end_and_escapes_problems() {
        let site = Site {
            generation: 7,
            problems: vec![Problem {
                subject: "keps/x/kep.yaml".into(),
                message: "<script>alert(1)</script>".into(),
            }],
            ..Site::default()
        };
        let out = String::from_utf8(inject(b"<html><body><p>x</p></body></html>", &site)).unwrap();
        assert!(out.ends_with("</body></html>"), "{out}");
        assert!(out.contains("data-generation=\"7\""));
        assert!(out.contains("kepsite-overlay"));
        assert!(out.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
        assert!(!out.contains("<script>alert(1)"));
        let clean = Site {
            generation: 1,
            ..Site::default()
        };
        let out = String::from_utf8(inject(b"<p>no body tag</p>", &clean)).unwrap();
        assert!(out.starts_with("<p>no body tag</p><script"));
        assert!(!out.contains("kepsite-overlay"));
    }
}
