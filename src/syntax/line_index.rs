//! Byte offsets ↔ line/column.
//!
//! Lines and columns shown to people and agents are 1-based; columns count Unicode scalar
//! values (what an editor's status bar shows for most text). Byte offsets are 0-based.
//!
//! Invariant: one conversion costs a binary search plus a scan of at most
//! [`CHECKPOINT_BYTES`] bytes, whatever the length of the line. A column is a difference of
//! running totals recorded every few bytes, never a count from the start of the line: a
//! minified file is one line of megabytes with thousands of symbols on it, and counting
//! from the line start made indexing it quadratic.

use std::sync::{Arc, OnceLock};

use serde::Serialize;

#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
pub struct LineCol {
    /// 1-based line number.
    pub line: u32,
    /// 1-based column, in characters.
    pub column: u32,
}

/// What a column counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ColumnUnit {
    /// Bytes of UTF-8.
    Utf8,
    /// UTF-16 code units (characters outside the Basic Multilingual Plane count 2).
    Utf16,
    /// Unicode scalar values.
    Chars,
}

impl ColumnUnit {
    /// Units in a byte range, charging each character to its first byte (continuation
    /// bytes count 0), so a range need not start or end on a character boundary.
    fn in_bytes(self, bytes: &[u8]) -> usize {
        // As in `str::is_char_boundary`: continuation bytes are 0x80..=0xBF.
        let leading = |b: u8| usize::from((b as i8) >= -0x40);
        match self {
            ColumnUnit::Utf8 => bytes.len(),
            ColumnUnit::Chars => bytes.iter().map(|&b| leading(b)).sum(),
            ColumnUnit::Utf16 => bytes
                .iter()
                .map(|&b| leading(b) + usize::from(b >= 0xF0))
                .sum(),
        }
    }

    /// Units in `s`, counted in one pass.
    pub fn count(self, s: &str) -> usize {
        self.in_bytes(s.as_bytes())
    }

    fn of_char(self, c: char) -> usize {
        match self {
            ColumnUnit::Utf8 => c.len_utf8(),
            ColumnUnit::Chars => 1,
            ColumnUnit::Utf16 => c.len_utf16(),
        }
    }
}

/// Distance between running-total checkpoints: the most bytes one conversion scans.
pub const CHECKPOINT_BYTES: usize = 64;

/// Running totals of one [`ColumnUnit`] over a text, for measuring any span of it in
/// constant time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ColumnIndex {
    unit: ColumnUnit,
    /// `totals[i]`: units in `text[..i * CHECKPOINT_BYTES]`. Empty when every unit is one
    /// byte (UTF-8 columns, or an ASCII text), where a count is a subtraction.
    totals: Vec<u32>,
}

impl ColumnIndex {
    pub fn new(text: &str, unit: ColumnUnit) -> ColumnIndex {
        let mut totals = Vec::new();
        if unit != ColumnUnit::Utf8 && !text.is_ascii() {
            totals.reserve(text.len() / CHECKPOINT_BYTES + 1);
            let mut total = 0u32;
            totals.push(0);
            for chunk in text.as_bytes().chunks(CHECKPOINT_BYTES) {
                total += unit.in_bytes(chunk) as u32;
                totals.push(total);
            }
        }
        ColumnIndex { unit, totals }
    }

    pub fn unit(&self) -> ColumnUnit {
        self.unit
    }

    /// Units in `text[..offset]` (`text` is the text this index was built from; `offset` is
    /// clamped to its length).
    pub fn units_before(&self, text: &str, offset: usize) -> usize {
        let offset = offset.min(text.len());
        if self.totals.is_empty() {
            return offset;
        }
        let checkpoint = offset / CHECKPOINT_BYTES;
        let rest = &text.as_bytes()[checkpoint * CHECKPOINT_BYTES..offset];
        self.totals[checkpoint] as usize + self.unit.in_bytes(rest)
    }

    /// Units in `text[start..end]`, both char boundaries with `start <= end`.
    pub fn units_between(&self, text: &str, start: usize, end: usize) -> usize {
        self.units_before(text, end) - self.units_before(text, start)
    }

    /// The first char boundary `b` in `start..=end` with `units` units in `text[start..b]`
    /// or more, else `end` (`start` and `end` are char boundaries, `start <= end`): where
    /// a client's column lands, rounded up to a whole character and clamped to the span.
    pub fn offset_after(&self, text: &str, start: usize, end: usize, units: usize) -> usize {
        if self.totals.is_empty() {
            let target = start.saturating_add(units);
            if target >= end {
                return end;
            }
            return ceil_char_boundary(text, target);
        }
        let target = self.units_before(text, start) + units;
        // Begin the scan at the last checkpoint inside the span that is still short of the
        // target: every boundary before it is short too.
        let mut scan_from = start;
        let (first, last) = (start.div_ceil(CHECKPOINT_BYTES), end / CHECKPOINT_BYTES);
        if first <= last {
            let short = self.totals[first..=last].partition_point(|&t| (t as usize) < target);
            if short > 0 {
                scan_from =
                    super::floor_char_boundary(text, (first + short - 1) * CHECKPOINT_BYTES);
            }
        }
        let mut count = self.units_before(text, scan_from);
        for (i, c) in text[scan_from..end].char_indices() {
            if count >= target {
                return scan_from + i;
            }
            count += self.unit.of_char(c);
        }
        end
    }

    /// Position of byte `offset` given a tree-sitter point (row, and column in bytes): no
    /// line table is needed.
    pub fn line_col_from_point(
        &self,
        text: &str,
        offset: usize,
        row: usize,
        byte_column: usize,
    ) -> LineCol {
        let offset = super::floor_char_boundary(text, offset);
        let line_start = offset.saturating_sub(byte_column);
        let line_start = super::floor_char_boundary(text, line_start);
        let column = self.units_between(text, line_start, offset);
        LineCol {
            line: row as u32 + 1,
            column: column as u32 + 1,
        }
    }
}

/// A text's line table: converts byte offsets to 1-based line/character positions (what
/// answers show) and, both ways, to 0-based line/column in any [`ColumnUnit`] (what the LSP
/// negotiates). Holds the text it indexes, so a conversion cannot be given another text.
#[derive(Debug)]
pub struct LineIndex {
    text: Arc<str>,
    /// Byte offset at which each line starts.
    line_starts: Vec<u32>,
    chars: ColumnIndex,
    /// Built on first use: only UTF-16 clients need it.
    utf16: OnceLock<ColumnIndex>,
}

impl LineIndex {
    pub fn new(text: Arc<str>) -> LineIndex {
        LineIndex {
            line_starts: line_starts(&text),
            chars: ColumnIndex::new(&text, ColumnUnit::Chars),
            utf16: OnceLock::new(),
            text,
        }
    }

    pub fn text(&self) -> &Arc<str> {
        &self.text
    }

    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }

    fn columns(&self, unit: ColumnUnit) -> &ColumnIndex {
        match unit {
            ColumnUnit::Chars => &self.chars,
            ColumnUnit::Utf16 => self
                .utf16
                .get_or_init(|| ColumnIndex::new(&self.text, ColumnUnit::Utf16)),
            ColumnUnit::Utf8 => &UTF8_COLUMNS,
        }
    }

    /// The 1-based position of byte `offset` (columns in characters). An offset inside a
    /// character counts as that character's start; one past the end is the end.
    pub fn line_col(&self, offset: usize) -> LineCol {
        let (line, column) = self.line_column(offset, ColumnUnit::Chars);
        LineCol {
            line: line + 1,
            column: column + 1,
        }
    }

    /// The 0-based line and 0-based column of byte `offset`, the column in `unit`.
    pub fn line_column(&self, offset: usize, unit: ColumnUnit) -> (u32, u32) {
        let text = &*self.text;
        let offset = super::floor_char_boundary(text, offset);
        let line = self.line_starts.partition_point(|&s| s as usize <= offset) - 1;
        let line_start = self.line_starts[line] as usize;
        let column = self.columns(unit).units_between(text, line_start, offset);
        (line as u32, column as u32)
    }

    /// The byte offset of 0-based `line` and `column` (in `unit`): clamped to the line's end
    /// (before its newline), and to the text's end past the last line; a column inside a
    /// character moves to the character's end.
    pub fn offset(&self, line: u32, column: u32, unit: ColumnUnit) -> usize {
        let text = &*self.text;
        let Some(&line_start) = self.line_starts.get(line as usize) else {
            return text.len();
        };
        let line_start = line_start as usize;
        let line_end = self
            .line_starts
            .get(line as usize + 1)
            .map_or(text.len(), |&s| s as usize - 1);
        self.columns(unit)
            .offset_after(text, line_start, line_end.max(line_start), column as usize)
    }

    /// Byte offset where 1-based `line` starts, if the line exists.
    pub fn line_start(&self, line: u32) -> Option<usize> {
        self.line_starts
            .get(line.checked_sub(1)? as usize)
            .map(|&s| s as usize)
    }
}

/// UTF-8 columns are byte differences: no totals to keep.
static UTF8_COLUMNS: ColumnIndex = ColumnIndex {
    unit: ColumnUnit::Utf8,
    totals: Vec::new(),
};

/// Byte offsets at which the lines of `text` start (lines end at `\n`; the first starts at 0).
pub fn line_starts(text: &str) -> Vec<u32> {
    let mut starts = vec![0];
    starts.extend(
        text.bytes()
            .enumerate()
            .filter(|&(_, b)| b == b'\n')
            .map(|(i, _)| i as u32 + 1),
    );
    starts
}

/// The smallest char boundary of `text` that is `>= offset` (clamped to the text length).
fn ceil_char_boundary(text: &str, offset: usize) -> usize {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset += 1;
    }
    offset
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The definition the index must agree with: count from the start of the line.
    fn naive_units(text: &str, start: usize, end: usize, unit: ColumnUnit) -> usize {
        text[start..end].chars().map(|c| unit.of_char(c)).sum()
    }

    fn naive_offset_after(
        text: &str,
        start: usize,
        end: usize,
        units: usize,
        unit: ColumnUnit,
    ) -> usize {
        let mut count = 0;
        for (i, c) in text[start..end].char_indices() {
            if count >= units {
                return start + i;
            }
            count += unit.of_char(c);
        }
        end
    }

    #[test]
    fn columns_count_characters() {
        let text = "ab\né漢😀x\n";
        let index = LineIndex::new(text.into());
        assert_eq!(index.line_col(0), LineCol { line: 1, column: 1 });
        let x = text.find('x').unwrap();
        assert_eq!(index.line_col(x), LineCol { line: 2, column: 4 });
        assert_eq!(index.line_col(text.len()), LineCol { line: 3, column: 1 });
        assert_eq!(index.line_column(x, ColumnUnit::Utf16), (1, 4));
        assert_eq!(index.line_column(x, ColumnUnit::Utf8), (1, 9));
        assert_eq!(index.offset(1, 4, ColumnUnit::Utf16), x);
        assert_eq!(
            index.offset(1, 4, ColumnUnit::Utf16),
            x,
            "inside 😀: its end"
        );
        assert_eq!(
            index.offset(0, 99, ColumnUnit::Chars),
            2,
            "clamped before the newline"
        );
        assert_eq!(index.offset(7, 0, ColumnUnit::Chars), text.len());
        let chars = ColumnIndex::new(text, ColumnUnit::Chars);
        assert_eq!(
            chars.line_col_from_point(text, x, 1, x - 3),
            LineCol { line: 2, column: 4 }
        );
    }

    #[test]
    fn every_offset_of_a_long_mixed_line_agrees_with_counting() {
        // Checkpoints fall inside multi-byte characters and on both sides of them.
        let text: String = (0..400)
            .map(|i| ["a", "é", "漢", "😀", "\u{7ff}", "\u{800}", "\u{ffff}"][i % 7])
            .collect::<Vec<_>>()
            .join("");
        let text = format!("x\n{text}\ny");
        let line_start = 2;
        let line_end = text.len() - 2;
        for unit in [ColumnUnit::Utf8, ColumnUnit::Utf16, ColumnUnit::Chars] {
            let index = ColumnIndex::new(&text, unit);
            for offset in (line_start..=line_end).filter(|&o| text.is_char_boundary(o)) {
                let units = naive_units(&text, line_start, offset, unit);
                assert_eq!(
                    index.units_between(&text, line_start, offset),
                    units,
                    "{unit:?} at {offset}"
                );
            }
            let total = naive_units(&text, line_start, line_end, unit);
            for units in 0..=total + 3 {
                assert_eq!(
                    index.offset_after(&text, line_start, line_end, units),
                    naive_offset_after(&text, line_start, line_end, units, unit),
                    "{unit:?} for {units} units"
                );
            }
        }
        let lines = LineIndex::new(text.as_str().into());
        let last = text.len() - 1;
        assert_eq!(lines.line_col(last), LineCol { line: 3, column: 1 });
        let z = text[..line_end].char_indices().last().unwrap().0;
        assert_eq!(
            lines.line_col(z).column as usize,
            naive_units(&text, line_start, z, ColumnUnit::Chars) + 1
        );
    }

    #[test]
    fn ascii_texts_need_no_checkpoints() {
        let text = "abc\ndef";
        let index = ColumnIndex::new(text, ColumnUnit::Utf16);
        assert!(index.totals.is_empty());
        assert_eq!(index.units_between(text, 4, 6), 2);
        assert_eq!(index.offset_after(text, 4, 7, 99), 7);
    }
}
