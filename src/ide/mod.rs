//! The analysis API: the operations every front end calls.
//!
//! Invariants: front ends (`cli`, `mcp`, `lsp`) use this module and `workspace`'s
//! lifecycle, nothing below them. The writer holds an [`AnalysisHost`]; readers hold an
//! [`Analysis`] snapshot, whose every operation is addressed by a [`FileId`] (or works on
//! the whole workspace) and returns plain serializable data in editor terms
//! (workspace-relative paths, and every position a [`Span`]: 1-based lines and character
//! columns, 0-based byte offsets; folds too). Every list has a limit and says when it was
//! truncated. Salsa cancellation is caught in one place
//! ([`Analysis`]'s methods) and returned as `Err(Cancelled)`.

mod analysis;
mod bootstrap;
mod call_graph;
mod changes;
mod diagnostics;
mod edit_symbol;
mod edits;
mod error;
mod explore;
mod fix;
mod format;
mod hover;
mod impact;
mod implementations;
mod import_graph;
mod imports;
pub mod memory;
mod navigation;
mod outline;
mod pack;
mod parse_tree;
mod patch;
mod read;
mod rename;
mod repo_map;
mod scip;
mod search;
mod skeleton;
mod stats;
mod structure;
mod symbol_search;
mod target;
mod text_encoding;

pub use analysis::{
    Analysis, AnalysisHost, Cancellable, CancellationToken, Cancelled, Change, ChangeSummary,
    FileContent, FileId, LARGE_FILE_BYTES, Priming,
};
pub use bootstrap::{
    BootstrapFacts, DirectorySummary, EntryPoint, ImportedFile, MAX_LISTED as MAX_BOOTSTRAP_LISTED,
    ProjectSummary,
};
pub use call_graph::{
    Call, CallDirection, CallEdge, CallGraph, CallGraphError, CallGraphQuery, CallItem,
    DEFAULT_MAX_NODES as DEFAULT_CALL_GRAPH_NODES, EdgeKind, MAX_DEPTH as MAX_CALL_DEPTH,
    dot as call_graph_dot, mermaid as call_graph_mermaid,
};
pub use changes::{
    ChangeStatus, ChangedDefinition, ChangedFile, ChangedText, Changes, ChangesError, ChangesQuery,
    DefinitionChange,
};
pub use diagnostics::{
    CheckConfig, CheckOverride, CheckQuery, CheckResult, CheckSettings, CheckSummary,
    CodeSelection, DIAGNOSTICS_DOC, DiagnosticInfo, FixInfo, RelatedInfo, diagnostic_codes,
    diagnostics_doc, docs_anchor, explain,
};
pub use edit_symbol::{SymbolEdit, SymbolEditError, SymbolEditKind, SymbolEditTarget};
pub use edits::{
    ContentHash, EditError, FileEdit, FileSystemEdit, SourceChange, TextEdit, unified_diff,
    unified_diff_labelled,
};
pub use error::{ErrorCode, Failure};
pub use explore::{
    ExploreAnswer, ExploreQuery, ExploredCallPath, ExploredDefinition, ExploredFile,
    MAX_PER_TERM as MAX_EXPLORED_PER_TERM, MoreNamed, Shown as ExploreShown,
};
pub use fix::{AppliedFix, FixOutcome, FixQuery, MAX_ROUNDS as MAX_FIX_ROUNDS, WithheldFixes};
pub use format::{
    FileFormat, FormatError, FormatOptions, IndentStyle, external_output_refusal,
    format_output_limit, format_source,
};
pub use hover::HoverInfo;
pub use impact::{
    DEFAULT_DEPTH as DEFAULT_IMPACT_DEPTH, DEFAULT_LIMIT as DEFAULT_IMPACT_LIMIT, Impact,
    ImpactEntry, ImpactError, ImpactQuery, ImpactSeed,
};
pub use implementations::{
    HierarchyDirection, HierarchyItem, Implementations, ImplementationsError,
};
pub use import_graph::{Direction, Granularity, GraphEdge, GraphNode, GraphQuery, ImportGraphView};
pub use imports::{ImportInfo, ImportStatus};
pub use navigation::{Certainty, Definition, Reference, ReferenceQuery, ReferenceRole, References};
pub use outline::{Outline, OutlineNode};
pub use pack::{
    OmittedEntry, PackAnswer, PackEntry, PackError, PackMode, PackRequest, PackSource, PackStyle,
    PackedEntry,
};
pub use parse_tree::{ParseOptions, ParseOutput, SyntaxErrorInfo};
pub use patch::{
    CheckPolicy, FileOperation, FileOutcome, FileStatus, Hunk, HunkAnchor, HunkLine, HunkReport,
    InexactHunk, OperationKind, Patch, PatchError, PatchFormat, PatchOptions, PatchOutcome,
    PatchPreview, PatchedFile, Replacement, Sha256Hash, apply_to_texts, detect_format, parse_patch,
};
pub use read::{
    Ambiguity, Candidate, PieceInfo, ReadAnswer, ReadCursor, ReadError, ReadRequest, ReadStatus,
    ReadTarget, TargetPart, read_across, read_lines,
};
pub use rename::{
    EditOrigin, NewDiagnostics, Rename, RenameConflict, RenameEdit, RenameError, RenameOptions,
    validate_name,
};
pub use repo_map::{MapDefinition, RepoMap, RepoMapRequest};
pub use scip::{
    SCHEME as SCIP_SCHEME, ScipError, ScipExport, ScipRequest, ScipShard, ScipShardBy,
    written_by_sextant as scip_written_by_sextant,
};
pub use search::{
    CaseMode, MAX_CONTEXT, MAX_GLOBS, MAX_PATTERN_BYTES, SearchAnswer, SearchError, SearchFile,
    SearchLine, SearchQuery, SearchRegion, SearchSymbol, WorkspaceHits, check_search,
    search_across,
};
pub use skeleton::{ElidedLines, OmittedFile, SkeletonAnswer, SkeletonFile, SkeletonQuery};
pub use stats::{LanguageStats, WorkspaceStats};
pub use structure::Fold;
pub use symbol_search::{SymbolMatch, SymbolQuery, SymbolRank, SymbolSearch};
pub use target::{Target, TargetError};
pub use text_encoding::{FileText, TextEncoding, Unencodable};

// The vocabulary of answers, defined below `ide` and part of its API.
pub use crate::checks::{Applicability, Code as DiagnosticCode, Severity};
pub use crate::db::ManifestKind;
pub use crate::db::records::{FileState, RecordCounts, RecordFile, RecordStore};
pub use crate::engine::search::NameScope;
pub use crate::engine::skeleton::ElisionKind;
pub use crate::engine::tokens::{Budget, Encoding};
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

/// The registry's language names as prose (`Rust, Python and Go`), for help texts and
/// instructions, which thereby name every language the registry has.
pub fn language_names() -> String {
    let names: Vec<&str> = registry().all().map(|l| l.name.as_str()).collect();
    match names.as_slice() {
        [] => String::new(),
        [only] => only.to_string(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// A range in editor terms, the one position type of every answer: 1-based lines and
/// columns (columns count characters), 0-based byte offsets (`byte_end` exclusive).
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

    /// The span of `range` whose start position is known: only the range's own text is
    /// read (no line table), which suits short ranges such as names.
    pub fn from_start(text: &str, range: TextRange, start: LineCol) -> Span {
        let inside = &text[usize::from(range.start())..usize::from(range.end())];
        let end = match inside.rfind('\n') {
            None => LineCol {
                line: start.line,
                column: start.column + inside.chars().count() as u32,
            },
            Some(last_break) => LineCol {
                line: start.line + inside.matches('\n').count() as u32,
                column: 1 + inside[last_break + 1..].chars().count() as u32,
            },
        };
        Span {
            start,
            end,
            byte_start: range.start().into(),
            byte_end: range.end().into(),
        }
    }

    /// The span of `range` whose start and end positions are known.
    pub fn from_parts(range: TextRange, start: LineCol, end: LineCol) -> Span {
        Span {
            start,
            end,
            byte_start: range.start().into(),
            byte_end: range.end().into(),
        }
    }

    pub fn text_range(&self) -> TextRange {
        TextRange::new(self.byte_start.into(), self.byte_end.into())
    }

    pub fn byte_range(&self) -> std::ops::Range<usize> {
        self.byte_start as usize..self.byte_end as usize
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_span_from_its_start_counts_characters_and_lines() {
        let text = "é = 1\nfn naïve_name() {\n}\n";
        let name = TextRange::new(10.into(), 21.into());
        assert_eq!(&text[10..21], "naïve_name");
        let span = Span::from_start(text, name, LineCol { line: 2, column: 4 });
        assert_eq!(
            span.end,
            LineCol {
                line: 2,
                column: 14
            }
        );
        let index = LineIndex::new(text);
        assert_eq!(span, Span::new(&index, name));
        let body = TextRange::new(7.into(), 27.into());
        let start = index.line_col(7);
        assert_eq!(Span::from_start(text, body, start), Span::new(&index, body));
        assert_eq!(span.byte_range(), 10..21);
        assert_eq!(span.text_range(), name);
    }

    #[test]
    fn language_names_are_the_registry_s_as_prose() {
        let names: Vec<&str> = registry().all().map(|l| l.name.as_str()).collect();
        let (last, init) = names.split_last().unwrap();
        assert_eq!(language_names(), format!("{} and {last}", init.join(", ")));
    }
}
