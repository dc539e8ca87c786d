//! `format`: a file's layout fixed, as edits and a unified diff.
//!
//! Invariant: the formatted text comes from the memoized `semantic::format::file_format`
//! (or, for a text outside the workspace, the same function run directly); the edits are
//! the line hunks between the file's text and that text, against the file's hash, so
//! applying them gives exactly the formatted text.

use std::sync::Arc;

use serde::Serialize;

use super::{FileEdit, LineIndex, Span, TextEdit, TextRange, unified_diff};
use crate::lang::Language;

pub use crate::semantic::format::{FormatError, FormatOptions, IndentStyle};

/// A file formatted: the edits that make it so (none when it already is) and their diff.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FileFormat {
    pub path: String,
    pub edit: FileEdit,
    /// Unified diff from the file's text to the formatted text; empty when unchanged.
    pub diff: String,
    #[serde(skip)]
    pub formatted: Arc<str>,
}

impl FileFormat {
    /// The change from `old` to `new` of the file at `path`: one edit per differing run of
    /// lines. Used for the built-in formatter and for a configured external one alike.
    pub fn between(path: &str, old: &str, new: Arc<str>) -> FileFormat {
        FileFormat {
            path: path.to_string(),
            edit: FileEdit::new(path, old, line_edits(old, &new)),
            diff: unified_diff(path, old, &new),
            formatted: new,
        }
    }

    pub fn changed(&self) -> bool {
        !self.edit.edits.is_empty()
    }
}

/// `text` formatted as `lang`, outside any workspace.
pub fn format_source(
    lang: &Language,
    text: &str,
    options: FormatOptions,
) -> Result<String, FormatError> {
    crate::semantic::format::format_text(lang, text, options, &|| false)
        .expect("an uninterruptible format always finishes")
}

/// Why an external formatter's `output` may not replace `input`, or `None` when it may
/// (the rule: [`crate::semantic::format_output`]).
pub fn external_output_refusal(lang: &Language, input: &str, output: &str) -> Option<String> {
    crate::semantic::format_output::output_refusal(lang, input, output)
}

/// The most a formatter may make of `text` (the built-in one stops there): a few times the
/// text, so a misbehaving formatter cannot produce an unbounded answer.
pub fn format_output_limit(text: &str) -> usize {
    crate::semantic::format::output_limit(text)
}

/// The line hunks that turn `old` into `new`, as edits against `old`.
pub(super) fn line_edits(old: &str, new: &str) -> Vec<TextEdit> {
    if old == new {
        return Vec::new();
    }
    let index = LineIndex::new(old);
    // Lines split at `\n` only, as the formatter and tree-sitter count them.
    let old_lines: Vec<&str> = old.split_inclusive('\n').collect();
    let new_lines: Vec<&str> = new.split_inclusive('\n').collect();
    let starts = |lines: &[&str]| {
        let mut at = 0usize;
        let mut starts = Vec::with_capacity(lines.len() + 1);
        for line in lines {
            starts.push(at);
            at += line.len();
        }
        starts.push(at);
        starts
    };
    let old_starts = starts(&old_lines);
    let new_starts = starts(&new_lines);
    let diff = similar::TextDiff::configure().diff_slices(&old_lines, &new_lines);
    let mut edits: Vec<TextEdit> = Vec::new();
    let mut edit = |old_lines: std::ops::Range<usize>, new_lines: std::ops::Range<usize>| {
        let (start, end) = (old_starts[old_lines.start], old_starts[old_lines.end]);
        edits.push(TextEdit {
            range: Span::new(
                &index,
                TextRange::new((start as u32).into(), (end as u32).into()),
            ),
            new_text: new[new_starts[new_lines.start]..new_starts[new_lines.end]].to_string(),
        });
    };
    for op in diff.ops() {
        let (old_lines, new_lines) = (op.old_range(), op.new_range());
        match op {
            similar::DiffOp::Equal { .. } => {}
            // Line for line (re-indented lines): one edit per line, so that a range format
            // can take exactly the lines of its range.
            similar::DiffOp::Replace { .. } if old_lines.len() == new_lines.len() => {
                for (old_line, new_line) in old_lines.zip(new_lines) {
                    edit(old_line..old_line + 1, new_line..new_line + 1);
                }
            }
            _ => edit(old_lines, new_lines),
        }
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_between_two_texts_rebuild_the_second() {
        let old = "a\n  b  \n\n\n\nc";
        let new: Arc<str> = "a\nb\n\nc\n".into();
        let format = FileFormat::between("x.py", old, new.clone());
        assert_eq!(format.edit.apply(old).unwrap(), *new);
        let edited: Vec<(u32, &str)> = format
            .edit
            .edits
            .iter()
            .map(|e| (e.range.start.line, e.new_text.as_str()))
            .collect();
        assert_eq!(edited, [(2, "b\n"), (4, "c\n")]);
        assert!(format.changed());
        let same = FileFormat::between("x.py", "a\n", "a\n".into());
        assert!(!same.changed() && same.diff.is_empty());
    }
}
