//! `selection_ranges`: the chain of ranges "expand selection" walks, innermost first.
//! Every range must strictly contain the one before it (`render` flags one that does not).

use expect_test::{Expect, expect};
use sextant::syntax::{TextRange, TextSize};

use crate::{analysis, fixture::Cursor, render};

/// The chain at the `$0` cursor; for a two-`$0` selection, the ranges of the chain at its
/// start that contain the whole selection (what expanding that selection steps through).
fn check(fixture: &str, expect: Expect) {
    let (db, file, cursor) = analysis::analysis(fixture);
    let text = db.text(file);
    let actual = match cursor.expect("the fixture marks a cursor") {
        Cursor::Offset(offset) => {
            let chains = analysis::selection_ranges(&db, file, &[offset]);
            assert_eq!(chains.len(), 1, "one chain per offset");
            render::selection_chain(text, &chains[0])
        }
        Cursor::Range(start, end) => {
            let selection = TextRange::new(TextSize::new(start as u32), TextSize::new(end as u32));
            let chains = analysis::selection_ranges(&db, file, &[start]);
            let wider: Vec<TextRange> = chains[0]
                .iter()
                .copied()
                .filter(|r| r.contains_range(selection) && *r != selection)
                .collect();
            format!(
                "selected {}\n{}",
                render::excerpt(text, selection),
                render::selection_chain(text, &wider)
            )
        }
    };
    expect.assert_eq(&actual);
}

#[test]
fn python_identifier_in_call_in_function() {
    check(
        r#"
        //- /m.py
        def f(items):
            total = sum(it$0ems, 0)
            return total
        "#,
        expect![[r#"
            30..35 "items"
            29..39 "(items, 0)"
            26..39 "sum(items, 0)"
            18..39 "total = sum(items, 0)"
            18..56 "total = sum(items, 0)\n    return total"
            0..56 "def f(items):\n    total "…"    return total"
            0..57 "def f(items):\n    total "…"   return total\n"
        "#]],
    );
}

#[test]
fn rust_identifier_in_call_in_function() {
    // BUG (fixed): at the end of `v`, the token after the cursor (`[`) was taken, so no
    // range ever held `v` alone.
    check(
        r#"
        //- /lib.rs
        fn f(v: Vec<u8>) -> usize {
            let n = count(&v$0[..], 1);
            n
        }
        "#,
        expect![[r#"
            47..48 "v"
            47..52 "v[..]"
            46..52 "&v[..]"
            45..56 "(&v[..], 1)"
            40..56 "count(&v[..], 1)"
            32..57 "let n = count(&v[..], 1);"
            26..65 "{\n    let n = count(&v[..], 1);\n    n\n}"
            0..65 "fn f(v: Vec<u8>) -> usiz"…"..], 1);\n    n\n}"
            0..66 "fn f(v: Vec<u8>) -> usiz"…".], 1);\n    n\n}\n"
        "#]],
    );
}

#[test]
fn typescript_identifier_in_method_call() {
    check(
        r#"
        //- /a.ts
        class C {
            run(xs: number[]): number {
                return xs.map(x => x * fac$0tor).length;
            }
        }
        "#,
        expect![[r#"
            73..79 "factor"
            69..79 "x * factor"
            64..79 "x => x * factor"
            63..80 "(x => x * factor)"
            57..80 "xs.map(x => x * factor)"
            57..87 "xs.map(x => x * factor).length"
            50..88 "return xs.map(x => x * factor).length;"
            40..94 "{\n        return xs.map("…"r).length;\n    }"
            14..94 "run(xs: number[]): numbe"…"r).length;\n    }"
            8..96 "{\n    run(xs: number[]):"…".length;\n    }\n}"
            0..96 "class C {\n    run(xs: nu"…".length;\n    }\n}"
            0..97 "class C {\n    run(xs: nu"…"length;\n    }\n}\n"
        "#]],
    );
}

#[test]
fn go_identifier_in_call() {
    check(
        r#"
        //- /main.go
        package main

        func main() {
            fmt.Println(na$0me, 1)
        }
        "#,
        expect![[r#"
            44..48 "name"
            43..52 "(name, 1)"
            32..52 "fmt.Println(name, 1)"
            32..53 "fmt.Println(name, 1)\n"
            26..54 "{\n    fmt.Println(name, 1)\n}"
            14..54 "func main() {\n    fmt.Println(name, 1)\n}"
            0..55 "package main\n\nfunc main("…"ntln(name, 1)\n}\n"
        "#]],
    );
}

#[test]
fn cursor_between_identifier_and_paren() {
    // BUG (fixed): was `(`, `(1)`, `g(1)`: the word the cursor touches was never selected.
    check(
        r#"
        //- /m.py
        def f():
            return g$0(1)
        "#,
        expect![[r#"
            20..21 "g"
            20..24 "g(1)"
            13..24 "return g(1)"
            0..24 "def f():\n    return g(1)"
            0..25 "def f():\n    return g(1)\n"
        "#]],
    );
}

#[test]
fn cursor_between_paren_and_identifier() {
    check(
        r#"
        //- /main.go
        package main

        var v = f($0x)
        "#,
        expect![[r#"
            24..25 "x"
            23..26 "(x)"
            22..26 "f(x)"
            18..26 "v = f(x)"
            14..26 "var v = f(x)"
            0..27 "package main\n\nvar v = f(x)\n"
        "#]],
    );
}

#[test]
fn cursor_at_the_end_of_a_word_before_a_space() {
    check(
        r#"
        //- /a.ts
        const y = x$0 + 1;
        "#,
        expect![[r#"
            10..11 "x"
            10..15 "x + 1"
            6..15 "y = x + 1"
            0..16 "const y = x + 1;"
            0..17 "const y = x + 1;\n"
        "#]],
    );
}

#[test]
fn cursor_after_an_unclosed_call() {
    // BUG (fixed): the newline after the cursor was taken and skipped as whitespace, so the
    // chain was the whole file only.
    check(
        "//- /m.py\nprint(1$0\n",
        expect![[r#"
            6..7 "1"
            0..7 "print(1"
            0..8 "print(1\n"
        "#]],
    );
}

#[test]
fn cursor_at_a_missing_token() {
    // tree-sitter inserts a zero-width `;` after `1`: an empty token is never a range.
    check(
        r#"
        //- /lib.rs
        fn f() {
            let x = 1$0
        }
        "#,
        expect![[r#"
            21..22 "1"
            13..22 "let x = 1"
            7..24 "{\n    let x = 1\n}"
            0..24 "fn f() {\n    let x = 1\n}"
            0..25 "fn f() {\n    let x = 1\n}\n"
        "#]],
    );
}

#[test]
fn cursor_between_two_spaces() {
    check(
        r#"
        //- /m.py
        x = [1,  $0 2]
        "#,
        expect![[r#"
            4..12 "[1,   2]"
            0..12 "x = [1,   2]"
            0..13 "x = [1,   2]\n"
        "#]],
    );
}

#[test]
fn cursor_at_end_of_file_after_newline() {
    check(
        "//- /m.py\nx = 1\n$0",
        expect![[r#"
        0..6 "x = 1\n"
    "#]],
    );
}

#[test]
fn cursor_at_end_of_file_without_newline() {
    check(
        "//- /lib.rs\nfn f() {}$0",
        expect![[r#"
        8..9 "}"
        7..9 "{}"
        0..9 "fn f() {}"
    "#]],
    );
}

#[test]
fn selection_of_an_argument_expands_to_the_call() {
    check(
        r#"
        //- /lib.rs
        fn f() {
            g($0a + b$0, c);
        }
        "#,
        expect![[r#"
            selected "a + b"
            14..24 "(a + b, c)"
            13..24 "g(a + b, c)"
            13..25 "g(a + b, c);"
            7..27 "{\n    g(a + b, c);\n}"
            0..27 "fn f() {\n    g(a + b, c);\n}"
            0..28 "fn f() {\n    g(a + b, c);\n}\n"
        "#]],
    );
}

#[test]
fn several_offsets_answer_in_order() {
    let (db, file, _) = analysis::analysis("//- /m.py\na = 1\nb = 2\n");
    let chains = analysis::selection_ranges(&db, file, &[0, 6]);
    let text = db.text(file);
    let innermost: Vec<String> = chains.iter().map(|c| render::excerpt(text, c[0])).collect();
    assert_eq!(innermost, ["\"a\"", "\"b\""]);
}
