//! Texts as lines: a patch's lines with their numbers, a file's lines with their endings.
//!
//! Invariant: splitting is lossless. [`FileLines::to_text`] of [`FileLines::parse`] is the
//! text it was given, byte for byte (byte-order mark, each line's own ending, a last line
//! without one); lines are split at `\n` only, a `\r` before it being part of the ending.

const BOM: char = '\u{feff}';

/// One line of a patch's text.
#[derive(Clone, Copy, Debug)]
pub(super) struct PatchLine<'a> {
    /// 1-based.
    pub number: usize,
    /// The line without its `\n` and without a `\r` before it.
    pub text: &'a str,
    /// A `\r` came before the `\n`.
    pub cr: bool,
}

pub(super) fn patch_lines(text: &str) -> Vec<PatchLine<'_>> {
    text.split_inclusive('\n')
        .enumerate()
        .map(|(at, line)| {
            let line = line.strip_suffix('\n').unwrap_or(line);
            let (text, cr) = match line.strip_suffix('\r') {
                Some(text) => (text, true),
                None => (line, false),
            };
            PatchLine {
                number: at + 1,
                text,
                cr,
            }
        })
        .collect()
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Ending {
    None,
    Lf,
    CrLf,
}

impl Ending {
    pub(super) fn as_str(self) -> &'static str {
        match self {
            Ending::None => "",
            Ending::Lf => "\n",
            Ending::CrLf => "\r\n",
        }
    }

    pub(super) fn of_crlf(crlf: bool) -> Ending {
        if crlf { Ending::CrLf } else { Ending::Lf }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct FileLine {
    pub content: String,
    pub ending: Ending,
}

/// A file's text as lines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct FileLines {
    pub bom: bool,
    pub lines: Vec<FileLine>,
}

impl FileLines {
    pub(super) fn parse(text: &str) -> FileLines {
        let (bom, text) = match text.strip_prefix(BOM) {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        let lines = text
            .split_inclusive('\n')
            .map(|line| {
                if let Some(content) = line.strip_suffix("\r\n") {
                    FileLine {
                        content: content.to_string(),
                        ending: Ending::CrLf,
                    }
                } else if let Some(content) = line.strip_suffix('\n') {
                    FileLine {
                        content: content.to_string(),
                        ending: Ending::Lf,
                    }
                } else {
                    FileLine {
                        content: line.to_string(),
                        ending: Ending::None,
                    }
                }
            })
            .collect();
        FileLines { bom, lines }
    }

    pub(super) fn to_text(&self) -> String {
        let mut text = String::new();
        if self.bom {
            text.push(BOM);
        }
        for line in &self.lines {
            text.push_str(&line.content);
            text.push_str(line.ending.as_str());
        }
        text
    }

    /// The ending of the file's first ended line, which lines a patch inserts take.
    pub(super) fn ending(&self) -> Option<Ending> {
        self.lines
            .iter()
            .map(|line| line.ending)
            .find(|ending| *ending != Ending::None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_lines_keep_every_byte() {
        for text in [
            "",
            "a",
            "a\n",
            "a\r\nb\nc",
            "\u{feff}x\r\n",
            "\r\n\n\r",
            "é\r\r\n",
        ] {
            assert_eq!(FileLines::parse(text).to_text(), text, "{text:?}");
        }
        let lines = FileLines::parse("\u{feff}a\r\nb\nc");
        assert!(lines.bom);
        assert_eq!(lines.ending(), Some(Ending::CrLf));
        assert_eq!(
            lines.lines.iter().map(|l| l.ending).collect::<Vec<_>>(),
            vec![Ending::CrLf, Ending::Lf, Ending::None]
        );
        assert_eq!(FileLines::parse("x").ending(), None);
    }

    #[test]
    fn patch_lines_are_numbered_and_lose_their_endings() {
        let lines = patch_lines("a\r\nb\n\nc");
        let seen: Vec<(usize, &str, bool)> =
            lines.iter().map(|l| (l.number, l.text, l.cr)).collect();
        assert_eq!(
            seen,
            vec![
                (1, "a", true),
                (2, "b", false),
                (3, "", false),
                (4, "c", false)
            ]
        );
    }
}
