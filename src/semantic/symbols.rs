//! Per-file symbols from `queries/<lang>/tags.scm`.
//!
//! Capture conventions (see `queries/README.md`):
//! - `@definition.<kind>` — the whole definition node; `<kind>` is a [`SymbolKind`].
//! - `@name` — the node whose text is the symbol's name (required).
//! - `@container` — optional; a node whose text names the container explicitly (a Go
//!   method's receiver type) instead of the enclosing definition.
//! - `@body` — optional; the signature is the definition's text up to the body.
//!
//! A node captured by several patterns yields one symbol: the earliest pattern in the file
//! wins, so specific patterns (a method inside a class) go before general ones.
//!
//! The result is split in two for early cutoff: [`SymbolSummary`] (names, kinds,
//! containers, signatures; no positions) is what other files' queries read, and
//! [`SymbolPositions`] is read only to present answers.

use std::{collections::HashMap, sync::Arc};

use serde::Serialize;
use tree_sitter::StreamingIterator;

use crate::{
    db::{Db, SourceFile},
    lang::{Language, QueryKind},
    syntax::{self, LineCol, TextRange, TextSize, line_col_from_point},
};

/// What a symbol is. The `definition.<kind>` capture names in `tags.scm` use these names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
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
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SymbolSummary {
    pub name: String,
    pub kind: SymbolKind,
    /// Dotted path of the enclosing symbols (`Outer.Inner`), if any.
    pub container: Option<String>,
    /// The definition's head, on one line (`def area(self) -> float:`).
    pub signature: String,
    /// Index of the enclosing symbol in the same file, for outlines.
    pub parent: Option<u32>,
}

impl SymbolSummary {
    pub fn qualified_name(&self) -> String {
        match &self.container {
            Some(c) => format!("{c}.{}", self.name),
            None => self.name.clone(),
        }
    }
}

/// Where a symbol is; parallel to the summaries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SymbolPositions {
    /// The whole definition.
    pub range: TextRange,
    pub start: LineCol,
    pub end: LineCol,
    /// Just the name.
    pub name_range: TextRange,
    pub name_start: LineCol,
}

#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct FileSymbols {
    pub summaries: Arc<[SymbolSummary]>,
    pub positions: Arc<[SymbolPositions]>,
}

/// Symbols of one file, with positions. Re-executes whenever the file's text changes.
#[salsa::tracked(returns(clone))]
pub fn file_symbols(db: &dyn Db, file: SourceFile) -> Arc<FileSymbols> {
    let lang = file.lang(db).info();
    Arc::new(extract(lang, file.text(db)).symbols)
}

/// The position-free symbols of one file. Re-executes with `file_symbols` but backdates
/// when nothing but positions changed, so queries over many files stay valid.
#[salsa::tracked(returns(clone))]
pub fn symbol_summaries(db: &dyn Db, file: SourceFile) -> Arc<[SymbolSummary]> {
    file_symbols(db, file).summaries.clone()
}

/// Symbols plus which `tags.scm` patterns produced them (tests check every pattern is
/// exercised by a fixture).
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
    Other,
}

struct RawDefinition<'t> {
    node: tree_sitter::Node<'t>,
    kind: SymbolKind,
    name: tree_sitter::Node<'t>,
    container: Option<tree_sitter::Node<'t>>,
    body: Option<tree_sitter::Node<'t>>,
    pattern: usize,
}

pub fn extract(lang: &Language, text: &str) -> Extraction {
    let empty = Extraction { symbols: FileSymbols::default(), patterns_used: Vec::new() };
    let Some(query) = lang.query(QueryKind::Tags) else { return empty };
    let Some(tree) = syntax::parse_tree_sitter(lang, text, None) else { return empty };

    let roles: Vec<Role> = query
        .capture_names()
        .iter()
        .map(|name| match *name {
            "name" => Role::Name,
            "container" => Role::Container,
            "body" => Role::Body,
            other => match other.strip_prefix("definition.").and_then(SymbolKind::from_name) {
                Some(kind) => Role::Definition(kind),
                None => Role::Other,
            },
        })
        .collect();

    // Keep, per definition node and per name node, the match of the earliest pattern.
    let mut by_node: HashMap<usize, RawDefinition> = HashMap::new();
    let mut cursor = tree_sitter::QueryCursor::new();
    let mut matches = cursor.matches(query, tree.root_node(), text.as_bytes());
    while let Some(m) = matches.next() {
        let (mut def, mut name, mut container, mut body) = (None, None, None, None);
        for capture in m.captures() {
            match roles[capture.index as usize] {
                Role::Definition(kind) => def = Some((capture.node, kind)),
                Role::Name => name = Some(capture.node),
                Role::Container => container = Some(capture.node),
                Role::Body => body = Some(capture.node),
                Role::Other => {}
            }
        }
        let (Some((node, kind)), Some(name)) = (def, name) else { continue };
        let candidate = RawDefinition { node, kind, name, container, body, pattern: m.pattern_index };
        match by_node.get(&node.id()) {
            Some(existing) if existing.pattern <= candidate.pattern => {}
            _ => {
                by_node.insert(node.id(), candidate);
            }
        }
    }
    let mut by_name: HashMap<usize, RawDefinition> = HashMap::new();
    for def in by_node.into_values() {
        match by_name.get(&def.name.id()) {
            Some(existing) if existing.pattern <= def.pattern => {}
            _ => {
                by_name.insert(def.name.id(), def);
            }
        }
    }
    let mut defs: Vec<RawDefinition> = by_name.into_values().collect();
    // Outer definitions before the ones they contain.
    defs.sort_by_key(|d| (d.node.start_byte(), std::cmp::Reverse(d.node.end_byte()), d.pattern));

    let mut summaries = Vec::with_capacity(defs.len());
    let mut positions = Vec::with_capacity(defs.len());
    let mut patterns_used: Vec<usize> = Vec::new();
    // Enclosing definitions: (index, end byte, qualified name).
    let mut stack: Vec<(u32, usize, String)> = Vec::new();
    for def in &defs {
        let start = def.node.start_byte();
        while stack.last().is_some_and(|&(_, end, _)| end <= start || end < def.node.end_byte()) {
            stack.pop();
        }
        let name = node_text(text, def.name).to_string();
        if name.is_empty() {
            continue;
        }
        let parent = stack.last().map(|(i, _, _)| *i);
        let container = match def.container {
            Some(node) => Some(node_text(text, node).to_string()).filter(|c| !c.is_empty()),
            None => stack.last().map(|(_, _, q)| q.clone()),
        };
        let summary = SymbolSummary {
            signature: signature(text, def),
            name,
            kind: def.kind,
            container,
            parent,
        };
        let index = summaries.len() as u32;
        stack.push((index, def.node.end_byte(), summary.qualified_name()));
        summaries.push(summary);
        positions.push(SymbolPositions {
            range: range(text, def.node),
            start: point(text, def.node.start_byte(), def.node.start_position()),
            end: point(text, def.node.end_byte(), def.node.end_position()),
            name_range: range(text, def.name),
            name_start: point(text, def.name.start_byte(), def.name.start_position()),
        });
        patterns_used.push(def.pattern);
    }
    patterns_used.sort_unstable();
    patterns_used.dedup();
    Extraction {
        symbols: FileSymbols { summaries: summaries.into(), positions: positions.into() },
        patterns_used,
    }
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

fn point(text: &str, offset: usize, p: tree_sitter::Point) -> LineCol {
    line_col_from_point(text, offset, p.row, p.column)
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
    let mut out = String::new();
    for word in text[start..end].split_whitespace() {
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
    if out.chars().count() > MAX_SIGNATURE_CHARS {
        out = out.chars().take(MAX_SIGNATURE_CHARS).collect::<String>() + "…";
    }
    out
}
