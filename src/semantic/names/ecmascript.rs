//! JavaScript and TypeScript name rules the locals query cannot say: the globals every
//! module sees (`grammars/ecmascript-globals.txt`), and those test runners add
//! (`grammars/ecmascript-test-globals.txt`).

use std::{collections::HashSet, sync::LazyLock};

static GLOBALS: LazyLock<HashSet<&'static str>> = LazyLock::new(|| {
    crate::lang::word_list(include_str!("../../../grammars/ecmascript-globals.txt"))
});

static TEST_GLOBALS: LazyLock<HashSet<&'static str>> = LazyLock::new(|| {
    crate::lang::word_list(include_str!(
        "../../../grammars/ecmascript-test-globals.txt"
    ))
});

/// Modules a test runner's names are imported from (then they are not globals).
pub const TEST_RUNNER_MODULES: &[&str] =
    &["vitest", "@jest/globals", "node:test", "bun:test", "mocha"];

/// Names a test runner puts in scope (`describe`, `it`, `expect`).
pub(crate) fn is_test_global(name: &str) -> bool {
    TEST_GLOBALS.contains(name)
}

/// Where a global is said to come from: the global object.
pub const GLOBAL_MODULE: &str = "globalThis";

/// Names a module sees without declaring or importing them.
pub(crate) fn is_global(name: &str) -> bool {
    GLOBALS.contains(name)
}
