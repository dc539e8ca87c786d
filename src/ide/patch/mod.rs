//! `patch`: the patches agents write (unified and `git diff` output, the `*** Begin Patch`
//! envelope, search/replace blocks), parsed into one [`Patch`] and applied to texts in
//! memory.
//!
//! Invariant: nothing here reads or writes the disk; current texts come in through a
//! closure and the outcome is plain data (new texts, [`FileEdit`]s, a unified diff) for the
//! writer in `workspace`. A patch is applied whole or not at all: the first operation that
//! does not apply makes the answer an error and no outcome exists. Every path in a
//! [`Patch`] is workspace-relative (checked when it is built), and no path is the subject
//! of two operations. Bad input of any kind is a [`PatchError`] with a stable code, never a
//! panic.

mod apply;
mod envelope;
mod lines;
mod path;
mod preview;
mod search_replace;
mod unified;

#[cfg(test)]
mod tests;

use std::collections::BTreeMap;

use super::{ErrorCode, Failure, FileEdit, FileText};

pub use apply::{FileOutcome, HunkReport, PatchOptions, PatchOutcome, Sha256Hash, apply_to_texts};
pub use preview::{CheckPolicy, FileStatus, InexactHunk, PatchPreview, PatchedFile};
pub(crate) use preview::{new_diagnostics_of_texts, preview};
pub use search_replace::Replacement;

/// A parsed patch: file operations in the order the patch gives them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Patch {
    pub operations: Vec<FileOperation>,
}

/// One file's part of a patch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileOperation {
    /// Workspace-relative, `/`-separated, validated.
    pub path: String,
    /// The 1-based line of the patch text where the operation starts; `None` for
    /// structured input.
    pub line: Option<usize>,
    pub kind: OperationKind,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OperationKind {
    /// Create the file, which must not exist.
    Add { text: String, executable: bool },
    /// Remove the file, which must exist. When the patch shows the removed lines (a unified
    /// diff does), `hunks` holds them and the file must be exactly those lines.
    Delete { hunks: Vec<Hunk> },
    /// Change the file in place, then move it when `move_to` is set (the new path must not
    /// exist); `executable` is set when the patch changes the executable bit.
    Update {
        move_to: Option<String>,
        hunks: Vec<Hunk>,
        executable: Option<bool>,
    },
    /// Search/replace blocks on one file, applied in order.
    Replace { blocks: Vec<Replacement> },
}

/// A run of context, removed and added lines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hunk {
    /// The line that introduced the hunk, as written (`@@ -3,2 +3,3 @@ def f():`).
    pub header: String,
    /// The 1-based line of the patch text where the hunk starts.
    pub line: usize,
    pub anchor: HunkAnchor,
    /// Line contents without their line endings.
    pub lines: Vec<HunkLine>,
    /// The old side's last line has no newline (`\ No newline at end of file`).
    pub old_ends_without_newline: bool,
    /// The new side's last line has no newline.
    pub new_ends_without_newline: bool,
    /// The hunk's lines came with `\r\n` endings.
    pub crlf: bool,
}

/// Where a hunk says it applies.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HunkAnchor {
    /// A unified diff's stated position: the 0-based index of the hunk's first old line
    /// in the original file (for a hunk without old lines, the index it inserts before).
    Line(usize),
    /// An envelope chunk: after the previous chunk, after the line `context` when given
    /// (an `@@ def f():` header), and at the file's end when `end_of_file`.
    Context {
        context: Option<String>,
        end_of_file: bool,
    },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HunkLine {
    Context(String),
    Removed(String),
    Added(String),
}

impl Hunk {
    /// The lines the file must have where the hunk applies, each with whether it is
    /// context (kept) or removed.
    fn old_lines(&self) -> impl Iterator<Item = (&str, bool)> {
        self.lines.iter().filter_map(|line| match line {
            HunkLine::Context(text) => Some((text.as_str(), true)),
            HunkLine::Removed(text) => Some((text.as_str(), false)),
            HunkLine::Added(_) => None,
        })
    }

    fn new_line_count(&self) -> usize {
        self.lines
            .iter()
            .filter(|line| !matches!(line, HunkLine::Removed(_)))
            .count()
    }
}

/// The formats [`parse_patch`] reads.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Default,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum PatchFormat {
    /// Chosen from the text: [`detect_format`].
    #[default]
    Auto,
    /// `diff -u` and `git diff` output.
    Unified,
    /// `*** Begin Patch` … `*** End Patch`.
    Envelope,
    /// A path line, then `<<<<<<< SEARCH`, old lines, `=======`, new lines,
    /// `>>>>>>> REPLACE`.
    SearchReplace,
}

/// Why a patch was not parsed or not applied. Nothing is applied when there is one.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PatchError {
    /// The patch cannot be parsed, or names a bad path.
    #[error("{}{message}", line_prefix(*.line))]
    Invalid {
        /// 1-based line of the patch text; `None` for structured input.
        line: Option<usize>,
        message: String,
    },
    /// A hunk or block does not match its file, or a file is missing or present when it
    /// should not be.
    #[error("{path}: {message}")]
    DoesNotApply { path: String, message: String },
    /// The file's text is not the one the caller expected (`PatchOptions::expected_sha256`).
    #[error("{path}: {message}")]
    Conflict { path: String, message: String },
}

fn line_prefix(line: Option<usize>) -> String {
    match line {
        Some(line) => format!("patch line {line}: "),
        None => String::new(),
    }
}

impl PatchError {
    fn invalid(line: usize, message: impl Into<String>) -> PatchError {
        PatchError::Invalid {
            line: Some(line),
            message: message.into(),
        }
    }

    fn does_not_apply(path: &str, message: impl Into<String>) -> PatchError {
        PatchError::DoesNotApply {
            path: path.to_string(),
            message: message.into(),
        }
    }
}

impl Failure for PatchError {
    fn code(&self) -> ErrorCode {
        match self {
            PatchError::Invalid { .. } => ErrorCode::PatchInvalid,
            PatchError::DoesNotApply { .. } => ErrorCode::PatchDoesNotApply,
            PatchError::Conflict { .. } => ErrorCode::Conflict,
        }
    }
}

/// The format of `text`: the envelope when a line is `*** Begin Patch`, search/replace
/// when a line is `<<<<<<< SEARCH`, a unified diff when a line starts `diff --git ` or a
/// `--- ` line is followed by a `+++ ` line; `None` otherwise.
pub fn detect_format(text: &str) -> Option<PatchFormat> {
    let lines: Vec<&str> = text.lines().map(str::trim_end).collect();
    if lines.contains(&"*** Begin Patch") {
        return Some(PatchFormat::Envelope);
    }
    if lines.contains(&"<<<<<<< SEARCH") {
        return Some(PatchFormat::SearchReplace);
    }
    let unified = lines.iter().enumerate().any(|(at, line)| {
        line.starts_with("diff --git ")
            || (line.starts_with("--- ")
                && lines
                    .get(at + 1)
                    .is_some_and(|next| next.starts_with("+++ ")))
    });
    unified.then_some(PatchFormat::Unified)
}

/// Parses `text` as `format` (or the detected one), checking every path.
pub fn parse_patch(text: &str, format: PatchFormat) -> Result<Patch, PatchError> {
    let format = match format {
        PatchFormat::Auto => detect_format(text).ok_or_else(|| {
            PatchError::invalid(
                1,
                "not a patch: no `diff --git` or `---`/`+++` header, no `*** Begin Patch` \
                 and no `<<<<<<< SEARCH` block",
            )
        })?,
        format => format,
    };
    let operations = match format {
        PatchFormat::Auto | PatchFormat::Unified => unified::parse(text)?,
        PatchFormat::Envelope => envelope::parse(text)?,
        PatchFormat::SearchReplace => search_replace::parse(text)?,
    };
    Patch::new(operations)
}

impl Patch {
    /// Every path the patch names, a move's destination included.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.operations.iter().flat_map(|operation| {
            let move_to = match &operation.kind {
                OperationKind::Update { move_to, .. } => move_to.as_deref(),
                _ => None,
            };
            std::iter::once(operation.path.as_str()).chain(move_to)
        })
    }

    /// A patch of `operations`, refused when one path is the subject of two of them (the
    /// order of two operations on one file would be a guess).
    pub fn new(operations: Vec<FileOperation>) -> Result<Patch, PatchError> {
        let mut seen: BTreeMap<&str, Option<usize>> = BTreeMap::new();
        for operation in &operations {
            let move_to = match &operation.kind {
                OperationKind::Update { move_to, .. } => move_to.as_deref(),
                _ => None,
            };
            for path in std::iter::once(operation.path.as_str()).chain(move_to) {
                if let Some(first) = seen.insert(path, operation.line) {
                    let first = first.map_or(String::new(), |line| format!(" (line {line})"));
                    return Err(PatchError::Invalid {
                        line: operation.line,
                        message: format!(
                            "{path} is named by two operations{first}; \
                             make one operation per file"
                        ),
                    });
                }
            }
        }
        Ok(Patch { operations })
    }

    /// Search/replace blocks given as data: blocks on one file are kept in order as one
    /// operation, files in the order they first appear.
    pub fn from_replacements(
        replacements: Vec<(String, Replacement)>,
    ) -> Result<Patch, PatchError> {
        let mut operations: Vec<FileOperation> = Vec::new();
        for (path, block) in replacements {
            let path = path::validate(&path).map_err(|message| PatchError::Invalid {
                line: block.line,
                message,
            })?;
            search_replace::push_block(&mut operations, path, block.line, block);
        }
        Patch::new(operations)
    }
}

/// The edit from `old` to `new` of the file at `path`, line by line.
fn file_edit(path: &str, old: &FileText, new: &str) -> FileEdit {
    FileEdit::of_file(path, old, super::format::line_edits(&old.text, new))
}
