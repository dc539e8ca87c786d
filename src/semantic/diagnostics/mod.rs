//! Diagnostics per file: syntax errors with their codes, then each language's checks
//! (Python: `python/`), every finding under a code of the registry (`registry.rs`, from
//! `codes.toml`).
//!
//! Invariant (incremental): [`file_diagnostics`] reads its own file's queries
//! (`syntax_errors`, `file_names`, `file_symbols`) and, of other files, only position-free
//! facts (the module map `python_modules`, built from paths; a Python module's top-level
//! names, `module_names`): an edit inside a function
//! body re-checks that file alone, and a whole-workspace check reuses every other file's
//! memoized answer. Precision first: where a check cannot be sure, it says nothing.

mod python;
pub mod registry;

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
}

impl Diagnostic {
    fn new(id: &'static str, range: TextRange, message: String) -> Diagnostic {
        Diagnostic { id, range, message }
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
    if found.is_empty() && file.lang(db).info().import_style == "python-module" {
        found.extend(python::check(db, workspace, file));
    }
    found.sort_by_key(|d| (d.range.start(), d.range.end(), d.id));
    found.into()
}
