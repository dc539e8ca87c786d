//! Answers as compact text for inline snapshots: one line per item, positions as
//! `line:col` (1-based) unless the answer itself counts otherwise, source shown as short
//! quoted excerpts.
//!
//! Invariant: rendering only formats; it never drops or reorders what an answer holds.

use std::fmt::Write;

use sextant::{
    ide::{Fold, ImportInfo, Outline, OutlineNode, ParseOutput, SymbolSearch, WorkspaceStats},
    syntax::{LineIndex, SyntaxError, TextRange},
};

/// Longest excerpt shown whole; longer ones keep their two ends.
const EXCERPT_CHARS: usize = 48;

/// `text[range]` quoted with escapes, its middle cut when long.
pub fn excerpt(text: &str, range: TextRange) -> String {
    let slice = &text[range];
    let count = slice.chars().count();
    if count <= EXCERPT_CHARS {
        return format!("{slice:?}");
    }
    let head: String = slice.chars().take(EXCERPT_CHARS / 2).collect();
    let tail: String = slice.chars().skip(count - EXCERPT_CHARS / 2 + 8).collect();
    format!("{head:?}…{tail:?}")
}

/// `start..end [comment]: first line … last line`, lines as the answer counts them.
pub fn folds(text: &str, folds: &[Fold]) -> String {
    let lines: Vec<&str> = text.split('\n').collect();
    let line = |n: u32| {
        (n.checked_sub(1))
            .and_then(|i| lines.get(i as usize))
            .map_or("<no such line>", |l| l.trim())
    };
    let mut out = String::new();
    for f in folds {
        let comment = if f.is_comment { " comment" } else { "" };
        writeln!(
            out,
            "{}..{}{comment}: {} … {}",
            f.span.start.line,
            f.span.end.line,
            line(f.span.start.line),
            line(f.span.end.line)
        )
        .unwrap();
    }
    out
}

/// One selection chain, innermost first: `start..end "text"` per range, and a warning
/// on any range that does not contain the one before it.
pub fn selection_chain(text: &str, chain: &[TextRange]) -> String {
    let mut out = String::new();
    for (i, &r) in chain.iter().enumerate() {
        let grows = i == 0 || (r.contains_range(chain[i - 1]) && r != chain[i - 1]);
        let warning = if grows { "" } else { "  <- does not grow" };
        writeln!(
            out,
            "{}..{} {}{warning}",
            u32::from(r.start()),
            u32::from(r.end()),
            excerpt(text, r)
        )
        .unwrap();
    }
    out
}

/// `l:c-l:c message` per error.
pub fn syntax_errors(text: &str, errors: &[SyntaxError]) -> String {
    let index = LineIndex::new(text);
    let mut out = String::new();
    for e in errors {
        let start = index.line_col(e.range.start().into());
        let end = index.line_col(e.range.end().into());
        writeln!(
            out,
            "{}:{}-{}:{} {}",
            start.line, start.column, end.line, end.column, e.message
        )
        .unwrap();
    }
    out
}

/// An indented tree: `kind name l:c-l:c`, with `in C` where the container is not the
/// parent shown above, then a summary line.
pub fn outline(outline: &Outline) -> String {
    fn node(out: &mut String, n: &OutlineNode, depth: usize, parent: Option<String>) {
        let implied = parent.as_deref() == n.container.as_deref();
        let container = match &n.container {
            Some(c) if !implied => format!(" in {c}"),
            _ => String::new(),
        };
        writeln!(
            out,
            "{:indent$}{} {} {}:{}-{}:{}{container}",
            "",
            n.kind,
            n.name,
            n.span.start.line,
            n.span.start.column,
            n.span.end.line,
            n.span.end.column,
            indent = depth * 2
        )
        .unwrap();
        let qualified = match &n.container {
            Some(c) => format!("{c}.{}", n.name),
            None => n.name.clone(),
        };
        for child in &n.children {
            node(out, child, depth + 1, Some(qualified.clone()));
        }
    }
    let mut out = String::new();
    for n in &outline.symbols {
        node(&mut out, n, 0, None);
    }
    write!(
        out,
        "-- {} {}: {} symbols",
        outline.path, outline.language, outline.symbol_count
    )
    .unwrap();
    if let Some(next) = outline.next_offset {
        write!(out, ", truncated, next offset {next}").unwrap();
    }
    out.push('\n');
    out
}

/// `path:line:col kind name (match tier)` per hit, then the totals.
pub fn symbol_search(search: &SymbolSearch) -> String {
    let mut out = String::new();
    for s in &search.symbols {
        let container = s
            .container
            .as_deref()
            .map_or(String::new(), |c| format!(" in {c}"));
        writeln!(
            out,
            "{}:{}:{} {} {}{container} ({:?})",
            s.path, s.name_span.start.line, s.name_span.start.column, s.kind, s.name, s.tier
        )
        .unwrap();
    }
    let truncated = if search.truncated { ", truncated" } else { "" };
    writeln!(out, "-- {} in all{truncated}", search.total).unwrap();
    out
}

/// The tree as `parse_tree` prints it, then its error list and counts.
pub fn parse_tree(parse: &ParseOutput) -> String {
    let mut out = parse.tree.clone();
    for e in &parse.errors {
        writeln!(out, "error {} {}", e.span, e.message).unwrap();
    }
    writeln!(
        out,
        "-- {} {}: nodes {}{}, errors {}{}{}",
        parse.path,
        parse.language,
        parse.node_count,
        if parse.truncated { " (truncated)" } else { "" },
        parse.error_count,
        if parse.errors_truncated {
            " (list truncated)"
        } else {
            ""
        },
        if parse.lossy_utf8 {
            ", lossy UTF-8"
        } else {
            ""
        },
    )
    .unwrap();
    out
}

/// Totals, then one line per language.
pub fn workspace_stats(stats: &WorkspaceStats) -> String {
    let mut out = format!(
        "all: {} files, {} bytes, {} lines, {} symbols\n",
        stats.files, stats.bytes, stats.lines, stats.symbols
    );
    for l in &stats.languages {
        writeln!(
            out,
            "{}: {} files, {} bytes, {} lines, {} symbols, {} lossy",
            l.language, l.files, l.bytes, l.lines, l.symbols, l.lossy_files
        )
        .unwrap();
    }
    out
}

/// `line what -> where` per import: a path (with `:line:column` of the definition named),
/// `external (package)` or `unresolved`.
pub fn imports(imports: &[ImportInfo]) -> String {
    let mut out = String::new();
    for i in imports {
        writeln!(
            out,
            "{} {} -> {}",
            i.span.start.line,
            i.describe(),
            i.status
        )
        .unwrap();
    }
    out
}

/// One definition a line: `path:line:column kind name`, `(heuristic)` when guessed.
pub fn definitions(found: &[sextant::ide::Definition]) -> String {
    let mut out = String::new();
    for d in found {
        let at = match (&d.path, &d.span) {
            (Some(path), Some(span)) => format!("{path}:{}:{}", span.start.line, span.start.column),
            _ => format!("external {}", d.module.as_deref().unwrap_or_default()),
        };
        let guess = match d.certainty {
            sextant::ide::Certainty::Exact => "",
            sextant::ide::Certainty::Heuristic => " (heuristic)",
        };
        writeln!(out, "{at} {} {}{guess}", d.kind, d.name).unwrap();
    }
    out
}

/// One reference a line: `path:line:column role`, `?` when heuristic.
pub fn references(found: &sextant::ide::References) -> String {
    let mut out = String::new();
    for r in &found.references {
        let role = serde_json::to_value(r.role).unwrap();
        let guess = match r.certainty {
            sextant::ide::Certainty::Exact => "",
            sextant::ide::Certainty::Heuristic => "?",
        };
        writeln!(
            out,
            "{}:{}:{} {}{guess}",
            r.path,
            r.span.start.line,
            r.span.start.column,
            role.as_str().unwrap()
        )
        .unwrap();
    }
    out
}
