//! Cursors and texts at the edges: multi-byte characters, CRLF line endings, empty files.
//! Each operation must answer on these without panicking, in byte offsets on char
//! boundaries.

use expect_test::expect;

use crate::{analysis, render};

#[test]
fn selection_inside_a_multibyte_string() {
    let (db, file, cursor) = analysis::analysis(
        r#"
        //- /m.py
        s = f("héllo wö$0rld ✓")
        "#,
    );
    let chains = analysis::selection_ranges(&db, file, &[cursor.unwrap().offset()]);
    expect![[r#"
        7..24 "héllo wörld ✓"
        6..25 "\"héllo wörld ✓\""
        5..26 "(\"héllo wörld ✓\")"
        4..26 "f(\"héllo wörld ✓\")"
        0..26 "s = f(\"héllo wörld ✓\")"
        0..27 "s = f(\"héllo wörld ✓\")\n"
    "#]]
    .assert_eq(&render::selection_chain(db.text(file), &chains[0]));
}

#[test]
fn selection_at_an_offset_inside_a_character() {
    // Front ends convert positions to char boundaries, but the API takes any byte offset:
    // one inside `é` must still give whole-character ranges.
    let (db, file, cursor) = analysis::analysis("//- /m.py\ns = \"$0é\"\n");
    let inside = cursor.unwrap().offset() + 1;
    let chains = analysis::selection_ranges(&db, file, &[inside]);
    let text = db.text(file);
    for r in &chains[0] {
        assert!(
            text.is_char_boundary(r.start().into()) && text.is_char_boundary(r.end().into()),
            "range {r:?} splits a character"
        );
    }
    expect![[r#"
        5..7 "é"
        4..8 "\"é\""
        0..8 "s = \"é\""
        0..9 "s = \"é\"\n"
    "#]]
    .assert_eq(&render::selection_chain(text, &chains[0]));
}

#[test]
fn crlf_folds_and_selection() {
    let (db, file, cursor) = analysis::analysis(
        "//- /m.py\r\ndef f():\r\n    return g$0(1)\r\n\r\nclass C:\r\n    pass\r\n",
    );
    let text = db.text(file);
    expect![[r#"
        1..2: def f(): … return g(1)
        4..5: class C: … pass
    "#]]
    .assert_eq(&render::folds(text, &analysis::folding_ranges(&db, file)));
    let chains = analysis::selection_ranges(&db, file, &[cursor.unwrap().offset()]);
    expect![[r#"
        21..22 "g"
        21..25 "g(1)"
        14..25 "return g(1)"
        0..25 "def f():\r\n    return g(1)"
        0..49 "def f():\r\n    return g(1"…"s C:\r\n    pass\r\n"
    "#]]
    .assert_eq(&render::selection_chain(text, &chains[0]));
}

#[test]
fn crlf_error_positions() {
    let (db, file, _) = analysis::analysis("//- /lib.rs\r\nfn f() {\r\n    g(\r\n}\r\n");
    let errors = analysis::syntax_errors(&db, file);
    expect![[r#"
        2:6-2:7 unexpected `(`
    "#]]
    .assert_eq(&render::syntax_errors(db.text(file), &errors));
}

#[test]
fn crlf_outline_columns() {
    let (db, file, _) = analysis::analysis("//- /m.go\r\npackage m\r\n\r\nfunc F() {\r\n}\r\n");
    expect![[r#"
        function F 3:1-4:2
        -- m.go go: 1 symbols
    "#]]
    .assert_eq(&render::outline(&analysis::outline_page(
        &db,
        file,
        0,
        usize::MAX,
    )));
}

#[test]
fn multibyte_names_in_outline_count_characters() {
    let (db, file, _) =
        analysis::analysis("//- /m.py\nclass Ünïcode:\n    def größe(self): pass\n");
    expect![[r#"
        class Ünïcode 1:1-2:26
          method größe 2:5-2:26
        -- m.py python: 2 symbols
    "#]]
    .assert_eq(&render::outline(&analysis::outline_page(
        &db,
        file,
        0,
        usize::MAX,
    )));
}

#[test]
fn empty_file_answers_everything() {
    let mut answers = String::new();
    for path in ["/e.py", "/e.rs", "/e.ts", "/e.go", "/e.js"] {
        let (db, file, _) = analysis::analysis_at(path, "");
        assert_eq!(db.text(file), "");
        let folds = analysis::folding_ranges(&db, file);
        let errors = analysis::syntax_errors(&db, file);
        let outline = analysis::outline_page(&db, file, 0, usize::MAX);
        // Offset 5 is past the end: it is clamped.
        let chains = analysis::selection_ranges(&db, file, &[0, 5]);
        answers.push_str(&format!(
            "{path}: folds {folds:?}, errors {errors:?}, symbols {}, selections {chains:?}\n",
            outline.symbol_count
        ));
    }
    expect![[r#"
        /e.py: folds [], errors [], symbols 0, selections [[0..0], [0..0]]
        /e.rs: folds [], errors [], symbols 0, selections [[0..0], [0..0]]
        /e.ts: folds [], errors [], symbols 0, selections [[0..0], [0..0]]
        /e.go: folds [], errors [], symbols 0, selections [[0..0], [0..0]]
        /e.js: folds [], errors [], symbols 0, selections [[0..0], [0..0]]
    "#]]
    .assert_eq(&answers);
}

#[test]
fn empty_file_parse_tree() {
    let (db, file, _) = analysis::analysis_at("/e.go", "");
    expect![[r#"
        (source_file 1:1-1:1)
        -- e.go go: nodes 1, errors 0
    "#]]
    .assert_eq(&render::parse_tree(&analysis::parse_tree(
        &db,
        file,
        Default::default(),
    )));
}
