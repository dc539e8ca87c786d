//! SX009 duplicate-definition: a name defined twice where the language refuses it or the
//! second silently wins: parameters, object and struct keys, module and package members in
//! every language (`definitions.rs`), and Python's repeated dictionary keys
//! (`python_dict_keys.rs`).

mod definitions;
mod python_dict_keys;

use super::{CheckContext, Diagnostic};
use crate::lang::Family;

pub(super) fn run(ctx: &CheckContext) -> Vec<Diagnostic> {
    let lang = ctx.lang;
    let mut found = Vec::new();
    match lang {
        // Other languages' literal keys are `definitions.rs`'s.
        Family::Python => found.extend(python_dict_keys::duplicate_keys(ctx)),
        Family::Ecma { .. } | Family::Go | Family::Rust => {}
    }
    if let Some(tree) = ctx.tree() {
        found.extend(definitions::check(
            ctx.db,
            ctx.workspace,
            ctx.file,
            lang,
            tree,
        ));
    }
    found
}
