//! LSP positions: 0-based lines, columns in UTF-8 bytes or UTF-16 code units (negotiated).

use lsp_types::{Position, Range};

use crate::syntax::floor_char_boundary;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    Utf8,
    Utf16,
}

/// Line starts of one text, for converting both ways.
pub struct Lines<'t> {
    text: &'t str,
    starts: Vec<usize>,
    encoding: Encoding,
}

impl<'t> Lines<'t> {
    pub fn new(text: &'t str, encoding: Encoding) -> Lines<'t> {
        let mut starts = vec![0];
        starts.extend(
            text.bytes()
                .enumerate()
                .filter(|&(_, b)| b == b'\n')
                .map(|(i, _)| i + 1),
        );
        Lines {
            text,
            starts,
            encoding,
        }
    }

    pub fn position(&self, offset: usize) -> Position {
        let offset = floor_char_boundary(self.text, offset);
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        let before = &self.text[self.starts[line]..offset];
        let character = match self.encoding {
            Encoding::Utf8 => before.len(),
            Encoding::Utf16 => before.encode_utf16().count(),
        };
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

    /// Byte offset of a client position, clamped to the line (and the text).
    pub fn offset(&self, position: Position) -> usize {
        let Some(&line_start) = self.starts.get(position.line as usize) else {
            return self.text.len();
        };
        let line_end = self
            .starts
            .get(position.line as usize + 1)
            .map_or(self.text.len(), |&s| s - 1);
        let line = &self.text[line_start..line_end.max(line_start)];
        let mut units = 0usize;
        for (i, c) in line.char_indices() {
            if units >= position.character as usize {
                return line_start + i;
            }
            units += match self.encoding {
                Encoding::Utf8 => c.len_utf8(),
                Encoding::Utf16 => c.len_utf16(),
            };
        }
        line_start + line.len()
    }
}

/// The position of `offset` on a known 0-based `line`, looking only at that line (cheap for
/// one position in a large file).
pub fn position_on_line(text: &str, line: u32, offset: usize, encoding: Encoding) -> Position {
    let offset = floor_char_boundary(text, offset);
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let before = &text[line_start..offset];
    let character = match encoding {
        Encoding::Utf8 => before.len(),
        Encoding::Utf16 => before.encode_utf16().count(),
    };
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
}
