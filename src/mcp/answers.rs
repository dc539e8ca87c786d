//! The MCP answer shapes: `ide`'s answers as an agent reads them, each costing context.
//!
//! Invariant: by default an answer carries lines, names, kinds and signatures only, and
//! leaves out what it can (absent rather than `null` or empty, a container that the
//! enclosing entry already names, a `false` flag that is rarely set). Columns and byte
//! offsets, as [`Span`]s (the one position type of every answer), come only with
//! `positions: "full"`. The CLI's `--json` prints the `ide` answers themselves, always with
//! spans.

use rmcp::{
    ErrorData,
    handler::server::tool::IntoCallToolResult,
    model::{CallToolResponse, CallToolResult, ContentBlock, Resource},
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use crate::workspace::Indexed;

use crate::ide::{
    Certainty, CheckResult, CheckSummary, Definition, DiagnosticCode, GraphNode, ImportGraphView,
    ImportInfo, ImportStatus, Outline, OutlineNode, ParseOutput, ReferenceRole, References,
    Severity, Span, SymbolKind, SymbolMatch, SymbolSearch, SyntaxErrorInfo,
};

/// A tool's structured answer, as rmcp's `Json` but with the text content (what a model is
/// usually shown) written in field order, so each entry reads name first; rmcp's goes
/// through a `serde_json::Value`, whose keys are sorted (`children` before `name`).
pub struct Json<T>(pub T);

impl<T: Serialize> IntoCallToolResult for Json<T> {
    fn into_call_tool_result(self) -> Result<CallToolResponse, ErrorData> {
        let failed = |e: serde_json::Error| {
            ErrorData::internal_error(format!("the answer did not serialize: {e}"), None)
        };
        let text = serde_json::to_string(&self.0).map_err(failed)?;
        let value = serde_json::to_value(&self.0).map_err(failed)?;
        let mut result = CallToolResult::structured(value);
        result.content = vec![ContentBlock::text(text)];
        Ok(result.into())
    }
}

/// An answer of a tool that reads code for a model (`read_symbol`, `skeleton`, `search`,
/// `read_file`): the text content is `text`, code as it is written, not escaped into JSON
/// (what a model reads, and what the answer's `tokens` counts); the structured content is
/// `data`, the same answer for programs.
pub struct Rendered<T> {
    pub text: String,
    pub data: T,
}

impl<T: Serialize> IntoCallToolResult for Rendered<T> {
    fn into_call_tool_result(self) -> Result<CallToolResponse, ErrorData> {
        let value = serde_json::to_value(&self.data).map_err(|e| {
            ErrorData::internal_error(format!("the answer did not serialize: {e}"), None)
        })?;
        let mut result = CallToolResult::structured(value);
        result.content = vec![ContentBlock::text(self.text)];
        Ok(result.into())
    }
}

/// A [`Rendered`] answer followed by links to resources that hold the rest of it (a pack
/// too large for one answer: `text` is then its summary).
pub struct Linked<T> {
    pub rendered: Rendered<T>,
    pub links: Vec<Resource>,
}

impl<T: Serialize> IntoCallToolResult for Linked<T> {
    fn into_call_tool_result(self) -> Result<CallToolResponse, ErrorData> {
        let value = serde_json::to_value(&self.rendered.data).map_err(|e| {
            ErrorData::internal_error(format!("the answer did not serialize: {e}"), None)
        })?;
        let mut result = CallToolResult::structured(value);
        result.content = std::iter::once(ContentBlock::text(self.rendered.text))
            .chain(self.links.into_iter().map(ContentBlock::resource_link))
            .collect();
        Ok(result.into())
    }
}

// How much of each position an answer gives (plain comments: the argument's description
// says it, and a documented variant would turn the schema's `enum` into a `oneOf`).
#[derive(Clone, Copy, Debug, Default, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Positions {
    // Line numbers only.
    #[default]
    Lines,
    // Also `span`s: 1-based line and column (in characters), 0-based byte offsets.
    Full,
}

impl Positions {
    fn span(self, span: Span) -> Option<Span> {
        (self == Positions::Full).then_some(span)
    }
}

fn is_false(flag: &bool) -> bool {
    !flag
}

/// A symbol in a file's outline.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct OutlineEntry {
    pub name: String,
    pub kind: SymbolKind,
    /// The enclosing definition, given when it is not the entry this one is listed under.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub container: Option<String>,
    /// First line of the whole definition (1-based).
    pub line: u32,
    /// Last line of the whole definition.
    pub end_line: u32,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub signature: String,
    /// With `positions: "full"`: the whole definition.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub span: Option<Span>,
    /// With `positions: "full"`: just the name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name_span: Option<Span>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<OutlineEntry>,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct OutlineAnswer {
    pub path: String,
    pub language: String,
    /// Symbols the file defines in all.
    pub symbol_count: usize,
    pub symbols: Vec<OutlineEntry>,
    /// More symbols follow the ones shown (in document order).
    pub truncated: bool,
    /// When truncated: ask again from this symbol (`offset`) for the rest.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_offset: Option<usize>,
}

impl OutlineAnswer {
    pub fn new(outline: Outline, positions: Positions) -> OutlineAnswer {
        fn entry(node: OutlineNode, parent: Option<&str>, positions: Positions) -> OutlineEntry {
            let children = node
                .children
                .into_iter()
                .map(|child| entry(child, Some(&node.name), positions))
                .collect();
            OutlineEntry {
                container: node.container.filter(|c| Some(c.as_str()) != parent),
                line: node.span.start.line,
                end_line: node.span.end.line,
                span: positions.span(node.span),
                name_span: positions.span(node.name_span),
                name: node.name,
                kind: node.kind,
                signature: node.signature,
                children,
            }
        }
        OutlineAnswer {
            path: outline.path,
            language: outline.language,
            symbol_count: outline.symbol_count,
            symbols: outline
                .symbols
                .into_iter()
                .map(|n| entry(n, None, positions))
                .collect(),
            truncated: outline.truncated,
            next_offset: outline.next_offset,
        }
    }
}

/// A definition found by `lookup_symbol`.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct SymbolHit {
    pub name: String,
    pub kind: SymbolKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub container: Option<String>,
    pub path: String,
    /// Asked of every root (no `root` given, on a server of several): the root holding
    /// `path`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub root: Option<String>,
    /// First line of the whole definition (1-based).
    pub line: u32,
    /// Last line of the whole definition.
    pub end_line: u32,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub signature: String,
    /// With `positions: "full"`: the whole definition.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub span: Option<Span>,
    /// With `positions: "full"`: just the name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name_span: Option<Span>,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct LookupAnswer {
    pub query: String,
    /// Best first.
    pub symbols: Vec<SymbolHit>,
    /// Symbols that matched in all; more than `symbols` holds when truncated.
    pub total: usize,
    pub truncated: bool,
    /// Present while the server's first index runs: the answer covers only the files
    /// indexed so far.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partial: Option<Indexed>,
    /// Asked of every root: each root, in order, with `partial` when it answered from its
    /// files indexed so far and `error` when it did not answer (its hits are missing).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub roots: Option<Vec<super::roots::RootPart>>,
}

impl LookupAnswer {
    pub fn new(search: SymbolSearch, positions: Positions) -> LookupAnswer {
        let hit = |m: SymbolMatch| SymbolHit {
            line: m.span.start.line,
            end_line: m.span.end.line,
            span: positions.span(m.span),
            name_span: positions.span(m.name_span),
            name: m.name,
            kind: m.kind,
            container: m.container,
            path: m.path,
            root: None,
            signature: m.signature,
        };
        LookupAnswer {
            query: search.query,
            symbols: search.symbols.into_iter().map(hit).collect(),
            total: search.total,
            truncated: search.truncated,
            partial: None,
            roots: None,
        }
    }

    /// One answer from every root's (`parts`, in the roots' order, each with the files it
    /// had indexed when it answered partially): best first by the search's own ranking
    /// (match tier, then shorter names, then the name), ties in the roots' order; at most
    /// `limit` hits; `partial` sums the roots that answered partially.
    pub fn merged(
        query: &str,
        parts: super::roots::Answers<(SymbolSearch, Option<Indexed>)>,
        limit: usize,
        positions: Positions,
    ) -> LookupAnswer {
        let (answered, roots) = super::roots::split(parts, |(_, indexed)| *indexed);
        let (mut lists, mut names) = (Vec::new(), Vec::new());
        let mut total = 0;
        for (name, (search, _)) in answered {
            total += search.total;
            lists.push(search.symbols);
            names.push(name);
        }
        let mut hits = super::roots::merge_ordered(lists, SymbolMatch::rank);
        hits.truncate(limit);
        let (names, symbols): (Vec<String>, Vec<SymbolMatch>) =
            hits.into_iter().map(|(i, m)| (names[i].clone(), m)).unzip();
        let mut answer = LookupAnswer::new(
            SymbolSearch {
                query: query.to_string(),
                truncated: total > symbols.len(),
                symbols,
                total,
            },
            positions,
        );
        for (hit, name) in answer.symbols.iter_mut().zip(names) {
            hit.root = Some(name);
        }
        answer.partial = super::roots::indexed_in_all(&roots);
        answer.roots = Some(roots);
        answer
    }
}

/// A syntax error: where it starts (1-based line and column) and what it is.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct SyntaxErrorEntry {
    pub message: String,
    pub line: u32,
    pub column: u32,
    /// With `positions: "full"`: the whole erroneous range.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub span: Option<Span>,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct ParseAnswer {
    pub path: String,
    pub language: String,
    /// Present when the file is not valid UTF-8 (invalid bytes were replaced for analysis).
    #[serde(skip_serializing_if = "is_false")]
    pub lossy_utf8: bool,
    /// Indented s-expression, one node or token per line, with `line:col-line:col` spans.
    pub tree: String,
    pub node_count: usize,
    pub truncated: bool,
    pub error_count: usize,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<SyntaxErrorEntry>,
    /// Present when more errors than listed.
    #[serde(skip_serializing_if = "is_false")]
    pub errors_truncated: bool,
}

impl ParseAnswer {
    pub fn new(out: ParseOutput, positions: Positions) -> ParseAnswer {
        let error = |e: SyntaxErrorInfo| SyntaxErrorEntry {
            message: e.message,
            line: e.span.start.line,
            column: e.span.start.column,
            span: positions.span(e.span),
        };
        ParseAnswer {
            path: out.path,
            language: out.language,
            lossy_utf8: out.lossy_utf8,
            tree: out.tree,
            node_count: out.node_count,
            truncated: out.truncated,
            error_count: out.error_count,
            errors: out.errors.into_iter().map(error).collect(),
            errors_truncated: out.errors_truncated,
        }
    }
}

/// One import of `list_imports`.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct ImportEntry {
    /// Line of the import statement (1-based).
    pub line: u32,
    /// The module as written: `a.b`, or relative `..a` / `.`.
    pub module: String,
    /// The name imported from the module; absent for `import module`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The local name given with `as`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alias: Option<String>,
    /// `from module import *`.
    #[serde(skip_serializing_if = "is_false")]
    pub wildcard: bool,
    /// Also a public re-export (`pub use`, `export … from`).
    #[serde(skip_serializing_if = "is_false")]
    pub is_public: bool,
    /// Names types only (TypeScript's `import type`).
    #[serde(skip_serializing_if = "is_false")]
    pub type_only: bool,
    /// `resolved` (a workspace file), `external` (the standard library, a runtime built-in
    /// or a listed dependency) or `unresolved`.
    pub status: String,
    /// When resolved: the workspace file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolved_path: Option<String>,
    /// When resolved and the name is defined at the file's top level: its line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub definition_line: Option<u32>,
    /// When external: the standard library's top-level module, or the dependency.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub package: Option<String>,
    /// With `positions: "full"`: the whole statement.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub span: Option<Span>,
    /// With `positions: "full"`: the definition's name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub definition_span: Option<Span>,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct ImportsAnswer {
    pub path: String,
    /// In document order.
    pub imports: Vec<ImportEntry>,
}

impl ImportsAnswer {
    pub fn new(path: String, imports: Vec<ImportInfo>, positions: Positions) -> ImportsAnswer {
        let entry = |i: ImportInfo| {
            let (status, resolved_path, definition, package) = match i.status {
                ImportStatus::Resolved { path, definition } => {
                    ("resolved", Some(path), definition, None)
                }
                ImportStatus::External { package } => ("external", None, None, Some(package)),
                ImportStatus::Unresolved => ("unresolved", None, None, None),
            };
            ImportEntry {
                line: i.span.start.line,
                module: i.module,
                name: i.name,
                alias: i.alias,
                wildcard: i.wildcard,
                is_public: i.is_public,
                type_only: i.type_only,
                status: status.to_string(),
                resolved_path,
                definition_line: definition.map(|d| d.start.line),
                package,
                span: positions.span(i.span),
                definition_span: definition.and_then(|d| positions.span(d)),
            }
        };
        ImportsAnswer {
            path,
            imports: imports.into_iter().map(entry).collect(),
        }
    }
}

/// A definition, lean.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct DefinitionEntry {
    pub name: String,
    /// `function`, `class`, `parameter`, `variable`, `import`, `attribute`, `module`, or
    /// `external` (then `module` says where from; `builtins` for builtins).
    pub kind: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Asked of every root (a name, no `root` given, on a server of several): the root
    /// that answered it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub root: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub module: Option<String>,
    /// Present and true when matched by name only (the receiver's type is unknown).
    #[serde(skip_serializing_if = "is_false")]
    pub heuristic: bool,
    /// With `positions: "full"`: the defining name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub span: Option<Span>,
}

impl DefinitionEntry {
    fn new(d: Definition, positions: Positions) -> DefinitionEntry {
        DefinitionEntry {
            line: d.span.map(|s| s.start.line),
            span: d.span.and_then(|s| positions.span(s)),
            name: d.name,
            kind: d.kind,
            path: d.path,
            root: None,
            module: d.module,
            heuristic: d.certainty == Certainty::Heuristic,
        }
    }
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct DefinitionAnswer {
    /// Where the name is defined (imports followed); empty when nothing is known.
    pub definitions: Vec<DefinitionEntry>,
    /// Present while the server's first index runs (by `query` only): the definitions
    /// come from the files indexed so far, which define the name; others may define it too.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partial: Option<Indexed>,
    /// Asked of every root: each root, in order, with `partial` when it answered from its
    /// files indexed so far and `error` when it did not answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub roots: Option<Vec<super::roots::RootPart>>,
}

impl DefinitionAnswer {
    pub fn new(found: Vec<Definition>, positions: Positions) -> DefinitionAnswer {
        DefinitionAnswer {
            definitions: found
                .into_iter()
                .map(|d| DefinitionEntry::new(d, positions))
                .collect(),
            partial: None,
            roots: None,
        }
    }

    /// Every root's definitions, in the roots' order, each saying its root (`partial` sums
    /// the roots that answered from the files indexed so far).
    pub fn merged(
        parts: super::roots::Answers<(Vec<Definition>, Option<Indexed>)>,
        positions: Positions,
    ) -> DefinitionAnswer {
        let (answered, roots) = super::roots::split(parts, |(_, indexed)| *indexed);
        let definitions = answered
            .into_iter()
            .flat_map(|(name, (found, _))| {
                found.into_iter().map(move |d| DefinitionEntry {
                    root: Some(name.clone()),
                    ..DefinitionEntry::new(d, positions)
                })
            })
            .collect();
        DefinitionAnswer {
            definitions,
            partial: super::roots::indexed_in_all(&roots),
            roots: Some(roots),
        }
    }
}

/// One use of a name, lean.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct ReferenceEntry {
    pub path: String,
    /// Asked of every root: the root holding `path`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub root: Option<String>,
    pub line: u32,
    pub column: u32,
    pub role: ReferenceRole,
    /// Present and true when matched by name only (the receiver's type is unknown).
    #[serde(skip_serializing_if = "is_false")]
    pub heuristic: bool,
    /// The source line, trimmed.
    pub text: String,
    /// With `positions: "full"`: the name's span.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub span: Option<Span>,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct ReferencesAnswer {
    /// What was searched for.
    pub definitions: Vec<DefinitionEntry>,
    /// By path, then position.
    pub references: Vec<ReferenceEntry>,
    pub total: usize,
    pub truncated: bool,
    /// Files whose names were resolved (those that can mention the name).
    pub files_searched: usize,
    /// Asked of every root: each root, in order, with `error` when it did not answer
    /// (its references are missing).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub roots: Option<Vec<super::roots::RootPart>>,
}

impl ReferencesAnswer {
    /// The answer with only its first `n` references (then `truncated`).
    pub fn first(&self, n: usize) -> ReferencesAnswer {
        let mut cut = self.clone();
        if n < cut.references.len() {
            cut.references.truncate(n);
            cut.truncated = true;
        }
        cut
    }

    pub fn new(found: References, positions: Positions) -> ReferencesAnswer {
        ReferencesAnswer {
            definitions: found
                .definitions
                .into_iter()
                .map(|d| DefinitionEntry::new(d, positions))
                .collect(),
            references: found
                .references
                .into_iter()
                .map(|r| ReferenceEntry {
                    path: r.path,
                    root: None,
                    line: r.span.start.line,
                    column: r.span.start.column,
                    role: r.role,
                    heuristic: r.certainty == Certainty::Heuristic,
                    text: r.line_text,
                    span: positions.span(r.span),
                })
                .collect(),
            total: found.total,
            truncated: found.truncated,
            files_searched: found.files_searched,
            roots: None,
        }
    }

    /// Every root's answer as one: the definitions in the roots' order, the references by
    /// path and position (ties in the roots' order), at most `limit`; `total` and
    /// `files_searched` summed.
    pub fn merged(
        parts: super::roots::Answers<References>,
        limit: usize,
        positions: Positions,
    ) -> ReferencesAnswer {
        let (answered, roots) = super::roots::split(parts, |_| None);
        let (mut definitions, mut lists, mut names) = (Vec::new(), Vec::new(), Vec::new());
        let (mut total, mut files_searched) = (0, 0);
        for (name, found) in answered {
            let mut answer = ReferencesAnswer::new(found, positions);
            total += answer.total;
            files_searched += answer.files_searched;
            for definition in &mut answer.definitions {
                definition.root = Some(name.clone());
            }
            definitions.append(&mut answer.definitions);
            lists.push(answer.references);
            names.push(name);
        }
        let mut references: Vec<ReferenceEntry> =
            super::roots::merge_ordered(lists, |r: &ReferenceEntry| {
                (r.path.clone(), r.line, r.column)
            })
            .into_iter()
            .map(|(i, r)| ReferenceEntry {
                root: Some(names[i].clone()),
                ..r
            })
            .collect();
        references.truncate(limit);
        ReferencesAnswer {
            definitions,
            truncated: total > references.len(),
            references,
            total,
            files_searched,
            roots: Some(roots),
        }
    }
}

/// `import_graph`: nodes with their depth, edges as paths, cycles.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct ImportGraphAnswer {
    /// The start first (depth 0), then by depth; for the whole workspace, every node with an
    /// import edge, in path order.
    pub nodes: Vec<GraphNode>,
    /// `[importer, imported]`, between listed nodes.
    pub edges: Vec<[String; 2]>,
    /// Import cycles: the one through the start, or every one.
    pub cycles: Vec<Vec<String>>,
    /// The shortest chain of imports from the start back to it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub shortest_cycle: Vec<String>,
    /// Nodes within reach in all, listed or not.
    pub node_total: usize,
    /// Nodes, edges or cycles were left out: ask with a smaller depth or a larger limit.
    pub truncated: bool,
}

impl ImportGraphAnswer {
    pub fn new(view: ImportGraphView) -> ImportGraphAnswer {
        let path = |i: u32| view.nodes[i as usize].path.clone();
        ImportGraphAnswer {
            edges: view
                .edges
                .iter()
                .map(|e| [path(e.from), path(e.to)])
                .collect(),
            truncated: view.truncated || view.cycles_truncated,
            nodes: view.nodes,
            cycles: view.cycles,
            shortest_cycle: view.shortest_cycle,
            node_total: view.node_total,
        }
    }
}

/// A diagnostic, lean: where (line and column), what code, what it says.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct DiagnosticEntry {
    pub path: String,
    pub line: u32,
    /// 1-based, in characters.
    pub column: u32,
    /// `SX005`; `explain_diagnostic` tells what it means and how to fix it.
    pub code: String,
    pub severity: Severity,
    pub message: String,
    /// With `positions: "full"`: the range reported.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub span: Option<Span>,
    /// Other places the diagnostic refers to (the earlier definition of a redefined name,
    /// the next import of a cycle).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub related: Vec<RelatedEntry>,
    /// Its fix, when it has one: what it does and whether it is `safe`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<crate::ide::FixInfo>,
    /// With `depth: "deep"`: the codes a type checker reports the same finding by.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub also: Vec<String>,
}

impl DiagnosticEntry {
    pub fn new(d: crate::ide::DiagnosticInfo, positions: Positions) -> DiagnosticEntry {
        DiagnosticEntry {
            path: d.path,
            line: d.span.start.line,
            column: d.span.start.column,
            code: d.code,
            severity: d.severity,
            message: d.message,
            span: positions.span(d.span),
            related: d
                .related
                .into_iter()
                .map(|r| RelatedEntry {
                    path: r.path,
                    line: r.span.start.line,
                    column: r.span.start.column,
                    message: r.message,
                    span: positions.span(r.span),
                })
                .collect(),
            fix: d.fix,
            also: d.also,
        }
    }
}

/// A place a diagnostic refers to: in its file, or in the file `path` names.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct RelatedEntry {
    /// The file, when it is not the diagnostic's own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    pub line: u32,
    pub column: u32,
    pub message: String,
    /// With `positions: "full"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub span: Option<Span>,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct TypecheckAnswer {
    /// By path, then position; at most `limit`.
    pub diagnostics: Vec<DiagnosticEntry>,
    /// Counts of everything found, whatever the limit.
    pub summary: CheckSummary,
    /// With `fix: true`: the fixes, not written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fixes: Option<FixesAnswer>,
    /// With `depth: "deep"`: each type checker's run on each project (`status`: ran,
    /// cached, missing, failed, timed_out, cancelled, not_allowed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checkers: Option<Vec<crate::workspace::typecheck::CheckerRun>>,
}

/// The fixes of a check's diagnostics, computed and not written.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct FixesAnswer {
    /// Every fix, as one unified diff against the files as they are (`apply_patch` writes
    /// it, all files or none).
    pub diff: String,
    /// Each fix applied in the diff: the diagnostic it resolves and what it does.
    pub fixed: Vec<crate::ide::AppliedFix>,
    /// Diagnostics left after the fixes whose fix is unsafe (`unsafe_fixes: true`).
    pub unsafe_fixes_left: usize,
    /// Diagnostics left after the fixes, in all.
    pub remaining: usize,
    /// Diagnostics the fixed files, or the files importing them, would have that they do
    /// not have now (a fix that introduces one is a bug: do not apply it).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub new_diagnostics: Vec<DiagnosticEntry>,
    /// Files left out of the diff: their fixes would introduce these errors.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub withheld: Vec<WithheldEntry>,
}

/// A file whose fixes are left out, and the errors they would introduce.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct WithheldEntry {
    pub path: String,
    pub because: Vec<DiagnosticEntry>,
}

impl FixesAnswer {
    pub fn new(outcome: crate::ide::FixOutcome, positions: Positions) -> FixesAnswer {
        FixesAnswer {
            diff: outcome.diff,
            fixed: outcome.applied,
            unsafe_fixes_left: outcome.unsafe_fixes_left,
            remaining: outcome.remaining.summary.total,
            new_diagnostics: outcome
                .new_diagnostics
                .unwrap_or_default()
                .into_iter()
                .map(|d| DiagnosticEntry::new(d, positions))
                .collect(),
            withheld: outcome
                .withheld
                .into_iter()
                .map(|w| WithheldEntry {
                    path: w.path,
                    because: w
                        .because
                        .into_iter()
                        .map(|d| DiagnosticEntry::new(d, positions))
                        .collect(),
                })
                .collect(),
        }
    }
}

impl TypecheckAnswer {
    pub fn new(result: CheckResult, positions: Positions) -> TypecheckAnswer {
        TypecheckAnswer {
            diagnostics: result
                .diagnostics
                .into_iter()
                .map(|d| DiagnosticEntry::new(d, positions))
                .collect(),
            summary: result.summary,
            fixes: None,
            checkers: None,
        }
    }

    /// The first `n` diagnostics (the summary says how many there were).
    pub fn first(&self, n: usize) -> TypecheckAnswer {
        let mut answer = self.clone();
        if answer.diagnostics.len() > n {
            answer.diagnostics.truncate(n);
            answer.summary.truncated = true;
        }
        answer
    }
}

/// A diagnostic code explained.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct ExplainAnswer {
    pub code: String,
    pub category: String,
    pub title: String,
    /// What it means; says when sextant does not check it yet.
    pub description: String,
    /// Code that triggers it, then the same code fixed.
    pub example: String,
    /// What to do.
    pub help: String,
    /// For a checker's code (`rustc:E0308`): the checker that reports it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// For a checker's code: the tool's documentation of it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

impl ExplainAnswer {
    /// A checker's code: the tool's own explanation as the description (its first line as
    /// the title), or why there is none.
    pub fn for_tool(code: crate::workspace::typecheck::ToolCode) -> ExplainAnswer {
        let description = code
            .explanation
            .clone()
            .or(code.note.clone())
            .unwrap_or_default();
        let title = code
            .explanation
            .as_deref()
            .and_then(|e| e.lines().next())
            .map_or_else(|| code.code.clone(), str::to_string);
        let mut help = format!("Reported by {}.", code.tool);
        if let Some(url) = &code.url {
            help.push_str(&format!(" Its documentation: {url}"));
        }
        ExplainAnswer {
            code: code.code,
            category: "checker".into(),
            title,
            description,
            example: String::new(),
            help,
            tool: Some(code.tool),
            url: code.url,
        }
    }

    pub fn new(code: &DiagnosticCode) -> ExplainAnswer {
        let checked = if code.implemented().is_empty() {
            " Not checked yet (planned).".to_string()
        } else if code.implemented().contains(&"*") {
            " Checked in every language.".to_string()
        } else {
            format!(" Checked today in: {}.", code.implemented().join(", "))
        };
        ExplainAnswer {
            code: code.id.clone(),
            category: code.category.clone(),
            title: code.title.clone(),
            description: format!("{}{checked}", code.description.trim().replace('\n', " ")),
            example: format!(
                "{}\n\n# fixed:\n{}",
                code.example.trim_matches('\n'),
                code.fix.trim_matches('\n')
            ),
            help: code.help.clone(),
            tool: None,
            url: None,
        }
    }
}
