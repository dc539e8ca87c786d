//! The `ide` operations on inline fixtures, with `expect!` snapshots
//! (`UPDATE_EXPECT=1 cargo test --test ide` rewrites them; review each by eye: a snapshot
//! claims the answer is right).
//!
//! `support::fixture` parses fixtures (`//- /path` files, `$0` cursors), `analysis` builds the
//! database and calls each operation, `render` prints answers compactly; the other modules
//! hold the tests, one per operation, plus `cursor_edges` (multi-byte text, CRLF, empty
//! files) and `fuzz` (folding and selection invariants on generated text).

#[path = "../support/mod.rs"]
mod support;

mod analysis;
mod render;

use support::fixture;

mod call_graph;
mod cursor_edges;
mod diagnostics;
mod diagnostics_arity;
mod diagnostics_cycles;
mod diagnostics_ecmascript;
mod diagnostics_go;
mod diagnostics_python;
mod diagnostics_structure;
mod diagnostics_suppression;
mod fixture_parsing;
mod folding;
mod fuzz;
mod implementations;
mod import_graph;
mod imports;
mod imports_ecmascript;
mod imports_go;
mod imports_rust;
mod macro_items;
mod navigation;
mod navigation_checks;
mod navigation_ecmascript;
mod navigation_go;
mod navigation_rust;
mod outline;
mod parse_tree;
mod rename;
mod selection;
mod stats;
mod symbol_search;
