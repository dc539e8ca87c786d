//! SX010 wrong-argument-count: a call with a number of arguments no call of its callee can
//! take (`python.rs`, with keywords; `ecmascript.rs`: TypeScript and TSX; `go.rs`).

mod ecmascript;
mod go;
mod python;

use super::{
    CheckContext, Diagnostic, Lang, sx003_unresolved_import::ecmascript::is_declaration_file,
};

pub(super) fn run(ctx: &CheckContext) -> Vec<Diagnostic> {
    match ctx.lang {
        Some(Lang::Python) => python::check(ctx.db, ctx.workspace, ctx.file),
        Some(Lang::Ecma { .. }) if !is_declaration_file(ctx.path()) => ecmascript::check(
            ctx.db,
            ctx.workspace,
            ctx.file,
            ctx.names(),
            &ctx.symbols().imports,
        ),
        Some(Lang::Go) => ctx
            .tree()
            .map(|tree| go::check(ctx.db, ctx.workspace, ctx.file, tree))
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}
