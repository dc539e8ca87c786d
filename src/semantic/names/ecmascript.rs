//! JavaScript and TypeScript name rules the locals query cannot say: the globals every
//! module sees (`grammars/ecmascript-globals.txt`).

use std::{collections::HashSet, sync::LazyLock};

static GLOBALS: LazyLock<HashSet<&'static str>> = LazyLock::new(|| {
    crate::lang::word_list(include_str!("../../../grammars/ecmascript-globals.txt"))
});

/// Where a global is said to come from: the global object.
pub const GLOBAL_MODULE: &str = "globalThis";

/// Names a module sees without declaring or importing them.
pub(crate) fn is_global(name: &str) -> bool {
    GLOBALS.contains(name)
}
