//! sextant: incremental code intelligence over a multi-language workspace.
//!
//! Layers, each using only the ones before it (see ARCHITECTURE.md):
//! `lang` → `syntax` → `db` → `semantic` → `checks` → `engine` → `ide` → `workspace` → `cli`.

pub mod checks;
pub mod cli;
pub mod db;
pub mod engine;
pub mod ide;
pub mod lang;
pub mod lsp;
pub mod mcp;
pub mod semantic;
pub mod syntax;
#[doc(hidden)]
pub mod testing;
pub mod workspace;
