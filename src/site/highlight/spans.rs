//! Running a grammar's query over a block: the parse and the query within
//! their budgets, the captures that win each node, and the escaped text in
//! class-named spans.

use std::cell::RefCell;
use std::cmp::Reverse;
use std::ops::ControlFlow;

use tree_sitter::{
    ParseOptions, ParseState, Parser, QueryCursor, QueryCursorOptions, QueryCursorState,
    StreamingIterator, Tree,
};

use super::Grammar;

/// The work a block's parse and query may take, in tree-sitter's own units
/// (its progress callbacks, one per hundred steps). The corpus's blocks
/// take at most a seventeenth of it (35 for an 8 KB block), and 60 KB of
/// dense code (a line of calls or of JSON after another) about 60%.
/// Counting steps, not time, keeps a build's output the same on any
/// machine. Error recovery over hostile
/// input takes tens of times the steps per byte, at up to two microseconds
/// each; such a block goes over the budget and is shown without colours,
/// after at most about 0.3 s for 64 KB (see [`super::README_BUDGET`]).
fn budget(code: &str) -> usize {
    code.len() / 16 + 100
}

/// One progress callback of a parse or a query: counted, and the work
/// stopped once the count passes `budget`.
fn tick(steps: &mut usize, budget: usize) -> ControlFlow<()> {
    *steps += 1;
    if *steps > budget {
        ControlFlow::Break(())
    } else {
        ControlFlow::Continue(())
    }
}

/// `code` as escaped text in class-named spans (`None` when its parse or
/// query goes over [`budget`], or a token does not fall on character
/// boundaries).
pub(super) fn spans(code: &str, grammar: &Grammar) -> Option<String> {
    thread_local! {
        static PARSER: RefCell<Parser> = RefCell::new(Parser::new());
    }
    let budget = budget(code);
    let tree = PARSER.with(|parser| {
        let mut parser = parser.borrow_mut();
        parser.set_language(&grammar.language).ok()?;
        let mut steps = 0;
        let mut within = |_: &ParseState| tick(&mut steps, budget);
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
    if !shallow(&tree, code.len(), depth_budget(code)) {
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
fn shallow(tree: &Tree, len: usize, limit: usize) -> bool {
    // Short of walking: a tree of n nodes (the walk's nodes, as
    // tree-sitter counts them) has depths adding up to at most
    // n(n-1)/2, a chain's; and in a block of `len` bytes no longer than
    // the longest error allowed, no error is longer.
    let n = tree.root_node().descendant_count();
    if n.saturating_mul(n.saturating_sub(1)) / 2 <= limit && len <= MAX_ERROR_BYTES {
        return true;
    }
    walked_shallow(tree, limit)
}

/// [`shallow`], by walking every node.
fn walked_shallow(tree: &Tree, limit: usize) -> bool {
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
    let mut within = |_: &QueryCursorState| tick(&mut steps, budget);
    let mut cursor = QueryCursor::new();
    let options = QueryCursorOptions::new().progress_callback(&mut within);
    let mut captures =
        cursor.captures_with_options(&grammar.query, tree.root_node(), code.as_bytes(), options);
    // each node by the order the cursor first reached it: node ids are
    // addresses, which differ from run to run, and a node and its child can
    // cover the same bytes (a Bash command name that is a string)
    let mut seen: crate::site::search::FastMap<usize, usize> = Default::default();
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
    // a query past its budget just ends: it is told by the count
    if steps > budget {
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
mod tests {
    use super::super::LANGS;
    use super::*;

    /// The nodes the walk visits.
    fn walked(tree: &Tree) -> usize {
        let mut cursor = tree.walk();
        let mut n = 0;
        loop {
            n += 1;
            if cursor.goto_first_child() {
                continue;
            }
            while !cursor.goto_next_sibling() {
                if !cursor.goto_parent() {
                    return n;
                }
            }
        }
    }

    #[test]
    fn the_count_that_spares_the_walk_is_the_walks_count() {
        let codes = [
            "kind: Pod\nspec:\n  containers:\n  - name: x\n    args: [\"a\", 1]\n".to_string(),
            "func F() { if x { return [](int){1} } }\n// c\n".to_string(),
            "{\"a\": [1, {\"b\": null}]}\n".to_string(),
            "a".repeat(3000),
            "a ".repeat(2500),
            "[".repeat(600),
            "{ $( (".repeat(300),
            "x:\n".to_string() + &"  - y: {\n".repeat(100),
        ];
        let mut spared = 0;
        for lang in LANGS {
            let grammar = lang.grammar().unwrap();
            let mut parser = Parser::new();
            parser.set_language(&grammar.language).unwrap();
            for code in &codes {
                let tree = parser.parse(code, None).unwrap();
                assert_eq!(tree.root_node().descendant_count(), walked(&tree));
                for limit in [0, 10, 1_000, depth_budget(code)] {
                    let fast = shallow(&tree, code.len(), limit);
                    assert_eq!(fast, walked_shallow(&tree, limit), "{lang:?} {limit}");
                    let n = tree.root_node().descendant_count();
                    spared += usize::from(n * n.saturating_sub(1) / 2 <= limit);
                }
            }
        }
        assert!(spared > 0, "some trees are short enough to spare the walk");
    }
}
