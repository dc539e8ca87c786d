//! The MCP tools. Each parses its arguments strictly, runs one `ide` operation on a
//! workspace snapshot in a blocking task (bounded in number and time), and bounds its answer.

use std::{
    panic::AssertUnwindSafe,
    sync::{Arc, Mutex},
};

use rmcp::{
    Json, RoleServer, ServerHandler,
    handler::server::{router::tool::ToolRouter, wrapper::Parameters},
    model::{CallToolResult, Implementation, JsonObject, ServerCapabilities, ServerConfig},
    service::RequestContext,
    tool, tool_handler, tool_router,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize, de::DeserializeOwned};
use tokio::sync::Semaphore;

use super::{ErrorCode, Limits, ToolError, paths};
use crate::{
    db::SourceFile,
    ide::{self, Outline, ParseOptions, ParseOutput, SymbolQuery, SymbolSearch},
    lang::registry,
    semantic::symbols::SymbolKind,
    workspace::{
        self, SkipReason, SkippedFile,
        live::{LiveStatus, LiveWorkspace, ReadError, Snapshot},
    },
};

const INSTRUCTIONS: &str = "sextant keeps a live index of this workspace's Rust, Python, \
JavaScript, TypeScript and Go code, updated as files change. Prefer `lookup_symbol` over grep \
to find where a function, class, method, type or constant is defined (ranked fuzzy search on \
names, filters by kind, language and path). Use `outline` to see a file's structure without \
reading it, `parse_source` for syntax errors, and `workspace_status` for what is indexed. Paths \
are relative to the workspace root; lines and columns are 1-based.";

/// The languages a client may name, as a schema enum.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum LanguageId {
    Rust,
    Python,
    Javascript,
    Typescript,
    Tsx,
    Go,
}

impl LanguageId {
    fn id(self) -> &'static str {
        match self {
            LanguageId::Rust => "rust",
            LanguageId::Python => "python",
            LanguageId::Javascript => "javascript",
            LanguageId::Typescript => "typescript",
            LanguageId::Tsx => "tsx",
            LanguageId::Go => "go",
        }
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
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OutlineArgs {
    /// Workspace file.
    pub path: String,
    /// At most this many symbols, in document order (default 300).
    #[schemars(range(min = 1, max = 5000))]
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
}

#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WorkspaceStatusArgs {}

#[derive(Debug, Serialize, JsonSchema)]
pub struct WorkspaceStatus {
    pub root: String,
    pub server_version: String,
    #[serde(flatten)]
    pub index: LiveStatus,
    /// Files, bytes, lines and symbols per language (absent while indexing).
    pub stats: Option<ide::WorkspaceStats>,
    /// Skipped files (at most 50 listed) and how many in all.
    pub skipped: Vec<SkippedFile>,
    pub skipped_total: usize,
    pub languages: Vec<String>,
    pub limits: Limits,
}

#[derive(Clone)]
pub struct SextantServer {
    live: Arc<LiveWorkspace>,
    limits: Arc<Limits>,
    in_flight: Arc<Semaphore>,
    /// Test hook: `SEXTANT_INJECT_PANIC=<tool name>` in the environment makes that tool panic
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

fn input_schema<T: JsonSchema + 'static>() -> Arc<JsonObject> {
    rmcp::handler::server::common::schema_for_input::<Parameters<T>>()
        .expect("tool argument types have object schemas")
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

impl From<ToolError> for CallToolResult {
    fn from(e: ToolError) -> CallToolResult {
        CallToolResult::structured_error(
            serde_json::json!({ "code": e.code, "message": e.message }),
        )
    }
}

type ToolResult<T> = Result<Json<T>, CallToolResult>;

#[tool_router(router = tool_router)]
impl SextantServer {
    pub fn new(live: Arc<LiveWorkspace>, limits: Limits) -> SextantServer {
        SextantServer {
            live,
            in_flight: Arc::new(Semaphore::new(limits.max_in_flight.max(1))),
            limits: Arc::new(limits),
            inject_panic: std::env::var("SEXTANT_INJECT_PANIC").ok(),
            tool_router: Self::tool_router(),
        }
    }

    #[tool(
        description = "Syntax tree outline (s-expression, line:col spans) and syntax errors of a source string or workspace file.",
        input_schema = input_schema::<ParseSourceArgs>(),
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn parse_source(
        &self,
        args: JsonObject,
        ctx: RequestContext<RoleServer>,
    ) -> Result<Json<ParseOutput>, CallToolResult> {
        let args: ParseSourceArgs = parse_args(args)?;
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
                let lang = registry()
                    .by_id(language.id())
                    .expect("every LanguageId is registered");
                self.run("parse_source", ctx, move |_| {
                    let (host, file) =
                        workspace::source_host("<source>".into(), lang, source.into_bytes())
                            .map_err(|e| ToolError::new(ErrorCode::InvalidArgument, e))?;
                    ide::parse_tree(&host.db, file, options).map_err(|_| cancelled())
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
                let root = self.live.root().to_path_buf();
                self.run_on_file("parse_source", ctx, root, path, move |db, file| {
                    ide::parse_tree(db, file, options)
                })
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
        Ok(Json(out))
    }

    #[tool(
        description = "Symbols a workspace file defines, as a tree: name, kind, line range, one-line signature.",
        input_schema = input_schema::<OutlineArgs>(),
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn outline(
        &self,
        args: JsonObject,
        ctx: RequestContext<RoleServer>,
    ) -> Result<Json<Outline>, CallToolResult> {
        let args: OutlineArgs = parse_args(args)?;
        let limit = in_range("limit", args.limit, 1, 5000, 300)?;
        let root = self.live.root().to_path_buf();
        let out = self
            .run_on_file("outline", ctx, root, args.path, move |db, file| {
                ide::outline(db, file, limit)
            })
            .await?;
        self.bounded(out)
    }

    #[tool(
        description = "Find definitions by name across the workspace: ranked fuzzy search with kind, language and path filters.",
        input_schema = input_schema::<LookupSymbolArgs>(),
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn lookup_symbol(
        &self,
        args: JsonObject,
        ctx: RequestContext<RoleServer>,
    ) -> Result<Json<SymbolSearch>, CallToolResult> {
        let args: LookupSymbolArgs = parse_args(args)?;
        let query = SymbolQuery {
            query: args.query,
            kinds: args.kinds.unwrap_or_default(),
            language: args
                .language
                .map(|l| registry().by_id(l.id()).expect("registered").lang_id),
            path_prefix: args.path_prefix,
            limit: in_range("limit", args.limit, 1, 200, 20)?,
        };
        let live = self.live.clone();
        let out = self
            .run("lookup_symbol", ctx, move |on_start| {
                live.read(on_start, |s: &Snapshot| {
                    ide::symbol_search(&s.db, s.workspace, &query)
                })
                .map_err(read_error)
            })
            .await?;
        self.bounded(out)
    }

    #[tool(
        description = "Workspace root, index readiness, files per language, skipped files and the limits in force.",
        input_schema = input_schema::<WorkspaceStatusArgs>(),
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
        let out = self
            .run("workspace_status", ctx, move |on_start| {
                // Small workspaces are ready in a moment; larger ones report progress.
                live.wait_ready(std::time::Duration::from_secs(2));
                let index = live.status();
                let (stats, skipped) = if index.ready {
                    live.read(on_start, |s: &Snapshot| {
                        Ok((ide::workspace_stats(&s.db, s.workspace)?, s.skipped.clone()))
                    })
                    .map(|(stats, skipped)| (Some(stats), skipped))
                    .map_err(read_error)?
                } else {
                    (None, Arc::from(Vec::new()))
                };
                Ok(WorkspaceStatus {
                    root: live.root().display().to_string(),
                    server_version: env!("CARGO_PKG_VERSION").into(),
                    index: live.status(),
                    stats,
                    skipped_total: skipped.len(),
                    skipped: skipped.iter().take(50).cloned().collect(),
                    languages: registry().ids().iter().map(|s| s.to_string()).collect(),
                    limits,
                })
            })
            .await?;
        self.bounded(out)
    }
}

fn cancelled() -> ToolError {
    ToolError::new(ErrorCode::Timeout, "the request was cancelled")
}

fn read_error(e: ReadError) -> ToolError {
    match e {
        ReadError::Cancelled => cancelled(),
        ReadError::LoadFailed(message) => ToolError::new(
            ErrorCode::Internal,
            format!("the workspace could not be loaded: {message}"),
        ),
    }
}

/// Cuts a parse tree to fit the response budget, keeping whole lines.
fn fit_tree(out: &mut ParseOutput, max_chars: usize) {
    let budget = max_chars.saturating_sub(4_000);
    if out.tree.len() > budget {
        let cut = out.tree[..crate::syntax::floor_char_boundary(&out.tree, budget)]
            .rfind('\n')
            .map_or(0, |i| i + 1);
        out.node_count = out.tree[..cut].lines().count();
        out.tree.truncate(cut);
        out.truncated = true;
    }
}

impl SextantServer {
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

    /// Runs `work` on a blocking thread: at most `max_in_flight` at once, within the time
    /// limit, cancelled when the client cancels. `work` gets a hook to register each query
    /// attempt's salsa cancellation token. A panic becomes `INTERNAL`.
    async fn run<T: Send + 'static>(
        &self,
        tool: &str,
        ctx: RequestContext<RoleServer>,
        work: impl FnOnce(&dyn Fn(salsa::CancellationToken)) -> Result<T, ToolError> + Send + 'static,
    ) -> Result<T, CallToolResult> {
        let timeout = self.limits.request_timeout();
        let tokens: Arc<Mutex<Vec<salsa::CancellationToken>>> = Arc::default();
        let cancel_all = {
            let tokens = tokens.clone();
            move || tokens.lock().unwrap().iter().for_each(|t| t.cancel())
        };
        let inject_panic = self.inject_panic.as_deref() == Some(tool);
        let job = async {
            let _permit = self
                .in_flight
                .acquire()
                .await
                .map_err(|_| ToolError::new(ErrorCode::Internal, "server shutting down"))?;
            let tokens = tokens.clone();
            let handle = tokio::task::spawn_blocking(move || {
                let register = move |t: salsa::CancellationToken| tokens.lock().unwrap().push(t);
                std::panic::catch_unwind(AssertUnwindSafe(|| {
                    if inject_panic {
                        panic!("injected fault (SEXTANT_INJECT_PANIC)");
                    }
                    work(&register)
                }))
            });
            match handle.await {
                Ok(Ok(result)) => result,
                Ok(Err(panic)) => Err(ToolError::new(
                    ErrorCode::Internal,
                    format!("internal error: {}", panic_message(&panic)),
                )),
                Err(e) => Err(ToolError::new(
                    ErrorCode::Internal,
                    format!("internal error: {e}"),
                )),
            }
        };
        tokio::select! {
            result = job => result.map_err(CallToolResult::from),
            () = tokio::time::sleep(timeout) => {
                cancel_all();
                Err(ToolError::new(ErrorCode::Timeout, format!("no answer within {} ms", timeout.as_millis())).into())
            }
            () = ctx.ct.cancelled() => {
                cancel_all();
                Err(ToolError::new(ErrorCode::Timeout, "cancelled by the client").into())
            }
        }
    }

    /// Resolves a client path and runs `query` on that file: from the live index when it is
    /// indexed, else (an ignored file) read on demand with the same limits.
    async fn run_on_file<T: Send + 'static>(
        &self,
        tool: &str,
        ctx: RequestContext<RoleServer>,
        root: std::path::PathBuf,
        path: String,
        query: impl Fn(&dyn crate::db::Db, SourceFile) -> Result<T, salsa::Cancelled>
        + Send
        + Sync
        + 'static,
    ) -> Result<T, CallToolResult> {
        let live = self.live.clone();
        self.run(tool, ctx, move |on_start| {
            let (rel, abs) = paths::resolve(&root, &path)?;
            if abs.is_dir() {
                return Err(ToolError::new(
                    ErrorCode::InvalidArgument,
                    format!("{rel:?} is a directory"),
                ));
            }
            enum Found<T> {
                Indexed(T),
                NotIndexed(Option<SkippedFile>, u64),
            }
            let found = live
                .read(on_start, |s: &Snapshot| match s.file(&rel) {
                    Some(file) => query(&s.db, file).map(Found::Indexed),
                    None => Ok(Found::NotIndexed(
                        s.skipped.iter().find(|k| k.path == rel).cloned(),
                        s.max_file_size,
                    )),
                })
                .map_err(read_error)?;
            match found {
                Found::Indexed(value) => Ok(value),
                Found::NotIndexed(Some(skipped), _) => Err(match skipped.reason {
                    SkipReason::TooLarge => {
                        ToolError::new(ErrorCode::TooLarge, format!("{rel}: {}", skipped.detail))
                    }
                    SkipReason::OutsideWorkspace => ToolError::new(
                        ErrorCode::PathOutsideWorkspace,
                        format!("{rel}: {}", skipped.detail),
                    ),
                    _ => ToolError::new(
                        ErrorCode::InvalidArgument,
                        format!("{rel}: not analysed ({})", skipped.detail),
                    ),
                }),
                Found::NotIndexed(None, max_file_size) => {
                    let first_line = std::fs::read(&abs)
                        .ok()
                        .map(|b| b.split(|&c| c == b'\n').next().unwrap_or(&[]).to_vec());
                    if registry().for_path(&abs, first_line.as_deref()).is_none() {
                        return Err(ToolError::new(
                            ErrorCode::UnsupportedLanguage,
                            format!(
                                "{rel}: not a language sextant knows ({})",
                                registry().ids().join(", ")
                            ),
                        ));
                    }
                    let (host, file) = workspace::load_single_file(&abs, &rel, None, max_file_size)
                        .map_err(|e| {
                            let code = if e.contains("byte limit") {
                                ErrorCode::TooLarge
                            } else {
                                ErrorCode::NotFound
                            };
                            ToolError::new(code, e)
                        })?;
                    query(&host.db, file).map_err(|_| cancelled())
                }
            }
        })
        .await
    }
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
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("sextant", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }
}
