//! `rename_symbol`: a rename in the workspace (by name or position) or in a snippet.
//!
//! Invariant: nothing is written unless `apply` is true, the rename has no conflicts and
//! its new diagnostics pass `check` (default `refuse`: a rename is meant to keep the code's
//! behaviour, so a new error stops it); writing goes through `LiveWorkspace::apply_change`
//! (every file or none, each checked against the text the rename was computed from). With
//! `--read-only` the tool has no `apply` argument at all: its schema does not offer it and
//! strict parsing refuses it, so a client cannot be talked into writing.

use rmcp::{
    RoleServer, handler::server::router::tool::ToolRouter, model::JsonObject,
    service::RequestContext, tool, tool_router,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{
    Lane, LanguageId, SextantServer, cancelled, file_error, name_or_position, offset_of,
    parse_args, read_error,
};
use crate::{
    ide::{
        CheckPolicy, DiagnosticInfo, EditOrigin, NewDiagnostics, Rename, RenameEdit, RenameError,
        RenameOptions, Severity, Target,
    },
    mcp::{
        ErrorCode, ToolError,
        answers::Json,
        schema::{input_schema, output_schema},
    },
    workspace::{
        self,
        live::{LiveWorkspace, RequestCancel, Snapshot},
    },
};

/// Declares the arguments twice: with `apply`, and without it for a read-only server.
macro_rules! rename_args {
    ($name:ident { $($apply:tt)* }) => {
        #[derive(Debug, Deserialize, JsonSchema)]
        #[serde(deny_unknown_fields)]
        pub struct $name {
            /// Workspace mode: the name to rename, optionally qualified (`f`, `mod.f`,
            /// `Class.method`). Or give `path`, `line` and `column`.
            pub query: Option<String>,
            /// Workspace mode: the file holding the name (with `line` and `column`).
            pub path: Option<String>,
            /// 1-based line of the name.
            #[schemars(range(min = 1))]
            pub line: Option<u32>,
            /// 1-based column (in characters) of any character of the name.
            #[schemars(range(min = 1))]
            pub column: Option<u32>,
            /// The new name.
            pub new_name: String,
            /// Source mode: a snippet to rename in (with `language` and `old_name`); no
            /// workspace is read or written.
            pub source: Option<String>,
            /// Source mode: the snippet's language.
            pub language: Option<LanguageId>,
            /// Source mode: the name to rename.
            pub old_name: Option<String>,
            /// Source mode: where `old_name` is bound: `module` (default) or a function's name.
            pub scope: Option<String>,
            /// Also rename members matched by name on receivers of unknown type (default false).
            pub include_heuristic: Option<bool>,
            /// Also rename the old name where it is a word in strings and comments (default false).
            pub include_text: Option<bool>,
            /// New diagnostics in the renamed files: `refuse` (default: a rename should keep
            /// behaviour) writes nothing when one is an error (`NEW_DIAGNOSTICS`), `report`
            /// writes and reports them, `off` skips the check.
            pub check: Option<CheckPolicy>,
            $($apply)*
        }
    };
}

rename_args!(RenameSymbolArgs {
    /// Write the change (default false: a dry run returning the diff). `CONFLICT` when a
    /// file changed since.
    pub apply: Option<bool>,
    /// With `apply`: the `change_id` of the dry run that was reviewed. The change is written
    /// only if the one computed now is the same (else `CONFLICT`, nothing written).
    pub expected_change_id: Option<String>,
});
rename_args!(ReadOnlyRenameSymbolArgs {});

impl From<ReadOnlyRenameSymbolArgs> for RenameSymbolArgs {
    fn from(a: ReadOnlyRenameSymbolArgs) -> RenameSymbolArgs {
        RenameSymbolArgs {
            query: a.query,
            path: a.path,
            line: a.line,
            column: a.column,
            new_name: a.new_name,
            source: a.source,
            language: a.language,
            old_name: a.old_name,
            scope: a.scope,
            include_heuristic: a.include_heuristic,
            include_text: a.include_text,
            check: a.check,
            apply: None,
            expected_change_id: None,
        }
    }
}

/// One place a rename edits (or, `applied: false`, leaves).
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct RenameEditEntry {
    pub path: String,
    pub line: u32,
    /// 1-based, in characters.
    pub column: u32,
    /// `code`, `all_entry` (a string of Python's `__all__`), `string` or `comment`.
    pub origin: EditOrigin,
    /// Left unchanged (a heuristic match without `include_heuristic`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub left: bool,
    pub line_text: String,
}

impl RenameEditEntry {
    fn new(edit: &RenameEdit) -> RenameEditEntry {
        RenameEditEntry {
            path: edit.path.clone(),
            line: edit.span.start.line,
            column: edit.span.start.column,
            origin: edit.origin,
            left: !edit.applied,
            line_text: edit.line_text.clone(),
        }
    }
}

/// A diagnostic an edit's result has and the current text does not.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct NewDiagnosticEntry {
    pub path: String,
    pub line: u32,
    pub column: u32,
    pub code: String,
    pub severity: Severity,
    pub message: String,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct RenameAnswer {
    pub old_name: String,
    pub new_name: String,
    /// The change was written (only with `apply: true`).
    pub applied: bool,
    /// Files the change edits.
    pub files: Vec<String>,
    /// Exact edits: names resolved through scopes and imports, and `__all__` entries.
    pub edits: Vec<RenameEditEntry>,
    /// Members matched by name only; edited with `include_heuristic`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub heuristic: Vec<RenameEditEntry>,
    /// The old name in strings and comments (with `include_text`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub text_matches: Vec<RenameEditEntry>,
    /// Names this exact change; pass it back as `expected_change_id` with `apply` to write
    /// only what was reviewed. Absent when nothing would change.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change_id: Option<String>,
    /// Unified diff of the change.
    pub diff: String,
    /// The diff was cut to fit the answer.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub diff_truncated: bool,
    /// Diagnostics the rename introduces in the files it changes (absent when none, or
    /// when `check` is `off`); under `refuse`, `apply` is refused while one is an error.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub diagnostics: Vec<NewDiagnosticEntry>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// Source mode: the renamed source.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

impl RenameAnswer {
    fn new(rename: &Rename, applied: bool, source: Option<String>) -> RenameAnswer {
        RenameAnswer {
            old_name: rename.old_name.clone(),
            new_name: rename.new_name.clone(),
            applied,
            files: rename
                .change
                .files
                .iter()
                .filter(|f| !f.edits.is_empty())
                .map(|f| f.path.clone())
                .collect(),
            edits: rename.edits.iter().map(RenameEditEntry::new).collect(),
            heuristic: rename.heuristic.iter().map(RenameEditEntry::new).collect(),
            text_matches: rename
                .text_matches
                .iter()
                .map(RenameEditEntry::new)
                .collect(),
            change_id: (!rename.change.is_empty()).then(|| rename.change.id()),
            diff: rename.diff.clone(),
            diff_truncated: false,
            diagnostics: diagnostics(rename),
            warnings: rename.warnings.clone(),
            source,
        }
    }
}

fn diagnostics(rename: &Rename) -> Vec<NewDiagnosticEntry> {
    rename
        .new_diagnostics
        .iter()
        .flatten()
        .map(NewDiagnosticEntry::new)
        .collect()
}

impl NewDiagnosticEntry {
    pub(crate) fn new(d: &DiagnosticInfo) -> NewDiagnosticEntry {
        NewDiagnosticEntry {
            path: d.path.clone(),
            line: d.span.start.line,
            column: d.span.start.column,
            code: d.code.clone(),
            severity: d.severity,
            message: d.message.clone(),
        }
    }
}

fn rename_error(error: RenameError) -> ToolError {
    let conflicts = error.conflicts().to_vec();
    let tool_error = ToolError::failed(error);
    match conflicts.as_slice() {
        [] => tool_error,
        conflicts => {
            let places: Vec<serde_json::Value> = conflicts
                .iter()
                .map(|c| {
                    serde_json::json!({
                        "path": c.path,
                        "line": c.span.start.line,
                        "column": c.span.start.column,
                        "message": c.message,
                    })
                })
                .collect();
            tool_error.with_detail("conflicts", serde_json::Value::Array(places))
        }
    }
}

/// The server's tools with `rename_symbol`; on a read-only server its schema has no `apply`
/// and its annotations say it only reads.
pub(super) fn with_rename_tool(
    mut router: ToolRouter<SextantServer>,
    read_only: bool,
) -> ToolRouter<SextantServer> {
    let mut rename = SextantServer::rename_router();
    if read_only && let Some(route) = rename.map.get_mut("rename_symbol") {
        route.attr.input_schema = input_schema::<ReadOnlyRenameSymbolArgs>();
        route.attr.description = Some(
            "Rename a symbol in the workspace (`query` or `path`+`line`+`column`) or a `source` \
             snippet: a checked dry run with a diff; this server writes nothing."
                .into(),
        );
        if let Some(annotations) = route.attr.annotations.as_mut() {
            annotations.read_only_hint = Some(true);
            annotations.destructive_hint = Some(false);
        }
    }
    router.merge(rename);
    router
}

#[tool_router(router = rename_router, vis = "pub(super)")]
impl SextantServer {
    #[tool(
        description = "Rename a symbol in the workspace (`query` or `path`+`line`+`column`) or a `source` snippet: checked dry run with diff unless `apply`. Python, JS, TS, Go, Rust.",
        input_schema = input_schema::<RenameSymbolArgs>(),
        output_schema = output_schema::<RenameAnswer>(),
        annotations(read_only_hint = false, destructive_hint = true, idempotent_hint = false, open_world_hint = false)
    )]
    async fn rename_symbol(
        &self,
        args: JsonObject,
        ctx: RequestContext<RoleServer>,
    ) -> Result<Json<RenameAnswer>, rmcp::model::CallToolResult> {
        let mut args: RenameSymbolArgs = match self.limits.read_only {
            true => parse_args::<ReadOnlyRenameSymbolArgs>(args)?.into(),
            false => parse_args(args)?,
        };
        let options = RenameOptions {
            include_heuristic: args.include_heuristic.unwrap_or(false),
            include_text: args.include_text.unwrap_or(false),
            check_diagnostics: policy(&args) != CheckPolicy::Off,
        };
        if args.expected_change_id.is_some() && args.apply != Some(true) {
            return Err(invalid("`expected_change_id` goes with `apply: true`").into());
        }
        let answer = match args.source.take() {
            Some(source) => self.rename_source(args, source, options, ctx).await?,
            None => self.rename_in_workspace(args, options, ctx).await?,
        };
        self.fitted(answer)
    }
}

fn invalid(message: &str) -> ToolError {
    ToolError::new(ErrorCode::InvalidArgument, message)
}

/// The call's check policy. A rename's default is `refuse`, not `report` as for a patch: a
/// rename is meant to keep the code's behaviour, and a new error says it would not.
fn policy(args: &RenameSymbolArgs) -> CheckPolicy {
    args.check.unwrap_or(CheckPolicy::Refuse)
}

impl SextantServer {
    /// Source mode: a rename inside a snippet, on a database of its own; nothing is read
    /// from or written to the workspace.
    async fn rename_source(
        &self,
        args: RenameSymbolArgs,
        source: String,
        options: RenameOptions,
        ctx: RequestContext<RoleServer>,
    ) -> Result<RenameAnswer, rmcp::model::CallToolResult> {
        let (Some(language), Some(old_name)) = (args.language, args.old_name) else {
            return Err(invalid("source mode needs `source`, `language` and `old_name`").into());
        };
        if args.query.is_some()
            || args.path.is_some()
            || args.line.is_some()
            || args.apply.is_some_and(|a| a)
        {
            return Err(invalid(
                "source mode takes no `query`, `path`, `line`, `column` or `apply`",
            )
            .into());
        }
        let limit = self.limits.max_source_bytes;
        if source.len() > limit {
            let message = format!("source is {} bytes; the limit is {limit}", source.len());
            return Err(ToolError::new(ErrorCode::TooLarge, message).into());
        }
        let (lang, scope, new_name) = (language.language(), args.scope, args.new_name);
        self.run("rename_symbol", ctx, Lane::Compute, move |cancel| {
            let (analysis, file) =
                workspace::standalone_source("<source>".into(), lang, source.clone().into_bytes())
                    .map_err(file_error)?;
            cancel.watch(analysis.cancellation_token());
            let rename = analysis
                .rename_in_scope(file, &old_name, scope.as_deref(), &new_name, options)
                .map_err(|_| cancelled())?
                .map_err(rename_error)?;
            let renamed = match rename.change.files.first() {
                Some(edit) => edit
                    .apply(&source)
                    .map_err(|e| ToolError::new(ErrorCode::Internal, e.to_string()))?,
                None => source,
            };
            Ok(RenameAnswer::new(&rename, false, Some(renamed)))
        })
        .await
    }

    /// Workspace mode: the rename of a name or of the symbol at a position, as a dry run, or
    /// written when `apply` is true, the rename is the one reviewed and its new diagnostics
    /// pass `check`.
    async fn rename_in_workspace(
        &self,
        args: RenameSymbolArgs,
        options: RenameOptions,
        ctx: RequestContext<RoleServer>,
    ) -> Result<RenameAnswer, rmcp::model::CallToolResult> {
        if args.language.is_some() || args.old_name.is_some() || args.scope.is_some() {
            return Err(invalid("`language`, `old_name` and `scope` go with `source`").into());
        }
        let target = name_or_position(&args.query, &args.path, args.line, args.column)?;
        let policy = policy(&args);
        let live = self.live.clone();
        self.run("rename_symbol", ctx, Lane::Compute, move |cancel| {
            let rename = compute_rename(&live, cancel, &target, &args.new_name, options)?;
            if let Some(expected) = &args.expected_change_id {
                super::reviewed(expected, &rename.change)?;
            }
            if args.apply != Some(true) || rename.change.is_empty() {
                return Ok(RenameAnswer::new(&rename, false, None));
            }
            if let Some(refusal) = rename.refusal(policy) {
                let blocking: Vec<NewDiagnosticEntry> = refusal
                    .diagnostics()
                    .iter()
                    .map(NewDiagnosticEntry::new)
                    .collect();
                let listed = serde_json::to_value(blocking).unwrap_or_default();
                let message = format!("{}; nothing was written", NewDiagnostics::MESSAGE);
                return Err(ToolError::new(NewDiagnostics::CODE, message)
                    .with_detail("diagnostics", listed));
            }
            live.apply_change(&rename.change)
                .map_err(ToolError::failed)?;
            Ok(RenameAnswer::new(&rename, true, None))
        })
        .await
    }
}

/// The rename `target` asks for, on the workspace as it is now.
fn compute_rename(
    live: &LiveWorkspace,
    cancel: &RequestCancel,
    target: &Target,
    new_name: &str,
    options: RenameOptions,
) -> Result<Rename, ToolError> {
    let position = match target {
        Target::Position { path, line, column } => {
            let (rel, _) = super::paths::resolve(live.root(), path)?;
            Some((rel, *line, *column, path))
        }
        Target::Name(_) => None,
    };
    let computed = live
        .read(cancel, |s: &Snapshot| match (target, &position) {
            (Target::Name(name), _) => {
                Ok(Some(s.analysis.rename_by_name(name, new_name, options)?))
            }
            (_, Some((rel, line, column, _))) => {
                let Some(file) = s.file(rel) else {
                    return Ok(None);
                };
                let offset = offset_of(&s.analysis, file, *line, *column)?;
                Ok(Some(s.analysis.rename(file, offset, new_name, options)?))
            }
            _ => Ok(None),
        })
        .map_err(read_error)?;
    match (computed, position) {
        (Some(result), _) => result.map_err(rename_error),
        (None, position) => Err(ToolError::new(
            ErrorCode::NotFound,
            format!(
                "{:?} is not a file the workspace indexes",
                position
                    .map(|(_, _, _, path)| path.as_str())
                    .unwrap_or_default()
            ),
        )),
    }
}

impl SextantServer {
    /// The answer within the response limit: a diff too long is cut (and says so) before
    /// the answer is refused.
    fn fitted(
        &self,
        mut answer: RenameAnswer,
    ) -> Result<Json<RenameAnswer>, rmcp::model::CallToolResult> {
        let limit = self.limits.max_response_chars;
        let cut = super::diff_to_fit(&answer, &answer.diff, limit);
        if let Some(keep) = cut {
            answer.diff.truncate(keep);
            answer.diff_truncated = true;
        }
        self.bounded(answer)
    }
}
