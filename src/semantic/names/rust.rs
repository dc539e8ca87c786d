//! Rust name rules the locals query cannot say: the names every module sees (the prelude,
//! primitive types and the standard library's macros, `grammars/rust-prelude.txt`) and
//! the name a `use` binds.
//!
//! Invariant: these are facts of the language, the same for every file; what a path or an
//! impl block refers to is the resolver's (`resolve/rust.rs`).

use std::{collections::HashSet, sync::LazyLock};

use crate::semantic::imports::ImportSummary;

static PRELUDE: LazyLock<HashSet<&'static str>> =
    LazyLock::new(|| crate::lang::word_list(include_str!("../../../grammars/rust-prelude.txt")));

/// Where a prelude name is said to come from.
pub const PRELUDE_MODULE: &str = "std::prelude";

/// Names a module sees without defining or importing them.
pub(super) fn is_prelude(name: &str) -> bool {
    PRELUDE.contains(name)
}

/// The name a `use` (or `mod`, `extern crate`) binds where it is written: the alias, the
/// path's last name, or a one-segment path itself (`use log;`, `mod a;` is `self::a`).
pub(super) fn local_name(import: &ImportSummary) -> &str {
    if let Some(alias) = &import.alias {
        return alias;
    }
    if let Some(name) = &import.name {
        return name;
    }
    import.module.rsplit("::").next().unwrap_or_default()
}
