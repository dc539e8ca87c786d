//! The MCP front end: `sextant mcp` on stdio, or streamable HTTP with `--http`.
//!
//! Invariants: tools only call `ide`; every path a client sends is confined to the
//! workspace root; every answer is bounded; tool failures are `isError: true` results whose
//! structured content is `{code, message}` with a stable code; a panic in a tool fails that
//! request only.

mod answers;
mod budget;
mod format;
mod frame;
mod http;
mod http_conn;
mod inflight;
mod paths;
mod resources;
mod roots;
mod schema;
mod stdio;
mod tools;

use std::{path::PathBuf, sync::Arc, time::Duration};

pub use http::{HttpLimits, serve_http};
pub use roots::{RootInfo, Roots};
pub use stdio::serve_stdio;
pub use tools::SextantServer;

use crate::workspace::{LoadOptions, live::LiveWorkspace};

/// Limits in force; set at start, never raised by a client.
#[derive(Clone, Debug, serde::Serialize, schemars::JsonSchema)]
pub struct Limits {
    /// Largest `source` string `parse_source` accepts, in bytes.
    pub max_source_bytes: usize,
    /// Largest request frame (a stdio line, an HTTP body), in bytes. Must carry a maximal
    /// `source` (see [`Limits::check`]).
    pub max_request_bytes: usize,
    /// Tool calls running at once; more wait (within their time limit).
    pub max_in_flight: usize,
    /// Time limit of one tool call, in milliseconds.
    pub request_timeout_ms: u64,
    /// Largest answer, in characters of JSON.
    pub max_response_chars: usize,
    /// Largest answer of the tools that read code for a model (`read_symbol`, `skeleton`,
    /// `search`, `read_file`, `pack_context`), in tokens of its text content; a call's
    /// `max_tokens` can only lower it, but for `pack_context`'s, whose larger pack comes as
    /// resources in parts that each fit it.
    pub max_answer_tokens: usize,
    /// No tool writes: `rename_symbol` has no `apply` argument (`sextant mcp --read-only`,
    /// or `--http` without a bearer token).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub read_only: bool,
    /// `sextant.toml`'s external formatters may run (`--allow-external-formatter`; never
    /// with `read_only`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub allow_external_formatter: bool,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_source_bytes: 1024 * 1024,
            max_request_bytes: 8 * 1024 * 1024,
            max_in_flight: 8,
            request_timeout_ms: 30_000,
            max_response_chars: 60_000,
            max_answer_tokens: 20_000,
            read_only: false,
            allow_external_formatter: false,
        }
    }
}

/// JSON escaping can make a `source` this many times longer: a control character becomes
/// `\u0001`.
const WORST_ESCAPE_FACTOR: usize = 6;

/// Room in a frame for everything around the `source` string: the JSON-RPC envelope, the
/// other arguments, `_meta`.
const ENVELOPE_BYTES: usize = 16 * 1024;

impl Limits {
    /// Refuses a frame limit too small to carry a `source` of `max_source_bytes` in the worst
    /// escaping: such a request would be refused as an over-long frame instead of getting
    /// `TOO_LARGE` from `parse_source`.
    pub fn check(&self) -> Result<(), String> {
        let needed = self
            .max_source_bytes
            .saturating_mul(WORST_ESCAPE_FACTOR)
            .saturating_add(ENVELOPE_BYTES);
        if self.max_request_bytes < needed {
            return Err(format!(
                "--max-request-bytes {} cannot carry a source of --max-source-bytes {} \
                 (escaped as JSON it may take {WORST_ESCAPE_FACTOR} times as many bytes, plus \
                 {ENVELOPE_BYTES} for the rest of the request): raise it to at least {needed} or \
                 lower --max-source-bytes",
                self.max_request_bytes, self.max_source_bytes
            ));
        }
        Ok(())
    }

    pub fn request_timeout(&self) -> Duration {
        Duration::from_millis(self.request_timeout_ms)
    }

    /// Whether `format_source` may run the external formatters `sextant.toml` names: a
    /// read-only server never does, whatever else it was told.
    pub fn formatter_trust(&self) -> crate::workspace::FormatterTrust {
        use crate::workspace::FormatterTrust;
        match (self.read_only, self.allow_external_formatter) {
            (true, _) => FormatterTrust::ReadOnly,
            (false, true) => FormatterTrust::Trusted,
            (false, false) => FormatterTrust::Untrusted,
        }
    }
}

/// Stable error codes of tool failures: the one enum every front end reports.
pub use crate::ide::ErrorCode;

#[derive(Clone, Debug)]
pub struct ToolError {
    pub code: ErrorCode,
    pub message: String,
    /// More fields of the error's JSON (a rename's `conflicts`).
    pub details: Option<serde_json::Map<String, serde_json::Value>>,
}

impl ToolError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> ToolError {
        ToolError {
            code,
            message: message.into(),
            details: None,
        }
    }

    /// A failure below the front end, with the code it says of itself.
    pub fn failed(error: impl crate::ide::Failure) -> ToolError {
        ToolError::new(error.code(), error.to_string())
    }

    pub fn with_detail(mut self, key: &str, value: serde_json::Value) -> ToolError {
        self.details
            .get_or_insert_with(Default::default)
            .insert(key.to_string(), value);
        self
    }

    /// The failure with `places` (an ambiguous name's candidates, the uses that hold a
    /// delete back) under `key`, when there are some.
    pub fn with_places<T: serde::Serialize>(self, key: &str, places: Option<&T>) -> ToolError {
        match places.and_then(|p| serde_json::to_value(p).ok()) {
            Some(value) => self.with_detail(key, value),
            None => self,
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
) -> Result<Arc<LiveWorkspace>, crate::workspace::LoadError> {
    LiveWorkspace::start(
        root,
        LoadOptions {
            progress: None,
            ..load
        },
    )
    .map(Arc::new)
}
