//! `read_symbol` (definitions, lines, files or a file's definitions, several at once under
//! one budget) and `read_file` (a file's lines from an offset, any text file).
//!
//! Invariant: every path is confined by `paths::resolve` before anything is read; the text
//! content of an answer is exactly the text its `tokens` counts, within the call's budget.

use rmcp::{
    RoleServer,
    model::{CallToolResult, JsonObject},
    service::RequestContext,
    tool, tool_router,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{
    Lane, SextantServer, file_error, in_range, indexed_so_far, parse_args, read_error,
    skipped_error,
};
use crate::{
    ide::{self, ColumnUnit, Encoding, NameScope, ReadAnswer, ReadCursor, ReadRequest, ReadTarget},
    mcp::{
        ErrorCode, ToolError,
        answers::{Indexed, Rendered},
        budget::{RunState, budget},
        paths,
        roots::{self, RootPart},
        schema::{input_schema, output_schema},
    },
    workspace::live::{FileReadError, LiveWorkspace, RequestCancel, Snapshot, WhileIndexing},
};

/// The most targets one `read_symbol` call may name.
const MAX_TARGETS: usize = 50;
/// The longest name or path a target may give, in bytes.
const MAX_TARGET_CHARS: usize = 1024;

/// One thing to read. Give `symbol`; or `path` alone (the whole file), with `outline`
/// (its definitions), with `line` (and `column`: the definition there), or with
/// `start_line` and `end_line`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadTargetArgs {
    /// A definition's name: `join`, `posixpath.join`, `Class.method`, `Type::method`.
    pub symbol: Option<String>,
    /// A workspace file.
    pub path: Option<String>,
    /// 1-based line of (or inside) the definition to read.
    #[schemars(range(min = 1))]
    pub line: Option<u32>,
    /// 1-based column (characters) with `line`.
    #[schemars(range(min = 1))]
    pub column: Option<u32>,
    /// First line of a range (1-based), with `end_line`.
    #[schemars(range(min = 1))]
    pub start_line: Option<u32>,
    /// Last line of a range (inclusive).
    #[schemars(range(min = 1))]
    pub end_line: Option<u32>,
    /// With `path` alone: the file's definitions, their lines and token costs, not its text.
    pub outline: Option<bool>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadSymbolArgs {
    /// What to read, in priority order (at most 50): each goes in whole until one does not
    /// fit; the rest are listed as `omitted`, with a `next_cursor`.
    pub targets: Vec<ReadTargetArgs>,
    /// Lines of context before and after each definition (default 0).
    #[schemars(range(max = 100))]
    pub context_lines: Option<u32>,
    /// Look names up only in files under this workspace-relative prefix.
    pub path_prefix: Option<String>,
    /// An earlier answer's `next_cursor`, with the same targets: continue from there.
    pub cursor: Option<String>,
    /// At most this many tokens of text (default and ceiling: the server's cap).
    #[schemars(range(min = 1))]
    pub max_tokens: Option<u32>,
    /// `o200k_base` (default) or `cl100k_base`.
    pub encoding: Option<Encoding>,
    /// Reads giving the same run id share one budget (`run_max_tokens`): each answer is cut
    /// to what the run has left, and `BUDGET_EXHAUSTED` once it is spent.
    pub run_id: Option<String>,
    /// With a run's first `run_id`: its budget (default 100000).
    #[schemars(range(min = 1))]
    pub run_max_tokens: Option<u32>,
}

/// `read_symbol`'s answer: the read, and the run's budget after it when `run_id` was given.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ReadSymbolAnswer {
    #[serde(flatten)]
    pub read: ReadAnswer,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run: Option<RunState>,
    /// Present while the server's first index runs, for a read of targets by name: every
    /// name was looked up in the files indexed so far, which define it (others may too).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partial: Option<Indexed>,
    /// Asked of every root (several roots, no `root` given): each root, in order, with
    /// `error` when it did not answer (names it defines are then missing).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub roots: Option<Vec<RootPart>>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadFileArgs {
    /// A workspace file (any text file: code, docs, manifests).
    pub path: String,
    /// First line to read (1-based, default 1): a previous answer's `next_offset`.
    #[schemars(range(min = 1))]
    pub offset: Option<u32>,
    /// At most this many lines (default 2000).
    #[schemars(range(min = 1, max = 100000))]
    pub limit: Option<u32>,
    /// At most this many tokens of text (default and ceiling: the server's cap).
    #[schemars(range(min = 1))]
    pub max_tokens: Option<u32>,
    /// `o200k_base` (default) or `cl100k_base`.
    pub encoding: Option<Encoding>,
}

/// `read_file`'s answer.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ReadFileAnswer {
    pub path: String,
    /// The lines given (1-based, inclusive); none when `end_line` < `start_line`.
    pub start_line: u32,
    pub end_line: u32,
    pub total_lines: u32,
    /// Exact tokens of the text content.
    pub tokens: usize,
    pub encoding: Encoding,
    /// Lines remain: ask again with this `offset`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_offset: Option<u32>,
}

/// What a read answers: the read, whether it came from the files indexed so far, and with
/// several roots asked, how each took part.
type Answered = Result<(ReadAnswer, Option<Indexed>, Option<Vec<RootPart>>), CallToolResult>;

/// What one root reads of a read asked of every root: each target it was asked (by index
/// in the request) as it reads it.
type RootParts = Vec<(usize, ide::TargetPart)>;

/// What `read_in` reads in `live` with names looked up in every file; while the first index
/// runs, `when` [`WhileIndexing::Partial`] (a target by name), from the files indexed so far
/// once `names_found` says they define every name (with how many files that is), else
/// waiting for the whole index: a miss is no answer while files are unread.
fn read_while_indexing<T: Send>(
    live: &LiveWorkspace,
    cancel: &RequestCancel,
    when: WhileIndexing,
    read_in: impl Fn(&Snapshot, NameScope) -> ide::Cancellable<Result<T, ToolError>> + Sync,
    names_found: impl Fn(&T) -> bool + Sync,
) -> Result<(T, Option<Indexed>), ToolError> {
    let whole = |s: &Snapshot| Ok(read_in(s, NameScope::Workspace)?.map(|read| (read, None)));
    let read = match when {
        WhileIndexing::Partial => live.read_or_partial(cancel, whole, |p| {
            let shards = p.shards_built();
            Ok(
                match read_in(&p.snapshot, NameScope::FirstShards(shards))? {
                    Ok(read) if names_found(&read) => Some(Ok((read, indexed_so_far(p, shards)))),
                    Ok(_) => None,
                    Err(e) if e.code == ErrorCode::NotFound => None,
                    Err(e) => Some(Err(e)),
                },
            )
        }),
        when => live.read_early(cancel, when, whole),
    };
    read.map_err(read_error)?
}

impl SextantServer {
    /// The read in the call's root.
    async fn read_one_root(
        &self,
        ctx: RequestContext<RoleServer>,
        targets: Vec<ClientTarget>,
        options: ReadRequest,
        when: WhileIndexing,
    ) -> Answered {
        let live = self.live.clone();
        self.run("read_symbol", ctx, Lane::Compute, move |cancel| {
            let read_in = |s: &Snapshot, names: NameScope| {
                let targets = match targets.iter().map(|t| t.resolve(s)).collect() {
                    Ok(targets) => targets,
                    Err(e) => return Ok(Err(e)),
                };
                let request = ReadRequest {
                    targets,
                    names,
                    ..options.clone()
                };
                Ok(s.analysis.read(&request)?.map_err(ToolError::failed))
            };
            let every_name = |read: &ReadAnswer| read.not_found.is_empty();
            read_while_indexing(&live, cancel, when, read_in, every_name)
        })
        .await
        .map(|(read, partial)| (read, partial, None))
    }

    /// The read asked of every root: a target by name looked up in each
    /// ([`named_across`]), one by path read in the root it was placed in, all
    /// put under the one budget by [`ide::read_across`].
    async fn read_every_root(
        &self,
        ctx: RequestContext<RoleServer>,
        placed: Vec<(Option<usize>, ClientTarget)>,
        options: ReadRequest,
        when: WhileIndexing,
    ) -> Answered {
        let first = options.cursor.map_or(0, |c| c.target);
        let placed = std::sync::Arc::new(placed);
        let roots = self.roots.clone();
        let asking = placed.clone();
        let (budget, cursor) = (options.budget, options.cursor);
        let ask = move |live: &LiveWorkspace, cancel: &RequestCancel| {
            let here = roots.index_of(live);
            let mine: Vec<usize> = (first..asking.len())
                .filter(|&i| asking[i].0.is_none_or(|root| root == here))
                .collect();
            if mine.is_empty() {
                return Ok((Vec::new(), None));
            }
            let read_in = |s: &Snapshot, names: NameScope| {
                let options = ReadRequest {
                    names,
                    ..options.clone()
                };
                let mut parts = Vec::new();
                for &index in &mine {
                    let target = match asking[index].1.resolve(s) {
                        Ok(target) => target,
                        Err(e) => return Ok(Err(e)),
                    };
                    parts.push((index, s.analysis.read_part(&options, index, &target)?));
                }
                Ok(Ok(parts))
            };
            // Every name this root was asked defined in its files indexed so far.
            let every_name = |parts: &RootParts| {
                parts.iter().all(|(index, part)| {
                    !matches!(asking[*index].1, ClientTarget::Symbol(_))
                        || !part.candidates().is_empty()
                })
            };
            read_while_indexing(live, cancel, when, read_in, every_name)
        };
        // A target by path has one root to be read in: its failure is the call's.
        let holding = placed.clone();
        let fails = move |root: usize, answer: &Result<_, ToolError>| match answer {
            Err(error) if holding.iter().skip(first).any(|(r, _)| *r == Some(root)) => {
                Some(error.clone())
            }
            _ => None,
        };
        let merge = move |asked: roots::Answers<(RootParts, Option<Indexed>)>| {
            let (answered, parts) = roots::split(asked, |(_, indexed)| *indexed);
            let mut by_target: Vec<Vec<(String, ide::TargetPart)>> =
                placed.iter().map(|_| Vec::new()).collect();
            for (root, (found, _)) in answered {
                for (index, part) in found {
                    by_target[index].push((root.clone(), part));
                }
            }
            let targets = placed.iter().zip(by_target).enumerate().map(
                |(index, ((root, target), mut found))| match target {
                    _ if index < first => None,
                    ClientTarget::Symbol(name) if root.is_none() => Some(named_across(name, found)),
                    _ => found.pop().map(|(root, part)| part.in_root(&root)),
                },
            );
            let read =
                ide::read_across(&budget, cursor, targets.collect()).map_err(|e| match e {
                    ide::ReadError::NotFound(_) => roots::not_defined(ToolError::failed(e), &parts),
                    e => ToolError::failed(e),
                })?;
            Ok((read, roots::indexed_in_all(&parts), Some(parts)))
        };
        self.run_on_every_root_until("read_symbol", ctx, ask, fails, merge)
            .await
    }
}

/// What a name target is over every root, given each answering root's part: the
/// definition of the one root defining the name, once ([`roots::sole_definer`]); else every
/// root's candidates, each saying its root (ambiguous), or none (not found).
fn named_across(name: &str, found: Vec<(String, ide::TargetPart)>) -> ide::TargetPart {
    let mut found: Vec<ide::TargetPart> = found
        .into_iter()
        .map(|(root, part)| part.in_root(&root))
        .collect();
    let definitions: Vec<Vec<ide::Candidate>> = found.iter().map(|p| p.candidates()).collect();
    match roots::sole_definer(&definitions) {
        Some(root) => found.swap_remove(root),
        None => ide::TargetPart::ambiguous(name, definitions.concat()),
    }
}

fn invalid(message: impl Into<String>) -> ToolError {
    ToolError::new(ErrorCode::InvalidArgument, message)
}

/// A target as the client gave it, its path resolved inside the root.
enum ClientTarget {
    Symbol(String),
    File {
        rel: String,
        outline: bool,
    },
    At {
        rel: String,
        line: u32,
        column: Option<u32>,
    },
    Lines {
        rel: String,
        start: u32,
        end: u32,
    },
}

impl ClientTarget {
    fn new(args: ReadTargetArgs, root: &std::path::Path) -> Result<ClientTarget, ToolError> {
        for text in [&args.symbol, &args.path].into_iter().flatten() {
            if text.len() > MAX_TARGET_CHARS {
                return Err(ToolError::new(
                    ErrorCode::TooLarge,
                    format!("a target's name or path is at most {MAX_TARGET_CHARS} bytes"),
                ));
            }
        }
        let outline = args.outline.unwrap_or(false);
        let lines = (args.line, args.column, args.start_line, args.end_line);
        match (args.symbol, args.path) {
            (Some(symbol), None) if lines == (None, None, None, None) && !outline => {
                Ok(ClientTarget::Symbol(symbol))
            }
            (None, Some(path)) => {
                let (rel, _) = paths::resolve(root, &path)?;
                match lines {
                    (None, None, None, None) => Ok(ClientTarget::File { rel, outline }),
                    (Some(line), column, None, None) if !outline => {
                        Ok(ClientTarget::At { rel, line, column })
                    }
                    (None, None, Some(start), Some(end)) if !outline && start <= end => {
                        Ok(ClientTarget::Lines { rel, start, end })
                    }
                    _ => Err(invalid(
                        "with `path`, give nothing else, `outline`, `line` (and `column`), or `start_line` <= `end_line`",
                    )),
                }
            }
            _ => Err(invalid(
                "a target is `symbol` alone, or `path` with its options",
            )),
        }
    }

    /// The target in the snapshot's terms; a file it does not index is `NOT_FOUND`.
    fn resolve(&self, s: &Snapshot) -> Result<ReadTarget, ToolError> {
        let file = |rel: &str| {
            s.file(rel).ok_or_else(|| {
                ToolError::new(
                    ErrorCode::NotFound,
                    format!("{rel}: not a file the workspace indexes (read_file reads any file)"),
                )
            })
        };
        Ok(match self {
            ClientTarget::Symbol(name) => ReadTarget::Symbol(name.clone()),
            ClientTarget::File {
                rel,
                outline: false,
            } => ReadTarget::File(file(rel)?),
            ClientTarget::File { rel, outline: true } => ReadTarget::Directory(file(rel)?),
            ClientTarget::Lines { rel, start, end } => ReadTarget::Lines {
                file: file(rel)?,
                start: *start,
                end: *end,
            },
            ClientTarget::At {
                rel,
                line,
                column: None,
            } => ReadTarget::Line {
                file: file(rel)?,
                line: *line,
            },
            ClientTarget::At {
                rel,
                line,
                column: Some(column),
            } => {
                let file = file(rel)?;
                let index = s
                    .analysis
                    .line_index(file)
                    .map_err(|_| super::cancelled())?;
                let offset = index.offset(
                    line.saturating_sub(1),
                    column.saturating_sub(1),
                    ColumnUnit::Chars,
                );
                ReadTarget::At { file, offset }
            }
        })
    }
}

#[tool_router(router = read_router, vis = "pub(super)")]
impl SextantServer {
    #[tool(
        description = "Read definitions (by `symbol` or `path`+`line`, with their docs), line ranges, files or outlines with token costs, in priority order under a token budget.",
        input_schema = input_schema::<ReadSymbolArgs>(),
        output_schema = output_schema::<ReadSymbolAnswer>(),
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn read_symbol(
        &self,
        args: JsonObject,
        ctx: RequestContext<RoleServer>,
    ) -> Result<Rendered<ReadSymbolAnswer>, CallToolResult> {
        let args: ReadSymbolArgs = parse_args(args)?;
        if args.targets.is_empty() || args.targets.len() > MAX_TARGETS {
            return Err(invalid(format!("give 1 to {MAX_TARGETS} targets")).into());
        }
        let mut budget = budget(&self.limits, args.max_tokens, args.encoding)?;
        let context_lines = in_range("context_lines", args.context_lines, 0, 100, 0)? as u32;
        let cursor = match &args.cursor {
            Some(text) => Some(ReadCursor::parse(text).ok_or_else(|| {
                invalid("a cursor is an earlier answer's `next_cursor` (TARGET:LINE)")
            })?),
            None => None,
        };
        // Asked of every root, a target by path is read in the root its path picks.
        let placed = args
            .targets
            .into_iter()
            .map(|t| {
                let root = match (&t.path, self.every_root) {
                    (Some(path), true) => Some(self.roots.index_for_path(path)),
                    _ => None,
                };
                let base = root.map_or(self.live.root(), |i| self.roots.live(i).root());
                Ok((root, ClientTarget::new(t, base)?))
            })
            .collect::<Result<Vec<_>, ToolError>>()?;
        let path_prefix = args.path_prefix;
        let reservation = match &args.run_id {
            Some(id) => {
                let reservation = self
                    .runs
                    .reserve(id, args.run_max_tokens, budget.max_tokens)?;
                budget.max_tokens = reservation.tokens();
                Some(reservation)
            }
            None if args.run_max_tokens.is_some() => {
                return Err(invalid("`run_max_tokens` goes with `run_id`").into());
            }
            None => None,
        };
        // A target by name searches the symbol index (what it holds so far, while the first
        // index runs); any other reads its file alone.
        let when = match placed
            .iter()
            .any(|(_, t)| matches!(t, ClientTarget::Symbol(_)))
        {
            true => WhileIndexing::Partial,
            false => WhileIndexing::Answer,
        };
        let options = ReadRequest {
            targets: Vec::new(),
            context_lines,
            path_prefix,
            names: NameScope::Workspace,
            budget,
            cursor,
        };
        let answer = match self.every_root {
            true => self.read_every_root(ctx, placed, options, when).await,
            false => {
                let targets = placed.into_iter().map(|(_, target)| target).collect();
                self.read_one_root(ctx, targets, options, when).await
            }
        };
        let spent = answer.as_ref().map_or(0, |(read, _, _)| read.tokens);
        let run = reservation.map(|r| self.runs.settle(r, spent));
        let (read, partial, roots) = answer?;
        Ok(Rendered {
            text: read.text.clone(),
            data: ReadSymbolAnswer {
                read,
                run,
                partial,
                roots,
            },
        })
    }

    #[tool(
        description = "Lines of any text file of the workspace from `offset`, at most `limit`, within a token budget; `next_offset` continues. Binary files are refused.",
        input_schema = input_schema::<ReadFileArgs>(),
        output_schema = output_schema::<ReadFileAnswer>(),
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn read_file(
        &self,
        args: JsonObject,
        ctx: RequestContext<RoleServer>,
    ) -> Result<Rendered<ReadFileAnswer>, CallToolResult> {
        let args: ReadFileArgs = parse_args(args)?;
        let budget = budget(&self.limits, args.max_tokens, args.encoding)?;
        let offset = args.offset.unwrap_or(1).max(1);
        let limit = in_range("limit", args.limit, 1, 100_000, 2000)? as u32;
        let live = self.live.clone();
        let (rel, abs) = paths::resolve(live.root(), &args.path)?;
        if abs.is_dir() {
            return Err(invalid(format!("{rel:?} is a directory")).into());
        }
        let answer = self
            .run("read_file", ctx, Lane::Compute, move |cancel| {
                let (text, language) = live.read_text(cancel, &rel).map_err(|e| match e {
                    FileReadError::Read(e) => read_error(e),
                    FileReadError::Skipped(skipped) => skipped_error(&rel, &skipped),
                    FileReadError::File(e) => file_error(e),
                })?;
                let read = ide::read_lines(&rel, language, &text, offset, limit, &budget);
                let piece = read.pieces.first();
                Ok(Rendered {
                    data: ReadFileAnswer {
                        path: rel.clone(),
                        start_line: offset,
                        end_line: piece.map_or(offset - 1, |p| p.end_line),
                        total_lines: text.split_inclusive('\n').count() as u32,
                        tokens: read.tokens,
                        encoding: read.encoding,
                        next_offset: read
                            .next_cursor
                            .as_deref()
                            .and_then(ReadCursor::parse)
                            .map(|c| c.line),
                    },
                    text: read.text,
                })
            })
            .await?;
        Ok(answer)
    }
}
