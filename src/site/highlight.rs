//! Code highlighting: a fenced block's language and text → HTML whose spans
//! carry CSS classes, coloured by the theme's `highlight.css`.
//!
//! tree-sitter parses the block with the language's grammar and its
//! highlight query names each token (`keyword`, `function.method`, …);
//! [`NAMES`] shows the names as seven classes (`hl-k`, `hl-s`, …), so a
//! span says what a token is, and the theme, light or dark, picks the
//! colour. Neighbours of one class share a span, and text no query names
//! has none.
//!
//! syntect (Oniguruma regexes over Sublime grammars) was the highlighter
//! before: it spent 0.67 s of CPU on the corpus's fenced code, a quarter of
//! a build; tree-sitter spends 0.18 s on the same blocks (see docs/benchmarks.md).
//! Languages without a grammar here are escaped, not highlighted.
//!
//! The grammars' queries compile on their first block and are shared by
//! every thread; each thread keeps its own parser. Parsing and matching
//! stop at a budget of steps proportional to the block (see `spans.rs`), so
//! hostile code costs linear time and every machine writes the same page.

use std::sync::OnceLock;

use tree_sitter::{Language, Query};

mod spans;
use spans::spans;

/// Blocks longer than this are escaped but not highlighted (bounded work).
const MAX_HIGHLIGHT_BYTES: usize = 64 * 1024;

/// The longest block highlighted in a grammar with an external scanner
/// (Bash, YAML, Python). Their scanners read ahead without a bound, which
/// no step budget sees: 32 KB of `&a ` takes Bash's 0.7 s, 64 KB 2.4 s
/// (quadratic). The corpus's longest such block is 8.5 KB.
const MAX_SCANNED_BYTES: usize = 12 * 1024;

/// The most code one README has highlighted (the markdown renderer keeps
/// the count); the rest is escaped as it is. With [`MAX_SCANNED_BYTES`]
/// this bounds a README's highlighting at about a second whatever it holds.
/// The corpus's most is 43 KB.
pub const README_BUDGET: usize = 128 * 1024;

/// The capture names the queries use that kepsite shows, and the class of
/// each. A capture takes the longest name whose parts it has:
/// `keyword.type` is a keyword, `function.method` a function, and a JSON
/// key (`string.special.key`) a property, as YAML's keys are.
const NAMES: &[(&str, &str)] = &[
    ("comment", "hl-c"),
    ("keyword", "hl-k"),
    ("conditional", "hl-k"),
    ("repeat", "hl-k"),
    ("include", "hl-k"),
    ("exception", "hl-k"),
    ("string", "hl-s"),
    ("string.special.key", "hl-p"),
    ("escape", "hl-n"),
    ("number", "hl-n"),
    ("boolean", "hl-n"),
    ("constant", "hl-n"),
    ("variable.builtin", "hl-n"),
    ("type", "hl-t"),
    ("constructor", "hl-t"),
    ("module", "hl-t"),
    ("function", "hl-f"),
    ("property", "hl-p"),
    ("attribute", "hl-p"),
    ("label", "hl-p"),
    ("tag", "hl-p"),
];

/// The classes [`NAMES`] uses, for the stylesheet's test.
#[cfg(test)]
const CLASSES: &[&str] = &["hl-c", "hl-k", "hl-s", "hl-n", "hl-t", "hl-f", "hl-p"];

/// The languages with a grammar.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Lang {
    Go,
    Yaml,
    Bash,
    Json,
    Python,
    Diff,
    Proto,
    Make,
}

const LANGS: [Lang; 8] = [
    Lang::Go,
    Lang::Yaml,
    Lang::Bash,
    Lang::Json,
    Lang::Python,
    Lang::Diff,
    Lang::Proto,
    Lang::Make,
];

impl Lang {
    /// The language a fence's info string names, if it has a grammar here.
    fn of(token: &str) -> Option<Lang> {
        Some(match token.to_ascii_lowercase().as_str() {
            "go" | "golang" => Lang::Go,
            "yaml" | "yml" => Lang::Yaml,
            "bash" | "sh" | "shell" | "console" | "zsh" | "shell-session" => Lang::Bash,
            "json" | "jsonc" => Lang::Json,
            "python" | "py" => Lang::Python,
            "diff" | "patch" => Lang::Diff,
            "protobuf" | "proto" | "proto3" => Lang::Proto,
            "makefile" | "make" | "mk" => Lang::Make,
            _ => return None,
        })
    }

    /// Whether the first pattern that matches a node names it, rather than
    /// the last: the query files differ. Go's and JSON's put specific
    /// patterns (a function's name, a key) before catch-alls such as
    /// `(identifier) @variable`; YAML's, Python's and Make's put the
    /// catch-alls first, as Neovim reads them.
    fn first_wins(self) -> bool {
        matches!(self, Lang::Go | Lang::Json | Lang::Bash)
    }

    /// The longest block highlighted in this language.
    fn max_bytes(self) -> usize {
        match self {
            Lang::Bash | Lang::Yaml | Lang::Python => MAX_SCANNED_BYTES,
            _ => MAX_HIGHLIGHT_BYTES,
        }
    }

    /// Whether the grammar's external scanner is safe on `code`: those of
    /// YAML and Python write their indentation stacks into tree-sitter's
    /// 1,024-byte state buffer without a bound, and a deeper stack fails an
    /// assertion in C, which aborts the process. A YAML level (four bytes)
    /// is pushed at a `-`, `?` or `:`, so at most 240 of those are allowed.
    /// Python pushes a level (two bytes, after at most 257 of string
    /// delimiters) only for a deeper indent, so no line may be indented
    /// past 360 columns (a tab counts 8, as its scanner counts it). No
    /// block of the corpus comes near either bound.
    fn safe_on(self, code: &str) -> bool {
        match self {
            Lang::Yaml => {
                code.bytes()
                    .filter(|b| matches!(b, b'-' | b'?' | b':'))
                    .count()
                    <= 240
            }
            Lang::Python => code.lines().all(|line| {
                let indent: usize = line
                    .bytes()
                    .take_while(|b| matches!(b, b' ' | b'\t'))
                    .map(|b| if b == b'\t' { 8 } else { 1 })
                    .sum();
                indent <= 360
            }),
            _ => true,
        }
    }

    /// The grammar and its compiled query, built on first use (`None` if
    /// the query does not compile against the grammar, which the tests
    /// rule out).
    fn grammar(self) -> Option<&'static Grammar> {
        static GRAMMARS: [OnceLock<Option<Grammar>>; LANGS.len()] =
            [const { OnceLock::new() }; LANGS.len()];
        GRAMMARS[self as usize]
            .get_or_init(|| self.build())
            .as_ref()
    }

    fn build(self) -> Option<Grammar> {
        let (language, query) = match self {
            Lang::Go => (tree_sitter_go::LANGUAGE, tree_sitter_go::HIGHLIGHTS_QUERY),
            Lang::Yaml => (
                tree_sitter_yaml::LANGUAGE,
                tree_sitter_yaml::HIGHLIGHTS_QUERY,
            ),
            Lang::Bash => (
                tree_sitter_bash::LANGUAGE,
                tree_sitter_bash::HIGHLIGHT_QUERY,
            ),
            Lang::Json => (
                tree_sitter_json::LANGUAGE,
                tree_sitter_json::HIGHLIGHTS_QUERY,
            ),
            Lang::Python => (
                tree_sitter_python::LANGUAGE,
                tree_sitter_python::HIGHLIGHTS_QUERY,
            ),
            Lang::Diff => (
                tree_sitter_diff::LANGUAGE,
                tree_sitter_diff::HIGHLIGHTS_QUERY,
            ),
            Lang::Proto => (tree_sitter_proto::LANGUAGE, PROTO_QUERY),
            Lang::Make => (
                tree_sitter_make::LANGUAGE,
                tree_sitter_make::HIGHLIGHTS_QUERY,
            ),
        };
        let language = Language::from(language);
        let query = Query::new(&language, query).ok()?;
        let classes = query.capture_names().iter().map(|c| class_of(c)).collect();
        Some(Grammar {
            language,
            query,
            classes,
            first_wins: self.first_wins(),
        })
    }
}

/// A language's grammar, its highlight query, and the class of each of
/// the query's captures.
struct Grammar {
    language: Language,
    query: Query,
    classes: Vec<Option<&'static str>>,
    /// See [`Lang::first_wins`].
    first_wins: bool,
}

/// The class capture `capture` is shown with: that of the longest name in
/// [`NAMES`] whose parts it has, the first of equals (tree-sitter's own
/// rule for recognized names).
fn class_of(capture: &str) -> Option<&'static str> {
    let mut best: Option<(usize, &'static str)> = None;
    for (name, class) in NAMES {
        let len = name.split('.').count();
        if shows(name, capture) && best.is_none_or(|(l, _)| len > l) {
            best = Some((len, class));
        }
    }
    best.map(|(_, class)| class)
}

/// Whether recognized name `name` covers capture `capture`: each of its
/// dot-separated parts is one of the capture's (tree-sitter-highlight's own
/// rule for `configure`).
fn shows(name: &str, capture: &str) -> bool {
    name.split('.')
        .all(|part| capture.split('.').any(|c| c == part))
}

/// tree-sitter-proto's crate leaves its query out; this is kepsite's.
const PROTO_QUERY: &str = include_str!("highlight/proto.scm");

/// The highlighter a build or `serve` hands to the markdown renderer. It
/// holds nothing itself: the compiled queries are shared process-wide and
/// the parsers are per thread.
#[derive(Default)]
pub struct Highlighter;

impl Highlighter {
    /// A highlighter.
    pub fn new() -> Self {
        Self
    }

    /// Build every grammar and compile its query now (about 20 ms of CPU
    /// in all), rather than when a block first needs it: a build does it
    /// beside the load, where a KEP page's rendering would wait for it.
    pub fn warm() {
        for lang in LANGS {
            lang.grammar();
        }
    }

    /// A `<pre>` block for `code` in language `lang` ("" for none).
    pub fn block(&self, lang: &str, code: &str) -> String {
        let spans = Lang::of(lang)
            .filter(|l| code.len() <= l.max_bytes() && l.safe_on(code))
            .and_then(Lang::grammar)
            .and_then(|grammar| spans(code, grammar));
        match spans {
            Some(html) => pre(lang, &html),
            None => plain(lang, code),
        }
    }
}

/// A `<pre>` block for `code` in language `lang`, without highlighting.
pub fn plain(lang: &str, code: &str) -> String {
    pre(lang, &crate::escape::text(code))
}

/// The `<pre>` around a block's inner HTML.
fn pre(lang: &str, inner: &str) -> String {
    let mut out = String::with_capacity(inner.len() + 64);
    out.push_str("<pre class=\"code hl-code\" data-lang=\"");
    crate::escape::push_html(&mut out, lang);
    out.push_str("\"><code>");
    out.push_str(inner);
    out.push_str("</code></pre>\n");
    out
}

#[cfg(test)]
mod tests;
