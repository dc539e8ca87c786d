//! `skeleton`: workspace files, directories or the whole workspace with their function and
//! method bodies elided, each marked with its lines, cut to a token budget.
//!
//! Invariant: the text content is exactly the text `tokens` counts, within the call's
//! budget (`mcp::budget`); only workspace-relative paths inside the root are read (through
//! `paths::resolve`), and a path under which nothing is indexed is `NOT_FOUND`.

use rmcp::{
    RoleServer, handler::server::router::tool::ToolRouter, model::JsonObject,
    service::RequestContext, tool, tool_router,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Lane, SextantServer, paths, read_error};
use crate::{
    ide::{Encoding, OmittedFile, SkeletonAnswer, SkeletonFile, SkeletonQuery},
    mcp::{
        ErrorCode, ToolError,
        answers::Rendered,
        budget::budget,
        schema::{input_schema, output_schema},
    },
    workspace::live::{Snapshot, WhileIndexing},
};

/// Paths one call may name, and the length of each.
const MAX_PATHS: usize = 100;
const MAX_PATH_CHARS: usize = 1024;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SkeletonArgs {
    /// Workspace files or directories (every file under one), at most 100; omit for the
    /// whole workspace.
    #[schemars(length(max = 100), inner(length(min = 1, max = 1024)))]
    pub paths: Option<Vec<String>>,
    /// Start at this file of the list (path order): the `next_offset` of a cut answer.
    #[schemars(range(min = 0))]
    pub offset: Option<u32>,
    /// Start that file at this 1-based line: the `next_line` of a cut answer.
    #[schemars(range(min = 1))]
    pub line: Option<u32>,
    /// At most this many tokens (capped by the server's limit).
    #[schemars(range(min = 1))]
    pub max_tokens: Option<u32>,
    /// The encoding tokens are counted in (default `o200k_base`).
    pub encoding: Option<Encoding>,
}

/// The structured content: everything but the text, which is the text content.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct SkeletonData {
    /// The exact tokens of the text content.
    pub tokens: usize,
    pub encoding: Encoding,
    pub max_tokens: usize,
    /// The files shown, with the lines each elided body stood for.
    pub files: Vec<SkeletonFile>,
    /// Files matched in all.
    pub file_count: usize,
    /// The first files left out, each with what its skeleton costs.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub omitted: Vec<OmittedFile>,
    pub omitted_count: usize,
    /// Call again with this `offset` (and `line`, when given) for the rest.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_offset: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_line: Option<u32>,
}

impl SkeletonData {
    fn rendered(answer: SkeletonAnswer) -> Rendered<SkeletonData> {
        Rendered {
            text: answer.text,
            data: SkeletonData {
                tokens: answer.tokens,
                encoding: answer.encoding,
                max_tokens: answer.max_tokens,
                files: answer.files,
                file_count: answer.file_count,
                omitted: answer.omitted,
                omitted_count: answer.omitted_count,
                next_offset: answer.next_offset,
                next_line: answer.next_line,
            },
        }
    }
}

/// The server's tools with `skeleton`.
pub(super) fn with_skeleton_tool(
    mut router: ToolRouter<SextantServer>,
) -> ToolRouter<SextantServer> {
    router.merge(SextantServer::skeleton_router());
    router
}

#[tool_router(router = skeleton_router, vis = "pub(super)")]
impl SextantServer {
    #[tool(
        description = "Files or directories (default: all) with function bodies elided, each marked with its lines; signatures, docs and types kept. Cut to `max_tokens`.",
        input_schema = input_schema::<SkeletonArgs>(),
        output_schema = output_schema::<SkeletonData>(),
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn skeleton(
        &self,
        args: JsonObject,
        ctx: RequestContext<RoleServer>,
    ) -> Result<Rendered<SkeletonData>, rmcp::model::CallToolResult> {
        let args: SkeletonArgs = super::parse_args(args)?;
        let budget = budget(&self.limits, args.max_tokens, args.encoding)?;
        let paths = args.paths.unwrap_or_default();
        check_bounds(&paths)?;
        let live = self.live.clone();
        self.run("skeleton", ctx, Lane::Compute, move |cancel| {
            let mut relative = Vec::with_capacity(paths.len());
            for path in &paths {
                relative.push(paths::resolve(live.root(), path)?.0);
            }
            let query = SkeletonQuery {
                paths: relative,
                offset: args.offset.unwrap_or(0) as usize,
                line: args.line,
                budget,
            };
            // Each file's skeleton reads that file alone.
            let answer = live
                .read_early(cancel, WhileIndexing::Answer, |s: &Snapshot| {
                    s.analysis.skeleton(&query)
                })
                .map_err(read_error)?;
            refusal(&answer).map_or(Ok(SkeletonData::rendered(answer)), Err)
        })
        .await
    }
}

fn check_bounds(paths: &[String]) -> Result<(), ToolError> {
    let invalid = |message: String| Err(ToolError::new(ErrorCode::InvalidArgument, message));
    if paths.len() > MAX_PATHS {
        return invalid(format!("at most {MAX_PATHS} paths, got {}", paths.len()));
    }
    match paths.iter().find(|p| p.chars().count() > MAX_PATH_CHARS) {
        Some(long) => invalid(format!(
            "a path is at most {MAX_PATH_CHARS} characters, got {}",
            long.chars().count()
        )),
        None => Ok(()),
    }
}

/// Why an answer cannot be given: a path under which nothing is indexed, or a budget too
/// small for even one line.
fn refusal(answer: &SkeletonAnswer) -> Option<ToolError> {
    if let Some(path) = answer.unmatched_paths.first() {
        let message = format!("{path:?}: no file the workspace indexes is there");
        return Some(ToolError::new(ErrorCode::NotFound, message));
    }
    (answer.files.is_empty() && answer.next_offset.is_some()).then(|| {
        ToolError::new(
            ErrorCode::TooLarge,
            format!(
                "not even one line of the skeleton fits in {} tokens",
                answer.max_tokens
            ),
        )
    })
}
