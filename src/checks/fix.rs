//! Fixes: the edit that resolves a diagnostic, carried by the diagnostic when the check
//! can compute it for certain, and the text surgery fixers share (removing one item of a
//! comma-separated list, removing a whole statement without disturbing its neighbours).
//!
//! Invariant: a fix's edits are byte ranges of the checked text, sorted and
//! non-overlapping; applied alone to that text they resolve the diagnostic and change
//! nothing the program does. A fix that is right only when the check's reading of the
//! program is right (a removed call result, an import added by its name alone) is
//! [`Applicability::Unsafe`]: offered, never applied without being asked for.

use serde::{Deserialize, Serialize};
use tree_sitter::Node;

use crate::syntax::TextRange;

/// Whether a fix may be applied without a person looking at it.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Applicability {
    /// Keeps what the program does: applied by `check --fix`.
    Safe,
    /// Right when the check is right about the program; applied with `--unsafe-fixes`.
    Unsafe,
}

/// The edit that resolves one diagnostic.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fix {
    /// What the fix does, imperative: `Remove unused import 'os'`.
    pub title: String,
    pub applicability: Applicability,
    /// Sorted, non-overlapping replacements in the checked text.
    pub edits: Vec<(TextRange, String)>,
    /// A range no other fix may touch in the same pass (a statement removed from a block:
    /// the block, which two removals applied together could leave empty).
    pub isolation: Option<TextRange>,
}

impl Fix {
    pub(crate) fn safe(title: String, edits: Vec<(TextRange, String)>) -> Fix {
        Fix::new(title, Applicability::Safe, edits)
    }

    pub(crate) fn unsafe_(title: String, edits: Vec<(TextRange, String)>) -> Fix {
        Fix::new(title, Applicability::Unsafe, edits)
    }

    /// The same fix, kept apart, in one pass, from every other fix touching `range`.
    pub(crate) fn isolated_in(self, range: Option<TextRange>) -> Fix {
        Fix {
            isolation: range,
            ..self
        }
    }

    /// The same fix, applied only when unsafe fixes are asked for.
    pub(crate) fn made_unsafe(self) -> Fix {
        Fix {
            applicability: Applicability::Unsafe,
            ..self
        }
    }

    fn new(
        title: String,
        applicability: Applicability,
        mut edits: Vec<(TextRange, String)>,
    ) -> Fix {
        edits.sort_by_key(|(range, _)| (range.start(), range.end()));
        Fix {
            title,
            applicability,
            edits,
            isolation: None,
        }
    }

    /// The range two fixes applied in one pass must not share: the isolation range, or
    /// the smallest range covering every edit.
    pub fn span(&self) -> Option<TextRange> {
        let first = self.edits.first()?.0;
        let last = self.edits.last()?.0;
        let edits = TextRange::new(first.start(), last.end().max(first.end()));
        Some(self.isolation.map_or(edits, |range| range.cover(edits)))
    }
}

pub(crate) fn range(start: usize, end: usize) -> TextRange {
    TextRange::new((start as u32).into(), (end as u32).into())
}

/// The edit removing `item`, one of the comma-separated `items` (named nodes of one list,
/// in order, at least two): with the comma after it, or for the last item the comma
/// before it. `None` when a comment sits in the text removed (it would go with it).
pub(crate) fn remove_list_item(
    text: &str,
    items: &[Node],
    item: usize,
) -> Option<(TextRange, String)> {
    let (start, end) = if item + 1 < items.len() {
        (items[item].start_byte(), items[item + 1].start_byte())
    } else {
        (items[item - 1].end_byte(), items[item].end_byte())
    };
    let removed = &text[start..end];
    if removed.contains("//") || removed.contains('#') || removed.contains("/*") {
        return None;
    }
    Some((range(start, end), String::new()))
}

/// How a statement on a line with others is separated from them.
pub(crate) struct StatementSyntax {
    /// The separator of statements on one line (`;`).
    pub separator: char,
    /// A line comment's opening (`#`, `//`).
    pub line_comment: &'static str,
    /// What stands in for the statement when removing it would leave a block with no
    /// statement where one is required (Python's `pass`); `None` where an empty block is
    /// valid.
    pub placeholder: Option<&'static str>,
}

/// The edit removing `statement`: its whole lines (with a comment that ends its last line)
/// when it stands alone on them; through the separator that follows or precedes it when it
/// shares a line; otherwise, and when `sole_in_block` says the block would be left without
/// a statement, the language's placeholder in its place (`None` when it has none).
pub(crate) fn remove_statement(
    text: &str,
    statement: Node,
    sole_in_block: bool,
    syntax: &StatementSyntax,
) -> Option<(TextRange, String)> {
    let (start, end) = (statement.start_byte(), statement.end_byte());
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[end..].find('\n').map_or(text.len(), |i| end + i);
    let before = &text[line_start..start];
    let after = text[end..line_end].trim_start();
    let placeholder = || {
        syntax
            .placeholder
            .map(|p| (range(start, end), p.to_string()))
    };
    if sole_in_block {
        return placeholder();
    }
    let alone_before = before.trim().is_empty();
    if alone_before && (after.is_empty() || after.starts_with(syntax.line_comment)) {
        // The whole lines, their line break included.
        let through = if line_end < text.len() {
            line_end + 1
        } else {
            line_end
        };
        return Some((range(line_start, through), String::new()));
    }
    // Where the separator is part of the statement (JavaScript's `;`), the statement goes
    // with it; where it stands between statements (Python's), the one beside it goes too.
    let own_separator = text[start..end].ends_with(syntax.separator);
    let next_word = |from: usize| {
        from + text[from..line_end]
            .find(|c: char| !c.is_whitespace())
            .unwrap_or(line_end - from)
    };
    if own_separator && !after.is_empty() && !after.starts_with(syntax.line_comment) {
        return Some((range(start, next_word(end)), String::new()));
    }
    if after.starts_with(syntax.separator) {
        let separator = end + text[end..].find(syntax.separator)?;
        return Some((range(start, next_word(separator + 1)), String::new()));
    }
    let trimmed = before.trim_end();
    if trimmed.ends_with(syntax.separator) {
        let from = line_start + trimmed.len() - usize::from(!own_separator);
        return Some((range(from, end), String::new()));
    }
    placeholder()
}

/// How JavaScript, TypeScript and Go separate statements (and Go's import specs) on a
/// line: `;` ends the statement it belongs to, `//` starts a line comment.
pub(crate) const C_LIKE_STATEMENTS: StatementSyntax = StatementSyntax {
    separator: ';',
    line_comment: "//",
    placeholder: None,
};

/// `edit`, a removal of whole lines, widened so that gofmt has nothing to say about the
/// blank lines it leaves: gofmt keeps at most one blank line in a row, and none just inside
/// the parentheses of a grouped declaration (`in_group`), so a blank line that would end up
/// beside another, or beside such a parenthesis, goes with the removed lines. An edit that
/// does not remove whole lines is returned as it is.
pub(crate) fn gofmt_blank_lines(
    text: &str,
    edit: (TextRange, String),
    in_group: bool,
) -> (TextRange, String) {
    let (start, end) = (usize::from(edit.0.start()), usize::from(edit.0.end()));
    let whole_lines = edit.1.is_empty()
        && (start == 0 || text[..start].ends_with('\n'))
        && (end == text.len() || text[..end].ends_with('\n'));
    if !whole_lines || start == end {
        return edit;
    }
    let before = text[..start].strip_suffix('\n').map(|t| {
        let from = t.rfind('\n').map_or(0, |i| i + 1);
        (from, t[from..].trim())
    });
    let after = (end < text.len()).then(|| {
        let to = text[end..].find('\n').map_or(text.len(), |i| end + i + 1);
        (to, text[end..to].trim())
    });
    let blank = |line: Option<(usize, &str)>| line.is_some_and(|(_, l)| l.is_empty());
    let opens = before.is_some_and(|(_, l)| in_group && l.ends_with('('));
    let closes = after.is_some_and(|(_, l)| in_group && l.starts_with(')'));
    match (before, after) {
        (_, Some((to, _))) if blank(after) && (blank(before) || opens) => {
            (range(start, to), String::new())
        }
        (Some((from, _)), _) if blank(before) && (closes || after.is_none()) => {
            (range(from, end), String::new())
        }
        _ => (range(start, end), String::new()),
    }
}
