//! Structure of one file from its tree: syntax errors only, folding ranges, selection ranges.

use serde::Serialize;

use crate::{
    db::{Db, SourceFile},
    semantic,
    syntax::{SyntaxNode, TextRange, TextSize, WHITESPACE},
};

/// A foldable region, in 0-based lines (as editors count them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Fold {
    pub start_line: u32,
    pub end_line: u32,
    pub is_comment: bool,
}

/// Regions worth folding: every node spanning several lines that is the outermost node
/// starting on its line (so one fold per line), plus runs of comment lines.
pub(crate) fn folding_ranges(db: &dyn Db, file: SourceFile) -> Vec<Fold> {
    let parse = semantic::parse(db, file);
    let index = semantic::line_index(db, file);
    let root = parse.syntax();
    let mut folds: Vec<Fold> = Vec::new();
    let mut last_start_line = None;
    for node in root.descendants().skip(1) {
        let range = node.text_range();
        let start = index.line_col(range.start().into()).line - 1;
        // A node ending at a line start folds to the line before.
        let end_offset = usize::from(range.end())
            .saturating_sub(1)
            .max(range.start().into());
        let end = index.line_col(end_offset).line - 1;
        if end <= start
            || last_start_line == Some(start) && folds.last().is_some_and(|f| f.end_line >= end)
        {
            continue;
        }
        if folds.iter().rev().take(64).any(|f| f.start_line == start) {
            continue;
        }
        let is_comment = parse.kind_name(node.kind()).contains("comment");
        folds.push(Fold {
            start_line: start,
            end_line: end,
            is_comment,
        });
        last_start_line = Some(start);
    }
    folds.sort_by_key(|f| (f.start_line, std::cmp::Reverse(f.end_line)));
    folds.dedup_by_key(|f| f.start_line);
    folds
}

/// For each offset, the ranges of the enclosing token and nodes, innermost first (for
/// "expand selection").
pub(crate) fn selection_ranges(
    db: &dyn Db,
    file: SourceFile,
    offsets: &[usize],
) -> Vec<Vec<TextRange>> {
    let parse = semantic::parse(db, file);
    let root: SyntaxNode = parse.syntax();
    let len = root.text_range().end();
    offsets
        .iter()
        .map(|&offset| {
            let offset = TextSize::new(offset.min(u32::from(len) as usize) as u32);
            let mut ranges: Vec<TextRange> = Vec::new();
            let token = root
                .token_at_offset(offset)
                .right_biased()
                .or_else(|| root.token_at_offset(offset).left_biased());
            if let Some(token) = token {
                if token.kind() != WHITESPACE {
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
            ranges
        })
        .collect()
}
