//! The CLI as a user runs it: a real binary on real directories.

mod support;

use std::{
    io::Write,
    path::Path,
    process::{Command, Output, Stdio},
};
use support::{sextant, stderr, stdout};

use serde_json::Value;

fn json(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {}", stdout(o)))
}

fn write(root: &Path, rel: &str, contents: impl AsRef<[u8]>) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, contents).unwrap();
}

/// `(path, reason)` of each skipped file in a `stats --json` answer.
fn skipped_reasons(stats: &Value) -> Vec<(String, String)> {
    stats["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["path"].as_str().unwrap().to_string(),
                s["reason"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "app/models.py",
        "class User:\n    def full_name(self):\n        return ''\n\ndef load_user(uid):\n    pass\n",
    );
    write(
        root,
        "src/lib.rs",
        "pub struct Config {\n    pub name: String,\n}\n\npub fn load_config() -> Config {\n    todo!()\n}\n",
    );
    write(
        root,
        "web/main.ts",
        "export function renderPage(): void {}\nexport class Page {}\n",
    );
    write(root, "cmd/main.go", "package main\n\nfunc main() {}\n");
    write(
        root,
        "bin/tool",
        "#!/usr/bin/env python3\ndef tool_main():\n    pass\n",
    );
    write(root, "README.txt", "not source\n");
    dir
}

#[test]
fn languages_lists_every_language_with_extensions() {
    let dir = tempfile::tempdir().unwrap();
    let out = sextant(dir.path(), &["languages", "--json"]);
    assert!(out.status.success());
    let langs = json(&out);
    let ids: Vec<&str> = langs
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        ["rust", "python", "javascript", "typescript", "tsx", "go"]
    );
    // The registry's syntax facts come along, as languages.toml states them.
    let rust = &langs[0];
    assert_eq!(rust["line_comment"], serde_json::json!(["//"]));
    assert_eq!(rust["block_comment"], serde_json::json!([["/*", "*/"]]));
    assert_eq!(rust["indent_unit"], "    ");
    assert_eq!(rust["import_style"], "rust-module-path");
    let python = &langs[1];
    assert_eq!(python["block_comment"], serde_json::json!([]));
    assert_eq!(python["identifier"], r"[\p{XID_Start}_][\p{XID_Continue}]*");
    assert_eq!(python["keywords"].as_array().unwrap().len(), 35);
    assert_eq!(python["keywords"][1], "None");
    let text = stdout(&sextant(dir.path(), &["languages"]));
    assert!(
        text.contains(".mjs") && text.contains(".tsx") && text.contains("symbols"),
        "{text}"
    );
}

#[test]
fn help_names_the_languages_the_registry_lists() {
    let dir = tempfile::tempdir().unwrap();
    let langs = json(&sextant(dir.path(), &["languages", "--json"]));
    let (names, ids): (Vec<&str>, Vec<&str>) = langs
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (l["name"].as_str().unwrap(), l["id"].as_str().unwrap()))
        .unzip();
    let (last, init) = names.split_last().unwrap();
    let help = stdout(&sextant(dir.path(), &["--help"]));
    assert_eq!(
        help.lines().next().unwrap(),
        format!(
            "Code intelligence for {} and {last} workspaces.",
            init.join(", ")
        )
    );
    let symbols_help = stdout(&sextant(dir.path(), &["symbols", "--help"]));
    let words = symbols_help
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        words.contains(&format!(
            "Only symbols in files of this language (one of: {}).",
            ids.join(", ")
        )),
        "{symbols_help}"
    );
}

#[test]
fn symbols_and_outline_see_items_inside_item_level_macro_calls() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "src/task.rs",
        "cfg_rt! {\n    pub fn spawn_blocking() {}\n}\n\npub struct Handle;\n\nimpl Handle {\n    cfg_metrics! {\n        pub fn metrics(&self) {}\n    }\n}\ncfg_if::cfg_if! {\n    if #[cfg(unix)] {\n        pub fn unix_only() {}\n    }\n}\n",
    );
    let found = stdout(&sextant(dir.path(), &["symbols", "spawn_blocking"]));
    assert_eq!(
        found
            .lines()
            .next()
            .unwrap()
            .split_whitespace()
            .collect::<Vec<_>>()[..3],
        ["src/task.rs:2:12", "function", "spawn_blocking"]
    );
    let outline = json(&sextant(dir.path(), &["outline", "src/task.rs", "--json"]));
    let tree: Vec<(String, String, u64)> = outline["symbols"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|n| std::iter::once(n).chain(n["children"].as_array().into_iter().flatten()))
        .map(|n| {
            (
                n["kind"].as_str().unwrap().to_string(),
                n["name"].as_str().unwrap().to_string(),
                n["name_span"]["start"]["line"].as_u64().unwrap(),
            )
        })
        .collect();
    let expected = [
        ("function", "spawn_blocking", 2),
        ("struct", "Handle", 5),
        ("impl", "Handle", 7),
        ("method", "metrics", 9),
        ("function", "unix_only", 14),
    ];
    assert_eq!(
        tree,
        expected.map(|(k, n, l)| (k.to_string(), n.to_string(), l))
    );
}

/// A package whose modules import each other in a cycle (a → b → c → a), and a script
/// importing two of them.
fn cyclic_workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "pkg/__init__.py", "");
    write(dir.path(), "pkg/a.py", "import pkg.b\nimport os\n");
    write(dir.path(), "pkg/b.py", "from pkg import c\n");
    write(
        dir.path(),
        "pkg/c.py",
        "import json\n\nfrom pkg.a import x\n",
    );
    write(dir.path(), "main.py", "import pkg.a\nimport pkg.c\n");
    dir
}

#[test]
fn graph_shows_a_files_imports_as_a_tree_and_the_cycles() {
    let dir = cyclic_workspace();
    let out = sextant(dir.path(), &["graph", "main.py"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        stdout(&out),
        "main.py imports:\n  pkg/a.py  line 1\n    pkg/b.py  line 1\n      pkg/c.py  line 1  (see depth 1)\n  pkg/c.py  line 2\n    pkg/a.py  line 3  (see depth 1)\n\nno import cycles through main.py\n"
    );
    let out = sextant(
        dir.path(),
        &["graph", "pkg/c.py", "--reverse", "--depth", "1"],
    );
    assert_eq!(
        stdout(&out),
        "pkg/c.py is imported by:\n  main.py  line 2\n  pkg/b.py  line 1\n\n1 import cycle through pkg/c.py:\n  pkg/a.py, pkg/b.py, pkg/c.py\nshortest: pkg/c.py -> pkg/a.py -> pkg/b.py -> pkg/c.py\n"
    );
    // Whole workspace: one line per importing file, then the cycles.
    let out = sextant(dir.path(), &["graph"]);
    assert_eq!(
        stdout(&out),
        "main.py -> pkg/a.py, pkg/c.py\npkg/a.py -> pkg/b.py\npkg/b.py -> pkg/c.py\npkg/c.py -> pkg/a.py\n\n1 import cycle:\n  pkg/a.py, pkg/b.py, pkg/c.py\n"
    );
    // --cycles reports them as findings (exit 1), and none as success.
    let out = sextant(dir.path(), &["graph", "--cycles"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stdout(&out),
        "1 import cycle:\n  pkg/a.py, pkg/b.py, pkg/c.py\n"
    );
    let out = sextant(dir.path(), &["graph", "--cycles", "--packages"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout(&out), "no import cycles\n");

    let v = json(&sextant(
        dir.path(),
        &["graph", "main.py", "--depth", "1", "--json"],
    ));
    assert_eq!(
        v,
        serde_json::json!({
            "granularity": "file",
            "nodes": [{"path": "main.py", "depth": 0}, {"path": "pkg/a.py", "depth": 1},
                      {"path": "pkg/c.py", "depth": 1}],
            "edges": [{"from": 0, "to": 1, "lines": [1]}, {"from": 0, "to": 2, "lines": [2]},
                      {"from": 2, "to": 1, "lines": [3]}],
            "cycles": [], "node_total": 3, "edge_total": 3,
            "truncated": false, "cycles_truncated": false
        })
    );
    assert_eq!(
        json(&sextant(
            dir.path(),
            &["graph", "--format", "json", "--limit", "1"]
        ))["truncated"],
        true
    );

    let missing = sextant(dir.path(), &["graph", "nowhere.py"]);
    assert_eq!(missing.status.code(), Some(2));
    let conflict = sextant(dir.path(), &["graph", "--json", "--format", "dot"]);
    assert_eq!(conflict.status.code(), Some(2));
    assert_eq!(
        stderr(&conflict).trim(),
        "sextant: error: --json and --format dot conflict"
    );
}

#[test]
fn graph_draws_graphviz_dot_and_mermaid() {
    let dir = cyclic_workspace();
    let out = sextant(dir.path(), &["graph", "--format", "dot", "--external"]);
    assert_eq!(out.status.code(), Some(0));
    let dot = stdout(&out);
    assert_eq!(
        dot,
        r#"digraph imports {
  rankdir=LR;
  node [shape=box, fontname="monospace"];
  "main.py";
  "pkg/a.py";
  "pkg/b.py";
  "pkg/c.py";
  "os" [shape=ellipse, style=dashed];
  "json" [shape=ellipse, style=dashed];
  "main.py" -> "pkg/a.py";
  "main.py" -> "pkg/c.py";
  "pkg/a.py" -> "pkg/b.py" [color=red];
  "pkg/b.py" -> "pkg/c.py" [color=red];
  "pkg/c.py" -> "pkg/a.py" [color=red];
  "pkg/a.py" -> "os";
  "pkg/c.py" -> "json";
}
"#
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
            child
                .stdin
                .take()
                .unwrap()
                .write_all(dot.as_bytes())
                .unwrap();
            let rendered = child.wait_with_output().unwrap();
            assert!(rendered.status.success(), "{}", stderr(&rendered));
            let svg = stdout(&rendered);
            assert!(svg.contains("<svg") && svg.contains("pkg/b.py"), "{svg}");
        }
        Err(e) => eprintln!("graphviz `dot` not run ({e}); the DOT text was checked only"),
    }

    let out = sextant(
        dir.path(),
        &["graph", "main.py", "--packages", "--format", "mermaid"],
    );
    assert_eq!(
        stdout(&out),
        "graph LR\n  n0[\".\"]\n  n1[\"pkg\"]\n  n0 --> n1\n"
    );
    let out = sextant(dir.path(), &["graph", "--cycles", "--format", "dot"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn imports_resolve_through_the_projects_source_roots() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "pyproject.toml", "[project]\nname = \"shop\"\n");
    write(dir.path(), "src/shop/__init__.py", "");
    write(dir.path(), "src/shop/cart.py", "class Cart:\n    pass\n");
    write(
        dir.path(),
        "src/shop/app.py",
        "import json\nfrom shop.cart import Cart\nfrom .cart import Cart as C2\nimport requests\n",
    );
    let text = stdout(&sextant(dir.path(), &["imports", "src/shop/app.py"]));
    let rows: Vec<Vec<&str>> = text
        .lines()
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(
        rows,
        [
            vec!["1", "json", "external", "(json)"],
            vec!["2", "shop.cart:", "Cart", "src/shop/cart.py:1:7"],
            vec!["3", ".cart:", "Cart", "as", "C2", "src/shop/cart.py:1:7"],
            vec!["4", "requests", "unresolved"],
        ]
    );
    let v = json(&sextant(
        dir.path(),
        &["imports", "src/shop/app.py", "--json"],
    ));
    assert_eq!(
        v[1],
        serde_json::json!({
            "module": "shop.cart", "name": "Cart", "status": "resolved", "path": "src/shop/cart.py",
            "span": {"start": {"line": 2, "column": 1}, "end": {"line": 2, "column": 27},
                     "byte_start": 12, "byte_end": 38},
            "definition": {"start": {"line": 1, "column": 7}, "end": {"line": 1, "column": 11},
                           "byte_start": 6, "byte_end": 10}
        })
    );
    let missing = sextant(dir.path(), &["imports", "nowhere.py"]);
    assert_eq!(missing.status.code(), Some(2));
    assert_eq!(
        stderr(&missing).trim(),
        "sextant: error: nowhere.py: not a file the workspace indexes (see `sextant files`)"
    );
}

#[test]
fn imports_of_a_rust_crate_follow_its_modules_and_manifest() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "Cargo.toml",
        "[package]\nname = \"shapes\"\n\n[dependencies]\nserde = \"1\"\n",
    );
    write(
        dir.path(),
        "src/lib.rs",
        "mod geometry;\npub use geometry::{Circle, area as circle_area};\nuse serde::Serialize;\nuse std::fmt;\nuse rand::Rng;\n",
    );
    write(
        dir.path(),
        "src/geometry/mod.rs",
        "pub struct Circle;\npub fn area() {}\n",
    );
    // Run inside the crate, as people do (`src/lib.rs` is relative to the current directory).
    let out = Command::new(env!("CARGO_BIN_EXE_sextant"))
        .args(["imports", "src/lib.rs"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let rows: Vec<Vec<&str>> = text
        .lines()
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(
        rows,
        [
            vec!["1", "self::geometry", "src/geometry/mod.rs"],
            vec![
                "2",
                "geometry:",
                "Circle",
                "(public)",
                "src/geometry/mod.rs:1:12"
            ],
            vec![
                "2",
                "geometry:",
                "area",
                "as",
                "circle_area",
                "(public)",
                "src/geometry/mod.rs:2:8"
            ],
            vec!["3", "serde:", "Serialize", "external", "(serde)"],
            vec!["4", "std:", "fmt", "external", "(std)"],
            vec!["5", "rand:", "Rng", "unresolved"],
        ]
    );
}

#[test]
fn symbols_finds_ranked_matches_across_languages() {
    let dir = workspace();
    let out = sextant(dir.path(), &["symbols", "load", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v = json(&out);
    let names: Vec<&str> = v["symbols"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["load_user", "load_config"],
        "prefix matches, shorter first"
    );
    let first = &v["symbols"][0];
    assert_eq!(first["path"], "app/models.py");
    assert_eq!(first["kind"], "function");
    // `--json` keeps full positions, as spans, for scripts.
    assert_eq!(
        first["span"],
        serde_json::json!({"start": {"line": 5, "column": 1}, "end": {"line": 6, "column": 9},
                           "byte_start": 56, "byte_end": 84})
    );
    assert_eq!(
        first["name_span"],
        serde_json::json!({"start": {"line": 5, "column": 5}, "end": {"line": 5, "column": 14},
                           "byte_start": 60, "byte_end": 69})
    );

    let method = json(&sextant(dir.path(), &["symbols", "fullname", "--json"]));
    assert_eq!(method["symbols"][0]["container"], "User");
    assert_eq!(method["symbols"][0]["kind"], "method");

    let shebang = json(&sextant(dir.path(), &["symbols", "tool_main", "--json"]));
    assert_eq!(
        shebang["symbols"][0]["path"], "bin/tool",
        "extensionless script found by its shebang"
    );
}

#[test]
fn symbols_filters_and_limits() {
    let dir = workspace();
    let by_kind = json(&sextant(
        dir.path(),
        &["symbols", "", "--kind", "class", "--json"],
    ));
    let names: Vec<&str> = by_kind["symbols"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"User"));
    assert!(
        by_kind["symbols"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["kind"] == "class")
    );

    let by_path = json(&sextant(
        dir.path(),
        &["symbols", "", "--path", "app/", "--json"],
    ));
    assert!(
        by_path["symbols"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["path"].as_str().unwrap().starts_with("app/"))
    );

    let limited = json(&sextant(
        dir.path(),
        &["symbols", "", "--limit", "1", "--json"],
    ));
    assert_eq!(limited["symbols"].as_array().unwrap().len(), 1);
    assert_eq!(limited["truncated"], true);
    assert!(limited["total"].as_u64().unwrap() > 1);

    let text = stdout(&sextant(dir.path(), &["symbols", "", "--limit", "1"]));
    assert!(text.contains("matches shown"), "{text}");
}

#[test]
fn exit_codes_and_errors() {
    let dir = workspace();
    let none = sextant(dir.path(), &["symbols", "zzzqqq"]);
    assert_eq!(none.status.code(), Some(1), "no match is a finding");

    let bad_kind = sextant(dir.path(), &["symbols", "x", "--kind", "klass"]);
    assert_eq!(bad_kind.status.code(), Some(2));
    assert!(
        stderr(&bad_kind).starts_with("sextant: error: unknown symbol kind \"klass\""),
        "{}",
        stderr(&bad_kind)
    );
    assert_eq!(stderr(&bad_kind).lines().count(), 1);

    let missing = sextant(dir.path(), &["outline", "nope.py"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(stderr(&missing).contains("nope.py"), "{}", stderr(&missing));

    let unknown = sextant(dir.path(), &["parse", "README.txt"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(
        stderr(&unknown).contains("unknown language"),
        "{}",
        stderr(&unknown)
    );

    let no_root = Command::new(env!("CARGO_BIN_EXE_sextant"))
        .args(["--root", "/does/not/exist", "stats"])
        .output()
        .unwrap();
    assert_eq!(no_root.status.code(), Some(2));

    let usage = Command::new(env!("CARGO_BIN_EXE_sextant"))
        .arg("frobnicate")
        .output()
        .unwrap();
    assert_eq!(usage.status.code(), Some(2));
}

#[test]
fn parse_shows_tree_and_errors() {
    let dir = workspace();
    write(dir.path(), "broken.py", "def f(:\n    pass\n");
    let ok = sextant(dir.path(), &["parse", "app/models.py", "--depth", "1"]);
    assert_eq!(ok.status.code(), Some(0));
    let tree = stdout(&ok);
    assert!(
        tree.starts_with("(module 1:1-7:1)\n  (class_definition 1:1-3:18 …)"),
        "{tree}"
    );

    let broken = sextant(dir.path(), &["parse", "broken.py", "--json"]);
    assert_eq!(broken.status.code(), Some(1), "syntax errors are findings");
    let v = json(&broken);
    assert_eq!(v["error_count"], 1);
    assert_eq!(
        v["errors"][0]["span"],
        serde_json::json!({"start": {"line": 1, "column": 7}, "end": {"line": 1, "column": 7},
                           "byte_start": 6, "byte_end": 6})
    );
    assert!(
        v["errors"][0]["message"].as_str().unwrap().contains(')'),
        "{v}"
    );

    let mut child = Command::new(env!("CARGO_BIN_EXE_sextant"))
        .args(["parse", "-", "--language", "go", "--errors-only"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"package main\nfunc f() {\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout(&out).starts_with("<stdin>:2:10: error: unexpected end of file"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn outline_is_a_tree() {
    let dir = workspace();
    let v = json(&sextant(
        dir.path(),
        &["outline", "app/models.py", "--json"],
    ));
    assert_eq!(v["symbols"][0]["name"], "User");
    assert_eq!(v["symbols"][1]["name"], "load_user");
    assert_eq!(
        v["symbols"][0]["children"],
        serde_json::json!([{
            "name": "full_name",
            "kind": "method",
            "container": "User",
            "signature": "def full_name(self)",
            "span": {"start": {"line": 2, "column": 5}, "end": {"line": 3, "column": 18},
                     "byte_start": 16, "byte_end": 54},
            "name_span": {"start": {"line": 2, "column": 9}, "end": {"line": 2, "column": 18},
                          "byte_start": 20, "byte_end": 29},
        }])
    );
    let text = stdout(&sextant(dir.path(), &["outline", "app/models.py"]));
    assert!(
        text.lines()
            .nth(1)
            .unwrap()
            .starts_with("  method full_name"),
        "{text}"
    );
}

#[test]
fn stats_reports_languages_and_skipped_files() {
    let dir = workspace();
    let root = dir.path();
    write(root, "big.py", "x = 1\n".repeat(2000));
    write(root, "blob.py", b"\x00\x01binary");
    write(root, "latin1.py", b"s = '\xe9t\xe9'\ndef ok():\n    pass\n");
    write(root, "ignored/gen.py", "def generated(): pass\n");
    write(root, ".gitignore", "ignored/\n");
    write(root, "vendor/lib.py", "def vendored(): pass\n");
    write(
        root,
        "sextant.toml",
        "exclude = [\"vendor/\"]\nmax_file_size = 10000\n",
    );
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(root, root.join("app/loop")).unwrap();
        let outside = tempfile::tempdir().unwrap();
        write(outside.path(), "secret.py", "def secret(): pass\n");
        std::os::unix::fs::symlink(outside.path().join("secret.py"), root.join("app/escape.py"))
            .unwrap();
        std::mem::forget(outside);
    }

    let out = sextant(root, &["stats", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v = json(&out);
    let python = v["languages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["language"] == "python")
        .unwrap();
    assert_eq!(python["files"], 3, "models.py, bin/tool and latin1.py: {v}");
    assert_eq!(python["lossy_files"], 1);
    let reasons = skipped_reasons(&v);
    assert!(
        reasons.contains(&("big.py".into(), "too_large".into())),
        "{reasons:?}"
    );
    assert!(
        reasons.contains(&("blob.py".into(), "binary".into())),
        "{reasons:?}"
    );
    #[cfg(unix)]
    {
        assert!(
            reasons.iter().any(|(_, r)| r == "symlink_loop"),
            "{reasons:?}"
        );
        assert!(
            reasons.contains(&("app/escape.py".into(), "outside_workspace".into())),
            "{reasons:?}"
        );
    }
    assert!(
        !reasons
            .iter()
            .any(|(p, _)| p.contains("vendor") || p.contains("ignored"))
    );

    let found = json(&sextant(root, &["symbols", "", "--json"]));
    let names: Vec<&str> = found["symbols"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    for absent in ["generated", "vendored", "secret"] {
        assert!(
            !names.contains(&absent),
            "{absent} must not be indexed: {names:?}"
        );
    }
    assert!(
        names.contains(&"ok"),
        "the latin-1 file is analysed: {names:?}"
    );

    let text = stdout(&sextant(root, &["stats", "--skipped"]));
    assert!(text.contains("big.py: too_large"), "{text}");
    assert!(text.contains("indexed in"), "{text}");

    let excluded = json(&sextant(
        root,
        &[
            "stats",
            "--json",
            "--exclude",
            "app/**",
            "--exclude",
            "bin/",
        ],
    ));
    let python = excluded["languages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["language"] == "python")
        .unwrap();
    assert_eq!(python["files"], 1, "only latin1.py is left: {excluded}");

    let larger = json(&sextant(
        root,
        &["stats", "--json", "--max-file-size", "100000"],
    ));
    assert!(
        !larger["skipped"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["path"] == "big.py")
    );
}

#[test]
fn include_globs_restrict_the_workspace() {
    let dir = workspace();
    write(dir.path(), "sextant.toml", "include = [\"src/**\"]\n");
    let v = json(&sextant(dir.path(), &["stats", "--json"]));
    assert_eq!(v["files"], 1, "{v}");
    write(dir.path(), "sextant.toml", "unknown_key = 1\n");
    let bad = sextant(dir.path(), &["stats"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(stderr(&bad).contains("sextant.toml"), "{}", stderr(&bad));
}

#[test]
fn build_outputs_are_not_indexed_without_a_gitignore() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "app.py", "def main():\n    pass\n");
    write(
        root,
        "web/node_modules/pkg/index.js",
        "export const x = 1;\n",
    );
    write(root, "package.json", "{}");
    write(root, "dist/bundle.js", "var y = 1;\n");
    write(
        root,
        "target/CACHEDIR.TAG",
        "Signature: 8a477f597d28d172789f06886806bc55\n",
    );
    write(root, "target/debug/build/gen.rs", "fn gen() {}\n");
    write(root, "venv/pyvenv.cfg", "home = /usr/bin\n");
    write(root, "venv/lib/site.py", "def site():\n    pass\n");
    let v = json(&sextant(root, &["stats", "--json"]));
    assert_eq!(v["files"], 1, "{v}");
    write(root, "sextant.toml", "skip_build_outputs = false\n");
    let v = json(&sextant(root, &["stats", "--json"]));
    assert_eq!(v["files"], 5, "{v}");
}

/// Regression: `[[check.overrides]]` took a malformed glob that `exclude` refuses; one rule
/// for both.
#[test]
fn a_malformed_override_glob_is_refused_as_exclude_refuses_it() {
    let dir = workspace();
    for config in [
        "exclude = [\"**/[x\"]\n",
        "[[check.overrides]]\npaths = [\"**/[x\"]\nignore = [\"SX005\"]\n",
    ] {
        write(dir.path(), "sextant.toml", config);
        let bad = sextant(dir.path(), &["check"]);
        assert_eq!(bad.status.code(), Some(2), "{config}: {}", stdout(&bad));
        assert!(stderr(&bad).contains("**/[x"), "{config}: {}", stderr(&bad));
        assert!(
            stderr(&bad).contains("unclosed character class"),
            "{config}: {}",
            stderr(&bad)
        );
    }
}

#[test]
fn closed_stdout_is_not_an_error() {
    let dir = workspace();
    let mut child = Command::new(env!("CARGO_BIN_EXE_sextant"))
        .args(["--root"])
        .arg(dir.path())
        .args(["symbols", ""])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert!(out.status.code().is_some(), "killed by a signal");
    assert!(!stderr(&out).contains("panicked"), "{}", stderr(&out));
}

/// Regression: a directory symlink pointing outside the root was followed and its files
/// indexed (only file symlinks were checked).
#[cfg(unix)]
#[test]
fn directory_symlinks_pointing_outside_are_not_followed() {
    let dir = workspace();
    let outside = tempfile::tempdir().unwrap();
    write(outside.path(), "secret.py", "API_KEY = 'do-not-serve'\n");
    write(
        outside.path(),
        "deep/more.py",
        "def outside_function(): pass\n",
    );
    std::os::unix::fs::symlink(outside.path(), dir.path().join("vendor_link")).unwrap();
    // A link inside the root is followed, and its files, which the walk reaches directly
    // too, are indexed once: under their real paths.
    std::os::unix::fs::symlink(dir.path().join("src"), dir.path().join("src_link")).unwrap();

    let v = json(&sextant(dir.path(), &["stats", "--json"]));
    let skipped = skipped_reasons(&v);
    assert_eq!(
        skipped,
        [
            ("src_link/lib.rs".into(), "same_file".into()),
            ("vendor_link".into(), "outside_workspace".into())
        ],
        "{v}"
    );
    let found = sextant(dir.path(), &["symbols", "API_KEY"]);
    assert_eq!(found.status.code(), Some(1), "{}", stdout(&found));
    let files = stdout(&sextant(dir.path(), &["files"]));
    assert!(!files.contains("vendor_link"), "{files}");
    assert!(!files.contains("src_link"), "{files}");
}

/// Regression: a FIFO among the files blocked the reader that opened it.
#[cfg(unix)]
#[test]
fn fifos_are_skipped_without_blocking() {
    let dir = workspace();
    let status = Command::new("mkfifo")
        .arg(dir.path().join("pipe.py"))
        .status()
        .unwrap();
    assert!(status.success());
    let v = json(&sextant(dir.path(), &["stats", "--json"]));
    let skipped = skipped_reasons(&v);
    assert_eq!(
        skipped,
        [("pipe.py".into(), "not_regular_file".into())],
        "{v}"
    );
    let out = sextant(dir.path(), &["outline", "pipe.py"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out).trim(),
        "sextant: error: pipe.py: not a regular file (a FIFO)"
    );
}

#[test]
fn typescript_imports_resolve_through_tsconfig_paths_and_packages() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "package.json",
        r#"{"name": "web", "dependencies": {"react": "18"}}"#,
    );
    write(
        dir.path(),
        "tsconfig.json",
        r#"{"compilerOptions": {"paths": {"@/*": ["src/*"]}}}"#,
    );
    write(dir.path(), "src/cart.ts", "export class Cart {}\n");
    write(
        dir.path(),
        "src/app.ts",
        "import {Cart} from \"@/cart\";\nimport type {Cart as C} from \"./cart.js\";\n\
         import React from \"react\";\nimport {readFile} from \"node:fs/promises\";\n\
         import left from \"left-pad\";\n",
    );
    let text = stdout(&sextant(dir.path(), &["imports", "src/app.ts"]));
    let rows: Vec<Vec<&str>> = text
        .lines()
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(
        rows,
        [
            vec!["1", "@/cart:", "Cart", "src/cart.ts:1:14"],
            vec![
                "2",
                "./cart.js:",
                "Cart",
                "as",
                "C",
                "(type)",
                "src/cart.ts:1:14"
            ],
            vec![
                "3", "react:", "default", "as", "React", "external", "(react)"
            ],
            vec!["4", "node:fs/promises:", "readFile", "external", "(fs)"],
            vec!["5", "left-pad:", "default", "as", "left", "unresolved"],
        ]
    );
    let v = json(&sextant(dir.path(), &["imports", "src/app.ts", "--json"]));
    assert_eq!(v[1]["type_only"], true);
    assert_eq!(v[1]["alias"], "C");
    assert_eq!(v[0].get("type_only"), None);
}

/// The output lines of a command, each split into its fields.
fn fields(o: &Output) -> Vec<Vec<String>> {
    stdout(o)
        .lines()
        .map(|l| l.split_whitespace().map(str::to_string).collect())
        .collect()
}

#[test]
fn dotted_module_attributes_resolve_through_namespace_packages() {
    // `a` and `a/b` with and without `__init__.py` (PEP 420 namespace packages), and a
    // namespace package found from a script's directory (`svc`), not the workspace root.
    for regular in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(root, "a/b/__init__.py", "class X:\n    pass\n");
        write(root, "a/b/c.py", "def helper():\n    return 1\n");
        write(root, "svc/lib/util/tools.py", "def run():\n    pass\n");
        write(
            root,
            "main.py",
            "import a.b\nimport a.b.c as abc\n\nx = a.b.X()\ny = a.b.c.helper()\nz = abc.helper()\n",
        );
        write(
            root,
            "svc/main.py",
            "import lib.util.tools\n\nlib.util.tools.run()\n",
        );
        if regular {
            write(root, "a/__init__.py", "");
            write(root, "svc/lib/__init__.py", "");
            write(root, "svc/lib/util/__init__.py", "");
        }

        let def = sextant(root, &["def", "main.py:4:9"]);
        assert_eq!(def.status.code(), Some(0), "{}", stderr(&def));
        assert_eq!(fields(&def), [["a/b/__init__.py:1:7", "class", "X"]]);
        let def = sextant(root, &["def", "main.py:5:11"]);
        assert_eq!(fields(&def), [["a/b/c.py:1:5", "function", "helper"]]);

        let refs = sextant(root, &["refs", "a/b/__init__.py:1:7", "--no-definitions"]);
        assert_eq!(
            fields(&refs),
            [
                vec!["main.py:4:9", "call", "x", "=", "a.b.X()"],
                vec!["1", "references", "in", "2", "files", "searched"],
            ],
            "regular packages: {regular}"
        );
        let refs = sextant(root, &["refs", "a/b/c.py:1:5", "--no-definitions"]);
        assert_eq!(
            fields(&refs),
            [
                vec!["main.py:5:11", "call", "y", "=", "a.b.c.helper()"],
                vec!["main.py:6:9", "call", "z", "=", "abc.helper()"],
                vec!["2", "references", "in", "2", "files", "searched"],
            ],
            "regular packages: {regular}"
        );
        let refs = sextant(
            root,
            &["refs", "svc/lib/util/tools.py:1:5", "--no-definitions"],
        );
        assert_eq!(
            fields(&refs),
            [
                vec!["svc/main.py:3:16", "call", "lib.util.tools.run()"],
                vec!["1", "references", "in", "2", "files", "searched"],
            ],
            "regular packages: {regular}"
        );

        let rename = sextant(root, &["rename", "a/b/__init__.py:1:7", "Y", "--write"]);
        assert_eq!(rename.status.code(), Some(0), "{}", stderr(&rename));
        assert_eq!(
            support::read_file(root, "main.py"),
            "import a.b\nimport a.b.c as abc\n\nx = a.b.Y()\ny = a.b.c.helper()\nz = abc.helper()\n"
        );
    }
}

/// A namespace package (`a/b`, no `__init__.py`) inside a regular package (`a`): Python
/// finds `a.b` on `a.__path__`, so `a.b.c.Y` after `import a.b.c` is `a/b/c.py`'s `Y`, as
/// are the names `from a.b.c import Y` and `from a.b import c` bind; `import a.b` is no
/// missing module, nor `from a import b` a missing name.
#[test]
fn namespace_packages_inside_regular_packages_resolve() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "a/__init__.py", "");
    write(root, "a/b/c.py", "class Y:\n    pass\n");
    write(root, "a/b/d/e.py", "def f():\n    pass\n");
    write(
        root,
        "main.py",
        "import a.b.c\nfrom a.b.c import Y\nfrom a.b import c\n\nu = a.b.c.Y()\nv = Y()\nw = c.Y()\n",
    );
    write(
        root,
        "other.py",
        "import a.b\nimport a.b.d.e\nfrom a import b\n\nprint(a.b.c.Y, a.b.d.e.f(), b.c.Y)\n",
    );

    let def = sextant(root, &["def", "main.py:5:11"]);
    assert_eq!(def.status.code(), Some(0), "{}", stderr(&def));
    assert_eq!(fields(&def), [["a/b/c.py:1:7", "class", "Y"]]);
    let def = sextant(root, &["def", "other.py:5:24"]);
    assert_eq!(fields(&def), [["a/b/d/e.py:1:5", "function", "f"]]);

    let refs = sextant(root, &["refs", "a/b/c.py:1:7", "--no-definitions"]);
    assert_eq!(
        fields(&refs),
        [
            vec!["main.py:2:19", "import", "from", "a.b.c", "import", "Y"],
            vec!["main.py:5:11", "call", "u", "=", "a.b.c.Y()"],
            vec!["main.py:6:5", "call", "v", "=", "Y()"],
            vec!["main.py:7:7", "call", "w", "=", "c.Y()"],
            vec![
                "other.py:5:13",
                "read",
                "print(a.b.c.Y,",
                "a.b.d.e.f(),",
                "b.c.Y)"
            ],
            vec![
                "other.py:5:33",
                "read",
                "print(a.b.c.Y,",
                "a.b.d.e.f(),",
                "b.c.Y)"
            ],
            vec!["6", "references", "in", "3", "files", "searched"],
        ]
    );

    let check = sextant(root, &["check", "--select", "SX003,SX004,SX005"]);
    assert_eq!(stdout(&check), "All checks passed (5 files checked).\n");

    let rename = sextant(root, &["rename", "a/b/c.py:1:7", "Z", "--write"]);
    assert_eq!(rename.status.code(), Some(0), "{}", stderr(&rename));
    assert_eq!(support::read_file(root, "a/b/c.py"), "class Z:\n    pass\n");
    assert_eq!(
        support::read_file(root, "main.py"),
        "import a.b.c\nfrom a.b.c import Z\nfrom a.b import c\n\nu = a.b.c.Z()\nv = Z()\nw = c.Z()\n"
    );
    assert_eq!(
        support::read_file(root, "other.py"),
        "import a.b\nimport a.b.d.e\nfrom a import b\n\nprint(a.b.c.Z, a.b.d.e.f(), b.c.Z)\n"
    );
}

/// `from . import sub` where `sub` is a namespace package beside the importer, inside a
/// package: as jedi has it, `sub` is the namespace and `sub.mod.X` the class of
/// `pkg/sub/mod.py`, however `mod` was imported.
#[test]
fn relative_imports_of_namespace_packages_resolve() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "pkg/__init__.py", "");
    write(root, "pkg/sub/mod.py", "class X:\n    pass\n");
    write(root, "pkg/sub/inner/deep.py", "def g():\n    pass\n");
    write(
        root,
        "pkg/a.py",
        "import pkg.sub.mod\nfrom . import sub\n\nu = sub.mod.X()\n",
    );
    write(
        root,
        "pkg/b.py",
        "from .sub import mod\nfrom . import sub\nfrom .sub import inner\n\nu = sub.mod.X()\nv = mod.X()\nw = inner.deep.g()\n",
    );

    let def = sextant(root, &["def", "pkg/a.py:4:13"]);
    assert_eq!(def.status.code(), Some(0), "{}", stderr(&def));
    assert_eq!(fields(&def), [["pkg/sub/mod.py:1:7", "class", "X"]]);
    let def = sextant(root, &["def", "pkg/b.py:7:16"]);
    assert_eq!(
        fields(&def),
        [["pkg/sub/inner/deep.py:1:5", "function", "g"]]
    );

    let refs = sextant(root, &["refs", "pkg/sub/mod.py:1:7", "--no-definitions"]);
    assert_eq!(
        fields(&refs),
        [
            vec!["pkg/a.py:4:13", "call", "u", "=", "sub.mod.X()"],
            vec!["pkg/b.py:5:13", "call", "u", "=", "sub.mod.X()"],
            vec!["pkg/b.py:6:9", "call", "v", "=", "mod.X()"],
            vec!["3", "references", "in", "3", "files", "searched"],
        ]
    );

    let check = sextant(root, &["check", "--select", "SX003,SX004,SX005"]);
    assert_eq!(stdout(&check), "All checks passed (5 files checked).\n");

    let rename = sextant(root, &["rename", "pkg/sub/mod.py:1:7", "W", "--write"]);
    assert_eq!(rename.status.code(), Some(0), "{}", stderr(&rename));
    assert_eq!(
        support::read_file(root, "pkg/a.py"),
        "import pkg.sub.mod\nfrom . import sub\n\nu = sub.mod.W()\n"
    );
    assert_eq!(
        support::read_file(root, "pkg/b.py"),
        "from .sub import mod\nfrom . import sub\nfrom .sub import inner\n\nu = sub.mod.W()\nv = mod.W()\nw = inner.deep.g()\n"
    );
}

#[test]
fn def_and_refs_follow_imports_by_position_and_by_name() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "pkg/util.py", "def helper(x):\n    return x\n");
    write(
        dir.path(),
        "pkg/__init__.py",
        "from .util import helper as h\n",
    );
    write(dir.path(), "main.py", "import pkg\npkg.h(1)\nvalue = 2\n");

    let def = sextant(dir.path(), &["def", "main.py:2:5"]);
    assert_eq!(def.status.code(), Some(0), "{}", stderr(&def));
    let fields: Vec<Vec<String>> = stdout(&def)
        .lines()
        .map(|l| l.split_whitespace().map(str::to_string).collect())
        .collect();
    assert_eq!(fields, [["pkg/util.py:1:5", "function", "helper"]]);

    let refs = sextant(dir.path(), &["refs", "util.helper", "--no-definitions"]);
    assert_eq!(refs.status.code(), Some(0), "{}", stderr(&refs));
    let lines: Vec<Vec<String>> = stdout(&refs)
        .lines()
        .map(|l| l.split_whitespace().map(str::to_string).collect())
        .collect();
    assert_eq!(
        lines,
        [
            vec!["main.py:2:5", "call", "pkg.h(1)"],
            vec![
                "pkg/__init__.py:1:19",
                "import",
                "from",
                ".util",
                "import",
                "helper",
                "as",
                "h"
            ],
            vec![
                "pkg/__init__.py:1:29",
                "import",
                "from",
                ".util",
                "import",
                "helper",
                "as",
                "h"
            ],
            vec!["3", "references", "in", "3", "files", "searched"],
        ]
    );

    // Nothing at a keyword: exit 1, said as `refs` and `symbols` say it. A line past the
    // end: a usage error.
    let nothing = sextant(dir.path(), &["def", "main.py:1:1"]);
    assert_eq!(
        (nothing.status.code(), stdout(&nothing)),
        (
            Some(1),
            "no definition found for \"main.py:1:1\"\n".to_string()
        )
    );
    let past = sextant(dir.path(), &["refs", "main.py:9:1"]);
    assert_eq!(past.status.code(), Some(2));
    assert_eq!(
        stderr(&past).trim(),
        "sextant: error: main.py:9:1: past the end of the file (its last line is 4)"
    );
}

#[test]
fn go_def_and_refs_span_a_package_and_its_importers() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "go.mod", "module example.com/app\n\ngo 1.22\n");
    write(
        dir.path(),
        "store/store.go",
        "package store\n\ntype Store struct{ name string }\n\nfunc Open() *Store { return &Store{} }\n",
    );
    write(
        dir.path(),
        "store/name.go",
        "package store\n\nfunc (s *Store) Name() string { return s.name }\n",
    );
    write(
        dir.path(),
        "main.go",
        "package main\n\nimport \"example.com/app/store\"\n\nfunc main() {\n\ts := store.Open()\n\tprintln(s.Name())\n}\n",
    );

    // `s.Name()`: s is what store.Open returns, and Name is declared in another file.
    let def = sextant(dir.path(), &["def", "main.go:7:12"]);
    assert_eq!(def.status.code(), Some(0), "{}", stderr(&def));
    let fields: Vec<Vec<String>> = stdout(&def)
        .lines()
        .map(|l| l.split_whitespace().map(str::to_string).collect())
        .collect();
    assert_eq!(fields, [["store/name.go:3:17", "method", "Name"]]);

    let refs = sextant(dir.path(), &["refs", "store.Store.Name"]);
    assert_eq!(refs.status.code(), Some(0), "{}", stderr(&refs));
    let lines: Vec<Vec<String>> = stdout(&refs)
        .lines()
        .map(|l| l.split_whitespace().take(2).map(str::to_string).collect())
        .collect();
    assert_eq!(
        lines,
        [
            ["main.go:7:12", "call"],
            ["store/name.go:3:17", "definition"],
            ["2", "references"],
        ]
    );
}

#[test]
fn rust_def_and_refs_through_modules_and_impl_blocks() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "Cargo.toml",
        "[package]\nname = \"tally\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    );
    write(
        dir.path(),
        "src/main.rs",
        "mod counter;\nuse counter::Counter;\n\nfn main() {\n    let mut c = Counter::new();\n    c.bump();\n}\n",
    );
    write(
        dir.path(),
        "src/counter/mod.rs",
        "pub struct Counter { n: u32 }\n\nimpl Counter {\n    pub fn new() -> Self { Counter { n: 0 } }\n    pub fn bump(&mut self) { self.n += 1; }\n}\n",
    );

    // An absolute path: a relative one is taken from the current directory when a file
    // is there (this repository has a src/main.rs).
    let at = format!("{}:6:7", dir.path().join("src/main.rs").display());
    let def = sextant(dir.path(), &["def", &at]);
    assert_eq!(def.status.code(), Some(0), "{}", stderr(&def));
    let fields: Vec<Vec<String>> = stdout(&def)
        .lines()
        .map(|l| l.split_whitespace().map(str::to_string).collect())
        .collect();
    assert_eq!(fields, [["src/counter/mod.rs:5:12", "function", "bump"]]);

    let refs = sextant(dir.path(), &["refs", "counter::Counter::bump", "--json"]);
    assert_eq!(refs.status.code(), Some(0), "{}", stderr(&refs));
    let v = json(&refs);
    let found: Vec<(String, u64, String, String)> = v["references"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["path"].as_str().unwrap().to_string(),
                r["span"]["start"]["line"].as_u64().unwrap(),
                r["role"].as_str().unwrap().to_string(),
                r["certainty"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        found,
        [
            (
                "src/counter/mod.rs".into(),
                5,
                "definition".into(),
                "exact".into()
            ),
            ("src/main.rs".into(), 6, "call".into(), "exact".into()),
        ]
    );
    assert_eq!(v["definitions"][0]["kind"], "function");
}

#[test]
fn check_prints_codes_and_a_summary_and_exits_1_on_findings() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "app/__init__.py", "");
    write(
        root,
        "app/main.py",
        "import os\nfrom app.utils import helper\n\nprint(helper, undefined_name)\n",
    );
    write(root, "app/clean.py", "import sys\n\nprint(sys.argv)\n");
    write(root, "lib.rs", "fn main() {\n    let x = (1\n}\n");

    let out = sextant(root, &["check"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "app/main.py:1:8: SX006 'os' imported but unused\n\
         app/main.py:2:1: SX003 no module 'app.utils' in the workspace\n\
         app/main.py:4:15: SX005 undefined name 'undefined_name'\n\
         lib.rs:2:5: SX001 unexpected `let`\n\
         Found 4 diagnostics in 2 of 4 files (SX001 1, SX003 1, SX005 1, SX006 1).\n"
    );

    // Paths, --select and --ignore narrow it; JSON has the summary.
    let out = sextant(
        root,
        &["check", "app", "--ignore", "SX006", "--format", "json"],
    );
    assert_eq!(out.status.code(), Some(1));
    let answer = json(&out);
    let codes: Vec<&str> = answer["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes, ["SX003", "SX005"]);
    assert_eq!(answer["summary"]["total"], 2);
    assert_eq!(answer["summary"]["files_checked"], 3);
    assert_eq!(answer["summary"]["by_file"]["app/main.py"], 2);

    let out = sextant(root, &["check", "app/clean.py"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout(&out), "All checks passed (1 file checked).\n");

    let out = sextant(
        root,
        &["check", "--select", "undefined-name", "app/main.py"],
    );
    assert_eq!(
        stdout(&out),
        "app/main.py:4:15: SX005 undefined name 'undefined_name'\n\
         Found 1 diagnostic in 1 of 1 file (SX005 1).\n"
    );

    // Bad input: an unknown code, a path with no indexed file.
    let out = sextant(root, &["check", "--select", "SX999"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("unknown diagnostic code \"SX999\""),
        "{}",
        stderr(&out)
    );
    write(root, "docs/notes.txt", "text");
    let out = sextant(root, &["check", "docs"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("docs: no file the workspace indexes"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn check_reports_duplicates_misplaced_statements_and_go_imports() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "go.mod", "module example.com/app\n\ngo 1.22\n");
    write(
        root,
        "main.go",
        "package main\n\nimport (\n\t\"fmt\"\n\t\"os\"\n)\n\nfunc main() {\n\tfmt.Println()\n\tbreak\n}\n",
    );
    write(root, "lib.rs", "fn parse() {}\nfn parse() {}\n");
    let out = sextant(root, &["check"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "lib.rs:2:4: SX009 'parse' is already defined in this module (line 1)\n\
         main.go:5:2: SX006 \"os\" imported and not used\n\
         main.go:10:2: SX011 break is not in a loop, switch, or select\n\
         Found 3 diagnostics in 2 of 2 files (SX006 1, SX009 1, SX011 1).\n"
    );
}

#[test]
fn explain_prints_a_codes_explanation_and_says_what_is_checked() {
    let dir = tempfile::tempdir().unwrap();
    let out = sextant(dir.path(), &["explain", "undefined-name"]);
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    assert!(
        text.starts_with("SX005 Undefined name (undefined-name)\n"),
        "{text}"
    );
    assert!(
        text.contains("checked today in: python, javascript, typescript, tsx\n"),
        "{text}"
    );
    assert!(text.contains("Example:\n\n    def total(items):"), "{text}");

    let out = sextant(dir.path(), &["explain", "SX012", "--json"]);
    let answer = json(&out);
    assert_eq!(answer["code"], "SX012");
    assert_eq!(
        answer["implemented"],
        serde_json::json!(["python", "javascript", "typescript", "tsx", "go"])
    );

    let out = sextant(dir.path(), &["explain"]);
    assert_eq!(
        stdout(&out).lines().count(),
        sextant::ide::diagnostic_codes().len(),
        "one line per code"
    );

    let out = sextant(dir.path(), &["explain", "SX999"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn check_reports_unused_variables_redefinitions_and_unknown_imported_names() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "app/__init__.py", "");
    write(root, "app/util.py", "def helper():\n    return 1\n");
    write(
        root,
        "app/main.py",
        "from app.util import helpr\n\n\ndef run(path):\n    size = 3\n    return path\n\n\ndef run(path):\n    return helpr(path)\n",
    );

    let out = sextant(
        root,
        &[
            "check",
            "--select",
            "unused-variable,redefined-unused,unknown-import-name",
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "app/main.py:1:22: SX004 module 'app.util' has no name 'helpr'\n\
         app/main.py:5:5: SX007 local variable 'size' is assigned to but never used\n\
         app/main.py:9:5: SX008 redefinition of unused 'run' from line 4\n\
         Found 3 diagnostics in 1 of 3 files (SX004 1, SX007 1, SX008 1).\n"
    );
}

#[test]
fn check_reports_import_cycles_only_when_selected() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "app/__init__.py", "");
    write(
        root,
        "app/orders.py",
        "from app.customers import Customer\n\nORDERS = [Customer]\n",
    );
    write(
        root,
        "app/customers.py",
        "import app.orders\n\nclass Customer:\n    orders = app.orders\n",
    );
    write(
        root,
        "app/report.py",
        "def report():\n    from app import report\n    return report\n",
    );

    let out = sextant(root, &["check"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert_eq!(stdout(&out), "All checks passed (4 files checked).\n");

    let out = sextant(root, &["check", "--select", "SX012"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "app/customers.py:1:1: SX012 import cycle: app/customers.py → app/orders.py → app/customers.py\n\
         app/orders.py:1:1: SX012 import cycle: app/orders.py → app/customers.py → app/orders.py\n\
         Found 2 diagnostics in 2 of 4 files (SX012 2).\n"
    );

    // The other import of the cycle is a related place in its own file.
    let out = sextant(
        root,
        &[
            "check",
            "--select",
            "import-cycle",
            "app/orders.py",
            "--format",
            "json",
        ],
    );
    let answer = json(&out);
    assert_eq!(
        answer["diagnostics"][0]["related"],
        serde_json::json!([{
            "path": "app/customers.py",
            "span": {
                "start": {"line": 1, "column": 1},
                "end": {"line": 1, "column": 18},
                "byte_start": 0,
                "byte_end": 17
            },
            "message": "app/customers.py imports app/orders.py"
        }])
    );
}

fn format_workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "src/lib.rs", "fn f() {\nlet x = 1;   \n}\n");
    write(dir.path(), "app/ok.py", "def f():\n    return 1\n");
    dir
}

#[test]
fn format_diffs_by_default_and_check_exits_1_when_a_file_would_change() {
    let dir = format_workspace();
    let root = dir.path();
    let out = sextant(root, &["format"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1,3 +1,3 @@\n fn f() {\n-let x = 1;   \n+    let x = 1;\n }\n1 of 2 files would be formatted.\n"
    );
    let out = sextant(root, &["format", "--check"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stdout(&out),
        "src/lib.rs: would be formatted\n1 of 2 files would be formatted.\n"
    );
    let out = sextant(root, &["format", "--diff", "app"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout(&out), "0 of 1 file would be formatted.\n");
    // Nothing was written by any of them.
    assert_eq!(
        std::fs::read_to_string(root.join("src/lib.rs")).unwrap(),
        "fn f() {\nlet x = 1;   \n}\n"
    );
}

#[test]
fn format_write_writes_and_a_second_check_passes() {
    let dir = format_workspace();
    let root = dir.path();
    let out = sextant(root, &["format", "--write", "--tab-size", "2"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "src/lib.rs: formatted\n1 of 2 files formatted.\n"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("src/lib.rs")).unwrap(),
        "fn f() {\n  let x = 1;\n}\n"
    );
    let out = sextant(root, &["format", "--check", "--tab-size", "2"]);
    assert_eq!(out.status.code(), Some(0));
}

/// The formatted texts are checked for new diagnostics (`--diagnostics`, default
/// `report`); a layout change adds none. `--check` was taken, so the flag has another name.
#[test]
fn format_checks_the_formatted_files_for_new_diagnostics() {
    let dir = format_workspace();
    let root = dir.path();
    for policy in [
        &[][..],
        &["--diagnostics", "report"],
        &["--diagnostics", "refuse"],
    ] {
        let out = sextant(
            root,
            &[&["format", "--json", "--check"][..], policy].concat(),
        );
        assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
        let answer = json(&out);
        assert_eq!(answer["changed"], 1, "{policy:?}");
        assert_eq!(
            answer["new_diagnostics"],
            serde_json::json!([]),
            "{policy:?}"
        );
    }
    let out = sextant(root, &["format", "--json", "--diagnostics", "off"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(json(&out)["new_diagnostics"], Value::Null);

    let out = sextant(root, &["format", "--diagnostics", "never"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).starts_with(
            "error: invalid value 'never' for '--diagnostics <POLICY>'\n  [possible values: report, refuse, off]\n"
        ),
        "{}",
        stderr(&out)
    );

    let out = sextant(root, &["format", "--write", "--diagnostics", "refuse"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "src/lib.rs: formatted\n1 of 2 files formatted.\n"
    );
}

#[test]
fn format_refuses_files_with_syntax_errors_and_exits_2_in_json_too() {
    let dir = format_workspace();
    let root = dir.path();
    write(root, "app/bad.py", "def f(:\n  pass   \n");
    let out = sextant(root, &["format", "--json", "--write", "app"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        json(&out),
        serde_json::json!({
            "files": [
                {"path": "app/bad.py", "changed": false, "error": {
                    "code": "FORMAT_SYNTAX_ERROR",
                    "message": "line 1 has a syntax error; a file with syntax errors is not formatted"
                }},
                {"path": "app/ok.py", "changed": false}
            ],
            "checked": 2, "changed": 0, "failed": 1, "new_diagnostics": [], "written": false
        })
    );
    assert_eq!(
        std::fs::read_to_string(root.join("app/bad.py")).unwrap(),
        "def f(:\n  pass   \n"
    );
}

#[test]
fn format_runs_the_external_formatter_sextant_toml_names_and_reports_a_missing_one() {
    let dir = format_workspace();
    let root = dir.path();
    write(
        root,
        "sextant.toml",
        "[format.python]\ncommand = [\"sed\", \"s/return 1/return 2/\"]\n",
    );
    let out = sextant(
        root,
        &[
            "format",
            "--write",
            "--allow-external-formatter",
            "app/ok.py",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(root.join("app/ok.py")).unwrap(),
        "def f():\n    return 2\n"
    );
    write(
        root,
        "sextant.toml",
        "[format.python]\ncommand = [\"sextant-test-no-such-formatter\"]\n",
    );
    let out = sextant(root, &["format", "--allow-external-formatter", "app"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stdout(&out).starts_with(
            "app/ok.py: FORMATTER_NOT_FOUND the formatter \"sextant-test-no-such-formatter\" could not be started"
        ),
        "{}",
        stdout(&out)
    );
    write(
        root,
        "sextant.toml",
        "[format.python]\ncommand = [\"sh\", \"-c\", \"echo broken >&2; exit 3\"]\n",
    );
    let out = sextant(root, &["format", "--allow-external-formatter", "app"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stdout(&out),
        "app/ok.py: FORMATTER_FAILED the formatter \"sh\" failed: exit status: 3: broken\n0 of 1 file would be formatted; 1 could not be formatted.\n"
    );
    write(root, "sextant.toml", "[format.cobol]\ncommand = [\"x\"]\n");
    let out = sextant(root, &["format"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("[format.cobol]: unknown language"),
        "{}",
        stderr(&out)
    );
}

/// What a new user tripped over (issue 23, item 8), each through the binary.
#[test]
fn def_that_finds_nothing_says_so() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "app.py", "def f():\n    pass\n");
    let out = sextant(dir.path(), &["def", "nothing"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout(&out), "no definition found for \"nothing\"\n");
    assert_eq!(stderr(&out), "");
    // As `symbols` says it; JSON stays an empty list.
    let symbols = sextant(dir.path(), &["symbols", "nothing"]);
    assert_eq!(stdout(&symbols), "no symbol matches \"nothing\"\n");
    let json = sextant(dir.path(), &["--json", "def", "nothing"]);
    assert_eq!(
        (json.status.code(), stdout(&json)),
        (Some(1), "[]\n".into())
    );
}

#[test]
fn a_malformed_target_is_an_error_not_a_name() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "app.py", "def f():\n    pass\n");
    for (command, target) in [
        (&["def"][..], "app.py:5"),
        (&["def"][..], "app.py:x:1"),
        (&["refs"][..], "app.py:5"),
        (&["rename"][..], "app.py:x:1"),
    ] {
        let mut args = command.to_vec();
        args.push(target);
        if command == ["rename"] {
            args.push("g");
        }
        let out = sextant(dir.path(), &args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(stdout(&out), "", "{args:?}");
        assert_eq!(
            stderr(&out),
            format!(
                "sextant: error: INVALID_TARGET: {target}: expected FILE:LINE:COLUMN (line and \
                 column numbers from 1) or a NAME\n"
            ),
            "{args:?}"
        );
    }
    let zero = sextant(dir.path(), &["def", "app.py:0:1"]);
    assert_eq!(
        (zero.status.code(), stderr(&zero)),
        (
            Some(2),
            "sextant: error: INVALID_TARGET: app.py:0:1: lines and columns count from 1\n".into()
        )
    );
    // Names with Rust's `::` and positions still work.
    let at = sextant(dir.path(), &["def", "app.py:1:5"]);
    assert_eq!(at.status.code(), Some(0));
    assert!(stdout(&at).starts_with("app.py:1:5 "), "{}", stdout(&at));
    let path = sextant(dir.path(), &["def", "a::f"]);
    assert_eq!(
        (path.status.code(), stderr(&path)),
        (Some(1), String::new())
    );
}

#[test]
fn a_missing_path_is_reported_as_missing() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "app.py", "x = 1\n");
    for args in [
        &["check", "nonexistent_path"][..],
        &["format", "nonexist.py"][..],
        &["format", "--check", "nonexist.py"][..],
    ] {
        let out = sextant(dir.path(), args);
        let named = args.last().unwrap();
        assert_eq!(
            (out.status.code(), stdout(&out), stderr(&out)),
            (
                Some(2),
                String::new(),
                format!("sextant: error: NOT_FOUND: {named}: does not exist\n")
            ),
            "{args:?}"
        );
    }
    // A path that exists outside the root is still outside.
    let outside = tempfile::tempdir().unwrap();
    let elsewhere = outside.path().to_str().unwrap();
    let out = sextant(dir.path(), &["check", elsewhere]);
    assert_eq!(
        stderr(&out),
        format!("sextant: error: {elsewhere}: not inside the workspace\n")
    );
}

#[test]
fn check_and_format_agree_on_a_workspace_without_code() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "docs/readme.txt", "not code\n");
    // The whole workspace, without supported code: 0 files, exit 0, for both.
    let check = sextant(dir.path(), &["check"]);
    assert_eq!(
        (check.status.code(), stdout(&check)),
        (Some(0), "All checks passed (0 files checked).\n".into())
    );
    for args in [&["format", "--check"][..], &["format"][..]] {
        let format = sextant(dir.path(), args);
        assert_eq!(
            (format.status.code(), stdout(&format), stderr(&format)),
            (
                Some(0),
                "0 of 0 files would be formatted.\n".into(),
                String::new()
            ),
            "{args:?}"
        );
    }
    // A named path under which the workspace indexes no file stays an error for both.
    for args in [
        &["check", "docs"][..],
        &["format", "--check", "docs"][..],
        &["check", "docs/readme.txt"][..],
        &["format", "docs/readme.txt"][..],
    ] {
        let out = sextant(dir.path(), args);
        let named = args.last().unwrap();
        assert_eq!(
            (out.status.code(), stderr(&out)),
            (
                Some(2),
                format!(
                    "sextant: error: {named}: no file the workspace indexes is there (see \
                     `sextant files`)\n"
                )
            ),
            "{args:?}"
        );
    }
}

/// The standard library's shape: `os` binds `path` to `posixpath` or `ntpath` by an import.
fn re_exporting_os(root: &Path) {
    write(
        root,
        "os.py",
        "import sys\nif 'posix' in sys.builtin_module_names:\n    import posixpath as path\n\
         else:\n    import ntpath as path\n",
    );
    write(root, "posixpath.py", "def join(a, *p):\n    return a\n");
    write(
        root,
        "ntpath.py",
        "def join(path, *paths):\n    return path\n",
    );
    write(root, "app.py", "import os\nos.path.join('a', 'b')\n");
}

#[test]
fn a_module_path_through_a_re_exporting_module_resolves() {
    let dir = tempfile::tempdir().unwrap();
    re_exporting_os(dir.path());
    let def = sextant(dir.path(), &["def", "os.path.join"]);
    assert_eq!(
        (def.status.code(), stdout(&def)),
        (
            Some(0),
            "posixpath.py:1:5                         function  join\n\
             ntpath.py:1:5                            function  join\n"
                .into()
        )
    );
    let refs = sextant(dir.path(), &["refs", "os.path.join"]);
    assert_eq!(
        (refs.status.code(), stdout(&refs)),
        (
            Some(0),
            "app.py:2:9                               call        os.path.join('a', 'b')\n\
             ntpath.py:1:5                            definition  def join(path, *paths):\n\
             posixpath.py:1:5                         definition  def join(a, *p):\n\
             3 references in 3 files searched\n"
                .into()
        )
    );
    // The direct module path is unchanged.
    let direct = sextant(dir.path(), &["def", "posixpath.join"]);
    assert_eq!(
        stdout(&direct),
        "posixpath.py:1:5                         function  join\n"
    );
}

#[test]
fn a_reference_search_reads_only_files_of_the_definitions_language() {
    // Rust and Go files spell `join` too; no Python name can be a use of them, nor theirs
    // of Python's, so they are not searched.
    let dir = tempfile::tempdir().unwrap();
    re_exporting_os(dir.path());
    write(
        dir.path(),
        "paths.rs",
        "pub fn join(a: &str) -> String { a.to_string() }\n",
    );
    write(dir.path(), "go.mod", "module example.com/p\n\ngo 1.22\n");
    write(
        dir.path(),
        "paths.go",
        "package p\n\nfunc join(a string) string { return a }\n",
    );
    let refs = sextant(dir.path(), &["refs", "posixpath.join"]);
    assert_eq!(
        (refs.status.code(), stdout(&refs)),
        (
            Some(0),
            "app.py:2:9                               call        os.path.join('a', 'b')\n\
             posixpath.py:1:5                         definition  def join(a, *p):\n\
             2 references in 3 files searched\n"
                .into()
        )
    );
}

#[test]
fn a_go_method_declaration_is_a_definition_beside_a_function_of_its_name() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "go.mod", "module example.com/geo\n\ngo 1.22\n");
    write(
        dir.path(),
        "geo.go",
        "package geo\n\ntype Rect struct{ W, H int }\n\nfunc (r *Rect) Grow(n int) {\n\tr.W += n\n}\n\n\
         func Grow(r *Rect, n int) {\n\tr.Grow(n)\n}\n",
    );
    let refs = sextant(dir.path(), &["refs", "Rect.Grow"]);
    assert_eq!(
        stdout(&refs),
        "geo.go:5:16                              definition  func (r *Rect) Grow(n int) {\n\
         geo.go:10:4                              call        r.Grow(n)\n\
         2 references in 1 files searched\n"
    );
    let uses = sextant(dir.path(), &["refs", "--no-definitions", "Rect.Grow"]);
    assert_eq!(
        stdout(&uses),
        "geo.go:10:4                              call        r.Grow(n)\n\
         1 references in 1 files searched\n"
    );
}

#[test]
fn a_syntax_error_the_parser_cannot_recover_from_is_placed_where_it_stopped() {
    // Valid Python (CPython's test_compile.py has this shape): a line inside brackets
    // dedented below its block, which the grammar's scanner reads as a dedent; the whole
    // file then becomes one error node starting at 1:1.
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "app.py",
        "import os\n\n\nclass T:\n    def test_weird(self):\n        def f():\n            (bar.\n\
         \x20       baz)\n            x = 1\n        for line in f():\n            self.check(line)\n\n\
         \x20   def test_other(self):\n        pass\n",
    );
    let out = sextant(dir.path(), &["check", "app.py"]);
    assert_eq!(
        (out.status.code(), stdout(&out)),
        (
            Some(1),
            "app.py:7:13: SX001 unexpected `(`; the parser could not recover from it to the end \
             of the file (if Python accepts the file, this is a limit of the parser)\n\
             Found 1 diagnostic in 1 of 1 file (SX001 1).\n"
                .into()
        )
    );
}

#[test]
fn lsp_refuses_a_root_that_is_not_a_directory_before_reading_stdin() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "file.py", "x = 1\n");
    let initialize =
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}"#;
    let missing = dir.path().join("nonexistent");
    for (root, why) in [
        (dir.path().join("file.py"), "not a directory".to_string()),
        (
            missing.clone(),
            "No such file or directory (os error 2)".to_string(),
        ),
    ] {
        for stdin in [Some(initialize), None] {
            let mut child = Command::new(env!("CARGO_BIN_EXE_sextant"))
                .args(["lsp", "--root"])
                .arg(&root)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            let mut input = child.stdin.take().unwrap();
            if let Some(message) = stdin {
                // A broken pipe is fine: the server may be gone already.
                let _ = write!(input, "Content-Length: {}\r\n\r\n{message}", message.len());
            }
            drop(input);
            let out = child.wait_with_output().unwrap();
            assert_eq!(
                (out.status.code(), stdout(&out), stderr(&out)),
                (
                    Some(2),
                    String::new(),
                    format!("sextant: error: {}: {why}\n", root.display())
                ),
                "{root:?} {stdin:?}"
            );
        }
    }
}

#[test]
fn skeleton_prints_files_with_bodies_elided_and_counts_its_tokens() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "svc/server.go",
        "package svc\n\n// Serve serves.\nfunc Serve(port int) error {\n\taddr := port + 1\n\treturn listen(addr)\n}\n",
    );
    write(
        root,
        "svc/client.js",
        "export class Client {\n  /** Sends. */\n  send(message) {\n    const frame = encode(message);\n    return this.socket.write(frame);\n  }\n}\n",
    );
    write(root, "notes.txt", "not code\n");
    let out = sextant(root, &["skeleton", "svc"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "==> svc/client.js <==\nexport class Client {\n  /** Sends. */\n  send(message) { /* …4-5 */ }\n}\n\
         \n==> svc/server.go <==\npackage svc\n\n// Serve serves.\nfunc Serve(port int) error { /* …5-6 */ }\n"
    );
    let counted = stderr(&out);
    let tokens: usize = counted
        .strip_suffix(" tokens (o200k_base)\n")
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{counted:?}"));
    let answer = json(&sextant(root, &["skeleton", "--json"]));
    assert_eq!(
        answer["tokens"], tokens,
        "the whole workspace is the same two files"
    );
    assert_eq!(answer["text"], stdout(&out));
    let elided: Vec<&Value> = answer["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| &f["elided"][0]["start_line"])
        .collect();
    assert_eq!(elided, [4, 5]);

    let cut = json(&sextant(
        root,
        &["skeleton", "--json", "--max-tokens", "50"],
    ));
    assert!(cut["tokens"].as_u64().unwrap() <= 50, "{cut}");
    assert_eq!(cut["next_offset"], 1, "{cut}");
    assert_eq!(cut["omitted"][0]["path"], "svc/server.go");
    let rest = sextant(root, &["skeleton", "--max-tokens", "50", "--offset", "1"]);
    assert!(
        stdout(&rest).starts_with("==> svc/server.go <==\n"),
        "{}",
        stdout(&rest)
    );

    let missing = sextant(root, &["skeleton", "svc/gone.go"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(
        stderr(&missing).contains("NOT_FOUND"),
        "{}",
        stderr(&missing)
    );
    let unindexed = sextant(root, &["skeleton", "notes.txt"]);
    assert_eq!(unindexed.status.code(), Some(2));
    let encoding = sextant(root, &["skeleton", "--encoding", "p50k_base"]);
    assert_eq!(encoding.status.code(), Some(2));
    assert!(
        stderr(&encoding).contains("cl100k_base"),
        "{}",
        stderr(&encoding)
    );
}

#[test]
fn skeleton_folds_rust_attributes_and_leaves_lint_attributes_out() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "src/pool.rs",
        "#[cfg(all(\n    feature = \"rt\",\n    target_os = \"linux\",\n))]\n#[allow(dead_code)]\npub fn spawn() {\n    run_the_pool();\n}\n",
    );
    let answer = json(&sextant(root, &["skeleton", "--json"]));
    assert_eq!(
        answer["text"],
        "==> src/pool.rs <==\n#[cfg(all( … ))]\npub fn spawn() { /* …7 */ }\n"
    );
    assert_eq!(
        answer["files"][0]["elided"],
        serde_json::json!([
            {"kind": "attribute", "start_line": 2, "end_line": 3},
            {"kind": "attribute", "start_line": 5, "end_line": 5},
            {"kind": "body", "start_line": 7, "end_line": 7},
        ])
    );
}

#[test]
fn search_prints_hits_like_rg_with_their_definitions_and_exit_codes() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "lib/calc.py",
        "# add(): see below\ndef add(a, b):\n    return a + b  # add(a, b)\n\n\ndef twice(a):\n    return add(a, a)\n",
    );
    write(
        root,
        "lib.py",
        "from lib.calc import add\nADD = add(1, 2)\n",
    );

    let found = sextant(root, &["search", "-F", "add(", "-C", "1"]);
    assert_eq!(found.status.code(), Some(0), "{}", stderr(&found));
    assert_eq!(
        stdout(&found),
        "lib/calc.py\n\
         1:# add(): see below\n\
         in function add, lines 2-3\n\
         2:def add(a, b):\n\
         3:    return a + b  # add(a, b)\n\
         4-\n\
         --\n\
         6-def twice(a):\n\
         in function twice, lines 6-7\n\
         7:    return add(a, a)\n\
         \n\
         lib.py\n\
         1-from lib.calc import add\n\
         in constant ADD, lines 2-2\n\
         2:ADD = add(1, 2)\n"
    );
    let tokens = stderr(&found);
    assert!(
        tokens.ends_with(" tokens (o200k_base)\n") && tokens.lines().count() == 1,
        "{tokens}"
    );

    // A regex by default (as rg), `-i`, a path, a glob and the regions of the syntax tree.
    let lines = |args: &[&str]| -> Vec<(String, u64)> {
        let mut all = vec!["search", "--json"];
        all.extend_from_slice(args);
        let out = json(&sextant(root, &all));
        out["files"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|f| {
                let path = f["path"].as_str().unwrap().to_string();
                f["lines"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|l| l.get("context").is_none())
                    .map(move |l| (path.clone(), l["line"].as_u64().unwrap()))
            })
            .collect()
    };
    let at = |path: &str, line| (path.to_string(), line);
    assert_eq!(
        lines(&[r"add\(\w, \w\)$"]),
        vec![at("lib/calc.py", 3), at("lib/calc.py", 7), at("lib.py", 2)]
    );
    assert_eq!(lines(&["-i", "^add"]), vec![at("lib.py", 2)]);
    assert_eq!(
        lines(&["add", "lib/calc.py", "--only", "comments"]),
        vec![at("lib/calc.py", 1), at("lib/calc.py", 3)]
    );
    assert_eq!(
        lines(&["add", "-g", "!calc.py", "--only", "code"]),
        vec![at("lib.py", 1), at("lib.py", 2)]
    );
    let page = json(&sextant(
        root,
        &["search", "--json", "add", "--limit", "2", "--offset", "1"],
    ));
    assert_eq!(page["matches"], 2);
    assert_eq!(page["next_offset"], 3);

    let none = sextant(root, &["search", "zebra"]);
    assert_eq!(none.status.code(), Some(1));
    assert_eq!(stdout(&none), "no matches\n");

    let bad = sextant(root, &["search", "add("]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        stderr(&bad).starts_with("sextant: error: INVALID_ARGUMENT: invalid regular expression"),
        "{}",
        stderr(&bad)
    );
    let outside = sextant(root, &["search", "add", "/"]);
    assert_eq!(outside.status.code(), Some(2));
}

fn shapes_workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "shapes.py",
        "class Shape:\n    def area(self):\n        return 0\n\n\nclass Polygon(Shape):\n    def area(self):\n        return 1\n",
    );
    write(
        root,
        "more.py",
        "from shapes import Polygon\n\n\nclass Square(Polygon):\n    def area(self):\n        return 4\n\n\nsq = Square()\nsq.area()\n",
    );
    write(root, "other.py", "class Polygon:\n    pass\n");
    dir
}

#[test]
fn implementations_lists_every_level_and_supertypes() {
    let dir = shapes_workspace();
    let root = dir.path();
    let down = sextant(root, &["implementations", "shapes.py:1:7"]);
    assert_eq!(down.status.code(), Some(0), "{}", stderr(&down));
    assert_eq!(
        stdout(&down),
        "shapes.py:1:7  class Shape\n  shapes.py:6:7  class Polygon  exact\n    more.py:4:7  class Square  exact\n"
    );
    let up = sextant(root, &["implementations", "Square.area", "--supertypes"]);
    assert_eq!(
        stdout(&up),
        "more.py:5:9  method area (in Square)\n  shapes.py:7:9  method area (in Polygon)  exact\n    shapes.py:2:9  method area (in Shape)  exact\n"
    );
    let answer = json(&sextant(
        root,
        &["implementations", "Shape", "--json", "-n", "1"],
    ));
    assert_eq!(answer["direction"], "implementations");
    assert_eq!(
        (answer["total"].as_u64(), answer["truncated"].as_bool()),
        (Some(2), Some(true))
    );
    assert_eq!(answer["items"][0]["name_span"]["start"]["line"], 6);
    let leaf = sextant(root, &["implementations", "Square"]);
    assert_eq!(
        (leaf.status.code(), stdout(&leaf)),
        (Some(1), "more.py:4:7  class Square\n".to_string())
    );
}

#[test]
fn implementations_errors_are_coded() {
    let dir = shapes_workspace();
    let root = dir.path();
    let ambiguous = sextant(root, &["implementations", "Polygon"]);
    assert_eq!(ambiguous.status.code(), Some(2));
    assert_eq!(
        stderr(&ambiguous),
        "sextant: error: AMBIGUOUS_SYMBOL: \"Polygon\" names 2 definitions; give a position or a qualified name\n  other.py:1:7  class Polygon\n  shapes.py:6:7  class Polygon\n"
    );
    let nothing = sextant(root, &["implementations", "more.py:9:1"]);
    assert_eq!(
        stderr(&nothing),
        "sextant: error: NOT_FOUND: more.py:9:1: no class, interface, trait, type or method there\n"
    );
    let bad = sextant(root, &["implementations", "more.py:9"]);
    assert!(
        stderr(&bad).starts_with("sextant: error: INVALID_TARGET: "),
        "{}",
        stderr(&bad)
    );
}

#[test]
fn refs_include_family_adds_overridden_and_overriding_methods() {
    let dir = shapes_workspace();
    let root = dir.path();
    let lines = |args: &[&str]| -> Vec<String> {
        json(&sextant(root, args))["references"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                format!(
                    "{}:{}",
                    r["path"].as_str().unwrap(),
                    r["span"]["start"]["line"]
                )
            })
            .collect()
    };
    assert_eq!(lines(&["refs", "Polygon.area", "--json"]), ["shapes.py:7"]);
    assert_eq!(
        lines(&["refs", "Polygon.area", "--include-family", "--json"]),
        ["more.py:5", "more.py:10", "shapes.py:2", "shapes.py:7"]
    );
}

#[test]
fn max_memory_warns_when_a_commands_peak_went_over_and_refuses_a_malformed_size() {
    let ws = workspace();
    let generous = sextant(ws.path(), &["files", "--max-memory", "64G"]);
    assert_eq!(generous.status.code(), Some(0));
    assert_eq!(stderr(&generous), "");
    let tight = sextant(ws.path(), &["files", "--max-memory", "1M"]);
    // The answer and exit code are the same; the warning says the limit was not kept.
    assert_eq!(tight.status.code(), Some(0));
    assert_eq!(stdout(&tight), stdout(&generous));
    let warning = stderr(&tight);
    assert!(
        warning.starts_with("sextant: warning: peak resident memory ")
            && warning.ends_with(" MiB went over --max-memory 1 MiB\n"),
        "{warning}"
    );
    let malformed = sextant(ws.path(), &["stats", "--max-memory", "lots"]);
    assert_eq!(malformed.status.code(), Some(2));
    assert!(
        stderr(&malformed).contains("`lots` is not a size (a number with K, M, G or T: `400M`)"),
        "{}",
        stderr(&malformed)
    );
}

#[test]
fn refs_and_renames_over_compressed_texts_answer_as_over_whole_ones() {
    // Under a memory limit the texts are kept compressed, and a reference search (or a
    // rename) keeps 64 name tables and reads the others in passing (`Resolver::in_passing`):
    // 150 users make it read 87 of them so, with the same answer as one that keeps them all.
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "lib.py", "def helper():\n    return 1\n");
    let filler = "# a line that makes the text long enough to be kept compressed\n".repeat(10);
    for i in 0..150 {
        let user = format!("from lib import helper\n\ndef f{i}():\n    return helper()\n{filler}");
        write(dir.path(), &format!("u{i:03}.py"), user);
    }
    let refs = |extra: &[&str]| {
        let args = [&["--no-cache", "refs", "helper", "--limit", "1000"], extra].concat();
        let out = sextant(dir.path(), &args);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        stdout(&out)
    };
    let whole = refs(&[]);
    let compressed = refs(&["--max-memory", "4G"]);
    assert_eq!(compressed, whole);
    let lines: Vec<&str> = whole.lines().collect();
    assert_eq!(lines.len(), 302);
    assert_eq!(lines[301], "301 references in 151 files searched");
    assert!(lines[0].starts_with("lib.py:1:5 "), "{}", lines[0]);
    assert!(lines[300].starts_with("u149.py:4:12 "), "{}", lines[300]);
    let stats = json(&sextant(
        dir.path(),
        &["--no-cache", "--max-memory", "4G", "stats", "--json"],
    ));
    let kept = stats["text_bytes_kept"].as_u64().unwrap();
    assert!(
        kept < 30_000,
        "the texts were kept compressed: {kept} bytes"
    );

    // A rename reads its files' names in passing the same way, with the same edits.
    let rename = |extra: &[&str]| {
        let args = [
            &["--no-cache", "rename", "lib.helper", "assist", "--diff"],
            extra,
        ]
        .concat();
        let out = sextant(dir.path(), &args);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        stdout(&out)
    };
    let whole = rename(&[]);
    assert_eq!(rename(&["--max-memory", "4G"]), whole);
    assert_eq!(whole.matches("\n+from lib import assist\n").count(), 150);
    assert_eq!(whole.matches("\n+    return assist()\n").count(), 150);
    assert!(whole.contains("\n+def assist():\n"), "{whole}");
}

/// Two manifest-less services with an `app` each: `services/a/app` a package, `services/b/app`
/// a plain directory; a root-level `common` package and a stray copy of it in `a`.
fn services_workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "common/__init__.py", "");
    write(root, "common/log.py", "def log(msg):\n    pass\n");
    write(
        root,
        "services/a/common/log.py",
        "def log(msg):\n    pass\n",
    );
    write(root, "services/a/app/__init__.py", "");
    write(
        root,
        "services/a/app/models.py",
        "class Invoice:\n    pass\n",
    );
    write(
        root,
        "services/a/app/main.py",
        "from app.models import Invoice\nfrom app.missing import Gone\nfrom common.log import log\nimport models\nimport nowhere\n\nprint(Invoice, Gone, log, models, nowhere)\n",
    );
    write(
        root,
        "services/b/app/models.py",
        "\nclass Order:\n    pass\n",
    );
    write(
        root,
        "services/b/app/main.py",
        "from app.models import Order\nimport models\n\nprint(Order, models.Order)\n",
    );
    dir
}

/// Two services whose `app` (a package in `billing`, a plain directory in `shipping`) is
/// found from the service's own directory: definitions, references and a rename of one
/// service's `Invoice` stay in that service.
#[test]
fn a_services_imports_navigate_and_rename_within_the_service() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let main = "from app.models import Invoice\nimport app.models\n\nx = Invoice()\ny = app.models.Invoice()\n";
    write(root, "services/billing/app/__init__.py", "");
    for service in ["billing", "shipping"] {
        write(
            root,
            &format!("services/{service}/app/models.py"),
            "class Invoice:\n    pass\n",
        );
        write(root, &format!("services/{service}/app/main.py"), main);
    }

    for service in ["billing", "shipping"] {
        let def = sextant(
            root,
            &["def", &format!("services/{service}/app/main.py:5:16")],
        );
        assert_eq!(def.status.code(), Some(0), "{}", stderr(&def));
        assert_eq!(
            fields(&def),
            [[
                format!("services/{service}/app/models.py:1:7").as_str(),
                "class",
                "Invoice"
            ]]
        );
    }
    let refs = sextant(
        root,
        &[
            "refs",
            "services/shipping/app/models.py:1:7",
            "--no-definitions",
        ],
    );
    assert_eq!(
        fields(&refs)
            .iter()
            .map(|row| row[0].as_str())
            .collect::<Vec<_>>(),
        [
            "services/shipping/app/main.py:1:24",
            "services/shipping/app/main.py:4:5",
            "services/shipping/app/main.py:5:16",
            "3"
        ]
    );

    let rename = sextant(
        root,
        &[
            "rename",
            "services/shipping/app/models.py:1:7",
            "Bill",
            "--write",
        ],
    );
    assert_eq!(rename.status.code(), Some(0), "{}", stderr(&rename));
    assert_eq!(
        support::read_file(root, "services/shipping/app/main.py"),
        "from app.models import Bill\nimport app.models\n\nx = Bill()\ny = app.models.Bill()\n"
    );
    assert_eq!(
        support::read_file(root, "services/shipping/app/models.py"),
        "class Bill:\n    pass\n"
    );
    assert_eq!(
        support::read_file(root, "services/billing/app/main.py"),
        main
    );
}

#[test]
fn absolute_imports_of_a_service_resolve_from_its_own_directories() {
    let dir = services_workspace();
    let rows = |file: &str| -> Vec<Vec<String>> {
        stdout(&sextant(dir.path(), &["imports", file]))
            .lines()
            .map(|l| l.split_whitespace().map(str::to_string).collect())
            .collect()
    };
    // `app` is each service's own; `common` stays the root's (a source root comes first);
    // `models` alone is not found from inside the package `a/app`, which Python never runs
    // from, but is from the plain directory `b/app`.
    assert_eq!(
        rows("services/a/app/main.py"),
        [
            vec![
                "1",
                "app.models:",
                "Invoice",
                "services/a/app/models.py:1:7"
            ],
            vec!["2", "app.missing:", "Gone", "unresolved"],
            vec!["3", "common.log:", "log", "common/log.py:1:5"],
            vec!["4", "models", "unresolved"],
            vec!["5", "nowhere", "unresolved"],
        ]
    );
    assert_eq!(
        rows("services/b/app/main.py"),
        [
            vec!["1", "app.models:", "Order", "services/b/app/models.py:2:7"],
            vec!["2", "models", "services/b/app/models.py"],
        ]
    );

    let def = sextant(dir.path(), &["def", "services/b/app/main.py:4:22"]);
    assert_eq!(
        stdout(&def).split_whitespace().collect::<Vec<_>>(),
        ["services/b/app/models.py:2:7", "class", "Order"]
    );
    let refs = sextant(
        dir.path(),
        &["refs", "services/a/app/models.py:1:7", "--no-definitions"],
    );
    let lines: Vec<String> = stdout(&refs).lines().map(str::to_string).collect();
    assert_eq!(
        lines
            .iter()
            .map(|l| l.split_whitespace().next().unwrap_or_default())
            .collect::<Vec<_>>(),
        [
            "services/a/app/main.py:1:24",
            "services/a/app/main.py:7:7",
            "2"
        ]
    );

    // The missing module of a package found that way is still reported; `nowhere`, which
    // names no workspace package, is not.
    let check = sextant(dir.path(), &["check", "--select", "SX003,SX004"]);
    assert_eq!(
        stdout(&check),
        "services/a/app/main.py:2:1: SX003 no module 'app.missing' in the workspace\n\
         Found 1 diagnostic in 1 of 8 files (SX003 1).\n"
    );
}
