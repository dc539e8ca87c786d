//! SX009 duplicate-definition: a name defined twice where the language refuses it or the
//! second silently wins: parameters, object and struct keys, module and package members in
//! every language (`definitions.rs`), and Python's repeated dictionary keys
//! (`python_dict_keys.rs`).

mod definitions;
mod python_dict_keys;

use super::{CheckContext, Diagnostic, Lang};

pub(super) fn run(ctx: &CheckContext) -> Vec<Diagnostic> {
    let Some(lang) = ctx.lang else {
        return Vec::new();
    };
    let mut found = Vec::new();
    if lang == Lang::Python {
        found.extend(python_dict_keys::duplicate_keys(ctx));
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
