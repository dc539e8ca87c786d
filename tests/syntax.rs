//! The syntax layer's invariants, through the public API:
//! lossless trees for any input, errors as data, no panics; and error messages as snapshots.
//! The `fuzz_*` tests check the same invariants, plus symbol positions, on generated input
//! (`SEXTANT_FUZZ_CASES` cases each, 256 by default).

mod support;

use std::fmt::Write;

use proptest::{
    collection::vec,
    prelude::*,
    sample::select,
    test_runner::{Config, TestRunner},
};
use sextant::{
    ide::ParseOptions,
    lang::{Language, QueryKind, registry},
    semantic::symbols,
    syntax::{self, LineCol},
    testing,
};
use support::{assert_snapshot, fixtures_dir, host, parse_fixture};

fn assert_lossless(lang: &Language, text: &str) {
    let parse = syntax::parse(lang, text);
    let tree_text = parse.syntax().text().to_string();
    assert!(
        tree_text == text,
        "{}: tree text differs from input {:?}",
        lang.id,
        text
    );
    for e in parse.errors.iter() {
        let (start, end) = (usize::from(e.range.start()), usize::from(e.range.end()));
        assert!(end <= text.len(), "error range past the end: {e:?}");
        assert!(
            text.is_char_boundary(start) && text.is_char_boundary(end),
            "error range inside a character: {e:?}"
        );
    }
}

/// xorshift: deterministic inputs without a dependency.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const PIECES: &[&str] = &[
    "fn ",
    "def ",
    "class ",
    "func ",
    "function ",
    "struct ",
    "impl ",
    "interface ",
    "type ",
    "let ",
    "const ",
    "var ",
    "import ",
    "from ",
    "package ",
    "return ",
    "if ",
    "else",
    "=>",
    "->",
    ":",
    ";",
    ",",
    ".",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "<",
    ">",
    "=",
    "+",
    "*",
    "&",
    "|",
    "!",
    "?",
    "@",
    "#",
    "\"",
    "'",
    "`",
    "\\",
    "/*",
    "*/",
    "//",
    "\n",
    "\n    ",
    "\t",
    " ",
    "x",
    "Foo",
    "bar_baz",
    "42",
    "0x1f",
    "1.5e3",
    "é",
    "漢字",
    "😀",
    "\u{200d}",
    "\r\n",
    "\u{feff}",
    "r#\"",
    "\"#",
    "${",
    "</a>",
    "<a>",
];

fn random_source(rng: &mut Rng) -> String {
    let mut bytes: Vec<u8> = Vec::new();
    for _ in 0..rng.below(200) {
        match rng.below(20) {
            // Invalid UTF-8 and control bytes, decoded lossily like a real file would be.
            0 => bytes.push([0xff, 0xc3, 0x80, 0xe2, 0x0b, 0x7f][rng.below(6)]),
            _ => bytes.extend_from_slice(PIECES[rng.below(PIECES.len())].as_bytes()),
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

#[test]
fn random_inputs_are_lossless_in_every_language() {
    let mut rng = Rng(0x5eed_1234_abcd_ef01);
    for _ in 0..300 {
        let text = random_source(&mut rng);
        for lang in registry().all() {
            assert_lossless(lang, &text);
        }
    }
}

#[test]
fn truncated_fixtures_are_lossless() {
    let mut sources = Vec::new();
    collect_fixture_texts(&fixtures_dir(), &mut sources);
    assert!(!sources.is_empty());
    for (path, text) in sources {
        let Some(lang) = registry().for_path(std::path::Path::new(&path), Some(text.as_bytes()))
        else {
            continue;
        };
        assert_lossless(lang, &text);
        let step = (text.len() / 40).max(1);
        let mut cut = 0;
        while cut < text.len() {
            if text.is_char_boundary(cut) {
                assert_lossless(lang, &text[..cut]);
                assert_lossless(lang, &text[cut..]);
                assert_walks_agree(lang, &text[..cut], &format!("{path} cut at {cut}"));
                assert_walks_agree(lang, &text[cut..], &format!("{path} from {cut}"));
            }
            cut += step;
        }
    }
}

#[test]
fn mixed_encodings_and_odd_bytes_are_lossless() {
    let cases: Vec<Vec<u8>> = vec![
        b"def f():\n    return '\xe9t\xe9'\n".to_vec(), // Latin-1 inside UTF-8 source
        b"\xef\xbb\xbffn main() {}\n".to_vec(),         // BOM
        b"fn main() {\r\n    let x = 1;\r\n}\r\n".to_vec(), // CRLF
        b"package main\n\x00\x01\x02 func f() {}".to_vec(), // control bytes
        vec![0xff; 100],
        Vec::new(),
        b"\n\n\n".to_vec(),
        "const s = '😀'; // 漢字\n".as_bytes().to_vec(),
    ];
    for bytes in cases {
        let text = String::from_utf8_lossy(&bytes);
        for lang in registry().all() {
            assert_lossless(lang, &text);
        }
    }
}

#[test]
fn deeply_nested_input_does_not_overflow_the_stack() {
    for lang in registry().all() {
        let depth = 20_000;
        let text = format!("x = {}1{}\n", "(".repeat(depth), ")".repeat(depth));
        assert_lossless(lang, &text);
        let unclosed = "[".repeat(depth);
        assert_lossless(lang, &unclosed);
        symbols::extract(lang, &text);
    }
}

#[test]
fn large_file_is_lossless() {
    let unit = "def f(a, b):\n    return a + b  # é\n\nclass C:\n    x: int = 1\n";
    let text = unit.repeat(20_000);
    assert_lossless(registry().by_id("python").unwrap(), &text);
}

/// `tests/fixtures/syntax/*.fixture`: each file's syntax errors, as `sextant parse` lists them.
#[test]
fn syntax_error_snapshots() {
    let dir = fixtures_dir().join("syntax");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    paths.retain(|p| p.extension().is_some_and(|e| e == "fixture"));
    paths.sort();
    assert!(!paths.is_empty());
    for path in paths {
        let files = parse_fixture(&std::fs::read_to_string(&path).unwrap());
        let host = host(&files);
        let mut actual = String::new();
        for f in &files {
            let file = host.file(&f.path).unwrap();
            let out = host
                .analysis()
                .parse_tree(
                    file,
                    ParseOptions {
                        max_nodes: 0,
                        ..Default::default()
                    },
                )
                .unwrap();
            writeln!(actual, "//- {}", f.path).unwrap();
            for e in &out.errors {
                let snippet = &f.text[e.span.byte_start as usize..e.span.byte_end as usize];
                let snippet: String = snippet.chars().take(30).collect();
                writeln!(actual, "{} {}: {:?}", e.span, e.message, snippet).unwrap();
            }
        }
        assert_snapshot(&path.with_extension("snap"), &actual);
    }
}

fn collect_fixture_texts(dir: &std::path::Path, out: &mut Vec<(String, String)>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect_fixture_texts(&path, out);
        } else if path.extension().is_some_and(|e| e == "fixture") {
            for f in parse_fixture(&std::fs::read_to_string(&path).unwrap()) {
                out.push((f.path, f.text));
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Fuzzing

fn fuzz_config() -> Config {
    Config {
        cases: testing::fuzz_cases(),
        failure_persistence: None,
        ..Config::default()
    }
}

/// Line and column of every char boundary, counted in one walk from the start.
fn reference_positions(text: &str) -> Vec<Option<LineCol>> {
    let mut at = vec![None; text.len() + 1];
    let (mut line, mut column) = (1, 1);
    for (offset, c) in text.char_indices().chain([(text.len(), '\0')]) {
        at[offset] = Some(LineCol { line, column });
        if c == '\n' {
            (line, column) = (line + 1, 1);
        } else {
            column += 1;
        }
    }
    at
}

/// Everything parsing and symbol extraction promise for any text: a lossless tree, error
/// ranges on char boundaries within the text, symbol ranges likewise, and symbol
/// positions equal to counting lines and characters from the start.
fn assert_invariants(lang: &Language, text: &str) {
    assert_lossless(lang, text);
    assert_walks_agree(lang, text, "fuzzed input");
    let extraction = symbols::extract(lang, text).symbols;
    assert_eq!(extraction.summaries.len(), extraction.positions.len());
    let reference = reference_positions(text);
    let position = |offset: usize, what: &str| {
        assert!(
            offset <= text.len(),
            "{}: {what} {offset} past the end",
            lang.id
        );
        reference[offset]
            .unwrap_or_else(|| panic!("{}: {what} {offset} inside a character", lang.id))
    };
    for (i, (summary, p)) in extraction
        .summaries
        .iter()
        .zip(extraction.positions.iter())
        .enumerate()
    {
        let what = format!("symbol {:?}", summary.name);
        assert!(p.range.start() <= p.range.end() && p.name_range.start() <= p.name_range.end());
        assert_eq!(
            p.start,
            position(p.range.start().into(), &what),
            "{what} start"
        );
        assert_eq!(p.end, position(p.range.end().into(), &what), "{what} end");
        let name_start = position(p.name_range.start().into(), &what);
        position(p.name_range.end().into(), &what);
        assert_eq!(p.name_start, name_start, "{what} name");
        assert!(summary.parent().is_none_or(|parent| (parent as usize) < i));
    }
}

/// Token-like pieces and stray bytes (invalid UTF-8 included), decoded lossily the way a
/// file is read.
fn source_bytes() -> impl Strategy<Value = Vec<u8>> {
    let chunk = prop_oneof![
        3 => select(PIECES).prop_map(|p| p.as_bytes().to_vec()),
        1 => any::<u8>().prop_map(|b| vec![b]),
    ];
    prop_oneof![
        vec(chunk, 0..120).prop_map(|chunks| chunks.concat()),
        vec(any::<u8>(), 0..300),
    ]
}

#[test]
fn fuzz_arbitrary_bytes_keep_the_invariants_in_every_language() {
    TestRunner::new(fuzz_config())
        .run(&source_bytes(), |bytes| {
            let text = String::from_utf8_lossy(&bytes);
            for lang in registry().all() {
                assert_invariants(lang, &text);
            }
            Ok(())
        })
        .unwrap();
}

/// One edit of a source's bytes; positions wrap around the text's length.
#[derive(Clone, Debug)]
enum Edit {
    Insert(usize, Vec<u8>),
    Delete(usize, usize),
    Replace(usize, u8),
}

impl Edit {
    fn apply(&self, bytes: &mut Vec<u8>) {
        let at = |i: usize| i % (bytes.len() + 1);
        match self {
            Edit::Insert(i, new) => {
                let i = at(*i);
                bytes.splice(i..i, new.iter().copied());
            }
            Edit::Delete(i, n) => {
                let i = at(*i);
                let end = (i + n).min(bytes.len());
                bytes.drain(i..end);
            }
            Edit::Replace(i, b) => {
                if !bytes.is_empty() {
                    let i = *i % bytes.len();
                    bytes[i] = *b;
                }
            }
        }
    }
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<usize>(), select(PIECES)).prop_map(|(i, p)| Edit::Insert(i, p.as_bytes().to_vec())),
        (any::<usize>(), vec(any::<u8>(), 1..6)).prop_map(|(i, b)| Edit::Insert(i, b)),
        (any::<usize>(), 1..80usize).prop_map(|(i, n)| Edit::Delete(i, n)),
        (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Edit::Replace(i, b)),
    ]
}

/// Real-looking source: the symbol fixtures, a few bytes inserted, deleted or replaced,
/// parsed in their own language and in one other.
#[test]
fn fuzz_mutated_fixtures_keep_the_invariants() {
    let mut sources = Vec::new();
    collect_fixture_texts(&fixtures_dir().join("symbols"), &mut sources);
    let sources: Vec<(&Language, String)> = sources
        .into_iter()
        .filter_map(|(path, text)| {
            let lang = registry().for_path(std::path::Path::new(&path), Some(text.as_bytes()))?;
            Some((lang, text))
        })
        .collect();
    assert!(sources.len() > 20);
    let langs: Vec<&Language> = registry().all().collect();
    let strategy = (0..sources.len(), 0..langs.len(), vec(edit(), 1..8));
    TestRunner::new(fuzz_config())
        .run(&strategy, |(source, other, edits)| {
            let (lang, text) = &sources[source];
            let mut bytes = text.as_bytes().to_vec();
            for e in &edits {
                e.apply(&mut bytes);
            }
            let text = String::from_utf8_lossy(&bytes);
            assert_invariants(lang, &text);
            assert_invariants(langs[other], &text);
            Ok(())
        })
        .unwrap();
}

// ---------------------------------------------------------------------------------------
// `run_query`'s walk, which enters only the nodes that can hold a pattern's start

/// A match as plain data: its pattern, and each capture's index, kind and bytes.
type MatchFacts = (usize, Vec<(u32, u16, usize, usize)>);

/// Each of `lang`'s queries over `text` finds the same matches, in the same order, whether
/// its walk enters every node or only those that can hold a pattern's start.
fn assert_walks_agree(lang: &Language, text: &str, what: &str) {
    let Some(tree) = syntax::parse_tree_sitter(lang, text, None, syntax::NEVER) else {
        return;
    };
    let facts = |m: &tree_sitter::QueryMatch| -> MatchFacts {
        let captures = m.captures().iter().map(|c| {
            let node = c.node;
            (c.index, node.kind_id(), node.start_byte(), node.end_byte())
        });
        (m.pattern_index, captures.collect())
    };
    for &kind in QueryKind::ALL.iter().chain([&QueryKind::PerFile]) {
        let mut everywhere = Vec::new();
        let ran_everywhere = syntax::run_query_entering_every_node(lang, kind, &tree, text, |m| {
            everywhere.push(facts(m))
        });
        let mut pruned = Vec::new();
        let ran_pruned = syntax::run_query(lang, kind, &tree, text, syntax::NEVER, |m| {
            pruned.push(facts(m))
        });
        assert_eq!(ran_pruned, ran_everywhere, "{} {kind:?}: {what}", lang.id);
        assert!(
            pruned == everywhere,
            "{} {kind:?}: {what}: {} matches pruned, {} everywhere",
            lang.id,
            pruned.len(),
            everywhere.len()
        );
    }
}

/// Files of the languages sextant knows under `dir`, by path.
fn collect_sources(dir: &std::path::Path, out: &mut Vec<(String, String)>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect_sources(&path, out);
        } else if registry().for_path(&path, None).is_some()
            && let Ok(text) = std::fs::read_to_string(&path)
        {
            out.push((path.display().to_string(), text));
        }
    }
}

#[test]
fn pruned_walk_finds_the_matches_of_a_walk_of_every_node() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut sources = Vec::new();
    for dir in ["src", "tests", "benches", "scripts", "vendor"] {
        collect_sources(&root.join(dir), &mut sources);
    }
    collect_fixture_texts(&fixtures_dir(), &mut sources);
    let mut per_language: std::collections::BTreeMap<&str, usize> = Default::default();
    for (path, text) in &sources {
        let Some(lang) = registry().for_path(std::path::Path::new(path), Some(text.as_bytes()))
        else {
            continue;
        };
        *per_language.entry(lang.id.as_str()).or_default() += 1;
        assert_walks_agree(lang, text, path);
    }
    for lang in registry().all() {
        let files = per_language.get(lang.id.as_str()).copied().unwrap_or(0);
        assert!(files >= 2, "{}: only {files} files", lang.id);
    }
}

#[test]
fn pruned_walk_skips_kinds_that_hold_no_pattern_start() {
    let kind_id = |lang: &Language, name: &str| {
        (0..lang.grammar.node_kind_count() as u16)
            .find(|&id| {
                lang.grammar.node_kind_is_named(id)
                    && lang.grammar.node_kind_for_id(id) == Some(name)
            })
            .unwrap()
    };
    let may_start_below = |lang: &str, name: &str| {
        let lang = registry().by_id(lang).unwrap();
        let roots = lang.query_roots(QueryKind::PerFile).unwrap();
        roots.may_start_below(kind_id(lang, name))
    };
    // No statement, so no definition or import, can sit inside a Python call; a function's
    // body can hold a class, and a class definition's an import.
    assert!(!may_start_below("python", "call"));
    assert!(!may_start_below("python", "string"));
    assert!(may_start_below("python", "block"));
    assert!(may_start_below("python", "class_definition"));
    // A Rust block can hold items; Go's patterns start at the top level only (a function,
    // a method, an import, or the file for the rest), so no Go block need be entered.
    assert!(may_start_below("rust", "block"));
    assert!(may_start_below("rust", "closure_expression"));
    assert!(!may_start_below("go", "block"));
    assert!(may_start_below("typescript", "arrow_function"));
    assert!(!may_start_below("rust", "string_literal"));
    assert!(!may_start_below("go", "interpreted_string_literal"));
    for lang in registry().all() {
        let roots = lang.query_roots(QueryKind::PerFile).unwrap();
        let skipped = (0..lang.grammar.node_kind_count() as u16)
            .filter(|&id| lang.grammar.node_kind_is_visible(id) && !roots.may_start_below(id))
            .count();
        assert!(skipped > 0, "{}: the walk enters every kind", lang.id);
        assert!(lang.kind_graph().is_some(), "{}", lang.id);
    }
}

#[test]
fn pruned_walk_enters_trees_with_errors() {
    // Statements where only expressions can be: error recovery puts them in ERROR nodes
    // or lifts them out; either way each definition and import is still found.
    let cases = [
        (
            "python",
            "f(\n    from a import b\n)\n",
            vec!["from a import b"],
        ),
        (
            "python",
            "x = [\n    def f(): pass\n]\n",
            vec!["def f(): pass"],
        ),
        (
            "python",
            "x = {\n  1: class C: pass\n}\n",
            vec!["class C: pass"],
        ),
        (
            "python",
            "print(\"a\" + (\nimport os\ndef h(): pass\n",
            vec!["import os", "def h(): pass"],
        ),
        (
            "go",
            "package p\n\nfunc a() {\n\tif x {\n\t\timport \"os\"\n\t}\n}\n",
            vec!["func a() {\n\tif x {\n\t\timport \"os\"\n\t}\n}"],
        ),
        (
            "rust",
            "static S: &str = \"a\" pub type Foo;\n",
            vec!["static S: &str = \"a\"", "pub type Foo"],
        ),
        (
            "rust",
            "macro_rules! m { pub type Foo; }\n",
            vec!["macro_rules! m {", "pub type Foo; }"],
        ),
    ];
    for (lang, text, definitions) in cases {
        let lang = registry().by_id(lang).unwrap();
        let tree = syntax::parse_tree_sitter(lang, text, None, syntax::NEVER).unwrap();
        assert!(tree.root_node().has_error(), "{text:?}");
        assert_walks_agree(lang, text, text);
        let mut found = Vec::new();
        syntax::run_query(lang, QueryKind::PerFile, &tree, text, syntax::NEVER, |m| {
            let outermost = m
                .captures()
                .iter()
                .map(|c| c.node)
                .max_by_key(|n| n.byte_range().len());
            found.extend(outermost.and_then(|n| n.utf8_text(text.as_bytes()).ok()));
        });
        assert_eq!(found, definitions, "{text:?}");
    }
}
