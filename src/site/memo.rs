//! Which pages need rendering: the hash of everything a page's rendering
//! depends on, so that a rebuild keeps the file an earlier build rendered
//! from the same inputs instead of running the template again (the site
//! manifest remembers what each key rendered to and vouches for the file;
//! see [`super::output::Stage::keep_rendered`]).
//!
//! A page's rendering depends on its template set (every template's source,
//! since one page's template may extend or include any other), the static
//! files' hashed URLs, its context, its output path, and the code that
//! renders (the kepsite binary, by size and modification time). Templates
//! that call tera functions whose result depends on the moment or the
//! environment (`now`, `get_random`, `get_env`) turn the memo off.

use std::collections::BTreeMap;

use crate::hash::hash128;
use serde_json::Value;

use super::plan::{Page, Template};

/// The kepsite binary's identity: its size and modification time (ns).
pub(crate) fn binary_identity() -> Option<(u64, i128)> {
    let exe = std::fs::metadata(std::env::current_exe().ok()?).ok()?;
    let mtime = exe
        .modified()
        .ok()?
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?
        .as_nanos() as i128;
    Some((exe.len(), mtime))
}

/// What every page's rendering depends on besides its own context.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Fingerprint(u128);

/// Tera functions whose result is not a function of the context.
const UNSTABLE_CALLS: [&str; 3] = ["now(", "get_random(", "get_env("];

impl Fingerprint {
    /// The fingerprint of rendering with the templates `sources` and the
    /// static files `statics` (hashed output path → bytes) under `base`;
    /// `None` when pages must always be rendered.
    pub(crate) fn of(
        sources: &BTreeMap<String, String>,
        statics: &BTreeMap<String, Vec<u8>>,
        base: &str,
    ) -> Option<Fingerprint> {
        if sources
            .values()
            .any(|t| UNSTABLE_CALLS.iter().any(|c| t.contains(c)))
        {
            return None;
        }
        let (size, mtime) = binary_identity()?;
        let mut h = Hasher::default();
        h.bytes(b"kepsite page inputs v1");
        h.bytes(&size.to_le_bytes());
        h.bytes(&mtime.to_le_bytes());
        h.bytes(base.as_bytes());
        h.count(sources.len());
        for (name, text) in sources {
            h.bytes(name.as_bytes());
            h.bytes(text.as_bytes());
        }
        // the hashed names carry the contents' hashes
        h.count(statics.len());
        for name in statics.keys() {
            h.bytes(name.as_bytes());
        }
        Some(Fingerprint(h.digest()))
    }

    /// The key of `page`: its rendering is a function of this value.
    pub(crate) fn key(&self, page: &Page) -> u128 {
        let mut h = Hasher::default();
        h.bytes(&self.0.to_le_bytes());
        h.bytes(page.path.as_bytes());
        match &page.template {
            Template::Tera(name) => h.bytes(name.as_bytes()),
            Template::Json => h.count(0),
        }
        h.value(&page.context);
        h.digest()
    }
}

/// Strings longer than this are laid out as their own hash.
const LONG: usize = 1024;

/// A hasher of length-prefixed fields, so no two inputs run together. The
/// fields are laid out in one buffer and hashed at once: much faster than
/// feeding a streaming hasher thousands of small pieces. Cache keys are made
/// with it too (the rendered READMEs', [`super::readme_cache`]).
pub(crate) struct Hasher(Vec<u8>);

impl Default for Hasher {
    fn default() -> Hasher {
        Hasher(Vec::with_capacity(16 * 1024))
    }
}

impl Hasher {
    pub(crate) fn digest(&self) -> u128 {
        hash128(&self.0)
    }

    fn count(&mut self, n: usize) {
        self.0.extend_from_slice(&(n as u64).to_le_bytes());
    }

    pub(crate) fn bytes(&mut self, b: &[u8]) {
        self.count(b.len());
        self.0.extend_from_slice(b);
    }

    /// A field too long to copy (a README's text or HTML): hashed where it
    /// is, and only its hash laid out.
    pub(crate) fn hashed(&mut self, b: &[u8]) {
        self.0.extend_from_slice(&hash128(b).to_le_bytes());
    }

    fn tag(&mut self, t: u8) {
        self.0.push(t);
    }

    /// A JSON value, structure and order included (templates iterate
    /// objects in order).
    fn value(&mut self, v: &Value) {
        match v {
            Value::Null => self.tag(0),
            Value::Bool(b) => self.tag(1 + u8::from(*b)),
            Value::Number(n) => {
                if let Some(u) = n.as_u64() {
                    self.tag(3);
                    self.0.extend_from_slice(&u.to_le_bytes());
                } else if let Some(i) = n.as_i64() {
                    self.tag(4);
                    self.0.extend_from_slice(&i.to_le_bytes());
                } else {
                    self.tag(5);
                    let bits = n.as_f64().unwrap_or(f64::NAN).to_bits();
                    self.0.extend_from_slice(&bits.to_le_bytes());
                }
            }
            // a long string (a README's HTML) is hashed where it is, and
            // only its hash is laid out: no copy of it
            Value::String(s) if s.len() > LONG => {
                self.tag(9);
                self.hashed(s.as_bytes());
            }
            Value::String(s) => {
                self.tag(6);
                self.bytes(s.as_bytes());
            }
            Value::Array(a) => {
                self.tag(7);
                self.count(a.len());
                for x in a {
                    self.value(x);
                }
            }
            Value::Object(m) => {
                self.tag(8);
                self.count(m.len());
                for (k, x) in m {
                    self.bytes(k.as_bytes());
                    self.value(x);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn page(path: &str, template: Template, context: Value) -> Page {
        Page {
            path: path.into(),
            template,
            context,
        }
    }

    /// The theme of the key tests: one template, one static file.
    fn theme() -> (BTreeMap<String, String>, BTreeMap<String, Vec<u8>>) {
        let sources = BTreeMap::from([("a.html".to_string(), "{{ x }}".to_string())]);
        let statics = BTreeMap::from([("static/immutable/s.0123.css".to_string(), vec![1u8])]);
        (sources, statics)
    }

    #[test]
    fn the_path_template_and_context_are_in_the_key() {
        let (sources, statics) = theme();
        let fp = Fingerprint::of(&sources, &statics, "/").unwrap();
        let p = page(
            "a/index.html",
            Template::Tera("a.html"),
            json!({"x": [1, "y"]}),
        );
        let k = fp.key(&p);
        assert_eq!(k, fp.key(&p.clone()));
        let a = || Template::Tera("a.html");
        let variants = [
            ("b/index.html", a(), json!({"x": [1, "y"]})),
            (
                "a/index.html",
                Template::Tera("b.html"),
                json!({"x": [1, "y"]}),
            ),
            ("a/index.html", Template::Json, json!({"x": [1, "y"]})),
            ("a/index.html", a(), json!({"x": [1, "z"]})),
            ("a/index.html", a(), json!({"x": ["1", "y"]})),
            ("a/index.html", a(), json!({"x": [1, "y", null]})),
            ("a/index.html", a(), json!({"x": [[1], "y"]})),
            ("a/index.html", a(), json!({"y": [1, "y"]})),
            ("a/index.html", a(), json!({"x": [1.5, "y"]})),
            ("a/index.html", a(), json!({"x": [-1, "y"]})),
            ("a/index.html", a(), json!({"x": [true, "y"]})),
        ];
        for (i, (path, template, context)) in variants.into_iter().enumerate() {
            assert_ne!(k, fp.key(&page(path, template, context)), "variant {i}");
        }
    }

    #[test]
    fn the_key_follows_object_order_and_whole_strings() {
        let (sources, statics) = theme();
        let fp = Fingerprint::of(&sources, &statics, "/").unwrap();
        // object order is part of the key: templates iterate in order
        let ab = json!({"a": 1, "b": 2});
        let ba = json!({"b": 2, "a": 1});
        assert_ne!(
            fp.key(&page("p", Template::Json, ab)),
            fp.key(&page("p", Template::Json, ba))
        );
        // long strings (hashed apart) differ by their contents, and from
        // the same text short
        let long = "x".repeat(LONG + 1);
        let longer = format!("{long}y");
        let keys = [
            fp.key(&page("p", Template::Json, json!([long]))),
            fp.key(&page("p", Template::Json, json!([longer]))),
            fp.key(&page("p", Template::Json, json!(["x"]))),
        ];
        assert!(keys[0] != keys[1] && keys[0] != keys[2] && keys[1] != keys[2]);
        // strings do not run together
        assert_ne!(
            fp.key(&page("p", Template::Json, json!(["ab", "c"]))),
            fp.key(&page("p", Template::Json, json!(["a", "bc"])))
        );
    }

    #[test]
    fn the_theme_and_base_url_are_in_the_key() {
        let (sources, statics) = theme();
        let p = page("a/index.html", Template::Tera("a.html"), json!({"x": 1}));
        let k = Fingerprint::of(&sources, &statics, "/").unwrap().key(&p);
        let fingerprints = [
            Fingerprint::of(&sources, &statics, "/docs/"),
            Fingerprint::of(
                &BTreeMap::from([("a.html".to_string(), "{{ x }}!".to_string())]),
                &statics,
                "/",
            ),
            Fingerprint::of(
                &sources,
                &BTreeMap::from([("static/immutable/s.4567.css".to_string(), vec![1u8])]),
                "/",
            ),
        ];
        for f in fingerprints {
            assert_ne!(f.unwrap().key(&p), k);
        }
    }

    #[test]
    fn templates_with_unstable_calls_turn_the_memo_off() {
        for call in [
            "{{ now() }}",
            "{{ get_random(end=9) }}",
            "{{ get_env(name=\"X\") }}",
        ] {
            let sources = BTreeMap::from([("a.html".to_string(), call.to_string())]);
            assert!(Fingerprint::of(&sources, &BTreeMap::new(), "/").is_none());
        }
    }
}
