//! The layout formatter on input/expected pairs (`tests/fixtures/format/<name>.in.<ext>` and
//! `<name>.out.<ext>`; `UPDATE_SNAPSHOTS=1` writes the expected files), every
//! `indents.scm` pattern exercised by them, and its two promises (idempotent, only
//! whitespace between tokens changes) over the fixtures and a small sample of real code.

use sextant::ide::Failure as _;
use std::{
    collections::{BTreeMap, BTreeSet},
    fs,
    path::{Path, PathBuf},
};

use sextant::{
    ide::{FormatError, FormatOptions, IndentStyle, Language, format_source, registry},
    lang::QueryKind,
    syntax,
};

fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/format")
}

/// `(input path, language)` of every fixture.
fn fixtures() -> Vec<(PathBuf, &'static Language)> {
    let mut found: Vec<(PathBuf, &'static Language)> = fs::read_dir(fixture_dir())
        .unwrap()
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.to_string_lossy().contains(".in."))
        .map(|path| {
            let lang = registry()
                .for_path(&path, None)
                .unwrap_or_else(|| panic!("{}: no language", path.display()));
            (path, lang)
        })
        .collect();
    found.sort_by(|a, b| a.0.cmp(&b.0));
    found
}

fn expected_path(input: &Path) -> PathBuf {
    let name = input
        .file_name()
        .unwrap()
        .to_string_lossy()
        .replace(".in.", ".out.");
    input.with_file_name(name)
}

/// Everything but whitespace, in order: what a layout formatter must not change.
fn without_whitespace(text: &str) -> String {
    text.chars().filter(|c| !c.is_whitespace()).collect()
}

/// The promises every successful format keeps, checked apart from the formatter's own
/// check.
fn assert_safe(label: &str, lang: &Language, input: &str, formatted: &str) {
    assert_eq!(
        without_whitespace(input),
        without_whitespace(formatted),
        "{label}: more than whitespace changed"
    );
    let again = format_source(lang, formatted, FormatOptions::default())
        .unwrap_or_else(|e| panic!("{label}: formatting the result failed: {e}"));
    assert_eq!(again, formatted, "{label}: not idempotent");
}

#[test]
fn fixtures_format_to_their_expected_text() {
    let update = std::env::var_os("UPDATE_SNAPSHOTS").is_some();
    let mut failures = Vec::new();
    for (input_path, lang) in fixtures() {
        let label = input_path
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let input = fs::read_to_string(&input_path).unwrap();
        let formatted = format_source(lang, &input, FormatOptions::default())
            .unwrap_or_else(|e| panic!("{label}: {e}"));
        assert_safe(&label, lang, &input, &formatted);
        let expected_path = expected_path(&input_path);
        if update {
            fs::write(&expected_path, &formatted).unwrap();
            continue;
        }
        let expected = fs::read_to_string(&expected_path)
            .unwrap_or_else(|_| panic!("{label}: no expected file (UPDATE_SNAPSHOTS=1)"));
        if formatted != expected {
            failures.push(format!(
                "{label}:\n{}",
                sextant::ide::unified_diff(&label, &expected, &formatted)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every pattern of every `indents.scm`, and every node kind it lists, matches in some
/// fixture of its language.
#[test]
fn every_indents_pattern_is_exercised_by_a_fixture() {
    let mut matched: BTreeMap<&str, (BTreeSet<usize>, BTreeSet<String>)> = BTreeMap::new();
    for (input_path, lang) in fixtures() {
        let text = fs::read_to_string(&input_path).unwrap();
        let tree = syntax::parse_tree_sitter(lang, &text, None, &|| false).unwrap();
        let seen = matched.entry(lang.id.as_str()).or_default();
        syntax::run_query(lang, QueryKind::Indents, &tree, &text, &|| false, |m| {
            seen.0.insert(m.pattern_index);
            for capture in m.captures() {
                seen.1.insert(capture.node.kind().to_string());
            }
        });
    }
    let mut missing = Vec::new();
    for lang in registry().all() {
        let Some(query) = lang.query(QueryKind::Indents) else {
            missing.push(format!("{}: no indents.scm", lang.id));
            continue;
        };
        // The language's own file: inherited patterns are exercised by their own language.
        let (_, _, source) = sextant::lang::embedded_query_files()
            .iter()
            .find(|(id, name, _)| *id == lang.id && *name == "indents")
            .unwrap();
        let (patterns, kinds) = matched.get(lang.id.as_str()).cloned().unwrap_or_default();
        if !source.contains("; inherits:") {
            for index in 0..query.pattern_count() {
                if !patterns.contains(&index) {
                    missing.push(format!("{}: pattern {index} never matched", lang.id));
                }
            }
        }
        // The kinds a pattern captures whole, one per line: `  (block)`, `(string) @verbatim`.
        for line in source.lines() {
            let line = line.trim();
            let line = line.split(" @").next().unwrap_or(line);
            let listed = line
                .strip_prefix('(')
                .and_then(|rest| rest.strip_suffix(')'))
                .filter(|kind| kind.chars().all(|c| c.is_ascii_lowercase() || c == '_'));
            if let Some(kind) = listed
                && !kinds.contains(kind)
            {
                missing.push(format!("{}: ({kind}) never captured", lang.id));
            }
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

/// Real code: some of sextant's own sources and a few files of Python's standard library.
#[test]
fn real_code_formats_safely_and_idempotently() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<PathBuf> = [
        "src/ide/edits.rs",
        "src/semantic/format.rs",
        "src/lang/mod.rs",
        "src/lsp/handlers.rs",
    ]
    .iter()
    .map(|p| root.join(p))
    .collect();
    let stdlib = std::process::Command::new("python3")
        .args([
            "-c",
            "import sysconfig;print(sysconfig.get_paths()['stdlib'])",
        ])
        .output()
        .ok()
        .map(|out| PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()));
    if let Some(stdlib) = stdlib.filter(|dir| dir.join("textwrap.py").exists()) {
        for name in [
            "textwrap.py",
            "json/decoder.py",
            "dataclasses.py",
            "argparse.py",
        ] {
            files.push(stdlib.join(name));
        }
    }
    for path in files {
        let label = path.display().to_string();
        let lang = registry().for_path(&path, None).unwrap();
        let text = fs::read_to_string(&path).unwrap();
        match format_source(lang, &text, FormatOptions::default()) {
            Ok(formatted) => assert_safe(&label, lang, &text, &formatted),
            Err(FormatError::SyntaxError { .. }) => {}
            Err(e) => panic!("{label}: {e}"),
        }
    }
}

#[test]
fn refusals_have_stable_codes_and_options_change_the_unit() {
    let python = registry().by_id("python").unwrap();
    let rust = registry().by_id("rust").unwrap();
    let error = format_source(python, "def f(:\n  pass\n", FormatOptions::default()).unwrap_err();
    assert_eq!(
        (error.code().as_str(), error.to_string()),
        (
            "FORMAT_SYNTAX_ERROR",
            "line 1 has a syntax error; a file with syntax errors is not formatted".to_string()
        )
    );
    let text = "fn f() {\nx();\n}\n";
    let two = FormatOptions {
        indent: IndentStyle::Spaces(2),
    };
    let tabs = FormatOptions {
        indent: IndentStyle::Tabs,
    };
    assert_eq!(
        format_source(rust, text, two).unwrap(),
        "fn f() {\n  x();\n}\n"
    );
    assert_eq!(
        format_source(rust, text, tabs).unwrap(),
        "fn f() {\n\tx();\n}\n"
    );
    assert_eq!(
        format_source(rust, "", FormatOptions::default()).unwrap(),
        ""
    );
    assert_eq!(
        format_source(rust, " \n\n", FormatOptions::default()).unwrap(),
        ""
    );
}
