//! The MCP tools. Each parses its arguments strictly, runs one `ide` operation on a
//! workspace snapshot in a blocking task (bounded in number and time), and bounds its answer.

use std::{
    borrow::Cow,
    panic::AssertUnwindSafe,
    sync::{Arc, LazyLock},
};

use rmcp::{
    RoleServer, ServerHandler,
    handler::server::router::tool::ToolRouter,
    model::{
        CallToolResult, Implementation, JsonObject, ProgressNotificationParam, ServerCapabilities,
        ServerConfig,
    },
    service::RequestContext,
    tool, tool_handler, tool_router,
};
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Deserializer, Serialize, de::DeserializeOwned};
use tokio::sync::Semaphore;

use super::{
    ErrorCode, Limits, ToolError,
    answers::{
        DefinitionAnswer, ExplainAnswer, ImportGraphAnswer, ImportsAnswer, Json, LookupAnswer,
        OutlineAnswer, ParseAnswer, Positions, ReferencesAnswer, TypecheckAnswer,
    },
    paths,
    roots::Selection,
    schema::{input_schema, output_schema},
};
use crate::{
    ide::{
        self, Analysis, Cancellable, FileId, Language, ParseOptions, ParseOutput, ReferenceQuery,
        SymbolKind, SymbolQuery, Target, registry,
    },
    workspace::{
        self, FileError, PartialIndex, ReadRefusal, SkipReason, SkippedFile,
        live::{
            FileReadError, LiveStatus, LiveWorkspace, ReadError, RequestCancel, Snapshot,
            WhileIndexing,
        },
        typecheck,
    },
};

mod bootstrap;
mod call_graph;
mod changes;
mod edit_symbol;
mod explore;
mod impact;
mod implementations;
mod pack;
mod patch;
mod read;
mod rename;
mod repo_map;
mod search;
mod skeleton;

pub(super) use rename::NewDiagnosticEntry;

/// What the server tells a client about itself, naming the registry's languages.
static INSTRUCTIONS: LazyLock<String> = LazyLock::new(|| {
    format!(
        "sextant keeps a live index of this workspace's {} code, updated as files change. \
Prefer `lookup_symbol` over grep to find where a function, class, method, type or constant is \
defined (ranked fuzzy search on names, filters by kind, language and path), and `search` for \
text (literal or regex, with the definition around each hit). Use `outline` to \
see a file's structure without reading it, `read_symbol` to read just the definitions you need \
(by name or position, with their docs; several at once under an exact token budget) rather than \
whole files, `read_file` for any file's lines, `skeleton` for files or directories with bodies elided (signatures kept, each body's lines marked), `repo_map` for the most-used definitions of the workspace or a directory, ranked, under a budget, `pack_context` for all a task needs in one call (required and optional files or definitions, \
full or skeleton, by priority; a pack larger than one answer comes as resources to read in order, \
and `release_context` frees them), `workspace_bootstrap` first in a new session (projects, \
instruction files, commands, entry points, layout), `find_definition` and `find_references` for what a \
name means and who uses it (Python, JavaScript, TypeScript, Go, Rust), `call_graph` for who calls a \
function and what it calls, `impact` for everything that depends on definitions, files or changed lines \
(and `affected_tests` for the tests among them), `explore` for one read answering a question (the definitions it names, the call paths between them, their dependents), `changes` for what the working tree or a range of \
commits changed, definition by definition, with the tests to run, `rename_symbol` to rename \
one across the workspace (a checked dry run with a diff unless `apply` is true) or in a snippet, `list_imports` for what a file imports and where \
each import leads, `import_graph` for what a file depends on, what depends on it and \
import cycles, `parse_source` for syntax errors, `typecheck` for diagnostics with codes \
(`explain_diagnostic` explains one), and `workspace_status` for what is indexed. Paths are relative to the workspace root; answers give \
1-based line numbers, and `positions: \"full\"` adds columns and byte offsets.",
        ide::language_names()
    )
});

/// `workspace_status` calls answered at once, outside the in-flight limit.
const STATUS_LANE_SLOTS: usize = 2;

/// The semaphore a tool call waits on.
#[derive(Clone, Copy)]
enum Lane {
    Compute,
    Status,
}

/// A language a client may name: its schema is an enum of the registry's ids.
#[derive(Clone, Copy)]
pub struct LanguageId(&'static Language);

impl LanguageId {
    pub(super) fn language(self) -> &'static Language {
        self.0
    }
}

impl std::fmt::Debug for LanguageId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "LanguageId({:?})", self.0.id)
    }
}

impl<'de> Deserialize<'de> for LanguageId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let id = String::deserialize(deserializer)?;
        registry().by_id(&id).map(LanguageId).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "unknown language {id:?} (known: {})",
                registry().ids().join(", ")
            ))
        })
    }
}

impl JsonSchema for LanguageId {
    fn schema_name() -> Cow<'static, str> {
        "LanguageId".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "string", "enum": registry().ids() })
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ParseSourceArgs {
    /// Source text to parse; requires `language`. Give this or `path`.
    pub source: Option<String>,
    /// Language of `source`.
    pub language: Option<LanguageId>,
    /// Workspace file to parse instead of `source`.
    pub path: Option<String>,
    /// Show tree nodes down to this depth (default 4).
    #[schemars(range(min = 1, max = 1000))]
    pub max_depth: Option<u32>,
    /// At most this many tree lines (default 200).
    #[schemars(range(min = 1, max = 5000))]
    pub max_nodes: Option<u32>,
    /// `lines` (default): errors give line and column; `full`: also a `span` with byte offsets.
    pub positions: Option<Positions>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OutlineArgs {
    /// Workspace file.
    pub path: String,
    /// At most this many symbols, in document order (default 300; fewer when the answer
    /// would exceed the size limit).
    #[schemars(range(min = 1, max = 5000))]
    pub limit: Option<u32>,
    /// Start at this symbol (document order): the `next_offset` of a truncated answer.
    pub offset: Option<u32>,
    /// `lines` (default): line numbers only; `full`: also `span` and `name_span` with
    /// columns and byte offsets.
    pub positions: Option<Positions>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListImportsArgs {
    /// Workspace file.
    pub path: String,
    /// `lines` (default): line numbers only; `full`: also `span` and `definition_span` with
    /// columns and byte offsets.
    pub positions: Option<Positions>,
}

// Which way `import_graph` follows imports (plain comments: a documented variant would
// turn the schema's `enum` into a `oneOf`).
#[derive(Clone, Copy, Debug, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum GraphDirection {
    // What the file imports.
    #[default]
    Dependencies,
    // What imports the file.
    Dependents,
}

// What an `import_graph` node is.
#[derive(Clone, Copy, Debug, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum GraphGranularity {
    #[default]
    File,
    // A directory.
    Package,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ImportGraphArgs {
    /// Workspace file to start from; omit for the whole workspace.
    pub file_path: Option<String>,
    /// `dependencies` (default): what the file imports; `dependents`: what imports it.
    pub direction: Option<GraphDirection>,
    /// Imports to follow from the file (default 2).
    #[schemars(range(min = 0, max = 20))]
    pub depth: Option<u32>,
    /// `file` (default) or `package`: nodes are directories.
    pub granularity: Option<GraphGranularity>,
    /// At most this many nodes and cycles (default 100).
    #[schemars(range(min = 1, max = 2000))]
    pub limit: Option<u32>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FindDefinitionArgs {
    /// A name, optionally qualified by module or class (`join`, `posixpath.join`,
    /// `Class.method`). Or give `path`, `line` and `column` instead.
    pub query: Option<String>,
    /// Workspace file holding the name (with `line` and `column`).
    pub path: Option<String>,
    /// 1-based line of the name.
    #[schemars(range(min = 1))]
    pub line: Option<u32>,
    /// 1-based column (in characters) of any character of the name.
    #[schemars(range(min = 1))]
    pub column: Option<u32>,
    /// With `query`: only definitions in files under this workspace-relative prefix.
    pub path_prefix: Option<String>,
    /// `lines` (default) or `full` (adds spans).
    pub positions: Option<Positions>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FindReferencesArgs {
    /// A name, optionally qualified by module or class (`join`, `posixpath.join`,
    /// `Class.method`). Or give `path`, `line` and `column` instead.
    pub query: Option<String>,
    /// Workspace file holding the name (with `line` and `column`).
    pub path: Option<String>,
    /// 1-based line of the name.
    #[schemars(range(min = 1))]
    pub line: Option<u32>,
    /// 1-based column (in characters) of any character of the name.
    #[schemars(range(min = 1))]
    pub column: Option<u32>,
    /// Only references in files under this workspace-relative prefix.
    pub path_prefix: Option<String>,
    /// `lines` (default) or `full` (adds spans).
    pub positions: Option<Positions>,
    /// Only exact references (leave out members matched by name on receivers of unknown type).
    pub exact_only: Option<bool>,
    /// Leave out the definitions themselves (default false).
    pub exclude_definitions: Option<bool>,
    /// For a method: also the references of the methods it overrides and of those that
    /// override it, at every level (default false).
    pub include_family: Option<bool>,
    /// At most this many references (default 100).
    #[schemars(range(min = 1, max = 1000))]
    pub limit: Option<u32>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LookupSymbolArgs {
    /// Name or part of a name: exact, prefix, word starts (`gsi` for get_symbol_index), substring.
    pub query: String,
    /// Only these kinds.
    pub kinds: Option<Vec<SymbolKind>>,
    /// Only files of this language.
    pub language: Option<LanguageId>,
    /// Only files under this workspace-relative prefix, e.g. `src/`.
    pub path_prefix: Option<String>,
    /// At most this many results (default 20).
    #[schemars(range(min = 1, max = 200))]
    pub limit: Option<u32>,
    /// `lines` (default): line numbers only; `full`: also `span` and `name_span` with
    /// columns and byte offsets.
    pub positions: Option<Positions>,
}

#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WorkspaceStatusArgs {}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TypecheckArgs {
    /// Workspace files or directories to check; omit for the whole workspace.
    pub file_paths: Option<Vec<String>>,
    /// Only diagnostics at least this severe (`error` < `warning` < `information` < `hint`).
    pub severity: Option<ide::Severity>,
    /// Only these codes: ids (`SX005`), names (`undefined-name`), id prefixes (`SX00`) or,
    /// with `depth: "deep"`, tool codes and their prefixes (`tsc:TS2322`, `rustc:`);
    /// they replace the codes `sextant.toml` selects, as `--select` does (so a code off by
    /// default, such as `unused-suppression`, can be asked for).
    pub codes: Option<Vec<String>>,
    /// At most this many diagnostics (default 100; the summary counts all).
    #[schemars(range(min = 1, max = 5000))]
    pub limit: Option<u32>,
    /// `lines` (default): line and column; `full`: also a `span` with byte offsets.
    pub positions: Option<Positions>,
    /// Also compute the fixes of the diagnostics found (applied round after round, as
    /// `sextant check --fix` does) and answer their unified diff; nothing is written (pass
    /// the diff to `apply_patch` to write it).
    pub fix: Option<bool>,
    /// With `fix`: the unsafe fixes too (right when the check is right about the program).
    pub unsafe_fixes: Option<bool>,
    /// `lint` (default unless `sextant.toml` sets `[typecheck] deep = true`): sextant's
    /// checks; `deep`: also the projects' own type checkers (tsc, go vet, cargo check,
    /// mypy), merged in, with each run's status in `checkers`.
    pub depth: Option<Depth>,
}

// How far a check goes (plain comments, as for `Positions`).
#[derive(Clone, Copy, Debug, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Depth {
    // sextant's own checks.
    Lint,
    // Also the projects' type checkers.
    Deep,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExplainDiagnosticArgs {
    /// A diagnostic code's id (`SX005`) or name (`undefined-name`).
    pub code: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct WorkspaceStatus {
    pub root: String,
    /// On a server of several roots: each root, by the name a call's `root` gives.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub roots: Option<Vec<super::RootInfo>>,
    pub server_version: String,
    #[serde(flatten)]
    pub index: LiveStatus,
    /// Files, bytes, lines and symbols per language (absent while indexing).
    pub stats: Option<ide::WorkspaceStats>,
    /// Skipped files (at most 50 listed) and how many in all.
    pub skipped: Vec<SkippedFile>,
    pub skipped_total: usize,
    /// Projects found from their manifests (`Cargo.toml`, `package.json`, `go.mod`, ...),
    /// sorted by root; at most 50, and fewer if their details would crowd the answer.
    pub projects: Vec<ide::ProjectInfo>,
    pub projects_total: usize,
    pub languages: Vec<String>,
    pub limits: Limits,
}

#[derive(Clone)]
pub struct SextantServer {
    /// The root this call answers from: the first root, or the one a call's `root`
    /// argument chose (`ServerHandler::call_tool`).
    live: Arc<LiveWorkspace>,
    roots: Arc<super::roots::Roots>,
    /// This call asks every root ([`super::roots::Selection::Every`]).
    every_root: bool,
    limits: Arc<Limits>,
    /// Slots for tool calls that compute (`max_in_flight`).
    in_flight: Arc<Semaphore>,
    /// A lane of its own for `workspace_status`, which only reads memoized state, so that
    /// it answers while expensive calls fill every slot.
    status_lane: Arc<Semaphore>,
    /// The token budgets of reading runs (`read_symbol`'s `run_id`).
    runs: Arc<super::budget::RunBudgets>,
    /// This session's parts of a pack too large for one answer: each session has its own
    /// (see [`SextantServer::for_new_session`]).
    packs: Arc<super::resources::PackStore>,
    /// Test hook: `SEXTANT_TEST_PANIC=<tool name>` (`testing::TestHooks::panic_in_tool`) makes that tool panic
    /// inside its worker, so tests can check that a panic fails only that request.
    inject_panic: Option<String>,
    tool_router: ToolRouter<Self>,
}

/// Strict argument parsing that reports failures as tool errors (the model can correct
/// itself) rather than protocol errors.
fn parse_args<T: DeserializeOwned>(args: JsonObject) -> Result<T, ToolError> {
    serde_json::from_value(serde_json::Value::Object(args)).map_err(|e| {
        ToolError::new(
            ErrorCode::InvalidArgument,
            format!("invalid arguments: {e}"),
        )
    })
}

/// What `find_definition`, `find_references` and `rename_symbol` start from
/// ([`ide::Target::from_fields`], the CLI's parser too).
fn name_or_position(
    query: &Option<String>,
    path: &Option<String>,
    line: Option<u32>,
    column: Option<u32>,
) -> Result<Target, ToolError> {
    Target::from_fields(query.as_deref(), path.as_deref(), line, column)
        .map_err(|error| ToolError::new(ErrorCode::InvalidArgument, error.message))
}

/// The byte offset of 1-based `line` and `column` (characters); past the end of the file
/// is clamped to its end, so a stale position finds nothing rather than failing.
fn offset_of(analysis: &Analysis, file: FileId, line: u32, column: u32) -> Cancellable<usize> {
    let index = analysis.line_index(file)?;
    Ok(index.offset(line - 1, column - 1, ide::ColumnUnit::Chars))
}

fn in_range(
    name: &str,
    value: Option<u32>,
    min: u32,
    max: u32,
    default: u32,
) -> Result<usize, ToolError> {
    match value {
        None => Ok(default as usize),
        Some(v) if (min..=max).contains(&v) => Ok(v as usize),
        Some(v) => Err(ToolError::new(
            ErrorCode::InvalidArgument,
            format!("{name} must be between {min} and {max}, got {v}"),
        )),
    }
}

/// A tool failure: `isError: true` with the JSON `{code, message}` as text content. Not as
/// structured content: clients check structured content against the tool's output schema,
/// errors included (the TypeScript SDK rejects the whole result otherwise).
impl From<ToolError> for CallToolResult {
    fn from(e: ToolError) -> CallToolResult {
        let mut body = serde_json::json!({ "code": e.code, "message": e.message });
        if let (Some(details), Some(object)) = (e.details, body.as_object_mut()) {
            object.extend(details);
        }
        CallToolResult::error(vec![rmcp::model::ContentBlock::text(body.to_string())])
    }
}

type ToolResult<T> = Result<Json<T>, CallToolResult>;

/// On a server of several roots, every tool takes an optional `root`
/// ([`super::roots::Roots::select`] takes it out before the tool sees its arguments).
fn with_root_argument(
    mut router: ToolRouter<SextantServer>,
    names: Option<Vec<String>>,
) -> ToolRouter<SextantServer> {
    let Some(names) = names else {
        return router;
    };
    let property = serde_json::json!({
        "type": "string",
        "enum": names,
        "description": format!(
            "The root to answer from (default: the one holding an absolute `path`, else {})",
            names[0]
        ),
    });
    for route in router.map.values_mut() {
        let mut schema = (*route.attr.input_schema).clone();
        let properties = schema
            .entry("properties")
            .or_insert_with(|| serde_json::Value::Object(Default::default()));
        if let serde_json::Value::Object(properties) = properties {
            properties.insert(super::roots::ROOT_ARGUMENT.into(), property.clone());
        }
        route.attr.input_schema = Arc::new(schema);
    }
    router
}

/// On a read-only server, the writing arguments (`format::WRITING_ARGUMENTS`) are left out
/// of their tools' schemas and the tools are annotated as reading only; a call that sends
/// one anyway is refused by the tool.
fn without_writes(
    mut router: ToolRouter<SextantServer>,
    read_only: bool,
) -> ToolRouter<SextantServer> {
    if !read_only {
        return router;
    }
    for (tool, argument) in super::format::WRITING_ARGUMENTS
        .iter()
        .chain(patch::WRITING_ARGUMENTS)
    {
        let Some(route) = router.map.get_mut(*tool) else {
            continue;
        };
        let mut schema = (*route.attr.input_schema).clone();
        if let Some(serde_json::Value::Object(properties)) = schema.get_mut("properties") {
            properties.remove(*argument);
        }
        route.attr.input_schema = Arc::new(schema);
        if let Some(annotations) = route.attr.annotations.as_mut() {
            annotations.read_only_hint = Some(true);
            annotations.destructive_hint = Some(false);
        }
    }
    router
}

#[tool_router(router = tool_router)]
impl SextantServer {
    pub fn new(roots: Arc<super::roots::Roots>, limits: Limits) -> SextantServer {
        let limits_read_only = limits.read_only;
        let root_names = roots.is_several().then(|| roots.names());
        SextantServer {
            live: roots.first().clone(),
            roots,
            every_root: false,
            in_flight: Arc::new(Semaphore::new(limits.max_in_flight.max(1))),
            status_lane: Arc::new(Semaphore::new(STATUS_LANE_SLOTS)),
            runs: Arc::default(),
            packs: Arc::new(super::resources::PackStore::new(Arc::default())),
            limits: Arc::new(limits),
            inject_panic: crate::testing::hooks().panic_in_tool.clone(),
            tool_router: with_root_argument(Self::every_tool(limits_read_only), root_names),
        }
    }

    /// Every tool the server offers (a read-only server's without their writing arguments).
    fn every_tool(read_only: bool) -> ToolRouter<SextantServer> {
        without_writes(
            implementations::with_implementations_tool(repo_map::with_repo_map_tool(
                skeleton::with_skeleton_tool(rename::with_rename_tool(
                    search::with_search_tool(Self::tool_router()),
                    read_only,
                )),
            )) + Self::read_router()
                + Self::bootstrap_router()
                + Self::pack_router()
                + Self::patch_router()
                + Self::edit_symbol_router()
                + Self::call_graph_router()
                + Self::impact_router()
                + Self::changes_router()
                + Self::explore_router(),
            read_only,
        )
    }

    /// The server for another session: everything shared (the workspace, the in-flight
    /// limit, runs) but the pack parts, which no other session may list or read.
    pub fn for_new_session(&self) -> SextantServer {
        SextantServer {
            packs: Arc::new(self.packs.sibling()),
            ..self.clone()
        }
    }

    #[tool(
        description = "Syntax tree outline (s-expression, line:col spans) and syntax errors of a source string or workspace file.",
        input_schema = input_schema::<ParseSourceArgs>(),
        output_schema = output_schema::<ParseAnswer>(),
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn parse_source(
        &self,
        args: JsonObject,
        ctx: RequestContext<RoleServer>,
    ) -> Result<Json<ParseAnswer>, CallToolResult> {
        let args: ParseSourceArgs = parse_args(args)?;
        let positions = args.positions.unwrap_or_default();
        let options = ParseOptions {
            max_depth: in_range("max_depth", args.max_depth, 1, 1000, 4)?,
            max_nodes: in_range("max_nodes", args.max_nodes, 1, 5000, 200)?,
            max_errors: 50,
        };
        let limits = self.limits.clone();
        let mut out = match (args.source, args.path) {
            (Some(source), None) => {
                let language = args.language.ok_or_else(|| {
                    ToolError::new(ErrorCode::InvalidArgument, "`source` needs `language`")
                })?;
                if source.len() > limits.max_source_bytes {
                    return Err(ToolError::new(
                        ErrorCode::TooLarge,
                        format!(
                            "source is {} bytes; the limit is {}",
                            source.len(),
                            limits.max_source_bytes
                        ),
                    )
                    .into());
                }
                let lang = language.language();
                self.run("parse_source", ctx, Lane::Compute, move |cancel| {
                    let (analysis, file) =
                        workspace::standalone_source("<source>".into(), lang, source.into_bytes())
                            .map_err(file_error)?;
                    cancel.watch(analysis.cancellation_token());
                    analysis.parse_tree(file, options).map_err(|_| cancelled())
                })
                .await?
            }
            (None, Some(path)) => {
                if args.language.is_some() {
                    return Err(ToolError::new(
                        ErrorCode::InvalidArgument,
                        "`language` goes with `source`, not `path`",
                    )
                    .into());
                }
                self.run_on_file(
                    "parse_source",
                    ctx,
                    path,
                    WhileIndexing::Answer,
                    move |analysis, file| analysis.parse_tree(file, options),
                )
                .await?
            }
            _ => {
                return Err(ToolError::new(
                    ErrorCode::InvalidArgument,
                    "give exactly one of `source` and `path`",
                )
                .into());
            }
        };
        fit_tree(&mut out, limits.max_response_chars);
        Ok(Json(ParseAnswer::new(out, positions)))
    }

    #[tool(
        description = "Fix layout (indentation, whitespace, newlines; tokens unchanged) of `source` + `language`, or diff a workspace `path` (written only with `apply: true`).",
        input_schema = input_schema::<super::format::FormatSourceArgs>(),
        output_schema = output_schema::<super::format::FormatAnswer>(),
        annotations(read_only_hint = false, destructive_hint = true, idempotent_hint = true, open_world_hint = false)
    )]
    async fn format_source(
        &self,
        args: JsonObject,
        ctx: RequestContext<RoleServer>,
    ) -> Result<Json<super::format::FormatAnswer>, CallToolResult> {
        let request = super::format::FormatRequest::new(
            parse_args(args)?,
            self.limits.max_source_bytes,
            self.writes_allowed(),
        )?;
        let live = self.live.clone();
        let trust = self.limits.formatter_trust();
        let answer = self
            .run("format_source", ctx, Lane::Compute, move |cancel| {
                request.run(&live, cancel, trust)
            })
            .await?;
        self.bounded(answer)
    }

    #[tool(
        description = "Symbols a workspace file defines, as a tree: name, kind, line range, one-line signature.",
        input_schema = input_schema::<OutlineArgs>(),
        output_schema = output_schema::<OutlineAnswer>(),
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn outline(
        &self,
        args: JsonObject,
        ctx: RequestContext<RoleServer>,
    ) -> Result<Json<OutlineAnswer>, CallToolResult> {
        let args: OutlineArgs = parse_args(args)?;
        let positions = args.positions.unwrap_or_default();
        let limit = in_range("limit", args.limit, 1, 5000, 300)?;
        let offset = args.offset.unwrap_or(0) as usize;
        let max_chars = self.limits.max_response_chars;
        let out = self
            .run_on_file(
                "outline",
                ctx,
                args.path,
                WhileIndexing::Answer,
                move |analysis, file| {
                    largest_that_fits(limit, max_chars, |n| {
                        let page = analysis.outline_page(file, offset, n)?;
                        Ok(OutlineAnswer::new(page, positions))
                    })
                },
            )
            .await?;
        self.bounded(out)
    }

    #[tool(
        description = "A workspace file's imports and where each leads: a workspace file (with the line of the definition named), external, or unresolved.",
        input_schema = input_schema::<ListImportsArgs>(),
        output_schema = output_schema::<ImportsAnswer>(),
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn list_imports(
        &self,
        args: JsonObject,
        ctx: RequestContext<RoleServer>,
    ) -> Result<Json<ImportsAnswer>, CallToolResult> {
        let args: ListImportsArgs = parse_args(args)?;
        let positions = args.positions.unwrap_or_default();
        let out = self
            .run_on_file(
                "list_imports",
                ctx,
                args.path,
                WhileIndexing::Answer,
                move |analysis, file| {
                    let imports = analysis.imports(file)?;
                    Ok(ImportsAnswer::new(
                        analysis.file_path(file).to_string(),
                        imports,
                        positions,
                    ))
                },
            )
            .await?;
        self.bounded(out)
    }

    #[tool(
        description = "Where a name is defined, imports followed: by `query` (`name`, `mod.name`, `Class.method`, `T::f`) or at `path`+`line`+`column`. Python, JS, TS, Go, Rust.",
        input_schema = input_schema::<FindDefinitionArgs>(),
        output_schema = output_schema::<DefinitionAnswer>(),
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn find_definition(
        &self,
        args: JsonObject,
        ctx: RequestContext<RoleServer>,
    ) -> Result<Json<DefinitionAnswer>, CallToolResult> {
        let args: FindDefinitionArgs = parse_args(args)?;
        let positions = args.positions.unwrap_or_default();
        let out = match name_or_position(&args.query, &args.path, args.line, args.column)? {
            Target::Name(name) if self.every_root => {
                let prefix = args.path_prefix.clone();
                let answer = self
                    .run_on_every_root(
                        "find_definition",
                        ctx,
                        move |live, cancel| {
                            definitions_named(live, cancel, &name, prefix.as_deref())
                        },
                        move |asked| Ok(DefinitionAnswer::merged(asked, positions)),
                    )
                    .await?;
                return self.bounded(answer);
            }
            Target::Name(name) => {
                let live = self.live.clone();
                let prefix = args.path_prefix.clone();
                let (found, partial) = self
                    .run("find_definition", ctx, Lane::Compute, move |cancel| {
                        definitions_named(&live, cancel, &name, prefix.as_deref())
                    })
                    .await?;
                let mut answer = DefinitionAnswer::new(found, positions);
                answer.partial = partial;
                return self.bounded(answer);
            }
            Target::Position { path, line, column } => {
                self.run_on_file(
                    "find_definition",
                    ctx,
                    path,
                    WhileIndexing::Answer,
                    move |analysis, file| {
                        let offset = offset_of(analysis, file, line, column)?;
                        analysis.definition(file, offset)
                    },
                )
                .await?
            }
        };
        self.bounded(DefinitionAnswer::new(out, positions))
    }

    #[tool(
        description = "Every use of a name (definition, import, call, read, write, type) with its source line, by `query` or at `path`+`line`+`column`. Python, JS, TS, Go, Rust.",
        input_schema = input_schema::<FindReferencesArgs>(),
        output_schema = output_schema::<ReferencesAnswer>(),
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn find_references(
        &self,
        args: JsonObject,
        ctx: RequestContext<RoleServer>,
    ) -> Result<Json<ReferencesAnswer>, CallToolResult> {
        let args: FindReferencesArgs = parse_args(args)?;
        let positions = args.positions.unwrap_or_default();
        let query = ReferenceQuery {
            include_family: args.include_family.unwrap_or(false),
            exact_only: args.exact_only.unwrap_or(false),
            exclude_definitions: args.exclude_definitions.unwrap_or(false),
            path_prefix: args.path_prefix.clone(),
            limit: in_range("limit", args.limit, 1, 1000, 100)?,
        };
        let limit = query.limit;
        let answer = match name_or_position(&args.query, &args.path, args.line, args.column)? {
            Target::Name(name) if self.every_root => {
                self.run_on_every_root(
                    "find_references",
                    ctx,
                    move |live, cancel| {
                        live.read(cancel, |s: &Snapshot| {
                            s.analysis.references_by_name(&name, &query)
                        })
                        .map_err(read_error)
                    },
                    move |asked| Ok(ReferencesAnswer::merged(asked, limit, positions)),
                )
                .await?
            }
            Target::Name(name) => {
                let live = self.live.clone();
                self.run("find_references", ctx, Lane::Compute, move |cancel| {
                    live.read(cancel, |s: &Snapshot| {
                        s.analysis.references_by_name(&name, &query)
                    })
                    .map_err(read_error)
                })
                .await
                .map(|found| ReferencesAnswer::new(found, positions))?
            }
            Target::Position { path, line, column } => self
                .run_on_file(
                    "find_references",
                    ctx,
                    path,
                    WhileIndexing::Wait,
                    move |analysis, file| {
                        let offset = offset_of(analysis, file, line, column)?;
                        analysis.references(file, offset, &query)
                    },
                )
                .await
                .map(|found| ReferencesAnswer::new(found, positions))?,
        };
        // A long list is cut to fit the response budget rather than refused.
        let fitted = largest_that_fits(
            answer.references.len().max(1),
            self.limits.max_response_chars,
            |n| Ok(answer.first(n)),
        )
        .expect("cutting a computed answer is never cancelled");
        self.bounded(fitted)
    }

    #[tool(
        description = "Import graph: what a file imports or what imports it, transitively, with depths; or the whole workspace; import cycles. Files or directories.",
        input_schema = input_schema::<ImportGraphArgs>(),
        output_schema = output_schema::<ImportGraphAnswer>(),
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn import_graph(
        &self,
        args: JsonObject,
        ctx: RequestContext<RoleServer>,
    ) -> Result<Json<ImportGraphAnswer>, CallToolResult> {
        let args: ImportGraphArgs = parse_args(args)?;
        let depth = in_range("depth", args.depth, 0, 20, 2)?;
        let limit = in_range("limit", args.limit, 1, 2000, 100)?;
        let direction = match args.direction.unwrap_or_default() {
            GraphDirection::Dependencies => ide::Direction::Dependencies,
            GraphDirection::Dependents => ide::Direction::Dependents,
        };
        let granularity = match args.granularity.unwrap_or_default() {
            GraphGranularity::File => ide::Granularity::File,
            GraphGranularity::Package => ide::Granularity::Package,
        };
        let (live, max_chars) = (self.live.clone(), self.limits.max_response_chars);
        let out = self
            .run("import_graph", ctx, Lane::Compute, move |cancel| {
                let start = match &args.file_path {
                    Some(path) => Some(paths::resolve(live.root(), path)?.0),
                    None => None,
                };
                let answer = live
                    .read(cancel, |s: &Snapshot| {
                        let file = match &start {
                            Some(rel) => match s.analysis.file(rel) {
                                Some(file) => Some(file),
                                None => return Ok(None),
                            },
                            None => None,
                        };
                        let query = |limit| ide::GraphQuery {
                            file,
                            direction,
                            depth,
                            granularity,
                            external: false,
                            limit,
                        };
                        largest_that_fits(limit, max_chars, |n| {
                            Ok(ImportGraphAnswer::new(s.analysis.import_graph(&query(n))?))
                        })
                        .map(Some)
                    })
                    .map_err(read_error)?;
                answer.ok_or_else(|| {
                    ToolError::new(
                        ErrorCode::NotFound,
                        format!(
                            "{}: not a file the workspace indexes",
                            start.unwrap_or_default()
                        ),
                    )
                })
            })
            .await?;
        self.bounded(out)
    }

    #[tool(
        description = "Find definitions by name across the workspace: ranked fuzzy search with kind, language and path filters.",
        input_schema = input_schema::<LookupSymbolArgs>(),
        output_schema = output_schema::<LookupAnswer>(),
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn lookup_symbol(
        &self,
        args: JsonObject,
        ctx: RequestContext<RoleServer>,
    ) -> Result<Json<LookupAnswer>, CallToolResult> {
        let args: LookupSymbolArgs = parse_args(args)?;
        let positions = args.positions.unwrap_or_default();
        let query = SymbolQuery {
            query: args.query,
            kinds: args.kinds.unwrap_or_default(),
            language: args.language.map(|l| l.language().lang_id),
            path_prefix: args.path_prefix,
            limit: in_range("limit", args.limit, 1, 200, 20)?,
        };
        let out = if self.every_root {
            let (text, limit) = (query.query.clone(), query.limit);
            self.run_on_every_root(
                "lookup_symbol",
                ctx,
                move |live, cancel| search_symbols(live, cancel, &query),
                move |asked| Ok(LookupAnswer::merged(&text, asked, limit, positions)),
            )
            .await?
        } else {
            let live = self.live.clone();
            self.run("lookup_symbol", ctx, Lane::Compute, move |cancel| {
                let (found, partial) = search_symbols(&live, cancel, &query)?;
                let mut answer = LookupAnswer::new(found, positions);
                answer.partial = partial;
                Ok(answer)
            })
            .await?
        };
        self.bounded(out)
    }

    #[tool(
        description = "Diagnostics with stable codes, for files or the workspace; `depth: \"deep\"` adds the projects' type checkers, `fix: true` fixes as a diff for `apply_patch`.",
        input_schema = input_schema::<TypecheckArgs>(),
        output_schema = output_schema::<TypecheckAnswer>(),
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn typecheck(
        &self,
        args: JsonObject,
        ctx: RequestContext<RoleServer>,
    ) -> Result<Json<TypecheckAnswer>, CallToolResult> {
        let args: TypecheckArgs = parse_args(args)?;
        let positions = args.positions.unwrap_or_default();
        let limit = in_range("limit", args.limit, 1, 5000, 100)?;
        let codes = ide::CodeSelection::new(&args.codes.unwrap_or_default(), &[])
            .map_err(|e| ToolError::new(ErrorCode::InvalidArgument, e))?;
        let (live, max_chars) = (self.live.clone(), self.limits.max_response_chars);
        let self_read_only = self.limits.read_only;
        let out = self
            .run("typecheck", ctx, Lane::Compute, move |cancel| {
                let mut paths = Vec::new();
                for path in args.file_paths.iter().flatten() {
                    paths.push(paths::resolve(live.root(), path)?.0);
                }
                let query = ide::CheckQuery {
                    paths,
                    codes,
                    min_severity: args.severity,
                    limit,
                };
                let read_only = self_read_only;
                let (mut result, plan) = live
                    .read(cancel, |s: &Snapshot| {
                        let (config, state_dir) = &*s.typecheck;
                        let deep = match args.depth {
                            Some(depth) => depth == Depth::Deep,
                            None => config.deep,
                        };
                        if !deep {
                            return Ok((s.analysis.check(&query)?, None));
                        }
                        // Every lint diagnostic, so that a checker's finding of the same
                        // thing merges into it even past the limit, which merge applies.
                        let all = ide::CheckQuery {
                            limit: usize::MAX,
                            ..query.clone()
                        };
                        let result = s.analysis.check(&all)?;
                        if !result.unmatched_paths.is_empty() {
                            return Ok((result, None));
                        }
                        let options = typecheck::DeepOptions {
                            root: &s.root,
                            config,
                            state_dir: state_dir.clone(),
                            read_only,
                        };
                        let plan = typecheck::plan(&s.analysis, &query.paths, &options)?;
                        Ok((result, Some(plan)))
                    })
                    .map_err(read_error)?;
                if let Some(path) = result.unmatched_paths.first() {
                    return Err(ToolError::new(
                        ErrorCode::NotFound,
                        format!("{path:?}: no file the workspace indexes is there"),
                    ));
                }
                let mut checkers = None;
                if let Some(plan) = plan {
                    let outcome = plan.run(&|| cancel.is_cancelled());
                    if cancel.is_cancelled() {
                        return Err(cancelled());
                    }
                    typecheck::merge(&mut result, &outcome, &query, limit);
                    checkers = Some(outcome.checkers);
                }
                let mut answer = TypecheckAnswer::new(result, positions);
                answer.checkers = checkers;
                if args.fix == Some(true) {
                    let query = ide::FixQuery {
                        paths: query.paths,
                        codes: query.codes,
                        unsafe_fixes: args.unsafe_fixes == Some(true),
                        check: ide::CheckPolicy::Refuse,
                        limit: 0,
                    };
                    let outcome = live
                        .read(cancel, |s: &Snapshot| s.analysis.fix(&query))
                        .map_err(read_error)?;
                    answer.fixes = Some(crate::mcp::answers::FixesAnswer::new(outcome, positions));
                } else if args.unsafe_fixes.is_some() {
                    return Err(ToolError::new(
                        ErrorCode::InvalidArgument,
                        "`unsafe_fixes` applies with `fix: true`",
                    ));
                }
                Ok(
                    largest_that_fits(answer.diagnostics.len().max(1), max_chars, |n| {
                        Ok(answer.first(n))
                    })
                    .expect("cutting a computed answer is never cancelled"),
                )
            })
            .await?;
        self.bounded(out)
    }

    #[tool(
        description = "What a diagnostic code means (`SX005`, `undefined-name`, or a checker's: `rustc:E0308`, with the tool's explanation and documentation link).",
        input_schema = input_schema::<ExplainDiagnosticArgs>(),
        output_schema = output_schema::<ExplainAnswer>(),
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn explain_diagnostic(
        &self,
        args: JsonObject,
        ctx: RequestContext<RoleServer>,
    ) -> Result<Json<ExplainAnswer>, CallToolResult> {
        let args: ExplainDiagnosticArgs = parse_args(args)?;
        if args.code.contains(':') {
            let code = args.code.clone();
            let out = self
                .run("explain_diagnostic", ctx, Lane::Compute, move |cancel| {
                    // A code with a colon is a checker's, so an answer is always given.
                    let answer = typecheck::explain_tool_code(&code, &|| cancel.is_cancelled())
                        .unwrap_or_else(|| Err(typecheck::ExplainError::Unknown(code.clone())));
                    match answer {
                        Ok(explained) => Ok(ExplainAnswer::for_tool(explained)),
                        Err(typecheck::ExplainError::Cancelled) => Err(cancelled()),
                        Err(typecheck::ExplainError::Unknown(why)) => {
                            Err(ToolError::new(ErrorCode::NotFound, why))
                        }
                    }
                })
                .await?;
            return self.bounded(out);
        }
        let code = ide::explain(&args.code).ok_or_else(|| {
            ToolError::new(
                ErrorCode::NotFound,
                format!(
                    "{:?} is not a diagnostic code (they run from SX001 to {})",
                    args.code,
                    ide::diagnostic_codes().last().map_or("", |c| c.id.as_str())
                ),
            )
        })?;
        self.bounded(ExplainAnswer::new(code))
    }

    #[tool(
        description = "Workspace root, index readiness, files per language, skipped files, a sextant.toml that cannot be used (config_error) and the limits in force.",
        input_schema = input_schema::<WorkspaceStatusArgs>(),
        output_schema = output_schema::<WorkspaceStatus>(),
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn workspace_status(
        &self,
        args: JsonObject,
        ctx: RequestContext<RoleServer>,
    ) -> Result<Json<WorkspaceStatus>, CallToolResult> {
        let _: WorkspaceStatusArgs = parse_args(args)?;
        let live = self.live.clone();
        let limits = (*self.limits).clone();
        let roots = self.roots.is_several().then(|| self.roots.infos());
        let out = self
            .run("workspace_status", ctx, Lane::Status, move |cancel| {
                // Small workspaces are ready in a moment; larger ones report progress.
                live.wait_ready(std::time::Duration::from_secs(2));
                let index = live.status();
                let (stats, skipped, projects) = if index.ready {
                    live.read(cancel, |s: &Snapshot| {
                        let projects = s.analysis.projects()?;
                        Ok((s.analysis.workspace_stats()?, s.skipped.clone(), projects))
                    })
                    .map(|(stats, skipped, projects)| (Some(stats), skipped, projects))
                    .map_err(read_error)?
                } else {
                    (None, Arc::from(Vec::new()), Vec::new())
                };
                let projects_total = projects.len();
                let projects = first_projects(projects, limits.max_response_chars / 4);
                Ok(WorkspaceStatus {
                    root: live.root().display().to_string(),
                    roots,
                    server_version: env!("CARGO_PKG_VERSION").into(),
                    index: live.status(),
                    stats,
                    skipped_total: skipped.len(),
                    skipped: skipped.iter().take(50).cloned().collect(),
                    projects,
                    projects_total,
                    languages: registry().ids().iter().map(|s| s.to_string()).collect(),
                    limits,
                })
            })
            .await?;
        self.bounded(out)
    }
}

/// The symbols `query` finds in `live`, with the files it had indexed when its first index
/// was still running (answered from the shards built so far).
fn search_symbols(
    live: &LiveWorkspace,
    cancel: &RequestCancel,
    query: &SymbolQuery,
) -> Result<(ide::SymbolSearch, Option<super::answers::Indexed>), ToolError> {
    let full = |s: &Snapshot| Ok((s.analysis.symbol_search(query)?, None));
    let partial = |p: &PartialIndex| {
        let shards = p.shards_built();
        let found = p.snapshot.analysis.symbol_search_in_shards(query, shards)?;
        Ok(Some((found, indexed_so_far(p, shards))))
    };
    live.read_or_partial(cancel, full, partial)
        .map_err(read_error)
}

/// How much of the workspace the first `shards` shards of `p` hold, for a partial
/// answer's mark; `None` once they hold every file (the answer is then the whole index's).
pub(super) fn indexed_so_far(p: &PartialIndex, shards: u32) -> Option<super::answers::Indexed> {
    (!p.covers_every_file(shards)).then(|| p.indexed(shards))
}

/// The definitions called `name` in `live`, with the files it had indexed when its first
/// index was still running: from the shards built so far once their files define the
/// name (a miss there is no answer while files are unread: it waits for the whole index).
fn definitions_named(
    live: &LiveWorkspace,
    cancel: &RequestCancel,
    name: &str,
    prefix: Option<&str>,
) -> Result<(Vec<ide::Definition>, Option<super::answers::Indexed>), ToolError> {
    let full = |s: &Snapshot| Ok((s.analysis.definition_by_name(name, prefix)?, None));
    let partial = |p: &PartialIndex| {
        let shards = p.shards_built();
        let scope = ide::NameScope::FirstShards(shards);
        let found = p
            .snapshot
            .analysis
            .definition_by_name_in(name, prefix, scope)?;
        Ok((!found.is_empty()).then(|| (found, indexed_so_far(p, shards))))
    };
    live.read_or_partial(cancel, full, partial)
        .map_err(read_error)
}

/// The first projects (at most 50) whose JSON fits in `budget` characters.
fn first_projects(projects: Vec<ide::ProjectInfo>, budget: usize) -> Vec<ide::ProjectInfo> {
    let mut used = 0;
    projects
        .into_iter()
        .take(50)
        .take_while(|p| {
            used += serde_json::to_string(p).map_or(usize::MAX, |s| s.len());
            used <= budget
        })
        .collect()
}

pub(super) fn cancelled() -> ToolError {
    ToolError::new(ErrorCode::Timeout, "the request was cancelled")
}

pub(super) fn read_error(e: ReadError) -> ToolError {
    match e {
        ReadError::Cancelled => cancelled(),
        ReadError::LoadFailed(message) => ToolError::new(
            ErrorCode::Internal,
            format!("the workspace could not be loaded: {message}"),
        ),
    }
}

/// The answer `build(n)` for the largest `n <= limit` whose JSON fits in `max_chars` (at least
/// one item, which `bounded` refuses if even that is too large). A long list is cut to fit
/// rather than refused, and says where to continue.
fn largest_that_fits<T: Serialize>(
    limit: usize,
    max_chars: usize,
    build: impl Fn(usize) -> Result<T, ide::Cancelled>,
) -> Result<T, ide::Cancelled> {
    let fits = |value: &T| serde_json::to_string(value).is_ok_and(|s| s.len() <= max_chars);
    let full = build(limit)?;
    if fits(&full) {
        return Ok(full);
    }
    // The size grows with n: find the largest n that fits (n = 1 is the floor).
    let (mut low, mut high) = (1, limit);
    while low < high {
        let mid = low + (high - low).div_ceil(2);
        if fits(&build(mid)?) {
            low = mid;
        } else {
            high = mid - 1;
        }
    }
    build(low)
}

/// Cuts a parse tree to fit the response budget, keeping whole lines.
fn fit_tree(out: &mut ParseOutput, max_chars: usize) {
    let budget = max_chars.saturating_sub(4_000);
    if out.tree.len() > budget {
        let cut = out.tree[..ide::floor_char_boundary(&out.tree, budget)]
            .rfind('\n')
            .map_or(0, |i| i + 1);
        out.node_count = out.tree[..cut].lines().count();
        out.tree.truncate(cut);
        out.truncated = true;
    }
}

impl SextantServer {
    /// Whether tools may write files (`format_source` with `apply`). The hook for a
    /// read-only server: answering false hides nothing yet but refuses every writing
    /// argument listed in `format::WRITING_ARGUMENTS`.
    pub(super) fn writes_allowed(&self) -> bool {
        !self.limits.read_only
    }

    /// Asks every root `ask` within one slot and the time limit of the call, each root
    /// waited for three quarters of it ([`super::roots::Roots::ask_every`]: the rest is
    /// left to answer with the roots that did), then `merge`s what they answered; fails
    /// when no root answered.
    async fn run_on_every_root<T: Send + 'static, A: Send + 'static>(
        &self,
        tool: &str,
        ctx: RequestContext<RoleServer>,
        ask: impl Fn(&LiveWorkspace, &RequestCancel) -> Result<T, ToolError> + Send + Sync + 'static,
        merge: impl FnOnce(super::roots::Answers<T>) -> Result<A, ToolError> + Send + 'static,
    ) -> Result<A, CallToolResult> {
        self.run_on_every_root_until(tool, ctx, ask, |_, _| None, merge)
            .await
    }

    /// [`SextantServer::run_on_every_root`] for a question where one root's answer can be
    /// the call's failure (`fails`, given the root's index): the other roots are then
    /// stopped at once, and nothing is merged ([`super::roots::Roots::ask_every_until`]).
    async fn run_on_every_root_until<T: Send + 'static, A: Send + 'static>(
        &self,
        tool: &str,
        ctx: RequestContext<RoleServer>,
        ask: impl Fn(&LiveWorkspace, &RequestCancel) -> Result<T, ToolError> + Send + Sync + 'static,
        fails: impl Fn(usize, &Result<T, ToolError>) -> Option<ToolError> + Send + 'static,
        merge: impl FnOnce(super::roots::Answers<T>) -> Result<A, ToolError> + Send + 'static,
    ) -> Result<A, CallToolResult> {
        let roots = self.roots.clone();
        let patience = self.limits.request_timeout() * 3 / 4;
        self.run(tool, ctx, Lane::Compute, move |cancel| {
            let asked = roots.ask_every_until(cancel, patience, ask, fails)?;
            merge(super::roots::answered(asked)?)
        })
        .await
    }

    fn bounded<T: Serialize>(&self, value: T) -> ToolResult<T> {
        let size = serde_json::to_string(&value)
            .map(|s| s.len())
            .unwrap_or(usize::MAX);
        if size > self.limits.max_response_chars {
            return Err(ToolError::new(
                ErrorCode::TooLarge,
                format!(
                    "the answer would be {size} characters; the limit is {}: ask for less (limit, path_prefix)",
                    self.limits.max_response_chars
                ),
            )
            .into());
        }
        Ok(Json(value))
    }

    /// Runs `work` on a blocking thread, within the time limit, cancelled when the client
    /// cancels. A call waits for a slot of its lane (`max_in_flight` for computing calls),
    /// and the slot is released when the work has stopped, not when the answer was sent: a
    /// timed-out call still running would otherwise let another start beside it. `work`
    /// gets the request's [`RequestCancel`] to stop queries and waits. A panic becomes
    /// `INTERNAL`.
    async fn run<T: Send + 'static>(
        &self,
        tool: &str,
        ctx: RequestContext<RoleServer>,
        lane: Lane,
        work: impl FnOnce(&RequestCancel) -> Result<T, ToolError> + Send + 'static,
    ) -> Result<T, CallToolResult> {
        let timeout = self.limits.request_timeout();
        let deadline = tokio::time::Instant::now() + timeout;
        let timed_out = || {
            CallToolResult::from(ToolError::new(
                ErrorCode::Timeout,
                format!(
                    "no answer within {} ms{}",
                    timeout.as_millis(),
                    waiting_for_first_index(tool, &self.live)
                ),
            ))
        };
        let cancelled_by_client = || {
            CallToolResult::from(ToolError::new(
                ErrorCode::Timeout,
                "cancelled by the client",
            ))
        };
        let slots = match lane {
            Lane::Compute => self.in_flight.clone(),
            Lane::Status => self.status_lane.clone(),
        };
        // Waiting for a slot counts against the time limit.
        let permit = tokio::select! {
            permit = slots.acquire_owned() => permit
                .map_err(|_| CallToolResult::from(ToolError::new(ErrorCode::Internal, "server shutting down")))?,
            () = tokio::time::sleep_until(deadline) => return Err(timed_out()),
            () = ctx.ct.cancelled() => return Err(cancelled_by_client()),
        };
        let cancel = Arc::new(RequestCancel::default());
        let _progress = self.report_load_progress(&ctx);
        let inject_panic = self.inject_panic.as_deref() == Some(tool);
        let worker_cancel = cancel.clone();
        let handle = tokio::task::spawn_blocking(move || {
            let _permit = permit;
            std::panic::catch_unwind(AssertUnwindSafe(|| {
                if inject_panic {
                    panic!("injected fault (SEXTANT_TEST_PANIC)");
                }
                work(&worker_cancel)
            }))
        });
        tokio::select! {
            joined = handle => match joined {
                Ok(Ok(result)) => result.map_err(CallToolResult::from),
                Ok(Err(panic)) => Err(ToolError::new(
                    ErrorCode::Internal,
                    format!("internal error: {}", panic_message(&panic)),
                ).into()),
                Err(e) => Err(ToolError::new(ErrorCode::Internal, format!("internal error: {e}")).into()),
            },
            () = tokio::time::sleep_until(deadline) => {
                cancel.cancel();
                Err(timed_out())
            }
            () = ctx.ct.cancelled() => {
                cancel.cancel();
                Err(cancelled_by_client())
            }
        }
    }

    /// While the first index is being built, tells a client that sent a progress token how
    /// far it is (`notifications/progress`: files done of total, and the phase), until the
    /// returned guard is dropped (the call has ended) or the index is ready.
    fn report_load_progress(&self, ctx: &RequestContext<RoleServer>) -> Option<AbortOnDrop> {
        let token = ctx.meta.get_progress_token()?;
        if self.live.status().ready {
            return None;
        }
        let (live, peer) = (self.live.clone(), ctx.peer.clone());
        let task = tokio::spawn(async move {
            let mut last = None;
            loop {
                let status = live.status();
                if status.ready {
                    return;
                }
                if let Some(event) = status.progress.filter(|e| Some(*e) != last) {
                    last = Some(event);
                    // Progress must increase across phases: count both phases as one scale.
                    let (done, total) = match event.phase {
                        workspace::LoadPhase::Reading => (event.done, 2 * event.total),
                        workspace::LoadPhase::Indexing => {
                            (event.total + event.done, 2 * event.total)
                        }
                    };
                    let param = ProgressNotificationParam::new(token.clone(), done as f64)
                        .with_total(total.max(1) as f64)
                        .with_message(format!(
                            "{} {} of {} files",
                            event.phase.as_str(),
                            event.done,
                            event.total
                        ));
                    if peer.notify_progress(param).await.is_err() {
                        return;
                    }
                }
                tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            }
        });
        Some(AbortOnDrop(task))
    }

    /// Resolves a client path and runs `query` on that file: from the live index when it is
    /// indexed, else (an ignored file) read on demand, confined and with the same limits.
    /// `when` says whether it answers while the first index runs.
    async fn run_on_file<T: Send + 'static>(
        &self,
        tool: &str,
        ctx: RequestContext<RoleServer>,
        path: String,
        when: WhileIndexing,
        query: impl Fn(&Analysis, FileId) -> Cancellable<T> + Send + Sync + 'static,
    ) -> Result<T, CallToolResult> {
        let live = self.live.clone();
        self.run(tool, ctx, Lane::Compute, move |cancel| {
            let (rel, abs) = paths::resolve(live.root(), &path)?;
            if abs.is_dir() {
                return Err(ToolError::new(
                    ErrorCode::InvalidArgument,
                    format!("{rel:?} is a directory"),
                ));
            }
            live.read_file(cancel, &rel, when, &query)
                .map_err(|e| match e {
                    FileReadError::Read(e) => read_error(e),
                    FileReadError::Skipped(skipped) => skipped_error(&rel, &skipped),
                    FileReadError::File(e) => file_error(e),
                })
        })
        .await
    }
}

/// The tools that search references (or walk what uses a definition): from part of the
/// files they would miss uses, so they wait for the whole first index.
const REFERENCE_SEARCHES: [&str; 7] = [
    "find_references",
    "call_graph",
    "impact",
    "affected_tests",
    "changes",
    "find_implementations",
    "rename_symbol",
];

/// The tools that answer by name from the files indexed so far once those define the
/// names asked (`lookup_symbol` answers from them whatever they define).
const PARTIAL_LOOKUPS: [&str; 3] = ["find_definition", "read_symbol", "explore"];

/// The tools that read the whole workspace, and wait for its first index.
const WHOLE_WORKSPACE: [&str; 7] = [
    "repo_map",
    "import_graph",
    "typecheck",
    "workspace_bootstrap",
    "pack_context",
    "apply_patch",
    "edit_symbol",
];

/// The tools that answer while the first index runs: from one file, from the files indexed
/// so far, or without the workspace. With the three lists above, every tool is in exactly
/// one (a test checks it), so a new tool is never left out of [`waiting_for_first_index`]
/// by forgetting it. Nothing else reads it: a tool in no list waits for nothing.
#[cfg(test)]
const ANSWER_WHILE_INDEXING: [&str; 11] = [
    "lookup_symbol",
    "search",
    "outline",
    "skeleton",
    "list_imports",
    "parse_source",
    "explain_diagnostic",
    "format_source",
    "read_file",
    "release_context",
    "workspace_status",
];

/// What a call that ran out of time while `live`'s first index runs was waiting for, to
/// end its `TIMEOUT` message with (nothing once the index is built).
fn waiting_for_first_index(tool: &str, live: &LiveWorkspace) -> String {
    let why = if REFERENCE_SEARCHES.contains(&tool) {
        "a search of part of the files would miss uses (`search` with `word: true` lists \
         every line naming it now)"
    } else if PARTIAL_LOOKUPS.contains(&tool) {
        "by name, it answers early only once the files indexed so far define what it names"
    } else if WHOLE_WORKSPACE.contains(&tool) {
        "it reads the whole workspace"
    } else {
        return String::new();
    };
    let status = live.status();
    if status.ready || status.error.is_some() {
        return String::new();
    }
    let progress = match status.progress {
        Some(event) => format!(
            "{} {} of {} files",
            event.phase.as_str(),
            event.done,
            event.total
        ),
        None => "walking the root".to_string(),
    };
    format!(
        ": the first index is still being built ({progress}; see workspace_status), and \
         {tool} waits for it: {why}"
    )
}

/// Stops a background task when the request that started it ends.
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Why an indexed-then-skipped file cannot be answered for.
pub(super) fn skipped_error(rel: &str, skipped: &SkippedFile) -> ToolError {
    let code = match skipped.reason {
        SkipReason::TooLarge => ErrorCode::TooLarge,
        SkipReason::OutsideWorkspace => ErrorCode::PathOutsideWorkspace,
        _ => ErrorCode::InvalidArgument,
    };
    ToolError::new(code, format!("{rel}: not analysed ({})", skipped.detail))
}

pub(super) fn file_error(e: FileError) -> ToolError {
    let code = match &e {
        FileError::Refused { refusal, .. } => match refusal {
            ReadRefusal::NotFound => ErrorCode::NotFound,
            ReadRefusal::OutsideWorkspace(_) => ErrorCode::PathOutsideWorkspace,
            ReadRefusal::TooLarge { .. } => ErrorCode::TooLarge,
            ReadRefusal::NotRegularFile(_) | ReadRefusal::SymlinkLoop | ReadRefusal::Io(_) => {
                ErrorCode::InvalidArgument
            }
        },
        FileError::UnknownLanguage { .. } => ErrorCode::UnsupportedLanguage,
        FileError::Binary { .. } => ErrorCode::InvalidArgument,
    };
    ToolError::new(code, e.to_string())
}

fn panic_message(payload: &Box<dyn std::any::Any + Send>) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a tool panicked".into())
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for SextantServer {
    /// Routes a call to its tool on the root it chose (see [`super::roots`]).
    async fn call_tool(
        &self,
        mut request: rmcp::model::CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::CallToolResponse, rmcp::ErrorData> {
        let selection = self.roots.select(&request.name, request.arguments.as_mut());
        let chosen;
        let server = match selection {
            Ok(Selection::One(live)) if Arc::ptr_eq(&live, &self.live) => self,
            Ok(Selection::One(live)) => {
                chosen = SextantServer {
                    live,
                    ..self.clone()
                };
                &chosen
            }
            Ok(Selection::Every) => {
                chosen = SextantServer {
                    every_root: true,
                    ..self.clone()
                };
                &chosen
            }
            Err(error) => return Ok(CallToolResult::from(error).into()),
        };
        let call = rmcp::handler::server::tool::ToolCallContext::new(server, request, context);
        self.tool_router.call(call).await
    }

    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_resources()
            .enable_resources_list_changed()
            .build();
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new("sextant", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS.as_str())
    }

    /// The parts of this session's last pack too large for one answer, and nothing else.
    async fn list_resources(
        &self,
        _request: Option<rmcp::model::PaginatedRequestParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ListResourcesResult, rmcp::ErrorData> {
        let listed = rmcp::model::ListResourcesResult::with_all_items(self.packs.list());
        Ok(match super::resources::caching_hints(&ctx) {
            true => listed
                .with_ttl_ms(0)
                .with_cache_scope(rmcp::model::CacheScope::Private),
            false => listed,
        })
    }

    /// Protocol 2026-07-28: a `subscriptions/listen` stream may carry
    /// `notifications/resources/list_changed` (the parts), nothing else.
    fn accepted_subscription_filter(
        &self,
        _requested: &rmcp::model::SubscriptionFilter,
    ) -> Option<rmcp::model::SubscriptionFilter> {
        Some(
            rmcp::model::SubscriptionFilter::builder()
                .resources_list_changed()
                .build(),
        )
    }

    /// Says on the stream each time this session's parts change, until it is cancelled.
    async fn listen(
        &self,
        context: rmcp::service::SubscriptionContext,
    ) -> Result<(), rmcp::ErrorData> {
        let mut changes = self.packs.changes();
        if context.accepted().resources_list_changed != Some(true) {
            context.cancelled().await;
            return Ok(());
        }
        loop {
            tokio::select! {
                () = context.cancelled() => return Ok(()),
                changed = changes.changed() => {
                    let sent = match changed {
                        Ok(()) => context.sink().notify_resource_list_changed().await.is_ok(),
                        Err(_) => false,
                    };
                    if !sent {
                        return Ok(());
                    }
                }
            }
        }
    }

    /// A part by a URI this session was given; any other URI is not found.
    async fn read_resource(
        &self,
        request: rmcp::model::ReadResourceRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ReadResourceResponse, rmcp::ErrorData> {
        let Some(contents) = self.packs.read(&request.uri) else {
            return Err(rmcp::ErrorData::resource_not_found(
                "no such resource: this session offers only the parts of its last pack too \
                 large for one answer (sextant://pack/...), until the next such pack or \
                 release_context",
                Some(serde_json::json!({ "uri": request.uri })),
            ));
        };
        let read = rmcp::model::ReadResourceResult::new(vec![contents]);
        Ok(match super::resources::caching_hints(&ctx) {
            true => read
                .with_ttl_ms(0)
                .with_cache_scope(rmcp::model::CacheScope::Private),
            false => read,
        }
        .into())
    }
}

/// Refuses to write a change other than the one a client reviewed (`expected`, the
/// `change_id` of its dry run): a file changed since, and the edit computed now differs.
/// How many bytes of `diff` (a field of `answer`) to keep so that `answer` fits in `limit`
/// characters of JSON; `None` when it fits whole.
fn diff_to_fit<T: Serialize>(answer: &T, diff: &str, limit: usize) -> Option<usize> {
    let total = serde_json::to_string(answer).map_or(usize::MAX, |s| s.len());
    (total > limit).then(|| {
        let over = total - limit + 64;
        ide::floor_char_boundary(diff, diff.len().saturating_sub(over))
    })
}

pub(super) fn reviewed(expected: &str, change: &ide::SourceChange) -> Result<(), ToolError> {
    let now = change.id();
    if change.is_empty() || expected != now {
        return Err(ToolError::new(
            ErrorCode::Conflict,
            format!(
                "the change is not the one reviewed (change_id {expected}): the workspace changed since the dry run; nothing was written"
            ),
        )
        .with_detail("change_id", serde_json::Value::String(now)));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    /// Every list a client reads comes from the registry or from `SymbolKind`: a language
    /// added to `languages.toml` (or a kind added to the enum) shows up everywhere.
    #[test]
    fn schemas_and_instructions_list_every_registered_language_and_kind() {
        let ids = json!(registry().ids());
        let kinds: Vec<&str> = SymbolKind::ALL.iter().map(|k| k.as_str()).collect();
        for schema in [
            input_schema::<ParseSourceArgs>(),
            input_schema::<LookupSymbolArgs>(),
        ] {
            assert_eq!(
                schema["$defs"]["LanguageId"],
                json!({"type": "string", "enum": ids})
            );
        }
        let lookup = input_schema::<LookupSymbolArgs>();
        assert_eq!(lookup["$defs"]["SymbolKind"]["enum"], json!(kinds));
        for output in [
            output_schema::<OutlineAnswer>(),
            output_schema::<LookupAnswer>(),
        ] {
            assert_eq!(output["$defs"]["SymbolKind"]["enum"], json!(kinds));
        }
        let prefix = "sextant keeps a live index of this workspace's ";
        let named = INSTRUCTIONS
            .strip_prefix(prefix)
            .and_then(|rest| rest.split(" code,").next())
            .unwrap();
        // Each name in registry order, separated by `, ` or ` and `, and nothing else.
        let mut rest = named;
        for (i, language) in registry().all().enumerate() {
            if i > 0 {
                rest = rest
                    .strip_prefix(", ")
                    .or_else(|| rest.strip_prefix(" and "))
                    .unwrap_or_else(|| panic!("no separator before {}: {named}", language.name));
            }
            rest = rest
                .strip_prefix(language.name.as_str())
                .unwrap_or_else(|| panic!("{} missing: {named}", language.name));
        }
        assert_eq!(rest, "", "{named}");
    }

    /// The lists of what a tool waits for while the first index runs name tools by string:
    /// a tool renamed would silently drop out of them, and a tool added (one reading every
    /// file, say) would say nothing of what it waits for.
    #[test]
    fn every_tool_is_in_exactly_one_list_of_what_it_waits_for_while_indexing() {
        let lists: [(&str, &[&str]); 4] = [
            ("REFERENCE_SEARCHES", &REFERENCE_SEARCHES),
            ("PARTIAL_LOOKUPS", &PARTIAL_LOOKUPS),
            ("WHOLE_WORKSPACE", &WHOLE_WORKSPACE),
            ("ANSWER_WHILE_INDEXING", &ANSWER_WHILE_INDEXING),
        ];
        for read_only in [false, true] {
            let tools = SextantServer::every_tool(read_only).list_all();
            let registered: Vec<&str> = tools.iter().map(|tool| tool.name.as_ref()).collect();
            for (list, names) in lists {
                for name in names {
                    assert!(
                        registered.contains(name),
                        "{list} names `{name}`, which is no tool: {registered:?}"
                    );
                }
            }
            for tool in &registered {
                let holding: Vec<&str> = lists
                    .iter()
                    .filter(|(_, names)| names.contains(tool))
                    .map(|(list, _)| *list)
                    .collect();
                assert_eq!(
                    holding.len(),
                    1,
                    "`{tool}` is in {holding:?}: put it in the one list saying what it waits \
                     for while the first index runs"
                );
            }
        }
    }

    /// The other lists naming tools by string: the tools that ask every root, and the
    /// writing arguments a read-only server leaves out (a renamed tool or argument would
    /// silently keep writing there).
    #[test]
    fn the_tools_and_arguments_other_lists_name_are_registered() {
        let router = SextantServer::every_tool(false);
        for tool in super::super::roots::FAN_OUT_TOOLS {
            assert!(
                router.has_route(tool),
                "FAN_OUT_TOOLS names `{tool}`, no tool"
            );
        }
        for (tool, argument) in super::super::format::WRITING_ARGUMENTS
            .iter()
            .chain(patch::WRITING_ARGUMENTS)
        {
            let properties = router
                .map
                .get(*tool)
                .map(|route| route.attr.input_schema["properties"].clone());
            assert!(
                properties.is_some_and(|p| p.get(*argument).is_some()),
                "WRITING_ARGUMENTS names `{tool}`'s `{argument}`, which it does not take"
            );
        }
    }

    #[test]
    fn a_language_outside_the_registry_is_refused_with_the_known_ones() {
        let err = serde_json::from_value::<LanguageId>(Value::from("cobol")).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "unknown language \"cobol\" (known: {})",
                registry().ids().join(", ")
            )
        );
        let python = serde_json::from_value::<LanguageId>(Value::from("python")).unwrap();
        assert_eq!(python.language().id, "python");
    }
}
