//! `impact` and `affected_tests`: what depends on definitions, files or lines,
//! transitively and nearest first, with the tests among them marked; `affected_tests`
//! lists only the tests. The text content is the answer for a model, cut to a token budget
//! (farthest entries first); the structured content holds the same entries.
//!
//! On a server of several roots, a call given neither `root` nor `paths` is answered by
//! the root its seeds are in: the one defining each name, holding each line range's path.
//!
//! Invariant: every path is workspace-relative inside the root (`paths::resolve`) and
//! names only indexed files; a name of several definitions (in a root or over several) is
//! refused with the candidates, never guessed; dependents never cross roots, so seeds in
//! several roots are refused.

use rmcp::{RoleServer, model::JsonObject, service::RequestContext, tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Lane, SextantServer, in_range, parse_args, paths, read_error};
use crate::{
    ide::{
        Candidate, DEFAULT_IMPACT_DEPTH, DEFAULT_IMPACT_LIMIT, Encoding, Impact, ImpactEntry,
        ImpactError, ImpactQuery, ImpactSeed, SymbolEditTarget,
    },
    mcp::{
        ErrorCode, ToolError,
        answers::Rendered,
        budget::budget,
        roots::{self, RootPart, Roots},
        schema::{input_schema, output_schema},
    },
    workspace::live::{RequestCancel, Snapshot},
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
    /// Asked of every root: the root the seeds are in, which the text's first line names.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub root: Option<String>,
    /// Asked of every root with names: each root, in order, with `error` when it did not
    /// answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub roots: Option<Vec<RootPart>>,
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
                root: None,
                roots: None,
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
        let (every_root, roots) = (self.every_root, self.roots.clone());
        let patience = self.limits.request_timeout() * 3 / 4;
        let live = self.live.clone();
        self.run(tool, ctx, Lane::Compute, move |cancel| {
            let (live, root, parts, budget_here) = match every_root {
                false => (live, None, None, budget),
                true => {
                    let (index, parts) = root_of_seeds(&roots, cancel, patience, &symbols, &lines)?;
                    let root = roots.names().swap_remove(index);
                    let room = roots::room_for_heading(&root, budget);
                    (roots.live(index).clone(), Some(root), parts, room)
                }
            };
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
                budget: Some(budget_here),
            };
            let impact = live
                .read(cancel, |s: &Snapshot| s.analysis.impact(&query))
                .map_err(read_error)?
                .map_err(impact_error)?;
            let mut rendered = ImpactData::rendered(impact, budget.encoding, budget.max_tokens);
            if let Some(root) = root {
                let (text, tokens) = (&mut rendered.text, &mut rendered.data.tokens);
                roots::titled(&root, text, tokens, budget);
                rendered.data.root = Some(root);
                rendered.data.roots = parts;
            }
            Ok(rendered)
        })
        .await
    }
}

/// The root an impact asked of every root is computed in (its index) and, when names were
/// looked up, how each root took part: the one root defining each name, once
/// ([`roots::sole_definer`]), and holding each line range's path. Refused: a name no root
/// defines (`NOT_FOUND`), one several roots define or one defines several times
/// (`AMBIGUOUS_SYMBOL`, every candidate with its root), seeds in several roots
/// (`INVALID_ARGUMENT`: dependents never cross roots).
fn root_of_seeds(
    roots: &Roots,
    cancel: &RequestCancel,
    patience: std::time::Duration,
    symbols: &[String],
    lines: &[LineRange],
) -> Result<(usize, Option<Vec<RootPart>>), ToolError> {
    let names = roots.names();
    let mut chosen: Vec<(&str, usize)> = lines
        .iter()
        .map(|range| (range.path.as_str(), roots.index_for_path(&range.path)))
        .collect();
    if symbols.is_empty() {
        return Ok((chosen.first().map_or(0, |(_, root)| *root), None));
    }
    let asked = roots::answered(roots.ask_every(cancel, patience, |live, cancel| {
        live.read(cancel, |s: &Snapshot| {
            symbols
                .iter()
                .map(|name| s.analysis.definitions_named(name, None))
                .collect::<Result<Vec<_>, _>>()
        })
        .map_err(read_error)
    }))?;
    // Each root's definitions of each name, none for a root that did not answer.
    let found: Vec<Vec<Vec<Candidate>>> = asked
        .iter()
        .map(|(root, answer)| match answer {
            Ok(per_name) => per_name
                .iter()
                .map(|candidates| {
                    let mut candidates = candidates.clone();
                    for candidate in &mut candidates {
                        candidate.root = Some(root.clone());
                    }
                    candidates
                })
                .collect(),
            Err(_) => vec![Vec::new(); symbols.len()],
        })
        .collect();
    let (_, parts) = roots::split(asked, |_| None);
    for (i, name) in symbols.iter().enumerate() {
        let definitions: Vec<Vec<Candidate>> = found.iter().map(|f| f[i].clone()).collect();
        match roots::sole_definer(&definitions) {
            Some(root) => chosen.push((name, root)),
            None if definitions.iter().all(Vec::is_empty) => {
                let error =
                    ToolError::new(ErrorCode::NotFound, format!("no root defines `{name}`"));
                return Err(roots::not_defined(error, &parts));
            }
            None => {
                let candidates = definitions.concat();
                let message = format!(
                    "`{name}` names {} definitions in the roots; name one with `root`",
                    candidates.len()
                );
                return Err(ToolError::new(ErrorCode::AmbiguousSymbol, message)
                    .with_places("candidates", Some(&candidates)));
            }
        }
    }
    let root = chosen[0].1;
    if chosen.iter().any(|(_, other)| *other != root) {
        let places: Vec<String> = chosen
            .iter()
            .map(|(seed, root)| format!("{seed}: {}", names[*root]))
            .collect();
        let message = format!(
            "the seeds are in several roots ({}); dependents never cross roots: ask each with `root`",
            places.join(", ")
        );
        return Err(invalid(&message));
    }
    Ok((root, Some(parts)))
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
