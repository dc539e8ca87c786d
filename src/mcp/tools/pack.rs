//! `pack_context`: the code of one or more tasks in one answer under one token budget.
//!
//! A pack larger than one answer holds (`max_tokens` over the server's cap) is answered
//! with a summary and links to its parts, resources of this session (`super::resources`)
//! until the next such pack or `release_context`.
//!
//! Invariant: every path is confined by `paths::resolve` before anything is read; a pack
//! holds all of its required entries or fails (`REQUIRED_UNAVAILABLE`,
//! `REQUIRED_OVER_BUDGET`) with no partial body; its text content is what `tokens` counts,
//! and is within the server's cap: the pack itself, or else its summary.

use rmcp::{RoleServer, model::JsonObject, service::RequestContext, tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Lane, SextantServer, parse_args, read_error};
use crate::{
    ide::{Encoding, PackAnswer, PackEntry, PackMode, PackRequest, PackSource, PackStyle},
    mcp::{
        ErrorCode, ToolError,
        answers::{Json, Linked, Rendered},
        budget::pack_budget,
        paths,
        resources::{self, Part, PartEntry},
        schema::{input_schema, output_schema},
    },
    workspace::live::Snapshot,
};

/// The most tasks, and entries in all, of one call.
const MAX_TASKS: usize = 10;
const MAX_ENTRIES: usize = 200;
/// The longest path or name an entry may give, in bytes.
const MAX_ENTRY_CHARS: usize = 1024;

/// A file (`path`) or a definition (`symbol`).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PackEntryArgs {
    /// A workspace file.
    pub path: Option<String>,
    /// A definition's name: `join`, `posixpath.join`, `Class.method`, `Type::method`.
    pub symbol: Option<String>,
    /// `full` (default for required entries), `skeleton` (bodies elided), or, for optional
    /// ones, `either` (default: full when it fits, else the skeleton).
    pub mode: Option<PackMode>,
    /// Optional entries: higher goes in first (default 50).
    #[schemars(range(max = 100))]
    pub priority: Option<u8>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PackTaskArgs {
    /// Entries that must all go in, or the pack fails.
    pub required: Option<Vec<PackEntryArgs>>,
    /// Entries that go in by priority while they fit.
    pub optional: Option<Vec<PackEntryArgs>>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PackContextArgs {
    /// One or more tasks (at most 10; 200 entries in all) sharing the budget.
    pub tasks: Vec<PackTaskArgs>,
    /// At most this many tokens of text (default: the server's cap). Up to 1000000: a
    /// pack over the cap comes as resources, in parts that each fit one answer.
    #[schemars(range(min = 1, max = 1_000_000))]
    pub max_tokens: Option<u32>,
    /// `o200k_base` (default) or `cl100k_base`.
    pub encoding: Option<Encoding>,
    /// `markdown` (default), `xml`, `json` or `plain`.
    pub style: Option<PackStyle>,
    /// Look names up only in files under this workspace-relative prefix.
    pub path_prefix: Option<String>,
}

fn invalid(message: impl Into<String>) -> ToolError {
    ToolError::new(ErrorCode::InvalidArgument, message)
}

/// An entry as given, its path resolved inside the root.
struct ClientEntry {
    task: usize,
    source: ClientSource,
    mode: PackMode,
    required: bool,
    priority: u8,
}

enum ClientSource {
    Path(String),
    Symbol(String),
}

fn client_entries(
    tasks: Vec<PackTaskArgs>,
    root: &std::path::Path,
) -> Result<Vec<ClientEntry>, ToolError> {
    if tasks.is_empty() || tasks.len() > MAX_TASKS {
        return Err(invalid(format!("give 1 to {MAX_TASKS} tasks")));
    }
    let mut entries = Vec::new();
    for (task, args) in tasks.into_iter().enumerate() {
        let required = args.required.into_iter().flatten().map(|e| (true, e));
        let optional = args.optional.into_iter().flatten().map(|e| (false, e));
        for (is_required, entry) in required.chain(optional) {
            if entries.len() == MAX_ENTRIES {
                return Err(invalid(format!("at most {MAX_ENTRIES} entries in all")));
            }
            entries.push(client_entry(task, is_required, entry, root)?);
        }
    }
    if entries.is_empty() {
        return Err(invalid("no entries: give `required` or `optional` entries"));
    }
    Ok(entries)
}

fn client_entry(
    task: usize,
    required: bool,
    entry: PackEntryArgs,
    root: &std::path::Path,
) -> Result<ClientEntry, ToolError> {
    for text in [&entry.path, &entry.symbol].into_iter().flatten() {
        if text.len() > MAX_ENTRY_CHARS {
            return Err(ToolError::new(
                ErrorCode::TooLarge,
                format!("an entry's path or name is at most {MAX_ENTRY_CHARS} bytes"),
            ));
        }
    }
    let source = match (entry.path, entry.symbol) {
        (Some(path), None) => ClientSource::Path(paths::resolve(root, &path)?.0),
        (None, Some(symbol)) => ClientSource::Symbol(symbol),
        _ => return Err(invalid("an entry gives `path` or `symbol`, not both")),
    };
    let mode = match (required, entry.mode) {
        (true, Some(PackMode::Either)) => {
            return Err(invalid(
                "a required entry is `full` or `skeleton`, not `either`",
            ));
        }
        (true, mode) => mode.unwrap_or(PackMode::Full),
        (false, mode) => mode.unwrap_or(PackMode::Either),
    };
    if required && entry.priority.is_some() {
        return Err(invalid("`priority` is for optional entries"));
    }
    let priority = entry.priority.unwrap_or(50);
    if priority > 100 {
        return Err(invalid("priority is 0 to 100"));
    }
    Ok(ClientEntry {
        task,
        source,
        mode,
        required,
        priority,
    })
}

impl ClientEntry {
    /// The entry in the snapshot's terms; an unindexed required file is unavailable, an
    /// optional one is left out as not found.
    fn resolve(&self, s: &Snapshot) -> PackEntry {
        let source = match &self.source {
            ClientSource::Path(rel) => match s.file(rel) {
                Some(file) => PackSource::File(file),
                None => PackSource::Missing(rel.clone()),
            },
            ClientSource::Symbol(name) => PackSource::Symbol(name.clone()),
        };
        PackEntry {
            task: self.task,
            source,
            mode: self.mode,
            required: self.required,
            priority: self.priority,
        }
    }
}

/// `pack_context`'s answer: the pack, and when it is larger than one answer holds, where
/// its parts are (`text` is then a summary of it, and `tokens` counts that summary).
#[derive(Debug, Serialize, JsonSchema)]
pub struct PackContextAnswer {
    #[serde(flatten)]
    pub pack: PackAnswer,
    /// When in parts: the exact tokens of the whole pack.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pack_tokens: Option<usize>,
    /// When in parts: each part's URI for `resources/read`, in order, with its exact
    /// tokens and its bytes; concatenated they are the pack.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<PartEntry>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReleaseContextArgs {}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ReleaseAnswer {
    /// Parts freed (0 when the session held none).
    pub released: usize,
}

#[tool_router(router = pack_router, vis = "pub(super)")]
impl SextantServer {
    #[tool(
        description = "Files and definitions under one token budget: `required` entries or an error, then `optional` ones by priority; a pack over one answer comes as resources.",
        input_schema = input_schema::<PackContextArgs>(),
        output_schema = output_schema::<PackContextAnswer>(),
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn pack_context(
        &self,
        args: JsonObject,
        ctx: RequestContext<RoleServer>,
    ) -> Result<Linked<PackContextAnswer>, rmcp::model::CallToolResult> {
        let args: PackContextArgs = parse_args(args)?;
        let budget = pack_budget(&self.limits, args.max_tokens, args.encoding)?;
        let cap = self.limits.max_answer_tokens;
        let live = self.live.clone();
        let entries = client_entries(args.tasks, live.root())?;
        let (style, path_prefix) = (args.style.unwrap_or_default(), args.path_prefix);
        let notify = resources::ListChanged::of(&ctx);
        let (answer, parts) = self
            .run("pack_context", ctx, Lane::Compute, move |cancel| {
                let answer = live
                    .read(cancel, |s: &Snapshot| {
                        let request = PackRequest {
                            entries: entries.iter().map(|e| e.resolve(s)).collect(),
                            budget,
                            style,
                            path_prefix: path_prefix.clone(),
                        };
                        Ok(s.analysis.pack(&request)?.map_err(ToolError::failed))
                    })
                    .map_err(read_error)??;
                let parts = match answer.tokens > cap {
                    true => Some(resources::split(
                        &answer.text,
                        &answer.seams,
                        budget.encoding,
                        cap,
                    )?),
                    false => None,
                };
                Ok((answer, parts))
            })
            .await?;
        let Some(parts) = parts else {
            return Ok(Linked {
                rendered: Rendered {
                    text: answer.text.clone(),
                    data: PackContextAnswer {
                        pack: answer,
                        pack_tokens: None,
                        parts: Vec::new(),
                    },
                },
                links: Vec::new(),
            });
        };
        Ok(self
            .answer_in_parts(answer, parts, (style, cap), notify)
            .await?)
    }

    #[tool(
        description = "Frees this session's parts of a pack too large for one answer (its sextant://pack/ resources); resources/list is empty after.",
        input_schema = input_schema::<ReleaseContextArgs>(),
        output_schema = output_schema::<ReleaseAnswer>(),
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn release_context(
        &self,
        args: JsonObject,
        ctx: RequestContext<RoleServer>,
    ) -> Result<Json<ReleaseAnswer>, rmcp::model::CallToolResult> {
        let ReleaseContextArgs {} = parse_args(args)?;
        let released = self.packs.release();
        if released > 0 {
            resources::ListChanged::of(&ctx).send().await;
        }
        Ok(Json(ReleaseAnswer { released }))
    }
}

impl SextantServer {
    /// Holds a pack's parts in place of the session's previous ones (and says so to the
    /// client) and answers with its summary and links to them. Should the summary not fit,
    /// nothing stays held.
    async fn answer_in_parts(
        &self,
        mut answer: PackAnswer,
        parts: Vec<Part>,
        (style, cap): (PackStyle, usize),
        notify: resources::ListChanged,
    ) -> Result<Linked<PackContextAnswer>, ToolError> {
        let (entries, links) = self.packs.replace(parts, style, answer.encoding)?;
        notify.send().await;
        let (text, tokens) = resources::summary(&answer, &entries, cap).inspect_err(|_| {
            self.packs.release();
        })?;
        let pack_tokens = std::mem::replace(&mut answer.tokens, tokens);
        answer.text = text.clone();
        Ok(Linked {
            rendered: Rendered {
                text,
                data: PackContextAnswer {
                    pack: answer,
                    pack_tokens: Some(pack_tokens),
                    parts: entries,
                },
            },
            links,
        })
    }
}
