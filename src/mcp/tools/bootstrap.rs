//! `workspace_bootstrap`: what a new agent session needs to know, in one call.
//!
//! Invariant: nothing is run and nothing outside the root is read (the workspace's
//! `System` reads every file); the text content is what `tokens` counts, within budget.

use rmcp::{RoleServer, model::JsonObject, service::RequestContext, tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

use super::{Lane, SextantServer, parse_args, read_error};
use crate::{
    ide::Encoding,
    mcp::{
        answers::Rendered,
        budget::budget,
        schema::{input_schema, output_schema},
    },
    workspace::bootstrap::Bootstrap,
};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WorkspaceBootstrapArgs {
    /// At most this many tokens of text (default 4000; the server's cap at most).
    #[schemars(range(min = 1))]
    pub max_tokens: Option<u32>,
    /// `o200k_base` (default) or `cl100k_base`.
    pub encoding: Option<Encoding>,
}

#[tool_router(router = bootstrap_router, vis = "pub(super)")]
impl SextantServer {
    #[tool(
        description = "Start here: languages, projects, instruction files to read first, build and test commands, entry points, layout, most imported files, git branch.",
        input_schema = input_schema::<WorkspaceBootstrapArgs>(),
        output_schema = output_schema::<Bootstrap>(),
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn workspace_bootstrap(
        &self,
        args: JsonObject,
        ctx: RequestContext<RoleServer>,
    ) -> Result<Rendered<Bootstrap>, rmcp::model::CallToolResult> {
        let args: WorkspaceBootstrapArgs = parse_args(args)?;
        let budget = budget(
            &self.limits,
            Some(args.max_tokens.unwrap_or(4_000)),
            args.encoding,
        )?;
        let live = self.live.clone();
        let answer = self
            .run("workspace_bootstrap", ctx, Lane::Compute, move |cancel| {
                live.bootstrap(cancel, &budget).map_err(read_error)
            })
            .await?;
        Ok(Rendered {
            text: answer.text.clone(),
            data: answer,
        })
    }
}
