//! `explore`: one answer to a question about the code from the terms it names
//! (identifiers, definitions' names, paths, or the question in words): the definitions' source grouped by file, the
//! call paths between them and what depends on them, under one token budget (8,000 unless
//! the call says otherwise, capped by the server's limit).
//!
//! Invariant: the text content is exactly the text `tokens` counts, within the budget;
//! terms are matched against indexed names and paths only, never opened as paths.

use rmcp::{RoleServer, model::JsonObject, service::RequestContext, tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

use super::{Lane, SextantServer, parse_args, read_error};
use crate::{
    ide::{Encoding, ExploreAnswer, ExploreQuery},
    mcp::{
        ErrorCode, ToolError,
        answers::Rendered,
        budget::budget,
        schema::{input_schema, output_schema},
    },
    workspace::live::Snapshot,
};

/// The budget of a call that names none (the server's cap may lower it).
const DEFAULT_MAX_TOKENS: u32 = 8_000;
/// Terms one call may name.
const MAX_TERMS: usize = 50;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExploreArgs {
    /// What the question names: identifiers or definitions' names (`parse`,
    /// `Parser.parse`, `Type::method`), workspace-relative files, or the question in
    /// words (read into definitions' names); 1 to 50.
    #[schemars(length(min = 1, max = 50), inner(length(min = 1, max = 1024)))]
    pub terms: Vec<String>,
    /// At most this many tokens (default 8000, capped by the server's limit).
    #[schemars(range(min = 1))]
    pub max_tokens: Option<u32>,
    /// The encoding tokens are counted in (default `o200k_base`).
    pub encoding: Option<Encoding>,
}

#[tool_router(router = explore_router, vis = "pub(super)")]
impl SextantServer {
    #[tool(
        description = "One read for a question (`terms`: names, files or plain words): the definitions named (source by file), call paths between them, their dependents.",
        input_schema = input_schema::<ExploreArgs>(),
        output_schema = output_schema::<ExploreAnswer>(),
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn explore(
        &self,
        args: JsonObject,
        ctx: RequestContext<RoleServer>,
    ) -> Result<Rendered<ExploreAnswer>, rmcp::model::CallToolResult> {
        let args: ExploreArgs = parse_args(args)?;
        let invalid = |message: String| ToolError::new(ErrorCode::InvalidArgument, message);
        if args.terms.is_empty() || args.terms.len() > MAX_TERMS {
            return Err(invalid(format!(
                "give 1 to {MAX_TERMS} terms, got {}",
                args.terms.len()
            ))
            .into());
        }
        if let Some(bad) = args
            .terms
            .iter()
            .find(|t| t.trim().is_empty() || t.chars().count() > 1024)
        {
            return Err(invalid(format!("a term is 1 to 1024 characters, got {:?}", bad)).into());
        }
        let budget = budget(
            &self.limits,
            args.max_tokens.or(Some(DEFAULT_MAX_TOKENS)),
            args.encoding,
        )?;
        let query = ExploreQuery {
            terms: args.terms,
            budget,
        };
        let live = self.live.clone();
        self.run("explore", ctx, Lane::Compute, move |cancel| {
            let answer = live
                .read(cancel, |s: &Snapshot| s.analysis.explore(&query))
                .map_err(read_error)?;
            if answer.not_found.len() == query.terms.len() {
                return Err(ToolError::new(
                    ErrorCode::NotFound,
                    format!(
                        "no term names a definition or a file: {}",
                        answer.not_found.join(", ")
                    ),
                ));
            }
            Ok(Rendered {
                text: answer.text.clone(),
                data: answer,
            })
        })
        .await
    }
}
