//! tree-sitter tree → rowan green tree.
//!
//! Walks the tree with a cursor (no recursion: deeply nested input must not overflow the
//! stack) and emits text strictly left to right from a single position `pos`, so the result
//! is lossless by construction: every byte between `pos` and the next node start becomes a
//! gap token of the enclosing node, and nodes that overlap what was already emitted are
//! clamped.
//!
//! Nesting is capped at [`MAX_DEPTH`]: a deeper node keeps its kind but its text becomes one
//! `TEXT` token. Consumers of rowan trees (including dropping one) recurse per level, and
//! worker threads have small stacks; pathological input (20 000 nested brackets) must not
//! crash the process.

use rowan::{GreenNode, GreenNodeBuilder, SyntaxKind};

use super::{ERROR, Interrupt, MISSING, RawKind, TEXT, WHITESPACE, floor_char_boundary};

pub const MAX_DEPTH: usize = 1000;

/// Nodes converted between two questions to `interrupt`.
const INTERRUPT_EVERY: usize = 4096;

/// The green tree of `tree`, or `None` when `interrupt` stopped the conversion.
pub(super) fn green_from_tree(
    tree: &tree_sitter::Tree,
    text: &str,
    interrupt: Interrupt,
) -> Option<GreenNode> {
    let mut out = Emitter {
        builder: GreenNodeBuilder::new(),
        text,
        pos: 0,
    };
    let root = tree.root_node();
    out.builder.start_node(SyntaxKind(root.kind_id()));

    let mut cursor = root.walk();
    let mut visited = 0usize;
    if cursor.goto_first_child() {
        let mut depth = 1usize;
        'walk: loop {
            visited += 1;
            if visited.is_multiple_of(INTERRUPT_EVERY) && interrupt() {
                return None;
            }
            let node = cursor.node();
            out.gap_until(node.start_byte());
            if node.is_missing() {
                out.token(MISSING, node.start_byte());
            } else if node.child_count() == 0 {
                let kind = if node.is_error() {
                    ERROR
                } else {
                    node.kind_id()
                };
                out.token(kind, node.end_byte());
            } else {
                out.builder.start_node(SyntaxKind(node.kind_id()));
                if depth < MAX_DEPTH && cursor.goto_first_child() {
                    depth += 1;
                    continue 'walk;
                }
                // Too deep (or a node the cursor cannot enter): keep its text as one token.
                out.token(TEXT, node.end_byte());
                out.builder.finish_node();
            }
            // Move to the next sibling, closing every node we climb out of.
            loop {
                if cursor.goto_next_sibling() {
                    continue 'walk;
                }
                if depth == 1 || !cursor.goto_parent() {
                    break 'walk;
                }
                depth -= 1;
                out.gap_until(cursor.node().end_byte());
                out.builder.finish_node();
            }
        }
    }
    out.gap_until(text.len());
    out.builder.finish_node();
    Some(out.builder.finish())
}

struct Emitter<'a> {
    builder: GreenNodeBuilder<'static>,
    text: &'a str,
    pos: usize,
}

impl Emitter<'_> {
    /// Emits the bytes between the current position and `end` as whitespace or text tokens.
    fn gap_until(&mut self, end: usize) {
        let end = floor_char_boundary(self.text, end);
        if end <= self.pos {
            return;
        }
        let gap = &self.text[self.pos..end];
        // Split so that whitespace and non-whitespace runs get their own kinds.
        let mut rest = gap;
        while let Some(first) = rest.chars().next() {
            let whitespace = first.is_whitespace();
            let run = rest
                .find(|c: char| c.is_whitespace() != whitespace)
                .unwrap_or(rest.len());
            let kind = if whitespace { WHITESPACE } else { TEXT };
            self.builder.token(SyntaxKind(kind), &rest[..run]);
            rest = &rest[run..];
        }
        self.pos = end;
    }

    /// Emits one token covering the current position up to `end` (possibly empty).
    fn token(&mut self, kind: RawKind, end: usize) {
        let end = floor_char_boundary(self.text, end).max(self.pos);
        self.builder
            .token(SyntaxKind(kind), &self.text[self.pos..end]);
        self.pos = end;
    }
}
