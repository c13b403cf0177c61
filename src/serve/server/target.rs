//! Request targets: a raw target → a site key or the reload endpoint, or a
//! refusal ([`resolve`]); and a site key back to a redirect's `Location`.

use super::EVENTS;

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

/// The value of a hex digit.
fn hex(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// `%XX` escapes decoded; `None` when one is malformed.
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

/// A redirect's `Location` for site key `key` (decoded, any characters) and
/// the request's raw `query`: percent-encoded to printable ASCII.
pub(super) fn location(key: &str, query: &str) -> String {
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
}
