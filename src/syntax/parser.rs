//! One tree-sitter parser per language per thread, reused across files.

use std::{cell::RefCell, collections::HashMap, ops::ControlFlow};

use super::Interrupt;
use crate::lang::{LangId, Language};

thread_local! {
    static PARSERS: RefCell<HashMap<LangId, tree_sitter::Parser>> = RefCell::new(HashMap::new());
}

/// Runs `f` with this thread's parser for `lang`.
pub fn with_parser<R>(lang: &Language, f: impl FnOnce(&mut tree_sitter::Parser) -> R) -> R {
    PARSERS.with(|parsers| {
        let mut parsers = parsers.borrow_mut();
        let parser = parsers.entry(lang.lang_id).or_insert_with(|| {
            let mut parser = tree_sitter::Parser::new();
            parser
                .set_language(&lang.grammar)
                .expect("registered grammars have a supported ABI (checked by tests)");
            parser
        });
        f(parser)
    })
}

/// A tree-sitter parse of `text`, optionally reusing an edited `old` tree. `interrupt` is
/// asked now and then while parsing; when it answers true the parse stops. `None` when
/// interrupted or if tree-sitter gives up.
pub fn parse_tree_sitter(
    lang: &Language,
    text: &str,
    old: Option<&tree_sitter::Tree>,
    interrupt: Interrupt,
) -> Option<tree_sitter::Tree> {
    with_parser(lang, |parser| parse_with(parser, text, old, interrupt))
}

/// A tree-sitter parse of the bytes `range` of `text` alone, as a file of its own whose
/// nodes keep their positions in `text` (tree-sitter's included ranges). `None` when
/// interrupted, when tree-sitter gives up, or when `range` is not inside `text`.
pub fn parse_range(
    lang: &Language,
    text: &str,
    range: std::ops::Range<usize>,
    start: tree_sitter::Point,
    end: tree_sitter::Point,
    interrupt: Interrupt,
) -> Option<tree_sitter::Tree> {
    let included = tree_sitter::Range {
        start_byte: range.start,
        end_byte: range.end,
        start_point: start,
        end_point: end,
    };
    with_parser(lang, |parser| {
        parser.set_included_ranges(&[included]).ok()?;
        let tree = parse_with(parser, text, None, interrupt);
        // The parser is shared by every parse of this language on this thread.
        parser
            .set_included_ranges(&[])
            .expect("the whole text is always a valid range");
        tree
    })
}

fn parse_with(
    parser: &mut tree_sitter::Parser,
    text: &str,
    old: Option<&tree_sitter::Tree>,
    interrupt: Interrupt,
) -> Option<tree_sitter::Tree> {
    let bytes = text.as_bytes();
    let mut progress = |_: &tree_sitter::ParseState| {
        // This runs inside tree-sitter's C frames: a panic must not unwind through them.
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(interrupt)) {
            Ok(false) => ControlFlow::Continue(()),
            Ok(true) | Err(_) => ControlFlow::Break(()),
        }
    };
    let options = tree_sitter::ParseOptions::new().progress_callback(&mut progress);
    let tree = parser.parse_with_options(
        &mut |i, _| bytes.get(i..).unwrap_or_default(),
        old,
        Some(options),
    );
    if tree.is_none() {
        // Otherwise the next parse would try to resume this one.
        parser.reset();
    }
    tree
}
