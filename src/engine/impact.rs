//! Impact: everything that depends on some definitions or files, transitively, nearest
//! first. The users of a definition are the definitions (or top levels) whose code refers
//! to it, exactly resolved (`reference_graph`, walked backwards); theirs come next, and so
//! on. Importers depend too (an import whose name is never used still breaks when the
//! definition goes): the files importing a seed definition by name (found by reference
//! search), those importing any definition reached by name (`indirect_users`), and those
//! importing a whole seed file (`import_graph`).
//!
//! A call of a method's name on a receiver of unknown type may be a call of it: unless the
//! walk is exact, such calls are followed after every exact use, as the call graph guesses
//! them (none when more than `MAX_GUESSES` callables share the name), and what only they
//! reach is marked `heuristic`.
//!
//! Invariant: beyond one reference search per seed definition, the walk reads the
//! memoized workspace graphs only (`reference_graph`, `indirect_users`, `import_graph`;
//! a guessed name's callables from the identifier index, once per name), so a warm answer
//! costs the size of what it reaches.

use std::{
    collections::{BTreeMap, HashMap},
    sync::Arc,
};

use super::{
    calls::{Callable, guessed_callees, targets_of},
    reference_graph::{IndirectUsers, Node, ReferenceGraph, indirect_users, reference_graph},
    removed::RemovedUse,
    search::{Certainty, search_uses},
};
use crate::{
    db::{Db, SourceFile, Workspace},
    semantic::{
        import_graph::import_graph,
        names::{BindingKind, Role, resolve::Resolver},
        symbols::file_symbols,
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
    /// Reached only through a call matched by name on a receiver of unknown type.
    pub heuristic: bool,
    /// It uses (or imports) this removed definition, an index into the walk's removed
    /// uses' definitions; `via` is then `None`.
    pub removed: Option<u32>,
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
        let (importers, _) = search_uses(&mut resolver, &targets, None, |file, names, hits| {
            hits.iter()
                .filter(|&&(occurrence, certainty)| {
                    let role = names.occurrence(occurrence).role;
                    let imports =
                        matches!(role, Role::Definition(BindingKind::Import) | Role::Imported);
                    imports && certainty == Certainty::Exact && file != source
                })
                .map(|&(occurrence, _)| (occurrence, ()))
                .collect()
        });
        found.extend(
            importers
                .into_iter()
                .map(|(importer, _, ())| (seed, importer)),
        );
    }
    found
}

/// The seeds' nodes (distance 0) and everything depending on them up to `max_depth` steps,
/// breadth first: by distance, and within one distance the users in code before the
/// importers. The files in `named_importers` import their seed; the files importing any
/// reached definition by name (`indirect_users`) import it.
///
/// Unless `exact`, a method is also followed to the calls of its name on receivers of
/// unknown type (while no more than `MAX_GUESSES` callables share the name, the call
/// graph's rule); what only such a guess reaches comes after everything reached exactly,
/// marked `heuristic`, at its shortest distance. So an exact walk's answer is the start of
/// the other's, and an exact dependent never appears farther than an exact walk puts it.
///
/// The users in `removed_uses` (of definitions the workspace no longer has, so no node of
/// its graph) are one step from a seed, after the seeds' users in code.
pub fn dependents(
    db: &dyn Db,
    workspace: Workspace,
    seeds: &[Seed],
    max_depth: u32,
    named_importers: &[(Seed, SourceFile)],
    removed_uses: &[RemovedUse],
    exact: bool,
) -> (Vec<Reached>, Arc<ReferenceGraph>) {
    let graph = reference_graph(db, workspace);
    let indirect = indirect_users(db, workspace);
    let mut walk = Walk {
        graph: &graph,
        seen: vec![false; graph.node_count()],
        reached: Vec::new(),
    };
    let mut frontier: Vec<u32> = Vec::new();
    let mut whole_files = Vec::new();
    let mut import_edges: Vec<(u32, u32)> = Vec::new();
    let top_level = |file: SourceFile| {
        graph.file_index(file).map(|file| {
            graph.node_id(Node {
                file,
                definition: None,
            })
        })
    };
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
                if walk.visit(id, 0, None, false, false) {
                    frontier.push(id);
                }
                for &(_, importer) in named_importers.iter().filter(|(of, _)| *of == *seed) {
                    import_edges.extend(top_level(importer).map(|to| (id, to)));
                }
            }
            Seed::File(source) => {
                let Some(file) = graph.file_index(source) else {
                    continue;
                };
                whole_files.push(source);
                for id in graph.nodes_of(file) {
                    if walk.visit(id, 0, None, false, false) {
                        frontier.push(id);
                    }
                }
            }
        }
    }
    // A file importing a whole seed file depends on it, whether or not it uses a name.
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
    let removed_users: Vec<(u32, u32, bool)> = (removed_uses.iter())
        .filter_map(|u| {
            let file = graph.file_index(u.file)?;
            let id = graph.node_id(Node {
                file,
                definition: u.user,
            });
            Some((u.removed, id, u.imports))
        })
        .collect();
    // One level at a time, so that a file both using and importing something at the same
    // distance is listed as using it.
    for distance in 1..=max_depth {
        if frontier.is_empty() && (distance > 1 || removed_users.is_empty()) {
            break;
        }
        let mut next = Vec::new();
        for &id in &frontier {
            for &user in graph.users_of(id) {
                if walk.visit(user, distance, Some(id), false, false) {
                    next.push(user);
                }
            }
        }
        let removed_now = match distance {
            1 => removed_users.as_slice(),
            _ => &[],
        };
        for &(removed, id, _) in removed_now.iter().filter(|u| !u.2) {
            if walk.visit_removed(id, removed, false) {
                next.push(id);
            }
        }
        for &id in &frontier {
            for &importer in indirect.importers.get(&id).map_or(&[][..], Vec::as_slice) {
                import_edges.push((id, importer));
            }
        }
        for (via, id) in import_edges.drain(..) {
            if walk.visit(id, distance, Some(via), true, false) {
                next.push(id);
            }
        }
        for &(removed, id, _) in removed_now.iter().filter(|u| u.2) {
            if walk.visit_removed(id, removed, true) {
                next.push(id);
            }
        }
        frontier = next;
    }
    if !exact {
        walk.guesses(db, workspace, &indirect, max_depth);
    }
    let reached = walk.reached;
    (reached, graph)
}

struct Walk<'g> {
    graph: &'g ReferenceGraph,
    seen: Vec<bool>,
    reached: Vec<Reached>,
}

impl Walk<'_> {
    /// Records `id` unless it was reached before; whether it was new.
    fn visit(
        &mut self,
        id: u32,
        distance: u32,
        via: Option<u32>,
        imports: bool,
        heuristic: bool,
    ) -> bool {
        if std::mem::replace(&mut self.seen[id as usize], true) {
            return false;
        }
        self.reached.push(Reached {
            node: self.graph.node(id),
            distance,
            via: via.map(|v| self.graph.node(v)),
            imports,
            heuristic,
            removed: None,
        });
        true
    }

    /// Records `id`, a user of the removed definition `removed` (one step from the seeds),
    /// unless it was reached before; whether it was new.
    fn visit_removed(&mut self, id: u32, removed: u32, imports: bool) -> bool {
        if std::mem::replace(&mut self.seen[id as usize], true) {
            return false;
        }
        self.reached.push(Reached {
            node: self.graph.node(id),
            distance: 1,
            via: None,
            imports,
            heuristic: false,
            removed: Some(removed),
        });
        true
    }

    /// Extends an exact walk with what calls of a reached method's name on receivers of
    /// unknown type reach, nearest first: the shortest path through at least one guess,
    /// found level by level from every node reached so far.
    fn guesses(
        &mut self,
        db: &dyn Db,
        workspace: Workspace,
        indirect: &IndirectUsers,
        max_depth: u32,
    ) {
        let graph = self.graph;
        let mut callees: HashMap<String, Vec<(SourceFile, u32)>> = HashMap::new();
        let mut guessed_users = |id: u32| -> &[u32] {
            let node = graph.node(id);
            let Some(symbol) = node.definition else {
                return &[];
            };
            let file = graph.files[node.file as usize];
            let symbols = file_symbols(db, file);
            let name = symbols.summaries[symbol as usize].name.as_str();
            let Some(users) = indirect.guessed.get(name) else {
                return &[];
            };
            let matched = callees
                .entry(name.to_owned())
                .or_insert_with(|| guessed_callees(db, workspace, name));
            match matched.contains(&(file, symbol)) {
                true => users,
                false => &[],
            }
        };
        // By distance: (node, via, imports).
        let mut pending: BTreeMap<u32, Vec<(u32, u32, bool)>> = BTreeMap::new();
        for at in 0..self.reached.len() {
            let Reached { node, distance, .. } = self.reached[at];
            if distance >= max_depth {
                continue;
            }
            let id = graph.node_id(node);
            for &user in guessed_users(id) {
                if !self.seen[user as usize] {
                    pending
                        .entry(distance + 1)
                        .or_default()
                        .push((user, id, false));
                }
            }
        }
        while let Some((distance, mut level)) = pending.pop_first() {
            // Uses before imports, as in the exact walk.
            level.sort_by_key(|&(_, _, imports)| imports);
            let mut next = Vec::new();
            for (id, via, imports) in level {
                if !self.visit(id, distance, Some(via), imports, true) || distance >= max_depth {
                    continue;
                }
                let uses = graph.users_of(id).iter().chain(guessed_users(id));
                next.extend(uses.map(|&user| (user, id, false)));
                let importers = indirect.importers.get(&id).map_or(&[][..], Vec::as_slice);
                next.extend(importers.iter().map(|&importer| (importer, id, true)));
            }
            next.retain(|&(id, _, _)| !self.seen[id as usize]);
            if !next.is_empty() {
                pending.entry(distance + 1).or_default().extend(next);
            }
        }
    }
}
