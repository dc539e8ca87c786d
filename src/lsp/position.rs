//! LSP positions: 0-based lines, columns in UTF-8 bytes or UTF-16 code units (negotiated).
//!
//! Invariant: converting one position costs a binary search and a scan of a few bytes
//! (see `syntax::ColumnIndex`), never a walk along the line, so a document that is one
//! long line (minified code) costs the same per symbol or diagnostic as any other.

use lsp_types::{Position, Range};

use crate::ide::{ColumnIndex, ColumnUnit, floor_char_boundary, line_starts};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    Utf8,
    Utf16,
}

impl Encoding {
    fn unit(self) -> ColumnUnit {
        match self {
            Encoding::Utf8 => ColumnUnit::Utf8,
            Encoding::Utf16 => ColumnUnit::Utf16,
        }
    }
}

/// Line starts and column totals of one text, for converting both ways.
pub struct Lines<'t> {
    text: &'t str,
    starts: Vec<u32>,
    columns: ColumnIndex,
}

impl<'t> Lines<'t> {
    pub fn new(text: &'t str, encoding: Encoding) -> Lines<'t> {
        Lines {
            text,
            starts: line_starts(text),
            columns: ColumnIndex::new(text, encoding.unit()),
        }
    }

    pub fn position(&self, offset: usize) -> Position {
        let offset = floor_char_boundary(self.text, offset);
        let line = self.starts.partition_point(|&s| s as usize <= offset) - 1;
        let character = self
            .columns
            .units_between(self.text, self.starts[line] as usize, offset);
        Position {
            line: line as u32,
            character: character as u32,
        }
    }

    pub fn range(&self, start: usize, end: usize) -> Range {
        Range {
            start: self.position(start),
            end: self.position(end),
        }
    }

    /// Byte offset of a client position, clamped to the line (and the text); a column
    /// inside a character moves to the character's end.
    pub fn offset(&self, position: Position) -> usize {
        let Some(&line_start) = self.starts.get(position.line as usize) else {
            return self.text.len();
        };
        let line_start = line_start as usize;
        let line_end = self
            .starts
            .get(position.line as usize + 1)
            .map_or(self.text.len(), |&s| s as usize - 1);
        self.columns.offset_after(
            self.text,
            line_start,
            line_end.max(line_start),
            position.character as usize,
        )
    }
}

/// The position of `offset` on a known 0-based `line`, looking only at that line: cheap for
/// a few positions in a large file (no table is built), but each call scans the line up to
/// `offset`, so callers convert a bounded number of positions per file this way.
pub fn position_on_line(text: &str, line: u32, offset: usize, encoding: Encoding) -> Position {
    let offset = floor_char_boundary(text, offset);
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let character = encoding.unit().count(&text[line_start..offset]);
    Position {
        line,
        character: character as u32,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_and_utf8_columns() {
        let text = "aé😀x\nz";
        let x = text.find('x').unwrap();
        let utf16 = Lines::new(text, Encoding::Utf16);
        assert_eq!(
            utf16.position(x),
            Position {
                line: 0,
                character: 4
            }
        );
        assert_eq!(
            utf16.offset(Position {
                line: 0,
                character: 4
            }),
            x
        );
        let utf8 = Lines::new(text, Encoding::Utf8);
        assert_eq!(
            utf8.position(x),
            Position {
                line: 0,
                character: 7
            }
        );
        assert_eq!(
            utf8.offset(Position {
                line: 0,
                character: 7
            }),
            x
        );
        assert_eq!(
            utf16.offset(Position {
                line: 1,
                character: 99
            }),
            text.len()
        );
        assert_eq!(
            utf16.offset(Position {
                line: 9,
                character: 0
            }),
            text.len()
        );
        assert_eq!(
            position_on_line(text, 0, x, Encoding::Utf16),
            utf16.position(x)
        );
        let z = text.find('z').unwrap();
        assert_eq!(
            position_on_line(text, 1, z, Encoding::Utf8),
            utf8.position(z)
        );
    }

    /// What the conversions must agree with: count along the line.
    fn naive_position(text: &str, offset: usize, encoding: Encoding) -> Position {
        let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
        let before = &text[line_start..offset];
        Position {
            line: text[..offset].matches('\n').count() as u32,
            character: match encoding {
                Encoding::Utf8 => before.len(),
                Encoding::Utf16 => before.encode_utf16().count(),
            } as u32,
        }
    }

    #[test]
    fn positions_far_along_one_long_line_are_exact() {
        // A minified-looking line of ~1 MB with characters of 1 to 4 bytes (and 1 or 2
        // UTF-16 units) throughout, then a short second line.
        let unit = "function é漢😀(a){return 'x';};var y=1;";
        let line = unit.repeat(1 << 20 >> 5);
        let text = format!(
            "{line}
z = '😀';"
        );
        let marks: Vec<usize> = text.match_indices("return").map(|(i, _)| i).collect();
        let far: Vec<usize> = marks.iter().rev().step_by(997).copied().collect();
        for encoding in [Encoding::Utf8, Encoding::Utf16] {
            let lines = Lines::new(&text, encoding);
            for &offset in far.iter().chain(&[0, line.len(), text.len()]) {
                let expected = naive_position(&text, offset, encoding);
                assert_eq!(lines.position(offset), expected, "{encoding:?} at {offset}");
                assert_eq!(
                    lines.offset(expected),
                    offset,
                    "{encoding:?} back to {offset}"
                );
                assert_eq!(
                    position_on_line(&text, expected.line, offset, encoding),
                    expected
                );
            }
        }
        // The last emoji of the line: a UTF-16 column between its two surrogates lands
        // after it, and a column past the line's end clamps to the line's end.
        let emoji = line.rfind('😀').unwrap();
        let utf16 = Lines::new(&text, Encoding::Utf16);
        let at = utf16.position(emoji);
        assert_eq!(at, naive_position(&text, emoji, Encoding::Utf16));
        assert_eq!(
            utf16.offset(Position {
                line: 0,
                character: at.character + 1
            }),
            emoji + '😀'.len_utf8()
        );
        assert_eq!(
            utf16.offset(Position {
                line: 0,
                character: u32::MAX
            }),
            line.len()
        );
    }
}
