//! Whether an external formatter's output may replace its input.
//!
//! Invariant: a text an external formatter returned is accepted only when all of these
//! hold, judged from tree-sitter parses of the input and the output:
//!
//! 1. it is not empty (or all whitespace) unless the input was;
//! 2. when its tokens (every leaf of the tree, a comment's text compared without the
//!    blanks at its ends) are the input's, it has no more syntax errors than the input and
//!    the same tree (layout alone can break Python, or move a statement out of its block);
//! 3. when its tokens differ (quotes, trailing commas, parentheses, sorted imports), it
//!    has no syntax error at all, and it keeps the input's words and comments: the same
//!    identifiers, keywords and one-word string contents (a key may lose its quotes),
//!    counted, in any order, and the same number of comments.
//!
//! Anything else is refused with the reason; the caller writes nothing.

use tree_sitter::{Node, Tree};

use crate::{lang::Language, syntax};

/// Why `output` may not replace `input`; `None` when it may.
pub fn output_refusal(lang: &Language, input: &str, output: &str) -> Option<String> {
    // An already formatted file, the common case, costs no parse.
    if input == output {
        return None;
    }
    let has_content = |text: &str| text.chars().any(|c| !c.is_whitespace());
    if has_content(input) && !has_content(output) {
        return Some("its output is empty".into());
    }
    let parse = |text: &str| syntax::parse_tree_sitter(lang, text, None, &|| false);
    let (Some(old), Some(new)) = (parse(input), parse(output)) else {
        return Some("its output could not be parsed".into());
    };
    let new_errors = syntax_errors(&new);
    if tokens(input, &old).eq(tokens(output, &new)) {
        if new_errors.count > syntax_errors(&old).count {
            return Some(format!(
                "its output has a syntax error the input did not have (line {})",
                new_errors.first_line
            ));
        }
        // Same tokens in another tree: Python's blocks moved by indentation alone.
        return super::format::first_difference(input, &old, output, &new).map(|offset| {
            let line = output[..offset.min(output.len())].matches('\n').count() + 1;
            format!("it changed the code's structure, not only its layout (line {line})")
        });
    }
    if new_errors.count > 0 {
        return Some(format!(
            "it changed tokens and its output has a syntax error (line {})",
            new_errors.first_line
        ));
    }
    let (old_words, new_words) = (words(input, &old), words(output, &new));
    if old_words != new_words {
        return Some(word_difference(&old_words, &new_words));
    }
    let (old_comments, new_comments) = (comment_count(&old), comment_count(&new));
    (old_comments != new_comments).then(|| {
        format!("its output has {new_comments} comments where the input has {old_comments}")
    })
}

struct SyntaxErrors {
    count: usize,
    /// 1-based; meaningful when `count > 0`.
    first_line: usize,
}

fn syntax_errors(tree: &Tree) -> SyntaxErrors {
    let mut errors = SyntaxErrors {
        count: 0,
        first_line: 0,
    };
    if !tree.root_node().has_error() {
        return errors;
    }
    for node in nodes(tree) {
        if node.is_error() || node.is_missing() {
            if errors.count == 0 {
                errors.first_line = node.start_position().row + 1;
            }
            errors.count += 1;
        }
    }
    errors
}

/// Every node of the tree in document order, by a cursor (no recursion: trees are deep).
fn nodes(tree: &Tree) -> impl Iterator<Item = Node<'_>> {
    let mut cursor = tree.walk();
    let mut done = false;
    std::iter::from_fn(move || {
        if done {
            return None;
        }
        let node = cursor.node();
        if !cursor.goto_first_child() {
            while !cursor.goto_next_sibling() {
                if !cursor.goto_parent() {
                    done = true;
                    break;
                }
            }
        }
        Some(node)
    })
}

fn is_comment(node: Node) -> bool {
    node.kind().contains("comment")
}

/// The texts of the tree's leaves, skipping empty ones (missing nodes, zero-width tokens).
fn tokens<'a>(text: &'a str, tree: &'a Tree) -> impl Iterator<Item = &'a str> + 'a {
    nodes(tree)
        .filter(|node| node.child_count() == 0)
        .map(|node| {
            let token = &text[node.byte_range()];
            if is_comment(node) {
                token.trim()
            } else {
                token
            }
        })
        .filter(|token| !token.is_empty())
}

/// Identifiers, keywords (anonymous leaves) and one-word string contents, each spelled as
/// a word, sorted: what a formatter may move but never add or drop. String contents count
/// so that a key losing its quotes (`{'a': 1}` to `{ a: 1 }`, as JavaScript formatters do)
/// keeps its word.
fn words<'a>(text: &'a str, tree: &Tree) -> Vec<&'a str> {
    let is_word = |token: &str| {
        token.starts_with(|c: char| c.is_alphabetic() || c == '_' || c == '$')
            && token
                .chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == '$')
    };
    let mut words: Vec<&str> = nodes(tree)
        .filter(|node| node.child_count() == 0)
        .filter(|node| {
            !node.is_named()
                || node.kind().ends_with("identifier")
                || node.kind().contains("string")
        })
        .map(|node| &text[node.byte_range()])
        .filter(|token| is_word(token))
        .collect();
    words.sort_unstable();
    words
}

/// Comments, counting a comment with comment parts (Rust's doc comments) once.
fn comment_count(tree: &Tree) -> usize {
    nodes(tree)
        .filter(|&node| is_comment(node) && !node.parent().is_some_and(is_comment))
        .count()
}

/// A word one sorted list has more often than the other, said plainly.
fn word_difference(old: &[&str], new: &[&str]) -> String {
    let count = |words: &[&str], word: &str| words.iter().filter(|w| **w == word).count();
    let changed = old
        .iter()
        .chain(new)
        .find(|word| count(old, word) != count(new, word))
        .expect("the lists differ");
    let (before, after) = (count(old, changed), count(new, changed));
    format!(
        "it changed the code, not only its layout: `{changed}` occurs {after} times in its output, {before} in the input"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::registry;

    fn judge(lang: &str, input: &str, output: &str) -> Option<String> {
        output_refusal(registry().by_id(lang).unwrap(), input, output)
    }

    #[test]
    fn layout_quotes_commas_and_sorted_imports_pass() {
        let input = "import b\nimport a\nx = f('a',b)\n";
        assert_eq!(judge("python", input, input), None);
        assert_eq!(
            judge("python", input, "import a\nimport b\n\nx = f(\"a\", b,)\n"),
            None
        );
        assert_eq!(judge("python", "x=1 #note\n", "x = 1  # note\n"), None);
        assert_eq!(judge("python", "", ""), None);
        assert_eq!(
            judge(
                "javascript",
                "f({'a': 1, \"b\": c});\n",
                "f({ a: 1, b: c });\n"
            ),
            None
        );
        assert_eq!(judge("python", "\n", ""), None);
    }

    #[test]
    fn empty_broken_or_changed_code_is_refused() {
        let input = "def f():\n    return 1\n";
        assert_eq!(
            judge("python", input, "").as_deref(),
            Some("its output is empty")
        );
        assert_eq!(
            judge("python", input, "def f(:\n    return 1\n").as_deref(),
            Some("it changed tokens and its output has a syntax error (line 1)")
        );
        // The same tokens, broken or changed in meaning by layout alone.
        assert_eq!(
            judge("python", "if a:\n    b\n    c\n", "if a:\n    b\n  c\n").as_deref(),
            Some("it changed the code's structure, not only its layout (line 1)")
        );
        assert_eq!(
            judge("python", "if a:\n    b\n    c\n", "if a:\n    b\nc\n").as_deref(),
            Some("it changed the code's structure, not only its layout (line 1)")
        );
        assert_eq!(
            judge("python", input, "def f():\n    1\n").as_deref(),
            Some(
                "it changed the code, not only its layout: `return` occurs 0 times in its output, 1 in the input"
            )
        );
        assert_eq!(
            judge("python", "x = 1  # keep\n", "x = (1)\n").as_deref(),
            Some("its output has 0 comments where the input has 1")
        );
    }

    #[test]
    fn an_input_with_syntax_errors_may_only_change_layout() {
        let input = "def f(:\n  pass   \n";
        assert_eq!(judge("python", input, "def f(:\n  pass\n"), None);
        assert!(judge("python", input, "def f(:\n  pass;\n").is_some());
    }
}
