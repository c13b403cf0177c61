//! A KEP's README: its text, read at the load, and its one parse
//! ([`Document`]), made the first time something asks for it. A command
//! parses the READMEs it reads and no other; the build parses each once,
//! and its page is written from that parse.

use std::sync::{Arc, OnceLock};

use super::document::{self, Document};

/// A README's text and, once asked for, its parse. Shared (`Arc`) between
/// two models of the same file with the same text (a freeze deadline's
/// revision and today's files), so it is parsed once for both.
#[derive(Debug, Default)]
pub struct Readme {
    /// `None`: the load left it unread (a revision's README outside the
    /// KEPs a load picked); it reads as empty.
    text: Option<Arc<str>>,
    doc: OnceLock<Arc<Document>>,
    /// The text's git blob id, computed when first asked.
    blob: OnceLock<crate::repo::BlobId>,
}

impl Readme {
    /// A README of `text`, not parsed yet.
    pub fn new(text: String) -> Readme {
        Readme {
            text: Some(text.into()),
            doc: OnceLock::new(),
            blob: OnceLock::new(),
        }
    }

    /// A README the load left unread.
    pub fn unread() -> Readme {
        Readme::default()
    }

    /// Whether the load read it.
    pub fn is_read(&self) -> bool {
        self.text.is_some()
    }

    /// The README as written ("" when unread).
    pub fn text(&self) -> &str {
        self.text.as_deref().unwrap_or_default()
    }

    /// Its parse, made on the first call (an unread README's is empty).
    pub fn doc(&self) -> &Arc<Document> {
        self.doc.get_or_init(|| {
            let text = self.text.clone().unwrap_or_default();
            Arc::new(document::parse_shared(text))
        })
    }

    /// The git blob id of its text, computed on the first call (`None`
    /// when unread): a revision's blob with this id holds this text.
    pub fn blob_id(&self) -> Option<crate::repo::BlobId> {
        let text = self.text.as_deref()?;
        Some(
            *self
                .blob
                .get_or_init(|| crate::repo::blob_id(text.as_bytes())),
        )
    }

    /// Whether it has been parsed.
    pub fn is_parsed(&self) -> bool {
        self.doc.get().is_some()
    }
}

impl PartialEq for Readme {
    /// The parse is a function of the text: two READMEs are equal when
    /// their texts are, parsed or not.
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text
    }
}

impl Eq for Readme {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_readme_is_parsed_when_first_asked_and_once() {
        let r = Readme::new("# Title\n\n## Summary\n\nShort.\n".into());
        assert!(r.is_read() && !r.is_parsed());
        let first = Arc::clone(r.doc());
        assert!(r.is_parsed());
        assert_eq!(first.sections.len(), 2);
        // the same parse, not a second one
        assert!(Arc::ptr_eq(&first, r.doc()));
        // the document shares the text
        assert_eq!(&*first.text, r.text());
    }

    #[test]
    fn readmes_are_equal_by_text_parsed_or_not() {
        let (a, b) = (Readme::new("# A\n".into()), Readme::new("# A\n".into()));
        let _ = a.doc();
        assert_eq!(a, b);
        assert_ne!(a, Readme::new("# B\n".into()));
        // one the load left unread reads as empty, and is not an empty file
        let unread = Readme::unread();
        assert!(!unread.is_read() && unread.text().is_empty());
        assert!(unread.doc().sections.is_empty());
        assert_ne!(unread, Readme::new(String::new()));
    }
}
