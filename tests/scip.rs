//! `sextant scip` as a user runs it: a Python, TypeScript and Rust workspace exported, the
//! index decoded with the scip crate's protobuf types, and its documents, occurrences
//! (ranges, roles, symbols) and symbol information compared exactly; bad paths and
//! outputs refused with their codes, nothing half-written.

mod support;

use std::path::Path;

use protobuf::Message as _;
use scip::types::{Document, Index, PositionEncoding, TextEncoding, symbol_information::Kind};
use support::{sextant, stderr, write_file};

fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let files = [
        (
            "py/pyproject.toml",
            "[project]\nname = \"shapes\"\nversion = \"1.2.0\"\n",
        ),
        ("py/pkg/__init__.py", ""),
        (
            "py/pkg/shapes.py",
            "class Shape:\n    \"\"\"A shape on the plane.\n\n    More text.\n    \"\"\"\n\n    \
             def area(self):\n        return 0\n\n\nclass Square(Shape):\n    def area(self):\n        \
             side = 2\n        return side * side\n",
        ),
        (
            "py/pkg/main.py",
            "from pkg.shapes import Square\n\n\ndef total(items):\n    \
             return sum(s.area() for s in items) + Square().area()\n",
        ),
        (
            "ts/package.json",
            "{\"name\": \"@demo/geo\", \"version\": \"0.3.1\"}\n",
        ),
        (
            "ts/src/point.ts",
            "// A point in the plane.\nexport interface Point { x: number }\n\n\
             export class Origin implements Point {\n  x = 0;\n}\n",
        ),
        (
            "ts/src/use.ts",
            "import { Origin } from \"./point\";\n\nexport function make(): Origin {\n  \
             const o = new Origin();\n  return o;\n}\n",
        ),
        (
            "rs/Cargo.toml",
            "[package]\nname = \"geo\"\nversion = \"0.9.0\"\nedition = \"2021\"\n",
        ),
        (
            "rs/src/lib.rs",
            "/// Something with an area.\npub trait Area {\n    fn area(&self) -> f64;\n}\n\n\
             pub struct Circle;\n\nimpl Area for Circle {\n    fn area(&self) -> f64 {\n        \
             3.0\n    }\n}\n",
        ),
    ];
    for (path, text) in files {
        write_file(dir.path(), path, text);
    }
    dir
}

fn export(root: &Path, args: &[&str]) -> Index {
    let out = sextant(
        root,
        &[&["scip", "--output", "out/index.scip"], args].concat(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let bytes = std::fs::read(root.join("out/index.scip")).unwrap();
    Index::parse_from_bytes(&bytes).unwrap()
}

/// One line per occurrence: `range roles symbol`.
fn occurrences(document: &Document) -> String {
    document
        .occurrences
        .iter()
        .map(|o| format!("{:?} {} {}\n", o.range, o.symbol_roles, o.symbol))
        .collect()
}

fn document<'a>(index: &'a Index, path: &str) -> &'a Document {
    index
        .documents
        .iter()
        .find(|d| d.relative_path == path)
        .unwrap_or_else(|| panic!("no document {path}"))
}

#[test]
fn a_workspace_exports_as_a_scip_index() {
    let dir = workspace();
    std::fs::create_dir(dir.path().join("out")).unwrap();
    let index = export(dir.path(), &[]);

    let metadata = index.metadata.as_ref().unwrap();
    let tool = metadata.tool_info.as_ref().unwrap();
    assert_eq!(tool.name, "sextant");
    assert_eq!(tool.version, env!("CARGO_PKG_VERSION"));
    let root = dir.path().canonicalize().unwrap();
    assert_eq!(metadata.project_root, format!("file://{}", root.display()));
    assert_eq!(
        metadata.text_document_encoding.enum_value(),
        Ok(TextEncoding::UTF8)
    );

    let paths: Vec<(&str, &str)> = index
        .documents
        .iter()
        .map(|d| (d.relative_path.as_str(), d.language.as_str()))
        .collect();
    assert_eq!(
        paths,
        [
            ("py/pkg/__init__.py", "Python"),
            ("py/pkg/main.py", "Python"),
            ("py/pkg/shapes.py", "Python"),
            ("rs/src/lib.rs", "Rust"),
            ("ts/src/point.ts", "TypeScript"),
            ("ts/src/use.ts", "TypeScript"),
        ]
    );
    for d in &index.documents {
        assert_eq!(
            d.position_encoding.enum_value(),
            Ok(PositionEncoding::UTF16CodeUnitOffsetFromLineStart)
        );
    }

    // Imports carry the Import role (2), definitions Definition (1), references none; the
    // member on a parameter of unknown type (`s.area()`) is a guess, so it is left out.
    let py = "scip-sextant python shapes 1.2.0";
    assert_eq!(
        occurrences(document(&index, "py/pkg/main.py")),
        format!(
            "[0, 0, 0] 1 {py} `pkg/main.py`/\n\
             [0, 5, 8] 2 {py} `pkg/__init__.py`/\n\
             [0, 9, 15] 2 {py} `pkg/shapes.py`/\n\
             [0, 23, 29] 2 {py} `pkg/shapes.py`/Square#\n\
             [3, 4, 9] 1 {py} `pkg/main.py`/total().\n\
             [3, 10, 15] 1 local 0\n\
             [4, 15, 16] 0 local 1\n\
             [4, 28, 29] 1 local 1\n\
             [4, 33, 38] 0 local 0\n\
             [4, 42, 48] 0 {py} `pkg/shapes.py`/Square#\n\
             [4, 51, 55] 0 {py} `pkg/shapes.py`/Square#area().\n"
        )
    );
    assert_eq!(
        occurrences(document(&index, "py/pkg/shapes.py")),
        format!(
            "[0, 0, 0] 1 {py} `pkg/shapes.py`/\n\
             [0, 6, 11] 1 {py} `pkg/shapes.py`/Shape#\n\
             [6, 8, 12] 1 {py} `pkg/shapes.py`/Shape#area().\n\
             [6, 13, 17] 1 local 0\n\
             [10, 6, 12] 1 {py} `pkg/shapes.py`/Square#\n\
             [10, 13, 18] 0 {py} `pkg/shapes.py`/Shape#\n\
             [11, 8, 12] 1 {py} `pkg/shapes.py`/Square#area().\n\
             [11, 13, 17] 1 local 1\n\
             [12, 8, 12] 1 local 2\n\
             [13, 15, 19] 0 local 2\n\
             [13, 22, 26] 0 local 2\n"
        )
    );
    let ts = "scip-sextant npm @demo/geo 0.3.1";
    assert_eq!(
        occurrences(document(&index, "ts/src/use.ts")),
        format!(
            "[0, 0, 0] 1 {ts} `src/use.ts`/\n\
             [0, 9, 15] 2 {ts} `src/point.ts`/Origin#\n\
             [0, 23, 32] 0 {ts} `src/point.ts`/\n\
             [2, 16, 20] 1 {ts} `src/use.ts`/make().\n\
             [2, 24, 30] 0 {ts} `src/point.ts`/Origin#\n\
             [3, 8, 9] 1 local 0\n\
             [3, 16, 22] 0 {ts} `src/point.ts`/Origin#\n\
             [4, 9, 10] 0 local 0\n"
        )
    );
    let rs = "scip-sextant cargo geo 0.9.0 `src/lib.rs`/";
    assert_eq!(
        occurrences(document(&index, "rs/src/lib.rs")),
        format!(
            "[1, 10, 14] 1 {rs}Area#\n\
             [2, 7, 11] 1 {rs}Area#area().\n\
             [2, 13, 17] 1 local 0\n\
             [5, 11, 17] 1 {rs}Circle#\n\
             [7, 5, 9] 0 {rs}Area#\n\
             [7, 14, 20] 0 {rs}Circle#\n\
             [8, 7, 11] 1 {rs}Circle#area().\n\
             [8, 13, 17] 1 local 1\n"
        )
    );

    // Symbol information: kind, name, the doc's first line, what it implements.
    let info = |path: &str, symbol: &str| {
        let found = document(&index, path)
            .symbols
            .iter()
            .find(|s| s.symbol == symbol)
            .unwrap_or_else(|| panic!("no information on {symbol}"));
        let relationships: Vec<(String, bool)> = found
            .relationships
            .iter()
            .map(|r| (r.symbol.clone(), r.is_implementation))
            .collect();
        (
            found.kind.enum_value().unwrap(),
            found.display_name.clone(),
            found.documentation.clone(),
            relationships,
        )
    };
    let shape = format!("{py} `pkg/shapes.py`/Shape#");
    assert_eq!(
        info("py/pkg/shapes.py", &shape),
        (
            Kind::Class,
            "Shape".into(),
            vec!["A shape on the plane.".to_string()],
            vec![]
        )
    );
    assert_eq!(
        info("py/pkg/shapes.py", &format!("{py} `pkg/shapes.py`/Square#")),
        (
            Kind::Class,
            "Square".into(),
            vec![],
            vec![(shape.clone(), true)]
        )
    );
    assert_eq!(
        info(
            "py/pkg/shapes.py",
            &format!("{py} `pkg/shapes.py`/Square#area().")
        ),
        (
            Kind::Method,
            "area".into(),
            vec![],
            vec![(format!("{shape}area()."), true)]
        )
    );
    assert_eq!(
        info("py/pkg/shapes.py", "local 2"),
        (Kind::Variable, "side".into(), vec![], vec![])
    );
    assert_eq!(
        info("rs/src/lib.rs", &format!("{rs}Area#")),
        (
            Kind::Trait,
            "Area".into(),
            vec!["Something with an area.".to_string()],
            vec![]
        )
    );
    assert_eq!(
        info("rs/src/lib.rs", &format!("{rs}Circle#")),
        (
            Kind::Struct,
            "Circle".into(),
            vec![],
            vec![(format!("{rs}Area#"), true)]
        )
    );
    assert_eq!(
        info("rs/src/lib.rs", &format!("{rs}Circle#area().")),
        (
            Kind::Method,
            "area".into(),
            vec![],
            vec![(format!("{rs}Area#area()."), true)]
        )
    );
    assert_eq!(
        info("ts/src/point.ts", &format!("{ts} `src/point.ts`/Origin#")),
        (
            Kind::Class,
            "Origin".into(),
            vec![],
            vec![(format!("{ts} `src/point.ts`/Point#"), true)]
        )
    );
    assert_eq!(
        info("ts/src/point.ts", &format!("{ts} `src/point.ts`/Point#")),
        (
            Kind::Interface,
            "Point".into(),
            vec!["A point in the plane.".to_string()],
            vec![]
        )
    );

    // Each Python and TypeScript file defines itself as a module where it starts; an
    // import's module string refers to that module.
    assert_eq!(
        info("ts/src/use.ts", &format!("{ts} `src/use.ts`/")),
        (Kind::Module, "use.ts".into(), vec![], vec![])
    );

    // Nothing but the index is left beside it (the temporary file was renamed over it).
    let left: Vec<String> = std::fs::read_dir(dir.path().join("out"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, ["index.scip"]);
}

#[test]
fn paths_select_documents_and_stdout_holds_the_same_bytes() {
    let dir = workspace();
    std::fs::create_dir(dir.path().join("out")).unwrap();
    let index = export(dir.path(), &["rs", "ts/src/use.ts"]);
    let paths: Vec<&str> = index
        .documents
        .iter()
        .map(|d| d.relative_path.as_str())
        .collect();
    assert_eq!(paths, ["rs/src/lib.rs", "ts/src/use.ts"]);

    let out = sextant(dir.path(), &["scip", "-o", "-", "rs", "ts/src/use.ts"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let mut from_stdout = Index::parse_from_bytes(&out.stdout).unwrap();
    let mut from_file = index;
    // The arguments differ (`-o -` against a file); everything else is the same.
    from_stdout
        .metadata
        .mut_or_insert_default()
        .tool_info
        .mut_or_insert_default()
        .arguments
        .clear();
    from_file
        .metadata
        .mut_or_insert_default()
        .tool_info
        .mut_or_insert_default()
        .arguments
        .clear();
    assert_eq!(from_stdout, from_file);
}

#[test]
fn bad_paths_and_outputs_are_refused_with_their_codes() {
    let dir = workspace();
    let outside = tempfile::tempdir().unwrap();

    let out = sextant(dir.path(), &["scip", outside.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).starts_with("sextant: error: PATH_OUTSIDE_WORKSPACE: "),
        "{}",
        stderr(&out)
    );
    assert!(!dir.path().join("index.scip").exists());

    let out = sextant(dir.path(), &["scip", "no/such/dir"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).starts_with("sextant: error: NOT_FOUND: "),
        "{}",
        stderr(&out)
    );

    let out = sextant(dir.path(), &["scip", "--output", "missing/index.scip"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        "sextant: error: WRITE_REFUSED: missing/index.scip: the directory missing does not exist\n"
    );

    let out = sextant(dir.path(), &["scip", "--output", "py"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        "sextant: error: WRITE_REFUSED: py: is a directory\n"
    );

    // The default output, in the current directory.
    let out = sextant(dir.path(), &["scip", "py"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let bytes = std::fs::read(dir.path().join("index.scip")).unwrap();
    assert_eq!(Index::parse_from_bytes(&bytes).unwrap().documents.len(), 3);
}

/// Documents are built and encoded on all cores, and the identifier index their types'
/// relationships read is built shard by shard on all cores: on one thread and on four the
/// index is the same bytes.
#[test]
fn an_export_on_one_thread_and_on_several_is_the_same_bytes() {
    let dir = workspace();
    // A chain of subclasses across files: each document resolves into the one before it,
    // and each class's relationship names its base in another document.
    for i in 1..40 {
        write_file(
            dir.path(),
            &format!("py/pkg/chain{i}.py"),
            format!(
                "from pkg.chain{prev} import Link{prev}\n\n\nclass Link{i}(Link{prev}):\n    \
                 def area(self):\n        return Link{prev}().area() + {i}\n",
                prev = i - 1
            ),
        );
    }
    write_file(
        dir.path(),
        "py/pkg/chain0.py",
        "class Link0:\n    def area(self):\n        return 0\n",
    );
    let export_on = |threads: &str| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_sextant"))
            .current_dir(dir.path())
            .env("RAYON_NUM_THREADS", threads)
            .args(["scip", "--output", "-"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        out.stdout
    };
    let sequential = export_on("1");
    let parallel = export_on("4");
    assert!(sequential == parallel, "the indexes differ");

    let index = Index::parse_from_bytes(&parallel).unwrap();
    assert_eq!(index.documents.len(), 46);
    let last = document(&index, "py/pkg/chain39.py");
    let link = last
        .symbols
        .iter()
        .find(|s| s.symbol == "scip-sextant python shapes 1.2.0 `pkg/chain39.py`/Link39#")
        .unwrap();
    let bases: Vec<&str> = link
        .relationships
        .iter()
        .map(|r| r.symbol.as_str())
        .collect();
    assert_eq!(
        bases,
        ["scip-sextant python shapes 1.2.0 `pkg/chain38.py`/Link38#"]
    );
}

/// With the persistent cache kept, an export records each file's documentation lines
/// (record kind 7, one per document) and the next export reads them instead of parsing
/// every Python file again for its docstrings: the same bytes. A damaged record is
/// reported and computed again, and an edited docstring is read anew, not from the record
/// of the text before.
#[test]
fn a_warm_export_reads_documentation_lines_from_their_records() {
    let dir = workspace();
    std::fs::create_dir(dir.path().join("out")).unwrap();
    let cache = tempfile::tempdir().unwrap();
    let cache_dir = cache.path().to_str().unwrap();
    let export_warm = || {
        let out = sextant(
            dir.path(),
            &[
                "--cache-dir",
                cache_dir,
                "scip",
                "--output",
                "out/index.scip",
            ],
        );
        assert!(out.status.success(), "{}", stderr(&out));
        let warnings: Vec<String> = stderr(&out)
            .lines()
            .filter(|l| l.contains("warning"))
            .map(String::from)
            .collect();
        (
            std::fs::read(dir.path().join("out/index.scip")).unwrap(),
            warnings,
        )
    };
    let (cold, warnings) = export_warm();
    assert_eq!(warnings, Vec::<String>::new());
    let records_file = {
        let roots: Vec<_> = std::fs::read_dir(cache.path()).unwrap().flatten().collect();
        assert_eq!(roots.len(), 1, "one directory per root");
        roots[0].path().join("records")
    };
    let doc_records = records_of_kind(&std::fs::read(&records_file).unwrap(), 7);
    assert_eq!(doc_records.len(), 6, "one per document");

    let (warm, warnings) = export_warm();
    assert!(warm == cold, "the warm index differs from the cold one");
    assert_eq!(warnings, Vec::<String>::new());

    // Every documentation record damaged: the export reads them, reports the damage once
    // and writes the same index.
    let mut bytes = std::fs::read(&records_file).unwrap();
    for (offset, len) in records_of_kind(&bytes, 7) {
        bytes[offset + len / 2] ^= 0x55;
    }
    std::fs::write(&records_file, bytes).unwrap();
    let (repaired, warnings) = export_warm();
    assert!(repaired == cold, "the index differs after damaged records");
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].contains("fails its checksum"), "{warnings:?}");

    write_file(
        dir.path(),
        "py/pkg/shapes.py",
        "class Shape:\n    \"\"\"A figure in space.\"\"\"\n",
    );
    let (edited, warnings) = export_warm();
    assert_eq!(warnings, Vec::<String>::new());
    let edited = Index::parse_from_bytes(&edited).unwrap();
    let shape = document(&edited, "py/pkg/shapes.py")
        .symbols
        .iter()
        .find(|s| s.symbol == "scip-sextant python shapes 1.2.0 `pkg/shapes.py`/Shape#")
        .unwrap();
    assert_eq!(shape.documentation, ["A figure in space."]);
    let uncached = export(dir.path(), &["--no-cache"]);
    assert!(
        edited.documents == uncached.documents,
        "the documents differ"
    );
}

/// `(offset, length)` of each record of `kind` in a records file, from the index its
/// footer locates (the format is documented in `src/db/records.rs`).
fn records_of_kind(file: &[u8], kind: u8) -> Vec<(usize, usize)> {
    const ENTRY: usize = 1 + 32 + 4 + 8 + 4 + 8;
    let footer = &file[file.len() - 20..];
    let index_at = u64::from_le_bytes(footer[..8].try_into().unwrap()) as usize;
    let count = u32::from_le_bytes(footer[8..12].try_into().unwrap()) as usize;
    (0..count)
        .map(|i| &file[index_at + i * ENTRY..index_at + (i + 1) * ENTRY])
        .filter(|entry| entry[0] == kind)
        .map(|entry| {
            let offset = u64::from_le_bytes(entry[37..45].try_into().unwrap()) as usize;
            let len = u32::from_le_bytes(entry[45..49].try_into().unwrap()) as usize;
            (offset, len)
        })
        .collect()
}

/// Each method's relationships read its class's supertypes, found once per document for
/// all its methods: every method names what it overrides, in whichever order they come.
#[test]
fn each_method_of_a_class_names_the_method_it_overrides() {
    let dir = workspace();
    write_file(
        dir.path(),
        "py/pkg/base.py",
        "class Base:\n    def a(self):\n        return 1\n\n    def b(self):\n        return 2\n",
    );
    write_file(
        dir.path(),
        "py/pkg/derived.py",
        "from pkg.base import Base\n\n\nclass Derived(Base):\n    def b(self):\n        \
         return 3\n\n    def c(self):\n        return 4\n\n    def a(self):\n        return 5\n",
    );
    std::fs::create_dir(dir.path().join("out")).unwrap();
    let index = export(dir.path(), &["py"]);
    let py = "scip-sextant python shapes 1.2.0";
    let relationships: Vec<(String, Vec<String>)> = document(&index, "py/pkg/derived.py")
        .symbols
        .iter()
        .map(|s| {
            let bases = s.relationships.iter().map(|r| r.symbol.clone()).collect();
            (s.symbol.clone(), bases)
        })
        .collect();
    let base = format!("{py} `pkg/base.py`/Base#");
    let derived = format!("{py} `pkg/derived.py`/Derived#");
    assert_eq!(
        relationships,
        [
            // Each method's `self`.
            ("local 0".to_string(), vec![]),
            ("local 1".to_string(), vec![]),
            ("local 2".to_string(), vec![]),
            (format!("{py} `pkg/derived.py`/"), vec![]),
            (derived.clone(), vec![base.clone()]),
            (format!("{derived}a()."), vec![format!("{base}a().")]),
            (format!("{derived}b()."), vec![format!("{base}b().")]),
            (format!("{derived}c()."), vec![]),
        ]
    );
}

#[test]
fn a_services_import_references_its_own_apps_definition() {
    let dir = tempfile::tempdir().unwrap();
    let main = "from app.models import Invoice\n\nInvoice()\n";
    for service in ["a", "b"] {
        let app = format!("services/{service}/app");
        write_file(
            dir.path(),
            &format!("{app}/models.py"),
            "class Invoice:\n    pass\n",
        );
        write_file(dir.path(), &format!("{app}/main.py"), main);
    }
    std::fs::create_dir(dir.path().join("out")).unwrap();
    let index = export(dir.path(), &[]);
    // `models` of `app.models` and `Invoice` (imports, role 2), then the call: b's, not a's.
    assert_eq!(
        occurrences(document(&index, "services/b/app/main.py")),
        "[0, 0, 0] 1 scip-sextant . . . `services/b/app/main.py`/\n\
         [0, 9, 15] 2 scip-sextant . . . `services/b/app/models.py`/\n\
         [0, 23, 30] 2 scip-sextant . . . `services/b/app/models.py`/Invoice#\n\
         [2, 0, 7] 0 scip-sextant . . . `services/b/app/models.py`/Invoice#\n"
    );
}
