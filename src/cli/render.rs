//! Human and JSON rendering of `ide` answers.

use std::fmt::Write;

use serde::Serialize;

use crate::{
    ide::{
        Certainty, Definition, ImportInfo, Outline, OutlineNode, ParseOutput, ProjectInfo,
        References, SymbolSearch, WorkspaceStats, registry,
    },
    workspace::Host,
};

fn json<T: Serialize>(value: &T) -> String {
    let mut out = serde_json::to_string(value).expect("answers serialize");
    out.push('\n');
    out
}

pub fn languages(as_json: bool) -> String {
    #[derive(Serialize)]
    struct Entry<'a> {
        id: &'a str,
        name: &'a str,
        extensions: &'a [String],
        shebangs: &'a [String],
        capabilities: Vec<&'static str>,
        /// The registry's syntax facts, for scripts and agents that edit code.
        line_comment: &'a [String],
        block_comment: &'a [(String, String)],
        identifier: String,
        indent_unit: &'a str,
        import_style: &'a str,
        keywords: &'a [String],
    }
    let entries: Vec<Entry> = registry()
        .all()
        .map(|l| Entry {
            id: &l.id,
            name: &l.name,
            extensions: &l.extensions,
            shebangs: &l.shebangs,
            capabilities: l.capabilities(),
            line_comment: &l.line_comment,
            block_comment: &l.block_comment,
            identifier: l.identifier_pattern(),
            indent_unit: &l.indent_unit,
            import_style: &l.import_style,
            keywords: &l.keywords,
        })
        .collect();
    if as_json {
        return json(&entries);
    }
    let mut out = format!(
        "{:<12} {:<12} {:<22} {}\n",
        "ID", "NAME", "EXTENSIONS", "CAPABILITIES"
    );
    for e in &entries {
        let exts: Vec<String> = e.extensions.iter().map(|x| format!(".{x}")).collect();
        writeln!(
            out,
            "{:<12} {:<12} {:<22} {}",
            e.id,
            e.name,
            exts.join(" "),
            e.capabilities.join(", ")
        )
        .unwrap();
    }
    out
}

pub fn parse(out: &ParseOutput, as_json: bool, errors_only: bool) -> String {
    if as_json {
        return json(out);
    }
    let mut s = String::new();
    if !errors_only {
        s.push_str(&out.tree);
        if out.truncated {
            writeln!(
                s,
                "… tree truncated after {} lines (see --max-nodes, --depth)",
                out.node_count
            )
            .unwrap();
        }
    }
    if out.lossy_utf8 {
        writeln!(
            s,
            "{}: warning: not valid UTF-8; invalid bytes were replaced for analysis",
            out.path
        )
        .unwrap();
    }
    for e in &out.errors {
        writeln!(
            s,
            "{}:{}:{}: error: {}",
            out.path, e.span.start.line, e.span.start.column, e.message
        )
        .unwrap();
    }
    if out.errors_truncated {
        writeln!(s, "… {} more errors", out.error_count - out.errors.len()).unwrap();
    }
    if errors_only && out.error_count == 0 {
        writeln!(s, "{}: no syntax errors", out.path).unwrap();
    }
    s
}

pub fn outline(out: &Outline, as_json: bool) -> String {
    if as_json {
        return json(out);
    }
    fn walk(s: &mut String, nodes: &[OutlineNode], depth: usize) {
        for n in nodes {
            let indent = "  ".repeat(depth);
            let (start, end) = (n.span.start.line, n.span.end.line);
            let lines = if start == end {
                format!("{start}")
            } else {
                format!("{start}-{end}")
            };
            let head = format!("{indent}{} {}", n.kind, n.name);
            writeln!(s, "{head:<48} {lines:<11} {}", n.signature).unwrap();
            walk(s, &n.children, depth + 1);
        }
    }
    let mut s = String::new();
    walk(&mut s, &out.symbols, 0);
    if out.symbols.is_empty() {
        writeln!(s, "{}: no symbols", out.path).unwrap();
    }
    s
}

/// `line  what  where`, one import per line.
pub fn imports(out: &[ImportInfo], as_json: bool) -> String {
    if as_json {
        return json(&out);
    }
    let mut s = String::new();
    for import in out {
        let (line, what) = (import.span.start.line, import.describe());
        writeln!(s, "{line:<6} {what:<40} {}", import.status).unwrap();
    }
    s
}

pub fn definitions(out: &[Definition], as_json: bool) -> String {
    if as_json {
        return json(&out);
    }
    let mut s = String::new();
    for d in out {
        let location = match (&d.path, &d.span) {
            (Some(path), Some(span)) => format!("{path}:{}:{}", span.start.line, span.start.column),
            _ => format!("({})", d.module.as_deref().unwrap_or("external")),
        };
        let guess = if d.certainty == Certainty::Heuristic {
            " (heuristic)"
        } else {
            ""
        };
        writeln!(s, "{location:<40} {:<9} {}{guess}", d.kind, d.name).unwrap();
    }
    s
}

pub fn references(out: &References, as_json: bool) -> String {
    if as_json {
        return json(out);
    }
    let mut s = String::new();
    for r in &out.references {
        let location = format!("{}:{}:{}", r.path, r.span.start.line, r.span.start.column);
        let role = serde_json::to_value(r.role).unwrap_or_default();
        let guess = if r.certainty == Certainty::Heuristic {
            "?"
        } else {
            ""
        };
        writeln!(
            s,
            "{location:<40} {:<11} {}",
            format!("{}{guess}", role.as_str().unwrap_or_default()),
            r.line_text
        )
        .unwrap();
    }
    let heuristic = out
        .references
        .iter()
        .filter(|r| r.certainty == Certainty::Heuristic)
        .count();
    write!(
        s,
        "{} references in {} files searched",
        out.total, out.files_searched
    )
    .unwrap();
    if heuristic > 0 {
        write!(s, " ({heuristic} heuristic, marked ?)").unwrap();
    }
    if out.truncated {
        write!(s, "; showing {} (raise --limit)", out.references.len()).unwrap();
    }
    s.push('\n');
    s
}

pub fn symbols(out: &SymbolSearch, as_json: bool) -> String {
    if as_json {
        return json(out);
    }
    let mut s = String::new();
    for m in &out.symbols {
        let qualified = match &m.container {
            Some(c) => format!("{c}.{}", m.name),
            None => m.name.clone(),
        };
        let location = format!(
            "{}:{}:{}",
            m.path, m.name_span.start.line, m.name_span.start.column
        );
        writeln!(
            s,
            "{location:<40} {:<9} {qualified:<32} {}",
            m.kind.as_str(),
            m.signature
        )
        .unwrap();
    }
    if out.symbols.is_empty() {
        writeln!(s, "no symbol matches {:?}", out.query).unwrap();
    } else if out.truncated {
        writeln!(
            s,
            "… {} of {} matches shown (see --limit)",
            out.symbols.len(),
            out.total
        )
        .unwrap();
    }
    s
}

pub fn stats(
    host: &Host,
    stats: &WorkspaceStats,
    projects: &[ProjectInfo],
    as_json: bool,
    list_skipped: bool,
) -> String {
    if as_json {
        #[derive(Serialize)]
        struct Full<'a> {
            root: String,
            #[serde(flatten)]
            stats: &'a WorkspaceStats,
            skipped: &'a [crate::workspace::SkippedFile],
            projects: &'a [ProjectInfo],
            index_ms: f64,
        }
        return json(&Full {
            root: host.root.display().to_string(),
            stats,
            skipped: &host.skipped,
            projects,
            index_ms: host.index_time.as_secs_f64() * 1000.0,
        });
    }
    let mut s = format!("root: {}\n", host.root.display());
    writeln!(
        s,
        "{:<12} {:>8} {:>12} {:>10} {:>9}",
        "LANGUAGE", "FILES", "BYTES", "LINES", "SYMBOLS"
    )
    .unwrap();
    for l in &stats.languages {
        writeln!(
            s,
            "{:<12} {:>8} {:>12} {:>10} {:>9}",
            l.language, l.files, l.bytes, l.lines, l.symbols
        )
        .unwrap();
        if l.lossy_files > 0 {
            writeln!(
                s,
                "{:<12} {} files not valid UTF-8 (invalid bytes replaced)",
                "", l.lossy_files
            )
            .unwrap();
        }
    }
    writeln!(
        s,
        "{:<12} {:>8} {:>12} {:>10} {:>9}",
        "total", stats.files, stats.bytes, stats.lines, stats.symbols
    )
    .unwrap();
    projects_table(&mut s, projects);
    if !host.skipped.is_empty() {
        let mut reasons: std::collections::BTreeMap<String, usize> = Default::default();
        for f in &host.skipped {
            *reasons
                .entry(
                    serde_json::to_value(&f.reason)
                        .unwrap()
                        .as_str()
                        .unwrap_or("")
                        .to_string(),
                )
                .or_default() += 1;
        }
        let summary: Vec<String> = reasons.iter().map(|(r, n)| format!("{n} {r}")).collect();
        writeln!(
            s,
            "skipped: {} files ({})",
            host.skipped.len(),
            summary.join(", ")
        )
        .unwrap();
        if list_skipped {
            for f in &host.skipped {
                let reason = serde_json::to_value(&f.reason).unwrap();
                writeln!(
                    s,
                    "  {}: {} ({})",
                    f.path,
                    reason.as_str().unwrap_or(""),
                    f.detail
                )
                .unwrap();
            }
        }
    }
    writeln!(s, "indexed in {:.2} s", host.index_time.as_secs_f64()).unwrap();
    s
}

/// One line per project (kind, name, root), and its error under it.
fn projects_table(s: &mut String, projects: &[ProjectInfo]) {
    if projects.is_empty() {
        return;
    }
    let width = projects
        .iter()
        .filter_map(|p| p.name.as_ref().map(|n| n.chars().count()))
        .max()
        .unwrap_or(0)
        .clamp(4, 48);
    writeln!(s, "{:<16} {:<width$} ROOT", "PROJECT", "NAME").unwrap();
    for p in projects {
        let name = p.name.as_deref().unwrap_or("-");
        writeln!(s, "{:<16} {:<width$} {}", p.kind.as_str(), name, p.root).unwrap();
        if let Some(error) = &p.error {
            writeln!(s, "{:<16} error in {}: {}", "", p.manifest, error).unwrap();
        }
    }
}

pub fn files(files: &[(String, String)], as_json: bool) -> String {
    if as_json {
        #[derive(Serialize)]
        struct Entry<'a> {
            path: &'a str,
            language: &'a str,
        }
        let entries: Vec<Entry> = files
            .iter()
            .map(|(p, l)| Entry {
                path: p,
                language: l,
            })
            .collect();
        return json(&entries);
    }
    let mut s = String::new();
    for (path, _) in files {
        s.push_str(path);
        s.push('\n');
    }
    s
}
