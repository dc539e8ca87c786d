//! `sextant scip --shard-by` as a user runs it: a workspace of a Cargo crate, a Python
//! package and two npm packages (one nested under a directory with a loose file) split by
//! project and by top-level directory; each shard decoded with the scip crate's protobuf
//! types and held to the unsharded index, a symbol used across shards named alike in both,
//! the manifest read as a script would, and output directories that are not sextant's
//! refused with nothing touched.

mod support;

use std::path::Path;

use protobuf::Message as _;
use scip::types::{Document, Index};
use support::{sextant, stderr, write_file};

/// `(root, file, documents)` rows as [`manifest`] returns them.
fn owned(rows: &[(&str, &str, u64)]) -> Vec<(String, String, u64)> {
    let row = |(root, file, documents): &(&str, &str, u64)| {
        (root.to_string(), file.to_string(), *documents)
    };
    rows.iter().map(row).collect()
}

fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let files = [
        (
            "py/pyproject.toml",
            "[project]\nname = \"shapes\"\nversion = \"1.2.0\"\n",
        ),
        ("py/pkg/__init__.py", ""),
        ("py/pkg/shapes.py", "class Shape:\n    pass\n"),
        (
            "ts/package.json",
            "{\"name\": \"@demo/geo\", \"version\": \"0.3.1\"}\n",
        ),
        ("ts/src/point.ts", "export class Origin {\n  x = 0;\n}\n"),
        (
            "apps/web/package.json",
            "{\"name\": \"web\", \"version\": \"2.0.0\"}\n",
        ),
        (
            "apps/web/main.ts",
            "import { Origin } from \"../../ts/src/point\";\n\nexport const o = new Origin();\n",
        ),
        ("apps/tool.py", "def run():\n    return 1\n"),
        (
            "rs/Cargo.toml",
            "[package]\nname = \"geo\"\nversion = \"0.9.0\"\nedition = \"2021\"\n",
        ),
        ("rs/src/lib.rs", "pub struct Circle;\n"),
        (
            "build.py",
            "import os\n\n\ndef main():\n    return os.sep\n",
        ),
    ];
    for (path, text) in files {
        write_file(dir.path(), path, text);
    }
    dir
}

fn read_index(path: &Path) -> Index {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    Index::parse_from_bytes(&bytes).unwrap()
}

fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn paths(index: &Index) -> Vec<&str> {
    index
        .documents
        .iter()
        .map(|d| d.relative_path.as_str())
        .collect()
}

fn root_uri(dir: &Path, shard_root: &str) -> String {
    let root = dir.canonicalize().unwrap();
    match shard_root {
        "." => format!("file://{}", root.display()),
        sub => format!("file://{}/{sub}", root.display()),
    }
}

/// The manifest's shards as `(root, file, documents)`, each `project_root` checked.
fn manifest(dir: &Path, out: &str, shard_by: &str) -> Vec<(String, String, u64)> {
    let text = std::fs::read_to_string(dir.join(out).join("shards.json")).unwrap();
    let manifest: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(manifest["shard_by"], shard_by);
    manifest["shards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|shard| {
            let root = shard["root"].as_str().unwrap().to_string();
            assert_eq!(shard["project_root"], root_uri(dir, &root));
            let file = shard["file"].as_str().unwrap().to_string();
            let index = read_index(&dir.join(out).join(&file));
            assert_eq!(shard["documents"], index.documents.len());
            let occurrences: usize = index.documents.iter().map(|d| d.occurrences.len()).sum();
            assert_eq!(shard["occurrences"], occurrences);
            let bytes = std::fs::metadata(dir.join(out).join(&file)).unwrap().len();
            assert_eq!(shard["bytes"], bytes);
            (root, file, shard["documents"].as_u64().unwrap())
        })
        .collect()
}

fn shard(dir: &Path, out: &str, file: &str) -> Index {
    read_index(&dir.join(out).join(file))
}

/// Every document of the unsharded index is in exactly one shard, the same but for its
/// path, which is relative to the shard's root; the shard's metadata names that root.
fn assert_shards_hold_the_index(dir: &Path, out: &str, shards: &[(String, String, u64)]) {
    let whole = read_index(&dir.join("whole.scip"));
    let mut found: Vec<Document> = Vec::new();
    for (root, file, _) in shards {
        let index = shard(dir, out, file);
        let metadata = index.metadata.as_ref().unwrap();
        assert_eq!(metadata.project_root, root_uri(dir, root));
        assert_eq!(metadata.tool_info.name, "sextant");
        for mut document in index.documents {
            if root != "." {
                document.relative_path = format!("{root}/{}", document.relative_path);
            }
            found.push(document);
        }
    }
    found.sort_by(|a, b| a.relative_path.cmp(&b.relative_path));
    assert_eq!(found, whole.documents);
}

fn symbol_at(document: &Document, line: i32, column: i32) -> String {
    let found: Vec<&str> = document
        .occurrences
        .iter()
        .filter(|o| o.range[0] == line && o.range[1] == column)
        .map(|o| o.symbol.as_str())
        .collect();
    assert_eq!(found.len(), 1, "{line}:{column}: {found:?}");
    found[0].to_string()
}

fn document<'a>(index: &'a Index, path: &str) -> &'a Document {
    index
        .documents
        .iter()
        .find(|d| d.relative_path == path)
        .unwrap_or_else(|| panic!("no document {path} in {:?}", paths(index)))
}

#[test]
fn a_workspace_shards_by_project() {
    let dir = workspace();
    let out = sextant(dir.path(), &["scip", "-o", "whole.scip"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = sextant(dir.path(), &["scip", "--shard-by", "project", "-o", "out"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let summary = stderr(&out);
    assert!(
        summary.starts_with("sextant: 5 shards, 7 documents, "),
        "{summary}"
    );
    assert!(summary.ends_with(" bytes written to out\n"), "{summary}");

    let shards = manifest(dir.path(), "out", "project");
    let expected = [
        (".", "_root.scip", 2),
        ("apps/web", "apps%2Fweb.scip", 1),
        ("py", "py.scip", 2),
        ("rs", "rs.scip", 1),
        ("ts", "ts.scip", 1),
    ];
    assert_eq!(shards, owned(&expected));
    assert_eq!(
        listing(&dir.path().join("out")),
        [
            "_root.scip",
            "apps%2Fweb.scip",
            "py.scip",
            "rs.scip",
            "shards.json",
            "ts.scip"
        ]
    );
    // A file in no project (apps/tool.py) goes to the root's shard.
    assert_eq!(
        paths(&shard(dir.path(), "out", "_root.scip")),
        ["apps/tool.py", "build.py"]
    );
    assert_eq!(
        paths(&shard(dir.path(), "out", "apps%2Fweb.scip")),
        ["main.ts"]
    );
    assert_eq!(
        paths(&shard(dir.path(), "out", "py.scip")),
        ["pkg/__init__.py", "pkg/shapes.py"]
    );
    assert_shards_hold_the_index(dir.path(), "out", &shards);

    // `new Origin()` in the web shard names the class the geo shard defines, alike.
    let web = shard(dir.path(), "out", "apps%2Fweb.scip");
    let geo = shard(dir.path(), "out", "ts.scip");
    let used = symbol_at(document(&web, "main.ts"), 2, 21);
    let defined = symbol_at(document(&geo, "src/point.ts"), 0, 13);
    assert_eq!(
        used,
        "scip-sextant npm @demo/geo 0.3.1 `src/point.ts`/Origin#"
    );
    assert_eq!(used, defined);
    let definition = document(&geo, "src/point.ts")
        .occurrences
        .iter()
        .find(|o| o.symbol == defined && o.range[..2] == [0, 13])
        .unwrap();
    assert_eq!(definition.symbol_roles, 1);
}

#[test]
fn a_workspace_shards_by_directory_and_again_into_its_own_output() {
    let dir = workspace();
    let out = sextant(dir.path(), &["scip", "-o", "whole.scip"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = sextant(dir.path(), &["scip", "--shard-by", "project", "-o", "out"]);
    assert!(out.status.success(), "{}", stderr(&out));
    // The same directory again, split otherwise: the earlier shards this export does not
    // write (`apps%2Fweb.scip`) are removed, the others replaced.
    let out = sextant(
        dir.path(),
        &["--json", "scip", "--shard-by", "directory", "-o", "out"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["output"], "out");
    assert_eq!(json["shard_by"], "directory");
    assert_eq!(json["documents"], 7);
    assert_eq!(json["shards"].as_array().unwrap().len(), 5);

    let shards = manifest(dir.path(), "out", "directory");
    let expected = [
        (".", "_root.scip", 1),
        ("apps", "apps.scip", 2),
        ("py", "py.scip", 2),
        ("rs", "rs.scip", 1),
        ("ts", "ts.scip", 1),
    ];
    assert_eq!(shards, owned(&expected));
    assert_eq!(json["shards"], {
        let text = std::fs::read_to_string(dir.path().join("out/shards.json")).unwrap();
        serde_json::from_str::<serde_json::Value>(&text).unwrap()["shards"].clone()
    });
    assert_eq!(
        listing(&dir.path().join("out")),
        [
            "_root.scip",
            "apps.scip",
            "py.scip",
            "rs.scip",
            "shards.json",
            "ts.scip"
        ]
    );
    assert_eq!(
        paths(&shard(dir.path(), "out", "apps.scip")),
        ["tool.py", "web/main.ts"]
    );
    assert_eq!(paths(&shard(dir.path(), "out", "_root.scip")), ["build.py"]);
    assert_shards_hold_the_index(dir.path(), "out", &shards);
    let apps = shard(dir.path(), "out", "apps.scip");
    let geo = shard(dir.path(), "out", "ts.scip");
    assert_eq!(
        symbol_at(document(&apps, "web/main.ts"), 2, 21),
        symbol_at(document(&geo, "src/point.ts"), 0, 13)
    );

    // PATHS select the files sharded; a shard without selected files is not written.
    let out = sextant(
        dir.path(),
        &[
            "scip",
            "--shard-by",
            "directory",
            "-o",
            "part",
            "apps",
            "rs",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let shards = manifest(dir.path(), "part", "directory");
    assert_eq!(
        shards,
        [
            ("apps".to_string(), "apps.scip".to_string(), 2),
            ("rs".to_string(), "rs.scip".to_string(), 1)
        ]
    );
}

#[test]
fn outputs_that_are_not_sextants_shards_are_refused_untouched() {
    let dir = workspace();
    let run = |output: &str| sextant(dir.path(), &["scip", "--shard-by", "project", "-o", output]);
    let refused = |out: &std::process::Output, message: &str| {
        assert_eq!(out.status.code(), Some(2), "{}", stderr(out));
        assert_eq!(stderr(out), format!("sextant: error: {message}\n"));
    };

    write_file(dir.path(), "file.txt", "mine");
    refused(
        &run("file.txt"),
        "WRITE_REFUSED: file.txt: is not a directory",
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("file.txt")).unwrap(),
        "mine"
    );

    let foreign = "which is not a shard of an earlier export (shards go into a new directory \
                   or one sextant wrote them into)";
    write_file(dir.path(), "notes/todo.txt", "mine");
    refused(
        &run("notes"),
        &format!("WRITE_REFUSED: notes: holds todo.txt, {foreign}"),
    );
    assert_eq!(listing(&dir.path().join("notes")), ["todo.txt"]);

    // An index another tool wrote, or any bytes named `.scip`, are not sextant's.
    write_file(dir.path(), "other/index.scip", "not an index");
    refused(
        &run("other"),
        &format!("WRITE_REFUSED: other: holds index.scip, {foreign}"),
    );
    let another_tool = Index {
        metadata: protobuf::MessageField::some(scip::types::Metadata {
            tool_info: protobuf::MessageField::some(scip::types::ToolInfo {
                name: "scip-python".into(),
                ..Default::default()
            }),
            ..Default::default()
        }),
        ..Default::default()
    };
    write_file(
        dir.path(),
        "other/index.scip",
        another_tool.write_to_bytes().unwrap(),
    );
    refused(
        &run("other"),
        &format!("WRITE_REFUSED: other: holds index.scip, {foreign}"),
    );
    write_file(dir.path(), "mine/shards.json", "{\"shards\": 3}");
    refused(
        &run("mine"),
        &format!("WRITE_REFUSED: mine: holds shards.json, {foreign}"),
    );
    std::fs::create_dir_all(dir.path().join("nested/sub")).unwrap();
    refused(
        &run("nested"),
        &format!("WRITE_REFUSED: nested: holds sub, {foreign}"),
    );

    // An index sextant wrote may be replaced, and a directory sextant filled is its own.
    std::fs::create_dir(dir.path().join("own")).unwrap();
    let out = sextant(dir.path(), &["scip", "-o", "own/index.scip", "rs"]);
    assert!(out.status.success(), "{}", stderr(&out));
    // What an interrupted export leaves (its temporary files) is sextant's too.
    write_file(dir.path(), "own/.py.scip.x1Y2z3.tmp", "half an index");
    let out = run("own");
    assert!(out.status.success(), "{}", stderr(&out));
    // Neither is listed by a manifest, so both are kept.
    assert_eq!(
        listing(&dir.path().join("own")),
        [
            ".py.scip.x1Y2z3.tmp",
            "_root.scip",
            "apps%2Fweb.scip",
            "index.scip",
            "py.scip",
            "rs.scip",
            "shards.json",
            "ts.scip"
        ]
    );

    let out = sextant(dir.path(), &["scip", "--shard-by", "project", "-o", "-"]);
    refused(
        &out,
        "INVALID_ARGUMENT: --shard-by writes a directory of indexes, not standard output",
    );
    let out = sextant(
        dir.path(),
        &["scip", "--shard-by", "project", "-o", "new", "notes"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).starts_with("sextant: error: NOT_FOUND: "),
        "{}",
        stderr(&out)
    );
    assert!(!dir.path().join("new").exists());
    let out = sextant(dir.path(), &["scip", "--shard-by", "packages"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("invalid value 'packages' for '--shard-by <SPLIT>'"),
        "{}",
        stderr(&out)
    );
}
