//! Byte offsets ↔ line/column.
//!
//! Lines and columns shown to people and agents are 1-based; columns count Unicode scalar
//! values (what an editor's status bar shows for most text). Byte offsets are 0-based.

use serde::Serialize;

#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, schemars::JsonSchema,
)]
pub struct LineCol {
    /// 1-based line number.
    pub line: u32,
    /// 1-based column, in characters.
    pub column: u32,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineIndex {
    /// Byte offset at which each line starts.
    line_starts: Vec<u32>,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        let mut line_starts = vec![0];
        line_starts.extend(memchr_newlines(text).map(|i| i as u32 + 1));
        LineIndex { line_starts }
    }

    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }

    /// The position of byte `offset` of `text` (the text this index was built from).
    pub fn line_col(&self, text: &str, offset: usize) -> LineCol {
        let offset = super::floor_char_boundary(text, offset);
        let line = self.line_starts.partition_point(|&s| s as usize <= offset) - 1;
        let line_start = self.line_starts[line] as usize;
        let column = text[line_start..offset].chars().count();
        LineCol {
            line: line as u32 + 1,
            column: column as u32 + 1,
        }
    }

    /// Byte offset where 1-based `line` starts, if the line exists.
    pub fn line_start(&self, line: u32) -> Option<usize> {
        self.line_starts
            .get(line.checked_sub(1)? as usize)
            .map(|&s| s as usize)
    }
}

/// Position of byte `offset` given a tree-sitter point: the column is converted from bytes to
/// characters by looking only at the line's text, so no line index is needed.
pub fn line_col_from_point(text: &str, offset: usize, row: usize, byte_column: usize) -> LineCol {
    let offset = super::floor_char_boundary(text, offset);
    let line_start = offset.saturating_sub(byte_column);
    let line_start = super::floor_char_boundary(text, line_start);
    let column = text[line_start..offset].chars().count();
    LineCol {
        line: row as u32 + 1,
        column: column as u32 + 1,
    }
}

fn memchr_newlines(text: &str) -> impl Iterator<Item = usize> + '_ {
    text.bytes()
        .enumerate()
        .filter(|&(_, b)| b == b'\n')
        .map(|(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_count_characters() {
        let text = "ab\né漢😀x\n";
        let index = LineIndex::new(text);
        assert_eq!(index.line_col(text, 0), LineCol { line: 1, column: 1 });
        let x = text.find('x').unwrap();
        assert_eq!(index.line_col(text, x), LineCol { line: 2, column: 4 });
        assert_eq!(
            index.line_col(text, text.len()),
            LineCol { line: 3, column: 1 }
        );
        assert_eq!(
            line_col_from_point(text, x, 1, x - 3),
            LineCol { line: 2, column: 4 }
        );
    }
}
