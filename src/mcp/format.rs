//! `format_source`: a source string formatted (stateless), or a workspace file's format as
//! a diff, written only when asked (`apply: true`). A workspace file's formatted text is
//! checked for new diagnostics under `check` (default `report`): a layout change should add
//! none, so one found is a formatter's bug, reported before anything is written.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{
    ErrorCode, ToolError, paths,
    tools::{LanguageId, NewDiagnosticEntry},
};
use crate::{
    ide::{self, CheckPolicy, FormatOptions, IndentStyle, SourceChange},
    workspace::{
        self, FormatFailure, FormatterTrust, Formatting,
        live::{FileReadError, LiveWorkspace, RequestCancel, WhileIndexing},
    },
};

/// The tools' arguments that write to disk, as `(tool, argument)`: a read-only server
/// hides these arguments from the schema and refuses them (see
/// [`super::tools::SextantServer::writes_allowed`]).
pub const WRITING_ARGUMENTS: &[(&str, &str)] = &[
    ("format_source", "apply"),
    ("format_source", "expected_change_id"),
];

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FormatSourceArgs {
    /// Source text to format (give `language` too); nothing is read or written.
    pub source: Option<String>,
    /// The language of `source`.
    pub language: Option<LanguageId>,
    /// A workspace file to format instead (relative to the root): the answer is its diff.
    pub path: Option<String>,
    /// Indent with this many spaces instead of the language's unit (1 to 16).
    #[schemars(range(min = 1, max = 16))]
    pub tab_size: Option<u32>,
    /// With `path`: write the formatted file (checked against the text the diff was
    /// computed from; all or nothing). Default false: a dry run.
    pub apply: Option<bool>,
    /// With `apply`: the `change_id` of the dry run that was reviewed; the file is written
    /// only if the change computed now is the same (else `CONFLICT`, nothing written).
    pub expected_change_id: Option<String>,
    /// With `path`: new diagnostics in the formatted file (a formatter's bug): `report`
    /// (default), `refuse` (nothing written when one is an error, `NEW_DIAGNOSTICS`) or
    /// `off`.
    pub check: Option<CheckPolicy>,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct FormatAnswer {
    /// The formatted text, for `source`; null for `path` (read the diff).
    pub formatted: Option<String>,
    /// Unified diff from the input to the formatted text; empty when already formatted.
    pub diff: String,
    pub changed: bool,
    /// The workspace file, for `path`.
    pub path: Option<String>,
    /// Whether the formatted file was written.
    pub applied: bool,
    /// For `path`, when it would change: names this exact change; pass it back as
    /// `expected_change_id` with `apply` to write only what was reviewed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change_id: Option<String>,
    /// For `path`: the diagnostics the formatted file would have (or, applied, has) that
    /// it did not have before (a formatter's bug); absent for `source` and when `check` is
    /// `off`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new_diagnostics: Option<Vec<NewDiagnosticEntry>>,
}

/// A format failure with its stable code; a cancelled format is the request's deadline
/// passing, as every tool reports it (`TIMEOUT`).
pub fn failure(error: FormatFailure) -> ToolError {
    match error {
        FormatFailure::Cancelled => super::tools::cancelled(),
        error => ToolError::failed(error),
    }
}

/// What the arguments ask for, validated before any work.
pub enum FormatRequest {
    Source {
        source: String,
        language: LanguageId,
        options: FormatOptions,
    },
    File {
        path: String,
        options: FormatOptions,
        apply: bool,
        expected_change_id: Option<String>,
        check: CheckPolicy,
    },
}

impl FormatRequest {
    pub fn new(
        args: FormatSourceArgs,
        max_source_bytes: usize,
        writes_allowed: bool,
    ) -> Result<FormatRequest, ToolError> {
        let invalid = |message: &str| ToolError::new(ErrorCode::InvalidArgument, message);
        let options = FormatOptions {
            indent: match args.tab_size {
                None => IndentStyle::Language,
                Some(n @ 1..=16) => IndentStyle::Spaces(n as u8),
                Some(n) => {
                    return Err(ToolError::new(
                        ErrorCode::InvalidArgument,
                        format!("tab_size must be between 1 and 16, got {n}"),
                    ));
                }
            },
        };
        let apply = args.apply.unwrap_or(false);
        let writes = WRITING_ARGUMENTS.contains(&("format_source", "apply"));
        if (apply || args.expected_change_id.is_some()) && writes && !writes_allowed {
            return Err(invalid(
                "this server is read-only: `apply` is not available",
            ));
        }
        if args.expected_change_id.is_some() && !apply {
            return Err(invalid("`expected_change_id` goes with `apply: true`"));
        }
        match (args.source, args.path) {
            (Some(source), None) => {
                let language = args
                    .language
                    .ok_or_else(|| invalid("`source` needs `language`"))?;
                if args.apply.is_some() {
                    return Err(invalid("`apply` goes with `path`, not `source`"));
                }
                if args.check.is_some() {
                    return Err(invalid("`check` goes with `path`, not `source`"));
                }
                if source.len() > max_source_bytes {
                    return Err(ToolError::new(
                        ErrorCode::TooLarge,
                        format!(
                            "source is {} bytes; the limit is {max_source_bytes}",
                            source.len()
                        ),
                    ));
                }
                Ok(FormatRequest::Source {
                    source,
                    language,
                    options,
                })
            }
            (None, Some(path)) => {
                if args.language.is_some() {
                    return Err(invalid("`language` goes with `source`, not `path`"));
                }
                Ok(FormatRequest::File {
                    path,
                    options,
                    apply,
                    expected_change_id: args.expected_change_id,
                    check: args.check.unwrap_or_default(),
                })
            }
            _ => Err(invalid("give exactly one of `source` and `path`")),
        }
    }

    /// Runs the request on a blocking thread (it may run an external formatter, read and
    /// write files). An external formatter runs with no snapshot held, so the writer is
    /// never held up by it, and is killed when the request is cancelled or times out.
    pub fn run(
        self,
        live: &LiveWorkspace,
        cancel: &RequestCancel,
        trust: FormatterTrust,
    ) -> Result<FormatAnswer, ToolError> {
        // Only the formatter table is kept: holding a snapshot would block the writer. It
        // is `sextant.toml`'s, known once the first load has read every file.
        let formatters = live
            .read_early(cancel, WhileIndexing::Answer, |s| Ok(s.formatters.clone()))
            .map_err(super::tools::read_error)?;
        match self {
            FormatRequest::Source {
                source,
                language,
                options,
            } => {
                let formatting = Formatting {
                    root: live.root(),
                    formatters: &formatters,
                    trust,
                    stop: &|| cancel.is_cancelled(),
                };
                let formatted = workspace::format::format_text(
                    formatting,
                    language.language(),
                    &source,
                    options,
                )
                .map_err(failure)?;
                Ok(FormatAnswer {
                    diff: ide::unified_diff("source", &source, &formatted),
                    changed: formatted != source,
                    formatted: Some(formatted),
                    path: None,
                    applied: false,
                    change_id: None,
                    new_diagnostics: None,
                })
            }
            FormatRequest::File {
                path,
                options,
                apply,
                expected_change_id,
                check,
            } => {
                let (rel, abs) = paths::resolve(live.root(), &path)?;
                if abs.is_dir() {
                    return Err(ToolError::new(
                        ErrorCode::InvalidArgument,
                        format!("{rel:?} is a directory"),
                    ));
                }
                // A dry run's diff reads the file alone; a write waits for the first index.
                let when = match apply {
                    true => WhileIndexing::Wait,
                    false => WhileIndexing::Answer,
                };
                let formatted = live
                    .read_file(cancel, &rel, when, |analysis, file| {
                        Ok(workspace::plan_file(
                            analysis,
                            &formatters,
                            trust,
                            file,
                            options,
                        ))
                    })
                    .map_err(|e| match e {
                        FileReadError::Read(e) => super::tools::read_error(e),
                        FileReadError::Skipped(skipped) => {
                            super::tools::skipped_error(&rel, &skipped)
                        }
                        FileReadError::File(e) => super::tools::file_error(e),
                    })?
                    .and_then(|plan| plan.finish(live.root(), &|| cancel.is_cancelled()))
                    .map_err(failure)?;
                let changed = formatted.changed();
                let change = SourceChange {
                    files: vec![formatted.edit.clone()],
                    file_system: Vec::new(),
                };
                if let Some(expected) = &expected_change_id {
                    super::tools::reviewed(expected, &change)?;
                }
                let new_diagnostics = match check {
                    CheckPolicy::Off => None,
                    _ if !changed => Some(Vec::new()),
                    _ => {
                        let texts = [(rel.clone(), formatted.formatted.to_string())].into();
                        let found = live
                            .read(cancel, |s| s.analysis.new_diagnostics(&texts))
                            .map_err(super::tools::read_error)?;
                        Some(found)
                    }
                };
                let blocking = check.blocking(new_diagnostics.as_deref().unwrap_or_default());
                if apply && !blocking.is_empty() {
                    let listed: Vec<NewDiagnosticEntry> =
                        blocking.iter().map(NewDiagnosticEntry::new).collect();
                    return Err(ToolError::new(
                        ErrorCode::NewDiagnostics,
                        "the formatted file would have new errors; nothing was written",
                    )
                    .with_detail(
                        "diagnostics",
                        serde_json::to_value(listed).unwrap_or_default(),
                    ));
                }
                let applied = apply && changed;
                if applied {
                    live.apply_change(&change).map_err(ToolError::failed)?;
                }
                Ok(FormatAnswer {
                    formatted: None,
                    diff: formatted.diff,
                    changed,
                    path: Some(rel),
                    applied,
                    change_id: changed.then(|| change.id()),
                    new_diagnostics: new_diagnostics
                        .map(|found| found.iter().map(NewDiagnosticEntry::new).collect()),
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::schema::input_schema;

    /// The read-only hook names real arguments of a strict schema.
    #[test]
    fn writing_arguments_are_properties_of_their_tools_strict_schema() {
        let schema = input_schema::<FormatSourceArgs>();
        assert_eq!(schema["additionalProperties"], serde_json::json!(false));
        for (tool, argument) in WRITING_ARGUMENTS {
            assert_eq!(*tool, "format_source");
            assert!(schema["properties"][*argument].is_object(), "{argument}");
        }
    }
}
