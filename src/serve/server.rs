//! The HTTP side of `serve`: a [`Site`] snapshot in memory → responses, from
//! a small HTTP/1.1 layer of its own ([`http`]) and a pool of worker threads.
//!
//! - Files come from the in-memory map, never from disk. Request targets are
//!   still checked ([`resolve`]): `..` and `.` segments, encoded slashes and
//!   dots, backslashes, control bytes and NUL, empty segments and
//!   absolute-form targets are 400; dotfiles are 404.
//! - `ETag` / `If-None-Match` → 304, `HEAD` (no body), the
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
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, RwLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow};
use http::{Listener, Request, Response};

use super::state::{Entry, Problem};

mod http;
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
    http: Arc<Listener>,
}

impl Server {
    /// Listen on `addr` (port 0 picks a free port) and serve `site` with
    /// `workers` threads.
    pub fn start(addr: SocketAddr, mut site: Site, workers: usize) -> Result<Server> {
        let http =
            Listener::start(listener(addr)?).map_err(|e| anyhow!("listening on {addr}: {e}"))?;
        let addr = http.addr();
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
            http,
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
        drop(self.http);
    }
}

/// A listening socket (address reuse, a deep backlog, `TCP_NODELAY` for
/// the connections accepted from it).
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

fn worker(http: &Listener, shared: &Shared) {
    while !shared.stop.load(Ordering::SeqCst) {
        if let Some(request) = http.recv(Duration::from_millis(200)) {
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

/// The headers of `pairs`; a value that could end the header line (CR,
/// LF) leaves its header out.
fn headers<const N: usize>(pairs: [(&str, &str); N]) -> Vec<(String, String)> {
    pairs
        .into_iter()
        .filter(|(_, value)| !value.contains(['\r', '\n']))
        .map(|(name, value)| (name.to_string(), value.to_string()))
        .collect()
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

fn plain(status: u16, text: &str) -> Response {
    Response::new(
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
        "GET" | "HEAD" => None,
        _ => {
            let mut r = plain(405, "method not allowed\n");
            r.add_header("Allow", "GET, HEAD");
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
                    r.add_header("Retry-After", "1");
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
                let to = location(&key, &query);
                if !to.contains(['\r', '\n']) {
                    r.add_header("Location", &to);
                }
                r
            }
            None => match short_link(&key) {
                // `/kep/<n>`: the short link netlify.toml redirects, served alike.
                Some(to) if site.files.contains_key(&format!("{to}index.html")) => {
                    let mut r = plain(301, "moved\n");
                    r.add_header("Location", &format!("/{to}"));
                    r
                }
                _ => not_found(&site),
            },
        },
    };
    let _ = request.respond(response);
}

/// `kep/<number>` (with or without a trailing `/`) → `keps/<number>/`.
fn short_link(key: &str) -> Option<String> {
    let rest = key.strip_prefix("kep/")?;
    let n = rest.strip_suffix("/index.html").unwrap_or(rest);
    (!n.is_empty() && n.len() <= 6 && n.bytes().all(|b| b.is_ascii_digit()))
        .then(|| format!("keps/{n}/"))
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
                Body::Owned(body),
            )
        }
        None => plain(404, "not found\n"),
    }
}

fn file_response(request: &Request, site: &Site, entry: &Arc<Entry>, status: u16) -> Response {
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
    let matched = request.header("If-None-Match").any(|v| {
        v.split(',')
            .map(|t| t.trim().trim_start_matches("W/"))
            .any(|t| t == etag || t == "*")
    });
    if matched {
        return Response::new(304, headers, Body::Owned(Vec::new()));
    }
    headers.extend(self::headers([("Content-Type", entry.content_type)]));
    let body = if html {
        Body::Owned(inject(&entry.bytes, site))
    } else {
        Body::Shared(entry.clone())
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
        Body::Owned(serde_json::to_vec(&body).unwrap_or_default()),
    )
}
