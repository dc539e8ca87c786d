//! Imports per file (from `queries/<lang>/imports.scm`, run in the same walk as the tags
//! query: see `symbols.rs`) and where they lead (one module of path rules per
//! `import_style` of the registry: `python.rs`, `rust.rs`, `go.rs`, …).
//!
//! Capture conventions (see `queries/README.md`): `@import` the statement, `@module` the
//! module as written (`a.b`; Python's relative `..a` and `.` included), `@name` a name
//! imported from it, `@alias` the local name given with `as`, `@wildcard` for `*`,
//! `@public` when the import is also a public re-export (`pub use`, `export … from`);
//! Rust's `@use_tree` and `@mod_name` are made into imports by `rust.rs`.
//!
//! Invariant (early cutoff): [`file_imports`] is position-free, so an edit that only moves
//! a file's imports leaves every query over other files valid; module maps (such as
//! [`python::python_modules`]) read paths, manifests and position-free summaries (Rust's
//! `mod` declarations), never texts. Resolution ([`resolve`]) runs per request.
//!

mod go;
mod python;
mod rust;

use std::sync::Arc;

use serde::Serialize;

pub use go::{GoPackages, go_packages};
pub use python::{PythonModules, python_modules};
pub use rust::{ModDecl, RustModules, rust_mod_decls, rust_modules};

use super::symbols::file_symbols;
use crate::{
    db::{Db, SourceFile, Workspace},
    syntax::TextRange,
};

/// One imported module or name, as written, without positions.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub struct ImportSummary {
    /// The module as written: `a.b`, or relative `..a` / `.`.
    pub module: String,
    /// The name imported from the module (`from m import name`); none for `import m`.
    pub name: Option<String>,
    /// The local name given with `as`.
    pub alias: Option<String>,
    /// `from m import *`.
    pub wildcard: bool,
    /// Also a public re-export (`pub use`, `export … from`).
    pub is_public: bool,
    /// Rust: the inline modules around the import in its file (`tests` for
    /// `mod tests { use super::*; }`), which `self` and `super` count from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub within: Option<String>,
}

/// The imports of one file and their statements' ranges, in document order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileImports {
    pub summaries: Arc<[ImportSummary]>,
    /// The whole statement of each import (several imports may share one).
    pub statements: Arc<[TextRange]>,
}

/// Gathers the imports of one file from the matches of its imports patterns.
#[derive(Default)]
pub(crate) struct ImportCollector {
    /// (statement start, item start) orders the imports as written.
    found: Vec<((usize, usize), ImportSummary, TextRange)>,
}

impl ImportCollector {
    /// Records one match of an imports pattern; `names` are the query's capture names.
    pub(crate) fn add(&mut self, m: &tree_sitter::QueryMatch<'_, '_>, names: &[&str], text: &str) {
        // Token boundaries are character boundaries; `get` keeps a surprise from panicking.
        let node_text =
            |node: tree_sitter::Node| text.get(node.byte_range()).unwrap_or_default().to_string();
        let (mut statement, mut module, mut item) = (None, None, None);
        // Rust: a `use` tree and a `mod name;`, made into imports by `rust.rs`.
        let (mut use_tree, mut mod_name) = (None, None);
        let mut summary = ImportSummary::default();
        for capture in m.captures() {
            let node = capture.node;
            match names[capture.index as usize] {
                "import" => statement = Some(node),
                "module" => {
                    module = Some(node);
                    summary.module = node_text(node);
                }
                "name" => {
                    item = Some(node);
                    summary.name = Some(node_text(node));
                }
                "alias" => summary.alias = Some(node_text(node)),
                "wildcard" => {
                    item = Some(node);
                    summary.wildcard = true;
                }
                "public" => summary.is_public = true,
                "use_tree" => use_tree = Some(node),
                "mod_name" => mod_name = Some(node),
                _ => {}
            }
        }
        let Some(statement) = statement else {
            return;
        };
        let found: Vec<(ImportSummary, usize)> = match (use_tree, mod_name, module) {
            (Some(tree), _, _) => rust::use_tree_imports(statement, tree, text),
            (None, Some(name), _) => vec![rust::mod_declaration(statement, name, text)],
            (None, None, Some(module)) => {
                vec![(summary.clone(), item.unwrap_or(module).start_byte())]
            }
            (None, None, None) => return,
        };
        let range = TextRange::new(
            (statement.start_byte() as u32).into(),
            (statement.end_byte() as u32).into(),
        );
        for (found, at) in found {
            let found = ImportSummary {
                is_public: summary.is_public,
                ..found
            };
            self.found
                .push(((statement.start_byte(), at), found, range));
        }
    }

    pub(crate) fn finish(mut self) -> FileImports {
        self.found.sort_by_key(|(order, _, _)| *order);
        self.found.dedup_by_key(|(order, _, _)| *order);
        let (summaries, statements): (Vec<ImportSummary>, Vec<TextRange>) =
            self.found.into_iter().map(|(_, s, r)| (s, r)).unzip();
        FileImports {
            summaries: summaries.into(),
            statements: statements.into(),
        }
    }
}

/// The position-free imports of a file; backdates when an edit only moved them.
#[salsa::tracked(returns(clone))]
pub fn file_imports(db: &dyn Db, file: SourceFile) -> Arc<[ImportSummary]> {
    file_symbols(db, file).imports.summaries.clone()
}

/// Where one import leads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// A workspace file, and the index of the named definition in it when one is named and
    /// the file defines it at top level.
    Resolved {
        file: SourceFile,
        symbol: Option<u32>,
    },
    /// Outside the workspace: the standard library module or the dependency named.
    External {
        package: String,
    },
    Unresolved,
}

/// Where `import` (one of `file`'s) leads, by the path rules of the file's `import_style`.
pub fn resolve(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
    import: &ImportSummary,
) -> Target {
    match file.lang(db).info().import_style.as_str() {
        "python-module" => python::resolve(db, workspace, file, import),
        "rust-module-path" => rust::resolve(db, workspace, file, import),
        "go-package" => go::resolve(db, workspace, file, import),
        _ => Target::Unresolved,
    }
}

/// The submodule `name` of the module `file` (a Python package's `__init__.py` → its
/// `name.py` or `name/__init__.py`), where the language has such a thing.
pub fn submodule(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
    name: &str,
) -> Option<SourceFile> {
    match file.lang(db).info().import_style.as_str() {
        "python-module" => python::submodule(db, workspace, file, name),
        _ => None,
    }
}

/// The index of `file`'s top-level definition called `name`, if it has one.
pub(crate) fn top_level_symbol(db: &dyn Db, file: SourceFile, name: &str) -> Option<u32> {
    file_symbols(db, file)
        .summaries
        .iter()
        .position(|s| s.parent.is_none() && s.name == name)
        .map(|i| i as u32)
}
