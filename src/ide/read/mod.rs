//! `read`: code for a model, under an exact token budget. Definitions by name or position
//! (with their docs, decorators and attributes), line ranges, whole files, and a file's
//! definitions with the token cost of each.
//!
//! Invariant: an answer's `tokens` is the exact count of its `text` in the budget's
//! encoding and never exceeds the budget. The targets go in the order asked (their
//! priority), each whole, until one does not fit: it and the ones after it are listed as
//! left out, with a cursor to continue from. Only a piece too large for the budget on its
//! own is cut, by lines, and the cursor continues it from its first line left out.

pub(crate) mod pieces;

pub(crate) use pieces::{Block, Found, definition_named, fence_for, file_at, whole_file_block};

use serde::Serialize;

use super::{Budget, Encoding, FileId, NameScope, SymbolKind};
use crate::db::Db;

/// What to read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReadTarget {
    /// A definition by name: `name`, `module.name`, `Class.method`, `Type::method`.
    Symbol(String),
    /// The innermost definition around a byte offset.
    At { file: FileId, offset: usize },
    /// The innermost definition around the first character of a 1-based line that is not
    /// blank (where a definition written on that line starts).
    Line { file: FileId, line: u32 },
    /// Lines `start..=end` (1-based) of a file.
    Lines { file: FileId, start: u32, end: u32 },
    /// A whole file.
    File(FileId),
    /// A file's definitions, each with its lines and token cost, without their code.
    Directory(FileId),
}

#[derive(Clone, Debug)]
pub struct ReadRequest {
    pub targets: Vec<ReadTarget>,
    /// Lines of context before and after each definition.
    pub context_lines: u32,
    /// Names are looked for only in files under this workspace-relative prefix.
    pub path_prefix: Option<String>,
    /// The files names are looked for in (while the first index runs, those indexed).
    pub names: NameScope,
    pub budget: Budget,
    /// Where an earlier answer stopped (its `next_cursor`).
    pub cursor: Option<ReadCursor>,
}

/// Where to continue: the target (its index in the request) and its first line not yet
/// read. Written `TARGET:LINE` (`2:140`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadCursor {
    pub target: usize,
    pub line: u32,
}

impl ReadCursor {
    pub fn parse(text: &str) -> Option<ReadCursor> {
        let (target, line) = text.split_once(':')?;
        Some(ReadCursor {
            target: target.parse().ok()?,
            line: line.parse().ok().filter(|&l| l >= 1)?,
        })
    }
}

impl std::fmt::Display for ReadCursor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.target, self.line)
    }
}

#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct ReadAnswer {
    /// What a model reads: each piece's header line and code.
    pub text: String,
    /// Exact tokens of `text` in `encoding`.
    pub tokens: usize,
    pub encoding: Encoding,
    pub max_tokens: usize,
    /// `complete`, or `with_omissions` when a target was left out or cut.
    pub status: ReadStatus,
    /// What went in, in order.
    pub pieces: Vec<PieceInfo>,
    /// Targets left out for the budget, with what each would cost on its own.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub omitted: Vec<PieceInfo>,
    /// Names that named more than one definition: their candidates (never a guess).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ambiguous: Vec<Ambiguity>,
    /// Names that named no definition.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_found: Vec<String>,
    /// Ask again with this `cursor` (and the same targets) for what was left out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ReadStatus {
    Complete,
    WithOmissions,
}

/// One piece of an answer: a definition, lines or a file's directory.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct PieceInfo {
    /// The target's index in the request.
    pub target: usize,
    pub path: String,
    /// In a read across several workspaces ([`read_across`]): the one holding `path`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub root: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<SymbolKind>,
    /// The definition's name, qualified by its container.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub start_line: u32,
    pub end_line: u32,
    /// Tokens of this piece's text alone.
    pub tokens: usize,
    /// Only the lines up to `end_line` went in; the cursor continues after them.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub cut: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Ambiguity {
    pub name: String,
    pub candidates: Vec<Candidate>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Candidate {
    pub path: String,
    /// In a read across several workspaces ([`read_across`]): the one holding `path`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub root: Option<String>,
    pub line: u32,
    pub kind: String,
}

/// Why nothing could be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReadError {
    /// Every target was a name, and none named a definition.
    #[error("no definition named {}", .0.join(", "))]
    NotFound(Vec<String>),
    /// The cursor names no target of the request.
    #[error("cursor {0:?} names no target of this request")]
    BadCursor(String),
}

impl super::Failure for ReadError {
    fn code(&self) -> super::ErrorCode {
        match self {
            ReadError::NotFound(_) => super::ErrorCode::NotFound,
            ReadError::BadCursor(_) => super::ErrorCode::InvalidArgument,
        }
    }
}

pub(crate) fn read(
    db: &dyn Db,
    workspace: crate::db::Workspace,
    request: &ReadRequest,
) -> Result<ReadAnswer, ReadError> {
    let first = first_target(request.cursor, request.targets.len())?;
    let parts = request
        .targets
        .iter()
        .enumerate()
        .map(|(index, target)| {
            (index >= first).then(|| part(db, workspace, request, index, target))
        })
        .collect();
    read_across(&request.budget, request.cursor, parts)
}

/// One target as one workspace reads it: what a workspace answers of a read across several
/// ([`read_across`]).
pub struct TargetPart {
    found: Found,
    /// A name's one definition as a candidate, for when another workspace defines the
    /// name too.
    named: Option<Candidate>,
}

impl TargetPart {
    /// The part as read in the workspace called `root`: its header and candidates say so.
    pub fn in_root(mut self, root: &str) -> TargetPart {
        match &mut self.found {
            Found::Piece(piece) => piece.set_root(root),
            Found::Ambiguous(ambiguity) => {
                for candidate in &mut ambiguity.candidates {
                    candidate.root = Some(root.to_string());
                }
            }
            Found::Missing(_) => {}
        }
        if let Some(candidate) = &mut self.named {
            candidate.root = Some(root.to_string());
        }
        self
    }

    /// The definitions a name target names in its workspace, as candidates: its one
    /// definition, each of several, or none; for what any other target reads, none.
    pub fn candidates(&self) -> Vec<Candidate> {
        match &self.found {
            Found::Ambiguous(ambiguity) => ambiguity.candidates.clone(),
            _ => self.named.iter().cloned().collect(),
        }
    }

    /// A name naming each of `candidates` (in several workspaces): ambiguous, never a
    /// guess; missing when there are none.
    pub fn ambiguous(name: &str, candidates: Vec<Candidate>) -> TargetPart {
        let found = match candidates.is_empty() {
            true => Found::Missing(name.to_string()),
            false => Found::Ambiguous(Ambiguity {
                name: name.to_string(),
                candidates,
            }),
        };
        TargetPart { found, named: None }
    }
}

/// `target`, the request's target `index`, as `workspace` reads it under the request's
/// options (a target by path names a file of that workspace; a cursor on the target
/// continues it); the request's own `targets` are not looked at.
pub(crate) fn part(
    db: &dyn Db,
    workspace: crate::db::Workspace,
    request: &ReadRequest,
    index: usize,
    target: &ReadTarget,
) -> TargetPart {
    let from_line = request.cursor.filter(|c| c.target == index).map(|c| c.line);
    match target {
        ReadTarget::Symbol(name) => {
            let (found, named) = pieces::named(db, workspace, request, name, from_line);
            TargetPart { found, named }
        }
        _ => TargetPart {
            found: pieces::piece(db, workspace, request, target, from_line),
            named: None,
        },
    }
}

/// The first of `targets` targets a read reads: the cursor's, else the first.
fn first_target(cursor: Option<ReadCursor>, targets: usize) -> Result<usize, ReadError> {
    match cursor {
        Some(cursor) if cursor.target >= targets => Err(ReadError::BadCursor(cursor.to_string())),
        Some(cursor) => Ok(cursor.target),
        None => Ok(0),
    }
}

/// The answer from a read's targets' parts, each read in the workspace it belongs to
/// (`None` for the targets before `cursor`'s), in the targets' order: the one place a
/// read's pieces are put under its budget, for one workspace or several.
pub fn read_across(
    budget: &Budget,
    cursor: Option<ReadCursor>,
    parts: Vec<Option<TargetPart>>,
) -> Result<ReadAnswer, ReadError> {
    let first = first_target(cursor, parts.len())?;
    let mut answer = empty_answer(budget);
    let mut texts: Vec<String> = Vec::new();
    let mut stopped_at: Option<ReadCursor> = None;
    for (index, part) in parts.into_iter().enumerate().skip(first) {
        let Some(part) = part else { continue };
        let piece = match part.found {
            Found::Piece(piece) => piece,
            Found::Ambiguous(ambiguity) => {
                push_note(&mut texts, ambiguity_text(&ambiguity), budget);
                answer.ambiguous.push(ambiguity);
                continue;
            }
            Found::Missing(name) => {
                let note = format!("`{name}`: no definition by this name\n");
                push_note(&mut texts, note, budget);
                answer.not_found.push(name);
                continue;
            }
        };
        let encoding = budget.encoding;
        if answer.pieces.iter().any(|info| piece.repeats(info)) {
            continue;
        }
        if stopped_at.is_some() {
            answer.omitted.push(piece.info(index, encoding));
            continue;
        }
        let with_piece = joined(&texts, Some(&piece.text));
        if budget.admits(&with_piece) {
            answer.pieces.push(piece.info(index, encoding));
            texts.push(piece.text);
        } else if answer.pieces.is_empty() {
            // Too large on its own: as many of its lines as fit, and a cursor to the rest.
            match piece.cut_to_fit(budget, &joined(&texts, None)) {
                Some(cut) => {
                    stopped_at = Some(ReadCursor {
                        target: index,
                        line: cut.end_line + 1,
                    });
                    answer.pieces.push(cut.info(index, encoding));
                    texts.push(cut.text);
                }
                None => {
                    stopped_at = Some(ReadCursor {
                        target: index,
                        line: piece.start_line,
                    });
                    answer.omitted.push(piece.info(index, encoding));
                }
            }
        } else {
            stopped_at = Some(ReadCursor {
                target: index,
                line: piece.start_line,
            });
            answer.omitted.push(piece.info(index, encoding));
        }
    }
    let nothing_read = answer.pieces.is_empty() && answer.omitted.is_empty();
    if nothing_read && answer.ambiguous.is_empty() && !answer.not_found.is_empty() {
        return Err(ReadError::NotFound(answer.not_found));
    }
    answer.text = joined(&texts, None);
    answer.tokens = budget.encoding.count(&answer.text);
    if let Some(cursor) = stopped_at {
        answer.status = ReadStatus::WithOmissions;
        answer.next_cursor = Some(cursor.to_string());
    }
    Ok(answer)
}

/// A note about a name (ambiguous, missing), in the text when it fits; the answer's lists
/// say it either way.
fn push_note(texts: &mut Vec<String>, note: String, budget: &Budget) {
    if budget.admits(&joined(texts, Some(&note))) {
        texts.push(note);
    }
}

/// The pieces' texts, one blank line apart, with `extra` after them.
fn joined(texts: &[String], extra: Option<&str>) -> String {
    let mut out = String::new();
    for text in texts.iter().map(String::as_str).chain(extra) {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(text);
    }
    out
}

fn ambiguity_text(ambiguity: &Ambiguity) -> String {
    let mut text = format!(
        "`{}` names {} definitions; ask for one by path and line:\n",
        ambiguity.name,
        ambiguity.candidates.len()
    );
    for c in &ambiguity.candidates {
        let root = c
            .root
            .as_ref()
            .map(|r| format!("[{r}] "))
            .unwrap_or_default();
        text.push_str(&format!("  {root}{}:{} {}\n", c.path, c.line, c.kind));
    }
    text
}

/// Lines of a workspace file's `text` (any file, code or not) from `start` (1-based), at
/// most `limit` of them, cut to the budget: one piece, and `next_cursor` `0:LINE` when
/// lines remain.
pub fn read_lines(
    path: &str,
    language: Option<&'static str>,
    text: &str,
    start: u32,
    limit: u32,
    budget: &Budget,
) -> ReadAnswer {
    let end = start.saturating_add(limit.saturating_sub(1));
    let piece = pieces::text_lines(path, language, text, start, end, None);
    let total_lines = text.split_inclusive('\n').count() as u32;
    let mut answer = empty_answer(budget);
    let (info, text, last) = if budget.admits(&piece.text) {
        (
            piece.info(0, budget.encoding),
            piece.text.clone(),
            piece.end_line,
        )
    } else {
        match piece.cut_to_fit(budget, "") {
            Some(cut) => (cut.info(0, budget.encoding), cut.text.clone(), cut.end_line),
            None => {
                answer.omitted.push(piece.info(0, budget.encoding));
                (
                    piece.info(0, budget.encoding),
                    String::new(),
                    start.saturating_sub(1),
                )
            }
        }
    };
    if !text.is_empty() {
        answer.pieces.push(info);
    }
    if last < total_lines {
        answer.status = ReadStatus::WithOmissions;
        answer.next_cursor = Some(
            ReadCursor {
                target: 0,
                line: last + 1,
            }
            .to_string(),
        );
    }
    answer.tokens = budget.encoding.count(&text);
    answer.text = text;
    answer
}

fn empty_answer(budget: &Budget) -> ReadAnswer {
    ReadAnswer {
        text: String::new(),
        tokens: 0,
        encoding: budget.encoding,
        max_tokens: budget.max_tokens,
        status: ReadStatus::Complete,
        pieces: Vec::new(),
        omitted: Vec::new(),
        ambiguous: Vec::new(),
        not_found: Vec::new(),
        next_cursor: None,
    }
}
