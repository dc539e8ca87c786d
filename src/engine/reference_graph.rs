//! The reference graph: which definitions use which, from resolved names, not names matched
//! by spelling. A node is a definition (an index into its file's `file_symbols`) or a
//! file's top level (code outside every definition, and the module as something imported);
//! an edge says that code in one node refers to another, and how many times.
//!
//! [`file_references`] is one file's outgoing edges: each use of a name in the file
//! (read, call, type, member) resolved by the `Resolver` through scopes and imports, its
//! binding mapped to the definition it names, and the use to the innermost definition
//! around it. Only exact resolutions count: a member on a receiver of unknown type (a
//! guess by name among every class) would add an edge to every class with a member of that
//! name. [`reference_graph`] joins every file's edges into one graph over the workspace.
//! Beside the edges, a file keeps what an impact walk follows and the ranks must not: the
//! definitions it imports by name, and the member names it calls on receivers of unknown
//! type; [`indirect_users`] joins those.
//!
//! Invariant: a file's edges are position-free (definition indices, counts) and depend on
//! that file and the files its names resolve into, so they backdate when an edit moves
//! code without changing what it refers to, and an edit to a file nothing refers to
//! re-runs that file's edges only; the graph reads the edges and each file's
//! definition count, never a position.

use std::{collections::HashMap, sync::Arc};

use crate::{
    db::{Db, SourceFile, Workspace},
    semantic::{
        names::{
            BindingKind, OccurrenceId, Role, file_names,
            resolve::{Resolver, Target, push_unique},
        },
        symbols::{SymbolPositions, SymbolSummary, file_symbols, symbol_summaries},
    },
    syntax::TextSize,
};

/// One edge out of a file: code in `from` (a definition of the file, by its index in
/// `file_symbols`; `None`: the top level) refers `count` times to `to` of `to_file`
/// (`None`: the module itself).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reference {
    pub from: Option<u32>,
    pub to_file: SourceFile,
    pub to: Option<u32>,
    pub count: u32,
}

/// The edges of one file, sorted by source, then target path, then target definition.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileReferences {
    pub edges: Vec<Reference>,
    /// The definitions of other files this file imports by name, each once. An import is
    /// no use (the ranks leave it out), but a file breaks when what it imports goes.
    pub imports: Vec<(SourceFile, u32)>,
    /// `(from, name)`: code in `from` calls a member `name` on a receiver of unknown type,
    /// each pair once. Which member it is is a guess by name, made where a walk wants it.
    pub guessed: Vec<(Option<u32>, String)>,
}

/// The uses of names in `file`, resolved exactly, as edges between definitions.
#[salsa::tracked(returns(clone))]
pub fn file_references(db: &dyn Db, workspace: Workspace, file: SourceFile) -> Arc<FileReferences> {
    let names = file_names(db, file);
    let symbols = file_symbols(db, file);
    let enclosing = Enclosing::new(&symbols.summaries, &symbols.positions);
    let mut resolver = Resolver::new(db, workspace);
    let mut definitions = DefinitionsByName::default();
    let mut counts: HashMap<(Option<u32>, SourceFile, Option<u32>), u32> = HashMap::new();
    let mut targets = Vec::new();
    let mut imports: Vec<(SourceFile, u32)> = Vec::new();
    let mut guessed: Vec<(Option<u32>, String)> = Vec::new();
    for id in 0..names.occurrences.len() as OccurrenceId {
        let occurrence = names.occurrence(id);
        let imported = matches!(
            occurrence.role,
            Role::Imported | Role::Definition(BindingKind::Import)
        );
        if !is_use(occurrence.role) && !imported {
            continue;
        }
        let resolution = resolver.resolve(file, id);
        if resolution.heuristic {
            if occurrence.role == Role::MemberCall {
                let from = enclosing.innermost(occurrence.range.start());
                guessed.push((from, names.name(id).to_string()));
            }
            continue;
        }
        if imported {
            for target in &resolution.targets {
                if !matches!(target, Target::Symbol { .. }) {
                    continue;
                }
                for (site_file, site) in resolver.definitions(target) {
                    let range = resolver.names(site_file).occurrence(site).range;
                    if site_file != file
                        && let Some(symbol) = definitions.at(db, site_file, range.start())
                    {
                        imports.push((site_file, symbol));
                    }
                }
            }
            continue;
        }
        let from = enclosing.innermost(occurrence.range.start());
        targets.clear();
        for target in &resolution.targets {
            match target {
                Target::Module(module) => push_unique(&mut targets, (*module, None)),
                Target::Symbol { .. } => {
                    for (site_file, site) in resolver.definitions(target) {
                        let range = resolver.names(site_file).occurrence(site).range;
                        if let Some(symbol) = definitions.at(db, site_file, range.start()) {
                            push_unique(&mut targets, (site_file, Some(symbol)));
                        }
                    }
                }
                Target::External { .. } => {}
            }
        }
        for &(to_file, to) in &targets {
            // A definition using itself (recursion) says nothing of its importance.
            if to_file == file && to == from && to.is_some() {
                continue;
            }
            *counts.entry((from, to_file, to)).or_default() += 1;
        }
    }
    let mut edges: Vec<Reference> = counts
        .into_iter()
        .map(|((from, to_file, to), count)| Reference {
            from,
            to_file,
            to,
            count,
        })
        .collect();
    edges.sort_by(|a, b| {
        (a.from, a.to_file.path(db), a.to).cmp(&(b.from, b.to_file.path(db), b.to))
    });
    imports.sort_by(|a, b| (a.0.path(db), a.1).cmp(&(b.0.path(db), b.1)));
    imports.dedup();
    guessed.sort();
    guessed.dedup();
    // Kept for every file: no spare capacity from growing or from the duplicates removed.
    edges.shrink_to_fit();
    imports.shrink_to_fit();
    guessed.shrink_to_fit();
    Arc::new(FileReferences {
        edges,
        imports,
        guessed,
    })
}

/// Whether an occurrence uses a name (rather than binding, importing or declaring it).
pub(crate) fn is_use(role: Role) -> bool {
    matches!(
        role,
        Role::Read | Role::Call | Role::Type | Role::Member | Role::MemberCall | Role::MemberType
    )
}

/// The definition of each file whose name starts at an offset, built per file on first use.
#[derive(Default)]
pub(crate) struct DefinitionsByName {
    files: HashMap<SourceFile, HashMap<TextSize, u32>>,
}

impl DefinitionsByName {
    pub(crate) fn at(
        &mut self,
        db: &dyn Db,
        file: SourceFile,
        name_start: TextSize,
    ) -> Option<u32> {
        let starts = self.files.entry(file).or_insert_with(|| {
            file_symbols(db, file)
                .positions
                .iter()
                .enumerate()
                .map(|(i, p)| (p.name_range.start(), i as u32))
                .collect()
        });
        starts.get(&name_start).copied()
    }
}

/// The innermost definition around an offset, by the definitions' nesting.
pub(crate) struct Enclosing<'a> {
    summaries: &'a [SymbolSummary],
    positions: &'a [SymbolPositions],
    /// Definition indices by the start of their range.
    by_start: Vec<u32>,
}

impl<'a> Enclosing<'a> {
    pub(crate) fn new(summaries: &'a [SymbolSummary], positions: &'a [SymbolPositions]) -> Self {
        let mut by_start: Vec<u32> = (0..positions.len() as u32).collect();
        by_start.sort_by_key(|&i| (positions[i as usize].range.start(), i));
        Enclosing {
            summaries,
            positions,
            by_start,
        }
    }

    /// The last definition starting at or before `offset` is inside every definition
    /// around `offset` that starts before it (definitions nest), so the innermost one
    /// around `offset` is it or one of its parents.
    pub(crate) fn innermost(&self, offset: TextSize) -> Option<u32> {
        let after = self
            .by_start
            .partition_point(|&i| self.positions[i as usize].range.start() <= offset);
        let mut candidate = Some(*self.by_start.get(after.checked_sub(1)?)?);
        while let Some(i) = candidate {
            let range = self.positions[i as usize].range;
            if range.start() <= offset && offset < range.end() {
                return Some(i);
            }
            candidate = self.summaries[i as usize].parent();
        }
        None
    }
}

/// Every file's definitions and top level as nodes, with the edges between them.
#[derive(Debug, PartialEq, Eq)]
pub struct ReferenceGraph {
    /// The workspace's files, in path order.
    pub files: Arc<[SourceFile]>,
    /// Per file, its first node: its top level; its definition `k` is node `first + 1 + k`.
    /// One more entry at the end: the number of nodes.
    first_node: Vec<u32>,
    /// `(from, to, count)`, sorted, each pair once.
    pub edges: Vec<(u32, u32, u32)>,
    index: HashMap<SourceFile, u32>,
    /// The edges reversed, by target: node `n`'s users are
    /// `users[users_start[n]..users_start[n + 1]]`, in node order.
    users_start: Vec<u32>,
    users: Vec<u32>,
}

/// What a node stands for: a file (by its index in [`ReferenceGraph::files`]) and one of
/// its definitions, or its top level.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Node {
    pub file: u32,
    pub definition: Option<u32>,
}

impl ReferenceGraph {
    pub fn node_count(&self) -> usize {
        self.first_node.last().copied().unwrap_or(0) as usize
    }

    /// The index of `file` in [`ReferenceGraph::files`].
    pub fn file_index(&self, file: SourceFile) -> Option<u32> {
        self.index.get(&file).copied()
    }

    pub fn node_id(&self, node: Node) -> u32 {
        self.first_node[node.file as usize] + node.definition.map_or(0, |d| d + 1)
    }

    /// The nodes whose code refers to node `id`.
    pub fn users_of(&self, id: u32) -> &[u32] {
        let (start, end) = (
            self.users_start[id as usize],
            self.users_start[id as usize + 1],
        );
        &self.users[start as usize..end as usize]
    }

    pub fn node(&self, id: u32) -> Node {
        let file = self.first_node.partition_point(|&first| first <= id) - 1;
        let offset = id - self.first_node[file];
        Node {
            file: file as u32,
            definition: offset.checked_sub(1),
        }
    }

    /// The nodes of the file at `file`: its top level, then its definitions.
    pub fn nodes_of(&self, file: u32) -> std::ops::Range<u32> {
        self.first_node[file as usize]..self.first_node[file as usize + 1]
    }
}

/// The workspace's reference graph, from each file's [`file_references`].
#[salsa::tracked(returns(clone))]
pub fn reference_graph(db: &dyn Db, workspace: Workspace) -> Arc<ReferenceGraph> {
    let files = workspace.files(db).clone();
    let mut first_node = Vec::with_capacity(files.len() + 1);
    let mut next = 0u32;
    for &file in files.iter() {
        first_node.push(next);
        next += 1 + symbol_summaries(db, file).len() as u32;
    }
    first_node.push(next);
    let index: HashMap<SourceFile, u32> = files
        .iter()
        .enumerate()
        .map(|(i, &f)| (f, i as u32))
        .collect();
    let mut edges = Vec::new();
    for (i, &file) in files.iter().enumerate() {
        let first = first_node[i];
        for edge in &file_references(db, workspace, file).edges {
            let Some(&to_file) = index.get(&edge.to_file) else {
                continue;
            };
            let from = first + edge.from.map_or(0, |d| d + 1);
            let to = first_node[to_file as usize] + edge.to.map_or(0, |d| d + 1);
            if to >= first_node[to_file as usize + 1] {
                continue;
            }
            edges.push((from, to, edge.count));
        }
    }
    edges.sort_unstable();
    let (users_start, users) = reversed(&edges, next as usize);
    Arc::new(ReferenceGraph {
        files,
        first_node,
        edges,
        index,
        users_start,
        users,
    })
}

/// What the reference graph leaves out and an impact walk follows: imports by name, and
/// calls of members on receivers of unknown type.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct IndirectUsers {
    /// Per definition node, the top levels of the files importing it by name, in node
    /// order.
    pub importers: HashMap<u32, Vec<u32>>,
    /// Per member name, the nodes calling a member of that name on a receiver of unknown
    /// type, in node order.
    pub guessed: HashMap<String, Vec<u32>>,
}

/// The workspace's [`IndirectUsers`], in the node ids of [`reference_graph`]. A query of
/// its own so that an import or a guessed call changing leaves the ranks alone.
#[salsa::tracked(returns(clone))]
pub fn indirect_users(db: &dyn Db, workspace: Workspace) -> Arc<IndirectUsers> {
    let graph = reference_graph(db, workspace);
    let mut users = IndirectUsers::default();
    for (i, &file) in graph.files.iter().enumerate() {
        let top = graph.node_id(Node {
            file: i as u32,
            definition: None,
        });
        let references = file_references(db, workspace, file);
        for &(to_file, to) in &references.imports {
            let Some(to_file) = graph.file_index(to_file) else {
                continue;
            };
            if graph.first_node[to_file as usize] + to + 1 >= graph.first_node[to_file as usize + 1]
            {
                continue;
            }
            let to = graph.node_id(Node {
                file: to_file,
                definition: Some(to),
            });
            users.importers.entry(to).or_default().push(top);
        }
        for (from, name) in &references.guessed {
            let from = graph.node_id(Node {
                file: i as u32,
                definition: *from,
            });
            users.guessed.entry(name.clone()).or_default().push(from);
        }
    }
    Arc::new(users)
}

/// `edges` by target, as offsets per node into a list of sources (compressed rows).
fn reversed(edges: &[(u32, u32, u32)], node_count: usize) -> (Vec<u32>, Vec<u32>) {
    let mut start = vec![0u32; node_count + 1];
    for &(_, to, _) in edges {
        start[to as usize + 1] += 1;
    }
    for i in 0..node_count {
        start[i + 1] += start[i];
    }
    let mut filled = start.clone();
    let mut users = vec![0u32; edges.len()];
    // `edges` is sorted by source, so each row fills in node order.
    for &(from, to, _) in edges {
        users[filled[to as usize] as usize] = from;
        filled[to as usize] += 1;
    }
    (start, users)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(sizes: &[u32]) -> ReferenceGraph {
        let mut first_node = vec![0];
        for size in sizes {
            first_node.push(first_node.last().unwrap() + 1 + size);
        }
        let node_count = *first_node.last().unwrap() as usize;
        ReferenceGraph {
            files: Arc::new([]),
            first_node,
            edges: Vec::new(),
            index: HashMap::new(),
            users_start: vec![0; node_count + 1],
            users: Vec::new(),
        }
    }

    #[test]
    fn node_ids_round_trip() {
        let g = graph(&[2, 0, 3]);
        assert_eq!(g.node_count(), 8);
        for id in 0..g.node_count() as u32 {
            assert_eq!(g.node_id(g.node(id)), id);
        }
        let expected = Node {
            file: 2,
            definition: Some(1),
        };
        assert_eq!(g.node(6), expected);
        assert_eq!(g.nodes_of(1), 3..4);
    }

    #[test]
    fn users_are_the_edges_reversed() {
        let edges = [(0, 2, 1), (1, 2, 3), (1, 3, 1), (3, 0, 1)];
        let (start, users) = reversed(&edges, 4);
        assert_eq!(start, [0, 1, 1, 3, 4]);
        assert_eq!(users, [3, 0, 1, 1]);
    }
}
