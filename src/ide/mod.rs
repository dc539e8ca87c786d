//! The analysis API: the operations every front end calls.
//!
//! Invariants: front ends (`cli`, `mcp`, `lsp`) use this module and `workspace`'s
//! lifecycle, nothing below them. The writer holds an [`AnalysisHost`]; readers hold an
//! [`Analysis`] snapshot, whose every operation is addressed by a [`FileId`] (or works on
//! the whole workspace) and returns plain serializable data in editor terms
//! (workspace-relative paths, 1-based line/column, byte ranges). Every list has a limit and
//! says when it was truncated. Salsa cancellation is caught in one place
//! ([`Analysis`]'s methods) and returned as `Err(Cancelled)`.

mod analysis;
mod outline;
mod parse_tree;
mod stats;
mod structure;
mod symbol_search;

pub use analysis::{
    Analysis, AnalysisHost, Cancellable, Change, ChangeSummary, FileContent, FileId,
};
pub use outline::{Outline, OutlineNode};
pub use parse_tree::{ParseOptions, ParseOutput, SyntaxErrorInfo};
pub use stats::{LanguageStats, WorkspaceStats};
pub use structure::Fold;
pub use symbol_search::{SymbolMatch, SymbolQuery, SymbolSearch};

// The vocabulary of answers, defined below `ide` and part of its API.
pub use crate::db::ManifestKind;
pub use crate::semantic::projects::{Project as ProjectInfo, ProjectKind};
// What a tsconfig `extends` names, for the loader to read those files too.
pub use crate::semantic::projects::{extends_candidates, extends_specifiers};
pub use crate::{
    lang::{LangId, Language, Registry, registry},
    semantic::symbols::SymbolKind,
    syntax::{
        ColumnIndex, ColumnUnit, LineCol, LineIndex, SyntaxError, TextRange, floor_char_boundary,
        line_starts,
    },
};

use serde::Serialize;

/// A range in editor terms: 1-based line/column (columns in characters) and byte offsets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Span {
    pub start: LineCol,
    pub end: LineCol,
    pub byte_start: u32,
    pub byte_end: u32,
}

impl Span {
    pub fn new(index: &LineIndex, range: TextRange) -> Span {
        Span {
            start: index.line_col(range.start().into()),
            end: index.line_col(range.end().into()),
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
