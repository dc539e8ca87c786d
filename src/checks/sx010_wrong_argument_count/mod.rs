//! SX010 wrong-argument-count: a call with a number of arguments no call of its callee can
//! take (`python.rs`, with keywords; `ecmascript.rs`: TypeScript and TSX; `go.rs`).

mod ecmascript;
mod go;
mod python;

use super::{CheckContext, Diagnostic, sx003_unresolved_import::ecmascript::is_declaration_file};
use crate::lang::Family;

pub(super) fn run(ctx: &CheckContext) -> Vec<Diagnostic> {
    match ctx.lang {
        Family::Python => python::check(ctx.db, ctx.workspace, ctx.file),
        Family::Ecma { .. } if !is_declaration_file(ctx.path()) => ecmascript::check(
            ctx.db,
            ctx.workspace,
            ctx.file,
            ctx.names(),
            &ctx.symbols().imports,
        ),
        Family::Go => ctx
            .tree()
            .map(|tree| go::check(ctx.db, ctx.workspace, ctx.file, tree))
            .unwrap_or_default(),
        Family::Ecma { .. } | Family::Rust => Vec::new(),
    }
}
