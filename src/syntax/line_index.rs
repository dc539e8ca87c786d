//! Byte offsets ↔ line/column.
//!
//! Lines and columns shown to people and agents are 1-based; columns count Unicode scalar
//! values (what an editor's status bar shows for most text). Byte offsets are 0-based.
//!
//! Invariant: one conversion costs binary searches plus a scan of at most
//! [`CHECKPOINT_BYTES`] bytes, whatever the length of the line. A column is a difference of
//! running totals recorded every few bytes, never a count from the start of the line: a
//! minified file is one line of megabytes with thousands of symbols on it, and counting
//! from the line start made indexing it quadratic.

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
}

/// Distance between running-total checkpoints: the most bytes one conversion scans.
pub const CHECKPOINT_BYTES: usize = 64;

/// Where the characters of one 64-byte chunk of a text start: bit `i` is byte `i`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct ChunkStarts {
    /// Bytes that start a character (every byte but UTF-8's continuation bytes).
    chars: u64,
    /// Bytes that start a four-byte character: two UTF-16 units.
    astral: u64,
}

impl ChunkStarts {
    fn of(chunk: &[u8]) -> ChunkStarts {
        let (mut chars, mut astral) = (0u64, 0u64);
        for (i, &b) in chunk.iter().enumerate() {
            // As in `str::is_char_boundary`: continuation bytes are 0x80..=0xBF.
            chars |= u64::from((b as i8) >= -0x40) << i;
            astral |= u64::from(b >= 0xF0) << i;
        }
        ChunkStarts { chars, astral }
    }

    /// Units of `unit` in the chunk's bytes below `end` (`end < 64`), charging each
    /// character to its first byte.
    fn units_below(&self, unit: ColumnUnit, end: usize) -> usize {
        let below = (1u64 << end) - 1;
        let chars = (self.chars & below).count_ones() as usize;
        match unit {
            ColumnUnit::Utf8 => end,
            ColumnUnit::Chars => chars,
            ColumnUnit::Utf16 => chars + (self.astral & below).count_ones() as usize,
        }
    }
}

/// Columns of a text in every [`ColumnUnit`], measured without the text: running totals
/// every [`CHECKPOINT_BYTES`] bytes, and where characters start in the chunks that are not
/// ASCII. A cached line table then costs about a fifth of its text (its line starts, and
/// these for text that is not ASCII; 0.18 times the text of 400 Python files, 0.23 times
/// that of 400 Rust files: `benches/tree_memory.rs`), not a copy of it: where texts are kept compressed,
/// a table holding its text held a decompressed copy for as long as it was cached.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ColumnIndex {
    /// The text's length in bytes.
    len: usize,
    /// The chunks (numbered from the text's start) holding a byte that is not ASCII,
    /// ascending, and where their characters start. Empty for an ASCII text.
    wide_chunks: Vec<u32>,
    wide_starts: Vec<ChunkStarts>,
    /// `chars[i]`, `utf16[i]`: units in `text[..i * CHECKPOINT_BYTES]`. Empty for an
    /// ASCII text, where every unit is one byte and a count is a subtraction.
    chars: Vec<u32>,
    utf16: Vec<u32>,
}

impl ColumnIndex {
    pub fn new(text: &str) -> ColumnIndex {
        let mut index = ColumnIndex {
            len: text.len(),
            ..ColumnIndex::default()
        };
        if text.is_ascii() {
            return index;
        }
        let checkpoints = text.len() / CHECKPOINT_BYTES + 2;
        index.chars.reserve(checkpoints);
        index.utf16.reserve(checkpoints);
        let (mut chars, mut utf16) = (0u32, 0u32);
        index.chars.push(0);
        index.utf16.push(0);
        for (number, chunk) in text.as_bytes().chunks(CHECKPOINT_BYTES).enumerate() {
            if chunk.is_ascii() {
                chars += chunk.len() as u32;
                utf16 += chunk.len() as u32;
            } else {
                let starts = ChunkStarts::of(chunk);
                chars += starts.chars.count_ones();
                utf16 += starts.chars.count_ones() + starts.astral.count_ones();
                index.wide_chunks.push(number as u32);
                index.wide_starts.push(starts);
            }
            index.chars.push(chars);
            index.utf16.push(utf16);
        }
        index
    }

    fn starts_of_chunk(&self, number: usize) -> Option<&ChunkStarts> {
        let i = self.wide_chunks.binary_search(&(number as u32)).ok()?;
        Some(&self.wide_starts[i])
    }

    /// Whether `offset` is a character boundary of the text (its end is one).
    pub fn is_char_boundary(&self, offset: usize) -> bool {
        if offset >= self.len {
            return offset == self.len;
        }
        self.starts_of_chunk(offset / CHECKPOINT_BYTES)
            .is_none_or(|starts| starts.chars >> (offset % CHECKPOINT_BYTES) & 1 == 1)
    }

    /// The largest character boundary `<= offset` (clamped to the text's length).
    pub fn floor_char_boundary(&self, offset: usize) -> usize {
        let mut offset = offset.min(self.len);
        while !self.is_char_boundary(offset) {
            offset -= 1;
        }
        offset
    }

    /// The smallest character boundary `>= offset` (clamped to the text's length).
    pub fn ceil_char_boundary(&self, offset: usize) -> usize {
        let mut offset = offset.min(self.len);
        while !self.is_char_boundary(offset) {
            offset += 1;
        }
        offset
    }

    fn totals(&self, unit: ColumnUnit) -> &[u32] {
        match unit {
            ColumnUnit::Utf8 => &[],
            ColumnUnit::Chars => &self.chars,
            ColumnUnit::Utf16 => &self.utf16,
        }
    }

    /// Units in `text[..offset]` (`offset` is clamped to the text's length).
    pub fn units_before(&self, unit: ColumnUnit, offset: usize) -> usize {
        let offset = offset.min(self.len);
        let totals = self.totals(unit);
        if totals.is_empty() {
            return offset;
        }
        let (number, rest) = (offset / CHECKPOINT_BYTES, offset % CHECKPOINT_BYTES);
        let in_chunk = match self.starts_of_chunk(number) {
            Some(starts) => starts.units_below(unit, rest),
            None => rest,
        };
        totals[number] as usize + in_chunk
    }

    /// Units in `text[start..end]`, both char boundaries with `start <= end`.
    pub fn units_between(&self, unit: ColumnUnit, start: usize, end: usize) -> usize {
        self.units_before(unit, end) - self.units_before(unit, start)
    }

    /// Units of the character starting at byte `offset`, a character boundary.
    fn units_of_char_at(&self, unit: ColumnUnit, offset: usize) -> usize {
        let astral = self
            .starts_of_chunk(offset / CHECKPOINT_BYTES)
            .is_some_and(|starts| starts.astral >> (offset % CHECKPOINT_BYTES) & 1 == 1);
        match unit {
            ColumnUnit::Utf16 if astral => 2,
            _ => 1,
        }
    }

    /// The first char boundary `b` in `start..=end` with `units` units in `text[start..b]`
    /// or more, else `end` (`start` and `end` are char boundaries, `start <= end`): where
    /// a client's column lands, rounded up to a whole character and clamped to the span.
    pub fn offset_after(&self, unit: ColumnUnit, start: usize, end: usize, units: usize) -> usize {
        let totals = self.totals(unit);
        if totals.is_empty() {
            let target = start.saturating_add(units);
            if target >= end {
                return end;
            }
            return self.ceil_char_boundary(target);
        }
        let target = self.units_before(unit, start) + units;
        // Begin the scan at the last checkpoint inside the span that is still short of the
        // target: every boundary before it is short too.
        let mut scan_from = start;
        let (first, last) = (start.div_ceil(CHECKPOINT_BYTES), end / CHECKPOINT_BYTES);
        if first <= last {
            let short = totals[first..=last].partition_point(|&t| (t as usize) < target);
            if short > 0 {
                scan_from = self.floor_char_boundary((first + short - 1) * CHECKPOINT_BYTES);
            }
        }
        let mut count = self.units_before(unit, scan_from);
        for offset in (scan_from..end).filter(|&o| self.is_char_boundary(o)) {
            if count >= target {
                return offset;
            }
            count += self.units_of_char_at(unit, offset);
        }
        end
    }

    /// Position (columns in characters) of byte `offset` given a tree-sitter point (row, and
    /// column in bytes): no line table is needed.
    pub fn line_col_from_point(&self, offset: usize, row: usize, byte_column: usize) -> LineCol {
        let offset = self.floor_char_boundary(offset);
        let line_start = self.floor_char_boundary(offset.saturating_sub(byte_column));
        let column = self.units_between(ColumnUnit::Chars, line_start, offset);
        LineCol {
            line: row as u32 + 1,
            column: column as u32 + 1,
        }
    }
}

/// A text's line table: converts byte offsets to 1-based line/character positions (what
/// answers show) and, both ways, to 0-based line/column in any [`ColumnUnit`] (what the LSP
/// negotiates). It keeps no text (see [`ColumnIndex`]): offsets given to it must be of the
/// text it was built from, which every caller takes from the same revision.
#[derive(Debug)]
pub struct LineIndex {
    /// Byte offset at which each line starts.
    line_starts: Vec<u32>,
    columns: ColumnIndex,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        LineIndex {
            line_starts: line_starts(text),
            columns: ColumnIndex::new(text),
        }
    }

    pub fn line_count(&self) -> usize {
        self.line_starts.len()
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
        let offset = self.columns.floor_char_boundary(offset);
        let line = self.line_starts.partition_point(|&s| s as usize <= offset) - 1;
        let line_start = self.line_starts[line] as usize;
        let column = self.columns.units_between(unit, line_start, offset);
        (line as u32, column as u32)
    }

    /// The byte offset of 0-based `line` and `column` (in `unit`): clamped to the line's end
    /// (before its newline), and to the text's end past the last line; a column inside a
    /// character moves to the character's end.
    pub fn offset(&self, line: u32, column: u32, unit: ColumnUnit) -> usize {
        let len = self.columns.len;
        let Some(&line_start) = self.line_starts.get(line as usize) else {
            return len;
        };
        let line_start = line_start as usize;
        let line_end = self
            .line_starts
            .get(line as usize + 1)
            .map_or(len, |&s| s as usize - 1);
        self.columns
            .offset_after(unit, line_start, line_end.max(line_start), column as usize)
    }

    /// Byte offset where 1-based `line` starts, if the line exists.
    pub fn line_start(&self, line: u32) -> Option<usize> {
        self.line_starts
            .get(line.checked_sub(1)? as usize)
            .map(|&s| s as usize)
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    /// The definition the index must agree with: count from the start of the line.
    fn naive_units(text: &str, start: usize, end: usize, unit: ColumnUnit) -> usize {
        text[start..end].chars().map(|c| of_char(unit, c)).sum()
    }

    fn of_char(unit: ColumnUnit, c: char) -> usize {
        match unit {
            ColumnUnit::Utf8 => c.len_utf8(),
            ColumnUnit::Chars => 1,
            ColumnUnit::Utf16 => c.len_utf16(),
        }
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
            count += of_char(unit, c);
        }
        end
    }

    #[test]
    fn columns_count_characters() {
        let text = "ab\né漢😀x\n";
        let index = LineIndex::new(text);
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
        let columns = ColumnIndex::new(text);
        assert_eq!(
            columns.line_col_from_point(x, 1, x - 3),
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
        let index = ColumnIndex::new(&text);
        for offset in 0..=text.len() + 2 {
            assert_eq!(
                index.is_char_boundary(offset),
                text.is_char_boundary(offset)
            );
        }
        for unit in [ColumnUnit::Utf8, ColumnUnit::Utf16, ColumnUnit::Chars] {
            for offset in (line_start..=line_end).filter(|&o| text.is_char_boundary(o)) {
                let units = naive_units(&text, line_start, offset, unit);
                assert_eq!(
                    index.units_between(unit, line_start, offset),
                    units,
                    "{unit:?} at {offset}"
                );
            }
            let total = naive_units(&text, line_start, line_end, unit);
            for units in 0..=total + 3 {
                assert_eq!(
                    index.offset_after(unit, line_start, line_end, units),
                    naive_offset_after(&text, line_start, line_end, units, unit),
                    "{unit:?} for {units} units"
                );
            }
        }
        let lines = LineIndex::new(&text);
        let last = text.len() - 1;
        assert_eq!(lines.line_col(last), LineCol { line: 3, column: 1 });
        let z = text[..line_end].char_indices().last().unwrap().0;
        assert_eq!(
            lines.line_col(z).column as usize,
            naive_units(&text, line_start, z, ColumnUnit::Chars) + 1
        );
    }

    #[test]
    fn ascii_chunks_of_a_mixed_text_keep_no_starts_and_agree_with_counting() {
        // Non-ASCII characters in the third chunk, none in the fourth, astral ones at the
        // fifth's start and across the sixth's.
        let text = format!(
            "{}é漢\n{}😀😀{}😀{}",
            "a".repeat(130),
            "b\n".repeat(60),
            "c".repeat(54),
            "c".repeat(10)
        );
        let index = LineIndex::new(&text);
        assert_eq!(index.columns.wide_chunks, vec![2, 4, 5]);
        let starts: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
        for offset in 0..=text.len() {
            let before = &text.as_bytes()[..offset];
            let line_start = before
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |i| i + 1);
            let boundary = *starts.iter().rev().find(|&&s| s <= offset).unwrap_or(&0);
            let boundary = if offset == text.len() {
                offset
            } else {
                boundary
            };
            for unit in [ColumnUnit::Utf8, ColumnUnit::Utf16, ColumnUnit::Chars] {
                let (line, column) = index.line_column(offset, unit);
                assert_eq!(
                    (line as usize, column as usize),
                    (
                        before.iter().filter(|&&b| b == b'\n').count(),
                        naive_units(&text, line_start, boundary, unit)
                    ),
                    "{unit:?} at {offset}"
                );
                if boundary == offset {
                    assert_eq!(
                        index.offset(line, column, unit),
                        offset,
                        "{unit:?} back to {offset}"
                    );
                }
            }
        }
    }

    proptest::proptest! {
        // Texts of ASCII runs and characters of every width, so that chunks are ASCII,
        // mixed, or split inside a character.
        #[test]
        fn any_offset_converts_as_counting_does(
            parts in proptest::collection::vec("[a-z\n]{0,90}|[é漢😀\u{7ff}\u{800}\u{ffff}\n]{1,8}", 0..40)
        ) {
            let text = parts.concat();
            let index = LineIndex::new(&text);
            for offset in 0..=text.len() + 1 {
                let boundary = (0..=offset.min(text.len())).rev().find(|&o| text.is_char_boundary(o)).unwrap_or(0);
                let line_start = text.as_bytes()[..boundary].iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
                let line = text.as_bytes()[..line_start].iter().filter(|&&b| b == b'\n').count();
                for unit in [ColumnUnit::Utf8, ColumnUnit::Utf16, ColumnUnit::Chars] {
                    let column = naive_units(&text, line_start, boundary, unit);
                    proptest::prop_assert_eq!(
                        index.line_column(offset, unit),
                        (line as u32, column as u32),
                        "{:?} at {}", unit, offset
                    );
                    let line_end = text[line_start..].find('\n').map_or(text.len(), |i| line_start + i);
                    proptest::prop_assert_eq!(
                        index.offset(line as u32, column as u32, unit),
                        naive_offset_after(&text, line_start, line_end, column, unit),
                        "{:?} back from {}", unit, offset
                    );
                }
            }
        }
    }

    #[test]
    fn ascii_texts_need_no_checkpoints() {
        let text = "abc\ndef";
        let index = ColumnIndex::new(text);
        assert_eq!(
            index,
            ColumnIndex {
                len: 7,
                ..ColumnIndex::default()
            }
        );
        assert_eq!(index.units_between(ColumnUnit::Utf16, 4, 6), 2);
        assert_eq!(index.offset_after(ColumnUnit::Utf16, 4, 7, 99), 7);
    }
}
