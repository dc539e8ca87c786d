//! `search`: literal or regex text search over the workspace's files, as `rg -n --heading
//! --sort path` prints it, each hit with its enclosing definition, cut to a token budget.
//!
//! Invariant: hits come in path order, then line order; a page holds at most `limit`
//! matching lines from the `offset`-th, and its text never exceeds the budget: when it is
//! cut (by the limit or the budget) it ends saying the offset to continue from, and asking
//! again from there gives the hits that were left out, no more, no fewer. `tokens` is the
//! count of the final text. A search across several workspaces ([`search_across`]) keeps
//! all of this over their hits merged in path order, each file naming its workspace.

use std::{collections::BTreeMap, sync::Arc};

use rayon::prelude::*;
use serde::Serialize;

use super::{Budget, Encoding, ErrorCode, Failure, SymbolKind};
use crate::{
    db::{Db, RootDatabase, SourceFile, Workspace},
    engine::text_search::{
        EnclosingSymbol, GlobFilter, LineHit, PatternError, PatternSpec, TextSearch,
        enclosing_symbol, path_order,
    },
    syntax::LineIndex,
};

pub use crate::engine::text_search::{
    CaseMode, MAX_GLOBS, MAX_PATTERN_BYTES, Region as SearchRegion,
};

/// The most context lines asked for on either side of a hit.
pub const MAX_CONTEXT: usize = 50;
/// A line longer than this many characters is shown as a window of this many around its
/// first match (a minified file's one line would fill any budget).
pub const MAX_LINE_CHARS: usize = 300;
/// Files searched at once before looking whether the page is full: a small page (the
/// common case) stops early, and each batch still keeps every core busy.
const FILES_PER_BATCH: usize = 64;

/// What to search for, where, and which page of the hits to answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchQuery {
    pub pattern: String,
    /// The pattern is a literal text, not a regular expression.
    pub fixed_strings: bool,
    pub case: CaseMode,
    /// Only whole-word matches.
    pub word: bool,
    /// Only matches in code, comments or strings.
    pub only: Option<SearchRegion>,
    /// Workspace-relative files or directories to search (default: every file).
    pub paths: Vec<String>,
    /// ripgrep's `-g` globs (`*.py`, `!tests`).
    pub globs: Vec<String>,
    /// Context lines before and after each hit.
    pub before: usize,
    pub after: usize,
    /// At most this many matching lines.
    pub limit: usize,
    /// Skip this many matching lines first (the `next_offset` of the page before).
    pub offset: usize,
}

/// Why a search has no answer.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SearchError {
    #[error(transparent)]
    Pattern(#[from] PatternError),
    #[error("{0:?}: no file the workspace indexes is there")]
    UnmatchedPath(String),
    #[error("{name} must be at most {max}, got {value}")]
    OutOfRange {
        name: &'static str,
        max: usize,
        value: usize,
    },
    #[error(
        "the first hit's lines take more than {0} tokens: ask with a larger max_tokens or less context"
    )]
    BudgetTooSmall(usize),
}

impl Failure for SearchError {
    fn code(&self) -> ErrorCode {
        match self {
            SearchError::Pattern(_) | SearchError::OutOfRange { .. } => ErrorCode::InvalidArgument,
            SearchError::UnmatchedPath(_) => ErrorCode::NotFound,
            SearchError::BudgetTooSmall(_) => ErrorCode::TooLarge,
        }
    }
}

/// The definition a hit is in.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct SearchSymbol {
    /// Qualified by its containers (`Shape.area`).
    pub name: String,
    pub kind: SymbolKind,
    /// First and last line of the whole definition.
    pub line: u32,
    pub end_line: u32,
}

/// A line of a page: a hit, or a context line around one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct SearchLine {
    /// 1-based.
    pub line: u32,
    /// The line without its terminator (a window of it when it is very long).
    pub text: String,
    /// A context line, not a match.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub context: bool,
    /// Of a match: 1-based column (in characters) of its first match.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
    /// Of a match: the innermost definition it is in, absent at the top level.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub symbol: Option<SearchSymbol>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct SearchFile {
    pub path: String,
    /// In a search across several workspaces ([`search_across`]): the name of the one
    /// holding the file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub root: Option<String>,
    /// Hits and context lines, in line order.
    pub lines: Vec<SearchLine>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct SearchAnswer {
    /// The page as text (`path`, then `LINE:text` for a match, `LINE-text` for context,
    /// `--` between separate runs of lines, `in KIND NAME, lines A-B` where the enclosing
    /// definition changes), what a model reads and `tokens` counts.
    #[serde(skip)]
    pub text: String,
    /// Tokens of `text`, exactly, in `encoding`.
    pub tokens: usize,
    pub encoding: Encoding,
    pub files: Vec<SearchFile>,
    /// Matching lines on this page.
    pub matches: usize,
    /// More matching lines follow the ones shown.
    pub truncated: bool,
    /// When truncated: ask again with this `offset` for the rest.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_offset: Option<usize>,
}

/// A file's hits, with what showing them needs.
struct FileHits {
    path: String,
    /// The workspace's name, in a search across several.
    root: Option<String>,
    /// The lines of the file's hits known, on this page or not (see [`PageHits`]).
    known: Vec<u32>,
    text: Arc<str>,
    index: Arc<LineIndex>,
    hits: Vec<(LineHit, Option<SearchSymbol>)>,
}

/// Where a search looks: its paths and globs, in a workspace.
#[salsa::interned(debug)]
struct SearchScope<'db> {
    #[returns(copy)]
    workspace: Workspace,
    #[returns(ref)]
    paths: Vec<String>,
    #[returns(ref)]
    globs: Vec<String>,
}

/// The files `query` reads, in the order answers list them.
fn files_to_search(
    db: &dyn Db,
    workspace: Workspace,
    query: &SearchQuery,
) -> Result<Arc<[SourceFile]>, SearchError> {
    let scope = SearchScope::new(db, workspace, query.paths.clone(), query.globs.clone());
    scope_files(db, scope)
}

/// The files of `scope` in path order; memoized until the workspace's files change, since
/// matching every path against the globs and sorting them cost a warm search of a large
/// workspace a sixth of its time, again at every page. The last few scopes are kept.
#[salsa::tracked(returns(clone), lru = 32)]
fn scope_files<'db>(
    db: &'db dyn Db,
    scope: SearchScope<'db>,
) -> Result<Arc<[SourceFile]>, SearchError> {
    let globs = GlobFilter::new(scope.globs(db))?;
    let (files, unmatched) =
        super::diagnostics::files_under(db, scope.workspace(db), scope.paths(db));
    if let Some(path) = unmatched.into_iter().next() {
        return Err(SearchError::UnmatchedPath(path));
    }
    let mut files: Vec<(SourceFile, &str)> = files
        .into_iter()
        .map(|f| (f, f.path(db).as_str()))
        .filter(|(_, path)| globs.admits(path))
        .collect();
    files.sort_by(|a, b| path_order(a.1, b.1));
    Ok(files.into_iter().map(|(f, _)| f).collect())
}

pub(crate) fn check_query(query: &SearchQuery) -> Result<(), SearchError> {
    for (name, value) in [("before", query.before), ("after", query.after)] {
        if value > MAX_CONTEXT {
            return Err(SearchError::OutOfRange {
                name,
                max: MAX_CONTEXT,
                value,
            });
        }
    }
    Ok(())
}

/// A file's hits on a page, and the lines of every hit of it known (those on the page,
/// those an earlier page showed, the next one after the page): context lines stop short
/// of a hit that is not on the page, which is shown as a hit on its own page.
struct PageHits {
    file: SourceFile,
    hits: Vec<LineHit>,
    known: Vec<u32>,
}

/// The hits of `files` from the `skip`-th matching line, at most `take` of them, searched
/// in batches on all cores (each worker its own database handle, which a cancellation of
/// the request reaches). Also whether more hits follow.
fn collect_hits(
    db: &RootDatabase,
    search: &TextSearch,
    files: &[SourceFile],
    skip: usize,
    take: usize,
) -> (Vec<PageHits>, bool) {
    let wanted = skip.saturating_add(take).saturating_add(1);
    let template = std::sync::Mutex::new(db.worker());
    let mut found: Vec<(SourceFile, Vec<LineHit>)> = Vec::new();
    let mut total = 0usize;
    for batch in files.chunks(FILES_PER_BATCH) {
        let room = wanted - total;
        let hits: Vec<(SourceFile, Vec<LineHit>)> = batch
            .par_iter()
            .map_init(
                || template.lock().unwrap_or_else(|e| e.into_inner()).clone(),
                |db, &file| {
                    db.relay_cancellation();
                    salsa::Database::unwind_if_revision_cancelled(db);
                    (file, search.file_hits(db, file, room))
                },
            )
            .collect();
        for (file, mut hits) in hits {
            if total >= wanted || hits.is_empty() {
                continue;
            }
            hits.truncate(wanted - total);
            total += hits.len();
            found.push((file, hits));
        }
        if total >= wanted {
            break;
        }
    }
    let more = total > skip.saturating_add(take);
    let found = found.into_iter().map(|(file, hits)| {
        let known = hits.iter().map(|h| h.line).collect();
        PageHits { file, hits, known }
    });
    (page_of(found, |f| &mut f.hits, skip, take), more)
}

/// Of files' hits in answer order, the `skip`-th hit and at most `take` from it; files left
/// with none are dropped.
fn page_of<F, H>(
    files: impl IntoIterator<Item = F>,
    hits: impl Fn(&mut F) -> &mut Vec<H>,
    skip: usize,
    take: usize,
) -> Vec<F> {
    let (mut to_skip, mut room) = (skip, take);
    files
        .into_iter()
        .filter_map(|mut file| {
            let file_hits = hits(&mut file);
            let dropped = to_skip.min(file_hits.len());
            file_hits.drain(..dropped);
            to_skip -= dropped;
            file_hits.truncate(room);
            room -= file_hits.len();
            (!file_hits.is_empty()).then_some(file)
        })
        .collect()
}

/// Runs `query` on the files of `workspace` and answers its page within `budget`.
pub(crate) fn search(
    db: &RootDatabase,
    workspace: Workspace,
    query: &SearchQuery,
    budget: Budget,
) -> Result<SearchAnswer, SearchError> {
    check_query(query)?;
    let search = TextSearch::new(&pattern_spec(query))?;
    let files = files_to_search(db, workspace, query)?;
    let files = search.files_worth_reading(db, workspace, &files);
    let (page, more) = collect_hits(db, &search, &files, query.offset, query.limit);
    cut_to_budget(&file_hits(db, page), query, more, budget, "")
}

/// The page's hits with their enclosing definitions and the files' line indexes.
fn file_hits(db: &RootDatabase, page: Vec<PageHits>) -> Vec<FileHits> {
    page.into_iter()
        .map(|PageHits { file, hits, known }| {
            let hits = hits
                .into_iter()
                .map(|hit| {
                    let at = hit.matches.first().map_or(hit.range.start, |m| m.start);
                    let symbol = enclosing_symbol(db, file, at).map(SearchSymbol::from);
                    (hit, symbol)
                })
                .collect();
            FileHits {
                known,
                root: None,
                path: file.path(db).clone(),
                text: file.text(db),
                index: crate::semantic::line_index(db, file),
                hits,
            }
        })
        .collect()
}

/// One workspace's part of a search across several ([`search_across`]): its hits from the
/// first up to the end of the asked page, whatever the other workspaces hold, since the
/// page is counted over all of them. Owned data, so the workspaces need not be read at once.
pub struct WorkspaceHits {
    files: Vec<FileHits>,
    /// More hits follow those held.
    more: bool,
}

/// Checks what a search asks before any workspace is read: the same refusal for every one.
pub fn check_search(query: &SearchQuery) -> Result<(), SearchError> {
    check_query(query)?;
    GlobFilter::new(&query.globs)?;
    TextSearch::new(&pattern_spec(query))?;
    Ok(())
}

fn pattern_spec(query: &SearchQuery) -> PatternSpec {
    PatternSpec {
        pattern: query.pattern.clone(),
        fixed_strings: query.fixed_strings,
        case: query.case,
        word: query.word,
        only: query.only,
    }
}

/// [`WorkspaceHits`] of `query` in `workspace`.
pub(crate) fn workspace_hits(
    db: &RootDatabase,
    workspace: Workspace,
    query: &SearchQuery,
) -> Result<WorkspaceHits, SearchError> {
    check_query(query)?;
    let search = TextSearch::new(&pattern_spec(query))?;
    let files = files_to_search(db, workspace, query)?;
    let files = search.files_worth_reading(db, workspace, &files);
    let end = query.offset.saturating_add(query.limit);
    let (page, more) = collect_hits(db, &search, &files, 0, end);
    Ok(WorkspaceHits {
        files: file_hits(db, page),
        more,
    })
}

/// The page `query` asks for over several workspaces' hits, each named (`parts` in their
/// order), within `budget`, as [`search`] answers it for one: files in path order, a path
/// in several workspaces in the order of `parts`; every file names its workspace, and
/// `preamble` opens the text (counted in the budget).
pub fn search_across(
    parts: Vec<(String, WorkspaceHits)>,
    query: &SearchQuery,
    budget: Budget,
    preamble: &str,
) -> Result<SearchAnswer, SearchError> {
    let mut more = false;
    let mut files: Vec<FileHits> = Vec::new();
    for (name, part) in parts {
        more |= part.more;
        files.extend(part.files.into_iter().map(|file| FileHits {
            root: Some(name.clone()),
            ..file
        }));
    }
    // Stable: a path held by several workspaces keeps their order.
    files.sort_by(|a, b| path_order(&a.path, &b.path));
    let held: usize = files.iter().map(|f| f.hits.len()).sum();
    more |= held > query.offset.saturating_add(query.limit);
    let page = page_of(files, |f| &mut f.hits, query.offset, query.limit);
    cut_to_budget(&page, query, more, budget, preamble)
}

impl From<EnclosingSymbol> for SearchSymbol {
    fn from(s: EnclosingSymbol) -> SearchSymbol {
        SearchSymbol {
            name: s.name,
            kind: s.kind,
            line: s.start_line,
            end_line: s.end_line,
        }
    }
}

/// The most hits of `page` whose rendering fits `budget` (found by bisection: each try
/// counts at most the budget's tokens).
fn cut_to_budget(
    page: &[FileHits],
    query: &SearchQuery,
    more: bool,
    budget: Budget,
    preamble: &str,
) -> Result<SearchAnswer, SearchError> {
    let total: usize = page.iter().map(|f| f.hits.len()).sum();
    let answer = |shown: usize| {
        let files = lines_of(page, shown, query);
        let next_offset = (shown < total || more).then_some(query.offset + shown);
        let text = render(preamble, &files, next_offset, query.offset);
        (files, next_offset, text)
    };
    let (mut fits, mut over) = (0, total);
    let whole = answer(total);
    let (files, next_offset, text) = if budget.admits(&whole.2) {
        whole
    } else {
        while over - fits > 1 {
            let mid = fits + (over - fits) / 2;
            if budget.admits(&answer(mid).2) {
                fits = mid;
            } else {
                over = mid;
            }
        }
        answer(fits)
    };
    let matches = files
        .iter()
        .flat_map(|f| &f.lines)
        .filter(|l| !l.context)
        .count();
    if !budget.admits(&text) || (matches == 0 && total > 0) {
        return Err(SearchError::BudgetTooSmall(budget.max_tokens));
    }
    Ok(SearchAnswer {
        tokens: budget.encoding.count(&text),
        encoding: budget.encoding,
        text,
        files,
        matches,
        truncated: next_offset.is_some(),
        next_offset,
    })
}

/// The first `shown` hits of `page` as lines, each file's hits with their context lines.
fn lines_of(page: &[FileHits], shown: usize, query: &SearchQuery) -> Vec<SearchFile> {
    let mut left = shown;
    let mut files = Vec::new();
    for file in page {
        if left == 0 {
            break;
        }
        let hits = &file.hits[..file.hits.len().min(left)];
        left -= hits.len();
        // The empty "line" after a final line end is not a line (as `rg` counts).
        let text = &file.text;
        let lines_in_text = file.index.line_count() - usize::from(text.ends_with('\n'));
        let last_line = lines_in_text.saturating_sub(1) as u32;
        // Line -> the hit shown on it, or `None` for a context line.
        let mut shown_lines: BTreeMap<u32, Option<&(LineHit, Option<SearchSymbol>)>> =
            BTreeMap::new();
        for hit in hits {
            let line = hit.0.line;
            let previous = file.known.iter().rev().find(|&&l| l < line);
            let next = file.known.iter().find(|&&l| l > line);
            let from = line
                .saturating_sub(query.before as u32)
                .max(previous.map_or(0, |p| p + 1));
            let to = line
                .saturating_add(query.after as u32)
                .min(last_line)
                .min(next.map_or(u32::MAX, |n| n - 1));
            for context in (from..line).chain(line + 1..=to) {
                shown_lines.entry(context).or_insert(None);
            }
            shown_lines.insert(line, Some(hit));
        }
        let lines = shown_lines
            .into_iter()
            .map(|(line, hit)| match hit {
                Some((hit, symbol)) => match_line(text, hit, symbol.clone()),
                None => context_line(text, &file.index, line),
            })
            .collect();
        files.push(SearchFile {
            path: file.path.clone(),
            root: file.root.clone(),
            lines,
        });
    }
    files
}

fn match_line(text: &str, hit: &LineHit, symbol: Option<SearchSymbol>) -> SearchLine {
    let at = hit.matches.first().map_or(hit.range.start, |m| m.start);
    SearchLine {
        line: hit.line + 1,
        text: shown_text(&text[hit.range.clone()], at - hit.range.start),
        context: false,
        column: hit
            .matches
            .first()
            .map(|m| text[hit.range.start..m.start].chars().count() as u32 + 1),
        symbol,
    }
}

fn context_line(text: &str, index: &LineIndex, line: u32) -> SearchLine {
    // `line_start` counts lines from 1.
    let start = index.line_start(line + 1).unwrap_or(text.len());
    let end = index.line_start(line + 2).unwrap_or(text.len());
    let content = text[start..end].trim_end_matches('\n');
    SearchLine {
        line: line + 1,
        text: shown_text(content, 0),
        context: true,
        column: None,
        symbol: None,
    }
}

/// `line` without a trailing `\r`, or a window of [`MAX_LINE_CHARS`] characters around the
/// byte `at` when it is longer, marked with `…` where it was cut.
fn shown_text(line: &str, at: usize) -> String {
    let line = line.strip_suffix('\r').unwrap_or(line);
    let chars = line.chars().count();
    if chars <= MAX_LINE_CHARS {
        return line.to_string();
    }
    let at_char = line[..at.min(line.len())].chars().count();
    let start = at_char.saturating_sub(MAX_LINE_CHARS / 3);
    let start = start.min(chars - MAX_LINE_CHARS);
    let window: String = line.chars().skip(start).take(MAX_LINE_CHARS).collect();
    let before = if start > 0 { "…" } else { "" };
    let after = if start + MAX_LINE_CHARS < chars {
        "…"
    } else {
        ""
    };
    format!("{before}{window}{after}")
}

/// The page as `rg -n --heading` prints it, with the enclosing definition named where it
/// changes, and, when cut, the offset to continue from.
fn render(
    preamble: &str,
    files: &[SearchFile],
    next_offset: Option<usize>,
    offset: usize,
) -> String {
    use std::fmt::Write;
    let mut out = String::from(preamble);
    for (i, file) in files.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        if let Some(root) = &file.root {
            let _ = write!(out, "[{root}] ");
        }
        out.push_str(&file.path);
        out.push('\n');
        let mut symbol: Option<&SearchSymbol> = None;
        let mut last_line = None;
        for line in &file.lines {
            if last_line.is_some_and(|l| line.line > l + 1) {
                out.push_str("--\n");
            }
            last_line = Some(line.line);
            if !line.context && line.symbol.as_ref() != symbol {
                symbol = line.symbol.as_ref();
                match symbol {
                    Some(s) => {
                        let _ = writeln!(
                            out,
                            "in {} {}, lines {}-{}",
                            s.kind.as_str(),
                            s.name,
                            s.line,
                            s.end_line
                        );
                    }
                    None => out.push_str("at top level\n"),
                }
            }
            let separator = if line.context { '-' } else { ':' };
            let _ = writeln!(out, "{}{separator}{}", line.line, line.text);
        }
    }
    if files.is_empty() && next_offset.is_none() {
        out.push_str(if offset == 0 {
            "no matches\n"
        } else {
            "no more matches\n"
        });
    }
    if let Some(next) = next_offset {
        if !out.is_empty() {
            out.push('\n');
        }
        let _ = writeln!(out, "[more matches not shown: continue with offset {next}]");
    }
    out
}
