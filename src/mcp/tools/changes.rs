//! `changes`: what the working tree changed against HEAD (or a revision, or what a range
//! of commits changed), as a reviewing agent asks first: changed files, changed
//! definitions with their dependents, the affected tests, and the impact, nearest first,
//! cut to a token budget. Read from the repository with `gix`; git is never run.
//!
//! Invariant: read-only; the repository is the one the workspace root is in, and only
//! paths under the root are reported.

use rmcp::{RoleServer, model::JsonObject, service::RequestContext, tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Lane, SextantServer, in_range, parse_args, read_error};
use crate::{
    ide::{
        ChangedFile, Changes, ChangesQuery, DEFAULT_IMPACT_DEPTH, DEFAULT_IMPACT_LIMIT, Encoding,
        Impact,
    },
    mcp::{
        ToolError,
        answers::Rendered,
        budget::budget,
        schema::{input_schema, output_schema},
    },
    workspace::{
        changes::{Revisions, changed_texts},
        live::Snapshot,
    },
};

/// The budget of a call that names none (the server's cap may lower it).
const DEFAULT_MAX_TOKENS: u32 = 4_000;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ChangesArgs {
    /// `REV` (that commit against the working tree), `OLD..NEW` (two commits) or `A...B`
    /// (`B` against its merge base with `A`); default HEAD against the working tree
    /// (staged, unstaged and untracked files alike).
    #[schemars(length(min = 1, max = 256))]
    pub revisions: Option<String>,
    /// Steps the impact follows (default 20).
    #[schemars(range(min = 0, max = 100))]
    pub depth: Option<u32>,
    /// At most this many dependents listed (default 200; all are counted).
    #[schemars(range(min = 1, max = 10000))]
    pub limit: Option<u32>,
    /// At most this many tokens of text (default 4000, capped by the server's limit).
    #[schemars(range(min = 1))]
    pub max_tokens: Option<u32>,
    /// The encoding tokens are counted in (default `o200k_base`).
    pub encoding: Option<Encoding>,
}

/// The structured content; the text content is the same answer as text.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct ChangesData {
    /// The exact tokens of the text content.
    pub tokens: usize,
    pub encoding: Encoding,
    pub max_tokens: usize,
    /// The states compared: `HEAD..working tree`, `main..feature`.
    pub revisions: String,
    pub files: Vec<ChangedFile>,
    pub affected_tests: Vec<crate::ide::ImpactEntry>,
    pub impact: Impact,
    /// Files (and the affected tests) were left out for the budget.
    pub truncated: bool,
}

impl ChangesData {
    fn rendered(changes: Changes, encoding: Encoding, max_tokens: usize) -> Rendered<Self> {
        Rendered {
            data: ChangesData {
                tokens: changes.tokens.unwrap_or_default(),
                encoding,
                max_tokens,
                revisions: changes.revisions,
                files: changes.files,
                affected_tests: changes.affected_tests,
                impact: changes.impact,
                truncated: changes.truncated,
            },
            text: changes.text,
        }
    }
}

#[tool_router(router = changes_router, vis = "pub(super)")]
impl SextantServer {
    #[tool(
        description = "Changes against HEAD (or `revisions`: REV, OLD..NEW, A...B): files, definitions added, removed or changed, each one's dependents, affected tests, impact.",
        input_schema = input_schema::<ChangesArgs>(),
        output_schema = output_schema::<ChangesData>(),
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn changes(
        &self,
        args: JsonObject,
        ctx: RequestContext<RoleServer>,
    ) -> Result<Rendered<ChangesData>, rmcp::model::CallToolResult> {
        let args: ChangesArgs = parse_args(args)?;
        let budget = budget(
            &self.limits,
            args.max_tokens.or(Some(DEFAULT_MAX_TOKENS)),
            args.encoding,
        )?;
        let max_depth = in_range("depth", args.depth, 0, 100, DEFAULT_IMPACT_DEPTH)? as u32;
        let limit = in_range("limit", args.limit, 1, 10_000, DEFAULT_IMPACT_LIMIT as u32)?;
        let revisions = Revisions::parse(args.revisions.as_deref()).map_err(ToolError::failed)?;
        let live = self.live.clone();
        self.run("changes", ctx, Lane::Compute, move |cancel| {
            let files = changed_texts(live.root(), &revisions).map_err(ToolError::failed)?;
            let query = ChangesQuery {
                revisions: revisions.label(),
                files,
                max_depth,
                limit,
                budget: Some(budget),
            };
            let changes = live
                .read(cancel, |s: &Snapshot| s.analysis.changes(&query))
                .map_err(read_error)?
                .map_err(ToolError::failed)?;
            Ok(ChangesData::rendered(
                changes,
                budget.encoding,
                budget.max_tokens,
            ))
        })
        .await
    }
}
