//! The workspace's import graph: which files import which (file granularity), and the same
//! between directories (package granularity), with their cycles.
//!
//! Edges come from every file's [`file_imports`] and [`resolve`], whatever the language:
//! a language gets a graph as soon as its family's imports resolve. An edge is kept once
//! however many imports make it; the imports that make it are kept as indices into
//! `file_imports` (answers turn them into lines). Cycles are the strongly connected
//! components (petgraph's `tarjan_scc`) with more than one node, or one node importing
//! itself.
//!
//! A package is the directory holding a file, in every language: a Python package (its
//! `__init__.py` included), a Go package, a JavaScript/TypeScript directory, a Rust module
//! directory (`src/a.rs` is in `src`, `src/a/b.rs` in `src/a`). Imports between files of one
//! directory are not package edges.
//!
//! Invariant (early cutoff): the graph reads only position-free data ([`file_imports`],
//! module maps, paths). Resolution may read more (the definition an import names, whose
//! position moves with every edit), so it runs inside [`file_dependencies`], a query per file
//! whose answer keeps files and import indices only and backdates when they are unchanged:
//! an edit inside a function body re-runs neither [`import_graph`] nor [`package_graph`].

use std::{collections::HashMap, sync::Arc};

use petgraph::{algo::tarjan_scc, graph::DiGraph};

use super::{
    imports::{Target, file_imports, resolve},
    projects::paths,
};
use crate::db::{Db, SourceFile, Workspace};

/// Where one file's imports lead: position-free.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileDependencies {
    /// Workspace files imported, each once, in the order first imported; with the indices
    /// (into [`file_imports`]) of the imports that lead there.
    pub files: Vec<(SourceFile, Vec<u32>)>,
    /// Packages outside the workspace, each once, sorted.
    pub external: Vec<String>,
}

/// Where `file`'s imports lead. Backdates when only a position changed, which keeps the
/// graph from re-running after edits that resolution sees (a definition moved).
#[salsa::tracked(returns(clone))]
pub fn file_dependencies(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
) -> Arc<FileDependencies> {
    let mut deps = FileDependencies::default();
    for (i, import) in file_imports(db, file).iter().enumerate() {
        match resolve(db, workspace, file, import) {
            Target::Resolved { file: target, .. } => {
                match deps.files.iter_mut().find(|(f, _)| *f == target) {
                    Some((_, imports)) => imports.push(i as u32),
                    None => deps.files.push((target, vec![i as u32])),
                }
            }
            Target::External { package } => deps.external.push(package),
            Target::Unresolved => {}
        }
    }
    deps.external.sort();
    deps.external.dedup();
    Arc::new(deps)
}

/// A directed graph over nodes `N`, edges from importer to imported, with its cycles.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Graph<N> {
    pub nodes: Vec<N>,
    /// Per node, the nodes it imports (ascending indices, each once).
    pub forward: Vec<Vec<u32>>,
    /// Per node, the nodes importing it (ascending indices, each once).
    pub backward: Vec<Vec<u32>>,
    /// Strongly connected components with more than one node, and nodes importing
    /// themselves: each ascending, ordered by their first node.
    pub cycles: Vec<Vec<u32>>,
    /// Per node, the index of its cycle in `cycles`.
    pub cycle_of: HashMap<u32, u32>,
    pub edge_count: usize,
}

impl<N> Graph<N> {
    /// The graph of `edges` (pairs of indices into `nodes`; repeats are merged).
    pub fn new(nodes: Vec<N>, edges: impl IntoIterator<Item = (u32, u32)>) -> Graph<N> {
        let mut forward = vec![Vec::new(); nodes.len()];
        let mut backward = vec![Vec::new(); nodes.len()];
        for (from, to) in edges {
            forward[from as usize].push(to);
            backward[to as usize].push(from);
        }
        for list in forward.iter_mut().chain(backward.iter_mut()) {
            list.sort_unstable();
            list.dedup();
        }
        let edge_count = forward.iter().map(Vec::len).sum();
        let mut graph = DiGraph::<(), ()>::with_capacity(nodes.len(), edge_count);
        for _ in 0..nodes.len() {
            graph.add_node(());
        }
        for (from, targets) in forward.iter().enumerate() {
            for &to in targets {
                graph.add_edge((from as u32).into(), to.into(), ());
            }
        }
        let mut cycles: Vec<Vec<u32>> = tarjan_scc(&graph)
            .into_iter()
            .map(|scc| {
                let mut scc: Vec<u32> = scc.into_iter().map(|n| n.index() as u32).collect();
                scc.sort_unstable();
                scc
            })
            .filter(|scc| scc.len() > 1 || forward[scc[0] as usize].contains(&scc[0]))
            .collect();
        cycles.sort_unstable();
        let cycle_of = cycles
            .iter()
            .enumerate()
            .flat_map(|(i, scc)| scc.iter().map(move |&n| (n, i as u32)))
            .collect();
        Graph {
            nodes,
            forward,
            backward,
            cycles,
            cycle_of,
            edge_count,
        }
    }
}

/// The file-level import graph: a node per workspace file (in the workspace's path order).
#[derive(Debug, PartialEq, Eq)]
pub struct ImportGraph {
    pub graph: Graph<SourceFile>,
    /// Where each node's imports lead (the same order as `graph.nodes`).
    pub dependencies: Vec<Arc<FileDependencies>>,
    index: HashMap<SourceFile, u32>,
}

impl ImportGraph {
    /// The node of `file`.
    pub fn node(&self, file: SourceFile) -> Option<u32> {
        self.index.get(&file).copied()
    }
}

#[salsa::tracked(returns(clone))]
pub fn import_graph(db: &dyn Db, workspace: Workspace) -> Arc<ImportGraph> {
    let files = workspace.files(db);
    let index: HashMap<SourceFile, u32> = files
        .iter()
        .enumerate()
        .map(|(i, &f)| (f, i as u32))
        .collect();
    let dependencies: Vec<Arc<FileDependencies>> = files
        .iter()
        .map(|&file| file_dependencies(db, workspace, file))
        .collect();
    let edges: Vec<(u32, u32)> = dependencies
        .iter()
        .enumerate()
        .flat_map(|(from, deps)| {
            let index = &index;
            deps.files
                .iter()
                .filter_map(move |(to, _)| Some((from as u32, *index.get(to)?)))
        })
        .collect();
    Arc::new(ImportGraph {
        graph: Graph::new(files.to_vec(), edges),
        dependencies,
        index,
    })
}

/// The directory-level graph: a node per directory holding a workspace file (`""` for the
/// root), sorted; an edge where a file of one imports a file of another.
#[derive(Debug, PartialEq, Eq)]
pub struct PackageGraph {
    pub graph: Graph<String>,
    /// The package node of each file node of [`import_graph`].
    pub package_of: Vec<u32>,
    /// Per package, the packages outside the workspace its files import, sorted.
    pub external: Vec<Vec<String>>,
}

impl PackageGraph {
    /// The node of the directory `dir` (workspace-relative, `""` for the root).
    pub fn node(&self, dir: &str) -> Option<u32> {
        self.graph
            .nodes
            .binary_search_by(|n| n.as_str().cmp(dir))
            .ok()
            .map(|i| i as u32)
    }
}

#[salsa::tracked(returns(clone))]
pub fn package_graph(db: &dyn Db, workspace: Workspace) -> Arc<PackageGraph> {
    let files = import_graph(db, workspace);
    let mut dirs: Vec<String> = files
        .graph
        .nodes
        .iter()
        .map(|f| paths::parent(f.path(db)).to_string())
        .collect();
    dirs.sort_unstable();
    dirs.dedup();
    let node = |dir: &str| dirs.binary_search_by(|d| d.as_str().cmp(dir)).unwrap_or(0) as u32;
    let package_of: Vec<u32> = files
        .graph
        .nodes
        .iter()
        .map(|f| node(paths::parent(f.path(db))))
        .collect();
    let mut external = vec![Vec::new(); dirs.len()];
    for (file, deps) in files.dependencies.iter().enumerate() {
        external[package_of[file] as usize].extend(deps.external.iter().cloned());
    }
    for list in &mut external {
        list.sort_unstable();
        list.dedup();
    }
    let edges: Vec<(u32, u32)> = files
        .graph
        .forward
        .iter()
        .enumerate()
        .flat_map(|(from, targets)| {
            let package_of = &package_of;
            targets
                .iter()
                .map(move |&to| (package_of[from], package_of[to as usize]))
        })
        .filter(|(from, to)| from != to)
        .collect();
    Arc::new(PackageGraph {
        graph: Graph::new(dirs, edges),
        package_of,
        external,
    })
}
