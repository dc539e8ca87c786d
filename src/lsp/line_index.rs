//! The negotiated position encoding, and a file's line table paired with it.
//!
//! Invariant: an LSP position is only ever made or read through a [`LineIndex`], which
//! carries the encoding the session negotiated; the conversions themselves live in
//! `to_proto` and `from_proto`. The table is `ide`'s tracked one (`Analysis::line_index`),
//! so converting a position costs a binary search and a short scan, never a walk along a
//! line, however long the line (minified code).

use std::sync::Arc;

use lsp_types::{ClientCapabilities, PositionEncodingKind};

use crate::ide::{self, ColumnUnit};

/// What a column counts on the wire: UTF-8 bytes when the client offers it, else UTF-16
/// code units (the protocol's default).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PositionEncoding {
    Utf8,
    Utf16,
}

impl PositionEncoding {
    /// UTF-8 if the client lists it in `general.positionEncodings`, else UTF-16.
    pub fn negotiate(capabilities: &ClientCapabilities) -> PositionEncoding {
        let offers_utf8 = capabilities
            .general
            .as_ref()
            .and_then(|g| g.position_encodings.as_ref())
            .is_some_and(|encodings| encodings.contains(&PositionEncodingKind::UTF8));
        if offers_utf8 {
            PositionEncoding::Utf8
        } else {
            PositionEncoding::Utf16
        }
    }

    pub fn kind(self) -> PositionEncodingKind {
        match self {
            PositionEncoding::Utf8 => PositionEncodingKind::UTF8,
            PositionEncoding::Utf16 => PositionEncodingKind::UTF16,
        }
    }

    pub(super) fn unit(self) -> ColumnUnit {
        match self {
            PositionEncoding::Utf8 => ColumnUnit::Utf8,
            PositionEncoding::Utf16 => ColumnUnit::Utf16,
        }
    }
}

/// One text's line table and the encoding its positions use.
#[derive(Clone)]
pub struct LineIndex {
    pub index: Arc<ide::LineIndex>,
    pub encoding: PositionEncoding,
}

impl LineIndex {
    /// A table over a text the analysis does not hold (an editor's document between
    /// changes); answers use `Analysis::line_index` instead.
    pub fn for_text(text: &str, encoding: PositionEncoding) -> LineIndex {
        LineIndex {
            index: Arc::new(ide::LineIndex::new(text)),
            encoding,
        }
    }
}
