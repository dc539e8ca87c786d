//! `call_graph`: who calls a function, method or class and what it calls, to a depth,
//! as a tree for the model (text content) and nodes and edges for programs (structured
//! content), cut to a token budget (the farthest edges go first).
//!
//! On a server of several roots, a name asked of no root is looked up in every root: the
//! graph is the one root's that defines the name, its text opening with a line naming the
//! root; a name several roots define is refused as one a root defines twice is.
//!
//! Invariant: the text content is exactly the text `tokens` counts, within the call's
//! budget; a target is a name (`query`) or a position (`path`+`line`+`column`) inside the
//! root, and a name of several definitions (in one root or over several) is refused with
//! the candidates, never guessed.

use rmcp::{RoleServer, model::JsonObject, service::RequestContext, tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{
    Lane, SextantServer, in_range, name_or_position, offset_of, parse_args, paths, read_error,
};
use crate::{
    ide::{
        self, Budget, CallDirection, CallGraph, CallGraphError, CallGraphQuery, Candidate,
        Certainty, DEFAULT_CALL_GRAPH_NODES, EdgeKind, Encoding, MAX_CALL_DEPTH, SymbolEditTarget,
        SymbolKind, Target,
    },
    mcp::{
        ToolError,
        answers::Rendered,
        budget::budget,
        roots::{self, RootPart},
        schema::{input_schema, output_schema},
    },
    workspace::live::{LiveWorkspace, RequestCancel, Snapshot},
};

/// The budget of a call that names none (the server's cap may lower it).
const DEFAULT_MAX_TOKENS: u32 = 4_000;
/// The most definitions one answer may hold.
const MAX_NODES: u32 = 1_000;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CallGraphArgs {
    /// The function, method or class by name (`f`, `module.f`, `Class.method`,
    /// `Type::method`). Or give `path`, `line` and `column`.
    #[schemars(length(min = 1, max = 1024))]
    pub query: Option<String>,
    /// With `query`: only definitions in files under this workspace-relative prefix.
    pub path_prefix: Option<String>,
    /// The file (with `line` and `column`): the function named there (a definition or a
    /// call), else the innermost function, method or class around the position.
    pub path: Option<String>,
    /// 1-based line.
    #[schemars(range(min = 1))]
    pub line: Option<u32>,
    /// 1-based column in characters.
    #[schemars(range(min = 1))]
    pub column: Option<u32>,
    /// `incoming` (who calls it), `outgoing` (what it calls) or `both` (default).
    pub direction: Option<CallDirection>,
    /// Steps from the target, 1 (default) to 10.
    #[schemars(range(min = 1, max = 10))]
    pub depth: Option<u32>,
    /// Leave out calls matched by name alone on a receiver of unknown type (default false).
    pub exact_only: Option<bool>,
    /// At most this many definitions, the target included (default 100, at most 1000).
    #[schemars(range(min = 1, max = 1000))]
    pub max_nodes: Option<u32>,
    /// At most this many tokens of text (default 4000, capped by the server's limit).
    #[schemars(range(min = 1))]
    pub max_tokens: Option<u32>,
    /// The encoding tokens are counted in (default `o200k_base`).
    pub encoding: Option<Encoding>,
}

/// A definition of the graph; `nodes[0]` is the target.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct CallNode {
    pub name: String,
    /// `function`, `method`, `class`, …; `module` for a file's top level.
    pub kind: SymbolKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub container: Option<String>,
    pub path: String,
    /// The lines of the definition (1-based).
    pub line: u32,
    pub end_line: u32,
}

/// A site: 1-based line and column (in characters) of the callee's name in the caller.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct CallSiteEntry {
    pub line: u32,
    pub column: u32,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct CallEdgeEntry {
    /// Indices into `nodes`.
    pub caller: usize,
    pub callee: usize,
    /// `call`, or `reference`: named without being called (a callback).
    pub kind: EdgeKind,
    /// `exact`, or `heuristic`: a method matched by name on a receiver of unknown type.
    pub certainty: Certainty,
    /// Steps from the target.
    pub distance: u32,
    /// In the caller's file.
    pub sites: Vec<CallSiteEntry>,
}

/// The structured content: the graph; the text content is the same as a tree.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct CallGraphData {
    /// The exact tokens of the text content.
    pub tokens: usize,
    pub encoding: Encoding,
    pub max_tokens: usize,
    pub direction: CallDirection,
    pub depth: u32,
    pub nodes: Vec<CallNode>,
    pub edges: Vec<CallEdgeEntry>,
    /// Definitions or edges were left out (`max_nodes` or the budget).
    pub truncated: bool,
    /// Asked of every root: the root whose definition of the name the graph starts from
    /// (edges never cross roots), which the text's first line names.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub root: Option<String>,
    /// Asked of every root: each root, in order, with `error` when it did not answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub roots: Option<Vec<RootPart>>,
}

impl CallGraphData {
    fn rendered(graph: CallGraph, encoding: Encoding, max_tokens: usize) -> Rendered<Self> {
        let nodes = graph
            .nodes
            .iter()
            .map(|item| CallNode {
                name: item.name.clone(),
                kind: item.kind,
                container: item.container.clone(),
                path: item.path.clone(),
                line: item.span.start.line,
                end_line: item.span.end.line,
            })
            .collect();
        let edges = graph
            .edges
            .iter()
            .map(|edge| CallEdgeEntry {
                caller: edge.caller,
                callee: edge.callee,
                kind: edge.kind,
                certainty: edge.certainty,
                distance: edge.distance,
                sites: edge
                    .sites
                    .iter()
                    .map(|s| CallSiteEntry {
                        line: s.start.line,
                        column: s.start.column,
                    })
                    .collect(),
            })
            .collect();
        Rendered {
            data: CallGraphData {
                tokens: graph.tokens.unwrap_or_default(),
                encoding,
                max_tokens,
                direction: graph.direction,
                depth: graph.depth,
                nodes,
                edges,
                truncated: graph.truncated,
                root: None,
                roots: None,
            },
            text: graph.text,
        }
    }

    /// The one graph a name asked of every root stands for ([`roots::sole_definer`]): the
    /// graph of the one root defining it as a callable, its text opening with the line
    /// [`roots::heading`] (which each root's budget left room for); `AMBIGUOUS_SYMBOL` with
    /// every root's candidates when several roots do, or one does several times.
    fn across(
        asked: roots::Answers<Result<CallGraph, CallGraphError>>,
        budget: Budget,
    ) -> Result<Rendered<Self>, ToolError> {
        // A root over the budget failed the call before this (`call_graph`'s `fails`).
        let (answered, parts) = roots::split(asked, |_| None);
        let mut graphs: Vec<(String, Result<CallGraph, CallGraphError>)> = answered;
        let definitions: Vec<Vec<Candidate>> = graphs
            .iter()
            .map(|(root, graph)| {
                let mut found = match graph {
                    Ok(graph) => vec![start_candidate(graph)],
                    Err(CallGraphError::Ambiguous(ambiguity)) => ambiguity.candidates.clone(),
                    Err(_) => Vec::new(),
                };
                for candidate in &mut found {
                    candidate.root = Some(root.clone());
                }
                found
            })
            .collect();
        if let Some(sole) = roots::sole_definer(&definitions) {
            let (root, graph) = graphs.swap_remove(sole);
            // One definition is one graph; an ambiguity naming a single candidate (which
            // no root gives) is reported as the root gave it rather than trusted away.
            let graph = graph.map_err(graph_error)?;
            let mut rendered = Self::rendered(graph, budget.encoding, budget.max_tokens);
            let (text, tokens) = (&mut rendered.text, &mut rendered.data.tokens);
            roots::titled(&root, text, tokens, budget);
            rendered.data.root = Some(root);
            rendered.data.roots = Some(parts);
            return Ok(rendered);
        }
        let candidates = definitions.concat();
        if candidates.is_empty() {
            // No root defines a callable of that name: the first root's reason.
            let error = match graphs.into_iter().find_map(|(_, graph)| graph.err()) {
                Some(error) => graph_error(error),
                None => ToolError::new(crate::mcp::ErrorCode::NoSymbol, "no root answered"),
            };
            return Err(roots::not_defined(error, &parts));
        }
        let name = graphs
            .iter()
            .find_map(|(_, graph)| match graph {
                Ok(graph) => Some(graph.nodes[0].name.clone()),
                Err(CallGraphError::Ambiguous(ambiguity)) => Some(ambiguity.name.clone()),
                Err(_) => None,
            })
            .unwrap_or_default();
        Err(graph_error(CallGraphError::Ambiguous(ide::Ambiguity {
            name,
            candidates,
        })))
    }
}

/// A graph's start as a candidate of an ambiguous name.
fn start_candidate(graph: &CallGraph) -> Candidate {
    let start = &graph.nodes[0];
    Candidate {
        path: start.path.clone(),
        root: None,
        line: start.name_span.start.line,
        kind: start.kind.to_string(),
    }
}

#[tool_router(router = call_graph_router, vis = "pub(super)")]
impl SextantServer {
    #[tool(
        description = "Who calls a function, method or class and what it calls, to `depth`: call or callback edges, exact or heuristic, with sites. By `query` or position.",
        input_schema = input_schema::<CallGraphArgs>(),
        output_schema = output_schema::<CallGraphData>(),
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn call_graph(
        &self,
        args: JsonObject,
        ctx: RequestContext<RoleServer>,
    ) -> Result<Rendered<CallGraphData>, rmcp::model::CallToolResult> {
        let args: CallGraphArgs = parse_args(args)?;
        let budget = budget(
            &self.limits,
            args.max_tokens.or(Some(DEFAULT_MAX_TOKENS)),
            args.encoding,
        )?;
        let target = name_or_position(&args.query, &args.path, args.line, args.column)?;
        if args.path_prefix.is_some() && !matches!(target, Target::Name(_)) {
            return Err(ToolError::new(
                crate::mcp::ErrorCode::InvalidArgument,
                "`path_prefix` goes with `query`",
            )
            .into());
        }
        let depth = in_range("depth", args.depth, 1, MAX_CALL_DEPTH, 1)? as u32;
        let max_nodes = in_range(
            "max_nodes",
            args.max_nodes,
            1,
            MAX_NODES,
            DEFAULT_CALL_GRAPH_NODES as u32,
        )?;
        let (direction, exact_only) = (args.direction.unwrap_or_default(), args.exact_only);
        let path_prefix = args.path_prefix;
        let query = move |target: SymbolEditTarget, budget: Budget| CallGraphQuery {
            target,
            direction,
            depth,
            exact_only: exact_only.unwrap_or(false),
            max_nodes,
            budget: Some(budget),
        };
        if let (true, Target::Name(name)) = (self.every_root, &target) {
            let target = SymbolEditTarget::Name {
                name: name.clone(),
                path_prefix,
            };
            let roots = self.roots.clone();
            let ask = move |live: &LiveWorkspace, cancel: &RequestCancel| {
                // Room for the line naming the root the graph is in.
                let room = roots::room_for_heading(&roots.names()[roots.index_of(live)], budget);
                live.read(cancel, |s: &Snapshot| {
                    s.analysis.call_graph(&query(target.clone(), room))
                })
                .map_err(read_error)
            };
            // Not even a start fits: the budget is the call's, whichever root's start it is.
            let fails = move |_, answer: &Result<Result<CallGraph, CallGraphError>, ToolError>| {
                matches!(answer, Ok(Err(CallGraphError::OverBudget(_))))
                    .then(|| graph_error(CallGraphError::OverBudget(budget.max_tokens)))
            };
            let merge = move |asked| CallGraphData::across(asked, budget);
            return self
                .run_on_every_root_until("call_graph", ctx, ask, fails, merge)
                .await;
        }
        let live = self.live.clone();
        self.run("call_graph", ctx, Lane::Compute, move |cancel| {
            let located = match target {
                Target::Name(name) => Located::Name(name),
                Target::Position { path, line, column } => {
                    let (rel, _) = paths::resolve(live.root(), &path)?;
                    Located::Position(rel, line, column)
                }
            };
            let graph = live
                .read(cancel, |s: &Snapshot| {
                    let target = match &located {
                        Located::Name(name) => SymbolEditTarget::Name {
                            name: name.clone(),
                            path_prefix: path_prefix.clone(),
                        },
                        Located::Position(rel, line, column) => {
                            let Some(file) = s.file(rel) else {
                                let message = format!("{rel} is not indexed");
                                return Ok(Err(CallGraphError::NotFound(message)));
                            };
                            SymbolEditTarget::Position {
                                path: rel.clone(),
                                offset: offset_of(&s.analysis, file, *line, *column)?,
                            }
                        }
                    };
                    s.analysis.call_graph(&query(target, budget))
                })
                .map_err(read_error)?
                .map_err(graph_error)?;
            Ok(CallGraphData::rendered(
                graph,
                budget.encoding,
                budget.max_tokens,
            ))
        })
        .await
    }
}

/// Where the graph starts, as the arguments say it.
enum Located {
    Name(String),
    Position(String, u32, u32),
}

fn graph_error(error: CallGraphError) -> ToolError {
    let candidates = match &error {
        CallGraphError::Ambiguous(ambiguity) => Some(ambiguity.candidates.clone()),
        _ => None,
    };
    ToolError::failed(error).with_places("candidates", candidates.as_ref())
}
