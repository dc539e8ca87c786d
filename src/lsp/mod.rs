//! The LSP front end: `sextant lsp` on stdio (lsp-server + lsp-types), laid out as
//! rust-analyzer's.
//!
//! One main loop (`main_loop`) receives every message in order. Notifications that change
//! documents (`documents`) go to the live workspace's single writer and are applied before
//! the next message is read; requests are dispatched by type (`dispatch`) to plain
//! functions (`handlers`; `rename` and `code_action` answer edits the client applies) that
//! run on a fixed pool of workers (`task_pool`) over snapshots.
//! `$/cancelRequest` finds the request in the registry of requests in flight (`requests`):
//! a queued one is answered `RequestCancelled` at once and never runs, a running one stops
//! inside its query; a write during a request makes it retry on the new revision.
//! Diagnostics are scheduled on their own (`diagnostics`), the projects' own type checkers
//! run after a save when enabled (`deep`), and the first index is reported
//! as work-done progress (`progress`). Every conversion between `ide` answers and LSP types,
//! positions in the negotiated encoding included, is in `to_proto` and `from_proto`.
//! stdin is framed by `transport`, which bounds what a client can make the server allocate.
//!
//! Every workspace folder the client gives at `initialize`, or adds later, is a root of its
//! own, a live workspace (`folders`); a request goes to the folder of the document it names,
//! a question over the whole workspace to every folder. Only a `file` URI that names a path inside a
//! folder, after percent-decoding and lexical normalisation, becomes a workspace document
//! (`uri`); anything else is never overlaid, read from disk or indexed on the client's
//! say-so.

mod capabilities;
mod code_action;
mod deep;
mod diagnostics;
mod dispatch;
mod documents;
mod folders;
mod from_proto;
mod handlers;
mod line_index;
mod main_loop;
mod progress;
mod rename;
mod requests;
mod task_pool;
mod to_proto;
mod transport;
mod uri;

use std::{path::PathBuf, process::ExitCode};

use lsp_server::{Connection, ErrorCode, Message, RequestId, Response};
use lsp_types::{InitializeParams, notification::Exit, request::Initialize};
pub use transport::DEFAULT_MAX_MESSAGE_BYTES;
use transport::{ReaderEnd, Transport};

use crate::workspace::LoadOptions;

/// Runs the server on stdin/stdout until the client says `exit` or closes stdin, and
/// returns the exit status: 0 after `shutdown`, 1 without it or after a framing violation.
pub fn run_stdio(
    root: Option<PathBuf>,
    load: LoadOptions,
    max_message_bytes: u64,
    formatter_trust: crate::workspace::FormatterTrust,
) -> Result<ExitCode, String> {
    // A root given on the command line is judged before the client is heard.
    let given = root.map(|root| checked_root(&root)).transpose()?;
    let transport = Transport::stdio(max_message_bytes);
    let connection = &transport.connection;
    let Some((id, init)) = wait_for_initialize(connection) else {
        return Ok(close(transport, false));
    };
    let encoding = line_index::PositionEncoding::negotiate(&init.capabilities);
    let folders_change = given.is_none();
    let roots = match given {
        Some(root) => vec![root],
        None => workspace_roots(&init)?,
    };

    let result = serde_json::json!({
        "capabilities": capabilities::server_capabilities(encoding, folders_change),
        "serverInfo": { "name": "sextant", "version": env!("CARGO_PKG_VERSION") },
    });
    // `initialized` needs no wait: the main loop ignores it like any unknown notification.
    let _ = connection
        .sender
        .send(Message::Response(Response::new_ok(id, result)));

    // The loader's progress reaches the client through `LiveStatus::progress`.
    let folders = folders::Folders::start(&roots, &load)?;
    let (workers, queue) = task_pool::size();
    let pool = task_pool::TaskPool::new(workers, queue)
        .map_err(|e| format!("starting the LSP workers: {e}"))?;
    let report_progress = init
        .capabilities
        .window
        .as_ref()
        .and_then(|w| w.work_done_progress)
        .unwrap_or(false);
    let mut server = main_loop::Server::new(
        connection.sender.clone(),
        folders,
        encoding,
        pool,
        report_progress,
    );
    server.formatter_trust = formatter_trust;
    server.folders_change = folders_change;
    server.client = capabilities::ClientSupport::of(&init.capabilities);
    server.deep = deep::DeepDiagnostics::from_init(init.initialization_options.as_ref());
    server.run(&connection.receiver);
    let shut_down = server.shut_down;
    drop(server);
    Ok(close(transport, shut_down))
}

/// `root` made canonical, if it is a directory.
fn checked_root(root: &std::path::Path) -> Result<PathBuf, String> {
    let canonical = root
        .canonicalize()
        .map_err(|e| format!("{}: {e}", root.display()))?;
    if !canonical.is_dir() {
        return Err(format!("{}: not a directory", root.display()));
    }
    Ok(canonical)
}

/// Waits for `initialize`, answering other requests as the protocol asks and an
/// `initialize` whose params do not parse with `InvalidParams`. `None` if the client says
/// `exit` or the connection ends first.
fn wait_for_initialize(connection: &Connection) -> Option<(RequestId, InitializeParams)> {
    let answer = |response| {
        let _ = connection.sender.send(Message::Response(response));
    };
    for message in &connection.receiver {
        match message {
            Message::Request(request) if dispatch::is_request::<Initialize>(&request) => {
                match dispatch::parse_params::<InitializeParams>(request.params) {
                    Ok(params) => return Some((request.id, params)),
                    Err(e) => answer(dispatch::invalid_params(request.id, &request.method, &e)),
                }
            }
            Message::Request(request) => answer(Response::new_err(
                request.id,
                ErrorCode::ServerNotInitialized as i32,
                format!("{} before initialize", request.method),
            )),
            Message::Notification(n) if dispatch::is_notification::<Exit>(&n) => return None,
            Message::Notification(_) | Message::Response(_) => {}
        }
    }
    None
}

/// Flushes the connection and turns the way it ended into the exit status the protocol
/// asks for: 0 only after `shutdown`.
fn close(transport: Transport, shut_down: bool) -> ExitCode {
    let failure = ExitCode::from(1);
    match transport.close() {
        ReaderEnd::Violation(e) => {
            // The peer's framing cannot be trusted any more: nothing after this is readable.
            eprintln!("sextant: lsp: closing the connection: {e}");
            failure
        }
        ReaderEnd::Exit | ReaderEnd::Closed | ReaderEnd::Eof if shut_down => ExitCode::SUCCESS,
        ReaderEnd::Eof => {
            eprintln!("sextant: lsp: the client closed the connection without shutdown");
            failure
        }
        ReaderEnd::Exit | ReaderEnd::Closed => failure,
    }
}

/// The roots of the workspace folders the client gives (else its `rootUri`, else the
/// current directory), canonical, in its order, each once. A folder that is not a local
/// directory is left out, said on stderr; with none left, the server cannot start.
fn workspace_roots(init: &InitializeParams) -> Result<Vec<PathBuf>, String> {
    #[allow(deprecated)]
    let given: Vec<Option<PathBuf>> = match (&init.workspace_folders, &init.root_uri) {
        (Some(folders), _) if !folders.is_empty() => {
            folders.iter().map(|f| uri::uri_to_path(&f.uri)).collect()
        }
        (_, Some(root)) => vec![uri::uri_to_path(root)],
        _ => Vec::new(),
    };
    if given.len() <= 1 {
        // One folder is served as it always was: a folder that cannot be served stops it.
        let root = given
            .into_iter()
            .flatten()
            .next()
            .or_else(|| std::env::current_dir().ok())
            .ok_or("no workspace root: pass --root or open a folder")?;
        return Ok(vec![checked_root(&root)?]);
    }
    let mut roots: Vec<PathBuf> = Vec::new();
    let mut refused = Vec::new();
    for path in given {
        match path
            .ok_or_else(|| "not a local file URI".to_string())
            .and_then(|p| checked_root(&p))
        {
            Ok(root) if !roots.contains(&root) => roots.push(root),
            Ok(_) => {}
            Err(e) => refused.push(e),
        }
    }
    for reason in &refused {
        eprintln!("sextant: lsp: leaving out a workspace folder: {reason}");
    }
    if roots.is_empty() {
        return Err(format!(
            "no workspace folder can be served ({})",
            refused.join("; ")
        ));
    }
    Ok(roots)
}
