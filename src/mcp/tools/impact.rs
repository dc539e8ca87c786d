//! `impact` and `affected_tests`: what depends on definitions, files or lines,
//! transitively and nearest first, with the tests among them marked; `affected_tests`
//! lists only the tests. The text content is the answer for a model, cut to a token budget
//! (farthest entries first); the structured content holds the same entries.
//!
//! Invariant: every path is workspace-relative inside the root (`paths::resolve`) and
//! names only indexed files; a name of several definitions is refused with the
//! candidates, never guessed.

use rmcp::{RoleServer, model::JsonObject, service::RequestContext, tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Lane, SextantServer, in_range, parse_args, paths, read_error};
use crate::{
    ide::{
        DEFAULT_IMPACT_DEPTH, DEFAULT_IMPACT_LIMIT, Encoding, Impact, ImpactEntry, ImpactError,
        ImpactQuery, ImpactSeed, SymbolEditTarget,
    },
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
/// Targets one call may name, in all.
const MAX_TARGETS: usize = 200;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ImpactArgs {
    /// Definitions by name: `f`, `module.f`, `Class.method`, `Type::method`.
    #[schemars(length(max = 200), inner(length(min = 1, max = 1024)))]
    pub symbols: Option<Vec<String>>,
    /// Workspace files or directories: every definition in them, and the files importing
    /// them.
    #[schemars(length(max = 200), inner(length(min = 1, max = 1024)))]
    pub paths: Option<Vec<String>>,
    /// Changed lines: the innermost definition around each line (a line outside every
    /// definition stands for its file's top level).
    #[schemars(length(max = 200))]
    pub lines: Option<Vec<LineRange>>,
    /// Steps to follow (default 20).
    #[schemars(range(min = 0, max = 100))]
    pub depth: Option<u32>,
    /// At most this many entries listed (default 200; all are counted).
    #[schemars(range(min = 1, max = 10000))]
    pub limit: Option<u32>,
    /// At most this many tokens of text (default 4000, capped by the server's limit).
    #[schemars(range(min = 1))]
    pub max_tokens: Option<u32>,
    /// The encoding tokens are counted in (default `o200k_base`).
    pub encoding: Option<Encoding>,
    /// Follow exact uses only (default false: calls matched by name on receivers of
    /// unknown type are followed too, their dependents marked `heuristic`).
    pub exact: Option<bool>,
}

/// Lines `start` to `end` (1-based, inclusive) of a workspace file.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LineRange {
    pub path: String,
    #[schemars(range(min = 1))]
    pub start: u32,
    #[schemars(range(min = 1))]
    pub end: u32,
}

/// The structured content; the text content is the same answer as text.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct ImpactData {
    /// The exact tokens of the text content.
    pub tokens: usize,
    pub encoding: Encoding,
    pub max_tokens: usize,
    /// What the walk started from.
    pub seeds: Vec<ImpactEntry>,
    /// What depends on them, nearest first (`affected_tests`: the tests only).
    pub dependents: Vec<ImpactEntry>,
    /// Dependents in all, files holding one, and tests among them, listed or not.
    pub total: usize,
    pub files: usize,
    pub tests: usize,
    /// Dependents reached only through calls matched by name, in all.
    pub heuristic: usize,
    /// Entries were left out (`limit` or the budget).
    pub truncated: bool,
}

impl ImpactData {
    fn rendered(impact: Impact, encoding: Encoding, max_tokens: usize) -> Rendered<Self> {
        Rendered {
            data: ImpactData {
                tokens: impact.tokens.unwrap_or_default(),
                encoding,
                max_tokens,
                seeds: impact.seeds,
                dependents: impact.dependents,
                total: impact.total,
                files: impact.files,
                tests: impact.tests,
                heuristic: impact.heuristic,
                truncated: impact.truncated,
            },
            text: impact.text,
        }
    }
}

#[tool_router(router = impact_router, vis = "pub(super)")]
impl SextantServer {
    #[tool(
        description = "What depends on definitions (`symbols`), files or directories (`paths`) or changed `lines`, transitively, nearest first, each with what it uses; tests marked.",
        input_schema = input_schema::<ImpactArgs>(),
        output_schema = output_schema::<ImpactData>(),
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn impact(
        &self,
        args: JsonObject,
        ctx: RequestContext<RoleServer>,
    ) -> Result<Rendered<ImpactData>, rmcp::model::CallToolResult> {
        self.impact_of("impact", parse_args(args)?, false, ctx)
            .await
    }

    #[tool(
        description = "The tests (by each language's conventions) that can reach definitions (`symbols`), files (`paths`) or changed `lines`: what to run after a change.",
        input_schema = input_schema::<ImpactArgs>(),
        output_schema = output_schema::<ImpactData>(),
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn affected_tests(
        &self,
        args: JsonObject,
        ctx: RequestContext<RoleServer>,
    ) -> Result<Rendered<ImpactData>, rmcp::model::CallToolResult> {
        self.impact_of("affected_tests", parse_args(args)?, true, ctx)
            .await
    }
}

impl SextantServer {
    async fn impact_of(
        &self,
        tool: &'static str,
        args: ImpactArgs,
        tests_only: bool,
        ctx: RequestContext<RoleServer>,
    ) -> Result<Rendered<ImpactData>, rmcp::model::CallToolResult> {
        let budget = budget(
            &self.limits,
            args.max_tokens.or(Some(DEFAULT_MAX_TOKENS)),
            args.encoding,
        )?;
        let max_depth = in_range("depth", args.depth, 0, 100, DEFAULT_IMPACT_DEPTH)? as u32;
        let limit = in_range("limit", args.limit, 1, 10_000, DEFAULT_IMPACT_LIMIT as u32)?;
        let (symbols, paths_given, lines) = (
            args.symbols.unwrap_or_default(),
            args.paths.unwrap_or_default(),
            args.lines.unwrap_or_default(),
        );
        let count = symbols.len() + paths_given.len() + lines.len();
        if count == 0 || count > MAX_TARGETS {
            return Err(invalid(&format!(
                "give 1 to {MAX_TARGETS} targets in `symbols`, `paths` and `lines`, got {count}"
            ))
            .into());
        }
        let exact = args.exact.unwrap_or(false);
        let live = self.live.clone();
        self.run(tool, ctx, Lane::Compute, move |cancel| {
            let mut seeds: Vec<ImpactSeed> = symbols
                .into_iter()
                .map(|name| {
                    ImpactSeed::Definition(SymbolEditTarget::Name {
                        name,
                        path_prefix: None,
                    })
                })
                .collect();
            for path in paths_given {
                seeds.push(ImpactSeed::Path(paths::resolve(live.root(), &path)?.0));
            }
            for range in lines {
                if range.start == 0 || range.end < range.start {
                    return Err(invalid("a line range has 1 <= start <= end"));
                }
                let path = paths::resolve(live.root(), &range.path)?.0;
                seeds.push(ImpactSeed::Lines {
                    path,
                    start: range.start,
                    end: range.end,
                });
            }
            let query = ImpactQuery {
                seeds,
                max_depth,
                limit,
                tests_only,
                exact,
                budget: Some(budget),
            };
            let impact = live
                .read(cancel, |s: &Snapshot| s.analysis.impact(&query))
                .map_err(read_error)?
                .map_err(impact_error)?;
            Ok(ImpactData::rendered(
                impact,
                budget.encoding,
                budget.max_tokens,
            ))
        })
        .await
    }
}

fn invalid(message: &str) -> ToolError {
    ToolError::new(ErrorCode::InvalidArgument, message)
}

fn impact_error(error: ImpactError) -> ToolError {
    let candidates = match &error {
        ImpactError::Ambiguous(ambiguity) => Some(ambiguity.candidates.clone()),
        _ => None,
    };
    ToolError::failed(error).with_places("candidates", candidates.as_ref())
}
