//! `sextant read` and `sextant tokens` as a user runs them: definitions with what belongs to
//! them, in priority order under a budget, a cursor to continue, and exact counts.

use std::{
    path::Path,
    process::{Command, Output},
};

fn sextant(root: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sextant"))
        .current_dir(root)
        .arg("--root")
        .arg(root)
        .args(args)
        .output()
        .expect("sextant runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

const GEO: &str = "import math\n\n\n# Area.\n@cache\ndef area(r):\n    return math.pi * r * r\n\n\nclass Ring:\n    def inner(self):\n        return 1\n";
const LIB: &str = "/// Doc.\n#[must_use]\npub fn ring() -> u32 {\n    1\n}\n";

fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("geo.py"), GEO).unwrap();
    std::fs::write(dir.path().join("lib.rs"), LIB).unwrap();
    dir
}

#[test]
fn read_prints_definitions_lines_and_counts_on_stderr() {
    let dir = workspace();
    let out = sextant(dir.path(), &["read", "area", "lib.rs:3", "geo.py:11-12"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "geo.py:4-7 function area\n```python\n# Area.\n@cache\ndef area(r):\n    return math.pi * r * r\n```\n\n\
         lib.rs:1-5 function ring\n```rust\n/// Doc.\n#[must_use]\npub fn ring() -> u32 {\n    1\n}\n```\n\n\
         geo.py:11-12\n```python\n    def inner(self):\n        return 1\n```\n"
    );
    // Counts checked against the reference tokenizer (tests/oracle/reference_tokens.mjs).
    assert_eq!(stderr(&out), "89 tokens (o200k_base)\n");
}

#[test]
fn a_budget_leaves_targets_out_and_the_cursor_continues() {
    let dir = workspace();
    // `area` costs 33 tokens alone, `ring` about as much: only the first fits in 40.
    let cut = sextant(
        dir.path(),
        &["read", "area", "ring", "--max-tokens", "40", "--json"],
    );
    let answer: serde_json::Value = serde_json::from_slice(&cut.stdout).unwrap();
    assert_eq!(answer["status"], "with_omissions");
    assert_eq!(answer["next_cursor"], "1:1");
    assert_eq!(answer["tokens"], 33);
    assert_eq!(answer["omitted"][0]["name"], "ring");
    assert!(stderr(&cut).ends_with("left out for the budget: continue with --cursor 1:1\n"));
    let rest = sextant(dir.path(), &["read", "area", "ring", "--cursor", "1:1"]);
    assert!(
        stdout(&rest).starts_with("lib.rs:1-5 function ring\n"),
        "{}",
        stdout(&rest)
    );
}

#[test]
fn names_that_name_nothing_fail_and_ambiguous_ones_list_candidates() {
    let dir = workspace();
    std::fs::write(dir.path().join("other.py"), "def area():\n    pass\n").unwrap();
    let missing = sextant(dir.path(), &["read", "nowhere"]);
    assert_eq!(missing.status.code(), Some(2));
    assert_eq!(
        stderr(&missing),
        "sextant: error: NOT_FOUND: no definition named nowhere\n"
    );
    let ambiguous = sextant(dir.path(), &["read", "area"]);
    assert_eq!(
        stdout(&ambiguous),
        "`area` names 2 definitions; ask for one by path and line:\n  geo.py:6 function\n  other.py:1 function\n"
    );
    let bad = sextant(dir.path(), &["read", "geo.py:x"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(stderr(&bad).contains("INVALID_TARGET"), "{}", stderr(&bad));
}

#[test]
fn outline_lists_definitions_with_their_token_costs() {
    let dir = workspace();
    let out = sextant(dir.path(), &["read", "--outline", "geo.py"]);
    assert_eq!(
        stdout(&out),
        "geo.py: 3 definitions, 35 tokens in all\n  6-7 function area (12 tokens)\n  10-12 class Ring (12 tokens)\n    11-12 method Ring.inner (8 tokens)\n"
    );
}

#[test]
fn tokens_counts_each_file_and_the_total() {
    let dir = workspace();
    let out = sextant(dir.path(), &["tokens"]);
    assert_eq!(
        stdout(&out),
        "      35 geo.py\n      20 lib.rs\n      55 total (o200k_base)\n"
    );
    let cl100k = sextant(
        dir.path(),
        &["tokens", "--json", "--encoding", "cl100k_base", "lib.rs"],
    );
    let answer: serde_json::Value = serde_json::from_slice(&cl100k.stdout).unwrap();
    assert_eq!(answer["encoding"], "cl100k_base");
    assert_eq!(answer["files"][0]["path"], "lib.rs");
    let unknown = sextant(dir.path(), &["tokens", "--encoding", "gpt2"]);
    assert_eq!(unknown.status.code(), Some(2));
}
