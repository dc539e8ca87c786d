//! Folding and selection ranges on generated code-like text in every language: no
//! panics, and the invariants editors rely on (`SEXTANT_FUZZ_CASES` cases, 256 by default).

use proptest::{
    collection::vec,
    sample::select,
    test_runner::{Config, TestRunner},
};

use crate::analysis;

const PIECES: &[&str] = &[
    "def f():",
    "fn f() {",
    "func f() {",
    "function f() {",
    "class C:",
    "class C {",
    "}",
    "{",
    "(",
    ")",
    "[",
    "]",
    "    ",
    "\t",
    "\n",
    "\r\n",
    "\n\n",
    "x = 1",
    "# c",
    "// c",
    "/// d",
    "/* a",
    "*/",
    "\"é✓",
    "\"",
    "`",
    "@d",
    "if x:",
    "else:",
    "return",
    ";",
    ",",
    ".m(",
    "é",
];

const PATHS: &[&str] = &["/f.py", "/f.rs", "/f.go", "/f.js", "/f.ts"];

fn check(path: &str, text: &str) {
    let (db, file, _) = analysis::analysis_at(path, text);
    let text = db.text(file);
    let line_count = text.split('\n').count() as u32;

    let folds = analysis::folding_ranges(&db, file);
    for pair in folds.windows(2) {
        assert!(
            pair[0].span.start.line < pair[1].span.start.line,
            "folds not sorted by start line, or two on one line: {folds:?}"
        );
    }
    for f in &folds {
        assert!(
            f.span.start.line < f.span.end.line && f.span.end.line <= line_count,
            "{f:?} in {text:?}"
        );
        // A span's lines are those of its bytes.
        let line_of = |offset: u32| text[..offset as usize].matches('\n').count() as u32 + 1;
        assert_eq!(
            (line_of(f.span.byte_start), line_of(f.span.byte_end)),
            (f.span.start.line, f.span.end.line),
            "{f:?} in {text:?}"
        );
    }

    let offsets: Vec<usize> = (0..=text.len() + 1).collect();
    let chains = analysis::selection_ranges(&db, file, &offsets);
    assert_eq!(chains.len(), offsets.len());
    for (&offset, chain) in offsets.iter().zip(&chains) {
        let at = offset.min(text.len()) as u32;
        let first = chain.first().expect("every chain has a range");
        assert!(
            first.start() <= at.into() && at <= first.end().into(),
            "offset {offset}: first range {first:?} does not touch it in {text:?}"
        );
        for pair in chain.windows(2) {
            assert!(
                pair[1].contains_range(pair[0]) && pair[1] != pair[0],
                "offset {offset}: {chain:?} does not grow in {text:?}"
            );
        }
        for r in chain {
            assert!(
                text.is_char_boundary(r.start().into()) && text.is_char_boundary(r.end().into()),
                "offset {offset}: {r:?} splits a character in {text:?}"
            );
        }
    }
}

#[test]
fn fuzz_folds_and_selections_keep_their_invariants() {
    let config = Config {
        cases: sextant::testing::fuzz_cases(),
        failure_persistence: None,
        ..Config::default()
    };
    let strategy = (select(PATHS), vec(select(PIECES), 0..40));
    TestRunner::new(config)
        .run(&strategy, |(path, pieces)| {
            check(path, &pieces.concat());
            Ok(())
        })
        .unwrap();
}
