//! Per-file symbols from `queries/<lang>/tags.scm`, and the file's imports from the same
//! walk (`imports.scm` is composed into one query with it; see `import_syntax/mod.rs`).
//!
//! Capture conventions (see `queries/README.md`):
//! - `@definition.<kind>` — the whole definition node; `<kind>` is a [`SymbolKind`].
//! - `@name` — the node whose text is the symbol's name (required).
//! - `@container` — optional; a node whose text names the container explicitly (a Go
//!   method's receiver type) instead of the enclosing definition.
//! - `@body` — optional; the signature is the definition's text up to the body.
//!
//! A definition node captured by several patterns takes its symbols from the earliest
//! pattern in the file, so specific patterns (a method inside a class) go before general
//! ones; likewise a name node captured under several definitions. One pattern may match a
//! node once per name (`var a, b int`): those symbols are siblings, not nested.
//!
//! - `@items` — a `{ … }` token tree whose inside is items (Rust's item-level
//!   `cfg_rt! { pub fn spawn_blocking … }`): the inside is parsed again on its own
//!   (tree-sitter's included ranges keep the file's positions) and, when it parses without
//!   a syntax error and holds no statements, its definitions are the file's own, nested in
//!   whatever encloses the macro call, and so are its imports. A body shaped as `cfg_if!`'s
//!   (`if #[cfg(…)] { … } else { … }`) has each branch parsed instead; a body whose first
//!   token cannot start an item is not parsed at all. The file's own syntax errors never
//!   include a body's: those are only guesses that failed.
//!
//! The result is split for early cutoff: [`SymbolSummary`] (names, kinds, containers; no
//! positions) is what other files' queries read, and [`SymbolPositions`] and
//! [`Signatures`] are read only to present answers.

use std::{collections::HashMap, num::NonZeroU32, sync::Arc};

use serde::{Deserialize, Serialize};

use super::{
    import_syntax::{FileImports, ImportCollector},
    persisted::{language_and_text, recorded},
    small_text::SmallText,
};
use crate::{
    db::{Db, RecordKind, SourceFile},
    lang::{Language, QueryKind},
    syntax::{self, ColumnIndex, LineCol, TextRange, TextSize},
};

/// What a symbol is. The `definition.<kind>` capture names in `tags.scm` use these names.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum SymbolKind {
    Module,
    Class,
    Struct,
    Union,
    Enum,
    Variant,
    Trait,
    Interface,
    Impl,
    Type,
    Function,
    Method,
    Field,
    Constant,
    Static,
    Variable,
    Macro,
}

impl SymbolKind {
    pub const ALL: &[SymbolKind] = &[
        SymbolKind::Module,
        SymbolKind::Class,
        SymbolKind::Struct,
        SymbolKind::Union,
        SymbolKind::Enum,
        SymbolKind::Variant,
        SymbolKind::Trait,
        SymbolKind::Interface,
        SymbolKind::Impl,
        SymbolKind::Type,
        SymbolKind::Function,
        SymbolKind::Method,
        SymbolKind::Field,
        SymbolKind::Constant,
        SymbolKind::Static,
        SymbolKind::Variable,
        SymbolKind::Macro,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            SymbolKind::Module => "module",
            SymbolKind::Class => "class",
            SymbolKind::Struct => "struct",
            SymbolKind::Union => "union",
            SymbolKind::Enum => "enum",
            SymbolKind::Variant => "variant",
            SymbolKind::Trait => "trait",
            SymbolKind::Interface => "interface",
            SymbolKind::Impl => "impl",
            SymbolKind::Type => "type",
            SymbolKind::Function => "function",
            SymbolKind::Method => "method",
            SymbolKind::Field => "field",
            SymbolKind::Constant => "constant",
            SymbolKind::Static => "static",
            SymbolKind::Variable => "variable",
            SymbolKind::Macro => "macro",
        }
    }

    pub fn from_name(name: &str) -> Option<SymbolKind> {
        SymbolKind::ALL.iter().copied().find(|k| k.as_str() == name)
    }

    /// Impl blocks name a container but do not define the name: they show in outlines and
    /// are left out of workspace symbol search unless asked for.
    pub fn defines_name(self) -> bool {
        self != SymbolKind::Impl
    }
}

impl std::fmt::Display for SymbolKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The position-free part of a symbol: what cross-file queries may depend on.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SymbolSummary {
    pub name: SmallText,
    /// Dotted path of the enclosing symbols (`Outer.Inner`), if any.
    pub container: Option<SmallText>,
    /// One more than the index of the enclosing symbol in the same file (so that `None`
    /// costs no bytes of its own): see [`SymbolSummary::parent`].
    parent: Option<NonZeroU32>,
    pub kind: SymbolKind,
}

// Every symbol of the workspace is kept for the whole session (800,000 on a tree of 150 MB
// of text): each byte here is most of a megabyte.
const _: () = assert!(size_of::<SymbolSummary>() == 56);

impl SymbolSummary {
    pub fn new(
        name: SmallText,
        kind: SymbolKind,
        container: Option<SmallText>,
        parent: Option<u32>,
    ) -> SymbolSummary {
        SymbolSummary {
            name,
            container,
            parent: parent.and_then(|p| NonZeroU32::new(p.saturating_add(1))),
            kind,
        }
    }

    /// Index of the enclosing symbol in the same file, for outlines.
    pub fn parent(&self) -> Option<u32> {
        self.parent.map(|p| p.get() - 1)
    }

    pub fn qualified_name(&self) -> String {
        match &self.container {
            Some(c) => format!("{c}.{}", self.name),
            None => self.name.to_string(),
        }
    }
}

/// Where a symbol is; parallel to the summaries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SymbolPositions {
    /// The whole definition.
    pub range: TextRange,
    pub start: LineCol,
    pub end: LineCol,
    /// Just the name.
    pub name_range: TextRange,
    pub name_start: LineCol,
}

/// The heads of a file's definitions, one line each (`def area(self) -> float`), kept in
/// one string: a signature apiece was most symbols' only allocation of their own (625,000
/// of 800,000 are too long to keep inline), each with the allocator's overhead.
#[derive(Clone, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Signatures {
    text: Box<str>,
    /// Where each signature ends in `text`; it starts where the one before it ends.
    ends: Box<[u32]>,
}

impl Signatures {
    /// The `i`th symbol's signature; empty past the end.
    pub fn get(&self, i: usize) -> &str {
        let Some(&end) = self.ends.get(i) else {
            return "";
        };
        let start = match i.checked_sub(1) {
            Some(before) => self.ends[before],
            None => 0,
        };
        self.text
            .get(start as usize..end as usize)
            .unwrap_or_default()
    }
}

impl<'a> FromIterator<&'a str> for Signatures {
    fn from_iter<I: IntoIterator<Item = &'a str>>(signatures: I) -> Signatures {
        let (mut text, mut ends) = (String::new(), Vec::new());
        for signature in signatures {
            text.push_str(signature);
            ends.push(u32::try_from(text.len()).unwrap_or(u32::MAX));
        }
        Signatures {
            text: text.into_boxed_str(),
            ends: ends.into_boxed_slice(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct FileSymbols {
    pub summaries: Arc<[SymbolSummary]>,
    pub positions: Arc<[SymbolPositions]>,
    /// Each symbol's head; parallel to the summaries.
    pub signatures: Signatures,
    /// The file's imports, from the same parse (one parse per file serves every query).
    pub imports: FileImports,
}

/// Symbols of one file, with positions. Re-executes whenever the file's text changes, and
/// then reads the persistent cache first: the symbols depend on the language and the text
/// alone.
#[salsa::tracked(returns(clone))]
pub fn file_symbols(db: &dyn Db, file: SourceFile) -> Arc<FileSymbols> {
    let lang = file.lang(db).info();
    let parts = || language_and_text(db, file);
    Arc::new(recorded(db, RecordKind::FileSymbols, parts, || {
        let interrupt = || super::is_cancelled(db);
        let tree = super::file_tree(db, file);
        match extract_from_tree(lang, &file.text(db), tree.as_ref(), &interrupt) {
            Some(extraction) => extraction.symbols,
            None => super::cancelled(db),
        }
    }))
}

/// The position-free symbols of one file. Re-executes with `file_symbols` but backdates
/// when nothing but positions changed, so queries over many files stay valid.
#[salsa::tracked(returns(clone))]
pub fn symbol_summaries(db: &dyn Db, file: SourceFile) -> Arc<[SymbolSummary]> {
    file_symbols(db, file).summaries.clone()
}

/// Symbols plus which `tags.scm` patterns produced them (tests check every pattern is
/// exercised by a fixture).
#[derive(Default)]
pub struct Extraction {
    pub symbols: FileSymbols,
    pub patterns_used: Vec<usize>,
}

const MAX_SIGNATURE_CHARS: usize = 160;

#[derive(Clone, Copy)]
enum Role {
    Definition(SymbolKind),
    Name,
    Container,
    Body,
    Items,
    Other,
}

struct RawDefinition<'t> {
    node: tree_sitter::Node<'t>,
    kind: SymbolKind,
    name: tree_sitter::Node<'t>,
    container: Option<tree_sitter::Node<'t>>,
    body: Option<tree_sitter::Node<'t>>,
    pattern: usize,
    /// Found in a macro body parsed on its own.
    in_macro: bool,
}

pub fn extract(lang: &Language, text: &str) -> Extraction {
    extract_interruptible(lang, text, syntax::NEVER).expect("never interrupted")
}

/// Like [`extract`]; `None` when `interrupt` stopped the parse.
pub fn extract_interruptible(
    lang: &Language,
    text: &str,
    interrupt: syntax::Interrupt,
) -> Option<Extraction> {
    if lang.query(QueryKind::PerFile).is_none() {
        return Some(Extraction::default());
    }
    let tree = syntax::parse_tree_sitter(lang, text, None, interrupt);
    if tree.is_none() && interrupt() {
        return None;
    }
    extract_from_tree(lang, text, tree.as_ref(), interrupt)
}

/// Like [`extract_interruptible`], over `tree`, the parse of `text` (`None` when the parser
/// gave up: no symbols).
fn extract_from_tree(
    lang: &Language,
    text: &str,
    tree: Option<&tree_sitter::Tree>,
    interrupt: syntax::Interrupt,
) -> Option<Extraction> {
    // Tags and imports in one walk (`QueryKind::PerFile`): tags patterns first.
    let (Some(query), Some(tree)) = (lang.query(QueryKind::PerFile), tree) else {
        return Some(Extraction::default());
    };

    let roles = capture_roles(query);

    // A definition node takes its names from the earliest pattern that matched it (one
    // pattern may match it several times, once per name: `var a, b int`); then each name
    // node keeps the earliest pattern's definition.
    let capture_names = query.capture_names();
    // The trees of macro bodies, one list per nesting level: a level is filled while the
    // definitions found in the levels above it still borrow theirs.
    let levels: [std::cell::OnceCell<Vec<tree_sitter::Tree>>; MAX_MACRO_NESTING] =
        Default::default();
    let mut found = Found::new(&roles, capture_names, lang.per_file_parts());
    if !found.run(lang, tree, text, interrupt, false) {
        return None;
    }
    for level in &levels {
        let bodies = std::mem::take(&mut found.macro_bodies);
        if bodies.is_empty() {
            break;
        }
        let parsed = macro_item_trees(lang, &bodies, text, interrupt)?;
        // One run per tree finds its definitions, imports and the bodies one level down
        // (those below the last level are left alone).
        for tree in level.get_or_init(|| parsed) {
            if !found.run(lang, tree, text, interrupt, true) {
                return None;
            }
        }
    }
    let Found {
        candidates,
        first_pattern,
        item_patterns,
        imports,
        ..
    } = found;
    let imports = imports.finish();
    let defs = unique_definitions(candidates, &first_pattern);
    let (summaries, positions, signatures, mut patterns_used) = summarize(text, &defs);
    patterns_used.extend(item_patterns);
    patterns_used.sort_unstable();
    patterns_used.dedup();
    Some(Extraction {
        symbols: FileSymbols {
            summaries: summaries.into(),
            positions: positions.into(),
            signatures,
            imports,
        },
        patterns_used,
    })
}

/// What each capture of the per-file query says of its node.
fn capture_roles(query: &tree_sitter::Query) -> Vec<Role> {
    query
        .capture_names()
        .iter()
        .map(|name| match *name {
            "name" => Role::Name,
            "container" => Role::Container,
            "body" => Role::Body,
            "items" => Role::Items,
            other => match other
                .strip_prefix("definition.")
                .and_then(SymbolKind::from_name)
            {
                Some(kind) => Role::Definition(kind),
                None => Role::Other,
            },
        })
        .collect()
}

/// One definition per name node, each from the earliest pattern that matched its
/// definition node, outer definitions before the ones they contain.
fn unique_definitions<'t>(
    candidates: Vec<RawDefinition<'t>>,
    first_pattern: &HashMap<usize, usize>,
) -> Vec<RawDefinition<'t>> {
    // Kept in match order, so that a tie (one pattern matching a name under two nested
    // definition nodes, which error recovery produces) goes to the first match rather
    // than to hash order.
    let mut seen: std::collections::HashSet<(usize, usize)> = Default::default();
    let mut slot_of_name: HashMap<usize, usize> = HashMap::new();
    let mut defs: Vec<RawDefinition> = Vec::new();
    for candidate in candidates {
        if first_pattern[&candidate.node.id()] != candidate.pattern
            || !seen.insert((candidate.node.id(), candidate.name.id()))
        {
            continue;
        }
        match slot_of_name.get(&candidate.name.id()) {
            Some(&slot) => {
                if candidate.pattern < defs[slot].pattern {
                    defs[slot] = candidate;
                }
            }
            None => {
                slot_of_name.insert(candidate.name.id(), defs.len());
                defs.push(candidate);
            }
        }
    }
    // Outer definitions before the ones they contain.
    defs.sort_by_key(|d| {
        (
            d.node.start_byte(),
            std::cmp::Reverse(d.node.end_byte()),
            d.name.start_byte(),
        )
    });
    defs
}

/// The symbols of `defs` (in order, each under the innermost one containing it), their
/// positions, and the patterns that found them.
fn summarize(
    text: &str,
    defs: &[RawDefinition],
) -> (
    Vec<SymbolSummary>,
    Vec<SymbolPositions>,
    Signatures,
    Vec<usize>,
) {
    // Columns are differences of running character counts: counting from each symbol's
    // line start is quadratic on a minified file's one long line.
    let columns = ColumnIndex::new(text);
    let point_of = |byte: usize, position: tree_sitter::Point| {
        columns.line_col_from_point(byte, position.row, position.column)
    };
    let mut summaries: Vec<SymbolSummary> = Vec::with_capacity(defs.len());
    let mut positions = Vec::with_capacity(defs.len());
    let mut signatures: Vec<String> = Vec::with_capacity(defs.len());
    let mut patterns_used: Vec<usize> = Vec::new();
    // Enclosing definitions: (index, end byte, qualified name, node id).
    let mut stack: Vec<(u32, usize, String, usize)> = Vec::new();
    for def in defs {
        let start = def.node.start_byte();
        // Pop what does not contain this definition, and siblings sharing its node.
        while stack.last().is_some_and(|&(_, end, _, node)| {
            end <= start || end < def.node.end_byte() || node == def.node.id()
        }) {
            stack.pop();
        }
        let name = SmallText::new(node_text(text, def.name));
        if name.is_empty() {
            continue;
        }
        let parent = stack.last().map(|(i, _, _, _)| *i);
        let container = match def.container {
            Some(node) => Some(SmallText::new(node_text(text, node))).filter(|c| !c.is_empty()),
            None => stack.last().map(|(_, _, q, _)| SmallText::new(q)),
        };
        // A macro body is parsed as a file of its own, where a function is never a method;
        // inside an impl or trait it is one.
        let kind = match (def.kind, parent.map(|p| summaries[p as usize].kind)) {
            (SymbolKind::Function, Some(SymbolKind::Impl | SymbolKind::Trait)) if def.in_macro => {
                SymbolKind::Method
            }
            (kind, _) => kind,
        };
        let summary = SymbolSummary::new(name, kind, container, parent);
        signatures.push(signature(text, def));
        let index = summaries.len() as u32;
        stack.push((
            index,
            def.node.end_byte(),
            summary.qualified_name(),
            def.node.id(),
        ));
        summaries.push(summary);
        positions.push(SymbolPositions {
            range: range(text, def.node),
            start: point_of(def.node.start_byte(), def.node.start_position()),
            end: point_of(def.node.end_byte(), def.node.end_position()),
            name_range: range(text, def.name),
            name_start: point_of(def.name.start_byte(), def.name.start_position()),
        });
        patterns_used.push(def.pattern);
    }
    let signatures = signatures.iter().map(String::as_str).collect();
    (summaries, positions, signatures, patterns_used)
}

/// Macro bodies inside macro bodies are parsed down to this depth.
const MAX_MACRO_NESTING: usize = 4;

/// What runs of the per-file query (tags, then imports) found, over a file's tree and its
/// macro bodies' trees.
struct Found<'r, 't> {
    roles: &'r [Role],
    capture_names: &'r [&'r str],
    /// Patterns below this index are tags patterns, the others imports patterns.
    tags_patterns: usize,
    imports: ImportCollector,
    candidates: Vec<RawDefinition<'t>>,
    /// The earliest pattern that matched each definition node.
    first_pattern: HashMap<usize, usize>,
    /// The insides (between the braces) of the token trees captured as `@items`.
    macro_bodies: Vec<tree_sitter::Range>,
    /// Patterns that captured `@items`.
    item_patterns: Vec<usize>,
}

impl<'r, 't> Found<'r, 't> {
    fn new(roles: &'r [Role], capture_names: &'r [&'r str], tags_patterns: usize) -> Self {
        Found {
            roles,
            capture_names,
            tags_patterns,
            imports: ImportCollector::default(),
            candidates: Vec::new(),
            first_pattern: HashMap::new(),
            macro_bodies: Vec::new(),
            item_patterns: Vec::new(),
        }
    }

    /// Runs the tags query over `tree`; false when interrupted.
    fn run(
        &mut self,
        lang: &Language,
        tree: &'t tree_sitter::Tree,
        text: &str,
        interrupt: syntax::Interrupt,
        in_macro: bool,
    ) -> bool {
        syntax::run_query(lang, QueryKind::PerFile, tree, text, interrupt, |m| {
            if m.pattern_index >= self.tags_patterns {
                // A macro body that is items holds imports too (`cfg_rt! { pub use …; mod
                // blocking; }`); its tree keeps the file's positions.
                self.imports.add(m, self.capture_names, text);
            } else {
                self.add(m, text, in_macro)
            }
        })
    }

    /// Records one match: a candidate definition, or a macro body.
    fn add(&mut self, m: &tree_sitter::QueryMatch<'_, 't>, text: &str, in_macro: bool) {
        let (mut def, mut name, mut container, mut body) = (None, None, None, None);
        for capture in m.captures() {
            match self.roles[capture.index as usize] {
                Role::Definition(kind) => def = Some((capture.node, kind)),
                Role::Name => name = Some(capture.node),
                Role::Container => container = Some(capture.node),
                Role::Body => body = Some(capture.node),
                Role::Items => {
                    self.item_patterns.push(m.pattern_index);
                    item_bodies(capture.node, text, &mut self.macro_bodies);
                }
                Role::Other => {}
            }
        }
        let (Some((node, kind)), Some(name)) = (def, name) else {
            return;
        };
        let first = self
            .first_pattern
            .entry(node.id())
            .or_insert(m.pattern_index);
        *first = (*first).min(m.pattern_index);
        self.candidates.push(RawDefinition {
            node,
            kind,
            name,
            container,
            body,
            pattern: m.pattern_index,
            in_macro,
        });
    }
}

/// Adds to `out` the parts of the `{ … }` token tree `body` that may be items: each branch
/// when it has `cfg_if!`'s shape, else its whole inside, unless its first token cannot
/// start an item (`phf_map! { "a" => 1 }`, `numbers! { 1, 2 }`): a cheap test that spares
/// parsing what would fail anyway.
pub(crate) fn item_bodies(body: tree_sitter::Node, text: &str, out: &mut Vec<tree_sitter::Range>) {
    let Some(inside) = inside_braces(body) else {
        return;
    };
    let mut cursor = body.walk();
    let tokens: Vec<tree_sitter::Node> = body
        .children(&mut cursor)
        .filter(|t| !t.is_extra())
        .collect();
    // Between the braces (`inside_braces` checked both).
    let tokens = &tokens[1..tokens.len() - 1];
    match tokens.first() {
        Some(first) if first.kind() == "if" => {
            if let Some(branches) = cfg_if_branches(tokens, text) {
                out.extend(branches);
            }
        }
        Some(first) if ITEM_STARTS.contains(&first.kind()) => out.push(inside),
        _ => {}
    }
}

/// Token kinds an item can start with: attributes, visibility, item keywords, and
/// identifiers and paths (a macro call, `union`, `macro_rules!`, `auto trait`).
const ITEM_STARTS: &[&str] = &[
    "#",
    "pub",
    "fn",
    "struct",
    "enum",
    "mod",
    "use",
    "impl",
    "trait",
    "type",
    "const",
    "static",
    "unsafe",
    "async",
    "extern",
    "identifier",
    "::",
    "crate",
    "self",
    "super",
];

/// The insides of the branches of a body shaped as `cfg_if!`'s: `if #[…] { … }`, then any
/// number of `else if #[…] { … }`, then optionally `else { … }`. `None` for any other
/// shape.
fn cfg_if_branches(tokens: &[tree_sitter::Node], text: &str) -> Option<Vec<tree_sitter::Range>> {
    let delimited = |t: &tree_sitter::Node, open: &str| {
        t.kind() == "token_tree" && t.child(0).is_some_and(|c| c.kind() == open)
    };
    let is_else = |t: &tree_sitter::Node| {
        t.kind() == "else" || (t.kind() == "identifier" && node_text(text, *t) == "else")
    };
    let mut branches = Vec::new();
    let mut rest = tokens;
    loop {
        match rest {
            [r#if, hash, attribute, body, tail @ ..]
                if r#if.kind() == "if" && hash.kind() == "#" && delimited(attribute, "[") =>
            {
                branches.push(inside_braces(*body)?);
                rest = tail;
            }
            _ => return None,
        }
        match rest {
            [] => return Some(branches),
            [r#else, tail @ ..] if is_else(r#else) && tail.first()?.kind() == "if" => rest = tail,
            [r#else, body] if is_else(r#else) => {
                branches.push(inside_braces(*body)?);
                return Some(branches);
            }
            _ => return None,
        }
    }
}

/// The range between a token tree's `{` and `}`, when braces delimit it and it is closed.
fn inside_braces(token_tree: tree_sitter::Node) -> Option<tree_sitter::Range> {
    let open = token_tree.child(0)?;
    let close = token_tree.child(token_tree.child_count().checked_sub(1)?)?;
    if open.kind() != "{" || close.kind() != "}" || close.is_missing() || open == close {
        return None;
    }
    Some(tree_sitter::Range {
        start_byte: open.end_byte(),
        end_byte: close.start_byte(),
        start_point: open.end_position(),
        end_point: close.start_position(),
    })
}

/// The trees of `bodies` that parse as items without a syntax error. `None` when
/// interrupted.
pub(crate) fn macro_item_trees(
    lang: &Language,
    bodies: &[tree_sitter::Range],
    text: &str,
    interrupt: syntax::Interrupt,
) -> Option<Vec<tree_sitter::Tree>> {
    let mut trees = Vec::new();
    for body in bodies {
        let parsed = syntax::parse_range(
            lang,
            text,
            body.start_byte..body.end_byte,
            body.start_point,
            body.end_point,
            interrupt,
        );
        match parsed {
            Some(tree) if !tree.root_node().has_error() && only_items(tree.root_node()) => {
                trees.push(tree)
            }
            Some(_) => {}
            None if interrupt() => return None,
            None => {}
        }
    }
    Some(trees)
}

/// Whether a macro body's tree holds items only: the grammar takes statements at the top
/// level too (`let x = 1;`, `1 + 2;`), which no item-level macro body holds; a macro call
/// with a `;` (`m!(x);`) is an item.
fn only_items(root: tree_sitter::Node) -> bool {
    let mut cursor = root.walk();
    root.named_children(&mut cursor).all(|n| match n.kind() {
        "let_declaration" => false,
        "expression_statement" => n
            .named_child(0)
            .is_some_and(|e| e.kind() == "macro_invocation"),
        _ => true,
    })
}

fn node_text<'t>(text: &'t str, node: tree_sitter::Node) -> &'t str {
    let r = range(text, node);
    &text[usize::from(r.start())..usize::from(r.end())]
}

fn range(text: &str, node: tree_sitter::Node) -> TextRange {
    let start = syntax::floor_char_boundary(text, node.start_byte());
    let end = syntax::floor_char_boundary(text, node.end_byte()).max(start);
    TextRange::new(TextSize::new(start as u32), TextSize::new(end as u32))
}

/// The definition's head on one line: its text up to the body (or all of it when there is
/// no body), whitespace collapsed, without leading decorators, capped in length.
fn signature(text: &str, def: &RawDefinition) -> String {
    let mut start = def.node.start_byte();
    // Decorators that the grammar puts inside the definition (`@dec class C {}` in
    // JavaScript) are not part of the head.
    let mut cursor = def.node.walk();
    for child in def.node.children(&mut cursor) {
        if child.kind() != "decorator" {
            start = child.start_byte();
            break;
        }
    }
    let end = match def.body {
        Some(body) if body.start_byte() > start => body.start_byte(),
        _ => def.node.end_byte(),
    };
    let start = syntax::floor_char_boundary(text, start);
    let end = syntax::floor_char_boundary(text, end).max(start);
    // A head without a body can be megabytes (a minified `var modules = {…}`, nested
    // definitions inside it each with a head of their own): read it through growing
    // windows until one decides the capped signature.
    let mut window = first_signature_window();
    loop {
        let window_end = if end - start <= window {
            end
        } else {
            syntax::floor_char_boundary(text, start + window)
        };
        if let Some(signature) = signature_of_window(text, def, start, window_end, end) {
            return signature;
        }
        window = window.saturating_mul(4);
    }
}

/// First window of a head to read; most heads fit.
const SIGNATURE_WINDOW_BYTES: usize = 1024;

#[cfg(not(test))]
fn first_signature_window() -> usize {
    SIGNATURE_WINDOW_BYTES
}

// Tests compare tiny windows with one unbounded window (the whole head at once).
#[cfg(test)]
thread_local! {
    static FIRST_SIGNATURE_WINDOW: std::cell::Cell<usize> =
        const { std::cell::Cell::new(SIGNATURE_WINDOW_BYTES) };
}

#[cfg(test)]
fn first_signature_window() -> usize {
    FIRST_SIGNATURE_WINDOW.get()
}

/// The signature of the head `text[start..end]` read only up to `window_end`, if that
/// prefix decides it. A prefix of the head yields a prefix of its words, except that the
/// last word may be cut (or followed by the line break that elides a block): that word
/// is left out, and the prefix decides the signature once the rest already overflows the
/// cap (the first `MAX_SIGNATURE_CHARS` characters no longer change).
fn signature_of_window(
    text: &str,
    def: &RawDefinition,
    start: usize,
    window_end: usize,
    end: usize,
) -> Option<String> {
    let mut head = without_comments(text, def.node, start, window_end);
    let mut complete = window_end == end;
    if def.body.is_none() {
        // Without a body capture the whole definition is the head, but a brace block that
        // spans lines (`var cfg struct {` … `}`, `DEFAULTS = {` … `}`) is elided.
        if let Some(open) = block_opening(&head) {
            head.truncate(open + 1);
            head.push_str(" … }");
            complete = true;
        }
    }
    let mut words: Vec<&str> = head.split_whitespace().collect();
    if !complete {
        words.pop();
    }
    let mut out = String::new();
    for word in words {
        let glued = out.ends_with(['(', '[']) || word.starts_with([')', ']']);
        if !out.is_empty() && !glued {
            out.push(' ');
        }
        if word.starts_with([')', ']']) && out.ends_with(',') {
            // A trailing comma before a closing bracket only exists for line breaks.
            out.pop();
        }
        out.push_str(word);
        if out.len() > MAX_SIGNATURE_CHARS * 4 {
            break;
        }
    }
    let chars = out.chars().count();
    if chars > MAX_SIGNATURE_CHARS {
        // Later words could only remove a trailing comma past the cap, then add more.
        return Some(out.chars().take(MAX_SIGNATURE_CHARS).collect::<String>() + "…");
    }
    complete.then_some(out)
}

/// Byte offset of the first `{` that ends its line.
fn block_opening(head: &str) -> Option<usize> {
    head.match_indices('{').map(|(i, _)| i).find(|&i| {
        let rest = head[i + 1..].trim_start_matches([' ', '\t', '\r']);
        rest.starts_with('\n')
    })
}

/// `text[start..end]` with the comments inside `node` in that span replaced by a space.
fn without_comments(text: &str, node: tree_sitter::Node, start: usize, end: usize) -> String {
    let mut out = String::new();
    let mut pos = start;
    let mut cursor = node.walk();
    'walk: loop {
        let n = cursor.node();
        let overlaps = n.start_byte() < end && n.end_byte() > start;
        if overlaps && n.kind().contains("comment") && n.start_byte() >= pos {
            let comment_start = syntax::floor_char_boundary(text, n.start_byte());
            out.push_str(&text[pos..comment_start]);
            out.push(' ');
            pos = syntax::floor_char_boundary(text, n.end_byte().min(end)).max(pos);
        } else if overlaps && cursor.goto_first_child() {
            continue;
        }
        loop {
            // Siblings come in text order: once one starts past the span, so do the rest.
            if cursor.goto_next_sibling() && cursor.node().start_byte() < end {
                continue 'walk;
            }
            if !cursor.goto_parent() || cursor.node() == node {
                break 'walk;
            }
        }
    }
    if pos < end {
        out.push_str(&text[pos..end]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::registry;

    #[test]
    fn signatures_are_read_back_one_by_one_and_empty_past_the_end() {
        let signatures: Signatures = ["def f(x)", "", "class Émile(Base)", "x"]
            .into_iter()
            .collect();
        let read: Vec<&str> = (0..5).map(|i| signatures.get(i)).collect();
        assert_eq!(read, ["def f(x)", "", "class Émile(Base)", "x", ""]);
        assert_eq!(Signatures::default().get(0), "");
    }

    #[test]
    fn a_summary_keeps_its_parent_in_four_bytes() {
        let summary = |parent| SymbolSummary::new("f".into(), SymbolKind::Function, None, parent);
        for parent in [None, Some(0), Some(1), Some(u32::MAX - 1)] {
            assert_eq!(summary(parent).parent(), parent);
        }
    }

    fn extract_with_window(lang: &Language, text: &str, window: usize) -> FileSymbols {
        FIRST_SIGNATURE_WINDOW.set(window);
        let symbols = extract(lang, text).symbols;
        FIRST_SIGNATURE_WINDOW.set(SIGNATURE_WINDOW_BYTES);
        symbols
    }

    fn fixture_texts() -> Vec<(String, String)> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/symbols");
        let mut out = Vec::new();
        for lang_dir in std::fs::read_dir(dir).unwrap().flatten() {
            for entry in std::fs::read_dir(lang_dir.path()).unwrap().flatten() {
                let path = entry.path();
                if path.extension().is_some_and(|e| e == "fixture") {
                    let lang = lang_dir.file_name().to_string_lossy().into_owned();
                    out.push((lang, std::fs::read_to_string(path).unwrap()));
                }
            }
        }
        out
    }

    /// One pattern can match a name under two definition nodes (error recovery nests
    /// them): which one wins must not depend on hash order.
    #[test]
    fn extraction_is_deterministic_when_a_pattern_matches_a_name_twice() {
        let lang = registry().by_id("python").unwrap();
        let text =
            "class Shape(abc.ABC): sides: int name = \"shape\" width = height = 0 S, T = \"st\"";
        let first = extract(lang, text).symbols;
        for _ in 0..50 {
            assert_eq!(extract(lang, text).symbols, first);
        }
    }

    /// Reading a head through growing windows gives exactly the signature of reading it
    /// whole, for every fixture as written, on one line (minified), and with its heads
    /// padded past the cap by long comments and whitespace.
    #[test]
    fn signature_windows_match_whole_heads() {
        let fixtures = fixture_texts();
        assert!(!fixtures.is_empty());
        let mut compared = 0;
        for (lang_id, text) in fixtures {
            let lang = registry().by_id(&lang_id).unwrap();
            let variants = [
                text.clone(),
                text.replace('\n', " "),
                text.replace(',', ",\n        ")
                    .replace('(', "( /* é漢😀 */ "),
                text.replace(' ', &" ".repeat(50)),
            ];
            for variant in variants {
                let whole = extract_with_window(lang, &variant, usize::MAX);
                for window in [1, 7, 64] {
                    let windowed = extract_with_window(lang, &variant, window);
                    assert_eq!(windowed, whole, "{lang_id}, first window {window}");
                }
                compared += whole.summaries.len();
            }
        }
        assert!(compared > 1000, "only {compared} symbols compared");
    }
}
