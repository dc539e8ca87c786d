//! One tree-sitter parser per language per thread, reused across files, and the work
//! budget of every parse.
//!
//! Invariant: a parse of `n` bytes does at most work linear in `n` with a generous factor,
//! whatever the text and the grammar; past that the parse stops and the caller gets no
//! tree, as for an interrupted parse (`syntax` then reports the file as not parsed).
//!
//! The budget counts two things tree-sitter lets us see, both deterministic functions of
//! the text (and the reused tree, if any), never time, so the outcome does not depend on
//! the machine's load:
//! - **reads**: the text is handed over in chunks of [`CHUNK`] bytes, so every chunk the
//!   lexer crosses, and every jump back across a chunk boundary, is one call of the read
//!   callback. This is what catches a lexer or external scanner that reads far ahead again
//!   and again (tree-sitter-python's scanner over runs of comment lines, before the patch in
//!   `vendor/tree-sitter-python`): that costs no extra parse actions, only reading.
//! - **ticks**: tree-sitter's progress callback, called once per 100 parse actions, which
//!   catches runaway error recovery.
//!
//! Calibration (every `.py` file under a Python 3.11 standard library directory, 11,659
//! files, 128 MB): at most 4.7 reads per chunk on files over 100 kB, 977 reads and 8,611
//! ticks on any file, 66 reads and 2,439 ticks on files under 128 kB; at most one tick per
//! 34 bytes. The allowance is 32 reads per chunk and a tick per 4 bytes, plus floors (4,096
//! reads, about 16 MiB of lexing; 16,384 ticks) that small files never come near.

use std::{cell::Cell, cell::RefCell, collections::HashMap, ops::ControlFlow};

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

/// Bytes handed to tree-sitter per call of the read callback.
const CHUNK: usize = 4096;
/// Reads allowed per chunk of the text, on top of [`READS_FLOOR`].
const READS_PER_CHUNK: u64 = 32;
const READS_FLOOR: u64 = 4_096;
/// One tick allowed per this many bytes of text, on top of [`TICKS_FLOOR`].
const BYTES_PER_TICK: u64 = 4;
const TICKS_FLOOR: u64 = 16_384;

/// What one parse may still spend; see the module docs.
struct Budget {
    reads: Cell<u64>,
    ticks: Cell<u64>,
    /// Set when a unit was asked for and none was left.
    exceeded: Cell<bool>,
}

impl Budget {
    fn for_len(len: usize) -> Budget {
        let len = len as u64;
        Budget {
            reads: Cell::new(READS_FLOOR + READS_PER_CHUNK * (len / CHUNK as u64 + 1)),
            ticks: Cell::new(TICKS_FLOOR + len / BYTES_PER_TICK),
            exceeded: Cell::new(false),
        }
    }

    /// Spends one unit of `counter`; false (and the budget exceeded) when none was left.
    fn spend(&self, counter: &Cell<u64>) -> bool {
        let Some(left) = counter.get().checked_sub(1) else {
            self.exceeded.set(true);
            return false;
        };
        counter.set(left);
        true
    }
}

/// The chunk of `text` from byte `at`: at most [`CHUNK`] bytes, extended to a character
/// boundary so that tree-sitter never has to read a character in two parts.
fn chunk(text: &str, at: usize) -> &[u8] {
    if at >= text.len() {
        return &[];
    }
    let mut end = (at + CHUNK).min(text.len());
    while !text.is_char_boundary(end) {
        end += 1;
    }
    &text.as_bytes()[at..end]
}

/// A tree-sitter parse of `text`, optionally reusing an edited `old` tree. `interrupt` is
/// asked now and then while parsing; when it answers true the parse stops. `None` when
/// interrupted, when the parse exceeded its work budget (see the module docs; the caller
/// tells the two apart by asking `interrupt` again) or if tree-sitter gives up.
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
    let budget = Budget::for_len(text.len());
    let mut progress = |_: &tree_sitter::ParseState| {
        if !budget.spend(&budget.ticks) || budget.exceeded.get() {
            return ControlFlow::Break(());
        }
        // This runs inside tree-sitter's C frames: a panic must not unwind through them.
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(interrupt)) {
            Ok(false) => ControlFlow::Continue(()),
            Ok(true) | Err(_) => ControlFlow::Break(()),
        }
    };
    // Once the reads are spent the lexer sees the end of the text, so the parse winds down
    // at once instead of at the next progress call; its tree is dropped below.
    let mut read = |at: usize, _: tree_sitter::Point| -> &[u8] {
        if budget.spend(&budget.reads) {
            chunk(text, at)
        } else {
            &[]
        }
    };
    let options = tree_sitter::ParseOptions::new().progress_callback(&mut progress);
    let tree = parser
        .parse_with_options(&mut read, old, Some(options))
        .filter(|_| !budget.exceeded.get());
    if tree.is_none() {
        // Otherwise the next parse would try to resume this one.
        parser.reset();
    }
    tree
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_end_on_character_boundaries() {
        let text = format!("a{}", "é".repeat(CHUNK));
        assert_eq!(chunk(&text, 0).len(), CHUNK + 1);
        assert!(std::str::from_utf8(chunk(&text, 0)).is_ok());
        assert_eq!(chunk(&text, text.len() - 2), "é".as_bytes());
        assert!(chunk(&text, text.len()).is_empty());
    }

    #[test]
    fn a_spent_budget_refuses_and_stays_exceeded() {
        let budget = Budget::for_len(0);
        let allowed = READS_FLOOR + READS_PER_CHUNK;
        assert!((0..allowed).all(|_| budget.spend(&budget.reads)));
        assert!(!budget.exceeded.get());
        assert!(!budget.spend(&budget.reads));
        assert!(budget.exceeded.get());
    }
}
