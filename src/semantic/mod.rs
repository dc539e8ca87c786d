//! Tracked queries over file texts: symbols per file and the workspace symbol index.
//!
//! Invariant (early cutoff): queries that read several files depend only on position-free
//! summaries, never on byte ranges, so an edit inside a function body re-executes only the
//! queries of the edited file.

pub mod index;
pub mod symbols;

use std::sync::Arc;

use crate::{
    db::{Db, SourceFile},
    syntax::{self, Parse},
};

/// The lossless tree and syntax errors of a file. Bounded by an LRU: a large workspace keeps
/// summaries, not trees.
#[salsa::tracked(returns(clone), lru = 128, no_eq)]
pub fn parse(db: &dyn Db, file: SourceFile) -> Arc<Parse> {
    Arc::new(syntax::parse(file.lang(db).info(), file.text(db)))
}

/// Syntax errors only, from a tree-sitter parse without building the green tree: what
/// diagnostics need after every keystroke.
#[salsa::tracked(returns(clone))]
pub fn syntax_errors(db: &dyn Db, file: SourceFile) -> Arc<[syntax::SyntaxError]> {
    let key = salsa::plumbing::AsId::as_id(&file).as_bits();
    syntax::errors_only(key, file.lang(db).info(), file.text(db)).into()
}
