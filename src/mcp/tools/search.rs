//! `search`: literal or regex text search over the workspace's indexed files, answered as
//! `rg -n --heading` text (what the model reads) with the same hits as structured data.
//!
//! Invariant: the pattern is literal unless `regex` is true (an agent's pattern is usually
//! a piece of code, full of `(`, `.` and `[`); paths are workspace-relative and confined
//! by `paths::resolve`; the text never exceeds the call's token budget, and when hits are
//! left out it ends with the `offset` to continue from (also `next_offset` in the data).
//! Asked of every root, the page is one over all their hits, under the one budget.

use rmcp::{
    RoleServer, handler::server::router::tool::ToolRouter, model::JsonObject,
    service::RequestContext, tool, tool_router,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Lane, SextantServer, in_range, parse_args, read_error};
use crate::{
    ide::{self, CaseMode, Encoding, SearchAnswer, SearchQuery, SearchRegion},
    mcp::{
        ErrorCode, ToolError,
        answers::Rendered,
        budget::budget,
        paths,
        roots::{self, RootPart},
        schema::{input_schema, output_schema},
    },
    workspace::live::{Snapshot, WhileIndexing},
};

/// `search`'s answer: the page, and, asked of every root, how each root took part.
#[derive(Debug, Serialize, JsonSchema)]
pub struct SearchResult {
    #[serde(flatten)]
    pub page: SearchAnswer,
    /// Asked of every root (no `root` given, on a server of several): each root, in order,
    /// with `error` when it did not answer (its hits are missing).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub roots: Option<Vec<RootPart>>,
}

/// The most paths a call names.
const MAX_PATHS: usize = 32;
/// The longest path or glob a call names, in bytes.
const MAX_PATH_BYTES: usize = 1000;

// How letters compare (plain comments: a documented variant would turn the schema's
// `enum` into a `oneOf`).
#[derive(Clone, Copy, Debug, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CaseArg {
    #[default]
    Sensitive,
    Insensitive,
    // Insensitive unless the pattern has an upper-case letter.
    Smart,
}

// Which part of the code a match must be in.
#[derive(Clone, Copy, Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum OnlyArg {
    Code,
    Comments,
    Strings,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchArgs {
    /// The text to find: literal by default; a regular expression (Rust/ripgrep syntax)
    /// with `regex: true`. Matches never cross a line end.
    #[schemars(length(min = 1, max = 1000))]
    pub pattern: String,
    /// `pattern` is a regular expression (default false: a literal text).
    pub regex: Option<bool>,
    /// `sensitive` (default), `insensitive`, or `smart` (insensitive unless the pattern has
    /// an upper-case letter).
    pub case: Option<CaseArg>,
    /// Only whole-word matches (default false).
    pub word: Option<bool>,
    /// Workspace-relative files or directories to search (default: every indexed file).
    #[schemars(length(max = 32))]
    pub paths: Option<Vec<String>>,
    /// ripgrep `-g` globs: `*.py`, `src/**/*.ts`; `!tests` leaves files out. A glob
    /// without `/` matches any path component.
    #[schemars(length(max = 32))]
    pub globs: Option<Vec<String>>,
    /// Lines of context before and after each matching line (default 0).
    #[schemars(range(min = 0, max = 20))]
    pub context: Option<u32>,
    /// Only matches in `code` (outside comments and strings), `comments` or `strings`.
    pub only: Option<OnlyArg>,
    /// At most this many matching lines (default 50).
    #[schemars(range(min = 1, max = 1000))]
    pub limit: Option<u32>,
    /// Skip this many matching lines first: a cut answer's `next_offset`.
    #[schemars(range(min = 0))]
    pub offset: Option<u32>,
    /// Cut the text to at most this many tokens (capped by the server's limit).
    #[schemars(range(min = 1))]
    pub max_tokens: Option<u32>,
    /// The encoding tokens are counted in (default `o200k_base`).
    pub encoding: Option<Encoding>,
}

fn bounded_strings(name: &str, list: Option<Vec<String>>) -> Result<Vec<String>, ToolError> {
    let list = list.unwrap_or_default();
    if list.len() > MAX_PATHS {
        return Err(ToolError::new(
            ErrorCode::InvalidArgument,
            format!("{name}: at most {MAX_PATHS}, got {}", list.len()),
        ));
    }
    if let Some(long) = list.iter().find(|s| s.len() > MAX_PATH_BYTES) {
        return Err(ToolError::new(
            ErrorCode::InvalidArgument,
            format!(
                "{name}: each at most {MAX_PATH_BYTES} bytes, got {}",
                long.len()
            ),
        ));
    }
    Ok(list)
}

#[tool_router(router = search_router, vis = "pub(super)")]
impl SextantServer {
    #[tool(
        description = "Text search (literal, or regex with `regex: true`) like `rg -n`: hits by file with context and enclosing definition, paged and cut to `max_tokens`.",
        input_schema = input_schema::<SearchArgs>(),
        output_schema = output_schema::<SearchResult>(),
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn search(
        &self,
        args: JsonObject,
        ctx: RequestContext<RoleServer>,
    ) -> Result<Rendered<SearchResult>, rmcp::model::CallToolResult> {
        let args: SearchArgs = parse_args(args)?;
        let budget = budget(&self.limits, args.max_tokens, args.encoding)?;
        let context = in_range("context", args.context, 0, 20, 0)?;
        let limit = in_range("limit", args.limit, 1, 1000, 50)?;
        let user_paths = bounded_strings("paths", args.paths)?;
        let globs = bounded_strings("globs", args.globs)?;
        let mut query = SearchQuery {
            pattern: args.pattern,
            fixed_strings: !args.regex.unwrap_or(false),
            case: match args.case.unwrap_or_default() {
                CaseArg::Sensitive => CaseMode::Sensitive,
                CaseArg::Insensitive => CaseMode::Insensitive,
                CaseArg::Smart => CaseMode::Smart,
            },
            word: args.word.unwrap_or(false),
            only: args.only.map(|only| match only {
                OnlyArg::Code => SearchRegion::Code,
                OnlyArg::Comments => SearchRegion::Comments,
                OnlyArg::Strings => SearchRegion::Strings,
            }),
            paths: Vec::new(),
            globs,
            before: context,
            after: context,
            limit,
            offset: args.offset.unwrap_or(0) as usize,
        };
        if self.every_root {
            // Roots selected with no path given: the query's refusals are the same in every root.
            ide::check_search(&query).map_err(ToolError::failed)?;
            let asked = query.clone();
            let answer = self
                .run_on_every_root(
                    "search",
                    ctx,
                    move |live, cancel| {
                        live.read_early(cancel, WhileIndexing::Answer, |s: &Snapshot| {
                            s.analysis.search_hits(&asked)
                        })
                        .map_err(read_error)?
                        .map_err(ToolError::failed)
                    },
                    move |answers| search_every_root(answers, &query, budget),
                )
                .await?;
            return Ok(Rendered {
                text: answer.page.text.clone(),
                data: answer,
            });
        }
        let live = self.live.clone();
        let page = self
            .run("search", ctx, Lane::Compute, move |cancel| {
                for path in &user_paths {
                    query.paths.push(paths::resolve(live.root(), path)?.0);
                }
                // Texts and each hit's enclosing definition, computed per file on demand.
                live.read_early(cancel, WhileIndexing::Answer, |s: &Snapshot| {
                    s.analysis.search(&query, budget)
                })
                .map_err(read_error)?
                .map_err(ToolError::failed)
            })
            .await?;
        Ok(Rendered {
            text: page.text.clone(),
            data: SearchResult { page, roots: None },
        })
    }
}

/// One page over the hits of every root that answered, its text opening with a line for
/// each root that did not.
fn search_every_root(
    asked: roots::Answers<ide::WorkspaceHits>,
    query: &SearchQuery,
    budget: ide::Budget,
) -> Result<SearchResult, ToolError> {
    let (parts, roots) = roots::split(asked, |_| None);
    let preamble: String = roots.iter().filter_map(RootPart::note).collect();
    let page = ide::search_across(parts, query, budget, &preamble).map_err(ToolError::failed)?;
    Ok(SearchResult {
        page,
        roots: Some(roots),
    })
}

/// The server's tools with `search`.
pub(super) fn with_search_tool(mut router: ToolRouter<SextantServer>) -> ToolRouter<SextantServer> {
    router.merge(SextantServer::search_router());
    router
}
