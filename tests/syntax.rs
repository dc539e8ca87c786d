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
    lang::{Language, registry},
    semantic::symbols,
    syntax::{self, LineCol},
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
        cases: sextant::testing::fuzz_cases(),
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
