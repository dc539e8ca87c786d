//! How the write path turns a file's bytes into the text an edit is made on, and back.
//!
//! Invariant: decoding then encoding gives the same bytes, whatever they were. A file is
//! UTF-8 when its bytes are valid UTF-8; any other file is read as Latin-1, each byte one
//! character (U+0000–U+00FF). That is exact for Latin-1 and keeps every byte of any other
//! 8-bit encoding (Windows-1252, Latin-9…) as it was: an edit to one line leaves the
//! others' bytes alone. A new text is written back in its file's encoding, and a character
//! that encoding cannot hold is refused before anything is written, never replaced.
//!
//! The analysis reads such a file with U+FFFD for the bytes that are not UTF-8 (its
//! positions are UTF-8 text's), so an edit computed from the index never applies to a
//! Latin-1 file; patches, which are computed from the file as it is now, do.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

/// A file's encoding, as the write path reads and writes it.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
pub enum TextEncoding {
    #[default]
    #[serde(rename = "utf-8")]
    Utf8,
    #[serde(rename = "latin-1")]
    Latin1,
}

/// A file's text as the write path reads it, with the encoding to write it back in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileText {
    pub text: String,
    pub encoding: TextEncoding,
}

impl FileText {
    /// A UTF-8 file's text.
    pub fn utf8(text: impl Into<String>) -> FileText {
        FileText {
            text: text.into(),
            encoding: TextEncoding::Utf8,
        }
    }

    /// `bytes` as text: UTF-8 when they are valid UTF-8, Latin-1 otherwise.
    pub fn decode(bytes: Vec<u8>) -> FileText {
        match String::from_utf8(bytes) {
            Ok(text) => FileText::utf8(text),
            Err(error) => FileText {
                text: latin1(error.as_bytes()),
                encoding: TextEncoding::Latin1,
            },
        }
    }

    /// The bytes this text was decoded from.
    pub fn bytes(&self) -> Cow<'_, [u8]> {
        self.encoding
            .encode(&self.text)
            .expect("a decoded text encodes back")
    }
}

/// A character a file's encoding cannot hold, where a new text has it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "line {line} has {character:?} (U+{:04X}), which Latin-1, the file's encoding, cannot hold",
    u32::from(*.character)
)]
pub struct Unencodable {
    pub character: char,
    /// 1-based.
    pub line: usize,
}

impl TextEncoding {
    /// `text` as this encoding's bytes, or the first character it cannot hold.
    pub fn encode(self, text: &str) -> Result<Cow<'_, [u8]>, Unencodable> {
        match self {
            TextEncoding::Utf8 => Ok(Cow::Borrowed(text.as_bytes())),
            TextEncoding::Latin1 if text.is_ascii() => Ok(Cow::Borrowed(text.as_bytes())),
            TextEncoding::Latin1 => text
                .chars()
                .map(|character| u8::try_from(character).map_err(|_| character))
                .collect::<Result<Vec<u8>, char>>()
                .map(Cow::Owned)
                .map_err(|character| {
                    let at = text.find(character).unwrap_or(0);
                    Unencodable {
                        character,
                        line: text[..at].matches('\n').count() + 1,
                    }
                }),
        }
    }

    /// `bytes` as this encoding's text; `None` when they are not valid UTF-8 and this is
    /// UTF-8 (every byte is a Latin-1 character).
    pub fn decode(self, bytes: &[u8]) -> Option<String> {
        match self {
            TextEncoding::Utf8 => std::str::from_utf8(bytes).ok().map(str::to_string),
            TextEncoding::Latin1 => Some(latin1(bytes)),
        }
    }

    pub fn is_utf8(&self) -> bool {
        *self == TextEncoding::Utf8
    }
}

fn latin1(bytes: &[u8]) -> String {
    bytes.iter().map(|&byte| char::from(byte)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_byte_sequence_comes_back_exactly() {
        let all: Vec<u8> = (0..=255u8).chain([0xc3, 0x28, b'\n', 0xe9]).collect();
        let text = FileText::decode(all.clone());
        assert_eq!(text.encoding, TextEncoding::Latin1);
        assert_eq!(text.text.chars().count(), all.len());
        assert_eq!(text.bytes(), all.as_slice());
        let utf8 = FileText::decode("café\n".as_bytes().to_vec());
        assert_eq!(utf8, FileText::utf8("café\n"));
    }

    #[test]
    fn a_character_latin_1_cannot_hold_is_refused_with_its_line() {
        assert_eq!(
            TextEncoding::Latin1.encode("caf\u{e9}\n").unwrap(),
            b"caf\xe9\n".as_slice()
        );
        let refused = TextEncoding::Latin1
            .encode("a\nb\n\u{20ac} 5\n")
            .unwrap_err();
        assert_eq!(
            refused,
            Unencodable {
                character: '\u{20ac}',
                line: 3
            }
        );
        assert_eq!(
            refused.to_string(),
            "line 3 has '€' (U+20AC), which Latin-1, the file's encoding, cannot hold"
        );
    }
}
