//! Which code is a test, by each language's conventions, so impact can say which tests a
//! change can reach:
//!
//! - Python: in a test file (`test_*.py`, `*_test.py`, under `tests/`), functions and
//!   methods whose names start with `test`, and classes whose names start with `Test`
//!   (pytest's and unittest's defaults).
//! - Go: in a `*_test.go` file, the functions `TestXxx`, `BenchmarkXxx`, `FuzzXxx` and
//!   `ExampleXxx`.
//! - Rust: functions with a test attribute (`#[test]`, `#[tokio::test]`, `#[rstest]`,
//!   `#[test_case(…)]`: an attribute whose path's last part starts with `test` or is
//!   `rstest`), in any file.
//! - JavaScript and TypeScript: in a test file (`*.test.ts`, `*.spec.js`, under
//!   `__tests__/`), the file's top level, where `describe`, `it` and `test` run their
//!   callbacks.
//!
//! Invariant: memoized per file ([`file_tests`]), from the file's own symbols and text, so
//! an edit re-runs only that file's.

use std::sync::Arc;

use super::extent::definition_extent;
use crate::{
    db::{Db, SourceFile},
    lang::Family,
    semantic::{
        facts::import_candidates::is_test_path,
        symbols::{SymbolKind, file_symbols},
    },
};

/// The tests of one file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileTests {
    /// The file's top level is a test (a JavaScript or TypeScript test file).
    pub top_level: bool,
    /// Its definitions that are tests, by index in `file_symbols`, ascending.
    pub definitions: Vec<u32>,
}

/// The tests `file` holds.
#[salsa::tracked(returns(clone))]
pub fn file_tests(db: &dyn Db, file: SourceFile) -> Arc<FileTests> {
    let path = file.path(db);
    let family = file.lang(db).info().family;
    let symbols = file_symbols(db, file);
    let test_file = is_test_path(path);
    let mut tests = FileTests {
        top_level: test_file && matches!(family, Family::Ecma { .. }),
        definitions: Vec::new(),
    };
    for (i, summary) in symbols.summaries.iter().enumerate() {
        let name = summary.name.as_str();
        let is_test = match family {
            Family::Python => {
                test_file
                    && match summary.kind {
                        SymbolKind::Function | SymbolKind::Method => name.starts_with("test"),
                        SymbolKind::Class => name.starts_with("Test"),
                        _ => false,
                    }
            }
            Family::Go => {
                path.ends_with("_test.go")
                    && summary.kind == SymbolKind::Function
                    && summary.container.is_none()
                    && ["Test", "Benchmark", "Fuzz", "Example"]
                        .iter()
                        .any(|prefix| go_test_name(name, prefix))
            }
            Family::Rust => {
                matches!(summary.kind, SymbolKind::Function | SymbolKind::Method) && {
                    let position = &symbols.positions[i];
                    let extent = definition_extent(db, file, position.range);
                    let text = file.text(db);
                    let head =
                        &text[usize::from(extent.start())..usize::from(position.range.start())];
                    has_test_attribute(head)
                }
            }
            Family::Ecma { .. } => false,
        };
        if is_test {
            tests.definitions.push(i as u32);
        }
    }
    Arc::new(tests)
}

/// `TestXxx` and the like: the prefix, then nothing or a character that is not a
/// lower-case letter (`Testing` is not a test).
fn go_test_name(name: &str, prefix: &str) -> bool {
    name.strip_prefix(prefix)
        .is_some_and(|rest| !rest.starts_with(|c: char| c.is_ascii_lowercase()))
}

/// Whether the attributes above a Rust function mark it a test.
fn has_test_attribute(head: &str) -> bool {
    head.lines().any(|line| {
        let Some(inside) = line.trim_start().strip_prefix("#[") else {
            return false;
        };
        let path_end = inside
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
            .unwrap_or(inside.len());
        let last = inside[..path_end].rsplit("::").next().unwrap_or("");
        last.starts_with("test") || last == "rstest"
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_test_names_need_an_upper_case_or_nothing_after_the_prefix() {
        assert!(go_test_name("TestParse", "Test"));
        assert!(go_test_name("Test", "Test"));
        assert!(go_test_name("Test_parse", "Test"));
        assert!(!go_test_name("Testing", "Test"));
        assert!(!go_test_name("helper", "Test"));
    }

    #[test]
    fn rust_test_attributes() {
        assert!(has_test_attribute("#[test]\n"));
        assert!(has_test_attribute(
            "/// Doc.\n#[tokio::test(flavor = \"multi_thread\")]\n"
        ));
        assert!(has_test_attribute("#[rstest]\n#[case(1)]\n"));
        assert!(has_test_attribute("#[test_case(1, 2)]\n"));
        assert!(!has_test_attribute("#[inline]\n"));
        assert!(!has_test_attribute("#[cfg(test)]\n"));
        assert!(!has_test_attribute("// #[test] commented out\n"));
    }
}
