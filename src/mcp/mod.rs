//! The MCP front end: `sextant mcp` on stdio, or streamable HTTP with `--http`.
//!
//! Invariants: tools only call `ide`; every path a client sends is confined to the
//! workspace root; every answer is bounded; tool failures are `isError: true` results whose
//! structured content is `{code, message}` with a stable code; a panic in a tool fails that
//! request only.

mod http;
mod paths;
mod tools;

use std::{path::PathBuf, sync::Arc, time::Duration};

pub use http::serve_http;
pub use tools::SextantServer;

use crate::workspace::{LoadOptions, live::LiveWorkspace};

/// Limits in force; set at start, never raised by a client.
#[derive(Clone, Debug, serde::Serialize, schemars::JsonSchema)]
pub struct Limits {
    /// Largest `source` string `parse_source` accepts, in bytes.
    pub max_source_bytes: usize,
    /// Largest request frame (a stdio line, an HTTP body), in bytes.
    pub max_request_bytes: usize,
    /// Tool calls running at once; more wait (within their time limit).
    pub max_in_flight: usize,
    /// Time limit of one tool call, in milliseconds.
    pub request_timeout_ms: u64,
    /// Largest answer, in characters of JSON.
    pub max_response_chars: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_source_bytes: 1024 * 1024,
            max_request_bytes: 1024 * 1024,
            max_in_flight: 8,
            request_timeout_ms: 30_000,
            max_response_chars: 60_000,
        }
    }
}

impl Limits {
    pub fn request_timeout(&self) -> Duration {
        Duration::from_millis(self.request_timeout_ms)
    }
}

/// Stable error codes of tool failures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ErrorCode {
    InvalidArgument,
    PathOutsideWorkspace,
    NotFound,
    UnsupportedLanguage,
    TooLarge,
    Timeout,
    Internal,
}

#[derive(Clone, Debug)]
pub struct ToolError {
    pub code: ErrorCode,
    pub message: String,
}

impl ToolError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> ToolError {
        ToolError {
            code,
            message: message.into(),
        }
    }
}

/// Refuses roots that would expose a whole machine or home directory.
pub fn check_root(root: &std::path::Path, allow_broad_root: bool) -> Result<PathBuf, String> {
    let canonical = root
        .canonicalize()
        .map_err(|e| format!("{}: {e}", root.display()))?;
    if !canonical.is_dir() {
        return Err(format!("{}: not a directory", root.display()));
    }
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .and_then(|h| h.canonicalize().ok());
    let broad = canonical.parent().is_none() || home.as_deref() == Some(canonical.as_path());
    if broad && !allow_broad_root {
        return Err(format!(
            "refusing to serve {} (the filesystem root or the home directory): pass --allow-broad-root to do it anyway",
            canonical.display()
        ));
    }
    Ok(canonical)
}

/// Starts the live workspace for a server (indexing in the background).
pub fn start_workspace(
    root: &std::path::Path,
    load: LoadOptions,
) -> Result<Arc<LiveWorkspace>, String> {
    LiveWorkspace::start(
        root,
        LoadOptions {
            progress: false,
            ..load
        },
    )
    .map(Arc::new)
}

/// Serves MCP on stdin/stdout until stdin closes.
pub async fn serve_stdio(live: Arc<LiveWorkspace>, limits: Limits) -> Result<(), String> {
    use rmcp::ServiceExt;
    let (stdin, stdout) = rmcp::transport::stdio_pipes();
    let transport = rmcp::transport::async_rw::AsyncRwTransport::new(stdin, stdout)
        .with_max_line_length(limits.max_request_bytes);
    let server = SextantServer::new(live, limits);
    let running = server
        .serve(transport)
        .await
        .map_err(|e| format!("MCP initialization failed: {e}"))?;
    running.waiting().await.map_err(|e| e.to_string())?;
    Ok(())
}
