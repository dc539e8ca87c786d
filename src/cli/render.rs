//! Human and JSON rendering of `ide` answers.

use std::fmt::Write;

use serde::Serialize;

use crate::{
    ide::{
        self, Certainty, Definition, Direction, GraphQuery, ImportGraphView, ImportInfo, Outline,
        OutlineNode, ParseOutput, ProjectInfo, References, SymbolSearch, WorkspaceStats, registry,
    },
    workspace::{Host, typecheck},
};

/// [`check`], then with a deep check a line per checker run (in JSON, a `checkers` field).
pub fn check_with(
    result: &ide::CheckResult,
    checkers: Option<&[typecheck::CheckerRun]>,
    as_json: bool,
) -> String {
    let Some(checkers) = checkers else {
        return check(result, as_json);
    };
    if as_json {
        #[derive(Serialize)]
        struct Deep<'a> {
            #[serde(flatten)]
            result: &'a ide::CheckResult,
            checkers: &'a [typecheck::CheckerRun],
        }
        return json(&Deep { result, checkers });
    }
    let mut out = check(result, false);
    out.push_str(&self::checkers(checkers));
    out
}

/// `checker TOOL (project DIR): STATUS in N ms, N diagnostics[; detail]` per run.
pub fn checkers(checkers: &[typecheck::CheckerRun]) -> String {
    let mut out = String::new();
    for c in checkers {
        let _ = write!(
            out,
            "checker {} (project {}): {} in {} ms, {} diagnostic{}",
            c.tool,
            c.project,
            c.status.as_str(),
            c.duration_ms,
            c.diagnostics,
            plural(c.diagnostics)
        );
        if c.dropped > 0 {
            let _ = write!(out, ", {} outside the workspace dropped", c.dropped);
        }
        if let Some(detail) = &c.detail {
            let _ = write!(out, "; {}", detail.replace('\n', " "));
        }
        out.push('\n');
    }
    out
}

/// `path:line:column: CODE message` per diagnostic, then a summary line.
pub fn check(result: &ide::CheckResult, as_json: bool) -> String {
    if as_json {
        return json(result);
    }
    let mut out = String::new();
    for d in &result.diagnostics {
        let also = if d.also.is_empty() {
            String::new()
        } else {
            format!(" (also {})", d.also.join(", "))
        };
        // A checker's message may run over lines (tsc's elaborations, mypy's hints); the
        // text output keeps one line per diagnostic.
        let _ = writeln!(
            out,
            "{}:{}:{}: {}{also} {}",
            d.path,
            d.span.start.line,
            d.span.start.column,
            d.code,
            d.message.replace('\n', " / ")
        );
    }
    let summary = &result.summary;
    if summary.total == 0 {
        let _ = writeln!(
            out,
            "All checks passed ({} file{} checked).",
            summary.files_checked,
            plural(summary.files_checked)
        );
        return out;
    }
    let codes: Vec<String> = summary
        .by_code
        .iter()
        .map(|(code, n)| format!("{code} {n}"))
        .collect();
    let _ = writeln!(
        out,
        "Found {} diagnostic{} in {} of {} file{} ({}).",
        summary.total,
        plural(summary.total),
        summary.by_file.len(),
        summary.files_checked,
        plural(summary.files_checked),
        codes.join(", ")
    );
    if summary.truncated {
        let _ = writeln!(out, "(only the first {} listed)", result.diagnostics.len());
    }
    out
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// A code's explanation: title, category, severity, languages, what it means, an example
/// and its fix.
pub fn explain(code: &ide::DiagnosticCode, as_json: bool) -> String {
    if as_json {
        return json(&code_entry(code));
    }
    let mut out = format!("{} {} ({})\n\n", code.id, code.title, code.name);
    let _ = writeln!(out, "category: {}", code.category);
    let _ = writeln!(
        out,
        "default severity: {}{}",
        code.severity.as_str(),
        if code.enabled {
            ""
        } else {
            " (off unless selected)"
        }
    );
    let _ = writeln!(out, "languages: {}", code.languages.join(", "));
    let implemented = if code.implemented().is_empty() {
        "not yet checked (planned)".to_string()
    } else {
        code.implemented().join(", ")
    };
    let _ = writeln!(out, "checked today in: {implemented}");
    if let Some(rule) = &code.pyflakes {
        let _ = writeln!(out, "pyflakes/ruff: {rule}");
    }
    let _ = writeln!(out, "\n{}\n", code.description.trim());
    let _ = writeln!(out, "Example:\n\n{}\n", indent(&code.example));
    let _ = writeln!(out, "Fix:\n\n{}\n", indent(&code.fix));
    let _ = writeln!(out, "{}", code.help);
    out
}

fn indent(block: &str) -> String {
    block
        .trim_matches('\n')
        .lines()
        .map(|l| format!("    {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every code: id, name, severity, and where it is checked today.
pub fn codes(codes: &[ide::DiagnosticCode], as_json: bool) -> String {
    if as_json {
        return json(&codes.iter().map(code_entry).collect::<Vec<_>>());
    }
    let mut out = String::new();
    for code in codes {
        let implemented = if code.implemented().is_empty() {
            "planned".to_string()
        } else {
            code.implemented().join(", ")
        };
        let _ = writeln!(
            out,
            "{} {:<22} {:<11} {} [{}]",
            code.id,
            code.name,
            code.severity.as_str(),
            code.title,
            implemented
        );
    }
    out
}

/// A checker's code explained: which tool reports it, what the tool says it means, and
/// where the tool documents it.
pub fn explain_tool(code: &typecheck::ToolCode, as_json: bool) -> String {
    if as_json {
        return json(&serde_json::json!({
            "code": code.code,
            "tool": code.tool,
            "explanation": code.explanation,
            "note": code.note,
            "url": code.url,
        }));
    }
    let mut out = format!("{} (reported by {})\n\n", code.code, code.tool);
    if let Some(text) = code.explanation.as_ref().or(code.note.as_ref()) {
        let _ = writeln!(out, "{}\n", text.trim_end());
    }
    if let Some(url) = &code.url {
        let _ = writeln!(out, "Documentation: {url}");
    }
    out
}

/// A code as JSON: the MCP `explain_diagnostic` answer's fields plus the registry's facts.
#[derive(Serialize)]
struct CodeEntry<'a> {
    code: &'a str,
    name: &'a str,
    category: &'a str,
    title: &'a str,
    severity: &'a str,
    enabled: bool,
    languages: &'a [String],
    implemented: &'static [&'static str],
    description: &'a str,
    example: &'a str,
    fix: &'a str,
    help: &'a str,
}

fn code_entry(code: &ide::DiagnosticCode) -> CodeEntry<'_> {
    CodeEntry {
        code: &code.id,
        name: &code.name,
        category: &code.category,
        title: &code.title,
        severity: code.severity.as_str(),
        enabled: code.enabled,
        languages: &code.languages,
        implemented: code.implemented(),
        description: code.description.trim(),
        example: code.example.trim_matches('\n'),
        fix: code.fix.trim_matches('\n'),
        help: &code.help,
    }
}

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
            import_style: l.import_style(),
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

pub fn definitions(out: &[Definition], target: &str, as_json: bool) -> String {
    if as_json {
        return json(&out);
    }
    let mut s = String::new();
    if out.is_empty() {
        writeln!(s, "no definition found for {target:?}").unwrap();
    }
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
            /// How loading used the persistent cache; null when it is off.
            cache: Option<crate::workspace::cache::CacheStatus>,
        }
        return json(&Full {
            root: host.root.display().to_string(),
            stats,
            skipped: &host.skipped,
            projects,
            index_ms: host.index_time.as_secs_f64() * 1000.0,
            cache: host.cache_status(),
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
    match host.cache_status() {
        Some(cache) => writeln!(
            s,
            "cache: {} results from records, {} computed, {} faulty records ({})",
            cache.counts.used, cache.counts.computed, cache.counts.faults, cache.dir
        ),
        None => writeln!(s, "cache: off"),
    }
    .unwrap();
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

pub fn graph_json(view: &ImportGraphView) -> String {
    json(view)
}

/// With a start: an indented tree (each node expanded under its first listed parent, and
/// elsewhere named with `(see depth N)`), with the lines of the import statements in the importing file; else one
/// line per importing node. Then the cycles.
pub fn graph_text(view: &ImportGraphView, query: &GraphQuery) -> String {
    let mut s = String::new();
    let starts_at_file = query.file.is_some();
    if starts_at_file && !view.nodes.is_empty() {
        let reverse = query.direction == Direction::Dependents;
        // The neighbours of each node in the direction asked, with the edge's import lines.
        let mut next: Vec<Vec<(u32, &[u32])>> = vec![Vec::new(); view.nodes.len()];
        for e in &view.edges {
            let (from, to) = if reverse {
                (e.to, e.from)
            } else {
                (e.from, e.to)
            };
            next[from as usize].push((to, &e.lines));
        }
        let mut parent = vec![None; view.nodes.len()];
        for (node, list) in next.iter().enumerate() {
            for &(to, _) in list {
                let (d_from, d_to) = (view.nodes[node].depth, view.nodes[to as usize].depth);
                if parent[to as usize].is_none() && d_to == d_from.map(|d| d + 1) {
                    parent[to as usize] = Some(node);
                }
            }
        }
        let what = if reverse { "is imported by" } else { "imports" };
        writeln!(s, "{} {what}:", view.nodes[0].path).unwrap();
        let mut stack: Vec<(usize, usize, &[u32], bool)> = next[0]
            .iter()
            .rev()
            .map(|&(to, lines)| (to as usize, 1, lines, parent[to as usize] == Some(0)))
            .collect();
        while let Some((node, indent, lines, expand)) = stack.pop() {
            let n = &view.nodes[node];
            let external = if n.external { "external: " } else { "" };
            let mut line = format!("{:indent$}{external}{}", "", n.path, indent = indent * 2);
            match lines {
                [] => {}
                [one] => write!(line, "  line {one}").unwrap(),
                many => {
                    let many: Vec<String> = many.iter().map(u32::to_string).collect();
                    write!(line, "  lines {}", many.join(", ")).unwrap();
                }
            }
            if let (false, Some(depth)) = (expand, n.depth) {
                write!(line, "  (see depth {depth})").unwrap();
            }
            writeln!(s, "{line}").unwrap();
            if expand {
                for &(to, lines) in next[node].iter().rev() {
                    let own = parent[to as usize] == Some(node);
                    stack.push((to as usize, indent + 1, lines, own));
                }
            }
        }
    } else {
        let mut out: Vec<Vec<&str>> = vec![Vec::new(); view.nodes.len()];
        for e in &view.edges {
            out[e.from as usize].push(&view.nodes[e.to as usize].path);
        }
        for (node, targets) in view.nodes.iter().zip(&out) {
            if !targets.is_empty() {
                writeln!(s, "{} -> {}", node.path, targets.join(", ")).unwrap();
            }
        }
    }
    if view.truncated {
        writeln!(
            s,
            "... {} of {} nodes shown (--limit)",
            view.nodes.iter().filter(|n| !n.external).count(),
            view.node_total
        )
        .unwrap();
    }
    s.push('\n');
    s + &graph_cycles(view, starts_at_file)
}

/// The import cycles, one per line.
pub fn graph_cycles(view: &ImportGraphView, starts_at_file: bool) -> String {
    let mut s = String::new();
    let through = match (starts_at_file, view.nodes.first()) {
        (true, Some(start)) => format!(" through {}", start.path),
        _ => String::new(),
    };
    if view.cycles.is_empty() {
        writeln!(s, "no import cycles{through}").unwrap();
        return s;
    }
    let more = if view.cycles_truncated {
        " (some left out: --limit)"
    } else {
        ""
    };
    let count = view.cycles.len();
    let plural = if count == 1 { "" } else { "s" };
    writeln!(s, "{count} import cycle{plural}{through}{more}:").unwrap();
    for cycle in &view.cycles {
        writeln!(s, "  {}", cycle.join(", ")).unwrap();
    }
    if let Some(first) = view.shortest_cycle.first() {
        let chain = view.shortest_cycle.join(" -> ");
        writeln!(s, "shortest: {chain} -> {first}").unwrap();
    }
    s
}

/// Graphviz DOT: workspace nodes as boxes, external packages as dashed ellipses, the start
/// in bold, edges between members of a listed cycle in red.
pub fn graph_dot(view: &ImportGraphView) -> String {
    let quote = |text: &str| format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""));
    let mut s = String::from(
        "digraph imports {\n  rankdir=LR;\n  node [shape=box, fontname=\"monospace\"];\n",
    );
    for node in &view.nodes {
        let mut attrs = Vec::new();
        if node.external {
            attrs.push("shape=ellipse, style=dashed");
        } else if node.depth == Some(0) {
            attrs.push("style=bold");
        }
        let attrs = if attrs.is_empty() {
            String::new()
        } else {
            format!(" [{}]", attrs.join(", "))
        };
        writeln!(s, "  {}{attrs};", quote(&node.path)).unwrap();
    }
    let in_cycle = cycle_membership(view);
    for e in &view.edges {
        let (from, to) = (&view.nodes[e.from as usize], &view.nodes[e.to as usize]);
        let red = match (
            in_cycle.get(from.path.as_str()),
            in_cycle.get(to.path.as_str()),
        ) {
            (Some(a), Some(b)) if a == b && !from.external && !to.external => " [color=red]",
            _ => "",
        };
        writeln!(s, "  {} -> {}{red};", quote(&from.path), quote(&to.path)).unwrap();
    }
    s.push_str("}\n");
    s
}

/// A Mermaid flowchart (`graph LR`): node ids `n0`, `n1`, … with the paths as labels.
pub fn graph_mermaid(view: &ImportGraphView) -> String {
    let mut s = String::from("graph LR\n");
    for (i, node) in view.nodes.iter().enumerate() {
        let label = node.path.replace('"', "#quot;");
        if node.external {
            writeln!(s, "  n{i}([\"{label}\"])").unwrap();
        } else {
            writeln!(s, "  n{i}[\"{label}\"]").unwrap();
        }
    }
    for e in &view.edges {
        writeln!(s, "  n{} --> n{}", e.from, e.to).unwrap();
    }
    s
}

/// The index of the listed cycle each path belongs to.
fn cycle_membership(view: &ImportGraphView) -> std::collections::HashMap<&str, usize> {
    view.cycles
        .iter()
        .enumerate()
        .flat_map(|(i, cycle)| cycle.iter().map(move |p| (p.as_str(), i)))
        .collect()
}
