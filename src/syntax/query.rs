//! Running a language's query over a tree, starting only where its patterns can begin.
//!
//! Invariant: the matches are those of a query cursor run over the whole tree (down to
//! [`MAX_START_DEPTH`]), in the cursor's order per starting node; only the cost differs.
//! When every pattern is rooted at known node kinds (`lang/roots.rs`), a plain walk finds
//! the nodes where a pattern can start and the cursor starts only there: a cursor over a
//! whole tree costs about half a parse even for one trivial pattern. Tags use it today;
//! locals, imports, indents and folds will too. The walk enters a node only if its kind
//! can hold a root (by the grammar's `node-types.json`, `lang/kinds.rs`) or it has an
//! error below it: a pattern starts at the same nodes, in the same scopes, as in a walk of
//! every node.
//!
//! The runner also evaluates the engine's own predicate, `#scope?` (`lang/scopes.rs`): the
//! walk knows the nearest enclosing scope of every node; where no scoped pattern can hold
//! it runs the query's copy without them, elsewhere it keeps a scoped pattern's matches
//! only where its scope holds.

use tree_sitter::{Node, QueryMatch, StreamingIterator, Tree};

use super::{Interrupt, NEVER};
use crate::lang::{Language, QueryKind, ScopeFilter};

/// Tree depth below which no pattern starts matching. Pathologically deep trees make some
/// patterns quadratic (20 000 nested parentheses took 11 s in TypeScript); nothing a query
/// looks for sits this deep.
pub const MAX_START_DEPTH: u32 = 500;

/// Nodes walked between two questions to `interrupt`.
const INTERRUPT_EVERY: u32 = 4096;

/// Runs `lang`'s query of `kind` over `tree` (parsed from `text`), handing each match to
/// `on_match`. Returns false when the language has no such query, or when `interrupt`
/// stopped the run (the matches handed so far are then incomplete).
pub fn run_query<'t>(
    lang: &Language,
    kind: QueryKind,
    tree: &'t Tree,
    text: &str,
    interrupt: Interrupt,
    on_match: impl FnMut(&QueryMatch<'_, 't>),
) -> bool {
    walk_query(lang, kind, tree, text, interrupt, Descent::Pruned, on_match)
}

/// [`run_query`] with a walk that enters every node, not only those that can hold a
/// pattern's start: the reference the tests and benchmarks hold `run_query` to (the same
/// matches, in the same order).
pub fn run_query_entering_every_node<'t>(
    lang: &Language,
    kind: QueryKind,
    tree: &'t Tree,
    text: &str,
    on_match: impl FnMut(&QueryMatch<'_, 't>),
) -> bool {
    walk_query(lang, kind, tree, text, NEVER, Descent::Everywhere, on_match)
}

/// Which nodes the walk for pattern starts enters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Descent {
    /// Those whose kind can hold a root, or that have an error below them.
    Pruned,
    Everywhere,
}

/// [`run_query`], entering the nodes `descent` says.
fn walk_query<'t>(
    lang: &Language,
    kind: QueryKind,
    tree: &'t Tree,
    text: &str,
    interrupt: Interrupt,
    descent: Descent,
    mut on_match: impl FnMut(&QueryMatch<'_, 't>),
) -> bool {
    let Some(query) = lang.query(kind) else {
        return false;
    };
    let mut cursor = tree_sitter::QueryCursor::new();
    let Some(roots) = lang.query_roots(kind) else {
        // A query using `#scope?` always has roots (checked when it is compiled).
        cursor.set_max_start_depth(Some(MAX_START_DEPTH));
        let mut matches = cursor.matches(query, tree.root_node(), text.as_bytes());
        while let Some(m) = matches.next() {
            on_match(m);
        }
        return !interrupt();
    };
    let scope_filter = lang.query_scope_filter(kind);
    let mut walk = tree.walk();
    // The nodes the walk is under, outermost first (`ancestors.len() == depth`), and for
    // each the kind of the nearest scope its children are in.
    let mut ancestors: Vec<Node<'t>> = Vec::new();
    let mut scopes: Vec<Option<u16>> = Vec::new();
    let mut depth = 0u32;
    let mut visited = 0u32;
    let is_root =
        |node: Node| roots.contains(node.kind_id()) || (roots.error_nodes && node.is_error());
    // Parents searched because of a wildcard-rooted pattern (and not roots themselves).
    let mut searched_parents: std::collections::HashSet<usize> = Default::default();
    'walk: loop {
        visited += 1;
        if visited.is_multiple_of(INTERRUPT_EVERY) && interrupt() {
            return false;
        }
        let node = walk.node();
        let start = is_root(node).then_some(node);
        let parent = if roots.starts_at_parent_of(node.kind_id()) {
            ancestors
                .last()
                .copied()
                .filter(|p| !is_root(*p) && !searched_parents.contains(&p.id()))
        } else {
            None
        };
        if let Some(p) = parent {
            searched_parents.insert(p.id());
        }
        // A wildcard-rooted pattern enters the cursor at its first concrete step, one level
        // down: searching from the parent needs a start depth of 1 (callers merge matches
        // found twice this way).
        let scope = scopes.last().copied().flatten();
        // Scoped patterns start at named kinds only, so a search from a parent keeps none of
        // them (the children it reaches are roots of their own, searched in their scope).
        let searches = start
            .map(|n| (n, 0, scope))
            .into_iter()
            .chain(parent.map(|p| (p, 1, None)));
        for search in searches {
            search_from(
                &mut cursor,
                query,
                scope_filter,
                search,
                text,
                &mut on_match,
            );
        }
        let enter = match descent {
            Descent::Pruned => roots.may_start_below(node.kind_id()) || node.has_error(),
            Descent::Everywhere => true,
        };
        if enter && depth < MAX_START_DEPTH && walk.goto_first_child() {
            ancestors.push(node);
            scopes.push(if lang.scopes.contains(node.kind_id()) {
                Some(node.kind_id())
            } else {
                scope
            });
            depth += 1;
            continue;
        }
        loop {
            if walk.goto_next_sibling() {
                continue 'walk;
            }
            if depth == 0 || !walk.goto_parent() {
                break 'walk;
            }
            ancestors.pop();
            scopes.pop();
            depth -= 1;
        }
    }
    true
}

/// Runs `query` from `at` down to `max_depth` levels for its first step, in `scope` (the
/// kind of the nearest scope around `at`'s children). Where no scoped pattern can hold,
/// the copy of the query without them runs; else the whole query, keeping a scoped
/// pattern's matches only where it holds.
fn search_from<'t>(
    cursor: &mut tree_sitter::QueryCursor,
    query: &tree_sitter::Query,
    scope_filter: Option<&ScopeFilter>,
    (at, max_depth, scope): (Node<'t>, u32, Option<u16>),
    text: &str,
    on_match: &mut impl FnMut(&QueryMatch<'_, 't>),
) {
    let (query, filter) = match scope_filter {
        Some(f) => match f.elsewhere(scope) {
            Some(elsewhere) => (elsewhere, None),
            None => (query, Some(f)),
        },
        None => (query, None),
    };
    cursor.set_max_start_depth(Some(max_depth));
    let mut matches = cursor.matches(query, at, text.as_bytes());
    while let Some(m) = matches.next() {
        if filter.is_none_or(|f| f.holds(m.pattern_index, scope)) {
            on_match(m);
        }
    }
}
