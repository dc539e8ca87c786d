//! SX006 unused-import: an import nothing in the file uses (`python.rs`, `ecmascript.rs`,
//! `go.rs`: a compile error in Go).

mod ecmascript;
mod go;
mod python;

use super::{
    CheckContext, Diagnostic, Lang, sx003_unresolved_import::ecmascript::is_declaration_file,
};

pub(super) fn run(ctx: &CheckContext) -> Vec<Diagnostic> {
    match ctx.lang {
        Some(Lang::Python) => {
            python::unused_imports(ctx.path(), ctx.names(), &ctx.symbols().imports, ctx)
        }
        Some(Lang::Ecma { .. }) if !is_declaration_file(ctx.path()) => ecmascript::check(ctx),
        Some(Lang::Go) => ctx
            .tree()
            .map(|tree| go::check(ctx.db, ctx.workspace, ctx.file, tree))
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}
