//! SX007 unused-variable: a local variable assigned but never used (`python.rs`: pyflakes's
//! rule; `ecmascript.rs`; `go.rs`: by Go's block scopes, a compile error in Go).

mod ecmascript;
mod go;
mod python;

use super::{
    CheckContext, Diagnostic, Lang, sx003_unresolved_import::ecmascript::is_declaration_file,
};

pub(super) fn run(ctx: &CheckContext) -> Vec<Diagnostic> {
    match ctx.lang {
        Some(Lang::Python) => python::unused_variables(ctx.names(), ctx),
        Some(Lang::Ecma { .. }) if !is_declaration_file(ctx.path()) => ecmascript::check(ctx),
        Some(Lang::Go) => ctx
            .tree()
            .map(|tree| go::check(tree, &ctx.text()))
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}
