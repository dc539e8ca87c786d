//! Runs of comment lines in Python, which the published tree-sitter-python scanner parsed
//! in quadratic time (`vendor/tree-sitter-python/PATCHES.md`): the patched scanner gives
//! the trees the published one gives (these S-expressions are the published scanner's; the
//! whole comparison is `tests/oracle/python_scanner_compare.py`).

use sextant::{lang::registry, syntax};

const RUN: &str = "# pad\n# pad\n# pad\n";

/// (shape, text, the published scanner's tree).
fn shapes() -> Vec<(&'static str, String, &'static str)> {
    vec![
        (
            "after a statement",
            format!("x = 1\n{RUN}"),
            "(module (expression_statement (assignment left: (identifier) right: (integer))) (comment) (comment) (comment))",
        ),
        (
            "between statements",
            format!("x = 1\n{RUN}y = 2\n"),
            "(module (expression_statement (assignment left: (identifier) right: (integer))) (comment) (comment) (comment) (expression_statement (assignment left: (identifier) right: (integer))))",
        ),
        (
            "in a block, at its indentation",
            format!(
                "def f():\n    x = 1\n{}    y = 2\n",
                "    # pad\n".repeat(3)
            ),
            "(module (function_definition name: (identifier) parameters: (parameters) body: (block (expression_statement (assignment left: (identifier) right: (integer))) (comment) (comment) (comment) (expression_statement (assignment left: (identifier) right: (integer))))))",
        ),
        (
            "in a block, dedented, the block going on",
            format!("def f():\n    x = 1\n{RUN}    y = 2\n"),
            "(module (function_definition name: (identifier) parameters: (parameters) body: (block (expression_statement (assignment left: (identifier) right: (integer))) (comment) (comment) (comment) (expression_statement (assignment left: (identifier) right: (integer))))))",
        ),
        (
            "in a block, dedented, the block ending",
            format!("def f():\n    x = 1\n{RUN}y = 2\n"),
            "(module (function_definition name: (identifier) parameters: (parameters) body: (block (expression_statement (assignment left: (identifier) right: (integer))))) (comment) (comment) (comment) (expression_statement (assignment left: (identifier) right: (integer))))",
        ),
        (
            "after a colon",
            format!("def f():\n{RUN}    pass\n"),
            "(module (function_definition name: (identifier) parameters: (parameters) (comment) (comment) (comment) body: (block (pass_statement))))",
        ),
        (
            "before except",
            format!("try:\n    x = 1\n{RUN}except E:\n    pass\n"),
            "(module (try_statement body: (block (expression_statement (assignment left: (identifier) right: (integer)))) (comment) (comment) (comment) (except_clause value: (identifier) (block (pass_statement)))))",
        ),
        (
            "before a stray backslash",
            format!("x = 1\n{RUN}\\ y\n"),
            "(module (expression_statement (assignment left: (identifier) (ERROR (integer) (comment) (comment) (comment) (UNEXPECTED ' ')) right: (identifier))))",
        ),
        (
            "in a broken block",
            format!("def f(:\n    x = 1\n{}    y = 2\n", "    # pad\n".repeat(3)),
            "(module (function_definition name: (identifier) parameters: (parameters (MISSING \")\")) body: (block (expression_statement (assignment left: (identifier) right: (integer))) (comment) (comment) (comment) (expression_statement (assignment left: (identifier) right: (integer))))))",
        ),
        (
            "in brackets",
            format!("x = [\n{}]\n", "    # pad\n".repeat(3)),
            "(module (expression_statement (assignment left: (identifier) right: (list (comment) (comment) (comment)))))",
        ),
    ]
}

#[test]
fn comment_runs_parse_as_the_published_scanner_parses_them() {
    let python = registry().by_id("python").expect("python is registered");
    for (shape, text, published) in shapes() {
        let tree = syntax::parse_tree_sitter(python, &text, None, syntax::NEVER).unwrap();
        assert_eq!(tree.root_node().to_sexp(), published, "{shape}: {text:?}");
    }
}
