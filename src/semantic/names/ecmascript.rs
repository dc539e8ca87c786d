//! JavaScript and TypeScript name rules the locals query cannot say: the globals every
//! module sees (`grammars/ecmascript-globals.txt`), and those test runners add
//! (`grammars/ecmascript-test-globals.txt`).

use std::{collections::HashSet, sync::LazyLock};

use super::NameRules;
use crate::semantic::imports::ImportSummary;

/// JavaScript's and TypeScript's [`NameRules`].
pub struct EcmaNames;

impl NameRules for EcmaNames {
    fn predeclared_module(&self) -> &'static str {
        GLOBAL_MODULE
    }

    fn is_predeclared(&self, name: &str) -> bool {
        is_global(name)
    }

    fn is_module_attribute(&self, _name: &str) -> bool {
        false
    }

    /// The alias, else the imported name, else the module's first part, as in Python.
    fn local_name<'i>(&self, import: &'i ImportSummary) -> &'i str {
        super::python::local_name(import)
    }

    /// The instance is `this`.
    fn first_parameter_is_receiver(&self) -> bool {
        false
    }

    fn declared_in_order(&self) -> bool {
        false
    }

    /// TypeScript's types and values are apart: `type X` and `const X` are two symbols.
    fn keeps_types_apart(&self) -> bool {
        true
    }

    /// As TypeScript's language service counts them: a method's references are its family's.
    fn counts_member_families(&self) -> bool {
        true
    }

    fn initializer(&self) -> Option<&'static str> {
        Some("constructor")
    }
}

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
