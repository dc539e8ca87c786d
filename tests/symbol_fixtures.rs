//! Data-driven symbol tests: every `tests/fixtures/symbols/<lang>/*.fixture` is indexed and
//! its outline compared with the `.snap` beside it; and every pattern of every `tags.scm`
//! must be exercised by at least one fixture of its language.

mod support;

use std::{collections::BTreeMap, fmt::Write};

use sextant::{
    ide::OutlineNode,
    lang::{QueryKind, registry},
    semantic::symbols,
};
use support::{assert_snapshot, fixtures_dir, host, parse_fixture};

/// One line per symbol: kind, name, `(in Container)` when the container is not simply the
/// enclosing outline node, name position, line range, signature.
fn render(nodes: &[OutlineNode], parent: Option<&str>, depth: usize, out: &mut String) {
    for n in nodes {
        let container = match (&n.container, parent) {
            (Some(c), Some(p)) if c == p => String::new(),
            (Some(c), _) => format!(" (in {c})"),
            (None, _) => String::new(),
        };
        writeln!(
            out,
            "{}{} {}{container} @{}:{} [{}-{}] {}",
            "  ".repeat(depth),
            n.kind,
            n.name,
            n.name_span.start.line,
            n.name_span.start.column,
            n.span.start.line,
            n.span.end.line,
            n.signature
        )
        .unwrap();
        let qualified = match &n.container {
            Some(c) => format!("{c}.{}", n.name),
            None => n.name.clone(),
        };
        render(&n.children, Some(&qualified), depth + 1, out);
    }
}

#[test]
fn symbol_fixtures_match_snapshots_and_cover_every_pattern() {
    let dir = fixtures_dir().join("symbols");
    // language id -> patterns used by its fixtures
    let mut used: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut fixtures: Vec<_> = walk(&dir)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "fixture"))
        .collect();
    fixtures.sort();
    assert!(!fixtures.is_empty(), "no fixtures under {}", dir.display());
    for path in fixtures {
        let files = parse_fixture(&std::fs::read_to_string(&path).unwrap());
        let host = host(&files);
        let mut actual = String::new();
        for f in &files {
            let file = host.file(&f.path).unwrap();
            let lang = host.analysis().file_language(file);
            let extraction = symbols::extract(lang, &f.text);
            used.entry(lang.id.clone())
                .or_default()
                .extend(extraction.patterns_used);
            let outline = host.analysis().outline(file, usize::MAX).unwrap();
            writeln!(actual, "//- {}", f.path).unwrap();
            render(&outline.symbols, None, 0, &mut actual);
        }
        let snap = path.with_extension("snap");
        if let Err(e) = std::panic::catch_unwind(|| assert_snapshot(&snap, &actual)) {
            failures.push(e.downcast_ref::<String>().cloned().unwrap_or_default());
        }
    }
    for lang in registry().all() {
        let Some(query) = lang.query(QueryKind::Tags) else {
            continue;
        };
        let source = lang.query_source(QueryKind::Tags).unwrap();
        let patterns = used.get(&lang.id).cloned().unwrap_or_default();
        for p in 0..query.pattern_count() {
            if !patterns.contains(&p) {
                // Lines of the composed query (inherited files appended, fragments
                // spliced), so the pattern's first line is shown too.
                let start = query.start_byte_for_pattern(p);
                let line = source[..start].lines().count() + 1;
                let head = source[start..].lines().next().unwrap_or_default();
                failures.push(format!(
                    "queries/{}/tags.scm: the pattern at line {line} of the composed query ({head:?}) is not exercised by any fixture in tests/fixtures/symbols/{}/",
                    lang.id, lang.id
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}
