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

/// Runs the binary on `file` (written into a fresh workspace) with `args` after it.
fn sextant(file: &str, text: &str, args: &[&str]) -> std::process::Output {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(file), text).unwrap();
    std::process::Command::new(env!("CARGO_BIN_EXE_sextant"))
        .current_dir(dir.path())
        .arg("--root")
        .arg(dir.path())
        .args(args)
        .arg(file)
        .output()
        .expect("sextant runs")
}

/// 20,000 comment lines after a statement. The published scanner read the rest of the run
/// at each of them: about 300,000 reads of the parse budget's 4 KiB chunks against an
/// allowance of about 5,000, so with it this file is reported as not parsed; before the
/// budget existed it parsed, in tens of seconds. The patched scanner reads it once.
#[test]
fn a_long_comment_run_after_a_statement_parses_within_the_budget() {
    let text = format!("x = 1\n{}", "# pad\n".repeat(20_000));
    let out = sextant("comments.py", &text, &["parse", "--errors-only"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "comments.py: no syntax errors\n"
    );
    assert_eq!(out.status.code(), Some(0));
}

/// The shape the patch leaves quadratic (comment lines at column 0 inside a block that goes
/// on after them: every line may close the block, which depends on the next code line) is
/// stopped by the budget and reported, not parsed for minutes: before the budget this file
/// parsed without errors after about 300,000 chunk reads.
#[test]
fn a_file_over_the_parse_budget_is_reported_as_not_parsed() {
    let text = format!(
        "def f():\n    x = 1\n{}    y = 2\n",
        "# pad\n".repeat(20_000)
    );
    let out = sextant("commented_out.py", &text, &["check", "--format", "json"]);
    let answer: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let lines = text.lines().count() + 1;
    assert_eq!(
        answer["diagnostics"],
        serde_json::json!([{
            "path": "commented_out.py",
            "code": "SX001",
            "severity": "error",
            "message": syntax::NOT_PARSED,
            "span": {
                "start": {"line": 1, "column": 1},
                "end": {"line": lines, "column": 1},
                "byte_start": 0,
                "byte_end": text.len(),
            },
        }])
    );
    assert_eq!(out.status.code(), Some(1));
}
