//! `outline`: a file's symbols as a tree.

use serde::Serialize;

use super::Span;
use crate::{
    db::{Db, SourceFile},
    semantic::symbols::{SymbolKind, file_symbols},
};

#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct OutlineNode {
    pub name: String,
    pub kind: SymbolKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub container: Option<String>,
    pub signature: String,
    /// The whole definition.
    pub span: Span,
    /// Just the name.
    pub name_span: Span,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<OutlineNode>,
}

#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct Outline {
    pub path: String,
    pub language: String,
    /// Symbols the file defines in all.
    pub symbol_count: usize,
    pub symbols: Vec<OutlineNode>,
    /// More symbols follow the ones shown (in document order).
    pub truncated: bool,
    /// When truncated: ask again from this symbol (`offset`) for the rest.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_offset: Option<usize>,
}

/// The file's symbols as a tree (parents always precede their children, so the tree
/// stays whole), at most `limit` of them from the `offset`-th symbol in document order: a page of a long
/// outline. A symbol whose parent is on an earlier page is a root of this one (its
/// `container` still names the parent).
pub(crate) fn outline_page(db: &dyn Db, file: SourceFile, offset: usize, limit: usize) -> Outline {
    let symbols = file_symbols(db, file);
    let text = &*file.text(db);
    let mut nodes: Vec<Option<OutlineNode>> = symbols
        .summaries
        .iter()
        .zip(symbols.positions.iter())
        .enumerate()
        .skip(offset)
        .take(limit)
        .map(|(i, (s, p))| {
            Some(OutlineNode {
                name: s.name.to_string(),
                kind: s.kind,
                container: s.container.as_deref().map(str::to_owned),
                signature: symbols.signatures.get(i).to_owned(),
                span: Span::from_parts(p.range, p.start, p.end),
                name_span: Span::from_start(text, p.name_range, p.name_start),
                children: Vec::new(),
            })
        })
        .collect();
    // Parents come before their children, so attach from the back.
    let mut roots = Vec::new();
    for i in (0..nodes.len()).rev() {
        let node = nodes[i].take().expect("each node is attached once");
        let parent = symbols.summaries[offset + i]
            .parent()
            .and_then(|p| (p as usize).checked_sub(offset))
            .filter(|&p| p < nodes.len());
        match parent {
            Some(p) => nodes[p]
                .as_mut()
                .expect("parent precedes child")
                .children
                .push(node),
            None => roots.push(node),
        }
    }
    roots.reverse();
    fn restore_order(nodes: &mut [OutlineNode]) {
        for n in nodes {
            n.children.reverse();
            restore_order(&mut n.children);
        }
    }
    restore_order(&mut roots);
    let end = offset.saturating_add(nodes.len());
    let truncated = symbols.summaries.len() > end;
    Outline {
        path: file.path(db).clone(),
        language: file.lang(db).info().id.clone(),
        symbol_count: symbols.summaries.len(),
        truncated,
        next_offset: truncated.then_some(end),
        symbols: roots,
    }
}
