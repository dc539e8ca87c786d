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
//! Reading order: [`explore`] reads the terms ([`terms_as_written`], then
//! [`read_question`]) and [`compose`] answers them, one function a step: the searches
//! ([`search_around`]), then one `add_…` function a section onto a [`Draft`] that takes a
//! piece only while the whole fits.
//!
//! While the first index runs, an exploration may answer from the files the symbol index
//! holds so far ([`explore_in_shards`]), once every term is a file or a name those
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
    impact::{Impact, ImpactQuery, impact_of_seeds, line_of, plural},
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
    pub call_paths: Vec<ExploredCallPath>,
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

/// A call path between named definitions, as `kind name (path:line)` steps: the steps, or
/// in an answer merged from several workspaces, the steps and the workspace holding them
/// (a call path never leaves its workspace).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum ExploredCallPath {
    Steps(Vec<String>),
    InRoot { steps: Vec<String>, root: String },
}

impl ExploredCallPath {
    /// The same path named with the workspace holding it.
    pub fn in_root(self, root: &str) -> ExploredCallPath {
        let steps = match self {
            ExploredCallPath::Steps(steps) | ExploredCallPath::InRoot { steps, .. } => steps,
        };
        ExploredCallPath::InRoot {
            steps,
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

/// The exploration of `query` over the whole workspace.
pub(crate) fn explore(db: &dyn Db, workspace: Workspace, query: &ExploreQuery) -> ExploreAnswer {
    let mut terms = terms_as_written(db, workspace, &query.terms, NameScope::Workspace);
    read_question(db, workspace, &mut terms);
    compose(db, workspace, query.budget, terms, None)
}

/// The exploration of `query` while the first index runs, from the files of the symbol
/// index's first `shards` shards; `None` when a term is neither a file nor a name those
/// files define (a miss is no answer while files are unread, and a question in words is
/// read against every name).
pub(crate) fn explore_in_shards(
    db: &dyn Db,
    workspace: Workspace,
    query: &ExploreQuery,
    shards: u32,
) -> Option<ExploreAnswer> {
    let scope = NameScope::FirstShards(shards);
    let terms = terms_as_written(db, workspace, &query.terms, scope);
    if !terms.question.is_empty() {
        return None;
    }
    // Terms naming files alone make the whole answer from the files indexed so far: their
    // skeletons, and no definition to rank, join by call paths or find dependents of.
    let partial = (!terms.named.is_empty()).then_some(shards);
    Some(compose(db, workspace, query.budget, terms, partial))
}

/// The answer to `terms` within `budget`: what joins and depends on the named definitions
/// found (unless `partial`, the shards indexed so far, says those sections read files not
/// indexed yet), then the text built section by section in priority order while it fits.
fn compose(
    db: &dyn Db,
    workspace: Workspace,
    budget: Budget,
    terms: Terms,
    partial: Option<u32>,
) -> ExploreAnswer {
    let (paths, impact, not_searched) = match partial {
        Some(_) => (
            Vec::new(),
            None,
            vec![Section::CallPaths, Section::Dependents],
        ),
        None => {
            let (paths, impact) = search_around(db, workspace, &terms.named);
            (paths, impact, Vec::new())
        }
    };
    // What a partial answer leaves out, then how a question was read, then the sections.
    let mut draft = Draft::new(budget);
    if let Some(shards) = partial {
        draft.add_or_cut(&partial_line(db, workspace, shards));
    }
    if !terms.words_used.is_empty() {
        draft.add_or_cut(&question_line(&terms.words_used, &terms.words_dropped));
    }
    let definitions = add_definitions(db, &mut draft, &terms.named);
    let files = add_skeletons(db, &mut draft, &terms.files);
    let call_paths = add_call_paths(db, &mut draft, &paths);
    let dependents_shown = impact
        .as_ref()
        .map_or(0, |impact| add_dependents(&mut draft, impact));
    // The notes are the least of the answer: left out without a word when they do not fit.
    let notes = notes(&terms, partial.is_some());
    if !notes.is_empty() && draft.admits(&notes) {
        draft.text.push_str(&notes);
    }
    ExploreAnswer {
        tokens: budget.encoding.count(&draft.text),
        text: draft.text,
        files_tokens: files_tokens(db, &terms, budget.encoding),
        encoding: budget.encoding,
        max_tokens: budget.max_tokens,
        definitions,
        files,
        call_paths,
        dependents_shown,
        dependents: impact.map_or(0, |impact| impact.total),
        not_found: terms.not_found,
        more_named: terms.more_named,
        words_used: terms.words_used,
        words_dropped: terms.words_dropped,
        truncated: draft.truncated,
        not_searched,
    }
}

/// The call paths between the named definitions and what depends on them (none when no
/// definition is named: files alone have no graph to walk). Both read every file: names
/// guessed on receivers of unknown type, the reference graph.
fn search_around(
    db: &dyn Db,
    workspace: Workspace,
    named: &[(String, SourceFile, u32)],
) -> (Vec<Vec<Callable>>, Option<Impact>) {
    let callables: Vec<Callable> = named
        .iter()
        .map(|&(_, file, symbol)| Callable {
            file,
            symbol: Some(symbol),
        })
        .collect();
    let paths = call_paths(&mut Resolver::new(db, workspace), &callables);
    if named.is_empty() {
        return (paths, None);
    }
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
    (paths, Some(impact_of_seeds(db, workspace, &seeds, &walk)))
}

/// The answer's text while it is built: each piece goes in only if the whole still fits
/// the budget, so the text never exceeds it.
struct Draft {
    text: String,
    budget: Budget,
    /// Something was left out for the budget.
    truncated: bool,
}

impl Draft {
    fn new(budget: Budget) -> Draft {
        Draft {
            text: String::new(),
            budget,
            truncated: false,
        }
    }

    /// Whether the text so far followed by `more` fits the budget.
    fn admits(&self, more: &str) -> bool {
        self.budget.admits(&format!("{}{more}", self.text))
    }

    /// Adds `more` when it fits, else marks the answer truncated; says which.
    fn add_or_cut(&mut self, more: &str) -> bool {
        let fits = self.admits(more);
        match fits {
            true => self.text.push_str(more),
            false => self.truncated = true,
        }
        fits
    }
}

/// `[partial: …]`, opening an answer from the files indexed so far: how many those are, and
/// what it did not search.
fn partial_line(db: &dyn Db, workspace: Workspace, shards: u32) -> String {
    let total = workspace.files(db).len();
    let indexed = (shards as usize * SHARD_FILES).min(total);
    format!(
        "[partial: {indexed} of {total} files indexed so far; call paths and dependents not searched]\n"
    )
}

/// The named definitions by file, each whole when it fits, else its signature line, else
/// left out (a file's heading goes in with the first of its definitions shown); all of
/// them listed, with how each was shown.
fn add_definitions(
    db: &dyn Db,
    draft: &mut Draft,
    named: &[(String, SourceFile, u32)],
) -> Vec<ExploredDefinition> {
    let mut definitions = Vec::new();
    for group in by_file(named) {
        let Some(&(_, first, _)) = group.first() else {
            continue;
        };
        let mut block = format!("## {}\n", first.path(db));
        let mut any = false;
        for &(term, file, symbol) in &group {
            let (piece, signature) = definition_text(db, file, symbol);
            let shown = if draft.admits(&format!("{block}{piece}")) {
                block.push_str(&piece);
                Shown::Full
            } else if draft.admits(&format!("{block}{signature}")) {
                block.push_str(&signature);
                Shown::Signature
            } else {
                Shown::Omitted
            };
            draft.truncated |= shown != Shown::Full;
            any |= shown != Shown::Omitted;
            definitions.push(explored(db, term, file, symbol, shown));
        }
        if any {
            draft.text.push_str(&block);
        }
    }
    definitions
}

/// The named files' skeletons, each whole or left out; the files shown.
fn add_skeletons(db: &dyn Db, draft: &mut Draft, files: &[SourceFile]) -> Vec<ExploredFile> {
    let mut shown = Vec::new();
    for &file in files {
        let skeleton = file_skeleton(db, file);
        let section = format!("## {} (skeleton)\n{}\n", file.path(db), skeleton.text);
        if draft.add_or_cut(&section) {
            shown.push(ExploredFile::Path(file.path(db).clone()));
        }
    }
    shown
}

/// The call paths that fit under one heading (none without a path shown); those shown.
fn add_call_paths(
    db: &dyn Db,
    draft: &mut Draft,
    paths: &[Vec<Callable>],
) -> Vec<ExploredCallPath> {
    let mut section = String::from("## call paths\n");
    let mut shown = Vec::new();
    for path in paths {
        let steps: Vec<String> = path.iter().map(|&c| label(db, c)).collect();
        let line = format!("{}\n", steps.join(" -> "));
        if draft.admits(&format!("{section}{line}")) {
            section.push_str(&line);
            shown.push(ExploredCallPath::Steps(steps));
        } else {
            draft.truncated = true;
        }
    }
    if !shown.is_empty() {
        draft.text.push_str(&section);
    }
    shown
}

/// The dependents, nearest first, under a heading with their counts, until one does not
/// fit; how many were shown.
fn add_dependents(draft: &mut Draft, impact: &Impact) -> usize {
    if impact.total == 0 {
        return 0;
    }
    let heading = format!(
        "## dependents ({} within {DEPENDENT_DEPTH} steps, {})\n",
        impact.total,
        plural(impact.tests, "test", "tests")
    );
    let mut shown = 0;
    if draft.add_or_cut(&heading) {
        for entry in &impact.dependents {
            let verb = if entry.imports { "imports" } else { "uses" };
            let line = match &entry.uses {
                Some(uses) if entry.heuristic => {
                    format!("{} {verb} {uses} (by name)\n", line_of(entry))
                }
                Some(uses) => format!("{} {verb} {uses}\n", line_of(entry)),
                None => format!("{}\n", line_of(entry)),
            };
            if !draft.admits(&line) {
                break;
            }
            draft.text.push_str(&line);
            shown += 1;
        }
    }
    draft.truncated |= shown < impact.total;
    shown
}

/// The terms that named nothing, and those naming more definitions than were brought
/// (`partial`: the first ones of the files indexed so far, rather than the most used).
fn notes(terms: &Terms, partial: bool) -> String {
    let mut notes = String::new();
    if !terms.not_found.is_empty() {
        let _ = writeln!(notes, "named nothing: {}", terms.not_found.join(", "));
    }
    for more in &terms.more_named {
        let _ = match partial {
            true => writeln!(
                notes,
                "`{}` names {} definitions in the files indexed so far; the first {MAX_PER_TERM} are shown",
                more.term, more.count
            ),
            false => writeln!(
                notes,
                "`{}` names {} definitions; the {MAX_PER_TERM} most used are shown",
                more.term, more.count
            ),
        };
    }
    notes
}

/// What reading whole the files the terms name and those holding their definitions would
/// cost, to compare the answer with.
fn files_tokens(db: &dyn Db, terms: &Terms, encoding: Encoding) -> usize {
    let mut read: Vec<SourceFile> = terms.named.iter().map(|&(_, f, _)| f).collect();
    read.extend(terms.files.iter().copied());
    read.sort_by_key(|f| f.path(db).clone());
    read.dedup();
    read.iter()
        .map(|&f| file_tokens(db, f, encoding) as usize)
        .sum()
}

/// What the terms of a question name: definitions (at most [`MAX_PER_TERM`] a term, in
/// the order given, then those a question in words was read into) and files.
#[derive(Default)]
struct Terms {
    named: Vec<(String, SourceFile, u32)>,
    files: Vec<SourceFile>,
    /// The terms naming no file or definition as written: the words of a question.
    question: Vec<String>,
    not_found: Vec<String>,
    more_named: Vec<MoreNamed>,
    words_used: Vec<WordsUsed>,
    words_dropped: Vec<String>,
}

impl Terms {
    /// The definitions `term` names (`sites`, most used first): the first
    /// [`MAX_PER_TERM`], those named already by an earlier term left as they were.
    fn add(&mut self, term: &str, sites: Vec<(SourceFile, u32)>) {
        if sites.len() > MAX_PER_TERM {
            self.more_named.push(MoreNamed {
                term: term.to_string(),
                root: None,
                count: sites.len(),
            });
        }
        for (file, symbol) in sites.into_iter().take(MAX_PER_TERM) {
            if !self
                .named
                .iter()
                .any(|(_, f, s)| (*f, *s) == (file, symbol))
            {
                self.named.push((term.to_string(), file, symbol));
            }
        }
    }
}

/// What `terms` name as written in the files `scope` says: files and definitions; the rest
/// (a term with a space is never a name) make the question.
fn terms_as_written(
    db: &dyn Db,
    workspace: Workspace,
    terms: &[String],
    scope: NameScope,
) -> Terms {
    let mut found = Terms::default();
    for term in terms {
        if let Some(file) = file_at(db, workspace, term.trim_start_matches("./")) {
            if !found.files.contains(&file) {
                found.files.push(file);
            }
            continue;
        }
        let sites = match term.contains(char::is_whitespace) {
            true => Vec::new(),
            false => most_used(db, workspace, term, scope),
        };
        match sites.is_empty() {
            true => found.question.push(term.clone()),
            false => found.add(term, sites),
        }
    }
    found
}

/// The question (the terms naming nothing as written) read into definitions' names against
/// every name, their definitions added after the named ones. A question read into names
/// reports its unused words as dropped; one read into none names nothing, term by term.
fn read_question(db: &dyn Db, workspace: Workspace, terms: &mut Terms) {
    if terms.question.is_empty() {
        return;
    }
    let reading = words::read_question(db, workspace, &terms.question, &|name| {
        !definition_sites(db, workspace, name, None).is_empty()
    });
    if reading.picked.is_empty() {
        terms.not_found = terms.question.clone();
        return;
    }
    for picked in &reading.picked {
        let sites = most_used(db, workspace, &picked.name, NameScope::Workspace);
        terms.add(&picked.name, sites);
    }
    terms.words_used = reading
        .picked
        .iter()
        .map(|p| WordsUsed {
            words: p.words.clone(),
            name: p.name.clone(),
        })
        .collect();
    terms.words_dropped = reading.dropped;
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
