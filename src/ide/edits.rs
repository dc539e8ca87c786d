//! Edits as plain data: what a rename or a format proposes, before anything is written.
//!
//! Invariant: an edit names the exact text it was computed from (its [`ContentHash`]), its
//! ranges are byte ranges of that text, sorted and non-overlapping, on character
//! boundaries; applying it to any other text is refused, never guessed. Only `workspace`
//! writes edits to disk.

use serde::Serialize;

use super::{FileText, Span, TextEncoding};

/// A BLAKE3 hash of a file's bytes, shown as lowercase hex. Two texts with the same hash
/// are taken to be the same text.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct ContentHash([u8; 32]);

impl ContentHash {
    pub fn of(bytes: &[u8]) -> ContentHash {
        ContentHash(*blake3::hash(bytes).as_bytes())
    }

    pub fn to_hex(&self) -> String {
        self.0.iter().map(|byte| format!("{byte:02x}")).collect()
    }
}

impl std::fmt::Debug for ContentHash {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ContentHash({})", &self.to_hex()[..12])
    }
}

impl Serialize for ContentHash {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.to_hex())
    }
}

/// Replace the text at `range` with `new_text`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TextEdit {
    pub range: Span,
    pub new_text: String,
}

/// The edits to one file, against the text whose hash is `base_hash`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FileEdit {
    /// Workspace-relative path with `/` separators.
    pub path: String,
    /// The hash of the file's bytes (its text's, in `encoding`).
    pub base_hash: ContentHash,
    /// Sorted by position, non-overlapping.
    pub edits: Vec<TextEdit>,
    /// How the file's bytes are read as the text the edits are ranges of, and how the new
    /// text is written back.
    #[serde(skip_serializing_if = "TextEncoding::is_utf8")]
    pub encoding: TextEncoding,
}

/// Why an edit cannot be applied to a text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    #[error("{path}: the file changed since the edit was computed")]
    Stale { path: String },
    #[error("{path}: edits overlap or fall outside the text at byte {offset}")]
    BadRange { path: String, offset: u32 },
}

impl FileEdit {
    /// The edits to the UTF-8 text `base`, whose hash this edit records.
    pub fn new(path: impl Into<String>, base: &str, edits: Vec<TextEdit>) -> FileEdit {
        FileEdit::of_file(path, &FileText::utf8(base), edits)
    }

    /// The edits to `base`, whose bytes' hash this edit records with its encoding.
    pub fn of_file(path: impl Into<String>, base: &FileText, mut edits: Vec<TextEdit>) -> FileEdit {
        edits.sort_by_key(|edit| (edit.range.byte_start, edit.range.byte_end));
        FileEdit {
            path: path.into(),
            base_hash: ContentHash::of(&base.bytes()),
            edits,
            encoding: base.encoding,
        }
    }

    /// `base` (the text of the file in the edit's encoding) with the edits made; refused
    /// unless `base` is the text they were computed from and every range is well formed.
    pub fn apply(&self, base: &str) -> Result<String, EditError> {
        let base_bytes = self.encoding.encode(base).map_err(|_| EditError::Stale {
            path: self.path.clone(),
        })?;
        if ContentHash::of(&base_bytes) != self.base_hash {
            return Err(EditError::Stale {
                path: self.path.clone(),
            });
        }
        let mut out = String::with_capacity(base.len());
        let mut copied = 0usize;
        for edit in &self.edits {
            let range = edit.range.byte_range();
            let well_formed = copied <= range.start
                && range.start <= range.end
                && base.is_char_boundary(range.start)
                && base.is_char_boundary(range.end)
                && range.end <= base.len();
            if !well_formed {
                return Err(EditError::BadRange {
                    path: self.path.clone(),
                    offset: edit.range.byte_start,
                });
            }
            out.push_str(&base[copied..range.start]);
            out.push_str(&edit.new_text);
            copied = range.end;
        }
        out.push_str(&base[copied..]);
        Ok(out)
    }
}

/// Edits to any number of files, applied all together or not at all.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SourceChange {
    /// Sorted by path, one entry per file.
    pub files: Vec<FileEdit>,
    /// Files created, deleted or moved, and executable bits changed, in order; no path is
    /// the subject of two entries, nor of one of these and a [`FileEdit`].
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub file_system: Vec<FileSystemEdit>,
}

/// A change to the file tree rather than to a file's text (rust-analyzer calls these
/// file-system edits). Every path is workspace-relative with `/` separators; an entry that
/// names an existing file names the hash of the bytes it was computed from, and the writer
/// refuses it (`CONFLICT`) when the file holds other bytes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FileSystemEdit {
    /// A new file holding `text`, its missing parent directories created. Refused when
    /// anything is at `path`; its permissions are a new file's (`0666` less the umask),
    /// with the executable bits of the readable classes when `executable`.
    Create {
        path: String,
        text: String,
        executable: bool,
    },
    /// The file at `path` removed.
    Delete {
        path: String,
        base_hash: ContentHash,
    },
    /// The file at `from` moved to `to` (refused when anything is there) holding `text`,
    /// with `from`'s permissions, its executable bits set or cleared when `executable` says.
    Move {
        from: String,
        to: String,
        base_hash: ContentHash,
        text: String,
        executable: Option<bool>,
        /// `from`'s encoding, in which `text` is written at `to`.
        #[serde(skip_serializing_if = "TextEncoding::is_utf8")]
        encoding: TextEncoding,
    },
    /// The executable bits of the file at `path` set (for each class that may read it) or
    /// cleared; its text stays.
    SetExecutable {
        path: String,
        base_hash: ContentHash,
        executable: bool,
    },
}

impl FileSystemEdit {
    /// The paths the edit touches: the one it names, and for a move both.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        let (first, second) = match self {
            FileSystemEdit::Create { path, .. }
            | FileSystemEdit::Delete { path, .. }
            | FileSystemEdit::SetExecutable { path, .. } => (path, None),
            FileSystemEdit::Move { from, to, .. } => (from, Some(to.as_str())),
        };
        std::iter::once(first.as_str()).chain(second)
    }
}

impl SourceChange {
    pub fn is_empty(&self) -> bool {
        self.files.iter().all(|file| file.edits.is_empty()) && self.file_system.is_empty()
    }

    /// Names this exact change: the files, the text each was computed from, and every
    /// edit. A client that reviewed a dry run passes it back with the apply, which writes
    /// only if the change computed then has the same id (so nothing it did not see).
    pub fn id(&self) -> String {
        let mut hasher = blake3::Hasher::new();
        for file in self.files.iter().filter(|file| !file.edits.is_empty()) {
            // Lengths first, so that no two different changes hash the same bytes.
            hasher.update(&(file.path.len() as u64).to_le_bytes());
            hasher.update(file.path.as_bytes());
            hasher.update(&file.base_hash.0);
            hasher.update(&(file.edits.len() as u64).to_le_bytes());
            for edit in &file.edits {
                hasher.update(&edit.range.byte_start.to_le_bytes());
                hasher.update(&edit.range.byte_end.to_le_bytes());
                hasher.update(&(edit.new_text.len() as u64).to_le_bytes());
                hasher.update(edit.new_text.as_bytes());
            }
        }
        for edit in &self.file_system {
            let bytes = serde_json::to_vec(edit).expect("a file-system edit serializes");
            hasher.update(&(bytes.len() as u64).to_le_bytes());
            hasher.update(&bytes);
        }
        // 128 bits tell changes apart; an agent pays for every character.
        ContentHash(*hasher.finalize().as_bytes()).to_hex()[..32].to_string()
    }
}

pub fn unified_diff(path: &str, old: &str, new: &str) -> String {
    unified_diff_labelled(&format!("a/{path}"), &format!("b/{path}"), old, new)
}

/// The unified diff from `old` to `new` under the given `---` and `+++` labels (a file
/// created or deleted is labelled `/dev/null` on its missing side); empty for equal texts.
pub fn unified_diff_labelled(old_label: &str, new_label: &str, old: &str, new: &str) -> String {
    if old == new {
        return String::new();
    }
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(old_label, new_label)
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::LineIndex;

    fn edit(base: &str, start: u32, end: u32, new_text: &str) -> TextEdit {
        let index = LineIndex::new(base);
        TextEdit {
            range: Span::new(
                &index,
                crate::syntax::TextRange::new(start.into(), end.into()),
            ),
            new_text: new_text.to_string(),
        }
    }

    #[test]
    fn edits_apply_in_order_to_their_own_text_only() {
        let base = "def f():\n    return f\n";
        let change = FileEdit::new(
            "a.py",
            base,
            vec![edit(base, 20, 21, "g"), edit(base, 4, 5, "g")],
        );
        assert_eq!(change.apply(base).unwrap(), "def g():\n    return g\n");
        assert_eq!(
            change.apply("def f():\n    return f  \n"),
            Err(EditError::Stale {
                path: "a.py".into()
            })
        );
        let overlapping = FileEdit::new(
            "a.py",
            base,
            vec![edit(base, 4, 8, "x"), edit(base, 5, 6, "y")],
        );
        assert_eq!(
            overlapping.apply(base),
            Err(EditError::BadRange {
                path: "a.py".into(),
                offset: 5
            })
        );
    }

    #[test]
    fn a_unified_diff_names_both_sides_and_is_empty_for_equal_texts() {
        assert_eq!(unified_diff("a.py", "x\n", "x\n"), "");
        assert_eq!(
            unified_diff("a.py", "x = 1\ny = 2\n", "x = 1\ny = 3\n"),
            "--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,2 @@\n x = 1\n-y = 2\n+y = 3\n"
        );
    }

    fn change(base: &str, at: u32, new_text: &str) -> SourceChange {
        let index = LineIndex::new(base);
        let range = crate::syntax::TextRange::new(at.into(), (at + 1).into());
        let edit = TextEdit {
            range: Span::new(&index, range),
            new_text: new_text.into(),
        };
        SourceChange {
            files: vec![FileEdit::new("a.py", base, vec![edit])],
            file_system: Vec::new(),
        }
    }

    #[test]
    fn a_change_id_names_the_base_texts_and_every_edit() {
        let id = change("x = 1\n", 0, "y").id();
        assert_eq!(id.len(), 32);
        assert_eq!(change("x = 1\n", 0, "y").id(), id);
        assert_ne!(change("x = 2\n", 0, "y").id(), id);
        assert_ne!(change("x = 1\n", 4, "y").id(), id);
        assert_ne!(change("x = 1\n", 0, "z").id(), id);
    }
}
