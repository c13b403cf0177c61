//! The HTTP/1.1 that `serve` speaks, on std's sockets: one request per
//! connection (`Connection: close`), each connection read on its own thread
//! with a time limit, the requests handed to the workers through a queue.
//!
//! kepsite used tiny_http here. Its connection pool can queue a browser's
//! new keep-alive connection behind idle ones until one of them closes (two
//! connections arrive while one pool thread waits: the second is queued and
//! no thread is woken for it), so a page's fetches waited for seconds or for
//! good; it cannot close a connection after a response, and a read timeout
//! on its listening socket also times out its `accept`.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How long a client may take to send its request head.
const HEAD_TIMEOUT: Duration = Duration::from_secs(10);
/// How long writing a response may stall.
const WRITE_TIMEOUT: Duration = Duration::from_secs(30);
/// Largest request head read.
const MAX_HEAD: u64 = 16 * 1024;
/// Connections read at once; more are answered 503 at once.
const MAX_CONNECTIONS: usize = 2048;

/// One request, answered at most once.
pub struct Request {
    method: String,
    url: String,
    headers: Vec<(String, String)>,
    stream: TcpStream,
}

/// A response: status, headers and body (`Content-Length` and `Connection`
/// are added when it is sent).
pub struct Response {
    status: u16,
    headers: Vec<(String, String)>,
    body: Box<dyn AsRef<[u8]> + Send>,
}

impl Response {
    /// A response with `body`.
    pub fn new(
        status: u16,
        headers: Vec<(String, String)>,
        body: impl AsRef<[u8]> + Send + 'static,
    ) -> Self {
        Response {
            status,
            headers,
            body: Box::new(body),
        }
    }

    /// Add a header.
    pub fn add_header(&mut self, name: &str, value: &str) {
        self.headers.push((name.to_string(), value.to_string()));
    }
}

impl Request {
    /// The method, as sent (`GET`).
    pub fn method(&self) -> &str {
        &self.method
    }

    /// The request target, as sent.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The values of the headers named `name` (any case).
    pub fn header<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.headers
            .iter()
            .filter(move |(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Send `response` (no body for `HEAD`) and close the connection.
    pub fn respond(mut self, response: Response) -> std::io::Result<()> {
        let body = response.body.as_ref().as_ref();
        let mut head = format!(
            "HTTP/1.1 {} {}\r\n",
            response.status,
            reason(response.status)
        );
        for (k, v) in &response.headers {
            head.push_str(&format!("{k}: {v}\r\n"));
        }
        head.push_str(&format!(
            "Content-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        ));
        let mut out = head.into_bytes();
        if self.method != "HEAD" {
            out.extend_from_slice(body);
        }
        self.stream.write_all(&out)?;
        self.stream.flush()?;
        let _ = self.stream.shutdown(std::net::Shutdown::Write);
        Ok(())
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        301 => "Moved Permanently",
        304 => "Not Modified",
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        431 => "Request Header Fields Too Large",
        503 => "Service Unavailable",
        _ => "",
    }
}

/// A listening socket whose requests come out of [`Listener::recv`].
pub struct Listener {
    addr: SocketAddr,
    requests: Mutex<Receiver<Request>>,
    stop: Arc<AtomicBool>,
    accept: Option<std::thread::JoinHandle<()>>,
}

impl Listener {
    /// Accept connections on `socket` (already bound and listening).
    pub fn start(socket: TcpListener) -> std::io::Result<Listener> {
        let addr = socket.local_addr()?;
        socket.set_nonblocking(true)?;
        let (tx, rx) = sync_channel(1024);
        let stop = Arc::new(AtomicBool::new(false));
        let s = stop.clone();
        let accept = std::thread::Builder::new()
            .name("kepsite-accept".into())
            .spawn(move || accept_loop(&socket, &tx, &s))?;
        Ok(Listener {
            addr,
            requests: Mutex::new(rx),
            stop,
            accept: Some(accept),
        })
    }

    /// The address bound.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The next request, waiting at most `timeout`.
    pub fn recv(&self, timeout: Duration) -> Option<Request> {
        let rx = self.requests.lock().unwrap_or_else(|e| e.into_inner());
        rx.recv_timeout(timeout).ok()
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.accept.take() {
            let _ = t.join();
        }
    }
}

fn accept_loop(socket: &TcpListener, tx: &SyncSender<Request>, stop: &AtomicBool) {
    let open = Arc::new(AtomicUsize::new(0));
    while !stop.load(Ordering::SeqCst) {
        // Nothing waiting (the socket is non-blocking, so the stop flag is
        // seen), or a failed accept: look again shortly.
        let Ok((stream, _)) = socket.accept() else {
            std::thread::sleep(Duration::from_millis(10));
            continue;
        };
        if stream.set_nonblocking(false).is_err() {
            continue;
        }
        let _ = stream.set_nodelay(true);
        let _ = stream.set_write_timeout(Some(WRITE_TIMEOUT));
        if open.load(Ordering::SeqCst) >= MAX_CONNECTIONS {
            refuse(stream, 503);
            continue;
        }
        open.fetch_add(1, Ordering::SeqCst);
        let (tx, open) = (tx.clone(), open.clone());
        // Without a thread, the stream goes with the closure and is closed.
        let _ = std::thread::Builder::new()
            .name("kepsite-conn".into())
            .spawn(move || {
                if let Some(request) = read_request(stream) {
                    let _ = tx.send(request);
                }
                open.fetch_sub(1, Ordering::SeqCst);
            });
    }
}

/// Answer `status` with no body and close.
fn refuse(stream: TcpStream, status: u16) {
    let request = Request {
        method: "GET".into(),
        url: String::new(),
        headers: Vec::new(),
        stream,
    };
    let _ = request.respond(Response::new(status, Vec::new(), Vec::new()));
}

/// Read one request head from `stream`; a malformed, oversized or too slow
/// one is answered here (400, 431 or 408) and gives `None`.
fn read_request(stream: TcpStream) -> Option<Request> {
    stream.set_read_timeout(Some(HEAD_TIMEOUT)).ok()?;
    let reader = stream.try_clone().ok()?;
    let mut reader = BufReader::new(reader.take(MAX_HEAD));
    let mut lines = Vec::new();
    loop {
        let mut raw = Vec::new();
        match reader.read_until(b'\n', &mut raw) {
            Ok(0) => {
                if !lines.is_empty() || !raw.is_empty() {
                    refuse(stream, 431);
                }
                return None;
            }
            Ok(_) => {}
            Err(e) => {
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) {
                    refuse(stream, 408);
                }
                return None;
            }
        }
        if !raw.ends_with(b"\n") {
            refuse(stream, 431);
            return None;
        }
        let line = String::from_utf8_lossy(&raw)
            .trim_end_matches(['\r', '\n'])
            .to_string();
        if line.is_empty() {
            if lines.is_empty() {
                continue; // blank lines before a request line are allowed
            }
            break;
        }
        lines.push(line);
    }
    let mut parts = lines[0].split(' ');
    let (Some(method), Some(url), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        refuse(stream, 400);
        return None;
    };
    if !matches!(version, "HTTP/1.0" | "HTTP/1.1") || method.is_empty() || url.is_empty() {
        refuse(stream, 400);
        return None;
    }
    let mut headers = Vec::new();
    for line in &lines[1..] {
        let Some((k, v)) = line.split_once(':') else {
            refuse(stream, 400);
            return None;
        };
        headers.push((k.trim().to_string(), v.trim().to_string()));
    }
    Some(Request {
        method: method.to_string(),
        url: url.to_string(),
        headers,
        stream,
    })
}
