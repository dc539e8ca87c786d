//! `import_graph`: what a file (or package) imports transitively, what imports it, and the
//! import cycles, from the workspace's import graph (`semantic::import_graph`).
//!
//! A package is the directory holding a file, in every language (a Python package, a Go
//! package, a JavaScript directory, a Rust module directory); package answers start from
//! the directory of the file given.
//!
//! Invariant: answers are bounded. At most `limit` nodes are listed (the nearest first:
//! breadth-first from the start, or in path order for the whole workspace) with the edges
//! among them; at most `limit` cycles of at most `limit` members. Whatever is left out is
//! counted (`node_total`, `edge_total`) and flagged (`truncated`, `cycles_truncated`).

use std::collections::{HashMap, VecDeque, hash_map::Entry};

use serde::Serialize;

use super::FileId;
use crate::{
    db::{Db, Workspace},
    semantic::{
        self,
        import_graph::{Graph, import_graph, package_graph},
        projects::paths,
        symbols::file_symbols,
    },
};

/// Which way to follow imports from the start.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// What the start imports, transitively.
    #[default]
    Dependencies,
    /// What imports the start, transitively.
    Dependents,
}

/// What a node is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Granularity {
    /// A workspace file.
    #[default]
    File,
    /// The directory holding files.
    Package,
}

#[derive(Clone, Debug)]
pub struct GraphQuery {
    /// Start here; `None` for the whole workspace (then `direction` and `depth` do not apply).
    pub file: Option<FileId>,
    pub direction: Direction,
    /// How many imports away from the start to go (0: the start only).
    pub depth: usize,
    pub granularity: Granularity,
    /// Also list the packages outside the workspace that listed nodes import, as leaves
    /// (dependencies only).
    pub external: bool,
    /// At most this many nodes, and cycles.
    pub limit: usize,
}

impl Default for GraphQuery {
    fn default() -> Self {
        GraphQuery {
            file: None,
            direction: Direction::Dependencies,
            depth: usize::MAX,
            granularity: Granularity::File,
            external: false,
            limit: 1000,
        }
    }
}

/// A file, a directory (`.` for the root) or, with `external`, a package outside the
/// workspace.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct GraphNode {
    pub path: String,
    /// Imports away from the start (0 for the start); absent for the whole workspace.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
    /// Outside the workspace: `path` is the package's name.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub external: bool,
}

/// `from` imports `to` (indices into `nodes`), whichever the direction asked.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct GraphEdge {
    pub from: u32,
    pub to: u32,
    /// Files only: the lines of `from`'s import statements that make the edge.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub lines: Vec<u32>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct ImportGraphView {
    pub granularity: Granularity,
    /// The start first, then breadth-first (each level in path order); for the whole
    /// workspace, every node with an import edge in path order. External packages last.
    pub nodes: Vec<GraphNode>,
    /// Every edge between listed nodes.
    pub edges: Vec<GraphEdge>,
    /// Import cycles (paths in path order): the one through the start, or every one.
    pub cycles: Vec<Vec<String>>,
    /// With a start in a cycle: the shortest chain of imports from the start back to it
    /// (`[a, b]` for a → b → a; `[a]` when it imports itself).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub shortest_cycle: Vec<String>,
    /// Workspace nodes within reach (or with an edge), listed or not.
    pub node_total: usize,
    /// Edges between those nodes, listed or not.
    pub edge_total: usize,
    /// Nodes (and so edges) were left out.
    pub truncated: bool,
    /// Cycles, or members of one, were left out.
    pub cycles_truncated: bool,
}

pub(crate) fn import_graph_view(
    db: &dyn Db,
    workspace: Workspace,
    query: &GraphQuery,
) -> ImportGraphView {
    let files = import_graph(db, workspace);
    match query.granularity {
        Granularity::File => {
            let start = query.file.and_then(|f| files.node(f.0));
            let view = View {
                graph: &files.graph,
                name: &|n| files.graph.nodes[n as usize].path(db).clone(),
                external: &|n| &files.dependencies[n as usize].external,
                lines: &|from, to| import_lines(db, &files, from, to),
            };
            view.answer(query, start)
        }
        Granularity::Package => {
            let packages = package_graph(db, workspace);
            let start = query
                .file
                .and_then(|f| files.node(f.0))
                .map(|n| packages.package_of[n as usize]);
            let view = View {
                graph: &packages.graph,
                name: &|n| paths::display_dir(&packages.graph.nodes[n as usize]),
                external: &|n| &packages.external[n as usize],
                lines: &|_, _| Vec::new(),
            };
            view.answer(query, start)
        }
    }
}

/// The lines of `from`'s imports that lead to `to` (file nodes).
fn import_lines(
    db: &dyn Db,
    files: &semantic::import_graph::ImportGraph,
    from: u32,
    to: u32,
) -> Vec<u32> {
    let (importer, target) = (
        files.graph.nodes[from as usize],
        files.graph.nodes[to as usize],
    );
    let Some((_, imports)) = files.dependencies[from as usize]
        .files
        .iter()
        .find(|(f, _)| *f == target)
    else {
        return Vec::new();
    };
    let statements = file_symbols(db, importer).imports.statements.clone();
    let index = semantic::line_index(db, importer);
    let mut lines: Vec<u32> = imports
        .iter()
        .filter_map(|&i| statements.get(i as usize))
        .map(|range| index.line_col(range.start().into()).line)
        .collect();
    lines.dedup();
    lines
}

/// One granularity's graph with how to name its nodes.
struct View<'a, N> {
    graph: &'a Graph<N>,
    name: &'a dyn Fn(u32) -> String,
    external: &'a dyn Fn(u32) -> &'a [String],
    lines: &'a dyn Fn(u32, u32) -> Vec<u32>,
}

impl<N> View<'_, N> {
    fn answer(&self, query: &GraphQuery, start: Option<u32>) -> ImportGraphView {
        let graph = self.graph;
        let limit = query.limit;
        let (reached, depth_limit) = self.reached(query, start);
        let position: HashMap<u32, u32> = reached
            .iter()
            .enumerate()
            .map(|(i, &(n, _))| (n, i as u32))
            .collect();
        let edge_total = reached
            .iter()
            .map(|&(n, _)| {
                graph.forward[n as usize]
                    .iter()
                    .filter(|to| position.contains_key(to))
                    .count()
            })
            .sum();
        let listed = &reached[..reached.len().min(limit)];
        let mut nodes: Vec<GraphNode> = listed
            .iter()
            .map(|&(n, depth)| GraphNode {
                path: (self.name)(n),
                depth,
                external: false,
            })
            .collect();
        let mut edges = Vec::new();
        for (i, &(n, _)) in listed.iter().enumerate() {
            for &to in &graph.forward[n as usize] {
                if let Some(&j) = position.get(&to).filter(|&&j| (j as usize) < listed.len()) {
                    edges.push(GraphEdge {
                        from: i as u32,
                        to: j,
                        lines: (self.lines)(n, to),
                    });
                }
            }
        }
        let mut truncated = reached.len() > listed.len();
        if query.external && query.direction == Direction::Dependencies {
            truncated |= self.add_external(listed, depth_limit, limit, &mut nodes, &mut edges);
        }
        let (cycles, cycles_truncated) = self.cycles(query, start);
        let shortest_cycle = start
            .and_then(|start| shortest_cycle(&graph.forward, start))
            .unwrap_or_default()
            .into_iter()
            .map(|n| (self.name)(n))
            .collect();
        ImportGraphView {
            granularity: query.granularity,
            shortest_cycle,
            nodes,
            edges,
            cycles,
            node_total: reached.len(),
            edge_total,
            truncated,
            cycles_truncated,
        }
    }

    /// The nodes in scope, in listing order, with their depth; and the depth asked, when
    /// the answer starts from a node.
    fn reached(
        &self,
        query: &GraphQuery,
        start: Option<u32>,
    ) -> (Vec<(u32, Option<u32>)>, Option<usize>) {
        let graph = self.graph;
        match start {
            Some(start) => {
                let next = match query.direction {
                    Direction::Dependencies => &graph.forward,
                    Direction::Dependents => &graph.backward,
                };
                (bfs(next, start, query.depth), Some(query.depth))
            }
            None if query.file.is_some() => (Vec::new(), Some(query.depth)),
            None => (
                (0..graph.nodes.len() as u32)
                    .filter(|&n| {
                        !graph.forward[n as usize].is_empty()
                            || !graph.backward[n as usize].is_empty()
                    })
                    .map(|n| (n, None))
                    .collect(),
                None,
            ),
        }
    }

    /// The external packages the `listed` nodes import, as nodes after them (within
    /// `limit` nodes in all) and edges to them; true when some were left out.
    fn add_external(
        &self,
        listed: &[(u32, Option<u32>)],
        depth_limit: Option<usize>,
        limit: usize,
        nodes: &mut Vec<GraphNode>,
        edges: &mut Vec<GraphEdge>,
    ) -> bool {
        let mut truncated = false;
        let mut external_node: HashMap<String, u32> = HashMap::new();
        for (i, &(n, depth)) in listed.iter().enumerate() {
            // Leaves one import beyond a node, so only within the depth asked.
            if depth.is_some_and(|d| depth_limit.is_some_and(|l| d as usize >= l)) {
                continue;
            }
            for package in (self.external)(n) {
                let at = match external_node.get(package) {
                    Some(&at) => at,
                    None if nodes.len() < limit => {
                        let at = nodes.len() as u32;
                        nodes.push(GraphNode {
                            path: package.clone(),
                            depth: depth.map(|d| d + 1),
                            external: true,
                        });
                        external_node.insert(package.clone(), at);
                        at
                    }
                    None => {
                        truncated = true;
                        continue;
                    }
                };
                edges.push(GraphEdge {
                    from: i as u32,
                    to: at,
                    lines: Vec::new(),
                });
            }
        }
        truncated
    }

    /// The import cycles in scope, named, each and their list cut at the limit; and
    /// whether anything was cut.
    fn cycles(&self, query: &GraphQuery, start: Option<u32>) -> (Vec<Vec<String>>, bool) {
        let graph = self.graph;
        let limit = query.limit;
        let cycles: Vec<&Vec<u32>> = match start {
            Some(start) => graph
                .cycle_of
                .get(&start)
                .map(|&c| &graph.cycles[c as usize])
                .into_iter()
                .collect(),
            None if query.file.is_some() => Vec::new(),
            None => graph.cycles.iter().collect(),
        };
        let cycles_truncated =
            cycles.len() > limit || cycles.iter().take(limit).any(|c| c.len() > limit);
        let cycles = cycles
            .iter()
            .take(limit)
            .map(|c| c.iter().take(limit).map(|&n| (self.name)(n)).collect())
            .collect();
        (cycles, cycles_truncated)
    }
}

/// Breadth-first from `start` along `next`, at most `max_depth` steps: each node once, with
/// its depth, level by level (each level in index order, which is path order).
fn bfs(next: &[Vec<u32>], start: u32, max_depth: usize) -> Vec<(u32, Option<u32>)> {
    let mut depth_of: HashMap<u32, u32> = HashMap::from([(start, 0)]);
    let mut order = vec![start];
    let mut queue = VecDeque::from([start]);
    while let Some(node) = queue.pop_front() {
        let depth = depth_of[&node];
        if depth as usize >= max_depth {
            continue;
        }
        for &to in &next[node as usize] {
            if let Entry::Vacant(entry) = depth_of.entry(to) {
                entry.insert(depth + 1);
                order.push(to);
                queue.push_back(to);
            }
        }
    }
    // Within a level, path order: the queue visits parents in order, not their children.
    order.sort_by_key(|n| (depth_of[n], *n));
    order.into_iter().map(|n| (n, Some(depth_of[&n]))).collect()
}

/// The shortest chain of edges from `start` back to itself, breadth-first: `[start, …]`
/// without the closing `start`.
fn shortest_cycle(next: &[Vec<u32>], start: u32) -> Option<Vec<u32>> {
    let mut parent: HashMap<u32, u32> = HashMap::new();
    let mut queue = VecDeque::from([start]);
    while let Some(node) = queue.pop_front() {
        for &to in &next[node as usize] {
            if to == start {
                let mut chain = vec![node];
                while let Some(&p) = parent.get(chain.last().unwrap()) {
                    chain.push(p);
                }
                chain.reverse();
                return Some(chain);
            }
            if let Entry::Vacant(entry) = parent.entry(to) {
                entry.insert(node);
                queue.push_back(to);
            }
        }
    }
    None
}
