//! `symbols`: ranked fuzzy search over every symbol of the workspace.

use serde::Serialize;

use crate::{
    db::{Db, Workspace},
    lang::LangId,
    semantic::{
        index::{MatchTier, SymbolIndex, symbol_index},
        symbols::{SymbolKind, file_symbols},
    },
};

use super::Span;

#[derive(Clone, Debug, Default)]
pub struct SymbolQuery {
    pub query: String,
    /// Only these kinds (all when empty; impl blocks only when listed).
    pub kinds: Vec<SymbolKind>,
    pub language: Option<LangId>,
    /// Only files whose workspace-relative path starts with this (`src/` or `src/db`).
    pub path_prefix: Option<String>,
    pub limit: usize,
}

#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct SymbolMatch {
    pub name: String,
    pub kind: SymbolKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub container: Option<String>,
    pub path: String,
    pub language: String,
    /// The whole definition.
    pub span: Span,
    /// Just the name.
    pub name_span: Span,
    pub signature: String,
    #[serde(rename = "match")]
    pub tier: MatchTier,
}

/// Where a search ranks a match: its tier, then shorter names, then the name.
pub type SymbolRank = (MatchTier, usize, String);

impl SymbolMatch {
    /// A search's symbols come in the order of their rank, and an answer merged from
    /// several roots' keeps it.
    pub fn rank(&self) -> SymbolRank {
        (self.tier, self.name.len(), self.name.clone())
    }
}

#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct SymbolSearch {
    pub query: String,
    pub symbols: Vec<SymbolMatch>,
    /// Symbols that matched in all; more than `symbols.len()` when truncated.
    pub total: usize,
    pub truncated: bool,
}

pub(crate) fn symbol_search(db: &dyn Db, workspace: Workspace, q: &SymbolQuery) -> SymbolSearch {
    symbol_search_in(db, &symbol_index(db, workspace), q)
}

/// [`symbol_search`] over the workspace's first `shards` shards of the symbol index only
/// (what is indexed so far, while the first index runs).
pub(crate) fn symbol_search_in_shards(
    db: &dyn Db,
    workspace: Workspace,
    q: &SymbolQuery,
    shards: u32,
) -> SymbolSearch {
    symbol_search_in(db, &SymbolIndex::first_shards(db, workspace, shards), q)
}

fn symbol_search_in(db: &dyn Db, index: &SymbolIndex, q: &SymbolQuery) -> SymbolSearch {
    let prefix = q.path_prefix.as_deref().map(|p| p.trim_start_matches("./"));
    let result = index.search(&q.query, q.limit, |e| {
        let kind_ok = if q.kinds.is_empty() {
            e.kind.defines_name()
        } else {
            q.kinds.contains(&e.kind)
        };
        kind_ok
            && q.language.is_none_or(|l| l == e.lang)
            && prefix.is_none_or(|p| e.file.path(db).starts_with(p))
    });
    let symbols = result
        .hits
        .iter()
        .map(|hit| {
            let file = hit.entry.file;
            let symbols = file_symbols(db, file);
            let summary = &symbols.summaries[hit.entry.symbol as usize];
            let pos = &symbols.positions[hit.entry.symbol as usize];
            SymbolMatch {
                name: summary.name.to_string(),
                kind: summary.kind,
                container: summary.container.as_deref().map(str::to_owned),
                path: file.path(db).clone(),
                language: hit.entry.lang.info().id.clone(),
                span: Span::from_parts(pos.range, pos.start, pos.end),
                name_span: Span::from_start(&file.text(db), pos.name_range, pos.name_start),
                signature: symbols.signatures.get(hit.entry.symbol as usize).to_owned(),
                tier: hit.tier,
            }
        })
        .collect::<Vec<_>>();
    SymbolSearch {
        query: q.query.clone(),
        truncated: result.total > symbols.len(),
        total: result.total,
        symbols,
    }
}
