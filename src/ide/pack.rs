//! `pack`: the code one or more tasks need, in one answer under one token budget. Each
//! entry is a file or a definition, wanted `full`, as a `skeleton`, or (optional ones)
//! `either`; required entries all go in or the pack fails, optional ones by priority.
//!
//! Invariant: a pack is all of its required entries or an error (`REQUIRED_UNAVAILABLE`,
//! `REQUIRED_OVER_BUDGET`), never part of them; its `tokens` is the exact count of its
//! text in the budget's encoding and never exceeds the budget. Optional entries are
//! chosen by priority (then the order given), and the text lists everything in the order
//! given, so the count is taken on that final text.

use serde::Serialize;

use super::{
    Budget, Encoding, FileId,
    read::{Block, Found, definition_named, fence_for, whole_file_block},
};
use crate::{
    db::{Db, SourceFile, Workspace},
    engine::{
        skeleton::{file_skeleton, skeleton_tokens},
        tokens::file_tokens,
    },
};

/// What an entry names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PackSource {
    File(FileId),
    /// A definition's name: `name`, `module.name`, `Class.method`, `Type::method`.
    Symbol(String),
    /// A path the workspace does not index.
    Missing(String),
}

#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum PackMode {
    Full,
    Skeleton,
    /// Full when it fits, else the skeleton (optional entries only).
    Either,
}

#[derive(Clone, Debug)]
pub struct PackEntry {
    pub task: usize,
    pub source: PackSource,
    pub mode: PackMode,
    pub required: bool,
    /// 0–100; higher goes in first.
    pub priority: u8,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PackStyle {
    /// A `path:lines` line and a fenced code block per entry.
    #[default]
    Markdown,
    /// `<file path=… lines=… mode=…>` elements around the code, unescaped.
    Xml,
    /// A JSON array of `{path, lines, mode, name, content}`.
    Json,
    /// A `==> path:lines <==` line, then the code.
    Plain,
}

#[derive(Clone, Debug)]
pub struct PackRequest {
    pub entries: Vec<PackEntry>,
    pub budget: Budget,
    pub style: PackStyle,
    /// Names are looked for only under this workspace-relative prefix.
    pub path_prefix: Option<String>,
}

#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct PackAnswer {
    pub text: String,
    pub tokens: usize,
    pub encoding: Encoding,
    pub max_tokens: usize,
    /// `complete`, or `with_omissions` when an optional entry was left out or given as a
    /// skeleton instead of in full.
    pub status: super::ReadStatus,
    pub included: Vec<PackedEntry>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub omitted: Vec<OmittedEntry>,
    /// Byte offsets in `text` where an entry's block starts (the first one excluded): a
    /// front end that offers the text in parts cuts it there, so no part splits a block
    /// unless that block alone is too large for one.
    #[serde(skip)]
    pub seams: Vec<usize>,
}

#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct PackedEntry {
    pub task: usize,
    /// The entry's index in its task (required ones first, then optional ones).
    pub entry: usize,
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// How it went in: `full` or `skeleton`.
    pub mode: PackMode,
    pub start_line: u32,
    pub end_line: u32,
    /// What it cost against the budget: the tokens of its header and fence plus those of
    /// its code, each counted exactly (in the json style, of its whole item). The pack's
    /// own `tokens` is counted on its whole text.
    pub tokens: usize,
}

#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct OmittedEntry {
    pub task: usize,
    pub entry: usize,
    /// What it names (a path or a name).
    pub target: String,
    /// `over_budget`, `not_found`, `ambiguous`, or `already_included` (inside an entry
    /// that went in in full; not an omission).
    pub reason: String,
    /// Tokens it would have cost (its smallest form), when it was found.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokens: Option<usize>,
}

/// The reason given for an optional entry inside one that went in in full.
const ALREADY_INCLUDED: &str = "already_included";

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PackError {
    #[error("required entries unavailable: {}", .0.join("; "))]
    RequiredUnavailable(Vec<String>),
    #[error("the required entries take {needed} tokens; the budget is {max_tokens}")]
    RequiredOverBudget { needed: usize, max_tokens: usize },
}

impl super::Failure for PackError {
    fn code(&self) -> super::ErrorCode {
        match self {
            PackError::RequiredUnavailable(_) => super::ErrorCode::RequiredUnavailable,
            PackError::RequiredOverBudget { .. } => super::ErrorCode::RequiredOverBudget,
        }
    }
}

/// One form of an entry: its block and the exact tokens of the block's code, taken from
/// the memoized per-file counts when the block is a whole file or its whole skeleton, so a
/// warm pack of many files counts little beyond its final text.
#[derive(Clone)]
struct Form {
    block: Block,
    code_tokens: usize,
}

/// An entry's forms: its full block and its skeleton (the same block when a skeleton
/// would elide nothing).
struct Candidate {
    order: usize,
    entry: usize,
    full: Form,
    skeleton: Form,
}

/// An entry chosen: its place in the request, its block, how it went in and its cost.
struct Chosen {
    order: usize,
    block: Block,
    mode: PackMode,
    cost: usize,
}

/// The request's entries sorted out: required ones chosen, optional ones waiting with
/// their priority, and those that name nothing.
struct Sorted {
    chosen: Vec<Chosen>,
    optional: Vec<(u8, Candidate)>,
    omitted: Vec<OmittedEntry>,
}

pub(crate) fn pack(
    db: &dyn Db,
    workspace: Workspace,
    request: &PackRequest,
) -> Result<PackAnswer, PackError> {
    let Sorted {
        mut chosen,
        optional,
        mut omitted,
    } = sort_entries(db, workspace, request)?;
    let (required_text, _) = render(&chosen, request.style);
    let required_tokens = request.budget.encoding.count(&required_text);
    if required_tokens > request.budget.max_tokens {
        return Err(PackError::RequiredOverBudget {
            needed: required_tokens,
            max_tokens: request.budget.max_tokens,
        });
    }
    let mut used = required_tokens;
    let mut accepted = Vec::new();
    let downgraded = add_optional(
        db,
        request,
        &mut chosen,
        optional,
        &mut omitted,
        &mut used,
        &mut accepted,
    );
    // The costs bound the text; should a seam ever defeat that, the last entries added
    // give way until the exact count fits.
    let encoding = request.budget.encoding;
    let (mut text, mut seams) = render(&chosen, request.style);
    let mut tokens = encoding.count(&text);
    while tokens > request.budget.max_tokens {
        let Some(last) = accepted.pop() else { break };
        chosen.retain(|c| c.order != last);
        omitted.push(OmittedEntry {
            task: request.entries[last].task,
            entry: index_in_task(request, last),
            target: describe(db, &request.entries[last].source),
            reason: "over_budget".into(),
            tokens: None,
        });
        (text, seams) = render(&chosen, request.style);
        tokens = encoding.count(&text);
    }
    let included = chosen
        .iter()
        .map(|c| PackedEntry {
            task: request.entries[c.order].task,
            entry: index_in_task(request, c.order),
            path: c.block.path.clone(),
            name: c.block.name.clone(),
            mode: c.mode,
            start_line: c.block.start_line,
            end_line: c.block.end_line,
            tokens: c.cost,
        })
        .collect();
    omitted.sort_by_key(|o| (o.task, o.entry));
    let complete = omitted.iter().all(|o| o.reason == ALREADY_INCLUDED) && !downgraded;
    Ok(PackAnswer {
        tokens,
        text,
        encoding,
        max_tokens: request.budget.max_tokens,
        status: match complete {
            true => super::ReadStatus::Complete,
            false => super::ReadStatus::WithOmissions,
        },
        included,
        omitted,
        seams,
    })
}

/// The entry's index among its task's entries.
fn index_in_task(request: &PackRequest, order: usize) -> usize {
    let task = request.entries[order].task;
    request.entries[..order]
        .iter()
        .filter(|e| e.task == task)
        .count()
}

/// Finds each entry's forms; required ones are chosen, and any that names nothing fails
/// the pack.
fn sort_entries(
    db: &dyn Db,
    workspace: Workspace,
    request: &PackRequest,
) -> Result<Sorted, PackError> {
    let mut sorted = Sorted {
        chosen: Vec::new(),
        optional: Vec::new(),
        omitted: Vec::new(),
    };
    let mut unavailable = Vec::new();
    for (order, entry) in request.entries.iter().enumerate() {
        let index = index_in_task(request, order);
        match forms(db, workspace, entry, request) {
            Ok((full, skeleton)) => {
                let candidate = Candidate {
                    order,
                    entry: index,
                    full,
                    skeleton,
                };
                let encoding = request.budget.encoding;
                match (entry.required, entry.mode) {
                    (true, PackMode::Skeleton) => sorted.chosen.push(Chosen::new(
                        order,
                        candidate.skeleton,
                        PackMode::Skeleton,
                        request.style,
                        encoding,
                    )),
                    (true, _) => sorted.chosen.push(Chosen::new(
                        order,
                        candidate.full,
                        PackMode::Full,
                        request.style,
                        encoding,
                    )),
                    (false, _) => sorted.optional.push((entry.priority, candidate)),
                }
            }
            Err(reason) if entry.required => {
                unavailable.push(format!("{} ({reason})", describe(db, &entry.source)))
            }
            Err(reason) => sorted.omitted.push(OmittedEntry {
                task: entry.task,
                entry: index,
                target: describe(db, &entry.source),
                reason: reason.into(),
                tokens: None,
            }),
        }
    }
    match unavailable.is_empty() {
        true => Ok(sorted),
        false => Err(PackError::RequiredUnavailable(unavailable)),
    }
}

/// Adds the optional entries by priority (then the order given), each in the first of its
/// forms whose cost fits in what `used` leaves; those inside an entry already in in full,
/// or that fit in no form, are omitted. Each one added goes to `accepted`, in the order
/// added. Whether an `either` entry went in as its skeleton.
fn add_optional(
    db: &dyn Db,
    request: &PackRequest,
    chosen: &mut Vec<Chosen>,
    mut optional: Vec<(u8, Candidate)>,
    omitted: &mut Vec<OmittedEntry>,
    used: &mut usize,
    accepted: &mut Vec<usize>,
) -> bool {
    // A stable sort: the order given breaks ties.
    optional.sort_by_key(|(priority, _)| std::cmp::Reverse(*priority));
    let mut downgraded = false;
    for (_, candidate) in optional {
        let entry = &request.entries[candidate.order];
        let omit = |reason: &str, tokens| OmittedEntry {
            task: entry.task,
            entry: candidate.entry,
            target: describe(db, &entry.source),
            reason: reason.into(),
            tokens,
        };
        let full = &candidate.full.block;
        let covered = chosen.iter().any(|c| {
            c.mode == PackMode::Full
                && c.block.path == full.path
                && c.block.start_line <= full.start_line
                && full.end_line <= c.block.end_line
        });
        if covered {
            omitted.push(omit(ALREADY_INCLUDED, None));
            continue;
        }
        let (style, encoding) = (request.style, request.budget.encoding);
        let fits = |c: &Chosen| *used + c.cost < request.budget.max_tokens;
        let full = (entry.mode != PackMode::Skeleton)
            .then(|| {
                Chosen::new(
                    candidate.order,
                    candidate.full,
                    PackMode::Full,
                    style,
                    encoding,
                )
            })
            .filter(fits);
        let fit = match full {
            Some(full) => Ok(full),
            None => {
                let skeleton = Chosen::new(
                    candidate.order,
                    candidate.skeleton,
                    PackMode::Skeleton,
                    style,
                    encoding,
                );
                match entry.mode != PackMode::Full && fits(&skeleton) {
                    true => Ok(skeleton),
                    // What it would have cost in its smallest form.
                    false => Err(skeleton.cost),
                }
            }
        };
        match fit {
            Ok(fit) => {
                // One token more for the line break (or comma) between blocks.
                *used += fit.cost + 1;
                downgraded |= fit.mode == PackMode::Skeleton && entry.mode == PackMode::Either;
                accepted.push(candidate.order);
                chosen.push(fit);
            }
            Err(smallest) => omitted.push(omit("over_budget", Some(smallest))),
        }
    }
    chosen.sort_by_key(|c| c.order);
    downgraded
}

impl Chosen {
    /// The form chosen, with its cost: the tokens of its rendering's frame (header, fence)
    /// plus those of its code; in the json style, of its whole escaped item. Tokens of a
    /// joined text are at most the sum of its parts' in practice (a merge across a seam
    /// only shortens it), so the sum of costs bounds the pack; the pack's text is counted
    /// exactly at the end all the same.
    fn new(
        order: usize,
        form: Form,
        mode: PackMode,
        style: PackStyle,
        encoding: Encoding,
    ) -> Chosen {
        let cost = match style {
            PackStyle::Json => encoding.count(
                &serde_json::to_string(&JsonBlock::new(&form.block, mode)).unwrap_or_default(),
            ),
            _ => {
                let block = &form.block;
                let frame = Block {
                    path: block.path.clone(),
                    start_line: block.start_line,
                    end_line: block.end_line,
                    kind: block.kind,
                    name: block.name.clone(),
                    language: block.language,
                    code: String::new(),
                };
                let fence = fence_for(std::iter::once(form.block.code.as_str()));
                encoding.count(&render_framed(&frame, mode, style, &fence)) + form.code_tokens
            }
        };
        Chosen {
            order,
            block: form.block,
            mode,
            cost,
        }
    }
}

fn describe(db: &dyn Db, source: &PackSource) -> String {
    match source {
        PackSource::File(file) => file.0.path(db).clone(),
        PackSource::Symbol(name) | PackSource::Missing(name) => name.clone(),
    }
}

/// An entry's full block and its skeleton, or why it has none.
fn forms(
    db: &dyn Db,
    workspace: Workspace,
    entry: &PackEntry,
    request: &PackRequest,
) -> Result<(Form, Form), &'static str> {
    let encoding = request.budget.encoding;
    let (file, full) = match &entry.source {
        PackSource::File(file) => {
            let block = whole_file_block(db, file.0);
            // The block's code is the file's text, with a line break added at the end
            // when the file has none.
            let code_tokens = match block.code.len() == file.0.text_len(db) {
                true => file_tokens(db, file.0, encoding) as usize,
                false => encoding.count(&block.code),
            };
            (file.0, Form { block, code_tokens })
        }
        PackSource::Symbol(name) => {
            match definition_named(db, workspace, name, request.path_prefix.as_deref()) {
                Found::Piece(piece) => {
                    let block = piece.block();
                    let file =
                        super::read::file_at(db, workspace, &block.path).ok_or("not_found")?;
                    let code_tokens = encoding.count(&block.code);
                    (file, Form { block, code_tokens })
                }
                Found::Ambiguous(_) => return Err("ambiguous"),
                Found::Missing(_) => return Err("not_found"),
            }
        }
        PackSource::Missing(_) => return Err("not_found"),
    };
    let skeleton = skeleton_of(db, file, &full, encoding);
    Ok((full, skeleton))
}

/// The skeleton of a block's lines: the file's skeleton between the block's first and last
/// lines (the whole skeleton for a whole file).
fn skeleton_of(db: &dyn Db, file: SourceFile, full: &Form, encoding: Encoding) -> Form {
    let skeleton = file_skeleton(db, file);
    let index = crate::semantic::line_index(db, file);
    let (Some(start), end) = (
        index.line_start(full.block.start_line),
        index.line_start(full.block.end_line + 1),
    ) else {
        return full.clone();
    };
    let end = end.unwrap_or(file.text_len(db));
    // A definition inside an elided body has no skeleton of its own: both ends move to
    // the marker's line.
    let (from, to) = (
        skeleton.skeleton_offset(start),
        skeleton.skeleton_offset(end),
    );
    if from >= to {
        return full.clone();
    }
    let code = skeleton.text[from..to].to_string();
    let code_tokens = match (from, to) == (0, skeleton.text.len()) {
        true => skeleton_tokens(db, file, encoding) as usize,
        false => encoding.count(&code),
    };
    Form {
        block: Block {
            code,
            ..full.block.clone()
        },
        code_tokens,
    }
}

/// An entry in the `json` style, in the order a reader wants its fields.
#[derive(Serialize)]
struct JsonBlock<'a> {
    path: &'a str,
    lines: String,
    mode: PackMode,
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<&'a str>,
    content: &'a str,
}

impl<'a> JsonBlock<'a> {
    fn new(block: &'a Block, mode: PackMode) -> JsonBlock<'a> {
        JsonBlock {
            path: &block.path,
            lines: format!("{}-{}", block.start_line, block.end_line),
            mode,
            name: block.name.as_deref(),
            content: &block.code,
        }
    }
}

/// The pack's text and the offsets where its blocks after the first start. JSON is the
/// compact array `[item,item]` (what `serde_json` writes for the list), cut after each comma.
fn render(chosen: &[Chosen], style: PackStyle) -> (String, Vec<usize>) {
    let (open, separator, close) = match style {
        PackStyle::Json => ("[", ",", "]"),
        _ => ("", "\n", ""),
    };
    let mut text = String::from(open);
    let mut seams = Vec::new();
    for (i, c) in chosen.iter().enumerate() {
        if i > 0 {
            text.push_str(separator);
            seams.push(text.len());
        }
        match style {
            PackStyle::Json => text.push_str(
                &serde_json::to_string(&JsonBlock::new(&c.block, c.mode)).unwrap_or_default(),
            ),
            _ => text.push_str(&render_block(&c.block, c.mode, style)),
        }
    }
    text.push_str(close);
    (text, seams)
}

fn render_block(block: &Block, mode: PackMode, style: PackStyle) -> String {
    render_framed(
        block,
        mode,
        style,
        &fence_for(std::iter::once(block.code.as_str())),
    )
}

/// A block in `style`, fenced (markdown) with `fence`.
fn render_framed(block: &Block, mode: PackMode, style: PackStyle, fence: &str) -> String {
    let lines = format!("{}-{}", block.start_line, block.end_line);
    let what = match (&block.kind, &block.name) {
        (Some(kind), Some(name)) => format!(" {} {name}", kind.as_str()),
        _ => String::new(),
    };
    let mode_note = if mode == PackMode::Skeleton {
        " (skeleton)"
    } else {
        ""
    };
    match style {
        PackStyle::Markdown => {
            format!(
                "{}:{lines}{what}{mode_note}\n{fence}{}\n{}{fence}\n",
                block.path, block.language, block.code
            )
        }
        PackStyle::Xml => format!(
            "<file path=\"{}\" lines=\"{lines}\" mode=\"{}\">\n{}</file>\n",
            attribute(&block.path),
            if mode == PackMode::Skeleton {
                "skeleton"
            } else {
                "full"
            },
            block.code
        ),
        PackStyle::Plain | PackStyle::Json => {
            format!(
                "==> {}:{lines}{what}{mode_note} <==\n{}",
                block.path, block.code
            )
        }
    }
}

fn attribute(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
}
