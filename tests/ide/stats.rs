//! `workspace_stats`: files, bytes, lines and symbols per language.

use expect_test::expect;

use crate::{analysis, render};

#[test]
fn counts_per_language() {
    let (db, _, _) = analysis::analysis(
        r#"
        //- /a.py
        def f():
            pass
        //- /b.py
        class C: pass
        //- /lib.rs
        fn g() {}
        //- /main.go
        package main
        //- /empty.ts
        "#,
    );
    expect![[r#"
        all: 5 files, 55 bytes, 5 lines, 3 symbols
        go: 1 files, 13 bytes, 1 lines, 0 symbols, 0 lossy
        python: 2 files, 32 bytes, 3 lines, 2 symbols, 0 lossy
        rust: 1 files, 10 bytes, 1 lines, 1 symbols, 0 lossy
        typescript: 1 files, 0 bytes, 0 lines, 0 symbols, 0 lossy
    "#]]
    .assert_eq(&render::workspace_stats(&analysis::workspace_stats(&db)));
}

#[test]
fn last_line_without_newline_counts() {
    let (db, _, _) = analysis::analysis("//- /a.py\nx = 1\ny = 2");
    expect![[r#"
        all: 1 files, 11 bytes, 2 lines, 2 symbols
        python: 1 files, 11 bytes, 2 lines, 2 symbols, 0 lossy
    "#]]
    .assert_eq(&render::workspace_stats(&analysis::workspace_stats(&db)));
}
