//! Code highlighting: a fenced block's language and text → HTML whose spans
//! carry CSS classes, coloured by the theme's `highlight.css`.
//!
//! tree-sitter parses the block with the language's grammar and its
//! highlight query names each token (`keyword`, `string.special.key`, …);
//! [`NAMES`] shows the names as seven classes (`hl-k`, `hl-s`, …), so a
//! span says what a token is, and the theme, light or dark, picks the
//! colour. Neighbours of one class share a span, and text no query names
//! has none.
//!
//! syntect (Oniguruma regexes over Sublime grammars) was the highlighter
//! before: it spent 0.67 s of CPU on the corpus's fenced code, a quarter of
//! a build; tree-sitter spends 0.14 s on the same blocks (see the README).
//! Languages without a grammar here are escaped, not highlighted.
//!
//! The grammars' queries compile on their first block and are shared by
//! every thread; each thread keeps its own parser. Parsing and matching
//! stop at a budget of steps proportional to the block (see [`budget`]), so
//! hostile code costs linear time and every machine writes the same page.

use std::cell::RefCell;
use std::sync::OnceLock;

use std::cmp::Reverse;
use std::ops::ControlFlow;

use tree_sitter::{
    Language, ParseOptions, ParseState, Parser, Query, QueryCursor, QueryCursorOptions,
    QueryCursorState, StreamingIterator, Tree,
};

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
/// `keyword.type` is a keyword, `function.method` a function.
const NAMES: &[(&str, &str)] = &[
    ("comment", "hl-c"),
    ("keyword", "hl-k"),
    ("conditional", "hl-k"),
    ("repeat", "hl-k"),
    ("include", "hl-k"),
    ("exception", "hl-k"),
    ("string", "hl-s"),
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

/// The work a block's parse and query may take, in tree-sitter's own units
/// (its progress callbacks, one per hundred steps). The corpus's blocks
/// take at most a third of it, and dense code (a line of calls or of JSON
/// after another, 60 KB) about half. Counting steps, not time, keeps a
/// build's output the same on any machine. Error recovery over hostile
/// input takes tens of times the steps per byte, at up to two microseconds
/// each; such a block goes over the budget and is shown without colours,
/// after at most about 0.3 s for 64 KB (see [`README_BUDGET`]).
fn budget(code: &str) -> usize {
    code.len() / 16 + 100
}

/// `code` as escaped text in class-named spans (`None` when its parse or
/// query goes over [`budget`], or a token does not fall on character
/// boundaries).
fn spans(code: &str, grammar: &Grammar) -> Option<String> {
    thread_local! {
        static PARSER: RefCell<Parser> = RefCell::new(Parser::new());
    }
    let budget = budget(code);
    let tree = PARSER.with(|parser| {
        let mut parser = parser.borrow_mut();
        parser.set_language(&grammar.language).ok()?;
        let mut steps = 0;
        let mut within = |_: &ParseState| {
            steps += 1;
            if steps > budget {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        };
        let options = ParseOptions::new().progress_callback(&mut within);
        let bytes = code.as_bytes();
        let tree = parser.parse_with_options(
            &mut |at, _| bytes.get(at..).unwrap_or_default(),
            None,
            Some(options),
        );
        // a parse given up would be resumed by the next one
        parser.reset();
        tree
    })?;
    if !shallow(&tree, depth_budget(code)) {
        return None;
    }
    let marks = marks(code, grammar, &tree, budget)?;
    write_spans(code, &marks)
}

/// The most the depths of a block's nodes may add up to: tree-sitter's
/// query matching spends time on each node in proportion to its depth, so
/// a deep tree (64 KB of `{` in YAML) is quadratic, seconds of CPU.
fn depth_budget(code: &str) -> usize {
    code.len() * 32 + 50_000
}

/// The longest stretch a parse may give up on (an `ERROR` node): error
/// recovery over a long run of unclosed `$(` leaves a chain of hidden
/// nodes as deep as the run, which the query walks quadratically (0.8 s
/// for 64 KB of Bash). The corpus's longest is 2.8 KB.
const MAX_ERROR_BYTES: usize = 4096;

/// Whether the depths of `tree`'s nodes add up to at most `limit` and no
/// error in it is longer than [`MAX_ERROR_BYTES`] (a walk that stops as
/// soon as either fails).
fn shallow(tree: &Tree, limit: usize) -> bool {
    let mut cursor = tree.walk();
    let (mut depth, mut total) = (0usize, 0usize);
    loop {
        let node = cursor.node();
        total += depth;
        if total > limit || (node.is_error() && node.byte_range().len() > MAX_ERROR_BYTES) {
            return false;
        }
        if cursor.goto_first_child() {
            depth += 1;
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                return true;
            }
            depth -= 1;
        }
    }
}

/// A capture as found: (start, end reversed, the node's place in the
/// cursor's order, rank of its pattern, class), so that sorting puts outer
/// nodes first and each node's winning pattern first.
type Found = (usize, Reverse<usize>, usize, usize, Option<&'static str>);

/// A capture to show: its byte range and class.
struct Mark {
    start: usize,
    end: usize,
    class: &'static str,
}

/// The captures of `grammar`'s query on `tree` that kepsite shows, outer
/// before inner, one per node, the one of the pattern that wins it (see
/// [`Lang::first_wins`]).
fn marks(code: &str, grammar: &Grammar, tree: &Tree, budget: usize) -> Option<Vec<Mark>> {
    let mut steps = 0;
    let mut over = false;
    let mut within = |_: &QueryCursorState| {
        steps += 1;
        over = steps > budget;
        if over {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    };
    let mut cursor = QueryCursor::new();
    let options = QueryCursorOptions::new().progress_callback(&mut within);
    let mut captures =
        cursor.captures_with_options(&grammar.query, tree.root_node(), code.as_bytes(), options);
    // each node by the order the cursor first reached it: node ids are
    // addresses, which differ from run to run, and a node and its child can
    // cover the same bytes (a Bash command name that is a string)
    let mut seen: std::collections::HashMap<usize, usize> = Default::default();
    let mut found: Vec<Found> = Vec::new();
    while let Some((m, i)) = captures.next() {
        let capture = m.captures()[*i];
        let range = capture.node.byte_range();
        let next = seen.len();
        let node = *seen.entry(capture.node.id()).or_insert(next);
        let class = grammar
            .classes
            .get(capture.index as usize)
            .copied()
            .flatten();
        let rank = if grammar.first_wins {
            m.pattern_index
        } else {
            usize::MAX - m.pattern_index
        };
        found.push((range.start, Reverse(range.end), node, rank, class));
    }
    drop(captures);
    if over {
        return None;
    }
    found.sort_unstable_by_key(|f| (f.0, f.1, f.2, f.3));
    found.dedup_by_key(|f| f.2);
    let marks = found
        .into_iter()
        .filter_map(|(start, Reverse(end), _, _, class)| {
            Some(Mark {
                start,
                end,
                class: class?,
            })
        })
        .collect();
    Some(marks)
}

/// `code` escaped, each stretch in the class of the innermost mark over
/// it; neighbours of one class share a span.
fn write_spans(code: &str, marks: &[Mark]) -> Option<String> {
    let mut w = Spans {
        code,
        out: String::with_capacity(code.len() * 2),
        open: "",
        at: 0,
        stack: Vec::new(),
    };
    for mark in marks {
        if mark.start < w.at {
            // overlapping a mark already written past: keep the outer one
            continue;
        }
        w.advance(mark.start)?;
        let outer = w.stack.last().map_or(code.len(), |(end, _)| *end);
        w.stack.push((mark.end.min(outer), mark.class));
    }
    w.advance(code.len())?;
    if !w.open.is_empty() {
        w.out.push_str("</span>");
    }
    Some(w.out)
}

/// [`write_spans`]'s state.
struct Spans<'a> {
    code: &'a str,
    out: String,
    /// The class of the open span ("" for none).
    open: &'static str,
    /// How much of `code` is written.
    at: usize,
    /// The marks around `at`: (end, class), innermost last.
    stack: Vec<(usize, &'static str)>,
}

impl Spans<'_> {
    /// Write `code` up to `to`.
    fn advance(&mut self, to: usize) -> Option<()> {
        loop {
            while self.stack.last().is_some_and(|(end, _)| *end <= self.at) {
                self.stack.pop();
            }
            if self.at >= to {
                return Some(());
            }
            let (end, class) = self.stack.last().copied().unwrap_or((to, ""));
            let next = end.min(to);
            let text = self.code.get(self.at..next)?;
            self.piece(text, class);
            self.at = next;
        }
    }

    fn piece(&mut self, text: &str, class: &'static str) {
        if text.is_empty() {
            return;
        }
        if class != self.open {
            if !self.open.is_empty() {
                self.out.push_str("</span>");
            }
            if !class.is_empty() {
                self.out.push_str("<span class=\"");
                self.out.push_str(class);
                self.out.push_str("\">");
            }
            self.open = class;
        }
        crate::escape::push_text(&mut self.out, text);
    }
}

#[cfg(test)]
mod tests;
