//! sextant: incremental code intelligence over a multi-language workspace.
//!
//! Layers, each using only the ones before it (see ARCHITECTURE.md):
//! `lang` → `syntax` → `db` → `semantic` → `checks` → `engine` → `ide` → `workspace` → `cli`.
//! `allocator` (the process's memory allocator) stands apart, used by `ide` and `workspace`.
//!
//! These docs are for the engine's own engineers, and link to private items: build them
//! with `cargo doc --no-deps --document-private-items`.

#![allow(rustdoc::private_intra_doc_links)]

pub mod allocator;
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
