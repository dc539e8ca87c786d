//! SX004 in JavaScript, TypeScript and TSX: names imported from a workspace module that
//! does not export them (only modules whose exports can be told: no `export =` or CommonJS
//! exports, and `export * from` only of workspace modules whose exports can be told,
//! followed transitively: `module_exports`).
//!
//! Invariant: reads, of other files, only their position-free `module_exports`.

use crate::{
    checks::{
        CheckContext, Diagnostic, registry::ids,
        sx003_unresolved_import::ecmascript::calls_a_local_require,
    },
    db::{Db, SourceFile, Workspace},
    lang::Family,
    semantic::{
        facts::ecmascript::module_exports,
        imports::FileImports,
        names::{BindingKind, FileNames, Role},
    },
};

pub(super) fn check(ctx: &CheckContext) -> Vec<Diagnostic> {
    unknown_import_names(
        ctx.db,
        ctx.workspace,
        ctx.file,
        ctx.names(),
        &ctx.symbols().imports,
    )
}

/// Names imported (or re-exported with `export {…} from`) from a workspace module that
/// does not export them, when what it exports is known ([`module_facts`](crate::semantic::facts::ecmascript::module_facts)).
fn unknown_import_names(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
    names: &FileNames,
    imports: &FileImports,
) -> Vec<Diagnostic> {
    let mut found = Vec::new();
    for (summary, &statement) in imports.summaries.iter().zip(imports.statements.iter()) {
        let Some(name) = summary.name.as_deref().filter(|_| !summary.wildcard) else {
            continue;
        };
        if calls_a_local_require(names, statement) {
            continue;
        }
        let Some(target) = crate::checks::module_file(db, workspace, file, &summary.module) else {
            continue;
        };
        // A JavaScript importer runs against JavaScript, TypeScript's checks against
        // declarations (a `.js` target stands for its `.d.ts`): judge like against like.
        let is_javascript = |f: SourceFile| f.lang(db).info().family == Family::JAVASCRIPT;
        if target == file || is_javascript(target) != is_javascript(file) {
            continue;
        }
        let Some(exported) = module_exports(db, workspace, target) else {
            continue;
        };
        if exported.iter().any(|e| &**e == name) {
            continue;
        }
        // The imported name where it is written (for a default import, the local name).
        let written = if name == "default" {
            summary.alias.as_deref()
        } else {
            Some(name)
        };
        let range = written
            .and_then(|written| {
                names
                    .occurrences
                    .iter()
                    .find(|o| {
                        statement.contains_range(o.range)
                            && matches!(
                                o.role,
                                Role::Imported | Role::Definition(BindingKind::Import)
                            )
                            && names.text_between(o.range.start().into(), o.range.end().into())
                                == written
                    })
                    .map(|o| o.range)
            })
            .unwrap_or(statement);
        let message = if name == "default" {
            format!("module '{}' has no default export", summary.module)
        } else {
            format!("module '{}' does not export '{name}'", summary.module)
        };
        found.push(Diagnostic::new(ids::UNKNOWN_IMPORT_NAME, range, message));
    }
    found
}
