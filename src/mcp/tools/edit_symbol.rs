//! `edit_symbol`: replace a definition's body or all of it, insert text before or after
//! it, or delete it, with the definition named as `read_symbol` names it.
//!
//! Invariant: the edit is made as a patch (`ide::edit_symbol`) and goes the way of every
//! `apply_patch` call (`patch::Write`): previewed on the files as they are on disk, checked
//! for new diagnostics, written every file or none only with `apply`, which a read-only
//! server does not offer.

use rmcp::{RoleServer, model::JsonObject, service::RequestContext, tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{
    Lane, SextantServer, offset_of, parse_args,
    patch::{PatchAnswer, Write, hard_links},
    paths, read_error,
};
use crate::{
    ide::{CheckPolicy, PatchOptions, SymbolEditError, SymbolEditKind, SymbolEditTarget},
    mcp::{
        ErrorCode, ToolError,
        answers::Json,
        schema::{input_schema, output_schema},
    },
    workspace::live::Snapshot,
};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EditSymbolArgs {
    /// The definition's name: `f`, `module.f`, `Class.method`, `Type::method`. Or give
    /// `path` and `line`.
    #[schemars(length(min = 1, max = 1024))]
    pub symbol: Option<String>,
    /// With `symbol`: only definitions in files under this path.
    pub path_prefix: Option<String>,
    /// The file of the definition (with `line`).
    pub path: Option<String>,
    /// 1-based line inside the definition: the innermost one around it is edited.
    #[schemars(range(min = 1))]
    pub line: Option<u32>,
    /// `replace_body`, `replace_definition`, `insert_before`, `insert_after` or `delete`.
    pub operation: SymbolEditKind,
    /// The new text (not for `delete`), re-indented to where it goes.
    pub text: Option<String>,
    /// `delete` even while exact references to the definition remain (default false).
    pub force: Option<bool>,
    /// `report` (default), `refuse` (no write when a new diagnostic is an error) or `off`.
    pub check: Option<CheckPolicy>,
    /// Write the change (default false: a dry run returning the diff).
    pub apply: Option<bool>,
    /// With `apply`: the `change_id` of the dry run that was reviewed.
    pub expected_change_id: Option<String>,
    /// With `apply`: write a file that has other hard links (they keep the old text).
    pub break_hard_links: Option<bool>,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct EditSymbolAnswer {
    /// The definition edited: its kind and qualified name, file and lines.
    pub definition: String,
    pub path: String,
    pub start_line: u32,
    pub end_line: u32,
    #[serde(flatten)]
    pub patch: PatchAnswer,
}

#[tool_router(router = edit_symbol_router, vis = "pub(super)")]
impl SextantServer {
    #[tool(
        description = "Edit a definition by name (`Class.method`) or `path`+`line`: replace_body, replace_definition, insert_before, insert_after, delete; dry run unless `apply`.",
        input_schema = input_schema::<EditSymbolArgs>(),
        output_schema = output_schema::<EditSymbolAnswer>(),
        annotations(read_only_hint = false, destructive_hint = true, idempotent_hint = false, open_world_hint = false)
    )]
    async fn edit_symbol(
        &self,
        args: JsonObject,
        ctx: RequestContext<RoleServer>,
    ) -> Result<Json<EditSymbolAnswer>, rmcp::model::CallToolResult> {
        let args: EditSymbolArgs = parse_args(args)?;
        let apply = args.apply.unwrap_or(false);
        let writing_option = args.expected_change_id.is_some() || args.break_hard_links.is_some();
        if (apply || writing_option) && self.limits.read_only {
            return Err(invalid("this server is read-only: `apply` is not available").into());
        }
        if writing_option && !apply {
            return Err(invalid(
                "`expected_change_id` and `break_hard_links` go with `apply: true`",
            )
            .into());
        }
        let text = match (args.operation, args.text) {
            (SymbolEditKind::Delete, Some(_)) => {
                return Err(invalid("`delete` takes no `text`").into());
            }
            (SymbolEditKind::Delete, None) => String::new(),
            (_, Some(text)) => text,
            (_, None) => return Err(invalid("give the new `text`").into()),
        };
        let located = match (args.symbol, args.path, args.line) {
            (Some(name), None, None) => Located::Name(name, args.path_prefix),
            (None, Some(path), Some(line)) if args.path_prefix.is_none() => {
                let (rel, _) = paths::resolve(self.live.root(), &path)?;
                Located::Line(rel, line)
            }
            _ => {
                return Err(invalid(
                    "give `symbol` (optionally with `path_prefix`), or `path` and `line`",
                )
                .into());
            }
        };
        let (kind, force) = (args.operation, args.force.unwrap_or(false));
        let write = Write {
            apply,
            check: args.check.unwrap_or_default(),
            expected_change_id: args.expected_change_id,
            hard_links: hard_links(args.break_hard_links),
            operation: None,
        };
        let live = self.live.clone();
        let answer = self
            .run("edit_symbol", ctx, Lane::Compute, move |cancel| {
                let edit = live
                    .read(cancel, |s: &Snapshot| {
                        Ok(match located.target(s)? {
                            Ok(target) => s.analysis.edit_symbol(&target, kind, &text, force)?,
                            Err(error) => Err(error),
                        })
                    })
                    .map_err(read_error)?
                    .map_err(symbol_edit_error)?;
                let patch = write.run(&live, cancel, &edit.patch, &PatchOptions::default())?;
                Ok(EditSymbolAnswer {
                    definition: edit.definition,
                    path: edit.path,
                    start_line: edit.start_line,
                    end_line: edit.end_line,
                    patch,
                })
            })
            .await?;
        let mut answer = answer;
        let limit = self.limits.max_response_chars;
        if let Some(keep) = super::diff_to_fit(&answer, &answer.patch.diff, limit) {
            answer.patch.diff.truncate(keep);
            answer.patch.diff_truncated = true;
        }
        self.bounded(answer)
    }
}

/// Where the definition is, as the arguments say it.
enum Located {
    Name(String, Option<String>),
    Line(String, u32),
}

impl Located {
    /// The edit's target on snapshot `s`; a line is taken at its first character that is
    /// not a blank, so `path`+`line` of a `def` line names that definition, not the class
    /// around it.
    fn target(
        &self,
        s: &Snapshot,
    ) -> Result<Result<SymbolEditTarget, SymbolEditError>, crate::ide::Cancelled> {
        let (rel, line) = match self {
            Located::Name(name, path_prefix) => {
                return Ok(Ok(SymbolEditTarget::Name {
                    name: name.clone(),
                    path_prefix: path_prefix.clone(),
                }));
            }
            Located::Line(rel, line) => (rel, *line),
        };
        let Some(file) = s.file(rel) else {
            return Ok(Err(SymbolEditError::NotFound(format!(
                "{rel} is not indexed"
            ))));
        };
        let start = offset_of(&s.analysis, file, line, 1)?;
        let text = s.analysis.file_text(file);
        let blanks = text[start..].len() - text[start..].trim_start_matches([' ', '\t']).len();
        Ok(Ok(SymbolEditTarget::Position {
            path: rel.clone(),
            offset: start + blanks,
        }))
    }
}

fn symbol_edit_error(error: SymbolEditError) -> ToolError {
    let detail = match &error {
        SymbolEditError::Ambiguous(ambiguity) => Some(("candidates", &ambiguity.candidates)),
        SymbolEditError::StillReferenced { references, .. } => Some(("references", references)),
        _ => None,
    };
    let tool_error = ToolError::failed(error.clone());
    match detail {
        Some((key, places)) => {
            tool_error.with_detail(key, serde_json::to_value(places).unwrap_or_default())
        }
        None => tool_error,
    }
}

fn invalid(message: &str) -> ToolError {
    ToolError::new(ErrorCode::InvalidArgument, message)
}
