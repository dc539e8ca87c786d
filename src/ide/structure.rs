//! Structure of one file from its tree: syntax errors only, folding ranges, selection ranges.

use serde::Serialize;

use super::Span;
use crate::{
    db::{Db, SourceFile},
    semantic,
    syntax::{LineIndex, SyntaxNode, TextRange, TextSize, WHITESPACE},
};

/// A foldable region: its span, 1-based like every answer, ends before the region's final
/// line break, so `span.end.line` is the last line folded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Fold {
    pub span: Span,
    pub is_comment: bool,
}

/// Regions worth folding: every node spanning several lines that is the outermost node
/// starting on its line (so one fold per line), plus runs of comment lines.
pub(crate) fn folding_ranges(db: &dyn Db, file: SourceFile) -> Vec<Fold> {
    let parse = semantic::parse(db, file);
    let text = file.text(db);
    let index = LineIndex::new(text);
    let root = parse.syntax();
    let mut folds: Vec<Fold> = Vec::new();
    let mut last_start_line = None;
    for node in root.descendants().skip(1) {
        let range = node.text_range();
        // A node ending at a line start folds to the line before.
        let end = if range.end() > range.start() && text[..range.end().into()].ends_with('\n') {
            range.end() - TextSize::of('\n')
        } else {
            range.end()
        };
        let span = Span::new(&index, text, TextRange::new(range.start(), end));
        let (start_line, end_line) = (span.start.line, span.end.line);
        if end_line <= start_line
            || last_start_line == Some(start_line)
                && folds.last().is_some_and(|f| f.span.end.line >= end_line)
        {
            continue;
        }
        if folds
            .iter()
            .rev()
            .take(64)
            .any(|f| f.span.start.line == start_line)
        {
            continue;
        }
        let is_comment = parse.kind_name(node.kind()).contains("comment");
        folds.push(Fold { span, is_comment });
        last_start_line = Some(start_line);
    }
    folds.sort_by_key(|f| (f.span.start.line, std::cmp::Reverse(f.span.end.line)));
    folds.dedup_by_key(|f| f.span.start.line);
    folds
}

/// For each offset, the ranges of the enclosing token and nodes, innermost first (for
/// "expand selection").
pub(crate) fn selection_ranges(db: &dyn Db, file: SourceFile, offsets: &[usize]) -> Vec<Vec<Span>> {
    let parse = semantic::parse(db, file);
    let text = file.text(db);
    let index = LineIndex::new(text);
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
                .into_iter()
                .map(|r| Span::new(&index, text, r))
                .collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use crate::{
        ide::{LineCol, Span, registry},
        workspace::standalone_source,
    };

    fn at(line: u32, column: u32) -> LineCol {
        LineCol { line, column }
    }

    #[test]
    fn folds_are_spans_with_one_based_lines_ending_before_the_final_break() {
        let text = "class A:\n    def f(self):\n        return 1\n\n# one\n# two\nx = 1\n";
        let python = registry().by_id("python").unwrap();
        let (analysis, file) =
            standalone_source("a.py".into(), python, text.as_bytes().to_vec()).unwrap();
        let folds: Vec<(LineCol, LineCol, bool)> = analysis
            .folding_ranges(file)
            .unwrap()
            .iter()
            .map(|f| (f.span.start, f.span.end, f.is_comment))
            .collect();
        assert_eq!(
            folds,
            [(at(1, 1), at(3, 17), false), (at(2, 5), at(3, 17), false)]
        );
        for fold in analysis.folding_ranges(file).unwrap() {
            assert_eq!(
                fold.span.text_range().len(),
                (fold.span.byte_range().len() as u32).into()
            );
            assert!(!text[fold.span.byte_range()].ends_with('\n'));
        }
    }

    #[test]
    fn selection_ranges_are_spans_innermost_first() {
        let text = "def f(x):\n    return x + 1\n";
        let python = registry().by_id("python").unwrap();
        let (analysis, file) =
            standalone_source("a.py".into(), python, text.as_bytes().to_vec()).unwrap();
        let offset = text.find("x + 1").unwrap();
        let chains = analysis.selection_ranges(file, &[offset]).unwrap();
        let chain: Vec<(&str, LineCol)> = chains[0]
            .iter()
            .map(|s: &Span| (&text[s.byte_range()], s.start))
            .collect();
        assert_eq!(
            chain[..3],
            [
                ("x", at(2, 12)),
                ("x + 1", at(2, 12)),
                ("return x + 1", at(2, 5))
            ]
        );
        assert_eq!(chain.last().unwrap().0, text);
    }
}
