//! SX003 unresolved-import: an import of a workspace module that does not exist (`python.rs`,
//! `ecmascript.rs`, `go.rs`: a package directory; `rust.rs`: a `mod` without its file, a
//! `use crate::…` of no module).

pub(crate) mod ecmascript;
pub(crate) mod go;
mod python;
pub(crate) mod rust;

use super::{CheckContext, Diagnostic};
use crate::lang::Family;

pub(super) fn run(ctx: &CheckContext) -> Vec<Diagnostic> {
    match ctx.lang {
        Family::Python => {
            python::unresolved_imports(ctx.db, ctx.workspace, ctx.file, &ctx.symbols().imports)
        }
        Family::Ecma { .. } if !ecmascript::is_declaration_file(ctx.path()) => {
            ecmascript::check(ctx)
        }
        Family::Go => ctx
            .tree()
            .map(|tree| go::check(ctx.db, ctx.workspace, ctx.file, tree))
            .unwrap_or_default(),
        Family::Rust => ctx
            .tree()
            .map(|tree| rust::check(ctx.db, ctx.workspace, ctx.file, tree))
            .unwrap_or_default(),
        // A declaration file (`.d.ts`) only describes modules.
        Family::Ecma { .. } => Vec::new(),
    }
}
