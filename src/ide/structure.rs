//! Structure of one file from its tree: syntax errors only, folding ranges, selection ranges.
//!
//! Invariants: at most one fold starts on a line; every selection chain strictly grows
//! outward and starts at the word the offset touches, if any.

use std::cmp::Reverse;

use rowan::{TokenAtOffset, WalkEvent};
use serde::Serialize;

use super::Span;
use crate::{
    db::{Db, SourceFile},
    semantic,
    syntax::{
        LineIndex, MISSING, Parse, SyntaxElement, SyntaxNode, SyntaxToken, TextRange, TextSize,
        WHITESPACE,
    },
};

/// A foldable region: its span, 1-based like every answer, ends before the region's final
/// line break, so `span.end.line` is the last line folded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Fold {
    pub span: Span,
    pub is_comment: bool,
}

/// Regions worth folding: every node spanning several lines that is the outermost node
/// starting on its line (so one fold per line), except line sequences (see
/// [`is_line_sequence`]), plus runs of comment lines.
pub(crate) fn folding_ranges(db: &dyn Db, file: SourceFile) -> Vec<Fold> {
    let parse = semantic::parse(db, file);
    let lines = Lines {
        text: file.text(db),
        index: semantic::line_index(db, file),
    };
    let root = parse.syntax();
    let mut folds: Vec<Fold> = Vec::new();
    let mut comments = CommentRun::default();
    let mut walk = root.preorder_with_tokens();
    while let Some(event) = walk.next() {
        let WalkEvent::Enter(element) = event else {
            continue;
        };
        if is_comment(&parse, &element) {
            if element.as_node().is_some() {
                // Doc markers and text inside a comment are part of it.
                walk.skip_subtree();
            }
            comments.add(&lines, &element, &mut folds);
            continue;
        }
        let Some(node) = element.as_node() else {
            continue;
        };
        if *node == root {
            continue;
        }
        let (start, end) = lines.span(node.text_range());
        if end > start && !is_line_sequence(&parse, node, &lines) {
            folds.push(Fold {
                span: lines.fold_span(node.text_range()),
                is_comment: false,
            });
        }
    }
    comments.finish(&lines, &mut folds);
    // The outermost node starting on a line ends last: keep only that one.
    folds.sort_by_key(|f| (f.span.start.line, Reverse(f.span.end.line)));
    folds.dedup_by_key(|f| f.span.start.line);
    folds
}

/// 0-based lines of byte offsets.
struct Lines {
    text: std::sync::Arc<str>,
    index: std::sync::Arc<LineIndex>,
}

impl Lines {
    fn line(&self, offset: TextSize) -> u32 {
        self.index.line_col(offset.into()).line - 1
    }

    /// The first and last line of `range`. A range ending at a line start (after a `\n`)
    /// ends on the line before: nothing of it shows on that line.
    fn span(&self, range: TextRange) -> (u32, u32) {
        let last = if range.is_empty() {
            range.start()
        } else {
            range.end() - TextSize::from(1)
        };
        (self.line(range.start()), self.line(last))
    }

    /// The span of a fold over `range`, without its final line break.
    fn fold_span(&self, range: TextRange) -> Span {
        let text = &self.text;
        let end = if !range.is_empty() && text[..usize::from(range.end())].ends_with('\n') {
            range.end() - TextSize::of('\n')
        } else {
            range.end()
        };
        Span::new(&self.index, TextRange::new(range.start(), end))
    }
}

/// Only whitespace precedes `element` on its line. Looks back through the tokens before
/// it, not the line's text: a minified line can hold thousands of comments.
fn starts_line(element: &SyntaxElement) -> bool {
    let first = match element {
        SyntaxElement::Token(token) => Some(token.clone()),
        SyntaxElement::Node(node) => node.first_token(),
    };
    let mut previous = first.and_then(|t| t.prev_token());
    while let Some(token) = previous {
        let text = token.text();
        match text.rfind('\n') {
            Some(newline) => return text[newline..].trim().is_empty(),
            None if text.trim().is_empty() => previous = token.prev_token(),
            None => return false,
        }
    }
    true
}

fn is_comment(parse: &Parse, element: &SyntaxElement) -> bool {
    parse.kind_name(element.kind()).contains("comment")
}

/// A node with no opening of its own whose first child ends on a line before the next
/// child starts: a Python `block` (its statements), decorators and what they decorate.
/// Folding it from its first line would hide the lines after that first child, which are
/// not part of it; its owner's fold, or its children's, cover those lines instead.
fn is_line_sequence(parse: &Parse, node: &SyntaxNode, lines: &Lines) -> bool {
    let mut children = node
        .children_with_tokens()
        .filter(|c| c.kind() != WHITESPACE);
    let (Some(first), Some(second)) = (children.next(), children.next()) else {
        return false;
    };
    let opens_with_a_token = first.as_token().is_some() && !is_comment(parse, &first);
    !opens_with_a_token
        && lines.span(first.text_range()).1 < lines.line(second.text_range().start())
}

/// Consecutive comment lines: each comment starts at most one line after the previous
/// one ends, with only whitespace between. A run starts only with a comment that begins
/// its line (a comment after code belongs to that code).
#[derive(Default)]
struct CommentRun {
    /// The run's first and last line and its byte range.
    current: Option<(u32, u32, TextRange)>,
}

impl CommentRun {
    fn add(&mut self, lines: &Lines, comment: &SyntaxElement, folds: &mut Vec<Fold>) {
        let range = comment.text_range();
        let (start, end) = lines.span(range);
        if let Some((_, run_end, run_range)) = &mut self.current {
            let adjacent = run_range.end() <= range.start()
                && start <= *run_end + 1
                && lines.text[TextRange::new(run_range.end(), range.start())]
                    .trim()
                    .is_empty();
            if adjacent {
                *run_end = end;
                *run_range = TextRange::new(run_range.start(), range.end());
                return;
            }
        }
        self.finish(lines, folds);
        if starts_line(comment) {
            self.current = Some((start, end, range));
        }
    }

    fn finish(&mut self, lines: &Lines, folds: &mut Vec<Fold>) {
        if let Some((start, end, range)) = self.current.take()
            && end > start
        {
            folds.push(Fold {
                span: lines.fold_span(range),
                is_comment: true,
            });
        }
    }
}

/// For each offset, the ranges of the enclosing token and nodes, innermost first (for
/// "expand selection").
pub(crate) fn selection_ranges(db: &dyn Db, file: SourceFile, offsets: &[usize]) -> Vec<Vec<Span>> {
    let parse = semantic::parse(db, file);
    let index = semantic::line_index(db, file);
    let root: SyntaxNode = parse.syntax();
    let len = root.text_range().end();
    offsets
        .iter()
        .map(|&offset| {
            let offset = TextSize::new(offset.min(u32::from(len) as usize) as u32);
            let mut ranges: Vec<TextRange> = Vec::new();
            let token = match root.token_at_offset(offset) {
                TokenAtOffset::None => None,
                TokenAtOffset::Single(token) => Some(token),
                // At a boundary, the word the cursor touches: `foo|(` selects `foo`.
                TokenAtOffset::Between(left, right) => {
                    if selection_rank(&parse, &left) > selection_rank(&parse, &right) {
                        Some(left)
                    } else {
                        Some(right)
                    }
                }
            };
            if let Some(token) = token {
                if selection_rank(&parse, &token) > 0 {
                    ranges.push(token.text_range());
                }
                for node in token.parent_ancestors() {
                    let r = node.text_range();
                    if ranges.last() != Some(&r) {
                        ranges.push(r);
                    }
                }
            }
            if ranges.is_empty() {
                ranges.push(TextRange::empty(offset));
            }
            ranges.into_iter().map(|r| Span::new(&index, r)).collect()
        })
        .collect()
}

/// How much a token is what a cursor next to it means: words (identifiers, keywords,
/// literals) over punctuation over whitespace and empty tokens, which are never selected.
fn selection_rank(parse: &Parse, token: &SyntaxToken) -> u8 {
    let kind = token.kind();
    if kind == WHITESPACE || kind == MISSING || token.text().is_empty() {
        return 0;
    }
    let wordy = token
        .text()
        .chars()
        .next()
        .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$');
    if wordy || parse.kind_is_named(kind) {
        2
    } else {
        1
    }
}
