//! `impact` and `affected_tests`: what depends on a definition, a file or some lines of a
//! file, transitively and nearest first, with the tests among them marked. The walk is
//! `engine::impact`; which code is a test, `engine::test_code`. This module names the
//! seeds, ranks what the walk reaches, and writes the answer, cut to a budget.

use std::collections::BTreeSet;

use serde::Serialize;

use super::{
    Budget, SymbolEditError, SymbolEditTarget,
    edit_symbol::definition as named_definition,
    read::{Ambiguity, pieces::file_at},
};
use crate::{
    db::{Db, SourceFile, Workspace},
    engine::{
        impact::{NamedImporters, Reached, Seed, dependents, importers_by_name},
        reference_graph::{Node, ReferenceGraph},
        removed::RemovedUse,
        test_code::file_tests,
    },
    semantic::symbols::{SymbolKind, file_symbols},
};

/// How far a walk goes unless asked otherwise: far enough for any real chain of calls.
pub const DEFAULT_DEPTH: u32 = 20;
/// Entries in one answer unless asked otherwise.
pub const DEFAULT_LIMIT: usize = 200;
/// Seeds named in the text's first line (a whole file's are all its definitions).
const MAX_LISTED_SEEDS: usize = 5;

/// What an impact starts from.
#[derive(Clone, Debug)]
pub enum ImpactSeed {
    /// A definition, named or at a position (the innermost one there).
    Definition(SymbolEditTarget),
    /// A whole file, or every file under a directory (workspace-relative; `""` is the
    /// whole workspace).
    Path(String),
    /// Lines of a file (1-based, inclusive): the innermost definition around each line, or
    /// the file's top level for a line outside every definition.
    Lines { path: String, start: u32, end: u32 },
}

#[derive(Clone, Debug)]
pub struct ImpactQuery {
    pub seeds: Vec<ImpactSeed>,
    /// Steps from the seeds (0: the seeds alone).
    pub max_depth: u32,
    /// At most this many dependents listed (all are counted).
    pub limit: usize,
    /// List only the tests among the dependents.
    pub tests_only: bool,
    /// Follow exact uses only: no call matched by name on a receiver of unknown type.
    pub exact: bool,
    /// The text is cut to this budget, farthest entries first.
    pub budget: Option<Budget>,
}

/// A definition or a file's top level in an impact answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct ImpactEntry {
    /// A definition's name; a top level's path.
    pub name: String,
    /// `module` for a file's top level.
    pub kind: SymbolKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub container: Option<String>,
    pub path: String,
    /// Its lines (1-based); a top level's are the file's.
    pub line: u32,
    pub end_line: u32,
    /// Steps from a seed: 0 for a seed, 1 for its direct users.
    pub distance: u32,
    /// The entry one step nearer that it uses, as `kind name (path:line)`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uses: Option<String>,
    /// It imports that entry by name (or its file), rather than using it in code.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub imports: bool,
    /// Reached only through a call matched by name on a receiver of unknown type (`obj.m()`
    /// with `obj`'s type unknown): ranked after the exact ones at its distance.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub heuristic: bool,
    /// A test by its language's conventions.
    pub test: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Impact {
    /// What the walk started from.
    pub seeds: Vec<ImpactEntry>,
    /// What depends on them, nearest first (only the tests, when asked).
    pub dependents: Vec<ImpactEntry>,
    /// Dependents reached in all, listed or not.
    pub total: usize,
    /// Files holding a dependent, and tests among the dependents, in all.
    pub files: usize,
    pub tests: usize,
    /// Dependents reached only through calls matched by name, in all.
    pub heuristic: usize,
    /// Dependents were left out (`limit` or the budget).
    pub truncated: bool,
    #[serde(skip)]
    pub text: String,
    #[serde(skip)]
    pub tokens: Option<usize>,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ImpactError {
    #[error("{0}")]
    NotFound(String),
    #[error("`{}` names {} definitions; name one by `path` and `line`", .0.name, .0.candidates.len())]
    Ambiguous(Ambiguity),
    #[error("{0}")]
    InvalidLines(String),
    #[error("not even the seeds fit in {0} tokens")]
    OverBudget(usize),
}

impl super::Failure for ImpactError {
    fn code(&self) -> super::ErrorCode {
        match self {
            ImpactError::NotFound(_) => super::ErrorCode::NotFound,
            ImpactError::Ambiguous(_) => super::ErrorCode::AmbiguousSymbol,
            ImpactError::InvalidLines(_) => super::ErrorCode::InvalidArgument,
            ImpactError::OverBudget(_) => super::ErrorCode::TooLarge,
        }
    }
}

pub(crate) fn impact(
    db: &dyn Db,
    workspace: Workspace,
    query: &ImpactQuery,
) -> Result<Impact, ImpactError> {
    let mut seeds = Vec::new();
    for seed in &query.seeds {
        seeds.extend(engine_seeds(db, workspace, seed)?);
    }
    let mut answer = impact_of_seeds(db, workspace, &seeds, query);
    match &query.budget {
        None => answer.text = render(&answer, query.tests_only),
        Some(budget) => {
            let (listed, truncated) = (answer.dependents.len(), answer.truncated);
            let (kept, text) = budget
                .most_that_fit(listed, |n| {
                    render(&answer.first(n, n < listed || truncated), query.tests_only)
                })
                .ok_or(ImpactError::OverBudget(budget.max_tokens))?;
            answer = answer.first(kept, kept < listed || truncated);
            answer.tokens = Some(budget.encoding.count(&text));
            answer.text = text;
        }
    }
    Ok(answer)
}

/// The impact of `seeds` (the seeds in the engine's terms), ranked and limited as `query`
/// says, without its text.
pub(super) fn impact_of_seeds(
    db: &dyn Db,
    workspace: Workspace,
    seeds: &[Seed],
    query: &ImpactQuery,
) -> Impact {
    let importers = importers_by_name(db, workspace, seeds);
    impact_with(
        db,
        workspace,
        seeds,
        &importers,
        &Removals::default(),
        query,
    )
}

/// Definitions the workspace no longer has, as an impact starts from them: their users,
/// and how an entry names each (`function gone (geo.py:9, removed)`).
#[derive(Default)]
pub(super) struct Removals {
    pub uses: Vec<RemovedUse>,
    pub titles: Vec<String>,
}

/// As [`impact_of_seeds`], with the seeds' importers by name already found, and removed
/// definitions' users one step from the seeds.
pub(super) fn impact_with(
    db: &dyn Db,
    workspace: Workspace,
    seeds: &[Seed],
    importers: &NamedImporters,
    removals: &Removals,
    query: &ImpactQuery,
) -> Impact {
    let (reached, graph) = dependents(
        db,
        workspace,
        seeds,
        query.max_depth,
        importers,
        &removals.uses,
        query.exact,
    );
    let (seed_nodes, mut users): (Vec<&Reached>, Vec<&Reached>) =
        reached.iter().partition(|r| r.distance == 0);
    let files = users
        .iter()
        .map(|r| r.node.file)
        .collect::<BTreeSet<_>>()
        .len();
    let tests = users.iter().filter(|r| is_test(db, &graph, r.node)).count();
    let total = users.len();
    let heuristic = users.iter().filter(|r| r.heuristic).count();
    if query.tests_only {
        users.retain(|r| is_test(db, &graph, r.node));
    }
    // Within one distance: exact before guessed, then by path (the graph's files are in path order), then line. Only
    // the listed ones become entries: a walk can reach thousands.
    let line = |node: Node| {
        node.definition.map_or(0, |symbol| {
            file_symbols(db, graph.files[node.file as usize]).positions[symbol as usize]
                .start
                .line
        })
    };
    users.sort_by_cached_key(|r| (r.distance, r.heuristic, r.node.file, line(r.node)));
    let truncated = users.len() > query.limit;
    users.truncate(query.limit);
    let entry = |r: &&Reached| {
        let mut entry = entry(db, &graph, r);
        if let Some(removed) = r.removed {
            entry.uses = removals.titles.get(removed as usize).cloned();
        }
        entry
    };
    let dependents = users.iter().map(entry).collect();
    let seeds = seed_nodes.iter().map(entry).collect();
    Impact {
        seeds,
        dependents,
        total,
        files,
        tests,
        heuristic,
        truncated,
        text: String::new(),
        tokens: None,
    }
}

/// Whether the node is a test, by its language's conventions.
pub(super) fn is_test(db: &dyn Db, graph: &ReferenceGraph, node: Node) -> bool {
    let tests = file_tests(db, graph.files[node.file as usize]);
    match node.definition {
        None => tests.top_level,
        Some(symbol) => tests.definitions.binary_search(&symbol).is_ok(),
    }
}

impl Impact {
    fn first(&self, n: usize, truncated: bool) -> Impact {
        Impact {
            dependents: self.dependents[..n].to_vec(),
            truncated,
            ..self.clone()
        }
    }
}

/// What one seed stands for in the engine's terms.
fn engine_seeds(
    db: &dyn Db,
    workspace: Workspace,
    seed: &ImpactSeed,
) -> Result<Vec<Seed>, ImpactError> {
    let indexed = |path: &str| {
        file_at(db, workspace, path)
            .ok_or_else(|| ImpactError::NotFound(format!("{path} is not indexed")))
    };
    match seed {
        ImpactSeed::Definition(target) => {
            let (file, symbol) =
                named_definition(db, workspace, target).map_err(|error| match error {
                    SymbolEditError::Ambiguous(ambiguity) => ImpactError::Ambiguous(ambiguity),
                    other => ImpactError::NotFound(other.to_string()),
                })?;
            Ok(vec![Seed::Definition {
                file,
                symbol: Some(symbol as u32),
            }])
        }
        ImpactSeed::Path(path) => {
            let path = path.trim_end_matches('/');
            if let Some(file) = file_at(db, workspace, path) {
                return Ok(vec![Seed::File(file)]);
            }
            let under: Vec<Seed> = workspace
                .files(db)
                .iter()
                .filter(|f| {
                    path.is_empty()
                        || f.path(db)
                            .strip_prefix(path)
                            .is_some_and(|rest| rest.starts_with('/'))
                })
                .map(|&f| Seed::File(f))
                .collect();
            match under.is_empty() {
                true => Err(ImpactError::NotFound(format!(
                    "{path}: no file the workspace indexes is there"
                ))),
                false => Ok(under),
            }
        }
        ImpactSeed::Lines { path, start, end } => {
            let file = indexed(path)?;
            let lines = last_line(db, file);
            if *start == 0 || start > end || *start > lines {
                return Err(ImpactError::InvalidLines(format!(
                    "{path}:{start}-{end}: lines count from 1 and {path} has {lines}"
                )));
            }
            Ok(innermost_per_line(db, file, *start, (*end).min(lines)))
        }
    }
}

/// The innermost definition around each line of `start..=end` (1-based), or the top level
/// for a line outside every definition; each once, in line order.
fn innermost_per_line(db: &dyn Db, file: SourceFile, start: u32, end: u32) -> Vec<Seed> {
    let symbols = file_symbols(db, file);
    let mut seeds: Vec<Seed> = Vec::new();
    for line in start..=end {
        let symbol = symbols
            .positions
            .iter()
            .enumerate()
            .filter(|(_, p)| p.start.line <= line && line <= p.end.line)
            .min_by_key(|(_, p)| (p.end.line - p.start.line, p.range.len()))
            .map(|(i, _)| i as u32);
        let seed = Seed::Definition { file, symbol };
        if !seeds.contains(&seed) {
            seeds.push(seed);
        }
    }
    seeds
}

/// The number of the file's last line (1-based): a final line break ends the last line
/// rather than starting another.
fn last_line(db: &dyn Db, file: SourceFile) -> u32 {
    let lines = crate::semantic::line_index(db, file).line_count() as u32;
    match file.text(db).ends_with('\n') && lines > 1 {
        true => lines - 1,
        false => lines.max(1),
    }
}

fn entry(db: &dyn Db, graph: &ReferenceGraph, reached: &Reached) -> ImpactEntry {
    let described = describe(db, graph, reached.node);
    ImpactEntry {
        distance: reached.distance,
        imports: reached.imports,
        heuristic: reached.heuristic,
        uses: reached.via.map(|via| {
            let via = describe(db, graph, via);
            match via.kind {
                SymbolKind::Module if reached.imports => via.path,
                SymbolKind::Module => format!("top level of {}", via.path),
                _ => format!("{} ({}:{})", title(&via), via.path, via.line),
            }
        }),
        ..described
    }
}

/// A node as an entry, its distance and what it uses left to the caller.
fn describe(db: &dyn Db, graph: &ReferenceGraph, node: Node) -> ImpactEntry {
    let file = graph.files[node.file as usize];
    let path = file.path(db).clone();
    let tests = file_tests(db, file);
    let Some(symbol) = node.definition else {
        let lines = last_line(db, file);
        return ImpactEntry {
            name: path.clone(),
            kind: SymbolKind::Module,
            container: None,
            path,
            line: 1,
            end_line: lines,
            distance: 0,
            uses: None,
            imports: false,
            heuristic: false,
            test: tests.top_level,
        };
    };
    let symbols = file_symbols(db, file);
    let (summary, position) = (
        &symbols.summaries[symbol as usize],
        &symbols.positions[symbol as usize],
    );
    ImpactEntry {
        name: summary.name.to_string(),
        kind: summary.kind,
        container: summary.container.as_deref().map(str::to_owned),
        path,
        line: position.start.line,
        end_line: position.end.line,
        distance: 0,
        uses: None,
        imports: false,
        heuristic: false,
        test: tests.definitions.binary_search(&symbol).is_ok(),
    }
}

/// `kind Container.name`.
fn title(entry: &ImpactEntry) -> String {
    match &entry.container {
        Some(container) => format!("{} {container}.{}", entry.kind, entry.name),
        None => format!("{} {}", entry.kind, entry.name),
    }
}

/// `path:line kind name` or `path top level`, with `[test]` for a test.
pub(super) fn line_of(entry: &ImpactEntry) -> String {
    let what = match entry.kind {
        SymbolKind::Module => format!("{} top level", entry.path),
        _ => format!("{}:{} {}", entry.path, entry.line, title(entry)),
    };
    match entry.test {
        true => format!("{what} [test]"),
        false => what,
    }
}

/// The answer as text: the seeds, then the dependents by distance, each with what it uses.
fn render(impact: &Impact, tests_only: bool) -> String {
    let mut seeds: Vec<String> = impact
        .seeds
        .iter()
        .take(MAX_LISTED_SEEDS)
        .map(line_of)
        .collect();
    if impact.seeds.len() > MAX_LISTED_SEEDS {
        seeds.push(format!(
            "and {} more",
            impact.seeds.len() - MAX_LISTED_SEEDS
        ));
    }
    format!(
        "impact of {}\n{}",
        seeds.join(", "),
        render_dependents(impact, tests_only)
    )
}

pub(super) fn plural(n: usize, one: &str, many: &str) -> String {
    match n {
        1 => format!("1 {one}"),
        n => format!("{n} {many}"),
    }
}

/// The counts, then the dependents by distance, each with what it uses or imports.
pub(super) fn render_dependents(impact: &Impact, tests_only: bool) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let _ = write!(
        out,
        "{} in {}, {} among them",
        plural(impact.total, "dependent", "dependents"),
        plural(impact.files, "file", "files"),
        plural(impact.tests, "test", "tests")
    );
    match impact.heuristic {
        0 => out.push('\n'),
        n => {
            let _ = writeln!(out, ", {n} only by calls matched by name");
        }
    }
    let mut distance = 0;
    for entry in &impact.dependents {
        if entry.distance != distance {
            distance = entry.distance;
            let _ = writeln!(out, "{}:", plural(distance as usize, "step", "steps"));
        }
        match &entry.uses {
            Some(uses) => {
                let verb = if entry.imports { "imports" } else { "uses" };
                let guess = if entry.heuristic { " (by name)" } else { "" };
                let _ = writeln!(out, "  {} {verb} {uses}{guess}", line_of(entry));
            }
            None => {
                let _ = writeln!(out, "  {}", line_of(entry));
            }
        }
    }
    if impact.truncated {
        let (shown, of) = match tests_only {
            true => (impact.dependents.len(), impact.tests),
            false => (impact.dependents.len(), impact.total),
        };
        let _ = writeln!(out, "({shown} of {of} shown, nearest first)");
    } else if tests_only && impact.tests == 0 {
        out.push_str("no test reaches it\n");
    }
    out
}
