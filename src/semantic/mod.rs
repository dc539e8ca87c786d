//! Tracked queries over file texts: trees, line tables, symbols per file and the workspace
//! symbol index.
//!
//! Invariant (early cutoff): queries that read several files depend only on position-free
//! summaries, never on byte ranges, so an edit inside a function body re-executes only the
//! queries of the edited file.

pub mod codec;
pub mod facts;
pub mod format;
pub mod format_output;
pub mod import_graph;
pub mod import_syntax;
pub mod imports;
pub mod index;
pub mod names;
pub mod persisted;
pub mod projects;
pub mod small_text;
pub mod symbols;

use std::sync::Arc;

use crate::{
    db::{Db, SourceFile},
    syntax::{self, Parse},
};

/// The lossless tree and syntax errors of a file, for the editor features that walk every
/// token (folding, selection, the tree view). Kept in the database's tree cache beside the
/// file's tree-sitter tree, under its bound in bytes: a lossless tree takes tens of times
/// its text, so a cache bounded by a count of files could hold hundreds of megabytes.
pub fn parse(db: &dyn Db, file: SourceFile) -> Arc<Parse> {
    let interrupt = || is_cancelled(db);
    let (lang, text) = (file.lang(db).info(), file.text(db));
    match db
        .tree_cache()
        .lossless(tree_key(file), lang, &text, &interrupt)
    {
        Some(parse) => parse,
        None if interrupt() => cancelled(db),
        // The parser gave up on the text (the cache remembers that): one error node over it.
        None => Arc::new(syntax::gave_up(lang, &text)),
    }
}

/// Whether this query should stop: the request was cancelled or a write is waiting. Safe to
/// call where unwinding is not (inside tree-sitter's callbacks).
pub(crate) fn is_cancelled(db: &dyn Db) -> bool {
    db.relay_cancellation();
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        db.unwind_if_revision_cancelled()
    }))
    .is_err()
}

/// Unwinds with `salsa::Cancelled` after an interrupted computation.
pub(crate) fn cancelled(db: &dyn Db) -> ! {
    db.unwind_if_revision_cancelled();
    unreachable!("interrupted only when salsa has cancelled the query")
}

/// The key of `file`'s trees in the database's tree cache.
pub(crate) fn tree_key(file: SourceFile) -> u64 {
    salsa::plumbing::AsId::as_id(&file).as_bits()
}

/// The file's tree-sitter tree; `None` when the parser gave up. Every query that reads a
/// tree takes it from here: the database's tree cache keeps the last trees, so the queries
/// of one file (syntax errors, symbols, names, checks) parse it once between them, and an
/// edited file is reparsed incrementally from its previous tree.
pub(crate) fn file_tree(db: &dyn Db, file: SourceFile) -> Option<tree_sitter::Tree> {
    let key = tree_key(file);
    let interrupt = || is_cancelled(db);
    let tree = db
        .tree_cache()
        .parse_reusing(key, file.lang(db).info(), &file.text(db), &interrupt);
    if tree.is_none() && interrupt() {
        cancelled(db);
    }
    tree
}

/// Keeps `file`'s tree in the database's tree cache while the guard lives: a query that
/// reads its own tree before and after pulling other files' summaries parses it once.
pub fn pin_tree(db: &dyn Db, file: SourceFile) -> syntax::Pin<'_> {
    db.tree_cache().pin(tree_key(file))
}

/// The line table of a file: every position in an answer, and every LSP conversion, goes
/// through it. Bounded by an LRU of many files: a table keeps no text (4 bytes a line, more
/// only for non-ASCII text: `syntax::ColumnIndex`) and one `workspace/symbol` answer
/// touches up to 100 files.
#[salsa::tracked(returns(clone), lru = 2048, no_eq)]
pub fn line_index(db: &dyn Db, file: SourceFile) -> Arc<syntax::LineIndex> {
    Arc::new(syntax::LineIndex::new(&file.text(db)))
}

/// Syntax errors only, from a tree-sitter parse without building the green tree: what
/// diagnostics need after every keystroke.
#[salsa::tracked(returns(clone))]
pub fn syntax_errors(db: &dyn Db, file: SourceFile) -> Arc<[syntax::SyntaxError]> {
    let key = tree_key(file);
    let interrupt = || is_cancelled(db);
    let (lang, text) = (file.lang(db).info(), file.text(db));
    match syntax::errors_only(db.tree_cache(), key, lang, &text, &interrupt) {
        Some(errors) => errors.into(),
        None => cancelled(db),
    }
}
