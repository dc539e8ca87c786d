//! `folding_ranges`: nested blocks, comment runs, one fold per start line, nodes ending at
//! a line start. Lines are 0-based here (as `Fold` counts them today).

use expect_test::{Expect, expect};

use crate::{analysis, render};

fn check(fixture: &str, expect: Expect) {
    let (db, file, _) = analysis::analysis(fixture);
    let folds = analysis::folding_ranges(&db, file);
    expect.assert_eq(&render::folds(db.text(file), &folds));
}

#[test]
fn python_nested_blocks() {
    // BUG (fixed): a Python `block` starts where its first statement does, so it was the
    // outermost node on that line and folded `def area` to the end of the class (1..7) and
    // `if` to the end of the function (2..4), hiding the statements after them.
    check(
        r#"
        //- /shapes.py
        class Shape:
            def area(self):
                if self.w:
                    return self.w * self.h
                return 0

            def name(self):
                return "shape"
        "#,
        expect![[r#"
            1..8: class Shape: … return "shape"
            2..5: def area(self): … return 0
            3..4: if self.w: … return self.w * self.h
            7..8: def name(self): … return "shape"
        "#]],
    );
}

#[test]
fn python_comment_run() {
    // BUG (fixed): runs of line comments were not folded at all (each comment is one line).
    check(
        r#"
        //- /notes.py
        # first
        # second
        # third
        x = 1
        # alone
        y = 2
        "#,
        expect![[r#"
            1..3 comment: # first … # third
        "#]],
    );
}

#[test]
fn rust_nested_blocks_and_comments() {
    check(
        r#"
        //- /lib.rs
        /// Docs on
        /// three
        /// lines.
        fn outer() {
            let v = vec![
                1,
                2,
            ];
            /* a block
               comment */
            for x in v {
                println!("{x}");
            }
        }
        "#,
        expect![[r#"
            1..3 comment: /// Docs on … /// lines.
            4..14: fn outer() { … }
            5..8: let v = vec![ … ];
            9..10 comment: /* a block … comment */
            11..13: for x in v { … }
        "#]],
    );
}

#[test]
fn one_fold_per_start_line() {
    check(
        r#"
        //- /calls.ts
        foo(function () {
            return [
                1,
            ];
        }, bar({
            a: 1,
        }));
        "#,
        expect![[r#"
            1..7: foo(function () { … }));
            2..4: return [ … ];
            5..7: }, bar({ … }));
        "#]],
    );
}

#[test]
fn go_function_and_struct() {
    check(
        r#"
        //- /main.go
        package main

        // Point is a
        // position.
        type Point struct {
            X int
            Y int
        }

        func (p Point) Norm() int {
            return p.X +
                p.Y
        }
        "#,
        expect![[r#"
            3..4 comment: // Point is a … // position.
            5..8: type Point struct { … }
            10..13: func (p Point) Norm() int { … }
            11..12: return p.X + … p.Y
        "#]],
    );
}

#[test]
fn javascript_template_string_folds_to_its_closing_backtick() {
    // Its text fragment ends at the start of the backtick's line; the literal itself ends
    // after the backtick, so the fold includes that line.
    check(
        "//- /t.js\nconst s = `a\nb\n`;\nlet t = 1;\n",
        expect![[r#"
            1..3: const s = `a … `;
        "#]],
    );
}

#[test]
fn javascript_block_comments_and_comment_runs() {
    // BUG (fixed): JS/TS/Go/Python comments are leaf tokens, so even a multi-line block
    // comment got no fold. A run is comment lines with nothing but line breaks between;
    // a blank line ends it, and a comment after code on its line does not start one.
    check(
        r#"
        //- /c.js
        /* a
           b */
        // c
        // d

        // e
        x = 1 // t
        // u
        // v
        "#,
        expect![[r#"
            1..4 comment: /* a … // d
            8..9 comment: // u … // v
        "#]],
    );
}

#[test]
fn rust_doc_comment_ends_at_the_start_of_the_next_line() {
    // A Rust line comment's node includes its newline: alone, it must not fold onto the
    // line after it.
    check(
        r#"
        //- /lib.rs
        /// Alone.
        fn f() {
        }
        "#,
        expect![[r#"
            2..3: fn f() { … }
        "#]],
    );
}

#[test]
fn python_decorated_function_folds_from_its_def() {
    // The decorators and the function are a sequence of lines: the fold belongs to the
    // `def` line (the decorated definition as a whole would fold from the first decorator,
    // hiding the signature).
    check(
        r#"
        //- /d.py
        @cached
        @logged
        def f():
            return 1
        "#,
        expect![[r#"
            3..4: def f(): … return 1
        "#]],
    );
}

#[test]
fn python_else_and_docstring_fold_on_their_own_lines() {
    check(
        r#"
        //- /e.py
        def f(x):
            """Doc
            string."""
            if x:
                return 1
            else:
                return 2
        "#,
        expect![[r#"
            1..7: def f(x): … return 2
            2..3: """Doc … string."""
            4..7: if x: … return 2
            6..7: else: … return 2
        "#]],
    );
}

#[test]
fn python_block_opening_with_a_comment() {
    check(
        r#"
        //- /c.py
        def f():
            # why
            x = 1
            y = 2
        "#,
        expect![[r#"
            1..4: def f(): … y = 2
        "#]],
    );
}

#[test]
fn javascript_method_chain() {
    check(
        r#"
        //- /chain.js
        promise
            .then(() => {
                a();
            })
            .catch((e) => {
                b();
            });
        "#,
        expect![[r#"
            1..7: promise … });
            2..4: .then(() => { … })
            5..7: .catch((e) => { … });
        "#]],
    );
}

#[test]
fn comments_after_code_do_not_start_runs() {
    check(
        r#"
        //- /m.ts
        let a = 1; /* x */ let b = 2; // y
        let c = 3; // z
        /* w */ let d = 4;
        "#,
        expect![[r#""#]],
    );
}

#[test]
fn single_line_nodes_do_not_fold() {
    check(
        r#"
        //- /one.py
        def f(): return 1
        x = [1, 2, 3]
        "#,
        expect![[r#""#]],
    );
}
