//! Diagnostics per file: syntax errors with their codes, then each language's checks
//! (Python: `python.rs` and `arity.rs`; JavaScript, TypeScript and TSX: `ecmascript.rs`),
//! every finding under a code of the registry (`registry.rs`, from `codes.toml`); last, the
//! file's suppression comments (`suppression.rs`) remove what they suppress, so no caller
//! sees a suppressed finding.
//!
//! Invariant (incremental): [`file_diagnostics`] reads its own file's queries
//! (`syntax_errors`, `file_names`, `file_symbols`) and, of other files, only position-free
//! facts (the module map `python_modules`, built from paths): an edit inside a function
//! body re-checks that file alone, and a whole-workspace check reuses every other file's
//! memoized answer. Precision first: where a check cannot be sure, it says nothing.

mod arity;
pub mod ecmascript;
mod python;
pub mod registry;
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
        found.extend(arity::check(db, workspace, file));
    }
    if found.is_empty() && file.lang(db).info().import_style == "ecmascript" {
        found.extend(ecmascript::check(db, workspace, file));
    }
    suppression::apply(db, file, &mut found);
    found.sort_by_key(|d| (d.range.start(), d.range.end(), d.id));
    found.into()
}

/// `file`'s tree-sitter tree, for judging what the per-file queries found; `None` when the
/// parser gave up.
fn parse_tree(db: &dyn Db, file: SourceFile) -> Option<tree_sitter::Tree> {
    let interrupt = || crate::semantic::is_cancelled(db);
    let tree =
        crate::syntax::parse_tree_sitter(file.lang(db).info(), file.text(db), None, &interrupt);
    if tree.is_none() && interrupt() {
        crate::semantic::cancelled(db);
    }
    tree
}
