//! Untrusted input files given on the command line (`--issues`, and the
//! pull-request and board files to come) → the caller's serde type.
//!
//! Such a file is read like every KEP: it may be huge or hostile. So it is
//! read only up to a size limit (over it, an error naming the file and the
//! limit, which the binary exits 2 with), and parsed in one pass from the
//! bytes with serde_json into the caller's own type, never through a
//! `serde_json::Value` tree (which took 23 times the file: a 260 MB issues
//! file peaked at 5.9 GB). Peak memory is then the file plus what the type
//! keeps; a type should keep only what kepsite reads (see
//! `report::issues::Issue`, which keeps only the labels it asks about).
//!
//! How to use it for a new file (`--prs FILE`, say):
//!
//! ```ignore
//! #[derive(serde::Deserialize)]
//! struct Pr { number: u32, title: String, url: String }
//! const PRS: Kind = Kind {
//!     what: "the pull-request file",
//!     item: "pull request",
//!     limit: 64 << 20,
//!     hint: "export with `gh pr list --json number,title,url,headRefOid,files,author`",
//! };
//! let prs: Vec<Pr> = input_file::read_list(&PRS, path)?;
//! ```
//!
//! An element that does not fit the type is an error naming its index and
//! the field (`issue 3 of the issues file: missing field `milestone` at
//! line 1 column 210`). `tests/it/fuzz.rs` feeds each reader hostile
//! bytes (its `input_file_readers` list is the place to add one).

use std::fmt;
use std::io::Read as _;
use std::marker::PhantomData;
use std::path::Path;

use anyhow::{Context, Result, bail};
use serde::de::{DeserializeOwned, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};

/// One kind of input file: how it is named in messages, and its limit.
#[derive(Debug, Clone, Copy)]
pub struct Kind {
    /// `the issues file`.
    pub what: &'static str,
    /// What one element is: `issue`.
    pub item: &'static str,
    /// The largest file read, in bytes.
    pub limit: u64,
    /// How to make a good one, for the error messages.
    pub hint: &'static str,
}

/// The bytes of `path`, at most `kind.limit` of them: a larger file (or a
/// stream that goes on past the limit) is an error naming the file and the
/// limit, and is never read whole.
pub fn read_bytes(kind: &Kind, path: &Path) -> Result<Vec<u8>> {
    let shown = crate::escape::terminal(&path.display().to_string()).into_owned();
    let file =
        std::fs::File::open(path).with_context(|| format!("reading {} {shown}", kind.what))?;
    let size = file.metadata().map(|m| m.len()).unwrap_or(0);
    if size > kind.limit {
        bail!(too_large(kind, &shown));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    file.take(kind.limit + 1)
        .read_to_end(&mut bytes)
        .with_context(|| format!("reading {} {shown}", kind.what))?;
    if bytes.len() as u64 > kind.limit {
        bail!(too_large(kind, &shown));
    }
    Ok(bytes)
}

fn too_large(kind: &Kind, shown: &str) -> String {
    format!(
        "{} {shown} is larger than the limit of {} MiB ({} bytes), and was not read",
        kind.what,
        kind.limit >> 20,
        kind.limit
    )
}

/// The JSON list of `path` ([`read_bytes`], then [`parse_list`]).
pub fn read_list<T: DeserializeOwned>(kind: &Kind, path: &Path) -> Result<Vec<T>> {
    let bytes = read_bytes(kind, path)?;
    let shown = crate::escape::terminal(&path.display().to_string()).into_owned();
    parse_list(kind, &bytes).with_context(|| format!("in {} {shown}", kind.what))
}

/// `bytes` as a JSON list of `T`, parsed in one pass: each element straight
/// into `T`, an element that does not fit named by its index.
pub fn parse_list<T: DeserializeOwned>(kind: &Kind, bytes: &[u8]) -> Result<Vec<T>> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let list = de
        .deserialize_seq(ListVisitor::<T> {
            kind,
            item: PhantomData,
        })
        .and_then(|list| de.end().map(|()| list));
    list.map_err(|e| {
        let e = crate::escape::terminal(&e.to_string()).into_owned();
        if e.starts_with(kind.item) && e.contains(" of ") {
            anyhow::anyhow!("{e} ({})", kind.hint)
        } else {
            anyhow::anyhow!(
                "{} is not a JSON list as expected: {e} ({})",
                kind.what,
                kind.hint
            )
        }
    })
}

struct ListVisitor<'k, T> {
    kind: &'k Kind,
    item: PhantomData<T>,
}

impl<'de, T: DeserializeOwned> Visitor<'de> for ListVisitor<'_, T> {
    type Value = Vec<T>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "a JSON list of {}s", self.kind.item)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
        let mut out = Vec::new();
        loop {
            let i = out.len();
            match seq.next_element::<T>() {
                Ok(Some(x)) => out.push(x),
                Ok(None) => return Ok(out),
                Err(e) => {
                    return Err(serde::de::Error::custom(format!(
                        "{} {i} of {}: {e}",
                        self.kind.item, self.kind.what
                    )));
                }
            }
        }
    }
}

/// For a field that must be present but may be `null` (serde takes a
/// missing `Option` as `None`; with this it is an error naming the field):
/// `#[serde(deserialize_with = "input_file::nullable")]`.
pub fn nullable<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Option<T>, D::Error> {
    Option::deserialize(d)
}

/// A JSON list of which only the elements `keep` accepts are kept (the
/// others are read and dropped one by one): a list kepsite asks a few
/// questions of keeps only what answers them, however long it is.
pub fn filtered<'de, D, T>(d: D, keep: fn(&T) -> bool) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    struct Filter<T>(fn(&T) -> bool);
    impl<'de, T: Deserialize<'de>> Visitor<'de> for Filter<T> {
        type Value = Vec<T>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a list")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
            let mut out = Vec::new();
            while let Some(x) = seq.next_element::<T>()? {
                if (self.0)(&x) {
                    out.push(x);
                }
            }
            Ok(out)
        }
    }
    d.deserialize_seq(Filter(keep))
}

#[cfg(test)]
mod tests {
    use super::*;

    const KIND: Kind = Kind {
        what: "the test file",
        item: "entry",
        limit: 64,
        hint: "write a list",
    };

    #[derive(Debug, Deserialize, PartialEq)]
    struct E {
        n: u32,
        #[serde(deserialize_with = "nullable")]
        m: Option<String>,
    }

    #[test]
    fn a_list_is_read_and_a_bad_element_named() {
        let ok: Vec<E> =
            parse_list(&KIND, br#"[{"n":1,"m":null},{"n":2,"m":"x","z":[1]}]"#).unwrap();
        assert_eq!(
            ok[1],
            E {
                n: 2,
                m: Some("x".into())
            }
        );
        let e = parse_list::<E>(&KIND, br#"[{"n":1,"m":null},{"n":2}]"#).unwrap_err();
        let e = e.to_string();
        assert!(
            e.starts_with("entry 1 of the test file: missing field `m`"),
            "{e}"
        );
        assert!(e.ends_with("(write a list)"), "{e}");
        let e = parse_list::<E>(&KIND, br#"{"n":1}"#)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("the test file is not a JSON list as expected"),
            "{e}"
        );
        let e = parse_list::<E>(&KIND, b"[] x").unwrap_err().to_string();
        assert!(e.contains("trailing characters"), "{e}");
    }

    #[test]
    fn a_file_over_the_limit_is_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.json");
        std::fs::write(&path, vec![b' '; 65]).unwrap();
        let e = read_bytes(&KIND, &path).unwrap_err().to_string();
        assert!(
            e.contains("big.json is larger than the limit of 0 MiB (64 bytes)"),
            "{e}"
        );
        std::fs::write(&path, vec![b' '; 64]).unwrap();
        assert_eq!(read_bytes(&KIND, &path).unwrap().len(), 64);
    }
}
