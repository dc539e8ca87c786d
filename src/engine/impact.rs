//! Impact: everything that depends on some definitions or files, transitively, nearest
//! first. The users of a definition are the definitions (or top levels) whose code refers
//! to it, exactly resolved (`reference_graph`, walked backwards); theirs come next, and so
//! on. A seed's importers depend on it too (an import whose name is never used still
//! breaks when the definition goes): the files importing a seed definition by name (found
//! by reference search), and those importing a whole seed file (`import_graph`).
//!
//! Invariant: beyond one reference search per seed definition, the walk reads the
//! memoized workspace graphs only (`reference_graph`, `import_graph`), so a warm answer
//! costs the size of what it reaches.

use std::collections::VecDeque;

use super::{
    calls::{Callable, targets_of},
    reference_graph::{Node, ReferenceGraph, reference_graph},
    removed::RemovedUse,
    search::{Certainty, search_hits},
};
use crate::{
    db::{Db, SourceFile, Workspace},
    semantic::{
        import_graph::import_graph,
        names::{BindingKind, Role, resolve::Resolver},
    },
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
    /// It imports `via` (rather than using it in code).
    pub imports: bool,
    /// It uses (or imports) this removed definition, an index into the walk's removed
    /// uses' definitions; `via` is then `None`.
    pub removed: Option<u32>,
}

/// What a node is reached from.
enum Via {
    /// A node of the graph (`None`: a seed).
    Node(Option<u32>),
    /// A removed definition, by its index among the walk's removed uses'.
    Removed(u32),
}

/// Which files import each seed definition by name, as [`importers_by_name`] finds them.
pub type NamedImporters = Vec<(Seed, SourceFile)>;

/// The files importing each of `seeds` (definitions) by name: a reference search per seed.
pub fn importers_by_name(db: &dyn Db, workspace: Workspace, seeds: &[Seed]) -> NamedImporters {
    let mut resolver = Resolver::new(db, workspace);
    let mut found = Vec::new();
    for &seed in seeds {
        let Seed::Definition {
            file: source,
            symbol: Some(symbol),
        } = seed
        else {
            continue;
        };
        let callable = Callable {
            file: source,
            symbol: Some(symbol),
        };
        let targets = targets_of(&mut resolver, callable);
        for (importer, occurrence, certainty) in search_hits(&mut resolver, &targets, None).0 {
            let role = resolver.names(importer).occurrence(occurrence).role;
            let imports = matches!(role, Role::Definition(BindingKind::Import) | Role::Imported);
            if imports && certainty == Certainty::Exact && importer != source {
                found.push((seed, importer));
            }
        }
    }
    found
}

/// The seeds' nodes (distance 0) and everything depending on them up to `max_depth` steps,
/// breadth first: by distance, and within one distance in the order found; the files in
/// `named_importers` import their seed, and the users in `removed_uses` (of definitions the
/// workspace no longer has, so no node of its graph) are one step from a seed.
pub fn dependents(
    db: &dyn Db,
    workspace: Workspace,
    seeds: &[Seed],
    max_depth: u32,
    named_importers: &[(Seed, SourceFile)],
    removed_uses: &[RemovedUse],
) -> (Vec<Reached>, std::sync::Arc<ReferenceGraph>) {
    let graph = reference_graph(db, workspace);
    let mut seen = vec![false; graph.node_count()];
    let mut reached: Vec<Reached> = Vec::new();
    let mut queue: VecDeque<usize> = VecDeque::new();
    let mut visit =
        |id: u32, distance: u32, via: Via, imports: bool, reached: &mut Vec<Reached>| {
            if std::mem::replace(&mut seen[id as usize], true) {
                return false;
            }
            let (via, removed) = match via {
                Via::Node(via) => (via.map(|v| graph.node(v)), None),
                Via::Removed(removed) => (None, Some(removed)),
            };
            reached.push(Reached {
                node: graph.node(id),
                distance,
                via,
                imports,
                removed,
            });
            true
        };
    let mut whole_files = Vec::new();
    let mut importers: Vec<(u32, SourceFile)> = Vec::new();
    for seed in seeds {
        match *seed {
            Seed::Definition {
                file: source,
                symbol,
            } => {
                let Some(file) = graph.file_index(source) else {
                    continue;
                };
                let id = graph.node_id(Node {
                    file,
                    definition: symbol,
                });
                if visit(id, 0, Via::Node(None), false, &mut reached) {
                    queue.push_back(reached.len() - 1);
                }
                if max_depth > 0 {
                    importers.extend(
                        named_importers
                            .iter()
                            .filter(|(of, _)| *of == *seed)
                            .map(|&(_, importer)| (id, importer)),
                    );
                }
            }
            Seed::File(source) => {
                let Some(file) = graph.file_index(source) else {
                    continue;
                };
                whole_files.push(source);
                for id in graph.nodes_of(file) {
                    if visit(id, 0, Via::Node(None), false, &mut reached) {
                        queue.push_back(reached.len() - 1);
                    }
                }
            }
        }
    }
    // A file importing a seed by name depends on it, whether or not it uses the name; as
    // does one importing a whole seed file.
    let mut import_edges: Vec<(u32, u32)> = Vec::new();
    let top_level = |file: SourceFile| {
        graph.file_index(file).map(|file| {
            graph.node_id(Node {
                file,
                definition: None,
            })
        })
    };
    for (via, importer) in importers {
        import_edges.extend(top_level(importer).map(|id| (via, id)));
    }
    if !whole_files.is_empty() && max_depth > 0 {
        let imports = import_graph(db, workspace);
        for source in whole_files {
            let (Some(imported), Some(via)) = (imports.node(source), top_level(source)) else {
                continue;
            };
            for &importer in &imports.graph.backward[imported as usize] {
                let importer = imports.graph.nodes[importer as usize];
                import_edges.extend(top_level(importer).map(|id| (via, id)));
            }
        }
    }
    let removed_users: Vec<(u32, u32, bool)> = match max_depth {
        0 => Vec::new(),
        _ => (removed_uses.iter())
            .filter_map(|u| {
                let file = graph.file_index(u.file)?;
                let id = graph.node_id(Node {
                    file,
                    definition: u.user,
                });
                Some((u.removed, id, u.imports))
            })
            .collect(),
    };
    let mut importers_added = false;
    loop {
        // The seeds' users in code come first, so a file that uses a seed as well as
        // importing it is listed as using it; a removed definition's, after the seeds'
        // (theirs are the nodes of the graph).
        let next_distance = queue.front().map(|&at| reached[at].distance);
        if !importers_added && next_distance != Some(0) {
            importers_added = true;
            let before = reached.len();
            for &(removed, id, _) in removed_users.iter().filter(|u| !u.2) {
                visit(id, 1, Via::Removed(removed), false, &mut reached);
            }
            for &(via, id) in &import_edges {
                visit(id, 1, Via::Node(Some(via)), true, &mut reached);
            }
            for &(removed, id, _) in removed_users.iter().filter(|u| u.2) {
                visit(id, 1, Via::Removed(removed), true, &mut reached);
            }
            queue.extend(before..reached.len());
            continue;
        }
        let Some(at) = queue.pop_front() else {
            break;
        };
        let Reached { node, distance, .. } = reached[at];
        if distance >= max_depth {
            continue;
        }
        let id = graph.node_id(node);
        for &user in graph.users_of(id) {
            if visit(user, distance + 1, Via::Node(Some(id)), false, &mut reached) {
                queue.push_back(reached.len() - 1);
            }
        }
    }
    (reached, graph)
}
