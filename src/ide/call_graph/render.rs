//! A call graph written out: as an indented tree for people and models ([`text`]), as
//! Graphviz DOT ([`dot`]) and as a Mermaid flowchart ([`mermaid`]); and [`fit`], which cuts
//! a graph's farthest edges until its text fits a token budget.

use std::fmt::Write;

use super::{CallEdge, CallGraph, CallGraphError, CallItem, EdgeKind};
use crate::ide::{Budget, Certainty, SymbolKind};

/// Sites listed on one line of the text; the rest are counted.
const MAX_LISTED_SITES: usize = 5;

/// `kind Container.name`, or `top level of path` for a file's top level.
fn label(item: &CallItem) -> String {
    if item.kind == SymbolKind::Module {
        return format!("top level of {}", item.path);
    }
    match &item.container {
        Some(container) => format!("{} {container}.{}", item.kind, item.name),
        None => format!("{} {}", item.kind, item.name),
    }
}

/// The label with the place: `function f (a.py:3)`; a top level names its file already.
fn titled(item: &CallItem) -> String {
    match item.kind {
        SymbolKind::Module => label(item),
        _ => format!("{} ({})", label(item), location(item)),
    }
}

fn location(item: &CallItem) -> String {
    match item.kind {
        SymbolKind::Module => item.path.clone(),
        _ => format!("{}:{}", item.path, item.name_span.start.line),
    }
}

/// The graph as a tree per direction from the start: each caller (or callee) under the
/// definition it calls (or is called by), with the sites; a definition reached again is
/// listed again but expanded once.
pub fn text(graph: &CallGraph) -> String {
    let mut out = String::new();
    let root = &graph.nodes[0];
    let _ = writeln!(out, "{}", titled(root));
    for incoming in [true, false] {
        if !graph.direction.walks(incoming) {
            continue;
        }
        let heading = match incoming {
            true => "called by:",
            false => "calls:",
        };
        let _ = writeln!(out, "{heading}");
        let before = out.len();
        tree(graph, incoming, 0, 1, &mut vec![0], &mut out);
        if out.len() == before {
            out.push_str("  (none found)\n");
        }
    }
    if graph.truncated {
        out.push_str("(more were found than are shown: ask for a smaller depth or more tokens)\n");
    }
    out
}

/// The edges found expanding `node` in one direction, each on a line indented by `level`,
/// followed by the other end's own, when this edge is the one that found it.
fn tree(
    graph: &CallGraph,
    incoming: bool,
    node: usize,
    level: usize,
    path: &mut Vec<usize>,
    out: &mut String,
) {
    for (i, edge) in graph.edges.iter().enumerate() {
        if edge.incoming != incoming || expanded_end(edge) != node {
            continue;
        }
        let other = other_end(edge);
        let item = &graph.nodes[other];
        let _ = write!(
            out,
            "{}{}: {}",
            "  ".repeat(level),
            titled(item),
            sites(edge)
        );
        if edge.certainty == Certainty::Heuristic {
            out.push_str(" (heuristic: matched by name)");
        }
        let found_here = first_edge_to(graph, incoming, other) == Some(i);
        let has_own = graph
            .edges
            .iter()
            .any(|e| e.incoming == incoming && expanded_end(e) == other);
        if path.contains(&other) {
            out.push_str(" (recursive)");
        } else if has_own && !found_here {
            out.push_str(" (expanded at its first mention)");
        }
        out.push('\n');
        if found_here && !path.contains(&other) {
            path.push(other);
            tree(graph, incoming, other, level + 1, path, out);
            path.pop();
        }
    }
}

/// The end of an edge the walk stood on when it found the edge.
fn expanded_end(edge: &CallEdge) -> usize {
    if edge.incoming {
        edge.callee
    } else {
        edge.caller
    }
}

fn other_end(edge: &CallEdge) -> usize {
    if edge.incoming {
        edge.caller
    } else {
        edge.callee
    }
}

fn first_edge_to(graph: &CallGraph, incoming: bool, node: usize) -> Option<usize> {
    graph
        .edges
        .iter()
        .position(|e| e.incoming == incoming && other_end(e) == node)
}

/// `call at 3:5` / `calls at 3:5, 9:1 and 4 more` / `reference at …`.
fn sites(edge: &CallEdge) -> String {
    let noun = match (edge.kind, edge.sites.len()) {
        (EdgeKind::Call, 1) => "call",
        (EdgeKind::Call, _) => "calls",
        (EdgeKind::Reference, 1) => "reference",
        (EdgeKind::Reference, _) => "references",
    };
    let listed: Vec<String> = edge
        .sites
        .iter()
        .take(MAX_LISTED_SITES)
        .map(|s| format!("{}:{}", s.start.line, s.start.column))
        .collect();
    let more = edge.sites.len().saturating_sub(MAX_LISTED_SITES);
    match more {
        0 => format!("{noun} at {}", listed.join(", ")),
        n => format!("{noun} at {} and {n} more", listed.join(", ")),
    }
}

/// Graphviz DOT: a box per definition (the start in bold), an arrow from caller to callee;
/// dashed when heuristic, labelled `reference` for a callback.
pub fn dot(graph: &CallGraph) -> String {
    let quoted = |s: &str| s.replace('\\', "\\\\").replace('"', "\\\"");
    let mut out = String::from("digraph calls {\n  rankdir=LR;\n  node [shape=box];\n");
    for (i, item) in graph.nodes.iter().enumerate() {
        let bold = if i == 0 { ", style=bold" } else { "" };
        let _ = writeln!(
            out,
            "  n{i} [label=\"{}\\n{}\"{bold}];",
            quoted(&label(item)),
            quoted(&location(item))
        );
    }
    for edge in &graph.edges {
        let mut attributes = vec![format!("tooltip=\"{}\"", sites(edge))];
        if edge.kind == EdgeKind::Reference {
            attributes.push("label=\"reference\"".into());
        }
        if edge.certainty == Certainty::Heuristic {
            attributes.push("style=dashed".into());
        }
        let _ = writeln!(
            out,
            "  n{} -> n{} [{}];",
            edge.caller,
            edge.callee,
            attributes.join(", ")
        );
    }
    out.push_str("}\n");
    out
}

/// A Mermaid flowchart, left to right: `-->` for exact edges, `-.->` for heuristic ones,
/// callbacks labelled `reference`.
pub fn mermaid(graph: &CallGraph) -> String {
    let escaped = |s: &str| {
        s.replace('&', "#amp;")
            .replace('"', "#quot;")
            .replace('<', "#lt;")
            .replace('>', "#gt;")
    };
    let mut out = String::from("flowchart LR\n");
    for (i, item) in graph.nodes.iter().enumerate() {
        let _ = writeln!(
            out,
            "  n{i}[\"{}<br/>{}\"]",
            escaped(&label(item)),
            escaped(&location(item))
        );
    }
    for edge in &graph.edges {
        let arrow = match edge.certainty {
            Certainty::Exact => "-->",
            Certainty::Heuristic => "-.->",
        };
        let text = match edge.kind {
            EdgeKind::Call => String::new(),
            EdgeKind::Reference => "|reference|".into(),
        };
        let _ = writeln!(out, "  n{} {arrow}{text} n{}", edge.caller, edge.callee);
    }
    out
}

/// Sets `graph.text` to its text within `budget`, dropping the farthest edges (and the
/// definitions only they reached) as needed: as many of the nearest edges as fit.
pub(super) fn fit(graph: &mut CallGraph, budget: &Budget) -> Result<(), CallGraphError> {
    let mut order: Vec<usize> = (0..graph.edges.len()).collect();
    order.sort_by_key(|&i| (graph.edges[i].distance, i));
    let whole = order.len();
    let (kept, text) = budget
        .most_that_fit(whole, |n| match n == whole {
            true => text(graph),
            false => text(&keeping(graph, &order[..n])),
        })
        .ok_or(CallGraphError::OverBudget(budget.max_tokens))?;
    if kept < whole {
        *graph = keeping(graph, &order[..kept]);
    }
    graph.tokens = Some(budget.encoding.count(&text));
    graph.text = text;
    Ok(())
}

/// `graph` with only the edges at `kept` (and the definitions they join, the start first).
fn keeping(graph: &CallGraph, kept: &[usize]) -> CallGraph {
    let mut kept = kept.to_vec();
    kept.sort_unstable();
    let mut renumber: Vec<Option<usize>> = vec![None; graph.nodes.len()];
    renumber[0] = Some(0);
    let mut nodes = vec![graph.nodes[0].clone()];
    let mut number = |old: usize, nodes: &mut Vec<CallItem>| {
        *renumber[old].get_or_insert_with(|| {
            nodes.push(graph.nodes[old].clone());
            nodes.len() - 1
        })
    };
    let edges = kept
        .iter()
        .map(|&i| {
            let edge = &graph.edges[i];
            CallEdge {
                caller: number(edge.caller, &mut nodes),
                callee: number(edge.callee, &mut nodes),
                ..edge.clone()
            }
        })
        .collect();
    CallGraph {
        direction: graph.direction,
        depth: graph.depth,
        nodes,
        edges,
        truncated: true,
        text: String::new(),
        tokens: None,
    }
}
