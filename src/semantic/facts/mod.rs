//! Facts that describe code, for other files' checks and for navigation: per file, a
//! position-free summary (a Python module's names and signatures, a JavaScript or
//! TypeScript module's globals, exports and signatures, a Go file's package-level names and
//! signatures, the imports that run when a file is loaded). `checks` reads them to judge
//! one file against the others.
//!
//! Invariant (incremental): every per-file fact depends on its own file alone and holds no
//! position, so it backdates after an edit inside a body, and a query that reads other
//! files through facts only is not re-run by such an edit.

pub mod cycle_edges;
pub mod ecmascript;
pub mod go;
pub mod import_candidates;
pub mod python;

/// Visits `node` and its descendants, in document order; `visit` returns whether to go
/// into a node's children.
pub fn walk<'t>(node: tree_sitter::Node<'t>, visit: &mut dyn FnMut(tree_sitter::Node<'t>) -> bool) {
    let mut cursor = node.walk();
    let mut descend = visit(cursor.node());
    loop {
        if descend && cursor.goto_first_child() {
            descend = visit(cursor.node());
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                descend = visit(cursor.node());
                break;
            }
            if !cursor.goto_parent() || cursor.node() == node {
                return;
            }
        }
    }
}
