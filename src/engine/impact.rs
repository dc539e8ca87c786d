//! Impact: everything that depends on some definitions or files, transitively, nearest
//! first. The users of a definition are the definitions (or top levels) whose code refers
//! to it, exactly resolved (`reference_graph`, walked backwards); theirs come next, and so
//! on. A whole file's users are also the files that import it (an import whose name is
//! never used still breaks when the file goes).
//!
//! Invariant: the walk reads the memoized workspace graphs only (`reference_graph`,
//! `import_graph`), so a warm answer costs the size of what it reaches.

use std::collections::VecDeque;

use super::reference_graph::{Node, ReferenceGraph, reference_graph};
use crate::{
    db::{Db, SourceFile, Workspace},
    semantic::import_graph::import_graph,
};

/// Something the walk starts from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seed {
    /// A definition of a file, by its index in `file_symbols`; `None`: the file's top level.
    Definition {
        file: SourceFile,
        symbol: Option<u32>,
    },
    /// A file as a whole: every definition in it, its top level, and its importers.
    File(SourceFile),
}

/// A node reached, how many steps from a seed, and the node it was reached from (none for
/// a seed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reached {
    pub node: Node,
    pub distance: u32,
    pub via: Option<Node>,
}

/// The seeds' nodes (distance 0) and everything depending on them up to `max_depth` steps,
/// breadth first: by distance, and within one distance in the order found.
pub fn dependents(
    db: &dyn Db,
    workspace: Workspace,
    seeds: &[Seed],
    max_depth: u32,
) -> (Vec<Reached>, std::sync::Arc<ReferenceGraph>) {
    let graph = reference_graph(db, workspace);
    let mut seen = vec![false; graph.node_count()];
    let mut reached: Vec<Reached> = Vec::new();
    let mut queue: VecDeque<usize> = VecDeque::new();
    let mut visit = |id: u32, distance: u32, via: Option<u32>, reached: &mut Vec<Reached>| {
        if std::mem::replace(&mut seen[id as usize], true) {
            return false;
        }
        reached.push(Reached {
            node: graph.node(id),
            distance,
            via: via.map(|v| graph.node(v)),
        });
        true
    };
    let mut whole_files = Vec::new();
    for seed in seeds {
        match *seed {
            Seed::Definition { file, symbol } => {
                let Some(file) = graph.file_index(file) else {
                    continue;
                };
                let id = graph.node_id(Node {
                    file,
                    definition: symbol,
                });
                if visit(id, 0, None, &mut reached) {
                    queue.push_back(reached.len() - 1);
                }
            }
            Seed::File(source) => {
                let Some(file) = graph.file_index(source) else {
                    continue;
                };
                whole_files.push(source);
                for id in graph.nodes_of(file) {
                    if visit(id, 0, None, &mut reached) {
                        queue.push_back(reached.len() - 1);
                    }
                }
            }
        }
    }
    if !whole_files.is_empty() && max_depth > 0 {
        let imports = import_graph(db, workspace);
        for source in whole_files {
            let Some(imported) = imports.node(source) else {
                continue;
            };
            let via = graph.node_id(Node {
                file: graph
                    .file_index(source)
                    .expect("a seed file is in the graph"),
                definition: None,
            });
            for &importer in &imports.graph.backward[imported as usize] {
                let importer = imports.graph.nodes[importer as usize];
                let Some(file) = graph.file_index(importer) else {
                    continue;
                };
                let id = graph.node_id(Node {
                    file,
                    definition: None,
                });
                if visit(id, 1, Some(via), &mut reached) {
                    queue.push_back(reached.len() - 1);
                }
            }
        }
    }
    while let Some(at) = queue.pop_front() {
        let Reached { node, distance, .. } = reached[at];
        if distance >= max_depth {
            continue;
        }
        let id = graph.node_id(node);
        for &user in graph.users_of(id) {
            if visit(user, distance + 1, Some(id), &mut reached) {
                queue.push_back(reached.len() - 1);
            }
        }
    }
    // Importers found first sit before nearer users; the answer is by distance.
    reached.sort_by_key(|r| r.distance);
    (reached, graph)
}
