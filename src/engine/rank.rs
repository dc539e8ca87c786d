//! How much the rest of the code leans on each definition: PageRank over the reference
//! graph ([`super::reference_graph`]), with the teleport mass optionally biased toward
//! nodes a caller names (personalised PageRank).
//!
//! Ranks are over definitions and files' top levels directly, not files first: an edge
//! already names the definition used, so a definition's rank comes from the code that uses
//! it (weighted by how often, and by how important that code is in turn), and a file with
//! one much-used function among fifty unused ones does not lift the fifty. A node with no
//! edges out (a constant, a leaf function) gives its rank back through the teleport, so
//! ranks always sum to 1.
//!
//! Invariant: ranks are a pure function of the graph and the focus: the same inputs give
//! bit-identical ranks (fixed summation order), so orders built on them are stable; the
//! un-personalised ranks are memoized per workspace ([`definition_ranks`]) and re-run only
//! when the graph changes.

use std::sync::Arc;

use super::reference_graph::reference_graph;
use crate::db::{Db, Workspace};

/// The probability of following an edge rather than teleporting.
pub const DAMPING: f64 = 0.85;
/// Iterations at most; the total change per iteration shrinks by `DAMPING` at least.
const MAX_ITERATIONS: usize = 100;
/// Stop once an iteration changes the ranks by less than this in total (L1).
const TOLERANCE: f64 = 1e-9;
/// The part of the teleport mass that goes to the focused nodes when there are some; the
/// rest stays spread over every node, so code far from the focus is still ranked.
const FOCUS_SHARE: f64 = 0.5;

/// One rank per node of the reference graph, summing to 1.
#[derive(Clone, Debug, Default)]
pub struct Ranks(pub Vec<f64>);

impl PartialEq for Ranks {
    fn eq(&self, other: &Self) -> bool {
        self.0.len() == other.0.len()
            && self
                .0
                .iter()
                .zip(&other.0)
                .all(|(a, b)| a.to_bits() == b.to_bits())
    }
}

impl Eq for Ranks {}

/// The workspace's un-personalised ranks, memoized.
#[salsa::tracked(returns(clone))]
pub fn definition_ranks(db: &dyn Db, workspace: Workspace) -> Arc<Ranks> {
    let graph = reference_graph(db, workspace);
    Arc::new(page_rank(&graph.edges, graph.node_count(), &[]))
}

/// PageRank over `node_count` nodes and weighted `edges` (`(from, to, weight)`), with the
/// teleport mass biased toward `focus` (none: uniform).
pub fn page_rank(edges: &[(u32, u32, u32)], node_count: usize, focus: &[u32]) -> Ranks {
    if node_count == 0 {
        return Ranks::default();
    }
    let teleport = teleport(node_count, focus);
    let mut out_weight = vec![0f64; node_count];
    for &(from, _, weight) in edges {
        out_weight[from as usize] += f64::from(weight);
    }
    // Each edge's share of its source's rank.
    let shares: Vec<f64> = edges
        .iter()
        .map(|&(from, _, weight)| f64::from(weight) / out_weight[from as usize])
        .collect();
    let mut rank = teleport.clone();
    let mut next = vec![0f64; node_count];
    for _ in 0..MAX_ITERATIONS {
        let dangling: f64 = (0..node_count)
            .filter(|&i| out_weight[i] == 0.0)
            .map(|i| rank[i])
            .sum();
        let spread = DAMPING * dangling + (1.0 - DAMPING);
        for (slot, t) in next.iter_mut().zip(&teleport) {
            *slot = spread * t;
        }
        for (&(from, to, _), share) in edges.iter().zip(&shares) {
            next[to as usize] += DAMPING * rank[from as usize] * share;
        }
        let change: f64 = rank.iter().zip(&next).map(|(a, b)| (a - b).abs()).sum();
        std::mem::swap(&mut rank, &mut next);
        if change < TOLERANCE {
            break;
        }
    }
    Ranks(rank)
}

/// Where a random walk restarts: every node alike, or half of the mass on the focus.
fn teleport(node_count: usize, focus: &[u32]) -> Vec<f64> {
    let focused: Vec<u32> = focus
        .iter()
        .copied()
        .filter(|&f| (f as usize) < node_count)
        .collect();
    let everywhere = match focused.is_empty() {
        true => 1.0,
        false => 1.0 - FOCUS_SHARE,
    };
    let mut teleport = vec![everywhere / node_count as f64; node_count];
    for &f in &focused {
        teleport[f as usize] += FOCUS_SHARE / focused.len() as f64;
    }
    teleport
}

#[cfg(test)]
mod tests {
    use super::*;

    fn order(ranks: &Ranks) -> Vec<usize> {
        let mut nodes: Vec<usize> = (0..ranks.0.len()).collect();
        nodes.sort_by(|&a, &b| ranks.0[b].total_cmp(&ranks.0[a]).then(a.cmp(&b)));
        nodes
    }

    #[test]
    fn ranks_sum_to_one_and_favour_what_is_used_more() {
        // 0 is used by 1, 2 and 3; 4 by 1 only.
        let edges = [(1, 0, 1), (2, 0, 1), (3, 0, 1), (1, 4, 1)];
        let ranks = page_rank(&edges, 5, &[]);
        let total: f64 = ranks.0.iter().sum();
        assert!((total - 1.0).abs() < 1e-9, "{total}");
        assert_eq!(order(&ranks), vec![0, 4, 1, 2, 3]);
    }

    #[test]
    fn focus_lifts_a_node_and_what_it_uses() {
        let edges = [(1, 0, 1), (2, 0, 1), (3, 0, 1), (3, 4, 1)];
        assert_eq!(order(&page_rank(&edges, 5, &[]))[0], 0);
        let focused = page_rank(&edges, 5, &[3]);
        assert_eq!(order(&focused)[..2], [3, 0]);
        assert!(focused.0[4] > focused.0[1]);
    }

    #[test]
    fn weights_split_a_sources_rank() {
        let edges = [(0, 1, 3), (0, 2, 1)];
        let ranks = page_rank(&edges, 3, &[]);
        assert!(ranks.0[1] > ranks.0[2]);
        assert_eq!(page_rank(&edges, 3, &[]), ranks);
        assert_eq!(page_rank(&[], 0, &[]), Ranks::default());
    }
}
