//! The HTTP side of `serve`: a [`Site`] snapshot in memory → responses,
//! served by hyper (HTTP/1.1 with keep-alive) on a small tokio runtime.
//!
//! - Files come from the in-memory map, never from disk. Request targets are
//!   still checked ([`resolve`]): `..` and `.` segments, encoded slashes and
//!   dots, backslashes, control bytes and NUL and empty segments are 400;
//!   dotfiles are 404. An absolute-form target is read for its path.
//! - `ETag` / `If-None-Match` → 304, `HEAD` (no body), the
//!   site's own 404 page, `Cache-Control: no-cache` so every view revalidates.
//! - HTML pages get the live-reload script, and the problem overlay when
//!   there are problems, injected at response time: neither is ever in the
//!   site itself, so `kepsite build` output has neither.
//! - `/__kepsite/events?since=N` is a long poll: it answers at once when the
//!   site is past generation `N`, else awaits the next change (a watch
//!   channel) or 25 s, holding no thread. The answer lists the paths that
//!   changed, so a page reloads only when it changed itself, the problems
//!   changed, or a script did; stylesheets are swapped in place.
//! - Availability: a client has 10 s to send its whole request head
//!   (hyper's header timeout, not per read); every connection is a task, so a
//!   slow sender or a slow reader holds no worker; bodies are the site's own
//!   bytes, shared, never copied; connections beyond [`MAX_CONNECTIONS`] are
//!   closed at once.
//!
//! Our own HTTP layer (and tiny_http before it) fell over under slow
//! clients: a pool of threads is held by whoever is slowest.

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use anyhow::{Context, Result};
use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::header::{HeaderName, HeaderValue};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::sync::{Semaphore, watch};

use super::state::{Problem, ServedFile};

mod host;
mod inject;
mod target;

pub use inject::{inject, overlay};
use target::location;
pub use target::{Refusal, Target, resolve};

/// The reload endpoint.
pub const EVENTS: &str = "__kepsite/events";
/// How long a long poll waits before answering "no change".
const POLL_TIMEOUT: Duration = Duration::from_secs(25);
/// Parked polls beyond this get 503 (the script retries a second later).
const MAX_PARKED: usize = 512;
/// How long a client may take to send its whole request head.
const HEAD_TIMEOUT: Duration = Duration::from_secs(10);
/// Open connections; more are closed as soon as they are accepted.
pub const MAX_CONNECTIONS: usize = 16_384;

/// One version of the site, as served.
#[derive(Debug, Default)]
pub struct Site {
    /// Increases with every visible change; pages reload when it moves.
    pub generation: u64,
    /// Output path → file.
    pub files: HashMap<String, Arc<ServedFile>>,
    /// Shown as an overlay on every page while not empty.
    pub problems: Vec<Problem>,
    /// Whether the change to this generation touched only stylesheets.
    pub css_only: bool,
    /// Output paths that changed since the previous generation.
    pub changed: Vec<String>,
    /// Whether the problems changed since the previous generation.
    pub problems_changed: bool,
}

/// What every connection's task reads: the site as published, and whether
/// to stop.
#[derive(Clone)]
struct Shared {
    site: watch::Receiver<Arc<Site>>,
    stop: watch::Receiver<bool>,
    parked: Arc<AtomicUsize>,
    /// Bound to loopback: only requests naming a loopback host are
    /// answered (a page elsewhere cannot read the preview by pointing its
    /// own name at 127.0.0.1: DNS rebinding).
    local_only: bool,
}

/// A running server.
pub struct Server {
    site: watch::Sender<Arc<Site>>,
    stop: watch::Sender<bool>,
    thread: JoinHandle<()>,
    addr: SocketAddr,
}

impl Server {
    /// Listen on `addr` (port 0 picks a free port) and serve `site` on a
    /// runtime of `workers` threads (at most 4: the work is copying bytes).
    pub fn start(addr: SocketAddr, mut site: Site, workers: usize) -> Result<Server> {
        let std_listener = host::listener(addr)?;
        std_listener.set_nonblocking(true)?;
        let addr = std_listener.local_addr()?;
        site.generation = site.generation.max(1);
        let (site_tx, site_rx) = watch::channel(Arc::new(site));
        let (stop_tx, stop_rx) = watch::channel(false);
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(workers.clamp(1, 4))
            .thread_name("kepsite-http")
            .enable_all()
            .build()
            .context("starting the HTTP runtime")?;
        let shared = Shared {
            site: site_rx,
            stop: stop_rx,
            parked: Arc::new(AtomicUsize::new(0)),
            local_only: addr.ip().is_loopback(),
        };
        let thread = std::thread::Builder::new()
            .name("kepsite-accept".into())
            .spawn(move || {
                runtime.block_on(accept_loop(std_listener, shared));
                runtime.shutdown_timeout(Duration::from_secs(1));
            })?;
        Ok(Server {
            site: site_tx,
            stop: stop_tx,
            thread,
            addr,
        })
    }

    /// The address actually bound.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The current generation.
    pub fn generation(&self) -> u64 {
        self.site.borrow().generation
    }

    /// Serve a new version of the site, in which `changed` (output paths)
    /// changed, and wake the open pages.
    pub fn publish(
        &self,
        files: HashMap<String, Arc<ServedFile>>,
        problems: Vec<Problem>,
        changed: Vec<String>,
    ) -> u64 {
        let mut generation = 0;
        self.site.send_modify(|site| {
            generation = site.generation + 1;
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
        });
        generation
    }

    /// Stop: answer parked polls, stop accepting, close the socket.
    pub fn shutdown(self) {
        let _ = self.stop.send(true);
        let _ = self.thread.join();
    }
}

/// Accept connections until asked to stop; each is served by its own task.
async fn accept_loop(std_listener: std::net::TcpListener, shared: Shared) {
    let Ok(listener) = tokio::net::TcpListener::from_std(std_listener) else {
        return;
    };
    let open = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let mut stop = shared.stop.clone();
    loop {
        let accepted = tokio::select! {
            _ = stop.changed() => {
                // Parked polls answer on the stop signal; let them be written.
                let _ = tokio::time::timeout(Duration::from_secs(2), graceful.shutdown()).await;
                return;
            }
            a = listener.accept() => a,
        };
        let stream = match accepted {
            Ok((stream, _)) => stream,
            // Out of descriptors or a connection reset before accept: wait a
            // moment rather than spin.
            Err(_) => {
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            }
        };
        let Ok(permit) = open.clone().try_acquire_owned() else {
            continue; // over the limit: dropped, so closed
        };
        let _ = stream.set_nodelay(true);
        let shared = shared.clone();
        let service = service_fn(move |request| {
            let shared = shared.clone();
            async move { Ok::<_, Infallible>(respond(request, shared).await) }
        });
        let connection = http1::Builder::new()
            .timer(TokioTimer::new())
            .header_read_timeout(HEAD_TIMEOUT)
            .keep_alive(true)
            .serve_connection(TokioIo::new(stream), service);
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            let _ = connection.await;
            drop(permit);
        });
    }
}

/// The headers of `pairs`; a value that could end the header line (CR,
/// LF) leaves its header out.
fn headers<const N: usize>(pairs: [(&str, &str); N]) -> Vec<(String, String)> {
    pairs
        .into_iter()
        .filter(|(_, value)| !value.contains(['\r', '\n']))
        .map(|(name, value)| (name.to_string(), value.to_string()))
        .collect()
}

/// A file's bytes as a body, shared with the site (no copy).
struct ServedBytes(Arc<ServedFile>);

impl AsRef<[u8]> for ServedBytes {
    fn as_ref(&self) -> &[u8] {
        &self.0.bytes
    }
}

/// A response before it becomes hyper's: status, headers, body.
struct Response {
    status: u16,
    headers: Vec<(String, String)>,
    body: Bytes,
}

impl Response {
    fn new(status: u16, headers: Vec<(String, String)>, body: Bytes) -> Response {
        Response {
            status,
            headers,
            body,
        }
    }

    fn add_header(&mut self, name: &str, value: &str) {
        if !value.contains(['\r', '\n']) {
            self.headers.push((name.to_string(), value.to_string()));
        }
    }

    /// hyper's response; a header hyper would refuse is left out. hyper
    /// writes `Content-Length` (none on a 304) and leaves the body out for HEAD.
    fn into_hyper(self) -> hyper::Response<Full<Bytes>> {
        let mut r = hyper::Response::new(Full::new(self.body));
        *r.status_mut() = hyper::StatusCode::from_u16(self.status).unwrap_or(hyper::StatusCode::OK);
        for (name, value) in self.headers {
            if let (Ok(n), Ok(v)) = (
                HeaderName::from_bytes(name.as_bytes()),
                HeaderValue::from_str(&value),
            ) {
                r.headers_mut().append(n, v);
            }
        }
        r
    }
}

fn plain(status: u16, text: &'static str) -> Response {
    Response::new(
        status,
        headers([
            ("Content-Type", "text/plain; charset=utf-8"),
            ("X-Content-Type-Options", "nosniff"),
        ]),
        Bytes::from_static(text.as_bytes()),
    )
}

/// What a GET or HEAD asks for: its target (path and query) and `If-None-Match`.
struct Asked {
    target: String,
    if_none_match: Vec<String>,
}

async fn respond(
    request: hyper::Request<Incoming>,
    shared: Shared,
) -> hyper::Response<Full<Bytes>> {
    if shared.local_only && !host::loopback_host(request.headers().get("host")) {
        return plain(
            421,
            "misdirected request: this preview answers to localhost only\n",
        )
        .into_hyper();
    }
    if !matches!(request.method().as_str(), "GET" | "HEAD") {
        let mut r = plain(405, "method not allowed\n");
        r.add_header("Allow", "GET, HEAD");
        return r.into_hyper();
    }
    let asked = Asked {
        target: request
            .uri()
            .path_and_query()
            .map_or_else(|| "/".to_string(), |p| p.as_str().to_string()),
        if_none_match: request
            .headers()
            .get_all("if-none-match")
            .iter()
            .filter_map(|v| v.to_str().ok().map(str::to_string))
            .collect(),
    };
    handle(&asked, shared).await.into_hyper()
}

/// The long poll: at once when the page is behind, else on the next
/// publish, after [`POLL_TIMEOUT`], or at shutdown.
async fn poll(since: Option<u64>, mut shared: Shared) -> Response {
    let site = shared.site.borrow_and_update().clone();
    let Some(since) = since.filter(|s| *s == site.generation) else {
        return events_response(&site, since.unwrap_or(site.generation));
    };
    if shared.parked.fetch_add(1, Ordering::SeqCst) >= MAX_PARKED {
        shared.parked.fetch_sub(1, Ordering::SeqCst);
        let mut r = plain(503, "too many open pages\n");
        r.add_header("Retry-After", "1");
        return r;
    }
    let mut stop = shared.stop.clone();
    tokio::select! {
        _ = shared.site.changed() => {}
        _ = tokio::time::sleep(POLL_TIMEOUT) => {}
        _ = stop.changed() => {}
    }
    shared.parked.fetch_sub(1, Ordering::SeqCst);
    let now = shared.site.borrow().clone();
    events_response(&now, since)
}

async fn handle(asked: &Asked, shared: Shared) -> Response {
    let site = shared.site.borrow().clone();
    match resolve(&asked.target) {
        Err(Refusal::BadRequest) => plain(400, "bad request\n"),
        Err(Refusal::NotFound) => not_found(&site),
        Ok(Target::Events(since)) => poll(since, shared).await,
        Ok(Target::Path { key, dir, query }) => match site.files.get(&key) {
            Some(entry) => file_response(asked, &site, entry, 200),
            None if !dir && site.files.contains_key(&format!("{key}/index.html")) => {
                let mut r = plain(301, "moved\n");
                r.add_header("Location", &location(&key, &query));
                r
            }
            None => match short_link(&key).or_else(|| moved(&site, &key)) {
                // `/kep/<n>`: the short link netlify.toml redirects, and a
                // KEP's directory path, which `_redirects` sends to its page.
                Some(to) if site.files.contains_key(&format!("{to}index.html")) => {
                    let mut r = plain(301, "moved\n");
                    r.add_header("Location", &location(to.trim_end_matches('/'), &query));
                    r
                }
                _ => not_found(&site),
            },
        },
    }
}

/// `kep/<number>` (with or without a trailing `/`) → `keps/<number>/`.
fn short_link(key: &str) -> Option<String> {
    let rest = key.strip_prefix("kep/")?;
    let n = rest.strip_suffix("/index.html").unwrap_or(rest);
    (!n.is_empty() && n.len() <= 6 && n.bytes().all(|b| b.is_ascii_digit()))
        .then(|| format!("keps/{n}/"))
}

/// A KEP's directory path (`keps/<sig>/<dir>/`) → its page
/// (`keps/<number>/`), as the site's `_redirects` file says.
fn moved(site: &Site, key: &str) -> Option<String> {
    use percent_encoding::percent_decode_str;
    let dir = key.strip_suffix("index.html").unwrap_or(key);
    let dir = format!("/{}/", dir.trim_end_matches('/'));
    let text = std::str::from_utf8(&site.files.get("_redirects")?.bytes).ok()?;
    text.lines().find_map(|line| {
        let mut w = line.split(' ');
        let (from, to) = (w.next()?, w.next()?);
        let from = percent_decode_str(from).decode_utf8().ok()?;
        let to = percent_decode_str(to).decode_utf8().ok()?;
        (from == dir).then(|| to.trim_start_matches('/').to_string())
    })
}

fn not_found(site: &Site) -> Response {
    match site.files.get("404.html") {
        Some(entry) => {
            let body = inject(&entry.bytes, site);
            Response::new(
                404,
                headers([
                    ("Content-Type", entry.content_type),
                    ("Cache-Control", "no-cache"),
                    ("X-Content-Type-Options", "nosniff"),
                ]),
                Bytes::from(body),
            )
        }
        None => plain(404, "not found\n"),
    }
}

fn file_response(asked: &Asked, site: &Site, entry: &Arc<ServedFile>, status: u16) -> Response {
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
    let matched = asked.if_none_match.iter().any(|v| {
        v.split(',')
            .map(|t| t.trim().trim_start_matches("W/"))
            .any(|t| t == etag || t == "*")
    });
    if matched {
        return Response::new(304, headers, Bytes::new());
    }
    headers.extend(self::headers([("Content-Type", entry.content_type)]));
    let body = if html {
        Bytes::from(inject(&entry.bytes, site))
    } else {
        Bytes::from_owner(ServedBytes(entry.clone()))
    };
    Response::new(status, headers, body)
}

/// Changed paths listed in a reload signal; past this, pages just reload.
const MAX_LISTED: usize = 500;

fn events_response(site: &Site, since: u64) -> Response {
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
    Response::new(
        200,
        headers([
            ("Content-Type", "application/json"),
            ("Cache-Control", "no-store"),
        ]),
        Bytes::from(serde_json::to_vec(&body).unwrap_or_default()),
    )
}
