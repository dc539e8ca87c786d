//! SX006 unused-import: an import nothing in the file uses (`python.rs`, `ecmascript.rs`,
//! `go.rs`: a compile error in Go).

mod ecmascript;
mod go;
mod python;

use super::{CheckContext, Diagnostic, sx003_unresolved_import::ecmascript::is_declaration_file};
use crate::lang::Family;

pub(super) fn run(ctx: &CheckContext) -> Vec<Diagnostic> {
    match ctx.lang {
        Family::Python => {
            python::unused_imports(ctx.path(), ctx.names(), &ctx.symbols().imports, ctx)
        }
        Family::Ecma { .. } if !is_declaration_file(ctx.path()) => ecmascript::check(ctx),
        Family::Go => ctx
            .tree()
            .map(|tree| go::check(ctx.db, ctx.workspace, ctx.file, tree))
            .unwrap_or_default(),
        Family::Ecma { .. } | Family::Rust => Vec::new(),
    }
}
