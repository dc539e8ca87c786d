//! Diagnostics per file: syntax errors with their codes, then each language's checks
//! (Python: `python/` and `arity.rs`; JavaScript, TypeScript and TSX: `ecmascript/`;
//! Go: `go.rs`, `go_unused.rs` and `go_arity.rs`; Rust: `rust.rs`) and the structural checks of every language
//! (`duplicates.rs`: duplicate definitions, parameters and keys; `control_flow.rs`:
//! `return`/`yield`/`await`/`break`/`continue` outside their context), every finding under
//! a code of the registry (`registry.rs`, from `codes.toml`); last, the file's suppression
//! comments (`suppression.rs`) remove what they suppress, so no caller sees a suppressed
//! finding.
//!
//! Invariant (incremental): [`file_diagnostics`] reads its own file's queries
//! (`syntax_errors`, `file_names`, `file_symbols`) and, of other files, only position-free
//! facts (the module map `python_modules`, built from paths; a Python module's top-level
//! names, `module_names`; a Go file's package-level names and function signatures,
//! `go_file_facts` and `go_arity::go_signatures`): an edit inside a function
//! body re-checks that file alone, and a whole-workspace check reuses every other file's
//! memoized answer. Precision first: where a check cannot be sure, it says nothing.

mod arity;
mod control_flow;
pub mod cycles;
mod duplicates;
pub mod ecmascript;
mod go;
mod go_arity;
mod go_unused;
mod python;
pub mod registry;
mod rust;
mod suppression;

use std::sync::Arc;

use crate::{
    db::{Db, SourceFile, Workspace},
    syntax::TextRange,
};

pub use registry::{Code, Severity};

/// One finding in one file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// The code's id (`SX005`); its registry entry is [`Diagnostic::code`].
    pub id: &'static str,
    pub range: TextRange,
    pub message: String,
    /// Other places in the same file the finding refers to (an earlier definition), each
    /// with a note.
    pub related: Vec<(TextRange, String)>,
}

impl Diagnostic {
    fn new(id: &'static str, range: TextRange, message: String) -> Diagnostic {
        Diagnostic {
            id,
            range,
            message,
            related: Vec::new(),
        }
    }

    /// The same finding, also pointing at `range` (an earlier definition) with `note`.
    fn with_related(mut self, range: TextRange, note: impl Into<String>) -> Diagnostic {
        self.related.push((range, note.into()));
        self
    }

    pub fn code(&self) -> &'static Code {
        registry::code(self.id)
    }
}

/// Every diagnostic of `file` with every implemented code (filters are the caller's), in
/// document order. A file with syntax errors gets only those: names found by error
/// recovery are guesses.
#[salsa::tracked(returns(clone))]
pub fn file_diagnostics(db: &dyn Db, workspace: Workspace, file: SourceFile) -> Arc<[Diagnostic]> {
    // The checks read this file's tree, then other files' summaries, then the tree again.
    let _pin = super::pin_tree(db, file);
    let errors = super::syntax_errors(db, file);
    let mut found: Vec<Diagnostic> = errors
        .iter()
        .map(|e| {
            let id = if e.message.starts_with("missing ") {
                registry::ids::MISSING_TOKEN
            } else {
                registry::ids::SYNTAX_ERROR
            };
            Diagnostic::new(id, e.range, e.message.clone())
        })
        .collect();
    let parses = found.is_empty();
    if parses && file.lang(db).info().import_style == "python-module" {
        found.extend(python::check(db, workspace, file));
        found.extend(arity::check(db, workspace, file));
    }
    if parses && file.lang(db).info().import_style == "ecmascript" {
        found.extend(ecmascript::check(db, workspace, file));
    }
    if parses
        && let Some(lang) = Lang::of(file.lang(db).info())
        && let Some(tree) = super::file_tree(db, file)
    {
        let text = file.text(db);
        found.extend(control_flow::check(lang, &tree, text));
        found.extend(duplicates::check(db, workspace, file, lang, &tree));
        match lang {
            Lang::Go => {
                found.extend(go::check(db, workspace, file, &tree));
                found.extend(go_unused::check(&tree, text));
                found.extend(go_arity::check(db, workspace, file, &tree));
            }
            Lang::Rust => found.extend(rust::check(db, workspace, file, &tree)),
            _ => {}
        }
    }
    suppression::apply(db, file, &mut found);
    found.sort_by_key(|d| (d.range.start(), d.range.end(), d.id));
    found.into()
}

/// The languages the structural checks know.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Lang {
    Python,
    /// JavaScript, or TypeScript (`typescript: true`, TSX included).
    Ecma {
        typescript: bool,
    },
    Go,
    Rust,
}

impl Lang {
    fn of(info: &crate::lang::Language) -> Option<Lang> {
        Some(match info.id.as_str() {
            "python" => Lang::Python,
            "javascript" => Lang::Ecma { typescript: false },
            "typescript" | "tsx" => Lang::Ecma { typescript: true },
            "go" => Lang::Go,
            "rust" => Lang::Rust,
            _ => return None,
        })
    }
}

/// Visits `node` and its descendants, in document order; `visit` returns whether to go
/// into a node's children.
pub(super) fn walk<'t>(
    node: tree_sitter::Node<'t>,
    visit: &mut dyn FnMut(tree_sitter::Node<'t>) -> bool,
) {
    let mut cursor = node.walk();
    let mut descend = visit(cursor.node());
    loop {
        if descend && cursor.goto_first_child() {
            descend = visit(cursor.node());
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                descend = visit(cursor.node());
                break;
            }
            if !cursor.goto_parent() || cursor.node() == node {
                return;
            }
        }
    }
}

/// The workspace file `module` (an import's module as written in `file`) resolves to, by
/// the module alone: resolving an imported name would read the target's positions, which
/// a check of another file must not depend on.
fn module_file(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
    module: &str,
) -> Option<SourceFile> {
    let module_only = crate::semantic::imports::ImportSummary {
        module: module.to_string(),
        ..Default::default()
    };
    match crate::semantic::imports::resolve(db, workspace, file, &module_only) {
        crate::semantic::imports::Target::Resolved { file, .. } => Some(file),
        _ => None,
    }
}

/// The one module-level binding the name of occurrence `at` refers to, when no scope around
/// the occurrence binds or declares (`global`, `nonlocal`) it and the module binds it once:
/// what a check needs before it can be sure of a callee.
fn sole_module_binding(
    names: &crate::semantic::names::FileNames,
    at: crate::semantic::names::OccurrenceId,
) -> Option<crate::semantic::names::OccurrenceId> {
    let name = names.name(at);
    let mut scope = Some(names.occurrence(at).scope);
    while let Some(current) = scope.filter(|&s| s != 0) {
        if !names.bindings(current, name).is_empty() || names.declaration(current, name).is_some() {
            return None;
        }
        scope = names.scopes[current as usize].parent;
    }
    match names.bindings(0, name) {
        [binding] => Some(*binding),
        _ => None,
    }
}

/// The call node (of kind `call_kind`) whose callee is the name at `name`.
fn call_named_at<'t>(
    tree: &'t tree_sitter::Tree,
    name: TextRange,
    call_kind: &str,
) -> Option<tree_sitter::Node<'t>> {
    tree.root_node()
        .descendant_for_byte_range(name.start().into(), name.end().into())
        .and_then(|n| n.parent())
        .filter(|n| n.kind() == call_kind)
}

/// The 1-based line of byte `offset` in `text` (for messages naming an earlier definition).
fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// A tree-sitter node's byte range as a [`TextRange`].
fn node_range(node: tree_sitter::Node) -> TextRange {
    TextRange::new(
        (node.start_byte() as u32).into(),
        (node.end_byte() as u32).into(),
    )
}
