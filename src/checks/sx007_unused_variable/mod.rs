//! SX007 unused-variable: a local variable assigned but never used (`python.rs`: pyflakes's
//! rule; `ecmascript.rs`; `go.rs`: by Go's block scopes, a compile error in Go).

mod ecmascript;
mod ecmascript_fixes;
mod go;
mod go_fixes;
mod python;

use super::{CheckContext, Diagnostic, sx003_unresolved_import::ecmascript::is_declaration_file};
use crate::lang::Family;

pub(super) fn run(ctx: &CheckContext) -> Vec<Diagnostic> {
    match ctx.lang {
        Family::Python => python::unused_variables(ctx.names(), ctx),
        Family::Ecma { .. } if !is_declaration_file(ctx.path()) => ecmascript::check(ctx),
        Family::Go => ctx
            .tree()
            .map(|tree| go::check(tree, &ctx.text()))
            .unwrap_or_default(),
        Family::Ecma { .. } | Family::Rust => Vec::new(),
    }
}
