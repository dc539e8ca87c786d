//! Imports per file (collected by `import_syntax` from `queries/<lang>/imports.scm`, in
//! the same walk as the tags query: see `symbols.rs`) and where they lead (one module of
//! path rules per language family, `lang::Family`: `python.rs`, `rust.rs`, `go.rs`,
//! `ecmascript.rs`).
//!
//! Invariant (early cutoff): [`file_imports`] is position-free, so an edit that only moves
//! a file's imports leaves every query over other files valid; module maps (such as
//! [`python::python_modules`]) read paths, manifests and position-free summaries (Rust's
//! `mod` declarations), never texts. Resolution ([`resolve`]) runs per request.
//!

mod ecmascript;
mod go;
mod python;
mod rust;

use std::sync::Arc;

pub use ecmascript::{EcmascriptModules, ecmascript_modules};
pub use go::{GoPackages, go_packages, is_workspace_import};
pub use python::{
    Package as PythonPackage, PythonModules, absolute_module as python_absolute_module,
    is_namespace_package as python_namespace_package, is_stdlib_module,
    namespace_subpackage as python_namespace_subpackage, python_modules,
};
pub use rust::{
    ModDecl, RustModules, local_name as rust_local_name, resolve_unbound_name as rust_unbound_name,
    rust_mod_decls, rust_modules, rust_star_closure,
};

pub use super::import_syntax::{FileImports, ImportSummary};
use super::symbols::file_symbols;
use crate::{
    db::{Db, SourceFile, Workspace},
    lang::Family,
};

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

/// Where `import` (one of `file`'s) leads, by the path rules of the file's language family.
pub fn resolve(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
    import: &ImportSummary,
) -> Target {
    match file.lang(db).info().family {
        Family::Python => python::resolve(db, workspace, file, import),
        Family::Rust => rust::resolve(db, workspace, file, import),
        Family::Go => go::resolve(db, workspace, file, import),
        Family::Ecma { .. } => ecmascript::resolve(db, workspace, file, import),
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
    match file.lang(db).info().family {
        Family::Python => python::submodule(db, workspace, file, name),
        Family::Ecma { .. } | Family::Go | Family::Rust => None,
    }
}

/// The index of `file`'s top-level definition called `name`, if it has one.
pub(crate) fn top_level_symbol(db: &dyn Db, file: SourceFile, name: &str) -> Option<u32> {
    file_symbols(db, file)
        .summaries
        .iter()
        .position(|s| s.parent().is_none() && s.name == name)
        .map(|i| i as u32)
}
