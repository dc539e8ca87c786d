//! SX005 undefined-name: a name no scope binds and no builtin or global provides
//! (`python.rs`, `ecmascript.rs`).

pub(crate) mod ecmascript;
mod missing_import;
mod python;

use super::{CheckContext, Diagnostic, sx003_unresolved_import::ecmascript::is_declaration_file};
use crate::lang::Family;

pub(super) fn run(ctx: &CheckContext) -> Vec<Diagnostic> {
    match ctx.lang {
        Family::Python => python::undefined_names(ctx.names(), &ctx.symbols().imports, ctx),
        Family::Ecma { .. } if !is_declaration_file(ctx.path()) => ecmascript::check(ctx),
        Family::Ecma { .. } | Family::Go | Family::Rust => Vec::new(),
    }
}
