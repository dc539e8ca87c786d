//! `parse_tree` and `syntax_errors`: the tree with spans, and errors as `l:c-l:c message`.

use expect_test::{Expect, expect};
use sextant::ide::ParseOptions;

use crate::{analysis, render};

fn check_tree(fixture: &str, options: ParseOptions, expect: Expect) {
    let (db, file, _) = analysis::analysis(fixture);
    expect.assert_eq(&render::parse_tree(&analysis::parse_tree(
        &db, file, options,
    )));
}

fn check_errors(fixture: &str, expect: Expect) {
    let (db, file, _) = analysis::analysis(fixture);
    let errors = analysis::syntax_errors(&db, file);
    // The tree-free path and the full parse must agree.
    let full = analysis::parse_tree(&db, file, ParseOptions::default());
    let full: Vec<(u32, String)> = full
        .errors
        .iter()
        .map(|e| (e.span.byte_start, e.message.clone()))
        .collect();
    let fast: Vec<(u32, String)> = errors
        .iter()
        .map(|e| (e.range.start().into(), e.message.clone()))
        .collect();
    assert_eq!(fast, full, "syntax_errors and parse_tree disagree");
    expect.assert_eq(&render::syntax_errors(db.text(file), &errors));
}

#[test]
fn python_tree_with_a_missing_paren() {
    check_tree(
        "//- /m.py\nprint(1\nx = 2\n",
        ParseOptions::default(),
        expect![[r#"
            (module 1:1-3:1)
              (expression_statement 1:1-2:6)
                (assignment 1:1-2:6)
                  (identifier "print" 1:1-1:6)
                  (ERROR 1:6-2:2)
                    "(" 1:6-1:7
                    (integer "1" 1:7-1:8)
                    (identifier "x" 2:1-2:2)
                  "=" 2:3-2:4
                  (integer "2" 2:5-2:6)
            error 1:6-2:2 unexpected `(`
            -- m.py python: nodes 10, errors 1
        "#]],
    );
}

#[test]
fn depth_limit_elides_and_node_limit_truncates() {
    check_tree(
        "//- /lib.rs\nfn f() { g(1); }\n",
        ParseOptions {
            max_depth: 2,
            max_nodes: 5,
            max_errors: 200,
        },
        expect![[r#"
            (source_file 1:1-2:1)
              (function_item 1:1-1:17)
                "fn" 1:1-1:3
                (identifier "f" 1:4-1:5)
                (parameters 1:5-1:7 …)
            -- lib.rs rust: nodes 5 (truncated), errors 0
        "#]],
    );
}

#[test]
fn error_list_limit() {
    check_tree(
        "//- /lib.rs\nfn f() {\n    let x = 1\n}\nfn g() { ) }\n",
        ParseOptions {
            max_depth: 0,
            max_nodes: 1,
            max_errors: 1,
        },
        expect![[r#"
            (source_file 1:1-5:1 …)
            error 2:14-2:14 missing `;`
            -- lib.rs rust: nodes 1, errors 2 (list truncated)
        "#]],
    );
}

#[test]
fn python_missing_paren() {
    check_errors(
        "//- /m.py\ndef f(:\n    pass\n",
        expect![[r#"
        1:7-1:7 missing `)`
    "#]],
    );
}

#[test]
fn rust_missing_semicolon_and_stray_token() {
    check_errors(
        r#"
        //- /lib.rs
        fn f() {
            let x = 1
            let y = 2;
        }
        fn g() { ) }
        "#,
        expect![[r#"
            2:14-2:14 missing `;`
            5:10-5:11 unexpected `)`
        "#]],
    );
}

#[test]
fn typescript_unclosed_brace() {
    check_errors(
        "//- /a.ts\nfunction f() {\n  return 1;\n",
        expect![[r#"
        2:12-2:12 missing `}`
    "#]],
    );
}

#[test]
fn go_error_after_multibyte_text() {
    check_errors(
        "//- /m.go\npackage main\nvar s = \"héllo\" +\n",
        expect![[r#"
            2:1-2:18 unexpected end of file
        "#]],
    );
}

#[test]
fn valid_files_have_no_errors() {
    check_errors("//- /a.js\nconst a = [1, 2];\n", expect![[r#""#]]);
}
