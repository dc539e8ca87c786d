//! `sextant calls`, `sextant impact` and `sextant explore` as a user runs them: the
//! formats (text, JSON, Graphviz DOT checked by `dot` itself, Mermaid), targets as names,
//! positions, lines, files and directories, questions in words, and errors with stable
//! codes and exit status 2.

mod support;

use std::{
    io::Write,
    process::{Command, Stdio},
};

use support::{sextant, stderr, stdout};

fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let files = [
        (
            "geo.py",
            "class Shape:\n    def area(self):\n        return square(2)\n\n\ndef square(x):\n    return x * x\n",
        ),
        (
            "app.py",
            "from geo import Shape, square\n\n\ndef main(items):\n    return list(map(square, items)), Shape().area()\n",
        ),
        (
            "tests/test_geo.py",
            "from geo import square\n\n\ndef test_square():\n    assert square(2) == 4\n",
        ),
    ];
    for (path, text) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

fn ok(dir: &tempfile::TempDir, args: &[&str]) -> String {
    let out = sextant(dir.path(), args);
    assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    stdout(&out)
}

#[test]
fn calls_in_every_format() {
    let dir = workspace();
    assert_eq!(
        ok(&dir, &["calls", "square"]),
        "function square (geo.py:6)\n\
         called by:\n  \
           function main (app.py:4): reference at 5:21\n  \
           method Shape.area (geo.py:2): call at 3:16\n  \
           function test_square (tests/test_geo.py:4): call at 5:12\n\
         calls:\n  (none found)\n"
    );
    let mermaid = ok(
        &dir,
        &["calls", "main", "--outgoing", "--format", "mermaid"],
    );
    assert_eq!(
        mermaid,
        "flowchart LR\n  \
           n0[\"function main<br/>app.py:4\"]\n  \
           n1[\"function square<br/>geo.py:6\"]\n  \
           n2[\"class Shape<br/>geo.py:1\"]\n  \
           n3[\"method Shape.area<br/>geo.py:2\"]\n  \
           n0 -->|reference| n1\n  \
           n0 --> n2\n  \
           n0 --> n3\n"
    );
    let json: serde_json::Value =
        serde_json::from_str(&ok(&dir, &["--json", "calls", "app.py:5:46", "--incoming"])).unwrap();
    assert_eq!(json["nodes"][0]["name"], "area");
    assert_eq!(json["nodes"][1]["name"], "main");
    assert_eq!(
        json["edges"],
        serde_json::json!([{
            "caller": 1, "callee": 0, "kind": "call", "certainty": "exact", "distance": 1,
            "incoming": true,
            "sites": [{"start": {"line": 5, "column": 46}, "end": {"line": 5, "column": 50},
                       "byte_start": 94, "byte_end": 98}],
        }])
    );
    let dot = ok(&dir, &["calls", "square", "--format", "dot"]);
    assert_eq!(
        dot,
        "digraph calls {\n  rankdir=LR;\n  node [shape=box];\n  \
           n0 [label=\"function square\\ngeo.py:6\", style=bold];\n  \
           n1 [label=\"function main\\napp.py:4\"];\n  \
           n2 [label=\"method Shape.area\\ngeo.py:2\"];\n  \
           n3 [label=\"function test_square\\ntests/test_geo.py:4\"];\n  \
           n1 -> n0 [tooltip=\"reference at 5:21\", label=\"reference\"];\n  \
           n2 -> n0 [tooltip=\"call at 3:16\"];\n  \
           n3 -> n0 [tooltip=\"call at 5:12\"];\n}\n"
    );
    // Graphviz itself must accept it (scripts/test installs it; skipped without it).
    match Command::new("dot")
        .arg("-Tsvg")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    {
        Ok(mut child) => {
            let mut stdin = child.stdin.take().unwrap();
            stdin.write_all(dot.as_bytes()).unwrap();
            drop(stdin);
            let rendered = child.wait_with_output().unwrap();
            assert!(rendered.status.success(), "{}", stderr(&rendered));
            assert!(stdout(&rendered).contains("function test_square"));
        }
        Err(e) => eprintln!("graphviz `dot` not run ({e}); the DOT text was checked only"),
    }
}

#[test]
fn calls_errors_have_codes() {
    let dir = workspace();
    for (args, message) in [
        (
            vec!["calls", "nothing"],
            "sextant: error: NO_SYMBOL: no definition named `nothing`\n",
        ),
        (
            vec!["calls", "geo.py:9:1"],
            "sextant: error: geo.py:9:1: past the end of the file (its last line is 8)\n",
        ),
    ] {
        let out = sextant(dir.path(), &args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(stderr(&out), message, "{args:?}");
    }
    let out = sextant(dir.path(), &["calls", "square", "--depth", "11"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--depth"), "{}", stderr(&out));
}

#[test]
fn impact_of_names_lines_files_and_directories() {
    let dir = workspace();
    assert_eq!(
        ok(&dir, &["impact", "geo.py:7-7"]),
        "impact of geo.py:6 function square\n\
         5 dependents in 3 files, 1 test among them\n\
         1 step:\n  \
           app.py top level imports function square (geo.py:6)\n  \
           app.py:4 function main uses function square (geo.py:6)\n  \
           geo.py:2 method Shape.area uses function square (geo.py:6)\n  \
           tests/test_geo.py top level imports function square (geo.py:6)\n  \
           tests/test_geo.py:4 function test_square [test] uses function square (geo.py:6)\n"
    );
    assert_eq!(
        ok(&dir, &["impact", "geo.py", "--tests"]),
        "impact of geo.py top level, geo.py:1 class Shape, geo.py:2 method Shape.area, \
         geo.py:6 function square\n\
         4 dependents in 2 files, 1 test among them\n\
         1 step:\n  \
           tests/test_geo.py:4 function test_square [test] uses function square (geo.py:6)\n"
    );
    let json: serde_json::Value =
        serde_json::from_str(&ok(&dir, &["--json", "impact", "tests", "--depth", "0"])).unwrap();
    assert_eq!(json["total"], 0);
    assert_eq!(json["seeds"].as_array().unwrap().len(), 2);
    let out = sextant(dir.path(), &["impact", "geo.py:9-12"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        "sextant: error: INVALID_ARGUMENT: geo.py:9-12: lines count from 1 and geo.py has 7\n"
    );
}

fn write_files(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

#[test]
fn impact_follows_calls_matched_by_name_after_exact_ones_unless_exact() {
    let dir = write_files(&[
        (
            "store.py",
            "class Store:\n    def save(self):\n        return 1\n\n\n\
             def persist(obj):\n    return obj.save()\n\n\n\
             def direct():\n    return Store().save()\n",
        ),
        (
            "app.py",
            "from store import persist\n\n\ndef run(x):\n    return persist(x)\n",
        ),
    ]);
    assert_eq!(
        ok(&dir, &["impact", "Store.save"]),
        "impact of store.py:2 method Store.save\n\
         4 dependents in 2 files, 0 tests among them, 3 only by calls matched by name\n\
         1 step:\n  \
           store.py:10 function direct uses method Store.save (store.py:2)\n  \
           store.py:6 function persist uses method Store.save (store.py:2) (by name)\n\
         2 steps:\n  \
           app.py top level imports function persist (store.py:6) (by name)\n  \
           app.py:4 function run uses function persist (store.py:6) (by name)\n"
    );
    assert_eq!(
        ok(&dir, &["impact", "Store.save", "--exact"]),
        "impact of store.py:2 method Store.save\n\
         1 dependent in 1 file, 0 tests among them\n\
         1 step:\n  \
           store.py:10 function direct uses method Store.save (store.py:2)\n"
    );
    let json: serde_json::Value =
        serde_json::from_str(&ok(&dir, &["--json", "impact", "Store.save"])).unwrap();
    assert_eq!(json["heuristic"], 3);
    let marks: Vec<(&str, bool)> = json["dependents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["name"].as_str().unwrap(), d.get("heuristic").is_some()))
        .collect();
    assert_eq!(
        marks,
        [
            ("direct", false),
            ("persist", true),
            ("app.py", true),
            ("run", true)
        ]
    );
}

#[test]
fn impact_stops_at_names_more_than_eight_callables_share() {
    let mut store = String::new();
    for i in 0..9 {
        store.push_str(&format!(
            "class Store{i}:\n    def save(self):\n        return {i}\n\n\n"
        ));
    }
    store.push_str("def persist(obj):\n    return obj.save()\n");
    let dir = write_files(&[("store.py", &store)]);
    assert_eq!(
        ok(&dir, &["impact", "Store0.save"]),
        "impact of store.py:2 method Store0.save\n0 dependents in 0 files, 0 tests among them\n"
    );
}

#[test]
fn impact_lists_the_importers_of_definitions_reached_on_the_way() {
    let dir = write_files(&[
        ("lib.py", "def helper():\n    return 1\n"),
        (
            "mid.py",
            "from lib import helper\n\n\ndef middle():\n    return helper()\n",
        ),
        ("top.py", "from mid import middle\n\nprint(1)\n"),
    ]);
    assert_eq!(
        ok(&dir, &["impact", "helper"]),
        "impact of lib.py:1 function helper\n\
         3 dependents in 2 files, 0 tests among them\n\
         1 step:\n  \
           mid.py top level imports function helper (lib.py:1)\n  \
           mid.py:4 function middle uses function helper (lib.py:1)\n\
         2 steps:\n  \
           top.py top level imports function middle (mid.py:4)\n"
    );
}

#[test]
fn explore_reads_a_question_in_words() {
    let dir = workspace();
    let out = sextant(
        dir.path(),
        &[
            "explore",
            "which shapes have an area?",
            "--max-tokens",
            "300",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "words: shapes (Shape); area; dropped: which, have, an\n\
         ## geo.py\n\
         geo.py:1-3 class Shape\n\
         ```python\n\
         class Shape:\n    def area(self):\n        return square(2)\n\
         ```\n\
         geo.py:2-3 method Shape.area\n\
         ```python\n    \
             def area(self):\n        return square(2)\n\
         ```\n\
         ## dependents (2 within 2 steps, 0 tests)\n\
         app.py top level imports class Shape (geo.py:1)\n\
         app.py:4 function main uses class Shape (geo.py:1)\n"
    );
    let json: serde_json::Value = serde_json::from_str(&ok(
        &dir,
        &["--json", "explore", "which", "shapes", "have", "an", "area"],
    ))
    .unwrap();
    assert_eq!(
        json["words_used"],
        serde_json::json!([{"words": ["shapes"], "name": "Shape"}])
    );
    assert_eq!(
        json["words_dropped"],
        serde_json::json!(["which", "have", "an"])
    );
    assert!(json.get("not_found").is_none());
    // `area` names a definition as it is: a term of its own, not a word of the question.
    assert_eq!(json["definitions"][1]["term"], "area");
    // A question none of whose words names anything: each term named nothing, exit 1.
    let out = sextant(dir.path(), &["explore", "how", "is", "it", "done"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout(&out), "named nothing: how, is, it, done\n");
}
