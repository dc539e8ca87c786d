//! `repo_map`: the workspace (or the files under a path) as its most-used definitions'
//! signature lines, ranked by how much the rest of the code uses them, cut to a token
//! budget (4,000 tokens unless the call says otherwise).
//!
//! Invariant: the text content is exactly the text `tokens` counts, within the call's
//! budget (`mcp::budget`); the path is workspace-relative inside the root (through
//! `paths::resolve`), and one under which nothing is indexed is `NOT_FOUND`.

use rmcp::{
    RoleServer, handler::server::router::tool::ToolRouter, model::JsonObject,
    service::RequestContext, tool, tool_router,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Lane, SextantServer, paths, read_error};
use crate::{
    ide::{Encoding, RepoMap, RepoMapRequest},
    mcp::{
        ErrorCode, ToolError,
        answers::Rendered,
        budget::budget,
        schema::{input_schema, output_schema},
    },
    workspace::live::Snapshot,
};

/// The budget of a call that names none (the server's cap may lower it).
const DEFAULT_MAX_TOKENS: u32 = 4_000;
/// Focus entries one call may name, and the length of each.
const MAX_FOCUS: usize = 100;
const MAX_FOCUS_CHARS: usize = 1024;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RepoMapArgs {
    /// A workspace file or directory to map; omit for the whole workspace. Code elsewhere
    /// still counts as a user of what is shown.
    #[schemars(length(min = 1, max = 1024))]
    pub path: Option<String>,
    /// Files, directories or definitions' names (`name`, `Class.method`) to rank toward,
    /// at most 100.
    #[schemars(length(max = 100), inner(length(min = 1, max = 1024)))]
    pub focus: Option<Vec<String>>,
    /// At most this many tokens (default 4000, capped by the server's limit).
    #[schemars(range(min = 1))]
    pub max_tokens: Option<u32>,
    /// The encoding tokens are counted in (default `o200k_base`).
    pub encoding: Option<Encoding>,
}

/// The structured content: everything but the text, which is the text content.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct RepoMapData {
    /// The exact tokens of the text content.
    pub tokens: usize,
    pub encoding: Encoding,
    pub max_tokens: usize,
    /// Definitions chosen (in rank order) and under the path in all.
    pub definitions_shown: usize,
    pub definition_count: usize,
    /// Files with a line in the map, and under the path in all.
    pub files_shown: usize,
    pub file_count: usize,
    /// Whether definitions were left out for the budget.
    pub truncated: bool,
    /// Focus entries that named no file and no definition.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unmatched_focus: Vec<String>,
}

impl RepoMapData {
    fn rendered(map: RepoMap) -> Rendered<RepoMapData> {
        Rendered {
            text: map.text,
            data: RepoMapData {
                tokens: map.tokens,
                encoding: map.encoding,
                max_tokens: map.max_tokens,
                definitions_shown: map.definitions.len(),
                definition_count: map.definition_count,
                files_shown: map.files_shown,
                file_count: map.file_count,
                truncated: map.truncated,
                unmatched_focus: map.unmatched_focus,
            },
        }
    }
}

/// The server's tools with `repo_map`.
pub(super) fn with_repo_map_tool(
    mut router: ToolRouter<SextantServer>,
) -> ToolRouter<SextantServer> {
    router.merge(SextantServer::repo_map_router());
    router
}

#[tool_router(router = repo_map_router, vis = "pub(super)")]
impl SextantServer {
    #[tool(
        description = "Most-used definitions' signatures, ranked by resolved references (PageRank, biased to `focus`), grouped by file, cut to `max_tokens`.",
        input_schema = input_schema::<RepoMapArgs>(),
        output_schema = output_schema::<RepoMapData>(),
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn repo_map(
        &self,
        args: JsonObject,
        ctx: RequestContext<RoleServer>,
    ) -> Result<Rendered<RepoMapData>, rmcp::model::CallToolResult> {
        let args: RepoMapArgs = super::parse_args(args)?;
        let max_tokens = args.max_tokens.or(Some(DEFAULT_MAX_TOKENS));
        let budget = budget(&self.limits, max_tokens, args.encoding)?;
        let focus = args.focus.unwrap_or_default();
        check_focus(&focus)?;
        let live = self.live.clone();
        self.run("repo_map", ctx, Lane::Compute, move |cancel| {
            let path_prefix = match &args.path {
                Some(path) => Some(paths::resolve(live.root(), path)?.0),
                None => None,
            };
            let request = RepoMapRequest {
                path_prefix,
                focus,
                budget,
            };
            let map = live
                .read(cancel, |s: &Snapshot| s.analysis.repo_map(&request))
                .map_err(read_error)?;
            refusal(&map).map_or(Ok(RepoMapData::rendered(map)), Err)
        })
        .await
    }
}

fn check_focus(focus: &[String]) -> Result<(), ToolError> {
    let invalid = |message: String| Err(ToolError::new(ErrorCode::InvalidArgument, message));
    if focus.len() > MAX_FOCUS {
        return invalid(format!(
            "at most {MAX_FOCUS} focus entries, got {}",
            focus.len()
        ));
    }
    match focus
        .iter()
        .find(|f| f.is_empty() || f.chars().count() > MAX_FOCUS_CHARS)
    {
        Some(bad) => invalid(format!(
            "a focus entry is 1 to {MAX_FOCUS_CHARS} characters, got {}",
            bad.chars().count()
        )),
        None => Ok(()),
    }
}

/// Why a map cannot be given: a path under which nothing is indexed, or a budget too
/// small for even one definition.
fn refusal(map: &RepoMap) -> Option<ToolError> {
    if let Some(path) = &map.unmatched_path {
        let message = format!("{path:?}: no file the workspace indexes is there");
        return Some(ToolError::new(ErrorCode::NotFound, message));
    }
    (map.definitions.is_empty() && map.truncated).then(|| {
        ToolError::new(
            ErrorCode::TooLarge,
            format!("not even one definition fits in {} tokens", map.max_tokens),
        )
    })
}
