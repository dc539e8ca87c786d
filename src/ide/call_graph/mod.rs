//! The call graph of a function, method or class: who calls it (incoming), what it calls
//! (outgoing), to a depth, each edge a call or a reference (a callback passed by name),
//! `exact` or `heuristic`, with its sites; and the LSP call hierarchy, one step of the same
//! walk. The steps are `engine::calls`; this module names the start, walks breadth first
//! (nearest first, each definition expanded once, at most `max_nodes` definitions), and
//! turns what it finds into answers. `render` writes them as text, DOT and Mermaid.

mod render;

pub use render::{dot, mermaid};

use std::collections::HashMap;

use serde::Serialize;

use super::{
    Budget, Certainty, Span, SymbolEditTarget, navigation,
    read::{
        Ambiguity,
        pieces::{ambiguity, definition_sites, file_at},
    },
};
pub use crate::engine::calls::EdgeKind;
use crate::{
    db::{Db, SourceFile, Workspace},
    engine::calls::{self, Callable, is_callee_kind},
    semantic::{
        self,
        names::resolve::Resolver,
        symbols::{SymbolKind, file_symbols},
    },
};

/// The deepest walk one request may ask for.
pub const MAX_DEPTH: u32 = 10;
/// Definitions in one answer unless the request says otherwise.
pub const DEFAULT_MAX_NODES: usize = 100;

/// A function or method in a call hierarchy (or, for calls at the top of a file, the
/// file as a module).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct CallItem {
    pub name: String,
    pub kind: SymbolKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub container: Option<String>,
    pub path: String,
    /// The whole definition.
    pub span: Span,
    /// Its name.
    pub name_span: Span,
}

/// A caller or a callee, with where the calls are (in the caller).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Call {
    pub item: CallItem,
    pub ranges: Vec<Span>,
}

/// Which way a call graph is walked from its start.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum CallDirection {
    /// Who calls it, and who calls those.
    Incoming,
    /// What it calls, and what those call.
    Outgoing,
    #[default]
    Both,
}

impl CallDirection {
    fn walks(self, incoming: bool) -> bool {
        match self {
            CallDirection::Incoming => incoming,
            CallDirection::Outgoing => !incoming,
            CallDirection::Both => true,
        }
    }
}

#[derive(Clone, Debug)]
pub struct CallGraphQuery {
    pub target: SymbolEditTarget,
    pub direction: CallDirection,
    /// Steps from the start, 1 to [`MAX_DEPTH`].
    pub depth: u32,
    /// Leave out edges matched by name alone.
    pub exact_only: bool,
    /// At most this many definitions, the start included.
    pub max_nodes: usize,
    /// The text is cut to this budget, farthest edges first.
    pub budget: Option<Budget>,
}

/// One edge: `caller` calls (or names) `callee` at `sites`, in the caller's file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct CallEdge {
    /// Indices into [`CallGraph::nodes`].
    pub caller: usize,
    pub callee: usize,
    pub kind: EdgeKind,
    pub certainty: Certainty,
    /// Steps from the start: 1 for its own callers and callees.
    pub distance: u32,
    /// Found walking toward callers (`true`) or callees.
    pub incoming: bool,
    pub sites: Vec<Span>,
}

/// The definitions reached and the edges between them; `nodes[0]` is the start.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct CallGraph {
    pub direction: CallDirection,
    pub depth: u32,
    pub nodes: Vec<CallItem>,
    pub edges: Vec<CallEdge>,
    /// Definitions were left out: `max_nodes` reached, or edges cut to the budget.
    pub truncated: bool,
    /// The text answer (`render::text`), within the budget when there is one.
    #[serde(skip)]
    pub text: String,
    /// Its exact token count, when a budget was given.
    #[serde(skip)]
    pub tokens: Option<usize>,
}

/// Why there is no call graph.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CallGraphError {
    #[error("{0}")]
    NotFound(String),
    #[error("`{}` names {} definitions; name one by `path` and `line`", .0.name, .0.candidates.len())]
    Ambiguous(Ambiguity),
    /// The target is a definition that neither calls nor is called (a constant, a type).
    #[error("{0} is not a function, method or class")]
    NotCallable(String),
    /// Even the start alone does not fit the budget.
    #[error("not even the start fits in {0} tokens")]
    OverBudget(usize),
}

impl super::Failure for CallGraphError {
    fn code(&self) -> super::ErrorCode {
        match self {
            CallGraphError::NotFound(_) => super::ErrorCode::NoSymbol,
            CallGraphError::Ambiguous(_) => super::ErrorCode::AmbiguousSymbol,
            CallGraphError::NotCallable(_) => super::ErrorCode::InvalidTarget,
            CallGraphError::OverBudget(_) => super::ErrorCode::TooLarge,
        }
    }
}

/// The call graph `query` asks for.
pub(crate) fn call_graph(
    db: &dyn Db,
    workspace: Workspace,
    query: &CallGraphQuery,
) -> Result<CallGraph, CallGraphError> {
    let start = start_of(db, workspace, &query.target)?;
    let depth = query.depth.clamp(1, MAX_DEPTH);
    let mut walk = Walk {
        resolver: Resolver::new(db, workspace),
        nodes: vec![start],
        index: HashMap::from([(start, 0)]),
        edges: Vec::new(),
        max_nodes: query.max_nodes.max(1),
        truncated: false,
    };
    for incoming in [true, false] {
        if query.direction.walks(incoming) {
            walk.walk(start, incoming, depth, query.exact_only);
        }
    }
    let mut graph = CallGraph {
        direction: query.direction,
        depth,
        nodes: walk.nodes.iter().map(|&c| item_of(db, c)).collect(),
        edges: walk.edges,
        truncated: walk.truncated,
        text: String::new(),
        tokens: None,
    };
    match &query.budget {
        Some(budget) => render::fit(&mut graph, budget)?,
        None => graph.text = render::text(&graph),
    }
    Ok(graph)
}

/// A breadth-first walk's state: the definitions reached (each once) and the edges found.
struct Walk<'db> {
    resolver: Resolver<'db>,
    nodes: Vec<Callable>,
    index: HashMap<Callable, usize>,
    edges: Vec<CallEdge>,
    max_nodes: usize,
    truncated: bool,
}

impl Walk<'_> {
    fn walk(&mut self, start: Callable, incoming: bool, depth: u32, exact_only: bool) {
        let db = self.resolver.db();
        let mut frontier = vec![start];
        let mut expanded = vec![start];
        for distance in 1..=depth {
            let mut next = Vec::new();
            for &node in &frontier {
                let sites = match incoming {
                    true => calls::incoming(&mut self.resolver, node),
                    false => calls::outgoing(&mut self.resolver, node),
                };
                let sites = sites
                    .into_iter()
                    .filter(|s| !exact_only || s.certainty == Certainty::Exact)
                    .collect();
                for (site, ranges) in calls::grouped(sites) {
                    let other = if incoming { site.caller } else { site.callee };
                    let Some(other_index) = self.intern(other) else {
                        self.truncated = true;
                        continue;
                    };
                    let node_index = self.index[&node];
                    let (caller, callee) = match incoming {
                        true => (other_index, node_index),
                        false => (node_index, other_index),
                    };
                    let index = semantic::line_index(db, site.caller.file);
                    self.edges.push(CallEdge {
                        caller,
                        callee,
                        kind: site.kind,
                        certainty: site.certainty,
                        distance,
                        incoming,
                        sites: ranges.iter().map(|&r| Span::new(&index, r)).collect(),
                    });
                    // A top level is never called: the walk ends there.
                    if other.symbol.is_some() && !expanded.contains(&other) {
                        expanded.push(other);
                        next.push(other);
                    }
                }
            }
            frontier = next;
        }
    }

    /// The index of `node`, added if new; `None` when the answer is full.
    fn intern(&mut self, node: Callable) -> Option<usize> {
        if let Some(&i) = self.index.get(&node) {
            return Some(i);
        }
        if self.nodes.len() >= self.max_nodes {
            return None;
        }
        self.index.insert(node, self.nodes.len());
        self.nodes.push(node);
        Some(self.nodes.len() - 1)
    }
}

/// The definition a call graph starts from: the one a name names (among functions,
/// methods and classes), or, at a position, the callable named there (a definition's
/// name or a use of it), else the innermost function, method or class around it.
fn start_of(
    db: &dyn Db,
    workspace: Workspace,
    target: &SymbolEditTarget,
) -> Result<Callable, CallGraphError> {
    match target {
        SymbolEditTarget::Name { name, path_prefix } => {
            let sites = definition_sites(db, workspace, name, path_prefix.as_deref());
            let callables: Vec<_> = sites
                .iter()
                .filter_map(|site| Some((callable_named_at(db, site.0, site.1)?, site.clone())))
                .collect();
            match (callables.as_slice(), sites.first()) {
                ([(callable, _)], _) => Ok(*callable),
                ([], None) => Err(CallGraphError::NotFound(format!(
                    "no definition named `{name}`"
                ))),
                ([], Some((_, _, kind))) => {
                    Err(CallGraphError::NotCallable(format!("`{name}` ({kind})")))
                }
                (several, _) => {
                    let sites: Vec<_> = several.iter().map(|(_, site)| site.clone()).collect();
                    Err(CallGraphError::Ambiguous(ambiguity(db, name, &sites)))
                }
            }
        }
        SymbolEditTarget::Position { path, offset } => {
            let file = file_at(db, workspace, path)
                .ok_or_else(|| CallGraphError::NotFound(format!("{path} is not indexed")))?;
            if let Some(callable) = named_at(db, workspace, file, *offset) {
                return Ok(callable);
            }
            around(db, file, *offset).ok_or_else(|| {
                let line = semantic::line_index(db, file).line_col(*offset).line;
                CallGraphError::NotFound(format!("no function, method or class at {path}:{line}"))
            })
        }
    }
}

/// The callable whose definition's name starts at `offset` of `file`.
fn callable_named_at(db: &dyn Db, file: SourceFile, offset: usize) -> Option<Callable> {
    let symbols = file_symbols(db, file);
    let i = symbols
        .positions
        .iter()
        .position(|p| usize::from(p.name_range.start()) == offset)?;
    is_callee_kind(symbols.summaries[i].kind).then_some(Callable {
        file,
        symbol: Some(i as u32),
    })
}

/// The callable the name at `offset` stands for, exactly.
fn named_at(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
    offset: usize,
) -> Option<Callable> {
    navigation::definitions_at(db, workspace, file, offset)
        .into_iter()
        .filter(|(_, d)| d.certainty == Certainty::Exact)
        .find_map(|(target, definition)| {
            callable_named_at(db, target?, definition.span?.byte_start as usize)
        })
}

/// The innermost function, method or class around `offset`.
fn around(db: &dyn Db, file: SourceFile, offset: usize) -> Option<Callable> {
    let symbols = file_symbols(db, file);
    let at = crate::syntax::TextSize::from(offset as u32);
    symbols
        .summaries
        .iter()
        .zip(symbols.positions.iter())
        .enumerate()
        .filter(|(_, (s, p))| is_callee_kind(s.kind) && p.range.contains_inclusive(at))
        .min_by_key(|(_, (_, p))| p.range.len())
        .map(|(i, _)| Callable {
            file,
            symbol: Some(i as u32),
        })
}

fn item_of(db: &dyn Db, callable: Callable) -> CallItem {
    let file = callable.file;
    let Some(symbol) = callable.symbol else {
        let index = semantic::line_index(db, file);
        let whole = crate::syntax::TextRange::up_to((file.text_len(db) as u32).into());
        let path = file.path(db).clone();
        return CallItem {
            name: path.clone(),
            kind: SymbolKind::Module,
            container: None,
            path,
            span: Span::new(&index, whole),
            name_span: Span::new(&index, crate::syntax::TextRange::empty(0.into())),
        };
    };
    let symbols = file_symbols(db, file);
    let (summary, position) = (
        &symbols.summaries[symbol as usize],
        &symbols.positions[symbol as usize],
    );
    let text = &*file.text(db);
    CallItem {
        name: summary.name.to_string(),
        kind: summary.kind,
        container: summary.container.as_deref().map(str::to_owned),
        path: file.path(db).clone(),
        span: Span::from_start(text, position.range, position.start),
        name_span: Span::from_start(text, position.name_range, position.name_start),
    }
}

/// The LSP call hierarchy's item: the function or method whose name, or a use of it, is
/// at `offset`.
pub(crate) fn prepare(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
    offset: usize,
) -> Option<CallItem> {
    named_at(db, workspace, file, offset).map(|c| item_of(db, c))
}

/// Who calls the function or method named at `offset` (of `file`), grouped by caller:
/// exact calls only, as an editor lists them.
pub(crate) fn incoming(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
    offset: usize,
) -> Vec<Call> {
    let Some(callee) = named_at(db, workspace, file, offset) else {
        return Vec::new();
    };
    let mut resolver = Resolver::new(db, workspace);
    step(db, calls::incoming(&mut resolver, callee), true)
}

/// What the function or method named at `offset` of `file` calls, grouped by callee;
/// calls whose callee is not known exactly are left out.
pub(crate) fn outgoing(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
    offset: usize,
) -> Vec<Call> {
    let Some(caller) = named_at(db, workspace, file, offset) else {
        return Vec::new();
    };
    let mut resolver = Resolver::new(db, workspace);
    step(db, calls::outgoing(&mut resolver, caller), false)
}

/// Exact calls among `sites`, one `Call` per caller (`incoming`) or callee.
fn step(db: &dyn Db, sites: Vec<calls::CallSite>, incoming: bool) -> Vec<Call> {
    let sites = sites
        .into_iter()
        .filter(|s| s.kind == EdgeKind::Call && s.certainty == Certainty::Exact)
        .collect();
    let mut found: Vec<(Callable, Call)> = Vec::new();
    for (site, ranges) in calls::grouped(sites) {
        let other = if incoming { site.caller } else { site.callee };
        let index = semantic::line_index(db, site.caller.file);
        let spans = ranges.iter().map(|&r| Span::new(&index, r));
        match found.iter_mut().find(|(c, _)| *c == other) {
            Some((_, call)) => call.ranges.extend(spans),
            None => found.push((
                other,
                Call {
                    item: item_of(db, other),
                    ranges: spans.collect(),
                },
            )),
        }
    }
    found.into_iter().map(|(_, call)| call).collect()
}
