//! A source file's text as the database keeps it: plain while it is being worked on,
//! compressed once it was indexed.
//!
//! On a large tree the texts are the largest thing a session keeps (a fifth of its peak:
//! docs/memory.md), yet once a file's summaries and index entries are built most texts are
//! not read again for a long while. LZ4 keeps source code in about a third of its size and
//! gives it back at gigabytes a second, far cheaper than the parse every reader of a text
//! then does. So a text starts plain (a load, an edit: nothing is compressed on the way to
//! a first answer) and is compressed by [`StoredText::compact`] where the index is done
//! with a file and when a server is idle.
//!
//! Compacting changes how a text is kept, never what it is: it is not an input change, and
//! nothing computed from the text is invalidated. Every reader gets the text whole
//! ([`StoredText::text`]); a compressed text is decompressed for each reader, so a text
//! read often (a file being edited) stays plain until the next compaction.

use std::sync::{Arc, Mutex};

/// Texts shorter than this stay plain: their compressed form would save a few hundred
/// bytes at most, and costs an allocation of its own.
const SMALLEST_COMPRESSED: usize = 512;

pub struct StoredText {
    /// The text's length in bytes, whatever its form.
    len: usize,
    form: Mutex<Form>,
}

#[derive(Clone)]
enum Form {
    Plain(Arc<str>),
    /// The text's bytes in an LZ4 block; shared so that a reader decompresses them without
    /// holding the lock.
    Compressed(Arc<[u8]>),
}

impl StoredText {
    pub fn new(text: Arc<str>) -> StoredText {
        StoredText {
            len: text.len(),
            form: Mutex::new(Form::Plain(text)),
        }
    }

    /// The text, whole.
    pub fn text(&self) -> Arc<str> {
        let form = self.lock().clone();
        match form {
            Form::Plain(text) => text,
            Form::Compressed(bytes) => decompress(&bytes, self.len),
        }
    }

    /// Whether this is `text`: at once when it is the same string, or of another length.
    pub fn is(&self, text: &Arc<str>) -> bool {
        if text.len() != self.len {
            return false;
        }
        match self.lock().clone() {
            Form::Plain(plain) => Arc::ptr_eq(&plain, text) || plain == *text,
            Form::Compressed(bytes) => *decompress(&bytes, self.len) == **text,
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Keeps the text compressed from now on, when that saves a quarter or more of it. The
    /// compression runs without the lock, so readers are not held up by it.
    pub fn compact(&self) {
        let Form::Plain(text) = self.lock().clone() else {
            return;
        };
        if text.len() < SMALLEST_COMPRESSED {
            return;
        }
        let bytes = lz4_flex::block::compress(text.as_bytes());
        if bytes.len() > text.len() / 4 * 3 {
            return;
        }
        let mut form = self.lock();
        // Another compaction may have run meanwhile; the text itself never changes.
        if matches!(*form, Form::Plain(_)) {
            *form = Form::Compressed(Arc::from(bytes));
        }
    }

    /// The bytes this text holds: its length while plain, its compressed size once compacted
    /// (a plain text other holders share is counted whole: this is what compaction frees).
    pub fn kept_bytes(&self) -> usize {
        match &*self.lock() {
            Form::Plain(text) => text.len(),
            Form::Compressed(bytes) => bytes.len(),
        }
    }

    pub fn is_compressed(&self) -> bool {
        matches!(*self.lock(), Form::Compressed(_))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Form> {
        // The lock is held only to clone or replace the form, which cannot panic part-way:
        // a poisoned lock still holds a whole form.
        self.form
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// Decompresses a block [`StoredText::compact`] made from a `str` of `len` bytes. Neither
/// step can fail on such a block; were the block ever damaged, its bytes are still given
/// back, undamaged parts as they were, rather than a panic.
fn decompress(bytes: &[u8], len: usize) -> Arc<str> {
    let decoded = lz4_flex::block::decompress(bytes, len).unwrap_or_default();
    match String::from_utf8(decoded) {
        Ok(text) => Arc::from(text),
        Err(error) => Arc::from(String::from_utf8_lossy(error.as_bytes()).as_ref()),
    }
}

impl std::fmt::Debug for StoredText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoredText")
            .field("len", &self.len)
            .field("compressed", &self.is_compressed())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_compacted_text_reads_back_whole_and_keeps_less() {
        let text: String = (0..200)
            .map(|i| format!("def f{i}(x):\n    return x + {i}\n"))
            .collect();
        let stored = StoredText::new(Arc::from(text.as_str()));
        assert_eq!(
            (stored.kept_bytes(), stored.is_compressed()),
            (text.len(), false)
        );
        stored.compact();
        assert!(stored.is_compressed());
        assert!(
            stored.kept_bytes() * 3 < text.len(),
            "{} of {}",
            stored.kept_bytes(),
            text.len()
        );
        assert_eq!(&*stored.text(), text.as_str());
        assert_eq!(stored.len(), text.len());
        // A second compaction changes nothing.
        stored.compact();
        assert_eq!(&*stored.text(), text.as_str());
    }

    #[test]
    fn short_or_incompressible_texts_stay_plain() {
        let short = StoredText::new(Arc::from("x = 1\n".repeat(80).as_str()));
        short.compact();
        assert!(!short.is_compressed());
        // Every byte different from its neighbours in a way LZ4 cannot exploit.
        let noise: String = (0u32..4000)
            .map(|i| {
                char::from_u32(0x4e00 + (i.wrapping_mul(2_654_435_761) >> 20) % 0x5000)
                    .unwrap_or('x')
            })
            .collect();
        let stored = StoredText::new(Arc::from(noise.as_str()));
        stored.compact();
        assert!(!stored.is_compressed());
        assert_eq!(&*stored.text(), noise.as_str());
    }

    proptest::proptest! {
        #[test]
        fn any_text_reads_back_as_it_was(text in "(\\PC|\n){0,3000}", repeat in 1usize..6) {
            let text = text.repeat(repeat);
            let stored = StoredText::new(Arc::from(text.as_str()));
            stored.compact();
            proptest::prop_assert_eq!(&*stored.text(), text.as_str());
        }
    }
}
