//! The layout formatter: line endings, trailing whitespace, the final newline, runs of blank
//! lines, and indentation from `queries/<lang>/indents.scm`; nothing else.
//!
//! Invariant: a format changes only whitespace between tokens, never inside a verbatim
//! token (strings, the comments a query names, any token spanning lines), and is
//! idempotent. Both are checked on every result: the result is parsed again and must give
//! the same tree (every node's kind and child count, every token's text, a single-line
//! token at a line's end allowed to lose trailing blanks), and formatting it again must
//! change nothing; otherwise the format is refused (`FORMAT_UNSAFE`). A file with syntax
//! errors is refused whole (`FORMAT_SYNTAX_ERROR`): without a tree the formatter cannot
//! tell a string from code.
//!
//! Indentation (see `queries/README.md`): a line's indentation is that of the line where
//! its innermost enclosing `@indent` node starts (on an earlier line), plus one unit, or
//! without the unit when the line begins with that node's `@outdent` token. A line outside
//! every `@indent` node is at column 0. Where the author's layout carries meaning or
//! alignment the line keeps its indentation: lines inside an `@indent.keep` node that no
//! inner `@indent` decides (Python's statements, whose indentation is their block
//! structure), lines inside a bracket whose first element follows it on the same line
//! (visual alignment), and lines that begin inside or with a multi-line token. Lines
//! placed relative to a kept line follow its actual indentation.

use std::{ops::Range, sync::Arc};

use tree_sitter::{Node, Tree};

use crate::{
    db::{Db, SourceFile},
    lang::{Language, QueryKind},
    syntax::{self, Interrupt},
};

/// How one level of indentation is written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum IndentStyle {
    /// The registry's `indent_unit` for the language.
    #[default]
    Language,
    /// This many spaces (1 to 16).
    Spaces(u8),
    Tabs,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct FormatOptions {
    pub indent: IndentStyle,
}

impl FormatOptions {
    fn unit(&self, lang: &Language) -> String {
        match self.indent {
            IndentStyle::Language => lang.indent_unit.clone(),
            IndentStyle::Spaces(n) => " ".repeat(n.clamp(1, 16) as usize),
            IndentStyle::Tabs => "\t".to_string(),
        }
    }
}

/// Why a text was not formatted.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FormatError {
    #[error("line {line} has a syntax error; a file with syntax errors is not formatted")]
    SyntaxError { line: u32 },
    #[error("the formatted text would not be safe ({reason}); nothing was changed")]
    Unsafe { reason: String },
    #[error("the parser gave up on this file")]
    ParseFailed,
    #[error("the file is not valid UTF-8; sextant never rewrites it")]
    NotUtf8,
    #[error("the formatted text would be over {limit} bytes; nothing was changed")]
    TooLarge { limit: usize },
}

/// The file's text formatted (equal to the text when nothing changes). Depends on this
/// file's text alone, so an edit elsewhere leaves it memoized.
#[salsa::tracked(returns(clone))]
pub fn file_format(
    db: &dyn Db,
    file: SourceFile,
    options: FormatOptions,
) -> Result<Arc<str>, FormatError> {
    let interrupt = || super::is_cancelled(db);
    let lang = file.lang(db).info();
    let text = file.text(db);
    let tree = super::file_tree(db, file).ok_or(FormatError::ParseFailed)?;
    match format_parsed(lang, &text, &tree, options, &interrupt) {
        Some(result) => result.map(|formatted| {
            if *formatted == *text {
                text.clone()
            } else {
                formatted.into()
            }
        }),
        None => super::cancelled(db),
    }
}

/// `text` formatted, outside any database. `None` when `interrupt` stopped it.
pub fn format_text(
    lang: &Language,
    text: &str,
    options: FormatOptions,
    interrupt: Interrupt,
) -> Option<Result<String, FormatError>> {
    let Some(tree) = syntax::parse_tree_sitter(lang, text, None, interrupt) else {
        return if interrupt() {
            None
        } else {
            Some(Err(FormatError::ParseFailed))
        };
    };
    format_parsed(lang, text, &tree, options, interrupt)
}

fn format_parsed(
    lang: &Language,
    text: &str,
    tree: &Tree,
    options: FormatOptions,
    interrupt: Interrupt,
) -> Option<Result<String, FormatError>> {
    if let Some(line) = first_error_line(tree) {
        return Some(Err(FormatError::SyntaxError { line }));
    }
    let unit = options.unit(lang);
    let limit = output_limit(text);
    let formatted = match layout(lang, text, tree, &unit, limit, interrupt)? {
        Some(formatted) => formatted,
        None => return Some(Err(FormatError::TooLarge { limit })),
    };
    if formatted == text {
        return Some(Ok(formatted));
    }
    let unsafe_because = |reason: &str| {
        Some(Err(FormatError::Unsafe {
            reason: reason.to_string(),
        }))
    };
    let Some(new_tree) = syntax::parse_tree_sitter(lang, &formatted, None, interrupt) else {
        return if interrupt() {
            None
        } else {
            unsafe_because("the result does not parse")
        };
    };
    if new_tree.root_node().has_error() {
        return unsafe_because("the result has a syntax error");
    }
    if let Some(offset) = first_difference(text, tree, &formatted, &new_tree) {
        let line = formatted[..offset.min(formatted.len())]
            .matches('\n')
            .count()
            + 1;
        return unsafe_because(&format!(
            "the tokens or the tree would change near line {line} of the result"
        ));
    }
    let again = layout(lang, &formatted, &new_tree, &unit, usize::MAX, interrupt)?;
    if again.as_ref() != Some(&formatted) {
        return unsafe_because("formatting the result again would change it");
    }
    Some(Ok(formatted))
}

/// The 1-based line of the first error or missing node.
fn first_error_line(tree: &Tree) -> Option<u32> {
    let root = tree.root_node();
    if !root.has_error() {
        return None;
    }
    let mut node = root;
    'descend: loop {
        if node.is_error() || node.is_missing() {
            return Some(node.start_position().row as u32 + 1);
        }
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            if child.has_error() {
                node = child;
                continue 'descend;
            }
        }
        return Some(node.start_position().row as u32 + 1);
    }
}

/// The offset in `new` of the first node whose kind, child count or token text differs
/// between the two trees; `None` when they are the same.
pub(super) fn first_difference(
    old: &str,
    old_tree: &Tree,
    new: &str,
    new_tree: &Tree,
) -> Option<usize> {
    let mut a = old_tree.walk();
    let mut b = new_tree.walk();
    loop {
        let (x, y) = (a.node(), b.node());
        let same = x.kind_id() == y.kind_id()
            && x.child_count() == y.child_count()
            && (x.child_count() > 0 || token_text(old, x) == token_text(new, y));
        if !same {
            return Some(y.start_byte());
        }
        // Both walks take the same steps while the trees agree.
        if a.goto_first_child() {
            b.goto_first_child();
            continue;
        }
        loop {
            if a.goto_next_sibling() {
                b.goto_next_sibling();
                break;
            }
            if !a.goto_parent() {
                return None;
            }
            b.goto_parent();
        }
    }
}

/// A token's text as the check compares it: a single-line token that ends its line may
/// lose the blanks at its end (a line comment's trailing whitespace); any other token must
/// keep every byte.
fn token_text<'a>(text: &'a str, node: Node) -> &'a str {
    let token = &text[node.byte_range()];
    let ends_line = matches!(
        text.as_bytes().get(node.end_byte()),
        None | Some(b'\n' | b'\r')
    );
    if ends_line && !token.contains('\n') {
        token.trim_end_matches([' ', '\t'])
    } else {
        token
    }
}

/// An `@indent` or `@indent.keep` node, as the line sweep needs it.
struct Opener {
    range: Range<usize>,
    start_row: usize,
    /// Lines it decides keep their indentation (`@indent.keep`, or an aligned bracket).
    keeps: bool,
}

/// What the indents query says about a tree.
struct Layout {
    /// Sorted by start, outer before inner when two start together.
    openers: Vec<Opener>,
    /// `@outdent` tokens: start offset and the range of the node they close.
    outdents: Vec<(usize, Range<usize>)>,
    /// `@dedent` tokens' start offsets, sorted.
    dedents: Vec<usize>,
    /// Merged, sorted byte ranges whose bytes are never changed.
    verbatim: Vec<Range<usize>>,
}

fn collect(lang: &Language, text: &str, tree: &Tree, interrupt: Interrupt) -> Option<Layout> {
    let mut openers = Vec::new();
    let mut outdents = Vec::new();
    let mut dedents = Vec::new();
    let mut verbatim = Vec::new();
    if let Some(query) = lang.query(QueryKind::Indents) {
        let names = query.capture_names();
        let finished = syntax::run_query(lang, QueryKind::Indents, tree, text, interrupt, |m| {
            for capture in m.captures() {
                let node = capture.node;
                match names[capture.index as usize] {
                    "indent" => openers.push(Opener {
                        range: node.byte_range(),
                        start_row: node.start_position().row,
                        keeps: is_aligned(node),
                    }),
                    "indent.keep" => openers.push(Opener {
                        range: node.byte_range(),
                        start_row: node.start_position().row,
                        keeps: true,
                    }),
                    "outdent" => {
                        if let Some(parent) = node.parent() {
                            outdents.push((node.start_byte(), parent.byte_range()));
                        }
                    }
                    "dedent" => dedents.push(node.start_byte()),
                    "verbatim" => verbatim.push(node.byte_range()),
                    _ => {}
                }
            }
        });
        if !finished && interrupt() {
            return None;
        }
    }
    multi_line_tokens(tree, &mut verbatim);
    openers.sort_by_key(|o| (o.range.start, std::cmp::Reverse(o.range.end)));
    openers.dedup_by(|later, earlier| {
        later.range == earlier.range && {
            earlier.keeps |= later.keeps;
            true
        }
    });
    outdents.sort_by_key(|(start, _)| *start);
    dedents.sort_unstable();
    verbatim.sort_by_key(|r| r.start);
    let mut merged: Vec<Range<usize>> = Vec::with_capacity(verbatim.len());
    for range in verbatim {
        match merged.last_mut() {
            Some(last) if range.start <= last.end => last.end = last.end.max(range.end),
            _ => merged.push(range),
        }
    }
    Some(Layout {
        openers,
        outdents,
        dedents,
        verbatim: merged,
    })
}

/// A node whose opening bracket is followed by its first element on the same line: its lines
/// are aligned by the author, not by levels. (A node with no bracket of its own, a `let`
/// statement or a `case`, is never aligned.)
fn is_aligned(node: Node) -> bool {
    let mut cursor = node.walk();
    // The opening bracket need not come first (`a[i,` in a subscript).
    let Some(open) = node
        .children(&mut cursor)
        .find(|child| !child.is_named() && matches!(child.kind(), "(" | "[" | "{" | "<"))
    else {
        return false;
    };
    open.next_sibling().is_some_and(|next| {
        next.start_position().row == open.end_position().row && next.end_byte() < node.end_byte()
    })
}

/// Every token that spans lines: its inner whitespace is its content.
fn multi_line_tokens(tree: &Tree, out: &mut Vec<Range<usize>>) {
    let mut cursor = tree.walk();
    loop {
        let node = cursor.node();
        let spans_lines = node.start_position().row != node.end_position().row;
        if spans_lines && node.child_count() == 0 {
            out.push(node.byte_range());
        }
        if spans_lines && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return;
            }
        }
    }
}

impl Layout {
    /// The verbatim range strictly containing `offset`, if any.
    fn verbatim_around(&self, offset: usize) -> Option<&Range<usize>> {
        let after = self.verbatim.partition_point(|r| r.start < offset);
        after
            .checked_sub(1)
            .map(|i| &self.verbatim[i])
            .filter(|r| offset < r.end)
    }

    /// The last verbatim range starting before `offset`.
    fn last_verbatim_before(&self, offset: usize) -> Option<&Range<usize>> {
        let after = self.verbatim.partition_point(|r| r.start < offset);
        after.checked_sub(1).map(|i| &self.verbatim[i])
    }

    /// Whether a verbatim range starts exactly at `offset`.
    fn verbatim_starts_at(&self, offset: usize) -> Option<&Range<usize>> {
        let at = self.verbatim.partition_point(|r| r.start < offset);
        self.verbatim.get(at).filter(|r| r.start == offset)
    }
}

/// One line of the input: `start..end` is its text without the line break; `break_end` is
/// where the next line starts.
struct Line {
    start: usize,
    end: usize,
    break_end: usize,
}

fn lines(text: &str) -> Vec<Line> {
    let mut lines = Vec::new();
    let mut start = 0;
    while start < text.len() {
        let (end, break_end) = match text[start..].find('\n') {
            Some(at) => {
                let newline = start + at;
                let end = if newline > start && text.as_bytes()[newline - 1] == b'\r' {
                    newline - 1
                } else {
                    newline
                };
                (end, newline + 1)
            }
            None => (text.len(), text.len()),
        };
        lines.push(Line {
            start,
            end,
            break_end,
        });
        start = break_end;
    }
    lines
}

fn is_blank(byte: u8) -> bool {
    byte == b' ' || byte == b'\t'
}

/// The most a layout may write for `text`. Only indentation grows a text, and real code
/// stays well within this; deep nesting at column 0 (thousands of blocks, each line
/// indented by its depth) would otherwise grow quadratically: 80 KB into 40 MB.
pub fn output_limit(text: &str) -> usize {
    text.len().saturating_mul(4).saturating_add(1 << 20)
}

/// The text laid out: `None` when interrupted, `Some(None)` when it would exceed `limit`
/// bytes (stopped there, so a pathological input costs no more than the limit).
fn layout(
    lang: &Language,
    text: &str,
    tree: &Tree,
    unit: &str,
    limit: usize,
    interrupt: Interrupt,
) -> Option<Option<String>> {
    let facts = collect(lang, text, tree, interrupt)?;
    let bytes = text.as_bytes();
    let lines = lines(text);
    // The file's first line break decides the line ending of the others.
    let newline = match lines.first() {
        Some(line) if line.break_end - line.end == 2 => "\r\n",
        _ => "\n",
    };
    let mut out = String::with_capacity(text.len());
    // The indentation each line got, for the lines placed relative to it.
    let mut indents: Vec<Range<usize>> = Vec::with_capacity(lines.len());
    let mut open: Vec<&Opener> = Vec::new();
    let mut next_opener = 0;
    let mut pending_blank = 0usize;
    let mut wrote_any = false;
    for (row, line) in lines.iter().enumerate() {
        if row % 4096 == 4095 && interrupt() {
            return None;
        }
        if out.len() > limit {
            return Some(None);
        }
        let starts_inside = facts.verbatim_around(line.start).is_some();
        let break_inside = line.end < line.break_end
            && facts
                .verbatim_around(line.end)
                .or_else(|| facts.verbatim_starts_at(line.end))
                .is_some();
        let first = if starts_inside {
            line.start
        } else {
            (line.start..line.end)
                .find(|&at| !is_blank(bytes[at]))
                .unwrap_or(line.end)
        };
        let blank = !starts_inside && !break_inside && first == line.end;
        if blank {
            pending_blank += 1;
            indents.push(0..0);
            continue;
        }
        if wrote_any {
            out.extend(std::iter::repeat_n(
                newline,
                pending_blank.min(lang.max_blank_lines),
            ));
        }
        pending_blank = 0;
        wrote_any = true;

        // The openers around this line's first token, innermost last.
        while let Some(opener) = facts.openers.get(next_opener) {
            if opener.range.start >= first {
                break;
            }
            open.push(opener);
            next_opener += 1;
        }
        open.retain(|o| o.range.end > first);

        let content_end = content_end(text, &facts, line, first, break_inside);

        let indent_start = out.len();
        if starts_inside {
            out.push_str(&text[line.start..content_end]);
        } else {
            let multi_line_first = facts
                .verbatim_starts_at(first)
                .is_some_and(|r| text[r.clone()].contains('\n'));
            let decision = if multi_line_first {
                Decision::Keep
            } else {
                decide(&facts, &open, first, row)
            };
            push_indent(&mut out, decision, &indents, unit, &text[line.start..first]);
            out.push_str(&text[first..content_end]);
        }
        let indent_end = indent_start + leading_blanks(&out[indent_start..]);
        indents.push(indent_start..indent_end);
        if break_inside {
            out.push_str(&text[line.end..line.break_end]);
        } else {
            out.push_str(newline);
        }
    }
    // A line breaking inside a token at the end of the text keeps that (absent) break;
    // otherwise every line ended with `newline`, trailing blank lines were dropped, and a
    // non-empty text ends with exactly one line break.
    Some((out.len() <= limit).then_some(out))
}

/// Where a line's content ends. Trailing blanks go, unless they belong to a verbatim
/// token: a line breaking inside one is content to its end, and one ending on this line
/// keeps its own bytes.
fn content_end(text: &str, facts: &Layout, line: &Line, first: usize, break_inside: bool) -> usize {
    if break_inside {
        return line.end;
    }
    let mut end = line.start
        + text[line.start..line.end]
            .trim_end_matches([' ', '\t'])
            .len();
    if let Some(token) = facts.last_verbatim_before(line.end)
        && token.end > end
    {
        end = token.end.min(line.end);
    }
    end.max(first)
}

/// Writes a line's indentation as `decision` says: none, another line's (`indents` holds
/// where each line's went in `out`) with one `unit` more or not, or the line's own
/// (`own`).
fn push_indent(
    out: &mut String,
    decision: Decision,
    indents: &[Range<usize>],
    unit: &str,
    own: &str,
) {
    match decision {
        Decision::Column0 => {}
        Decision::Relative { row: base, deeper } => {
            let base_indent = out[indents[base].clone()].to_string();
            out.push_str(&base_indent);
            if deeper {
                out.push_str(unit);
            }
        }
        Decision::Keep => out.push_str(own),
    }
}

fn leading_blanks(text: &str) -> usize {
    text.bytes().take_while(|&b| is_blank(b)).count()
}

enum Decision {
    /// Outside every opener.
    Column0,
    /// The indentation of line `row`, one unit deeper or not.
    Relative { row: usize, deeper: bool },
    /// The line keeps its own indentation.
    Keep,
}

/// How the line at `row`, whose first token starts at `first`, is indented; `open` holds
/// the openers around that token, outermost first.
fn decide(facts: &Layout, open: &[&Opener], first: usize, row: usize) -> Decision {
    // Openers starting on this line do not indent it; several starting on one earlier line
    // (`f(|x| {`) count as one level.
    let Some(base) = open
        .iter()
        .rev()
        .find(|o| o.start_row < row)
        .map(|o| o.start_row)
    else {
        return Decision::Column0;
    };
    let at_base: Vec<&Opener> = open
        .iter()
        .copied()
        .filter(|o| o.start_row == base)
        .collect();
    let from = facts.outdents.partition_point(|(start, _)| *start < first);
    let closed = facts.outdents[from..]
        .iter()
        .take_while(|(start, _)| *start == first)
        .find_map(|(_, closed)| at_base.iter().find(|o| o.range == *closed));
    let innermost = at_base[at_base.len() - 1];
    match closed {
        // The closing bracket of a hand-aligned bracket stays where its author put it.
        Some(opener) if opener.keeps => return Decision::Keep,
        Some(_) => {
            return Decision::Relative {
                row: base,
                deeper: false,
            };
        }
        None => {}
    }
    if innermost.keeps {
        Decision::Keep
    } else if facts.dedents.binary_search(&first).is_ok() {
        Decision::Relative {
            row: base,
            deeper: false,
        }
    } else {
        Decision::Relative {
            row: base,
            deeper: true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::registry;

    fn tree(lang: &Language, text: &str) -> Tree {
        syntax::parse_tree_sitter(lang, text, None, &|| false).unwrap()
    }

    /// The check that guards every result: whitespace inside a token, or a token moved
    /// into another node, is a difference; a line comment's trailing blanks are not.
    #[test]
    fn the_safety_check_sees_changes_inside_tokens_and_trees() {
        let python = registry().by_id("python").unwrap();
        let differs = |old: &str, new: &str| {
            first_difference(old, &tree(python, old), new, &tree(python, new))
        };
        assert_eq!(differs("x = 'a  b'\n", "x = 'a  b'\n"), None);
        assert_eq!(differs("x = 1  # note   \n", "x = 1  # note\n"), None);
        assert_eq!(differs("x = 'a  b'\n", "x = 'a b'\n"), Some(5));
        assert_eq!(differs("s = '''a  \nb'''\n", "s = '''a\nb'''\n"), Some(7));
        // The same tokens, another block structure.
        assert!(differs("if a:\n    b\n    c\n", "if a:\n    b\nc\n").is_some());
    }

    #[test]
    fn line_endings_follow_the_first_line_outside_tokens_only() {
        let python = registry().by_id("python").unwrap();
        let format = |text: &str| {
            format_text(python, text, FormatOptions::default(), &|| false)
                .unwrap()
                .unwrap()
        };
        assert_eq!(
            format("a = 1\r\nb = 2\nc = 3"),
            "a = 1\r\nb = 2\r\nc = 3\r\n"
        );
        assert_eq!(
            format("a = 1\ns = '''x\r\ny'''\r\n"),
            "a = 1\ns = '''x\r\ny'''\n"
        );
        assert_eq!(
            format("\n\n\na = 1\n\n\n\n\nb = 2\n\n"),
            "a = 1\n\n\nb = 2\n"
        );
    }
}
