//! Syntax errors from tree-sitter's `ERROR` and `MISSING` nodes, with readable messages.

use super::{SyntaxError, TextRange, TextSize, floor_char_boundary};
use crate::lang::Language;

const MAX_TOKEN_CHARS: usize = 24;

pub(super) fn collect(lang: &Language, tree: &tree_sitter::Tree, text: &str) -> Vec<SyntaxError> {
    let mut errors = Vec::new();
    let root = tree.root_node();
    if !root.has_error() {
        return errors;
    }
    let mut cursor = root.walk();
    // Preorder walk that only descends into subtrees containing errors.
    'walk: loop {
        let node = cursor.node();
        let mut descend = node.has_error();
        if node.is_missing() {
            errors.push(missing(lang, node, text));
            descend = false;
        } else if node.is_error() {
            errors.push(unexpected(lang, node, text));
            descend = false;
        }
        if descend && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                continue 'walk;
            }
            if !cursor.goto_parent() {
                break 'walk;
            }
        }
    }
    errors
}

fn range(node: tree_sitter::Node, text: &str) -> TextRange {
    let start = floor_char_boundary(text, node.start_byte());
    let end = floor_char_boundary(text, node.end_byte()).max(start);
    TextRange::new(TextSize::new(start as u32), TextSize::new(end as u32))
}

fn missing(lang: &Language, node: tree_sitter::Node, text: &str) -> SyntaxError {
    let kind = node.kind();
    let what = if lang.grammar.node_kind_is_named(node.kind_id()) {
        kind.replace('_', " ")
    } else {
        format!("`{kind}`")
    };
    SyntaxError {
        range: range(node, text),
        message: format!("missing {what}"),
    }
}

fn unexpected(lang: &Language, node: tree_sitter::Node, text: &str) -> SyntaxError {
    let range = range(node, text);
    let error_text = &text[usize::from(range.start())..usize::from(range.end())];
    let rest_is_blank = text[usize::from(range.end())..].trim().is_empty();
    let message = match first_token(node, text) {
        None => "syntax error".to_string(),
        // An error that runs to the end of the file: the parser was still waiting for
        // something (a closing bracket, a body) when the text ended.
        Some(_) if rest_is_blank && unclosed_delimiter(error_text).is_some() => {
            format!(
                "unexpected end of file: unclosed `{}`",
                unclosed_delimiter(error_text).unwrap_or('(')
            )
        }
        Some(token) if rest_is_blank && error_text.trim() != token => {
            // The parser gave up on everything from here (maybe the file's first line) to
            // the end: where it stopped reading is the error inside.
            if let Some(inner) = innermost_error(node) {
                return unreadable(lang, inner, text);
            }
            "unexpected end of file".to_string()
        }
        Some(token) => format!("unexpected `{}`", shorten(token)),
    };
    SyntaxError { range, message }
}

/// The first `ERROR` or `MISSING` node inside the `ERROR` node `error` (in the first such
/// node, its own first one, and so on): where the parser stopped reading, rather than where
/// the construct it then gave up on began, which may be the first line of the file.
fn innermost_error(error: tree_sitter::Node) -> Option<tree_sitter::Node> {
    let mut found = None;
    let mut node = error;
    'deeper: loop {
        let mut cursor = node.walk();
        if !cursor.goto_first_child() {
            return found;
        }
        // Preorder, only into subtrees holding an error.
        'walk: loop {
            let current = cursor.node();
            if current.is_missing() {
                return Some(current);
            }
            if current.is_error() {
                found = Some(current);
                node = current;
                continue 'deeper;
            }
            if current.has_error() && cursor.goto_first_child() {
                continue;
            }
            loop {
                if cursor.goto_next_sibling() {
                    continue 'walk;
                }
                if !cursor.goto_parent() || cursor.node() == node {
                    return found;
                }
            }
        }
    }
}

/// An error inside an `ERROR` node that runs to the end of the file: reported where it is,
/// as it reads, saying that the parser could not recover, which a grammar's limits can cause
/// in valid code.
fn unreadable(lang: &Language, inner: tree_sitter::Node, text: &str) -> SyntaxError {
    let mut error = if inner.is_missing() {
        missing(lang, inner, text)
    } else {
        unexpected(lang, inner, text)
    };
    error.message.push_str(&format!(
        "; the parser could not recover from it to the end of the file (if {} accepts the \
         file, this is a limit of the parser)",
        lang.name
    ));
    error
}

/// The text of the first non-empty leaf inside `node`.
fn first_token<'t>(node: tree_sitter::Node, text: &'t str) -> Option<&'t str> {
    let mut cursor = node.walk();
    loop {
        let current = cursor.node();
        if current.child_count() == 0 || !cursor.goto_first_child() {
            let start = floor_char_boundary(text, current.start_byte());
            let end = floor_char_boundary(text, current.end_byte()).max(start);
            if end > start {
                return Some(&text[start..end]);
            }
            // Empty leaf: try the following ones.
            loop {
                if cursor.node() == node {
                    return None;
                }
                if cursor.goto_next_sibling() {
                    break;
                }
                if !cursor.goto_parent() {
                    return None;
                }
            }
        }
    }
}

/// The innermost bracket opened in `text` and never closed, ignoring string contents only
/// roughly (good enough for a message, never used for analysis).
fn unclosed_delimiter(text: &str) -> Option<char> {
    let mut stack = Vec::new();
    for c in text.chars() {
        match c {
            '(' | '[' | '{' => stack.push(c),
            ')' | ']' | '}' => {
                stack.pop();
            }
            _ => {}
        }
    }
    stack.pop()
}

fn shorten(token: &str) -> String {
    let one_line: String = token.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() > MAX_TOKEN_CHARS {
        let cut: String = one_line.chars().take(MAX_TOKEN_CHARS).collect();
        format!("{cut}…")
    } else {
        one_line
    }
}
