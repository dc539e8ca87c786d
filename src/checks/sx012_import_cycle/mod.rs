//! Import cycles (SX012, off by default): each import statement that closes a cycle of
//! imports that run when a module is loaded, with the shortest cycle through it.
//!
//! What counts, per language:
//! - Python: imports that run when the module is loaded: at module level, in class bodies,
//!   under `try`/`if`; not inside a function or lambda (they run when it is called), not in
//!   the body of `if TYPE_CHECKING:` (never at run time) nor of `if __name__ == "__main__":`
//!   (only when run as a script).
//! - JavaScript and TypeScript: static `import` and `export … from` statements, and
//!   `require(…)` outside any function; not dynamic `import(…)`, not `import type` (nor a
//!   specifier marked `type`), nor an import whose names TypeScript code uses as types only
//!   (or not at all), which the compiler erases too.
//! - Go: package imports, between packages (directories): a cycle is a compile error. Files
//!   of an external test package (`package x_test`) are left out; they may import `x`.
//! - Rust: none; `use` cycles between modules of one crate are legal.
//!
//! The cycles are the strongly connected components of that graph (`import_graph::Graph`,
//! petgraph's `tarjan_scc`); an edge inside a component closes a cycle, and its shortest one
//! is the edge followed by a shortest path back (breadth-first, inside the component).
//!
//! Invariant (incremental): [`cycle_edges`] reads its own file's tree but answers without
//! positions, and [`import_cycles`] reads only those answers and paths, so an edit inside a
//! function body re-runs the edited file's queries alone. [`file_import_cycles`] names other
//! files' imports by index (`Hop`), never by position: the front end places them. Nothing
//! here runs unless the code is selected (`ide/diagnostics.rs` asks for it).

use std::{
    collections::{HashMap, VecDeque},
    sync::Arc,
};

pub use crate::semantic::facts::cycle_edges::{Hop, cycle_edges};
use crate::{
    checks::{Diagnostic, registry::ids},
    db::{Db, SourceFile, Workspace},
    semantic::{
        facts::cycle_edges::Style, import_graph::Graph, projects::paths, symbols::file_symbols,
        syntax_errors,
    },
};

/// One import that closes a cycle: the cycle's nodes (importer first and last), and the
/// other imports along it (one per edge after the first).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Closing {
    pub import: u32,
    pub cycle: Arc<[String]>,
    pub others: Arc<[Hop]>,
}

/// The workspace's import cycles, by importing file. Position-free.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct ImportCycles {
    pub by_file: HashMap<SourceFile, Vec<Closing>>,
}

/// A node of the cycle graph: a file, or a Go package (its directory).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Node {
    File(SourceFile),
    Package(String),
}

#[salsa::tracked(returns(clone))]
pub fn import_cycles(db: &dyn Db, workspace: Workspace) -> Arc<ImportCycles> {
    let node_of = |file: SourceFile| match Style::of(db, file) {
        Some(Style::Go) => Node::Package(paths::parent(file.path(db)).to_string()),
        _ => Node::File(file),
    };
    let mut nodes: Vec<Node> = Vec::new();
    let mut index: HashMap<Node, u32> = HashMap::new();
    let mut intern = |node: Node, nodes: &mut Vec<Node>| {
        *index.entry(node.clone()).or_insert_with(|| {
            nodes.push(node);
            nodes.len() as u32 - 1
        })
    };
    // Per edge, the imports that make it, in workspace order.
    let mut edges: HashMap<(u32, u32), Vec<Hop>> = HashMap::new();
    let mut edge_order: Vec<(u32, u32)> = Vec::new();
    for &file in workspace.files(db).iter() {
        let found = cycle_edges(db, workspace, file);
        if found.is_empty() {
            continue;
        }
        let from_node = node_of(file);
        let from = intern(from_node.clone(), &mut nodes);
        for (target, imports) in found.iter() {
            let to_node = node_of(*target);
            if matches!(from_node, Node::Package(_)) && to_node == from_node {
                continue;
            }
            let to = intern(to_node, &mut nodes);
            let hops = edges.entry((from, to)).or_insert_with(|| {
                edge_order.push((from, to));
                Vec::new()
            });
            hops.extend(imports.iter().map(|&import| Hop { file, import }));
        }
    }
    let names: Vec<String> = nodes
        .iter()
        .map(|n| match n {
            Node::File(f) => f.path(db).clone(),
            Node::Package(dir) => paths::display_dir(dir),
        })
        .collect();
    let graph = Graph::new(nodes, edge_order.iter().copied());
    let mut cycles = ImportCycles::default();
    // Shortest paths from a node to every node of its component, by predecessor.
    let mut paths_from: HashMap<u32, Vec<Option<u32>>> = HashMap::new();
    for &(from, to) in &edge_order {
        let (Some(a), Some(b)) = (graph.cycle_of.get(&from), graph.cycle_of.get(&to)) else {
            continue;
        };
        if a != b {
            continue;
        }
        let component = *a;
        // The path back: `to` … `from`.
        let back: Vec<u32> = if from == to {
            vec![to]
        } else {
            let pred = paths_from
                .entry(to)
                .or_insert_with(|| breadth_first(&graph, to, component));
            let mut path = vec![from];
            let mut at = from;
            while at != to {
                match pred[at as usize] {
                    Some(p) => at = p,
                    None => break,
                }
                path.push(at);
            }
            if at != to {
                continue;
            }
            path.reverse();
            path
        };
        // `from`, `to` … `from`: a self-import is `from`, `from`.
        let mut cycle: Vec<String> = vec![names[from as usize].clone()];
        cycle.extend(back.iter().map(|&n| names[n as usize].clone()));
        let others: Arc<[Hop]> = back.windows(2).map(|w| edges[&(w[0], w[1])][0]).collect();
        let cycle: Arc<[String]> = cycle.into();
        for hop in &edges[&(from, to)] {
            cycles.by_file.entry(hop.file).or_default().push(Closing {
                import: hop.import,
                cycle: cycle.clone(),
                others: others.clone(),
            });
        }
    }
    Arc::new(cycles)
}

/// Predecessors on shortest paths from `start` to the nodes of `component`.
fn breadth_first(graph: &Graph<Node>, start: u32, component: u32) -> Vec<Option<u32>> {
    let mut pred = vec![None; graph.nodes.len()];
    let mut seen = vec![false; graph.nodes.len()];
    seen[start as usize] = true;
    let mut queue = VecDeque::from([start]);
    while let Some(at) = queue.pop_front() {
        for &next in &graph.forward[at as usize] {
            if !seen[next as usize] && graph.cycle_of.get(&next) == Some(&component) {
                seen[next as usize] = true;
                pred[next as usize] = Some(at);
                queue.push_back(next);
            }
        }
    }
    pred
}

/// An SX012 finding in one file, with the other imports of its cycle (in other files, named
/// without positions).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CycleDiagnostic {
    pub diagnostic: Diagnostic,
    /// The other imports of the cycle, in its order, each with a note.
    pub others: Vec<(Hop, String)>,
}

/// `file`'s import statements that close a cycle, one diagnostic each (its shortest cycle
/// when its imports close several), without those its comments suppress; none in a file
/// with syntax errors.
#[salsa::tracked(returns(clone))]
pub fn file_import_cycles(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
) -> Arc<[CycleDiagnostic]> {
    if Style::of(db, file).is_none() || !syntax_errors(db, file).is_empty() {
        return Arc::new([]);
    }
    let cycles = import_cycles(db, workspace);
    let Some(closing) = cycles.by_file.get(&file) else {
        return Arc::new([]);
    };
    let statements = file_symbols(db, file).imports.statements.clone();
    // Per statement, the closing import with the shortest cycle (the first of equals).
    let mut best: Vec<(usize, &Closing)> = Vec::new();
    for c in closing {
        let Some(&range) = statements.get(c.import as usize) else {
            continue;
        };
        match best.iter_mut().find(|(s, _)| statements[*s] == range) {
            Some((_, kept)) if kept.cycle.len() <= c.cycle.len() => {}
            Some(slot) => *slot = (c.import as usize, c),
            None => best.push((c.import as usize, c)),
        }
    }
    let mut found: Vec<CycleDiagnostic> = best
        .into_iter()
        .map(|(statement, c)| {
            let diagnostic = Diagnostic::new(
                ids::IMPORT_CYCLE,
                statements[statement],
                format!("import cycle: {}", c.cycle.join(" → ")),
            );
            let others = c
                .others
                .iter()
                .zip(c.cycle.iter().skip(1).zip(c.cycle.iter().skip(2)))
                .map(|(&hop, (from, to))| (hop, format!("{from} imports {to}")))
                .collect();
            CycleDiagnostic { diagnostic, others }
        })
        .collect();
    super::suppression::remove_suppressed(db, file, &mut found, |c| &c.diagnostic);
    found.sort_by_key(|c| (c.diagnostic.range.start(), c.diagnostic.range.end()));
    found.into()
}
