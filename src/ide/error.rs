//! The stable codes of every failure a front end reports, in one enum.
//!
//! Invariant: a failure has one code whatever asks. The CLI prints it before the message
//! (`CONFLICT: app.py changed since…`), MCP sends it as the error's `code`, the LSP puts it
//! at the start of the error's message; each error type below `ide` says its code through
//! [`Failure`], so no front end maps errors to codes on its own. The docs list every code
//! (`docs/mcp.md`, kept true by a tidy test).

use std::fmt;

/// A failure's stable code, written `SCREAMING_SNAKE_CASE` on every wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ErrorCode {
    /// An argument is missing, malformed or out of range.
    InvalidArgument,
    /// The CLI's target is neither `FILE:LINE:COLUMN` nor a name (`app.py:5`).
    InvalidTarget,
    /// A path leaves the workspace root.
    PathOutsideWorkspace,
    /// A path names nothing.
    NotFound,
    UnsupportedLanguage,
    /// A file or text is over the size limit.
    TooLarge,
    /// The request ran past its deadline and was stopped.
    Timeout,
    /// The request was cancelled by its client.
    Cancelled,
    Internal,
    /// Rename: the new name is not a valid name of the language.
    InvalidName,
    /// Rename: the new name would change what names mean (`conflicts` lists where).
    RenameConflict,
    /// Rename: nothing renameable at the position or by the name.
    NoSymbol,
    /// Rename: a module, or something outside the workspace.
    NotRenameable,
    /// An edit written under the `refuse` check policy (a rename's default): the changed
    /// files would have new errors (`diagnostics` lists them); nothing was written.
    NewDiagnostics,
    /// A file changed since the edit was computed; nothing was written.
    Conflict,
    /// A file cannot be written (outside the root, not UTF-8, not a regular file,
    /// write-protected, hard-linked).
    WriteRefused,
    /// The edit itself is malformed (overlapping ranges).
    InvalidEdit,
    /// Format: the formatted text would not keep the file's tokens, or another pass would
    /// change it again; nothing is proposed.
    FormatUnsafe,
    /// Format: the file has syntax errors, so strings cannot be told from code.
    FormatSyntaxError,
    /// Format: the parser gave up on the file (over its work budget).
    ParseFailed,
    /// Format: the formatter `sextant.toml` names cannot be started.
    FormatterNotFound,
    /// Format: the configured formatter failed or gave no text.
    FormatterFailed,
    /// Format: `sextant.toml` names an external formatter for the language, and this run
    /// may not start it (no `--allow-external-formatter`, or read-only); nothing was
    /// formatted.
    FormatterNotAllowed,
    /// Format: the external formatter's output was empty, broke the syntax or changed the
    /// code's words; nothing was proposed.
    FormatterOutputRejected,
    /// Format: the formatted text would be several times larger than the file.
    FormatTooLarge,
    /// The file is not valid UTF-8; it is never rewritten.
    NotUtf8,
    /// Writing failed part-way; the files already written were restored.
    WriteFailed,
    /// A read's run (`run_id`) has spent the tokens it was given.
    BudgetExhausted,
    /// Pack: a required entry names nothing, or more than one definition.
    RequiredUnavailable,
    /// Pack: the required entries alone take more tokens than the budget.
    RequiredOverBudget,
    /// Patch: the text is not a patch of a known format, or it names a path that is not
    /// workspace-relative or names one path twice.
    PatchInvalid,
    /// Patch: a hunk matches nowhere, a file to change is missing, or a file to create
    /// exists; nothing was changed.
    PatchDoesNotApply,
    /// Symbol edit: the name names several definitions (the candidates are listed).
    AmbiguousSymbol,
    /// Symbol edit: `delete` of a definition that exact references still use (listed).
    StillReferenced,
}

impl ErrorCode {
    /// Every code, in the order the docs list them.
    pub const ALL: &'static [ErrorCode] = &[
        ErrorCode::InvalidArgument,
        ErrorCode::InvalidTarget,
        ErrorCode::PathOutsideWorkspace,
        ErrorCode::NotFound,
        ErrorCode::UnsupportedLanguage,
        ErrorCode::TooLarge,
        ErrorCode::Timeout,
        ErrorCode::Cancelled,
        ErrorCode::Internal,
        ErrorCode::InvalidName,
        ErrorCode::RenameConflict,
        ErrorCode::NoSymbol,
        ErrorCode::NotRenameable,
        ErrorCode::NewDiagnostics,
        ErrorCode::Conflict,
        ErrorCode::WriteRefused,
        ErrorCode::InvalidEdit,
        ErrorCode::FormatUnsafe,
        ErrorCode::FormatSyntaxError,
        ErrorCode::ParseFailed,
        ErrorCode::FormatterNotFound,
        ErrorCode::FormatterFailed,
        ErrorCode::FormatterNotAllowed,
        ErrorCode::FormatterOutputRejected,
        ErrorCode::FormatTooLarge,
        ErrorCode::NotUtf8,
        ErrorCode::WriteFailed,
        ErrorCode::BudgetExhausted,
        ErrorCode::RequiredUnavailable,
        ErrorCode::RequiredOverBudget,
        ErrorCode::PatchInvalid,
        ErrorCode::PatchDoesNotApply,
        ErrorCode::AmbiguousSymbol,
        ErrorCode::StillReferenced,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidArgument => "INVALID_ARGUMENT",
            ErrorCode::InvalidTarget => "INVALID_TARGET",
            ErrorCode::PathOutsideWorkspace => "PATH_OUTSIDE_WORKSPACE",
            ErrorCode::NotFound => "NOT_FOUND",
            ErrorCode::UnsupportedLanguage => "UNSUPPORTED_LANGUAGE",
            ErrorCode::TooLarge => "TOO_LARGE",
            ErrorCode::Timeout => "TIMEOUT",
            ErrorCode::Cancelled => "CANCELLED",
            ErrorCode::Internal => "INTERNAL",
            ErrorCode::InvalidName => "INVALID_NAME",
            ErrorCode::RenameConflict => "RENAME_CONFLICT",
            ErrorCode::NoSymbol => "NO_SYMBOL",
            ErrorCode::NotRenameable => "NOT_RENAMEABLE",
            ErrorCode::NewDiagnostics => "NEW_DIAGNOSTICS",
            ErrorCode::Conflict => "CONFLICT",
            ErrorCode::WriteRefused => "WRITE_REFUSED",
            ErrorCode::InvalidEdit => "INVALID_EDIT",
            ErrorCode::FormatUnsafe => "FORMAT_UNSAFE",
            ErrorCode::FormatSyntaxError => "FORMAT_SYNTAX_ERROR",
            ErrorCode::ParseFailed => "PARSE_FAILED",
            ErrorCode::FormatterNotFound => "FORMATTER_NOT_FOUND",
            ErrorCode::FormatterFailed => "FORMATTER_FAILED",
            ErrorCode::FormatterNotAllowed => "FORMATTER_NOT_ALLOWED",
            ErrorCode::FormatterOutputRejected => "FORMATTER_OUTPUT_REJECTED",
            ErrorCode::FormatTooLarge => "FORMAT_TOO_LARGE",
            ErrorCode::NotUtf8 => "NOT_UTF8",
            ErrorCode::WriteFailed => "WRITE_FAILED",
            ErrorCode::BudgetExhausted => "BUDGET_EXHAUSTED",
            ErrorCode::RequiredUnavailable => "REQUIRED_UNAVAILABLE",
            ErrorCode::RequiredOverBudget => "REQUIRED_OVER_BUDGET",
            ErrorCode::PatchInvalid => "PATCH_INVALID",
            ErrorCode::PatchDoesNotApply => "PATCH_DOES_NOT_APPLY",
            ErrorCode::AmbiguousSymbol => "AMBIGUOUS_SYMBOL",
            ErrorCode::StillReferenced => "STILL_REFERENCED",
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An error that knows its stable code. Implemented by every error type front ends report,
/// so the code of a failure is decided once, beside the failure.
pub trait Failure: std::error::Error {
    fn code(&self) -> ErrorCode;
}

impl Failure for super::FormatError {
    fn code(&self) -> ErrorCode {
        use super::FormatError;
        match self {
            FormatError::SyntaxError { .. } => ErrorCode::FormatSyntaxError,
            FormatError::Unsafe { .. } => ErrorCode::FormatUnsafe,
            FormatError::ParseFailed => ErrorCode::ParseFailed,
            FormatError::NotUtf8 => ErrorCode::NotUtf8,
            FormatError::TooLarge { .. } => ErrorCode::FormatTooLarge,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_is_listed_once_and_serializes_as_it_prints() {
        let mut seen = std::collections::HashSet::new();
        for code in ErrorCode::ALL {
            assert!(seen.insert(code.as_str()), "{code} listed twice");
            assert_eq!(
                serde_json::to_value(code).unwrap(),
                serde_json::Value::String(code.as_str().to_string())
            );
        }
        // Adding a variant without listing it fails here: the match in `as_str` is
        // exhaustive, so count the variants it names.
        let source = include_str!("error.rs");
        let variants = source
            .split("pub fn as_str")
            .nth(1)
            .and_then(|rest| rest.split("impl fmt::Display").next())
            .unwrap()
            .matches("ErrorCode::")
            .count();
        assert_eq!(ErrorCode::ALL.len(), variants);
    }
}
