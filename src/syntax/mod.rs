//! The syntax layer: any text in, a lossless tree and a list of syntax errors out.
//!
//! Invariants:
//! - **Lossless.** `Parse::syntax().text()` equals the input text byte for byte, whatever the
//!   input (tree-sitter error recovery, zero-width or overlapping nodes, odd boundaries).
//! - **Never fails.** Parsing returns a tree for every input; problems are data
//!   (`SyntaxError`s with byte ranges), never panics or `Err`s.
//! - **Bounded.** A parse does work at most linear in the text's length (a generous factor,
//!   counted deterministically; `parser.rs`). A text that needs more is not parsed: its tree
//!   is one `ERROR` node over the whole text with one [`NOT_PARSED`] syntax error, so one
//!   pathological file can hold neither the index nor a request.
//!
//! tree-sitter trees are ~28× the source size, so the tree kept (in salsa) is a rowan green
//! tree (~6×). Node kinds are tree-sitter kind ids of the file's grammar; the few synthetic
//! kinds sextant adds live at 0xF000 and above, which no grammar uses.

mod convert;
mod errors;
mod incremental;
mod line_index;
mod parser;
mod query;

use std::sync::Arc;

pub use incremental::{Pin, TreeCache};
pub use line_index::{ColumnIndex, ColumnUnit, LineCol, LineIndex, line_starts};
pub use parser::{parse_range, parse_tree_sitter, with_parser};

pub use query::{MAX_START_DEPTH, run_query, run_query_entering_every_node};
pub use rowan::{TextRange, TextSize};

use crate::lang::{LangId, Language};

/// Asked now and then during long work (parsing, tree conversion); answering `true` stops
/// it and the caller gets no result. Callers pass [`NEVER`] when nothing can cancel them.
pub type Interrupt<'a> = &'a dyn Fn() -> bool;
/// An [`Interrupt`] that never stops anything.
pub const NEVER: Interrupt<'static> = &|| false;

/// A rowan kind: the grammar's kind id, or one of the synthetic kinds below.
pub type RawKind = u16;

/// Whitespace between tree-sitter nodes, kept as a token of the parent node.
pub const WHITESPACE: RawKind = 0xF000;
/// Non-whitespace text that tree-sitter did not cover with a child node.
pub const TEXT: RawKind = 0xF001;
/// A zero-width token standing for a node tree-sitter inserted during error recovery.
pub const MISSING: RawKind = 0xF002;
/// tree-sitter's kind id for `ERROR` nodes.
pub const ERROR: RawKind = u16::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum AnyLanguage {}

impl rowan::Language for AnyLanguage {
    type Kind = RawKind;
    fn kind_from_raw(raw: rowan::SyntaxKind) -> RawKind {
        raw.0
    }
    fn kind_to_raw(kind: RawKind) -> rowan::SyntaxKind {
        rowan::SyntaxKind(kind)
    }
}

pub type SyntaxNode = rowan::SyntaxNode<AnyLanguage>;
pub type SyntaxToken = rowan::SyntaxToken<AnyLanguage>;
pub type SyntaxElement = rowan::SyntaxElement<AnyLanguage>;

/// A syntax error found in the tree: an `ERROR` node or a node tree-sitter had to invent.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SyntaxError {
    pub range: TextRange,
    pub message: String,
}

/// The result of parsing one file: the lossless tree and its syntax errors.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parse {
    pub lang: LangId,
    pub green: rowan::GreenNode,
    pub errors: Arc<[SyntaxError]>,
}

impl Parse {
    /// A rowan cursor over the tree. Not `Send`: build it where it is used.
    pub fn syntax(&self) -> SyntaxNode {
        SyntaxNode::new_root(self.green.clone())
    }

    /// The human name of a kind in this file's grammar (`function_definition`, `;`, `ERROR`).
    pub fn kind_name(&self, kind: RawKind) -> &'static str {
        kind_name(self.lang.info(), kind)
    }

    /// Named kinds are grammar rules (`identifier`); anonymous ones are literal tokens (`;`).
    pub fn kind_is_named(&self, kind: RawKind) -> bool {
        match kind {
            WHITESPACE | TEXT => false,
            MISSING | ERROR => true,
            k => self.lang.info().grammar.node_kind_is_named(k),
        }
    }
}

pub fn kind_name(lang: &'static Language, kind: RawKind) -> &'static str {
    match kind {
        WHITESPACE => "WHITESPACE",
        TEXT => "TEXT",
        MISSING => "MISSING",
        ERROR => "ERROR",
        k => lang.grammar.node_kind_for_id(k).unwrap_or("UNKNOWN"),
    }
}

/// Parses `text` as `lang`. Never fails; see the module invariants.
pub fn parse(lang: &Language, text: &str) -> Parse {
    parse_interruptible(lang, text, NEVER).expect("never interrupted")
}

/// Like [`parse`], but `None` when `interrupt` stopped it.
pub fn parse_interruptible(lang: &Language, text: &str, interrupt: Interrupt) -> Option<Parse> {
    let Some(tree) = parse_tree_sitter(lang, text, None, interrupt) else {
        return (!interrupt()).then(|| gave_up(lang, text));
    };
    lossless_from_tree(lang, &tree, text, interrupt)
}

/// The lossless tree and syntax errors of `text` given its tree-sitter tree; `None` when
/// interrupted.
pub fn lossless_from_tree(
    lang: &Language,
    tree: &tree_sitter::Tree,
    text: &str,
    interrupt: Interrupt,
) -> Option<Parse> {
    Some(Parse {
        lang: lang.lang_id,
        green: convert::green_from_tree(tree, text, interrupt)?,
        errors: errors::collect(lang, tree, text).into(),
    })
}

/// The message of the one syntax error of a file that was not parsed.
pub const NOT_PARSED: &str = "not parsed: the parser needed far more work than a file of this size should (a pathological input for this language's parser)";

/// The parse exceeded its work budget (`parser.rs`; tree-sitter stops otherwise only when
/// cancelled or out of memory): the text becomes one error node, so that the tree stays
/// lossless and the file is reported as not parsed instead of holding its caller.
pub fn gave_up(lang: &Language, text: &str) -> Parse {
    let mut builder = rowan::GreenNodeBuilder::new();
    builder.start_node(rowan::SyntaxKind(ERROR));
    builder.token(rowan::SyntaxKind(TEXT), text);
    builder.finish_node();
    Parse {
        lang: lang.lang_id,
        green: builder.finish(),
        errors: vec![SyntaxError {
            range: TextRange::up_to(TextSize::of(text)),
            message: NOT_PARSED.into(),
        }]
        .into(),
    }
}

/// Just the syntax errors of `text` (`None` when interrupted). The tree-sitter tree is kept
/// in `trees` for a few files (`key` names the file) so that the next call after an edit
/// reparses incrementally.
pub fn errors_only(
    trees: &TreeCache,
    key: u64,
    lang: &Language,
    text: &Arc<str>,
    interrupt: Interrupt,
) -> Option<Vec<SyntaxError>> {
    match trees.parse_reusing(key, lang, text, interrupt) {
        Some(tree) => Some(errors::collect(lang, &tree, text)),
        None => (!interrupt()).then(|| gave_up(lang, text).errors.to_vec()),
    }
}

/// The largest char boundary of `text` that is `<= offset` (clamped to the text length).
pub fn floor_char_boundary(text: &str, offset: usize) -> usize {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}
