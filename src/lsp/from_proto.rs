//! Conversions from LSP types to what `ide` takes: positions to byte offsets, request
//! parameters to queries. (URIs to workspace paths: `uri`.)
//!
//! Invariant: with `to_proto`, the only module that reads an LSP position, and it does so
//! through a [`LineIndex`] in the negotiated encoding; a position past a line's end clamps
//! to the line's end (before its newline) and one past the last line to the text's end.

use lsp_server::RequestId;
use lsp_types::{CodeActionKind, NumberOrString, Position, Range, WorkspaceSymbolParams};

use super::line_index::LineIndex;
use crate::ide::SymbolQuery;

/// Results of one `workspace/symbol` request.
pub const WORKSPACE_SYMBOL_LIMIT: usize = 100;

/// The byte offset of a client position; a column inside a character moves to its end.
pub fn offset(index: &LineIndex, position: Position) -> usize {
    index
        .index
        .offset(position.line, position.character, index.encoding.unit())
}

/// The bytes a client range covers, `start <= end` even for a reversed range.
pub fn byte_range(index: &LineIndex, range: Range) -> std::ops::Range<usize> {
    let start = offset(index, range.start);
    let end = offset(index, range.end).max(start);
    start..end
}

/// The bytes of the whole lines a client range touches, line breaks included; a range
/// ending at the start of a line (a selection of whole lines) leaves that line out.
pub fn line_span(index: &LineIndex, range: Range) -> std::ops::Range<usize> {
    let line_start = |line: u32| offset(index, Position { line, character: 0 });
    let (first, last) = if range.start <= range.end {
        (range.start, range.end)
    } else {
        (range.end, range.start)
    };
    let end = if last.character == 0 && last.line > first.line {
        line_start(last.line)
    } else {
        line_start(last.line.saturating_add(1))
    };
    line_start(first.line)..end
}

pub fn symbol_query(params: &WorkspaceSymbolParams) -> SymbolQuery {
    SymbolQuery {
        query: params.query.clone(),
        limit: WORKSPACE_SYMBOL_LIMIT,
        ..Default::default()
    }
}

/// Whether the client's `only` asks for code actions of `kind`: each kind there stands for
/// itself and the kinds below it (`source` and `source.fixAll` for
/// `source.fixAll.sextant`); no `only` asks for every kind.
pub fn wants_kind(only: Option<&[CodeActionKind]>, kind: &CodeActionKind) -> bool {
    let kind = kind.as_str();
    only.is_none_or(|only| {
        only.iter().any(|asked| {
            kind.strip_prefix(asked.as_str())
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
        })
    })
}

pub fn request_id(id: NumberOrString) -> RequestId {
    match id {
        NumberOrString::Number(n) => n.into(),
        NumberOrString::String(s) => s.into(),
    }
}
