//! [`SmallText`]: an immutable string that keeps up to [`INLINE_BYTES`] bytes inline and a
//! longer one in an allocation of exactly its length.
//!
//! Every symbol of the workspace is kept for the whole session with its name, container and
//! signature: as `String`s those were three allocations apiece (each with spare capacity
//! and the allocator's own overhead), more memory than the symbol's other fields together.
//! Names and containers are almost always short enough to live inline.
//!
//! Invariant: the inline bytes are always a whole UTF-8 string (they are only ever copied
//! from a `&str`); everything else behaves as `str`
//! (equality, order, hashing, `Debug`, `Display`, serde).

use std::{borrow::Borrow, fmt, hash, ops::Deref};

use serde::{Deserialize, Serialize};

/// The longest string kept inline: with its length and the variant's tag it fills the 24
/// bytes a `String` takes.
pub const INLINE_BYTES: usize = 22;

#[derive(Clone)]
pub struct SmallText(Repr);

#[derive(Clone)]
enum Repr {
    Inline { len: u8, bytes: [u8; INLINE_BYTES] },
    Heap(Box<str>),
}

const _: () = assert!(size_of::<SmallText>() == 24);
const _: () = assert!(size_of::<Option<SmallText>>() == 24);

impl SmallText {
    pub fn new(text: &str) -> SmallText {
        if text.len() > INLINE_BYTES {
            return SmallText(Repr::Heap(text.into()));
        }
        let mut bytes = [0; INLINE_BYTES];
        bytes[..text.len()].copy_from_slice(text.as_bytes());
        SmallText(Repr::Inline {
            len: text.len() as u8,
            bytes,
        })
    }

    pub fn as_str(&self) -> &str {
        match &self.0 {
            // Inline bytes are copied whole from a `&str` (the module's invariant), so the
            // check always passes; it costs a few nanoseconds on at most 22 bytes, and
            // keeps this module free of `unsafe`, which the project keeps for libc calls.
            Repr::Inline { len, bytes } => {
                std::str::from_utf8(&bytes[..usize::from(*len)]).unwrap_or_default()
            }
            Repr::Heap(text) => text,
        }
    }

    /// Whether the text is kept inline, without an allocation of its own.
    pub fn is_inline(&self) -> bool {
        matches!(self.0, Repr::Inline { .. })
    }
}

impl Default for SmallText {
    fn default() -> SmallText {
        SmallText::new("")
    }
}

impl Deref for SmallText {
    type Target = str;

    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for SmallText {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl Borrow<str> for SmallText {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl From<&str> for SmallText {
    fn from(text: &str) -> SmallText {
        SmallText::new(text)
    }
}

impl From<String> for SmallText {
    fn from(text: String) -> SmallText {
        SmallText::new(&text)
    }
}

impl From<&SmallText> for String {
    fn from(text: &SmallText) -> String {
        text.as_str().to_owned()
    }
}

impl From<SmallText> for String {
    fn from(text: SmallText) -> String {
        text.as_str().to_owned()
    }
}

impl PartialEq for SmallText {
    fn eq(&self, other: &SmallText) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for SmallText {}

impl PartialEq<str> for SmallText {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for SmallText {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for SmallText {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<SmallText> for str {
    fn eq(&self, other: &SmallText) -> bool {
        self == other.as_str()
    }
}

impl PartialEq<SmallText> for &str {
    fn eq(&self, other: &SmallText) -> bool {
        *self == other.as_str()
    }
}

impl PartialEq<SmallText> for String {
    fn eq(&self, other: &SmallText) -> bool {
        self == other.as_str()
    }
}

impl PartialOrd for SmallText {
    fn partial_cmp(&self, other: &SmallText) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for SmallText {
    fn cmp(&self, other: &SmallText) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl hash::Hash for SmallText {
    fn hash<H: hash::Hasher>(&self, state: &mut H) {
        self.as_str().hash(state)
    }
}

impl fmt::Debug for SmallText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for SmallText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.as_str(), f)
    }
}

impl Serialize for SmallText {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for SmallText {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<SmallText, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = SmallText;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }

            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<SmallText, E> {
                Ok(SmallText::new(text))
            }
        }
        deserializer.deserialize_str(Visitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_back_what_it_was_given_inline_or_not() {
        let cases = [
            "",
            "x",
            "ünïcödé",
            &"a".repeat(INLINE_BYTES),
            &"a".repeat(INLINE_BYTES + 1),
            "def area(self, other: Shape) -> float",
        ];
        for text in cases {
            let small = SmallText::new(text);
            assert_eq!(small.as_str(), text);
            assert_eq!(small.is_inline(), text.len() <= INLINE_BYTES, "{text}");
            assert_eq!(format!("{small:?}"), format!("{text:?}"));
            let packed = rmp_serde::to_vec(&small).unwrap();
            assert_eq!(packed, rmp_serde::to_vec(text).unwrap());
            assert_eq!(rmp_serde::from_slice::<SmallText>(&packed).unwrap(), small);
        }
    }
}
