//! The checks: diagnostics per file, one module per code (`sx003_unresolved_import/` …
//! `sx012_import_cycle/`, each with a file per language it runs in), run by the rule table
//! (`rules.rs`): syntax errors first (SX001, SX002), then, in a file that parses, every
//! rule of the file's language in table order, over one [`CheckContext`] that opens the
//! file's tree, names and symbols once; last, the file's suppression comments
//! (`suppression.rs`) remove what they suppress, so no caller sees a suppressed finding.
//! Every finding is under a code of the registry (`registry.rs`, from `codes.toml`).
//!
//! Invariant (incremental): [`file_diagnostics`] reads its own file's queries
//! (`syntax_errors`, `file_names`, `file_symbols`) and, of other files, only position-free
//! facts (`semantic::facts`, the path-built module maps): an edit inside a function body
//! re-checks that file alone, and a whole-workspace check reuses every other file's
//! memoized answer. Precision first: where a check cannot be sure, it says nothing.

mod context;
pub mod fix;
mod python_forms;
mod python_helpers;
mod recorded;
pub mod registry;
pub mod rules;
mod suppression;
mod sx003_unresolved_import;
mod sx004_unknown_import_name;
mod sx005_undefined_name;
mod sx006_unused_import;
mod sx007_unused_variable;
mod sx008_redefined_unused;
mod sx009_duplicate_definition;
mod sx010_wrong_argument_count;
mod sx011_outside_context;
pub mod sx012_import_cycle;

use std::sync::Arc;

use crate::{
    db::{Db, SourceFile, Workspace},
    syntax::TextRange,
};

pub use context::CheckContext;
pub use fix::{Applicability, Fix};
pub use recorded::recorded_diagnostics;
pub use registry::{Code, Severity};

/// One finding in one file.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Diagnostic {
    /// The code's id (`SX005`); its registry entry is [`Diagnostic::code`].
    pub id: &'static str,
    pub range: TextRange,
    pub message: String,
    /// Other places in the same file the finding refers to (an earlier definition), each
    /// with a note.
    pub related: Vec<(TextRange, String)>,
    /// The edit that resolves it, when the check can compute one for certain.
    pub fix: Option<Box<Fix>>,
}

impl Diagnostic {
    pub(crate) fn new(id: &'static str, range: TextRange, message: String) -> Diagnostic {
        Diagnostic {
            id,
            range,
            message,
            related: Vec::new(),
            fix: None,
        }
    }

    /// The same finding, resolved by `fix` (none: no fix).
    pub(crate) fn with_fix(mut self, fix: Option<Fix>) -> Diagnostic {
        self.fix = fix.map(Box::new);
        self
    }

    /// The same finding, also pointing at `range` (an earlier definition) with `note`.
    pub(crate) fn with_related(mut self, range: TextRange, note: impl Into<String>) -> Diagnostic {
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
    let _pin = crate::semantic::pin_tree(db, file);
    let ctx = CheckContext::new(db, workspace, file);
    let mut found = rules::run(&ctx, rules::Stage::Syntax);
    // A file with syntax errors gets only those: names found by error recovery are guesses.
    if found.is_empty() {
        found = rules::run(&ctx, rules::Stage::Parsed);
    }
    suppression::apply(db, file, &mut found);
    found.sort_by_key(|d| (d.range.start(), d.range.end(), d.id));
    found.into()
}

/// A [`Diagnostic`] as recorded in the persistent cache, its code id read back as the
/// registry's own string.
#[derive(serde::Deserialize)]
struct RecordedDiagnostic {
    id: String,
    range: TextRange,
    message: String,
    related: Vec<(TextRange, String)>,
    fix: Option<Box<Fix>>,
}

// By hand: a derived impl would borrow the `&'static str` id from the input.
impl<'de> serde::Deserialize<'de> for Diagnostic {
    fn deserialize<D: serde::Deserializer<'de>>(from: D) -> Result<Diagnostic, D::Error> {
        let recorded = RecordedDiagnostic::deserialize(from)?;
        let code = registry::find(&recorded.id).ok_or_else(|| {
            serde::de::Error::custom(format!("{} is not a registered code", recorded.id))
        })?;
        Ok(Diagnostic {
            id: code.id.as_str(),
            range: recorded.range,
            message: recorded.message,
            related: recorded.related,
            fix: recorded.fix,
        })
    }
}

pub(crate) use crate::semantic::facts::walk;

/// The workspace file `module` (an import's module as written in `file`) resolves to, by
/// the module alone: resolving an imported name would read the target's positions, which
/// a check of another file must not depend on.
pub(crate) fn module_file(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
    module: &str,
) -> Option<SourceFile> {
    let module_only = crate::semantic::imports::ImportSummary {
        module: module.into(),
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
pub(crate) fn sole_module_binding(
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
pub(crate) fn call_named_at<'t>(
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
pub(crate) fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// A tree-sitter node's byte range as a [`TextRange`].
pub(crate) fn node_range(node: tree_sitter::Node) -> TextRange {
    TextRange::new(
        (node.start_byte() as u32).into(),
        (node.end_byte() as u32).into(),
    )
}
