//! SX004: `from m import name` where `m` is a workspace module that does not bind `name`.
//!
//! A module's names are what [`module_names`] summarises: every name bound in its top
//! scope (definitions, assignments, imports, loop and `with` targets, also under `if` and
//! `try`), every name a function declares `global`, names bound in a module-level
//! comprehension (`:=`), and `type X = …`. A module is *open* — any name may come from
//! it — when it has a star import, a module-level `__getattr__`, or touches its namespace
//! by hand (`globals()`, `vars()`, `exec`, `__dict__`, `sys.modules`). The importer
//! reports nothing for an open module, for a submodule of that name (a namespace package
//! too), for a private name of a package (`from pkg import _speedups` may be a compiled
//! extension, which the workspace does not hold), or inside a `try` that catches
//! `ImportError`.
//!
//! Invariant (incremental): the importer reads, of the imported file, only
//! [`module_names`], which holds no positions and backdates when an edit leaves the
//! module's names as they were (an edit inside a function body); so such an edit does not
//! re-check the importer.

use crate::checks::{CheckContext, Diagnostic, python_helpers::in_try_catching, registry::ids};
use crate::{
    db::{Db, SourceFile, Workspace},
    semantic::{
        facts::python::module_names,
        imports::{self, FileImports},
        names::{FileNames, Role},
    },
};

pub(super) fn unknown_import_names(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
    names: &FileNames,
    imports: &FileImports,
    tree: &CheckContext,
) -> Vec<Diagnostic> {
    let mut candidates = Vec::new();
    for (summary, &statement) in imports.summaries.iter().zip(imports.statements.iter()) {
        let Some(name) = summary.name.as_deref() else {
            continue;
        };
        if summary.wildcard || summary.module == "__future__" {
            continue;
        }
        let Some(module) = crate::checks::module_file(db, workspace, file, &summary.module) else {
            continue;
        };
        let path = module.path(db);
        let package = path.ends_with("__init__.py") || path.ends_with("__init__.pyi");
        // `from . import data`: a submodule, or a directory of resources (a namespace
        // package the workspace holds no file of).
        let relative_package = summary.module.chars().all(|c| c == '.');
        if (package && name.starts_with('_'))
            || relative_package
            || imports::submodule(db, workspace, module, name).is_some()
            || (package && namespace_subpackage(db, workspace, file, module, name))
        {
            continue;
        }
        let defined = module_names(db, module);
        if defined.open || defined.names.contains(name) {
            continue;
        }
        // The imported name where the statement writes it.
        let range = names
            .occurrences
            .iter()
            .enumerate()
            .find(|(id, o)| {
                statement.contains_range(o.range)
                    && matches!(
                        o.role,
                        Role::Imported
                            | Role::Definition(crate::semantic::names::BindingKind::Import)
                    )
                    && names.name(*id as u32) == name
            })
            .map_or(statement, |(_, o)| o.range);
        candidates.push((range, summary.module.clone(), name.to_string()));
    }
    if candidates.is_empty() {
        return Vec::new();
    }
    let Some((text, root)) = tree.root() else {
        return Vec::new();
    };
    let text = &*text;
    let mut found = Vec::new();
    for (range, module, name) in candidates {
        let guarded = root
            .descendant_for_byte_range(range.start().into(), range.end().into())
            .is_none_or(|node| {
                in_try_catching(node, text, &["ImportError", "ModuleNotFoundError"])
                    || expects_import_error(node, text)
            });
        if guarded {
            continue;
        }
        found.push(Diagnostic::new(
            ids::UNKNOWN_IMPORT_NAME,
            range,
            format!("module '{module}' has no name '{name}'"),
        ));
    }
    found
}

/// Whether the package `module` (its `__init__.py`) has the namespace package `name`: a
/// directory of Python files without `__init__.py`, which Python imports as its submodule.
fn namespace_subpackage(
    db: &dyn Db,
    workspace: Workspace,
    importer: SourceFile,
    module: SourceFile,
    name: &str,
) -> bool {
    let package = imports::PythonPackage::File(module);
    imports::python_namespace_subpackage(db, workspace, importer, package, name).is_some()
}

/// Whether `node` is inside `with …(ImportError…):` (a test that the import fails).
fn expects_import_error(node: tree_sitter::Node, text: &str) -> bool {
    let mut current = node.parent();
    while let Some(n) = current {
        if n.kind() == "with_statement"
            && n.named_child(0).is_some_and(|clause| {
                let written = &text[clause.byte_range()];
                written.contains("ImportError") || written.contains("ModuleNotFoundError")
            })
        {
            return true;
        }
        current = n.parent();
    }
    false
}
