//! The analysis API: the operations every front end calls.
//!
//! Invariants: answers are plain serializable data in editor terms (workspace-relative
//! paths, 1-based line/column, byte ranges); every list has a limit and says when it was
//! truncated; salsa cancellation is caught here, once, and returned as `Err(Cancelled)`.

mod outline;
mod parse_tree;
mod stats;
mod structure;
mod symbol_search;

use std::panic::AssertUnwindSafe;

pub use outline::{Outline, OutlineNode, outline, outline_page};
pub use parse_tree::{ParseOptions, ParseOutput, SyntaxErrorInfo, parse_tree};
pub use stats::{LanguageStats, WorkspaceStats, workspace_stats};
pub use structure::{Fold, folding_ranges, selection_ranges, syntax_errors};
pub use symbol_search::{SymbolMatch, SymbolQuery, SymbolSearch, symbol_search};

use serde::Serialize;

use crate::syntax::{LineCol, LineIndex, TextRange};

pub type Cancellable<T> = Result<T, salsa::Cancelled>;

/// Runs an analysis, turning salsa's cancellation unwind into a value.
fn catch<T>(f: impl FnOnce() -> T) -> Cancellable<T> {
    salsa::Cancelled::catch(AssertUnwindSafe(f))
}

/// A range in editor terms: 1-based line/column (columns in characters) and byte offsets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Span {
    pub start: LineCol,
    pub end: LineCol,
    pub byte_start: u32,
    pub byte_end: u32,
}

impl Span {
    pub fn new(index: &LineIndex, text: &str, range: TextRange) -> Span {
        Span {
            start: index.line_col(text, range.start().into()),
            end: index.line_col(text, range.end().into()),
            byte_start: range.start().into(),
            byte_end: range.end().into(),
        }
    }
}

impl std::fmt::Display for Span {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{}-{}:{}",
            self.start.line, self.start.column, self.end.line, self.end.column
        )
    }
}
