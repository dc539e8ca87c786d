//! `repo_map`: the workspace (or the files under a path) as its most-used definitions'
//! signature lines, ranked by how much the rest of the code uses them
//! (`engine::rank` over `engine::reference_graph`) and cut to a token budget, so a few
//! thousand tokens show a large repository's main shapes.
//!
//! Definitions go in by rank (ties: path, then definition order in the file); each brings
//! the definitions around it (a method its class) as context lines. The text groups them
//! by file, files in the order of their best-ranked definition, definitions in file order,
//! each line `LINE: signature` indented by nesting.
//!
//! Invariant: the definitions shown are the first ones of the rank order (a prefix, never
//! a later one skipped in for an earlier one that did not fit); `tokens` is the exact
//! count of `text`, which never exceeds the budget, and a cut map says how many
//! definitions it left out.

use std::{
    collections::{HashMap, HashSet},
    fmt::Write as _,
    sync::Arc,
};

use serde::Serialize;

use super::{Budget, Encoding};
use crate::{
    db::{Db, Workspace},
    engine::{
        rank::{Ranks, definition_ranks, page_rank},
        reference_graph::{Node, ReferenceGraph, reference_graph},
    },
    semantic::symbols::{SymbolKind, file_symbols, symbol_summaries},
};

/// What to map: the files under `path_prefix` (a file or directory, workspace-relative;
/// none: the whole workspace), ranked with the teleport mass biased toward `focus` (paths
/// of files or directories, or definitions' names: `name`, `Class.method`).
#[derive(Clone, Debug)]
pub struct RepoMapRequest {
    pub path_prefix: Option<String>,
    pub focus: Vec<String>,
    pub budget: Budget,
}

#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct RepoMap {
    /// Per file a `path:` line, then `LINE: signature` lines.
    pub text: String,
    /// The exact tokens of `text`.
    pub tokens: usize,
    pub encoding: Encoding,
    pub max_tokens: usize,
    /// The definitions chosen, in rank order (context lines around them not listed).
    pub definitions: Vec<MapDefinition>,
    /// Definitions under the path in all.
    pub definition_count: usize,
    /// Files with a line in the text.
    pub files_shown: usize,
    /// Files under the path in all.
    pub file_count: usize,
    /// Whether definitions were left out for the budget.
    pub truncated: bool,
    /// Focus entries that named no file and no definition.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unmatched_focus: Vec<String>,
    /// The path, when the workspace indexes no file under it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unmatched_path: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct MapDefinition {
    pub path: String,
    /// Its first 1-based line.
    pub line: u32,
    pub name: String,
    pub kind: SymbolKind,
}

/// A definition in line for the map.
#[derive(Clone, Copy, Debug)]
struct Candidate {
    node: Node,
    rank: f64,
}

pub(crate) fn repo_map(db: &dyn Db, workspace: Workspace, request: &RepoMapRequest) -> RepoMap {
    let graph = reference_graph(db, workspace);
    let prefix: Vec<String> = request.path_prefix.iter().cloned().collect();
    let (files, unmatched) = super::diagnostics::files_under(db, workspace, &prefix);
    let (focus, unmatched_focus) = focus_nodes(db, workspace, &graph, &request.focus);
    let ranks: Arc<Ranks> = match focus.is_empty() {
        true => definition_ranks(db, workspace),
        false => Arc::new(page_rank(&graph.edges, graph.node_count(), &focus)),
    };
    let file_indices: Vec<u32> = files.iter().filter_map(|&f| graph.file_index(f)).collect();
    let candidates = ranked(db, &graph, &ranks, &file_indices);
    let budget = request.budget;
    let mut map = Map::new(db, &graph);
    let (mut text, mut shown) = map.fit(&candidates, budget);
    if shown == 0 && !candidates.is_empty() {
        // Too small for a definition and the note: the first definitions without it.
        map.note = false;
        (text, shown) = map.fit(&candidates, budget);
    }
    RepoMap {
        tokens: budget.encoding.count(&text),
        text,
        encoding: budget.encoding,
        max_tokens: budget.max_tokens,
        definitions: candidates[..shown]
            .iter()
            .map(|c| map.definition(c.node))
            .collect(),
        definition_count: candidates.len(),
        files_shown: map.files_of(&candidates[..shown]),
        file_count: files.len(),
        truncated: shown < candidates.len(),
        unmatched_focus,
        unmatched_path: unmatched.into_iter().next(),
    }
}

/// The nodes `focus` names (every node of a file or a directory's files; definitions by
/// name or `Container.name`), and the entries that name nothing.
fn focus_nodes(
    db: &dyn Db,
    workspace: Workspace,
    graph: &ReferenceGraph,
    focus: &[String],
) -> (Vec<u32>, Vec<String>) {
    let mut nodes = Vec::new();
    let mut unmatched = Vec::new();
    for entry in focus {
        let before = nodes.len();
        let (files, _) =
            super::diagnostics::files_under(db, workspace, std::slice::from_ref(entry));
        let is_path = !entry.trim_matches('/').is_empty() && entry != ".";
        if is_path {
            for file in files.iter().filter_map(|&f| graph.file_index(f)) {
                nodes.extend(graph.nodes_of(file));
            }
        }
        if nodes.len() == before {
            for (i, &file) in graph.files.iter().enumerate() {
                for (k, summary) in symbol_summaries(db, file).iter().enumerate() {
                    if summary.name == *entry || summary.qualified_name() == *entry {
                        nodes.push(graph.node_id(Node {
                            file: i as u32,
                            definition: Some(k as u32),
                        }));
                    }
                }
            }
        }
        if nodes.len() == before {
            unmatched.push(entry.clone());
        }
    }
    nodes.sort_unstable();
    nodes.dedup();
    (nodes, unmatched)
}

/// The definitions of `files` (graph indices, path order) by rank, then path, then their
/// order in the file; impl blocks, which name no definition of their own, only as context.
fn ranked(db: &dyn Db, graph: &ReferenceGraph, ranks: &Ranks, files: &[u32]) -> Vec<Candidate> {
    let mut candidates = Vec::new();
    for &file in files {
        let summaries = symbol_summaries(db, graph.files[file as usize]);
        for (k, summary) in summaries.iter().enumerate() {
            if !summary.kind.defines_name() {
                continue;
            }
            let node = Node {
                file,
                definition: Some(k as u32),
            };
            let rank = ranks.0.get(graph.node_id(node) as usize).copied();
            candidates.push(Candidate {
                node,
                rank: rank.unwrap_or(0.0),
            });
        }
    }
    // Files are in path order and definitions in file order already: a stable sort by
    // rank keeps that order among equals.
    candidates.sort_by(|a, b| b.rank.total_cmp(&a.rank));
    candidates
}

/// The lines chosen so far, and how to render them.
struct Map<'a> {
    db: &'a dyn Db,
    graph: &'a ReferenceGraph,
    /// Lines per node, with their token counts, computed once.
    lines: HashMap<Node, (String, usize)>,
    /// Whether a cut map ends with a line saying how many definitions it left out.
    note: bool,
}

impl<'a> Map<'a> {
    fn new(db: &'a dyn Db, graph: &'a ReferenceGraph) -> Self {
        Map {
            db,
            graph,
            lines: HashMap::new(),
            note: true,
        }
    }

    /// How many of the first candidates fit, by the sum of their lines' counts (new lines
    /// only, a path header for a new file) and the note on what is left out; the caller
    /// checks the rendered text, which can only differ where tokens merge across lines.
    fn fill(&mut self, candidates: &[Candidate], budget: Budget) -> usize {
        let mut shown: HashSet<Node> = HashSet::new();
        let mut files: HashSet<u32> = HashSet::new();
        let note = match self.note {
            true => budget.encoding.count(&left_out_note(candidates.len())),
            false => 0,
        };
        let mut spent = 0usize;
        for (i, candidate) in candidates.iter().enumerate() {
            let mut cost = 0;
            if !files.contains(&candidate.node.file) {
                cost += budget.encoding.count(&self.header(candidate.node.file));
            }
            let lines: Vec<Node> = self
                .with_context(candidate.node)
                .into_iter()
                .filter(|n| !shown.contains(n))
                .collect();
            for &node in &lines {
                cost += self.line(node, budget.encoding).1;
            }
            let rest_note = if i + 1 < candidates.len() { note } else { 0 };
            if spent + cost + rest_note > budget.max_tokens {
                return i;
            }
            spent += cost;
            files.insert(candidate.node.file);
            shown.extend(lines);
        }
        candidates.len()
    }

    /// The text of the first candidates that [`Map::fill`] estimates to fit, fewer until
    /// the text does.
    fn fit(&mut self, candidates: &[Candidate], budget: Budget) -> (String, usize) {
        let mut shown = self.fill(candidates, budget);
        loop {
            let text = self.render(
                &candidates[..shown],
                candidates.len() - shown,
                budget.encoding,
            );
            if shown == 0 || budget.admits(&text) {
                return match shown {
                    0 => (String::new(), 0),
                    _ => (text, shown),
                };
            }
            shown -= 1;
        }
    }

    /// The text: per file (in the order of its first chosen definition) a header, then the
    /// lines of its chosen definitions and their context in file order; then what is left
    /// out.
    fn render(&mut self, chosen: &[Candidate], left_out: usize, encoding: Encoding) -> String {
        let mut order: Vec<u32> = Vec::new();
        let mut per_file: HashMap<u32, Vec<Node>> = HashMap::new();
        for candidate in chosen {
            let file = candidate.node.file;
            if !per_file.contains_key(&file) {
                order.push(file);
            }
            per_file
                .entry(file)
                .or_default()
                .extend(self.with_context(candidate.node));
        }
        let mut text = String::new();
        for file in order {
            let mut nodes = per_file.remove(&file).unwrap_or_default();
            nodes.sort_unstable();
            nodes.dedup();
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(&self.header(file));
            for node in nodes {
                text.push_str(&self.line(node, encoding).0);
            }
        }
        if left_out > 0 && self.note {
            text.push_str(&left_out_note(left_out));
        }
        text
    }

    fn header(&self, file: u32) -> String {
        format!("{}:\n", self.graph.files[file as usize].path(self.db))
    }

    /// `node` and the definitions around it, outermost first.
    fn with_context(&self, node: Node) -> Vec<Node> {
        let summaries = symbol_summaries(self.db, self.graph.files[node.file as usize]);
        let mut chain = Vec::new();
        let mut at = node.definition;
        while let Some(k) = at {
            chain.push(Node {
                file: node.file,
                definition: Some(k),
            });
            at = summaries.get(k as usize).and_then(|s| s.parent());
        }
        chain.reverse();
        chain
    }

    /// `node`'s line (`LINE: signature`, indented two spaces per enclosing definition) and
    /// its token count alone.
    fn line(&mut self, node: Node, encoding: Encoding) -> &(String, usize) {
        let (db, graph) = (self.db, self.graph);
        self.lines.entry(node).or_insert_with(|| {
            let file = graph.files[node.file as usize];
            let symbols = file_symbols(db, file);
            let k = node.definition.unwrap_or(0) as usize;
            let mut depth = 0;
            let mut parent = symbols.summaries[k].parent();
            while let Some(p) = parent {
                depth += 1;
                parent = symbols.summaries[p as usize].parent();
            }
            let mut line = String::new();
            let _ = writeln!(
                line,
                "{}: {}{}",
                symbols.positions[k].start.line,
                "  ".repeat(depth),
                symbols.signatures.get(k)
            );
            let count = encoding.count(&line);
            (line, count)
        })
    }

    fn definition(&self, node: Node) -> MapDefinition {
        let file = self.graph.files[node.file as usize];
        let symbols = file_symbols(self.db, file);
        let k = node.definition.unwrap_or(0) as usize;
        MapDefinition {
            path: file.path(self.db).clone(),
            line: symbols.positions[k].start.line,
            name: symbols.summaries[k].name.to_string(),
            kind: symbols.summaries[k].kind,
        }
    }

    fn files_of(&self, chosen: &[Candidate]) -> usize {
        chosen
            .iter()
            .map(|c| c.node.file)
            .collect::<HashSet<_>>()
            .len()
    }
}

/// The last line of a cut map, when it fits.
fn left_out_note(left_out: usize) -> String {
    format!("\n… {left_out} more definitions (raise max_tokens, narrow the path or focus)\n")
}
