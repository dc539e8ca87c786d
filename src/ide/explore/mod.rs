//! `explore`: one answer to a question about the code, from the identifiers (or
//! definitions' names, or paths) the question names, under one token budget: the named
//! definitions' source, verbatim and grouped by file; the call paths between them; and
//! what depends on them (the blast radius), nearest first, tests marked.
//!
//! Terms naming no file or definition as they are make one question in words, which
//! `words` reads into definitions' names (the answer says which words led to which name
//! and which were dropped); those names then go in as named terms, after the given ones.
//!
//! A name of several definitions brings its most-used ones (PageRank over the reference
//! graph, `engine::rank`), at most [`MAX_PER_TERM`], and says how many it left; a path
//! brings the file's skeleton. Sections go in by priority while the text fits: the
//! definitions in the order their terms were given (each whole, else its signature line),
//! then the call paths, then the dependents.
//!
//! While the first index runs, an exploration may answer from the files the symbol index
//! holds so far ([`NameScope::FirstShards`]), once every term is a file or a name those
//! files define: the definitions are theirs, in path order (ranks read every file), and
//! the call paths and dependents, which read every file too, are not searched and the
//! answer says so ([`ExploreAnswer::not_searched`]) rather than showing none. Terms that
//! name files alone make the whole answer then (skeletons only).
//!
//! Invariant: `tokens` is the exact count of `text`, never over the budget.

mod words;

use std::{collections::HashMap, fmt::Write};

use serde::Serialize;

use super::{
    Budget, Encoding,
    impact::{ImpactQuery, impact_of_seeds, line_of, plural},
    read::{
        fence_for,
        pieces::{definition_sites, definition_sites_in, file_at},
    },
};
use crate::{
    db::{Db, SourceFile, Workspace},
    engine::{
        calls::{self, Callable},
        extent::definition_extent,
        impact::Seed,
        rank::definition_ranks,
        reference_graph::{Node, reference_graph},
        search::{Certainty, NameScope},
        skeleton::file_skeleton,
        tokens::file_tokens,
    },
    semantic::{
        self,
        index::SHARD_FILES,
        names::resolve::Resolver,
        symbols::{SymbolKind, file_symbols},
    },
};

/// Definitions one name brings at most (its most-used ones).
pub const MAX_PER_TERM: usize = 3;
/// How deep a call path between two named definitions is looked for.
const MAX_PATH_STEPS: u32 = 4;
/// Definitions a path search visits at most, per start.
const MAX_PATH_NODES: usize = 300;
/// How far the blast radius goes.
const DEPENDENT_DEPTH: u32 = 2;
/// Dependents listed at most.
const MAX_DEPENDENTS: usize = 100;

#[derive(Clone, Debug)]
pub struct ExploreQuery {
    pub terms: Vec<String>,
    pub budget: Budget,
}

/// How a named definition went into the answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Shown {
    /// Its whole source.
    Full,
    /// Its signature line only: the whole did not fit.
    Signature,
    /// Left out: not even its signature fit.
    Omitted,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct ExploredDefinition {
    /// The term that named it.
    pub term: String,
    pub name: String,
    pub kind: SymbolKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub container: Option<String>,
    pub path: String,
    /// In an answer merged from several workspaces: the one holding `path`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub root: Option<String>,
    pub line: u32,
    pub end_line: u32,
    pub shown: Shown,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct ExploreAnswer {
    /// The answer for a model: what `tokens` counts.
    #[serde(skip)]
    pub text: String,
    /// The exact tokens of `text`, and what it would cost to read the files whole instead:
    /// the files holding the named definitions and the listed dependents.
    pub tokens: usize,
    pub files_tokens: usize,
    pub encoding: Encoding,
    pub max_tokens: usize,
    pub definitions: Vec<ExploredDefinition>,
    /// Files named by a term, shown as skeletons.
    pub files: Vec<ExploredFile>,
    /// Call paths between named definitions, each as `kind name (path:line)` steps.
    pub call_paths: Vec<Vec<String>>,
    /// Dependents listed, and reached in all.
    pub dependents_shown: usize,
    pub dependents: usize,
    /// Terms that named nothing; terms that named more definitions than were brought.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_found: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub more_named: Vec<MoreNamed>,
    /// How the words of a question (the terms naming no file or definition as they are)
    /// were read: the definitions' names they led to, most specific first, and the words
    /// that led to none (common English words, or no name has them).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub words_used: Vec<WordsUsed>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub words_dropped: Vec<String>,
    /// Something was cut for the budget.
    pub truncated: bool,
    /// Sections not searched (answered while the first index runs, from the files indexed
    /// so far: the call paths and dependents read every file), as opposed to searched and
    /// found empty.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_searched: Vec<Section>,
}

/// A file a term named, shown as its skeleton: its path, or in an answer merged from
/// several workspaces, its path and the workspace holding it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum ExploredFile {
    Path(String),
    InRoot { path: String, root: String },
}

impl ExploredFile {
    /// The same file named with the workspace holding it.
    pub fn in_root(self, root: &str) -> ExploredFile {
        let path = match self {
            ExploredFile::Path(path) | ExploredFile::InRoot { path, .. } => path,
        };
        ExploredFile::InRoot {
            path,
            root: root.to_string(),
        }
    }
}

/// A section of the answer that reads every file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Section {
    CallPaths,
    Dependents,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct WordsUsed {
    /// The question's words (lowercased), or an identifier it spells.
    pub words: Vec<String>,
    /// The definitions' name they led to: the `term` of its definitions.
    pub name: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct MoreNamed {
    pub term: String,
    /// In an answer merged from several workspaces: the one the count is of.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub root: Option<String>,
    /// Definitions the term names in all.
    pub count: usize,
}

/// The exploration of `query` over the files `scope` says; `None` while the first index
/// runs (`scope` [`NameScope::FirstShards`]) when a term is neither a file nor a name the
/// files indexed so far define (a miss is no answer while files are unread, and a question
/// in words is read against every name).
pub(crate) fn explore(
    db: &dyn Db,
    workspace: Workspace,
    query: &ExploreQuery,
    scope: NameScope,
) -> Option<ExploreAnswer> {
    let budget = query.budget;
    let Terms {
        named,
        files,
        not_found,
        more_named,
        words_used,
        words_dropped,
    } = read_terms(db, workspace, &query.terms, scope)?;
    // Terms naming files alone make the whole answer from the files indexed so far: their
    // skeletons, and no definition to rank, join by call paths or find dependents of.
    let indexing = match scope {
        NameScope::FirstShards(shards) if !named.is_empty() => Some(shards),
        _ => None,
    };
    let callables: Vec<Callable> = named
        .iter()
        .map(|&(_, file, symbol)| Callable {
            file,
            symbol: Some(symbol),
        })
        .collect();
    // Call paths and dependents read every file (names guessed on receivers of unknown
    // type, the reference graph): while the first index runs, they are not searched.
    let not_searched = match indexing {
        Some(_) => vec![Section::CallPaths, Section::Dependents],
        None => Vec::new(),
    };
    let paths: Vec<Vec<Callable>> = match indexing {
        Some(_) => Vec::new(),
        None => call_paths(&mut Resolver::new(db, workspace), &callables),
    };
    let seeds: Vec<Seed> = named
        .iter()
        .map(|&(_, file, symbol)| Seed::Definition {
            file,
            symbol: Some(symbol),
        })
        .collect();
    let walk = ImpactQuery {
        seeds: Vec::new(),
        max_depth: DEPENDENT_DEPTH,
        limit: MAX_DEPENDENTS,
        tests_only: false,
        exact: false,
        budget: None,
    };
    // No definition named (files alone): nothing depends on it, and no graph is walked.
    let impact = (indexing.is_none() && !seeds.is_empty())
        .then(|| impact_of_seeds(db, workspace, &seeds, &walk));

    // The answer, built section by section while it fits; first what a partial answer
    // leaves out, then how a question was read.
    let mut text = String::new();
    let mut truncated = false;
    let fits = |text: &str| budget.admits(text);
    if let Some(shards) = indexing {
        let total = workspace.files(db).len();
        let indexed = (shards as usize * SHARD_FILES).min(total);
        let line = format!(
            "[partial: {indexed} of {total} files indexed so far; call paths and dependents not searched]\n"
        );
        match fits(&line) {
            true => text.push_str(&line),
            false => truncated = true,
        }
    }
    if !words_used.is_empty() {
        let line = question_line(&words_used, &words_dropped);
        match fits(&line) {
            true => text.push_str(&line),
            false => truncated = true,
        }
    }
    let mut definitions = Vec::new();
    for group in by_file(&named) {
        let path = group[0].1.path(db).clone();
        let mut block = format!("## {path}\n");
        let before = text.clone();
        let mut any = false;
        for &(term, file, symbol) in &group {
            let (piece, signature) = definition_text(db, file, symbol);
            let mut candidate = format!("{text}{block}{piece}");
            let mut shown = Shown::Full;
            if !fits(&candidate) {
                truncated = true;
                candidate = format!("{text}{block}{signature}");
                shown = match fits(&candidate) {
                    true => Shown::Signature,
                    false => Shown::Omitted,
                };
            }
            if shown != Shown::Omitted {
                block = candidate[text.len()..].to_string();
                any = true;
            }
            definitions.push(explored(db, term, file, symbol, shown));
        }
        text = match any {
            true => format!("{before}{block}"),
            false => before,
        };
    }
    let mut shown_files = Vec::new();
    for &file in &files {
        let skeleton = file_skeleton(db, file);
        let candidate = format!("{text}## {} (skeleton)\n{}\n", file.path(db), skeleton.text);
        if fits(&candidate) {
            text = candidate;
            shown_files.push(ExploredFile::Path(file.path(db).clone()));
        } else {
            truncated = true;
        }
    }
    let mut call_path_labels = Vec::new();
    if !paths.is_empty() {
        let mut section = String::from("## call paths\n");
        for path in &paths {
            let steps: Vec<String> = path.iter().map(|&c| label(db, c)).collect();
            let line = format!("{}\n", steps.join(" -> "));
            if fits(&format!("{text}{section}{line}")) {
                section.push_str(&line);
                call_path_labels.push(steps);
            } else {
                truncated = true;
            }
        }
        if !call_path_labels.is_empty() {
            text.push_str(&section);
        }
    }
    let mut dependents_shown = 0;
    let dependents = impact.as_ref().map_or(0, |impact| impact.total);
    if let Some(impact) = impact.as_ref().filter(|impact| impact.total > 0) {
        let heading = format!(
            "## dependents ({} within {DEPENDENT_DEPTH} steps, {})\n",
            impact.total,
            plural(impact.tests, "test", "tests")
        );
        if fits(&format!("{text}{heading}")) {
            text.push_str(&heading);
            for entry in &impact.dependents {
                let verb = if entry.imports { "imports" } else { "uses" };
                let line = match &entry.uses {
                    Some(uses) if entry.heuristic => {
                        format!("{} {verb} {uses} (by name)\n", line_of(entry))
                    }
                    Some(uses) => format!("{} {verb} {uses}\n", line_of(entry)),
                    None => format!("{}\n", line_of(entry)),
                };
                if !fits(&format!("{text}{line}")) {
                    break;
                }
                text.push_str(&line);
                dependents_shown += 1;
            }
        }
        truncated |= dependents_shown < impact.total;
    }
    let mut note = String::new();
    if !not_found.is_empty() {
        let _ = writeln!(note, "named nothing: {}", not_found.join(", "));
    }
    for more in &more_named {
        let _ = match indexing {
            Some(_) => writeln!(
                note,
                "`{}` names {} definitions in the files indexed so far; the first {MAX_PER_TERM} are shown",
                more.term, more.count
            ),
            None => writeln!(
                note,
                "`{}` names {} definitions; the {MAX_PER_TERM} most used are shown",
                more.term, more.count
            ),
        };
    }
    if !note.is_empty() && fits(&format!("{text}{note}")) {
        text.push_str(&note);
    }
    let mut read: Vec<SourceFile> = named.iter().map(|&(_, f, _)| f).collect();
    read.extend(files.iter().copied());
    read.sort_by_key(|f| f.path(db).clone());
    read.dedup();
    let files_tokens = read
        .iter()
        .map(|&f| file_tokens(db, f, budget.encoding) as usize)
        .sum();
    Some(ExploreAnswer {
        tokens: budget.encoding.count(&text),
        text,
        files_tokens,
        encoding: budget.encoding,
        max_tokens: budget.max_tokens,
        definitions,
        files: shown_files,
        call_paths: call_path_labels,
        dependents_shown,
        dependents,
        not_found,
        more_named,
        words_used,
        words_dropped,
        truncated,
        not_searched,
    })
}

/// What the terms of a question name: definitions (at most [`MAX_PER_TERM`] a term, in
/// the order given, then those a question in words was read into) and files.
struct Terms {
    named: Vec<(String, SourceFile, u32)>,
    files: Vec<SourceFile>,
    not_found: Vec<String>,
    more_named: Vec<MoreNamed>,
    words_used: Vec<WordsUsed>,
    words_dropped: Vec<String>,
}

/// What `terms` name in the files `scope` says; `None` while the first index runs when a
/// term is neither a file nor a name the files indexed so far define.
fn read_terms(
    db: &dyn Db,
    workspace: Workspace,
    terms: &[String],
    scope: NameScope,
) -> Option<Terms> {
    let mut named: Vec<(String, SourceFile, u32)> = Vec::new();
    let mut files: Vec<SourceFile> = Vec::new();
    let mut not_found = Vec::new();
    let mut more_named = Vec::new();
    let mut name = |term: &str, sites: Vec<(SourceFile, u32)>| {
        if sites.len() > MAX_PER_TERM {
            more_named.push(MoreNamed {
                term: term.to_string(),
                root: None,
                count: sites.len(),
            });
        }
        for (file, symbol) in sites.into_iter().take(MAX_PER_TERM) {
            if !named.iter().any(|(_, f, s)| (*f, *s) == (file, symbol)) {
                named.push((term.to_string(), file, symbol));
            }
        }
    };
    // Terms naming no file or definition as they are: the words of a question.
    let mut question: Vec<String> = Vec::new();
    for term in terms {
        if let Some(file) = file_at(db, workspace, term.trim_start_matches("./")) {
            if !files.contains(&file) {
                files.push(file);
            }
            continue;
        }
        let sites = match term.contains(char::is_whitespace) {
            true => Vec::new(),
            false => most_used(db, workspace, term, scope),
        };
        match sites.is_empty() {
            true if scope != NameScope::Workspace => return None,
            true => question.push(term.clone()),
            false => name(term, sites),
        }
    }
    let reading = match question.is_empty() {
        true => words::Reading::default(),
        false => words::read_question(db, workspace, &question, &|name| {
            !definition_sites(db, workspace, name, None).is_empty()
        }),
    };
    for picked in &reading.picked {
        name(&picked.name, most_used(db, workspace, &picked.name, scope));
    }
    // A question read into names reports its unused words as dropped; one read into none
    // names nothing, term by term.
    if reading.picked.is_empty() {
        not_found.extend(question.iter().cloned());
    }
    let words_used: Vec<WordsUsed> = reading
        .picked
        .iter()
        .map(|p| WordsUsed {
            words: p.words.clone(),
            name: p.name.clone(),
        })
        .collect();
    let words_dropped = match words_used.is_empty() {
        true => Vec::new(),
        false => reading.dropped.clone(),
    };
    Some(Terms {
        named,
        files,
        not_found,
        more_named,
        words_used,
        words_dropped,
    })
}

/// `words: flush, queued, actions (flushQueuedActions); … dropped: how, does`.
fn question_line(used: &[WordsUsed], dropped: &[String]) -> String {
    let used: Vec<String> = used
        .iter()
        .map(|u| match u.words.as_slice() {
            [word] if *word == u.name => u.name.clone(),
            words => format!("{} ({})", words.join(", "), u.name),
        })
        .collect();
    match dropped.is_empty() {
        true => format!("words: {}\n", used.join("; ")),
        false => format!(
            "words: {}; dropped: {}\n",
            used.join("; "),
            dropped.join(", ")
        ),
    }
}

/// The definitions `term` names in the files `scope` says, most used first (ties by path
/// and position); while the first index runs, in path order, since ranks read every file.
fn most_used(
    db: &dyn Db,
    workspace: Workspace,
    term: &str,
    scope: NameScope,
) -> Vec<(SourceFile, u32)> {
    let mut found: Vec<(SourceFile, u32)> = Vec::new();
    for (file, offset, _) in definition_sites_in(db, workspace, term, None, scope) {
        let symbols = file_symbols(db, file);
        let at = symbols
            .positions
            .iter()
            .position(|p| usize::from(p.name_range.start()) == offset);
        if let Some(symbol) = at {
            found.push((file, symbol as u32));
        }
    }
    if found.len() > 1 && scope != NameScope::Workspace {
        found.sort_by(|a, b| a.0.path(db).cmp(b.0.path(db)).then(a.1.cmp(&b.1)));
    } else if found.len() > 1 {
        let graph = reference_graph(db, workspace);
        let ranks = definition_ranks(db, workspace);
        let rank = |&(file, symbol): &(SourceFile, u32)| {
            graph
                .file_index(file)
                .map(|f| {
                    let id = graph.node_id(Node {
                        file: f,
                        definition: Some(symbol),
                    });
                    ranks.0.get(id as usize).copied().unwrap_or(0.0)
                })
                .unwrap_or(0.0)
        };
        found.sort_by(|a, b| {
            rank(b)
                .total_cmp(&rank(a))
                .then_with(|| a.0.path(db).cmp(b.0.path(db)))
                .then(a.1.cmp(&b.1))
        });
    }
    found
}

/// The named definitions grouped by file, files in the order of their first definition,
/// definitions in file order.
fn by_file(named: &[(String, SourceFile, u32)]) -> Vec<Vec<(&str, SourceFile, u32)>> {
    let mut groups: Vec<Vec<(&str, SourceFile, u32)>> = Vec::new();
    let mut index: HashMap<SourceFile, usize> = HashMap::new();
    for (term, file, symbol) in named {
        let i = *index.entry(*file).or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() - 1
        });
        groups[i].push((term.as_str(), *file, *symbol));
    }
    for group in &mut groups {
        group.sort_by_key(|&(_, _, symbol)| symbol);
    }
    groups
}

/// A definition's whole source (comments, decorators and attributes above it included)
/// in a fenced block under its place, and the same place with its signature line alone.
fn definition_text(db: &dyn Db, file: SourceFile, symbol: u32) -> (String, String) {
    let symbols = file_symbols(db, file);
    let (summary, position) = (
        &symbols.summaries[symbol as usize],
        &symbols.positions[symbol as usize],
    );
    let extent = definition_extent(db, file, position.range);
    let text = file.text(db);
    let start = text[..usize::from(extent.start())]
        .rfind('\n')
        .map_or(0, |i| i + 1);
    let body = &text[start..usize::from(extent.end())];
    let index = semantic::line_index(db, file);
    let first = index.line_col(start).line;
    let name = summary.qualified_name();
    let fence = fence_for(std::iter::once(body));
    let language = file.lang(db).info().id.as_str();
    let head = format!(
        "{}:{}-{} {} {name}\n",
        file.path(db),
        first,
        position.end.line,
        summary.kind
    );
    (
        format!("{head}{fence}{language}\n{body}\n{fence}\n"),
        format!("{head}    {}\n", symbols.signatures.get(symbol as usize)),
    )
}

fn explored(
    db: &dyn Db,
    term: &str,
    file: SourceFile,
    symbol: u32,
    shown: Shown,
) -> ExploredDefinition {
    let symbols = file_symbols(db, file);
    let (summary, position) = (
        &symbols.summaries[symbol as usize],
        &symbols.positions[symbol as usize],
    );
    ExploredDefinition {
        term: term.to_string(),
        name: summary.name.to_string(),
        kind: summary.kind,
        container: summary.container.as_deref().map(str::to_owned),
        path: file.path(db).clone(),
        root: None,
        line: position.start.line,
        end_line: position.end.line,
        shown,
    }
}

/// `kind name (path:line)`.
fn label(db: &dyn Db, callable: Callable) -> String {
    let Some(symbol) = callable.symbol else {
        return format!("top level of {}", callable.file.path(db));
    };
    let symbols = file_symbols(db, callable.file);
    let (summary, position) = (
        &symbols.summaries[symbol as usize],
        &symbols.positions[symbol as usize],
    );
    format!(
        "{} {} ({}:{})",
        summary.kind,
        summary.qualified_name(),
        callable.file.path(db),
        position.start.line
    )
}

/// For each ordered pair of named callables, the shortest chain of exact calls from one to
/// the other, when there is one within [`MAX_PATH_STEPS`].
fn call_paths(resolver: &mut Resolver, named: &[Callable]) -> Vec<Vec<Callable>> {
    let mut paths = Vec::new();
    for &from in named {
        let mut parent: HashMap<Callable, Callable> = HashMap::new();
        let mut frontier = vec![from];
        let mut seen = vec![from];
        for _ in 0..MAX_PATH_STEPS {
            let mut next = Vec::new();
            for &node in &frontier {
                for site in calls::outgoing(resolver, node) {
                    if site.certainty != Certainty::Exact || seen.contains(&site.callee) {
                        continue;
                    }
                    if seen.len() >= MAX_PATH_NODES {
                        break;
                    }
                    seen.push(site.callee);
                    parent.insert(site.callee, node);
                    next.push(site.callee);
                }
            }
            frontier = next;
        }
        for &to in named {
            if to == from || !parent.contains_key(&to) {
                continue;
            }
            let (mut path, mut at) = (vec![to], to);
            while let Some(&previous) = parent.get(&at) {
                path.push(previous);
                if previous == from {
                    break;
                }
                at = previous;
            }
            path.reverse();
            paths.push(path);
        }
    }
    paths
}
