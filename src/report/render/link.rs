//! The destinations of the announcement draft's links. The draft is pasted
//! into the Kubernetes blog, so a link may only lead to the repository's
//! host or the portal's, over https, and its destination must stay one
//! Markdown link destination whatever a KEP's directory is called.

use percent_encoding::percent_encode_byte;

/// `url` as a Markdown link destination, or `None` when the link must not
/// be written (its text goes out without a link): `url` must be
/// `https://` (any case) followed by one of `hosts` exactly (host and port,
/// any case; no user info), then nothing or `/`, `?`, `#`. Every byte that
/// could end or break the destination or be read as Markdown or HTML
/// (space, control characters, `(` `)` `<` `>` `[` `]` `\` `"` `'` `` ` ``
/// `{` `}` `|` `^` `&`, anything outside ASCII, and a `%` that does not
/// start a `%XX` escape) is percent-encoded.
pub fn destination(url: &str, hosts: &[&str]) -> Option<String> {
    let scheme = url.get(..8)?;
    if !scheme.eq_ignore_ascii_case("https://") {
        return None;
    }
    let rest = &url[8..];
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(end);
    let allowed = !authority.is_empty()
        && hosts
            .iter()
            .any(|h| !h.is_empty() && h.eq_ignore_ascii_case(authority));
    if !allowed {
        return None;
    }
    let mut out = format!("https://{}", authority.to_ascii_lowercase());
    let bytes = tail.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        let keep = match b {
            b'%' => bytes
                .get(i + 1..i + 3)
                .is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)),
            _ => b.is_ascii_graphic() && !UNSAFE.contains(&b),
        };
        match keep {
            true => out.push(b as char),
            false => out.push_str(percent_encode_byte(b)),
        }
    }
    Some(out)
}

/// The printable ASCII bytes encoded in a destination.
const UNSAFE: &[u8] = b"()<>[]\\\"'`{}|^&";

/// The host (and port) of an `http(s)://` URL, for [`destination`]'s
/// `hosts`: `None` for anything else, or when it holds user info.
pub fn host(url: &str) -> Option<&str> {
    let rest = ["https://", "http://"].iter().find_map(|s| {
        url.get(..s.len())
            .filter(|p| p.eq_ignore_ascii_case(s))
            .map(|_| &url[s.len()..])
    })?;
    let authority = &rest[..rest.find(['/', '?', '#']).unwrap_or(rest.len())];
    let bad = authority.is_empty()
        || authority
            .bytes()
            .any(|b| !(b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b':' | b'[' | b']')));
    (!bad).then_some(authority)
}

/// A KEP directory as the path of a URL: each segment percent-encoded
/// (a `%`, `#` or `?` in a name is a character of it, not a URL's).
pub fn path(p: &str) -> String {
    p.split('/')
        .map(|seg| percent_encoding::utf8_percent_encode(seg, SEGMENT).to_string())
        .collect::<Vec<_>>()
        .join("/")
}

/// What a path segment encodes: controls, space and every printable byte but
/// letters, digits and `-._~!$*+,;=:@`.
const SEGMENT: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~')
    .remove(b'!')
    .remove(b'$')
    .remove(b'*')
    .remove(b'+')
    .remove(b',')
    .remove(b';')
    .remove(b'=')
    .remove(b':')
    .remove(b'@');

#[cfg(test)]
mod tests;
