//! One Go file → what it declares about feature gates ([`FileFacts`]), read
//! from tree-sitter's syntax tree: the imports, the `Feature`-typed string
//! constants with their doc comments, and the composite literals of type
//! `map[…Feature]…VersionedSpecs` or `map[…Feature]…FeatureSpec`.
//!
//! Nothing here knows other files: a map key is kept as written (`X` or
//! `pkg.X`) and [`super::build`] resolves it against every file's constants.

use std::cell::RefCell;
use std::collections::HashMap;

use tree_sitter::{Language, Node, Parser, Tree};

use super::{PreRelease, Spec, kep};

/// What one file declares.
#[derive(Debug, Default)]
pub(super) struct FileFacts {
    /// `Name featuregate.Feature = "Name"` constants, in file order.
    pub consts: Vec<ConstDecl>,
    /// The entries of the spec maps, in file order.
    pub entries: Vec<SpecEntry>,
    /// Import name (or the path's last part) → import path.
    pub imports: HashMap<String, String>,
    /// (line, message) of what could not be read: the file (line 0), a
    /// declaration or a spec. Gates may be missing because of each.
    pub problems: Vec<(usize, String)>,
    /// (line, message) of what was read in part, with no gate lost (a
    /// `kep:` line cut to its first KEPs).
    pub notes: Vec<(usize, String)>,
}

/// A `kep:` line's text and the KEP numbers it names.
pub(super) type KepLine = (String, Vec<u32>);

/// A gate constant.
#[derive(Debug)]
pub(super) struct ConstDecl {
    /// The Go identifier.
    pub ident: String,
    /// The string value: the gate's name.
    pub name: String,
    /// 1-based line of the identifier.
    pub line: usize,
    /// The `// kep:` line's text and KEP numbers.
    pub kep: Option<KepLine>,
    /// Typed `Feature` (`X featuregate.Feature = "X"` or `X =
    /// featuregate.Feature("X")`); an untyped string constant (`X = "X"`)
    /// is a gate only when a spec map names it.
    pub typed: bool,
}

/// The key of a spec map entry as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Key {
    /// `X`: a constant of this package.
    Local(String),
    /// `pkg.X`: a constant of an imported package.
    Qualified(String, String),
}

/// One entry of a spec map.
#[derive(Debug)]
pub(super) struct SpecEntry {
    pub key: Key,
    pub specs: Vec<Spec>,
    /// From a `VersionedSpecs` map.
    pub versioned: bool,
    /// 1-based line of the key.
    pub line: usize,
}

thread_local! {
    static PARSER: RefCell<Option<Parser>> = const { RefCell::new(None) };
}

/// The facts of one file's text. Never panics; what it cannot read becomes
/// a problem and the rest is still read.
pub(super) fn read(text: &str) -> FileFacts {
    read_after(text, None).0
}

/// [`read`] of a file's bytes (not UTF-8: read lossily), unless it is over
/// [`super::MAX_FILE_BYTES`].
pub(super) fn read_bytes(bytes: &[u8]) -> FileFacts {
    if bytes.len() > super::MAX_FILE_BYTES {
        return too_large(bytes.len() as u64);
    }
    read(&String::from_utf8_lossy(bytes))
}

/// The facts of a file not read because it has `size` bytes, over
/// [`super::MAX_FILE_BYTES`]: one problem saying so.
pub(super) fn too_large(size: u64) -> FileFacts {
    let mut facts = FileFacts::default();
    let message = format!(
        "not read: {size} bytes, over the limit of {} for a gate file",
        super::MAX_FILE_BYTES
    );
    facts.problems.push((0, message));
    facts
}

/// [`read`], reusing `old`: the previous version's syntax tree, already
/// edited to this text's positions ([`Tree::edit`]), so tree-sitter parses
/// only what changed. Also returns this text's tree.
pub(super) fn read_after(text: &str, old: Option<&Tree>) -> (FileFacts, Option<Tree>) {
    let mut facts = FileFacts::default();
    let tree = PARSER.with(|cell| {
        let mut slot = cell.borrow_mut();
        let parser = slot.get_or_insert_with(|| {
            let mut p = Parser::new();
            // The grammar is linked in: setting it cannot fail but on an ABI
            // mismatch, which then shows as "could not parse" below.
            let _ = p.set_language(&Language::from(tree_sitter_go::LANGUAGE));
            p
        });
        parser.parse(text, old)
    });
    let Some(tree) = tree else {
        facts.problems.push((1, "could not parse the file".into()));
        return (facts, None);
    };
    let root = tree.root_node();
    if root.has_error() {
        let line = first_error(root).map_or(1, |n| n.start_position().row + 1);
        facts.problems.push((
            line,
            "syntax error: declarations around this line may be missing".into(),
        ));
    }
    Reader::new(text).walk(root, &mut facts);
    (facts, Some(tree))
}

/// The first ERROR or MISSING node, in document order.
fn first_error(root: Node) -> Option<Node> {
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if node.is_error() || node.is_missing() {
            return Some(node);
        }
        if node.has_error() {
            let mut cursor = node.walk();
            let children: Vec<_> = node.children(&mut cursor).collect();
            stack.extend(children.into_iter().rev());
        }
    }
    None
}

/// The walk's state: the source and the comments seen so far.
struct Reader<'t> {
    text: &'t str,
    /// Row → text (without `//`) of a `//` comment that begins its line.
    comments: HashMap<usize, &'t str>,
    /// Untyped boolean constants (`contextualLoggingDefault = true`).
    bools: HashMap<String, bool>,
    /// The last row whose doc comment's `kep:` line was read, and what it
    /// gave: constants on one line (`A = "A"; B = "B"; …`) share one doc
    /// comment, which is read once, not once per constant.
    last_doc: Option<(usize, Option<KepLine>)>,
}

impl<'t> Reader<'t> {
    fn new(text: &'t str) -> Self {
        Reader {
            text,
            comments: HashMap::new(),
            bools: HashMap::new(),
            last_doc: None,
        }
    }

    fn src(&self, node: Node) -> &'t str {
        node.utf8_text(self.text.as_bytes()).unwrap_or("")
    }

    /// Every node in document order (comments come before the constant
    /// they document, boolean constants before the maps that use them).
    fn walk(&mut self, root: Node, facts: &mut FileFacts) {
        let mut stack = vec![root];
        while let Some(node) = stack.pop() {
            match node.kind() {
                "comment" => self.comment(node),
                "import_spec" => self.import(node, facts),
                "const_spec" => self.const_spec(node, facts),
                // Spec maps are read whole; other literals (the dependency
                // map) hold no declarations: neither is walked into.
                "composite_literal" => {
                    if let Some(versioned) = self.spec_map(node)
                        && let Some(body) = node.child_by_field_name("body")
                    {
                        self.map_body(body, versioned, facts);
                    }
                    continue;
                }
                _ => {}
            }
            let mut cursor = node.walk();
            let children: Vec<_> = node.children(&mut cursor).collect();
            stack.extend(children.into_iter().rev());
        }
    }

    fn comment(&mut self, node: Node) {
        let text = self.src(node);
        let Some(body) = text.strip_prefix("//") else {
            return;
        };
        let start = node.start_byte();
        let column = node.start_position().column;
        let before = self.text.get(start - column..start).unwrap_or("x");
        if before.trim().is_empty() {
            self.comments.insert(node.start_position().row, body);
        }
    }

    fn import(&self, node: Node, facts: &mut FileFacts) {
        let Some(path) = node.child_by_field_name("path") else {
            return;
        };
        let path = unquote(self.src(path));
        let name = match node.child_by_field_name("name") {
            Some(n) => self.src(n).to_string(),
            None => path.rsplit('/').next().unwrap_or(path).to_string(),
        };
        facts.imports.insert(name, path.to_string());
    }

    /// The doc comment lines of a declaration starting at `row`: the
    /// unbroken run of whole-line `//` comments just above it.
    fn doc(&self, row: usize) -> Vec<&'t str> {
        let mut lines = Vec::new();
        let mut r = row;
        while r > 0
            && let Some(line) = self.comments.get(&(r - 1))
        {
            lines.push(*line);
            r -= 1;
        }
        lines.reverse();
        lines
    }

    /// The `kep:` line of the doc comment of the declaration at `row`
    /// (see [`Reader::doc`]), read once per row.
    fn kep_at(&mut self, row: usize, facts: &mut FileFacts) -> Option<KepLine> {
        if let Some((r, kep)) = &self.last_doc
            && *r == row
        {
            return kep.clone();
        }
        let kep = kep::from_doc(self.doc(row));
        if let Some((text, keps)) = &kep
            && kep::was_cut(text, keps)
        {
            let message = format!(
                "this kep: line is read for its first {} KEPs and {} bytes",
                kep::MAX_KEPS,
                kep::MAX_TEXT
            );
            facts.notes.push((row + 1, message));
        }
        self.last_doc = Some((row, kep.clone()));
        kep
    }

    fn const_spec(&mut self, node: Node, facts: &mut FileFacts) {
        let mut cursor = node.walk();
        let names: Vec<Node> = node
            .children_by_field_name("name", &mut cursor)
            .filter(|n| n.kind() == "identifier")
            .collect();
        let values: Vec<Node> = node
            .child_by_field_name("value")
            .map(|list| {
                let mut c = list.walk();
                list.named_children(&mut c)
                    .filter(|n| n.kind() != "comment")
                    .collect()
            })
            .unwrap_or_default();
        let typed = node
            .child_by_field_name("type")
            .map(|t| last_part(self.src(t)) == "Feature");
        for (i, name) in names.iter().enumerate() {
            let ident = self.src(*name).to_string();
            let line = name.start_position().row + 1;
            let Some(value) = values.get(i).copied() else {
                continue;
            };
            if let Some(b) = bool_literal(value.kind()) {
                self.bools.insert(ident, b);
                continue;
            }
            let (string, typed) = match typed {
                Some(false) => continue,
                Some(true) => (Some(value).filter(|v| is_string(*v)), true),
                None if is_string(value) => (Some(value), false),
                None => match self.conversion(value) {
                    Some(v) => (Some(v), true),
                    None => continue,
                },
            };
            let Some(string) = string else {
                let message = format!("feature constant {ident} has no string value");
                facts.problems.push((line, message));
                continue;
            };
            let kep = self.kep_at(node.start_position().row, facts);
            facts.consts.push(ConstDecl {
                ident,
                name: unquote(self.src(string)).to_string(),
                line,
                kep,
                typed,
            });
        }
    }

    /// The string of `featuregate.Feature("X")`.
    fn conversion<'n>(&self, value: Node<'n>) -> Option<Node<'n>> {
        if value.kind() != "call_expression" {
            return None;
        }
        let function = value.child_by_field_name("function")?;
        if last_part(self.src(function)) != "Feature" {
            return None;
        }
        match named(value.child_by_field_name("arguments")?).as_slice() {
            [one] if is_string(*one) => Some(*one),
            _ => None,
        }
    }

    /// `Some(versioned)` when `node` is a `map[Feature]VersionedSpecs` or
    /// `map[Feature]FeatureSpec` literal (qualified or not).
    fn spec_map(&self, node: Node) -> Option<bool> {
        let ty = node.child_by_field_name("type")?;
        if ty.kind() != "map_type" {
            return None;
        }
        let key = self.src(ty.child_by_field_name("key")?);
        let value = self.src(ty.child_by_field_name("value")?);
        if last_part(key) != "Feature" {
            return None;
        }
        match last_part(value) {
            "VersionedSpecs" => Some(true),
            "FeatureSpec" => Some(false),
            _ => None,
        }
    }

    fn map_body(&self, body: Node, versioned: bool, facts: &mut FileFacts) {
        for element in named(body) {
            let line = element.start_position().row + 1;
            let (Some(key), Some(value)) = (
                element.child_by_field_name("key").and_then(inner),
                element.child_by_field_name("value").and_then(inner),
            ) else {
                facts
                    .problems
                    .push((line, "a spec map entry without key: value".into()));
                continue;
            };
            let key = match key.kind() {
                "identifier" => Key::Local(self.src(key).to_string()),
                "selector_expression" => match self.selector(key) {
                    Some((pkg, name)) => Key::Qualified(pkg, name),
                    None => Key::Local(self.src(key).to_string()),
                },
                _ => {
                    let text = self.src(key);
                    facts
                        .problems
                        .push((line, format!("unreadable spec map key {text}")));
                    continue;
                }
            };
            let specs = if versioned {
                self.versioned_specs(value, facts)
            } else {
                self.spec(value)
                    .map(RawSpec::into_spec)
                    .map_err(|e| facts.problems.push((line, e)))
                    .ok()
                    .into_iter()
                    .collect()
            };
            facts.entries.push(SpecEntry {
                key,
                specs,
                versioned,
                line,
            });
        }
    }

    fn selector(&self, node: Node) -> Option<(String, String)> {
        let operand = node.child_by_field_name("operand")?;
        let field = node.child_by_field_name("field")?;
        (operand.kind() == "identifier")
            .then(|| (self.src(operand).to_string(), self.src(field).to_string()))
    }

    fn versioned_specs(&self, list: Node, facts: &mut FileFacts) -> Vec<Spec> {
        let mut specs = Vec::new();
        if list.kind() != "literal_value" {
            let line = list.start_position().row + 1;
            let text = self.src(list);
            facts
                .problems
                .push((line, format!("versioned specs are not a list: {text}")));
            return specs;
        }
        for item in named(list) {
            let line = item.start_position().row + 1;
            let parsed = inner(item)
                .ok_or_else(|| "an empty spec".to_string())
                .and_then(|n| self.spec(n))
                .and_then(|s| match s.minor {
                    Some(_) => Ok(s),
                    None => Err("a versioned spec without Version".into()),
                });
            match parsed {
                Ok(spec) => specs.push(spec.into_spec()),
                Err(e) => facts.problems.push((line, e)),
            }
        }
        specs
    }
}

mod spec;

/// The named children of `node` but comments.
fn named(node: Node) -> Vec<Node> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor)
        .filter(|n| n.kind() != "comment")
        .collect()
}

/// A `literal_element`'s expression (or the node itself).
fn inner(node: Node) -> Option<Node> {
    if node.kind() == "literal_element" {
        named(node).into_iter().next()
    } else {
        Some(node)
    }
}

/// `featuregate.Feature` → `Feature`.
fn last_part(text: &str) -> &str {
    text.rsplit('.').next().unwrap_or(text).trim()
}

/// `"x"` or `` `x` `` → `x`.
fn unquote(text: &str) -> &str {
    text.trim_matches(|c| c == '"' || c == '`')
}

fn is_string(node: Node) -> bool {
    node.kind().ends_with("string_literal")
}

fn bool_literal(kind: &str) -> Option<bool> {
    match kind {
        "true" => Some(true),
        "false" => Some(false),
        _ => None,
    }
}

/// A spec as read, before its version is known to be there.
struct RawSpec {
    minor: Option<u32>,
    default: bool,
    pre_release: PreRelease,
    locked: bool,
}

impl RawSpec {
    fn into_spec(self) -> Spec {
        Spec {
            minor: self.minor.unwrap_or(0),
            default: self.default,
            pre_release: self.pre_release,
            locked: self.locked,
        }
    }
}
