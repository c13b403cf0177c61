//! Code highlighting: a fenced block's language and text → HTML whose spans
//! carry CSS classes (`hl-*`), plus the light and dark stylesheets for them.
//!
//! Classes rather than inline colours keep the markup small and let the theme
//! (and `prefers-color-scheme`) decide the colours.
//!
//! syntect runs on its Oniguruma backend (`default-onig`): on the corpus it
//! is several times faster than the pure-Rust fancy-regex backend, which was
//! half of a first build's CPU, and it produces the same HTML. One
//! [`SyntaxSet`] is loaded per highlighter, on the first block, and shared by
//! every thread, so each grammar's regexes are compiled once.
//!
//! Highlighting is the most expensive step of a build; nothing of it is
//! kept between runs.

use std::sync::{Arc, Mutex};

use syntect::parsing::SyntaxSet;

mod styled;

/// Blocks longer than this are escaped but not highlighted (bounded work).
const MAX_HIGHLIGHT_BYTES: usize = 64 * 1024;

/// Syntect's syntaxes, loaded on first use.
#[derive(Default)]
pub struct Highlighter {
    /// Loaded on first use; dropped by [`Highlighter::release`].
    syntaxes: Mutex<Option<Arc<SyntaxSet>>>,
}

impl Highlighter {
    /// A highlighter; its grammars load on the first block.
    pub fn new() -> Self {
        Self::default()
    }

    /// Free syntect's grammars (tens of MB once they have run): a build
    /// calls it when its READMEs are rendered. A later block loads them
    /// again.
    pub fn release(&self) {
        drop(
            self.syntaxes
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .take(),
        );
    }

    fn syntaxes(&self) -> Arc<SyntaxSet> {
        self.syntaxes
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get_or_insert_with(|| Arc::new(SyntaxSet::load_defaults_newlines()))
            .clone()
    }

    /// A `<pre>` block for `code` in language `lang` ("" for none).
    pub fn block(&self, lang: &str, code: &str) -> String {
        if lang.is_empty() || code.len() > MAX_HIGHLIGHT_BYTES {
            return plain(lang, code);
        }
        self.highlight(lang, code)
    }

    fn highlight(&self, lang: &str, code: &str) -> String {
        let token = match lang.to_ascii_lowercase().as_str() {
            "golang" => "go".to_string(),
            "shell" | "console" | "sh" | "zsh" => "bash".to_string(),
            "yml" => "yaml".to_string(),
            other => other.to_string(),
        };
        let syntaxes = self.syntaxes();
        let Some(syntax) = syntaxes.find_syntax_by_token(&token) else {
            return plain(lang, code);
        };
        let Some(html) = styled::html(code, syntax, &syntaxes) else {
            return plain(lang, code);
        };
        format!(
            "<pre class=\"code hl-code\" data-lang=\"{}\"><code>{html}</code></pre>\n",
            crate::escape::html(lang),
        )
    }
}

/// A block without highlighting.
fn plain(lang: &str, code: &str) -> String {
    format!(
        "<pre class=\"code hl-code\" data-lang=\"{}\"><code>{}</code></pre>\n",
        crate::escape::html(lang),
        crate::escape::text(code)
    )
}

/// The stylesheet for highlighted code: a light theme, and a dark one under
/// `prefers-color-scheme: dark`.
pub fn stylesheet() -> String {
    styled::stylesheet()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn released_grammars_load_again_and_highlight_the_same() {
        let code = "kind: Pod\nmetadata:\n  name: x\n";
        let hl = Highlighter::new();
        let loaded = |h: &Highlighter| h.syntaxes.lock().unwrap().is_some();
        assert!(!loaded(&hl), "grammars load on the first block");
        let first = hl.block("yaml", code);
        assert!(first.contains("hl-") && loaded(&hl), "{first}");
        hl.release();
        assert!(!loaded(&hl));
        assert_eq!(hl.block("yaml", code), first);
    }
}
