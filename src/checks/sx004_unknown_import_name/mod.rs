//! SX004 unknown-import-name: an import of a name a workspace module does not define
//! (`python.rs`: from its top-level names; `ecmascript.rs`: from its exports).

mod ecmascript;
mod python;

use super::{CheckContext, Diagnostic, sx003_unresolved_import::ecmascript::is_declaration_file};
use crate::lang::Family;

pub(super) fn run(ctx: &CheckContext) -> Vec<Diagnostic> {
    match ctx.lang {
        Family::Python => python::unknown_import_names(
            ctx.db,
            ctx.workspace,
            ctx.file,
            ctx.names(),
            &ctx.symbols().imports,
            ctx,
        ),
        Family::Ecma { .. } if !is_declaration_file(ctx.path()) => ecmascript::check(ctx),
        Family::Ecma { .. } | Family::Go | Family::Rust => Vec::new(),
    }
}
