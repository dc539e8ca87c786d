//! SX003 in Python: imports of workspace modules that do not exist.

use std::collections::HashSet;

use crate::{
    checks::{Diagnostic, registry::ids},
    db::{Db, SourceFile, Workspace},
    semantic::imports::{self, FileImports, ImportSummary},
    syntax::TextRange,
};

/// Imports that name a module inside the workspace that no file is: a relative import
/// (within the workspace), or an absolute one whose nearest existing ancestor module, found
/// by the same rules as the import (`imports::python_absolute_module`: source roots, then
/// the importer's script directories), is a workspace package (`app/__init__.py`), not a
/// plain module (`os.py` may put `os.path` in `sys.modules` itself). A namespace package (a
/// directory without `__init__.py`, inside a regular package too) is a module with no file,
/// and so is `from m import name` when `m.name` is one.
pub(super) fn unresolved_imports(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
    imports: &FileImports,
) -> Vec<Diagnostic> {
    let depth = file.path(db).matches('/').count();
    let mut found = Vec::new();
    let mut reported: HashSet<(TextRange, &str)> = HashSet::new();
    for (summary, &statement) in imports.summaries.iter().zip(imports.statements.iter()) {
        let module_only = ImportSummary {
            module: summary.module.clone(),
            ..ImportSummary::default()
        };
        // The module alone first: resolving a name would read the module's definitions.
        if !matches!(
            imports::resolve(db, workspace, file, &module_only),
            imports::Target::Unresolved
        ) {
            continue;
        }
        let is_namespace =
            |module: &str| imports::python_namespace_package(db, workspace, file, module);
        if is_namespace(&summary.module)
            && summary.name.as_deref().is_none_or(|name| {
                let separator = if summary.module.ends_with('.') {
                    ""
                } else {
                    "."
                };
                is_namespace(&format!("{}{separator}{name}", summary.module))
                    || !matches!(
                        imports::resolve(db, workspace, file, summary),
                        imports::Target::Unresolved
                    )
            })
        {
            continue;
        }
        let level = summary.module.chars().take_while(|&c| c == '.').count();
        let rest = &summary.module[level..];
        let in_workspace = if level > 0 {
            level - 1 <= depth
        } else {
            let parts: Vec<&str> = rest.split('.').collect();
            (1..parts.len())
                .rev()
                .find_map(|n| {
                    imports::python_absolute_module(db, workspace, file, &parts[..n].join("."))
                })
                .is_some_and(|ancestor| {
                    let path = ancestor.path(db);
                    path.ends_with("/__init__.py") || path == "__init__.py"
                })
        };
        if !in_workspace
            || !matches!(
                imports::resolve(db, workspace, file, summary),
                imports::Target::Unresolved
            )
            || !reported.insert((statement, summary.module.as_str()))
        {
            continue;
        }
        found.push(Diagnostic::new(
            ids::UNRESOLVED_IMPORT,
            statement,
            format!("no module '{}' in the workspace", summary.module),
        ));
    }
    found
}
