//! The fixture parser (`support::fixture`) itself.

use crate::fixture::{Cursor, DEFAULT_PATH, FixtureFile, parse};

#[test]
fn no_marker_is_one_file_at_the_default_path() {
    let files = parse("fn f() {}\n", DEFAULT_PATH);
    assert_eq!(
        files,
        [FixtureFile {
            path: "main.rs".into(),
            text: "fn f() {}\n".into(),
            cursor: None
        }]
    );
}

#[test]
fn markers_split_files_and_dedent() {
    let files = parse(
        r#"
        //- /a/one.py
        def f():
            pass
        //- /two.go
        package x
        "#,
        DEFAULT_PATH,
    );
    let got: Vec<(&str, &str)> = files
        .iter()
        .map(|f| (f.path.as_str(), f.text.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            ("a/one.py", "def f():\n    pass\n"),
            ("two.go", "package x\n")
        ]
    );
}

#[test]
fn one_marker_is_an_offset_two_a_range() {
    let one = parse("ab$0cd", DEFAULT_PATH);
    assert_eq!(
        (one[0].text.as_str(), one[0].cursor),
        ("abcd", Some(Cursor::Offset(2)))
    );
    let two = parse("a$0bc$0d", DEFAULT_PATH);
    assert_eq!(
        (two[0].text.as_str(), two[0].cursor),
        ("abcd", Some(Cursor::Range(1, 3)))
    );
}

#[test]
fn cursor_offsets_are_bytes() {
    let files = parse("s = \"é$0\"", "/m.py");
    assert_eq!(files[0].cursor, Some(Cursor::Offset(7)));
}

#[test]
fn empty_fixture_is_one_empty_file() {
    let files = parse("", "/e.py");
    assert_eq!((files.len(), files[0].text.as_str()), (1, ""));
}
