//! The socket and the names it answers to: the listening socket, and the
//! `Host` check of a preview bound to loopback.

use std::net::SocketAddr;

use anyhow::{Context, Result};

/// Whether a `Host` header names this machine's loopback (`localhost`,
/// `127.0.0.1`, `[::1]`, with or without a port). No header (HTTP/1.0
/// tools) is allowed: browsers always send one.
pub(super) fn loopback_host(host: Option<&hyper::header::HeaderValue>) -> bool {
    let Some(h) = host else { return true };
    let Ok(h) = h.to_str() else { return false };
    let (name, rest) = match h.strip_prefix('[') {
        Some(r) => match r.split_once(']') {
            Some((inside, after)) => (format!("[{inside}]"), after),
            None => return false,
        },
        None => match h.find(':') {
            Some(i) => (h[..i].to_string(), &h[i..]),
            None => (h.to_string(), ""),
        },
    };
    let port_ok = rest.is_empty()
        || rest
            .strip_prefix(':')
            .is_some_and(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()));
    port_ok
        && matches!(
            name.to_ascii_lowercase().as_str(),
            "localhost" | "127.0.0.1" | "[::1]"
        )
}

/// A listening socket (address reuse, a deep backlog).
pub(super) fn listener(addr: SocketAddr) -> Result<std::net::TcpListener> {
    use socket2::{Domain, Socket, Type};
    let socket = Socket::new(Domain::for_address(addr), Type::STREAM, None)
        .with_context(|| format!("creating a socket for {addr}"))?;
    #[cfg(unix)]
    socket.set_reuse_address(true)?;
    socket.bind(&addr.into()).map_err(|e| {
        let hint = match e.kind() {
            std::io::ErrorKind::AddrInUse => {
                " (another program uses that port: pick another with --port, e.g. --port 1314)"
            }
            std::io::ErrorKind::PermissionDenied => " (pick a port above 1023 with --port)",
            _ => "",
        };
        anyhow::anyhow!("cannot listen on {addr}: {e}{hint}")
    })?;
    socket
        .listen(1024)
        .with_context(|| format!("listening on {addr}"))?;
    Ok(socket.into())
}

#[cfg(test)]
mod tests {
    use super::loopback_host;
    use hyper::header::HeaderValue;

    fn ok(h: &str) -> bool {
        loopback_host(Some(&HeaderValue::from_str(h).unwrap()))
    }

    #[test]
    fn only_loopback_names_pass() {
        for h in [
            "localhost",
            "LOCALHOST:1313",
            "127.0.0.1",
            "127.0.0.1:8080",
            "[::1]",
            "[::1]:1313",
        ] {
            assert!(ok(h), "{h}");
        }
        for h in [
            "evil.example",
            "127.0.0.1.nip.io",
            "localhost.evil",
            "localhost:80x",
            "[::1].evil",
            "[::2]:1313",
            "",
        ] {
            assert!(!ok(h), "{h}");
        }
        assert!(loopback_host(None));
    }
}
