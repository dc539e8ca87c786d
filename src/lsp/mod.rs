//! The LSP front end: `sextant lsp` on stdio (lsp-server + lsp-types).
//!
//! One main loop receives every message in order. Notifications that change documents go
//! to the live workspace's single writer and are applied before the next message is read;
//! requests run on worker threads over snapshots. `$/cancelRequest` cancels the worker's
//! salsa query and answers `RequestCancelled`; a write during a request makes it retry on the
//! new revision. Open documents overlay the disk; the file watcher keeps the rest fresh.
//! stdin is framed by `transport`, which bounds what a client can make the server allocate.
//!
//! Only a `file` URI that names a path inside the root, after percent-decoding and lexical
//! normalisation, becomes a workspace document; anything else is never overlaid, read from
//! disk or indexed on the client's say-so.

mod position;
mod transport;

use std::{
    collections::HashMap,
    path::{Path, PathBuf},
    process::ExitCode,
    str::FromStr,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use crossbeam_channel::{Receiver, Sender, select};
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::{
    DocumentSymbol, FoldingRange, FoldingRangeKind, InitializeParams, Location, OneOf,
    PositionEncodingKind, SelectionRange, ServerCapabilities, SymbolInformation,
    SymbolKind as LspKind, TextDocumentContentChangeEvent, TextDocumentSyncCapability,
    TextDocumentSyncKind, TextDocumentSyncOptions, Uri, WorkDoneProgressOptions,
};
use position::{Encoding, Lines, position_on_line};
pub use transport::DEFAULT_MAX_MESSAGE_BYTES;
use transport::{ReaderEnd, Transport};

use crate::{
    ide::{Analysis, OutlineNode, SymbolKind, SymbolQuery},
    workspace::{
        LoadOptions,
        live::{LiveWorkspace, ReadError, RequestCancel, Snapshot},
        normalize_lexically, resolves_inside,
    },
};

/// Quiet time after an edit before diagnostics are computed.
const DIAGNOSTICS_DEBOUNCE: Duration = Duration::from_millis(30);
const WORKSPACE_SYMBOL_LIMIT: usize = 100;
const PROGRESS_TOKEN: &str = "sextant/indexing";

/// Runs the server on stdin/stdout until the client says `exit` or closes stdin, and
/// returns the exit status: 0 after `shutdown`, 1 without it or after a framing violation.
pub fn run_stdio(
    root: Option<PathBuf>,
    load: LoadOptions,
    max_message_bytes: u64,
) -> Result<ExitCode, String> {
    let transport = Transport::stdio(max_message_bytes);
    let connection = &transport.connection;
    let (id, params) = match wait_for_initialize(connection) {
        Some(initialize) => initialize,
        None => return Ok(close(transport, false)),
    };
    let init: InitializeParams =
        serde_json::from_value(params).map_err(|e| format!("bad initialize params: {e}"))?;
    let offers_utf8 = init
        .capabilities
        .general
        .as_ref()
        .and_then(|g| g.position_encodings.as_ref())
        .is_some_and(|encodings| encodings.contains(&PositionEncodingKind::UTF8));
    let encoding = if offers_utf8 {
        Encoding::Utf8
    } else {
        Encoding::Utf16
    };
    let root = root
        .or_else(|| workspace_root(&init))
        .or_else(|| std::env::current_dir().ok())
        .ok_or("no workspace root: pass --root or open a folder")?;
    let root = root
        .canonicalize()
        .map_err(|e| format!("{}: {e}", root.display()))?;

    let capabilities = ServerCapabilities {
        position_encoding: Some(if offers_utf8 {
            PositionEncodingKind::UTF8
        } else {
            PositionEncodingKind::UTF16
        }),
        text_document_sync: Some(TextDocumentSyncCapability::Options(
            TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(TextDocumentSyncKind::INCREMENTAL),
                save: Some(lsp_types::TextDocumentSyncSaveOptions::Supported(true)),
                ..Default::default()
            },
        )),
        document_symbol_provider: Some(OneOf::Left(true)),
        workspace_symbol_provider: Some(OneOf::Right(lsp_types::WorkspaceSymbolOptions {
            work_done_progress_options: WorkDoneProgressOptions::default(),
            resolve_provider: None,
        })),
        folding_range_provider: Some(lsp_types::FoldingRangeProviderCapability::Simple(true)),
        selection_range_provider: Some(lsp_types::SelectionRangeProviderCapability::Simple(true)),
        ..Default::default()
    };
    let result = serde_json::json!({
        "capabilities": capabilities,
        "serverInfo": { "name": "sextant", "version": env!("CARGO_PKG_VERSION") },
    });
    // `initialized` needs no wait: the main loop ignores it like any unknown notification.
    let _ = connection
        .sender
        .send(Message::Response(Response::new_ok(id, result)));

    let live = Arc::new(LiveWorkspace::start(
        &root,
        LoadOptions {
            progress: None,
            ..load
        },
    )?);
    let progress = init
        .capabilities
        .window
        .as_ref()
        .and_then(|w| w.work_done_progress)
        .unwrap_or(false);
    let mut server = Server::new(connection.sender.clone(), live, root, encoding);
    if progress {
        server.report_indexing_progress();
    }
    server.main_loop(&connection.receiver);
    let shut_down = server.shut_down;
    drop(server);
    Ok(close(transport, shut_down))
}

/// Waits for `initialize`, answering other requests as the protocol asks. `None` if the
/// client says `exit` or the connection ends first.
fn wait_for_initialize(connection: &Connection) -> Option<(RequestId, serde_json::Value)> {
    for message in &connection.receiver {
        match message {
            Message::Request(request) if request.method == "initialize" => {
                return Some((request.id, request.params));
            }
            Message::Request(request) => {
                let _ = connection.sender.send(Message::Response(Response::new_err(
                    request.id,
                    ErrorCode::ServerNotInitialized as i32,
                    format!("{} before initialize", request.method),
                )));
            }
            Message::Notification(n) if n.method == "exit" => return None,
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

fn workspace_root(init: &InitializeParams) -> Option<PathBuf> {
    if let Some(folder) = init.workspace_folders.as_ref().and_then(|f| f.first()) {
        return uri_to_path(&folder.uri);
    }
    #[allow(deprecated)]
    init.root_uri.as_ref().and_then(uri_to_path)
}

/// The absolute, lexically normalised path a URI names: a `file` URI on this machine (no
/// host or `localhost`), without query or fragment, whose percent-decoded path is UTF-8 with
/// no NUL. `None` for anything else.
fn uri_to_path(uri: &Uri) -> Option<PathBuf> {
    if !uri
        .scheme()
        .is_some_and(|s| s.as_str().eq_ignore_ascii_case("file"))
    {
        return None;
    }
    if let Some(authority) = uri.authority() {
        let host = authority.host().as_str();
        let local = host.is_empty() || host.eq_ignore_ascii_case("localhost");
        if !local || authority.userinfo().is_some() || authority.port().is_some() {
            return None;
        }
    }
    if uri.query().is_some() || uri.fragment().is_some() {
        return None;
    }
    let decoded = percent_decode(uri.path().as_str())?;
    if decoded.contains('\0') {
        return None;
    }
    // Decoding first: `%2e%2e` must count as `..` here, as it will for the disk.
    normalize_lexically(Path::new(&decoded))
}

/// Decodes `%XX` escapes; `None` for a malformed escape or a result that is not UTF-8.
fn percent_decode(encoded: &str) -> Option<String> {
    let raw = encoded.as_bytes();
    let mut bytes = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        if raw[i] == b'%' {
            let hex = std::str::from_utf8(raw.get(i + 1..i + 3)?).ok()?;
            if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                return None;
            }
            bytes.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            bytes.push(raw[i]);
            i += 1;
        }
    }
    String::from_utf8(bytes).ok()
}

fn path_to_uri(path: &Path) -> Option<Uri> {
    let mut s = String::from("file://");
    for &b in path.to_str()?.as_bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            s.push(b as char);
        } else {
            s.push_str(&format!("%{b:02X}"));
        }
    }
    Uri::from_str(&s).ok()
}

struct Document {
    rel: String,
    text: String,
    version: i32,
}

/// What a worker sends back to the main loop.
enum Task {
    Send(Message),
    Diagnostics {
        uri: Uri,
        version: i32,
        message: Message,
    },
}

struct Server {
    sender: Sender<Message>,
    live: Arc<LiveWorkspace>,
    root: PathBuf,
    encoding: Encoding,
    docs: HashMap<Uri, Document>,
    diagnostics_due: HashMap<Uri, Instant>,
    /// Cancellation of running requests, by request id. A `$/cancelRequest` that arrives
    /// before the request's query has started still cancels it (`RequestCancel::watch`).
    running: Arc<Mutex<HashMap<RequestId, Arc<RequestCancel>>>>,
    tasks: (Sender<Task>, Receiver<Task>),
    /// `shutdown` was answered: `exit` now means success.
    shut_down: bool,
    test_delay: Option<Arc<TestDelay>>,
}

impl Server {
    fn new(
        sender: Sender<Message>,
        live: Arc<LiveWorkspace>,
        root: PathBuf,
        encoding: Encoding,
    ) -> Server {
        Server {
            sender,
            live,
            root,
            encoding,
            docs: HashMap::new(),
            diagnostics_due: HashMap::new(),
            running: Arc::default(),
            tasks: crossbeam_channel::unbounded(),
            shut_down: false,
            test_delay: TestDelay::from_env().map(Arc::new),
        }
    }

    fn send(&self, message: Message) {
        let _ = self.sender.send(message);
    }

    fn notify(&self, method: &str, params: impl serde::Serialize) {
        self.send(Message::Notification(Notification::new(
            method.to_string(),
            params,
        )));
    }

    /// Serves until `exit` or until the connection ends.
    fn main_loop(&mut self, receiver: &Receiver<Message>) {
        let tasks = self.tasks.1.clone();
        loop {
            let timeout = self
                .diagnostics_due
                .values()
                .min()
                .map_or(Duration::from_secs(3600), |due| {
                    due.saturating_duration_since(Instant::now())
                });
            select! {
                recv(receiver) -> message => {
                    let Ok(message) = message else { return };
                    match message {
                        Message::Request(request) if self.shut_down => {
                            self.send(Message::Response(Response::new_err(
                                request.id,
                                ErrorCode::InvalidRequest as i32,
                                format!("{} after shutdown", request.method),
                            )));
                        }
                        Message::Request(request) if request.method == "shutdown" => {
                            self.shut_down = true;
                            self.send(Message::Response(Response::new_ok(request.id, ())));
                        }
                        Message::Request(request) => self.on_request(request),
                        Message::Notification(n) if n.method == "exit" => return,
                        Message::Notification(n) => self.on_notification(n),
                        Message::Response(_) => {}
                    }
                }
                recv(tasks) -> task => match task {
                    Ok(Task::Send(message)) => self.send(message),
                    Ok(Task::Diagnostics { uri, version, message }) => {
                        // Drop answers computed for a text that has changed since.
                        if self.docs.get(&uri).is_some_and(|d| d.version == version) && !self.diagnostics_due.contains_key(&uri) {
                            self.send(message);
                        }
                    }
                    Err(_) => {}
                },
                default(timeout) => {}
            }
            self.publish_due_diagnostics();
        }
    }

    fn report_indexing_progress(&self) {
        let create = Request::new(
            RequestId::from("sextant/progress".to_string()),
            "window/workDoneProgress/create".to_string(),
            serde_json::json!({ "token": PROGRESS_TOKEN }),
        );
        self.send(Message::Request(create));
        self.notify(
            "$/progress",
            serde_json::json!({ "token": PROGRESS_TOKEN, "value": { "kind": "begin", "title": "sextant: indexing", "cancellable": false } }),
        );
        let live = self.live.clone();
        let tasks = self.tasks.0.clone();
        std::thread::spawn(move || {
            live.wait_ready(Duration::from_secs(24 * 3600));
            let message = match live.status().index_ms {
                Some(ms) => format!("indexed in {:.0} ms", ms),
                None => "indexing failed".to_string(),
            };
            let end = Notification::new(
                "$/progress".to_string(),
                serde_json::json!({ "token": PROGRESS_TOKEN, "value": { "kind": "end", "message": message } }),
            );
            let _ = tasks.send(Task::Send(Message::Notification(end)));
        });
    }

    /// The workspace-relative path of a document inside the root; `None` for any other
    /// document, which is then never overlaid, read or indexed.
    fn relative(&self, uri: &Uri) -> Option<String> {
        let path = uri_to_path(uri)?;
        let rel = crate::workspace::relative_path(&self.root, &path).filter(|r| !r.is_empty())?;
        resolves_inside(&self.root, &path).then_some(rel)
    }

    fn on_notification(&mut self, n: Notification) {
        match n.method.as_str() {
            "textDocument/didOpen" => {
                let Ok(p) =
                    serde_json::from_value::<lsp_types::DidOpenTextDocumentParams>(n.params)
                else {
                    return;
                };
                let Some(rel) = self.relative(&p.text_document.uri) else {
                    return;
                };
                self.live
                    .set_overlay(&rel, Some(p.text_document.text.clone()));
                self.docs.insert(
                    p.text_document.uri.clone(),
                    Document {
                        rel,
                        text: p.text_document.text,
                        version: p.text_document.version,
                    },
                );
                self.diagnostics_due
                    .insert(p.text_document.uri, Instant::now());
            }
            "textDocument/didChange" => {
                let Ok(p) =
                    serde_json::from_value::<lsp_types::DidChangeTextDocumentParams>(n.params)
                else {
                    return;
                };
                let encoding = self.encoding;
                let Some(doc) = self.docs.get_mut(&p.text_document.uri) else {
                    return;
                };
                for change in p.content_changes {
                    apply_change(&mut doc.text, change, encoding);
                }
                doc.version = p.text_document.version;
                let (rel, text) = (doc.rel.clone(), doc.text.clone());
                self.live.set_overlay(&rel, Some(text));
                self.diagnostics_due
                    .insert(p.text_document.uri, Instant::now() + DIAGNOSTICS_DEBOUNCE);
            }
            "textDocument/didClose" => {
                let Ok(p) =
                    serde_json::from_value::<lsp_types::DidCloseTextDocumentParams>(n.params)
                else {
                    return;
                };
                if let Some(doc) = self.docs.remove(&p.text_document.uri) {
                    self.live.set_overlay(&doc.rel, None);
                }
                self.diagnostics_due.remove(&p.text_document.uri);
                self.notify(
                    "textDocument/publishDiagnostics",
                    lsp_types::PublishDiagnosticsParams {
                        uri: p.text_document.uri,
                        diagnostics: Vec::new(),
                        version: None,
                    },
                );
            }
            "$/cancelRequest" => {
                let Ok(p) = serde_json::from_value::<lsp_types::CancelParams>(n.params) else {
                    return;
                };
                let id: RequestId = match p.id {
                    lsp_types::NumberOrString::Number(n) => n.into(),
                    lsp_types::NumberOrString::String(s) => s.into(),
                };
                if let Some(cancel) = self.running.lock().unwrap().get(&id) {
                    cancel.cancel();
                }
            }
            // didSave: the overlay already holds the text; didChangeWatchedFiles: sextant's
            // own watcher sees the same changes.
            _ => {}
        }
    }

    fn publish_due_diagnostics(&mut self) {
        let now = Instant::now();
        let due: Vec<Uri> = self
            .diagnostics_due
            .iter()
            .filter(|(_, t)| **t <= now)
            .map(|(u, _)| u.clone())
            .collect();
        for uri in due {
            self.diagnostics_due.remove(&uri);
            let Some(doc) = self.docs.get(&uri) else {
                continue;
            };
            let (rel, version, live, tasks, encoding) = (
                doc.rel.clone(),
                doc.version,
                self.live.clone(),
                self.tasks.0.clone(),
                self.encoding,
            );
            std::thread::spawn(move || {
                let result = live.read(&RequestCancel::default(), |s: &Snapshot| {
                    let Some(file) = s.file(&rel) else {
                        return Ok(Vec::new());
                    };
                    let errors = s.analysis.syntax_errors(file)?;
                    let text = s.analysis.file_text(file);
                    let lines = Lines::new(&text, encoding);
                    Ok(errors
                        .iter()
                        .map(|e| lsp_types::Diagnostic {
                            range: lines.range(e.range.start().into(), e.range.end().into()),
                            severity: Some(lsp_types::DiagnosticSeverity::ERROR),
                            source: Some("sextant".into()),
                            message: e.message.clone(),
                            ..Default::default()
                        })
                        .collect())
                });
                if let Ok(diagnostics) = result {
                    let params = lsp_types::PublishDiagnosticsParams {
                        uri: uri.clone(),
                        diagnostics,
                        version: Some(version),
                    };
                    let message = Message::Notification(Notification::new(
                        "textDocument/publishDiagnostics".into(),
                        params,
                    ));
                    let _ = tasks.send(Task::Diagnostics {
                        uri,
                        version,
                        message,
                    });
                }
            });
        }
    }

    fn on_request(&mut self, request: Request) {
        let id = request.id.clone();
        let method = request.method.clone();
        let handler: Box<
            dyn FnOnce(&LiveWorkspace, &RequestCancel) -> Result<serde_json::Value, ReadError>
                + Send,
        > = match method.as_str() {
            "textDocument/documentSymbol" => match self
                .file_params::<lsp_types::DocumentSymbolParams>(&request, |p| &p.text_document.uri)
            {
                Some((_, rel)) => {
                    let encoding = self.encoding;
                    Box::new(move |live, cancel| {
                        live.read(cancel, |s: &Snapshot| {
                            let Some(file) = s.file(&rel) else {
                                return Ok(serde_json::Value::Null);
                            };
                            let outline = s.analysis.outline(file, usize::MAX)?;
                            let text = s.analysis.file_text(file);
                            let lines = Lines::new(&text, encoding);
                            let symbols: Vec<DocumentSymbol> = outline
                                .symbols
                                .iter()
                                .map(|n| document_symbol(n, &lines))
                                .collect();
                            Ok(serde_json::to_value(symbols).unwrap_or_default())
                        })
                    })
                }
                None => return self.invalid(request.id, "documentSymbol: unknown document"),
            },
            "workspace/symbol" => {
                let Ok(p) = serde_json::from_value::<lsp_types::WorkspaceSymbolParams>(
                    request.params.clone(),
                ) else {
                    return self.invalid(request.id, "workspace/symbol: bad params");
                };
                let (encoding, root) = (self.encoding, self.root.clone());
                Box::new(move |live, cancel| {
                    let query = SymbolQuery {
                        query: p.query.clone(),
                        limit: WORKSPACE_SYMBOL_LIMIT,
                        ..Default::default()
                    };
                    live.read(cancel, |s: &Snapshot| {
                        let found = s.analysis.symbol_search(&query)?;
                        let mut out = Vec::new();
                        for m in &found.symbols {
                            let (Some(file), Some(uri)) =
                                (s.file(&m.path), path_to_uri(&root.join(&m.path)))
                            else {
                                continue;
                            };
                            // Names sit on one line, whose number is known: no line table needed.
                            let (text, line) =
                                (s.analysis.file_text(file), m.name_span.start.line - 1);
                            let [start, end] =
                                [m.name_span.byte_start, m.name_span.byte_end].map(|o| o as usize);
                            let range = lsp_types::Range {
                                start: position_on_line(&text, line, start, encoding),
                                end: position_on_line(&text, line, end, encoding),
                            };
                            #[allow(deprecated)]
                            out.push(SymbolInformation {
                                name: m.name.clone(),
                                kind: lsp_kind(m.kind),
                                tags: None,
                                deprecated: None,
                                location: Location { uri, range },
                                container_name: m.container.clone(),
                            });
                        }
                        Ok(serde_json::to_value(out).unwrap_or_default())
                    })
                })
            }
            "textDocument/foldingRange" => match self
                .file_params::<lsp_types::FoldingRangeParams>(&request, |p| &p.text_document.uri)
            {
                Some((_, rel)) => Box::new(move |live, cancel| {
                    live.read(cancel, |s: &Snapshot| {
                        let Some(file) = s.file(&rel) else {
                            return Ok(serde_json::Value::Null);
                        };
                        let folds: Vec<FoldingRange> = s
                            .analysis
                            .folding_ranges(file)?
                            .into_iter()
                            .map(|f| FoldingRange {
                                start_line: f.span.start.line - 1,
                                end_line: f.span.end.line - 1,
                                kind: f.is_comment.then_some(FoldingRangeKind::Comment),
                                ..Default::default()
                            })
                            .collect();
                        Ok(serde_json::to_value(folds).unwrap_or_default())
                    })
                }),
                None => return self.invalid(request.id, "foldingRange: unknown document"),
            },
            "textDocument/selectionRange" => match self
                .file_params::<lsp_types::SelectionRangeParams>(&request, |p| &p.text_document.uri)
            {
                Some((p, rel)) => {
                    let encoding = self.encoding;
                    Box::new(move |live, cancel| {
                        live.read(cancel, |s: &Snapshot| {
                            let Some(file) = s.file(&rel) else {
                                return Ok(serde_json::Value::Null);
                            };
                            let text = s.analysis.file_text(file);
                            let lines = Lines::new(&text, encoding);
                            let offsets: Vec<usize> =
                                p.positions.iter().map(|&pos| lines.offset(pos)).collect();
                            let chains = s.analysis.selection_ranges(file, &offsets)?;
                            let out: Vec<SelectionRange> = chains
                                .iter()
                                .map(|chain| {
                                    let mut parent: Option<Box<SelectionRange>> = None;
                                    for r in chain.iter().rev() {
                                        let range =
                                            lines.range(r.byte_start as usize, r.byte_end as usize);
                                        parent = Some(Box::new(SelectionRange { range, parent }));
                                    }
                                    *parent.expect("every chain has a range")
                                })
                                .collect();
                            Ok(serde_json::to_value(out).unwrap_or_default())
                        })
                    })
                }
                None => return self.invalid(request.id, "selectionRange: unknown document"),
            },
            _ => {
                self.send(Message::Response(Response::new_err(
                    request.id,
                    ErrorCode::MethodNotFound as i32,
                    format!("sextant does not implement {method}"),
                )));
                return;
            }
        };
        let (live, running, tasks) = (
            self.live.clone(),
            self.running.clone(),
            self.tasks.0.clone(),
        );
        let delay = self.test_delay.clone().filter(|d| d.method == method);
        let cancel = Arc::new(RequestCancel::default());
        running.lock().unwrap().insert(id.clone(), cancel.clone());
        std::thread::spawn(move || {
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                if let Some(delay) = &delay {
                    live.read(&cancel, |s: &Snapshot| delay.wait(&s.analysis))?;
                }
                handler(&live, &cancel)
            }));
            running.lock().unwrap().remove(&id);
            let response = match result {
                Ok(Ok(value)) => Response::new_ok(id, value),
                Ok(Err(ReadError::Cancelled)) => {
                    Response::new_err(id, ErrorCode::RequestCanceled as i32, "cancelled".into())
                }
                Ok(Err(ReadError::LoadFailed(e))) => {
                    Response::new_err(id, ErrorCode::InternalError as i32, e)
                }
                Err(_) => Response::new_err(
                    id,
                    ErrorCode::InternalError as i32,
                    format!("{method} panicked"),
                ),
            };
            let _ = tasks.send(Task::Send(Message::Response(response)));
        });
    }

    /// Parses the params of a request about one document of this workspace.
    fn file_params<P: serde::de::DeserializeOwned>(
        &self,
        request: &Request,
        uri: impl Fn(&P) -> &Uri,
    ) -> Option<(P, String)> {
        let params: P = serde_json::from_value(request.params.clone()).ok()?;
        let rel = self.relative(uri(&params))?;
        Some((params, rel))
    }

    fn invalid(&self, id: RequestId, message: &str) {
        self.send(Message::Response(Response::new_err(
            id,
            ErrorCode::InvalidParams as i32,
            message.to_string(),
        )));
    }
}

/// Test hook: `SEXTANT_TEST_DELAY_MS=<method>:<ms>` in the environment (read once, when the
/// server starts) makes every request for that method first spend `<ms>` inside a query of
/// its own, in short sleeps that each check for cancellation, so that tests can cancel a
/// request that is surely still running. It reports on stderr when it starts and how it
/// ended. Inert unless set.
struct TestDelay {
    method: String,
    steps: u64,
}

impl TestDelay {
    const STEP: Duration = Duration::from_millis(10);

    fn from_env() -> Option<TestDelay> {
        let spec = std::env::var("SEXTANT_TEST_DELAY_MS").ok()?;
        let (method, ms) = spec.rsplit_once(':')?;
        let ms: u64 = ms.parse().ok()?;
        Some(TestDelay {
            method: method.to_string(),
            steps: ms.div_ceil(Self::STEP.as_millis() as u64),
        })
    }

    /// Sleeps step by step, unwinding with `salsa::Cancelled` as soon as the query is cancelled.
    fn wait(&self, analysis: &Analysis) -> Result<(), salsa::Cancelled> {
        eprintln!(
            "sextant: lsp: test delay: {} started, {} steps",
            self.method, self.steps
        );
        let done = std::sync::atomic::AtomicU64::new(0);
        let outcome = analysis.slow_query_for_tests(self.steps, Self::STEP, &done);
        let done = done.load(std::sync::atomic::Ordering::Relaxed);
        match &outcome {
            Ok(()) => eprintln!("sextant: lsp: test delay: {} finished", self.method),
            Err(_) => eprintln!(
                "sextant: lsp: test delay: {} stopped by cancellation after {done} of {} steps",
                self.method, self.steps
            ),
        }
        outcome
    }
}

fn apply_change(text: &mut String, change: TextDocumentContentChangeEvent, encoding: Encoding) {
    match change.range {
        None => *text = change.text,
        Some(range) => {
            let lines = Lines::new(text, encoding);
            let start = lines.offset(range.start);
            let end = lines.offset(range.end).max(start);
            text.replace_range(start..end, &change.text);
        }
    }
}

#[allow(deprecated)]
fn document_symbol(node: &OutlineNode, lines: &Lines) -> DocumentSymbol {
    let range = lines.range(node.span.byte_start as usize, node.span.byte_end as usize);
    let selection_range = lines.range(
        node.name_span.byte_start as usize,
        node.name_span.byte_end as usize,
    );
    DocumentSymbol {
        name: node.name.clone(),
        detail: Some(node.signature.clone()).filter(|s| !s.is_empty()),
        kind: lsp_kind(node.kind),
        tags: None,
        deprecated: None,
        range,
        selection_range,
        children: Some(
            node.children
                .iter()
                .map(|c| document_symbol(c, lines))
                .collect(),
        )
        .filter(|c: &Vec<_>| !c.is_empty()),
    }
}

fn lsp_kind(kind: SymbolKind) -> LspKind {
    match kind {
        SymbolKind::Module => LspKind::MODULE,
        SymbolKind::Class => LspKind::CLASS,
        SymbolKind::Struct | SymbolKind::Union => LspKind::STRUCT,
        SymbolKind::Enum => LspKind::ENUM,
        SymbolKind::Variant => LspKind::ENUM_MEMBER,
        SymbolKind::Trait | SymbolKind::Interface => LspKind::INTERFACE,
        SymbolKind::Impl => LspKind::NAMESPACE,
        SymbolKind::Type => LspKind::TYPE_PARAMETER,
        SymbolKind::Function | SymbolKind::Macro => LspKind::FUNCTION,
        SymbolKind::Method => LspKind::METHOD,
        SymbolKind::Field => LspKind::FIELD,
        SymbolKind::Constant | SymbolKind::Static => LspKind::CONSTANT,
        SymbolKind::Variable => LspKind::VARIABLE,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(uri: &str) -> Option<String> {
        let uri = Uri::from_str(uri).ok()?;
        uri_to_path(&uri).map(|p| p.display().to_string())
    }

    #[test]
    fn file_uris_decode_then_normalise() {
        assert_eq!(path("file:///ws/a.py").as_deref(), Some("/ws/a.py"));
        assert_eq!(
            path("file://localhost/ws/a.py").as_deref(),
            Some("/ws/a.py")
        );
        assert_eq!(
            path("FILE://LocalHost/ws/a.py").as_deref(),
            Some("/ws/a.py")
        );
        assert_eq!(path("file:/ws/a.py").as_deref(), Some("/ws/a.py"));
        assert_eq!(path("file:///ws/%61%20b.py").as_deref(), Some("/ws/a b.py"));
        assert_eq!(path("file:///ws/../x.py").as_deref(), Some("/x.py"));
        assert_eq!(path("file:///ws/%2e%2e/x.py").as_deref(), Some("/x.py"));
        assert_eq!(
            path("file:///ws/s/%2E%2E/%2e%2e/x.py").as_deref(),
            Some("/x.py")
        );
        assert_eq!(
            path("file:///ws/s%2F..%2F..%2Fx.py").as_deref(),
            Some("/x.py")
        );
        assert_eq!(path("file:///../../x.py").as_deref(), Some("/x.py"));
        assert_eq!(path("file:///ws/./a/./b.py").as_deref(), Some("/ws/a/b.py"));
    }

    #[test]
    fn uris_naming_no_local_path_are_refused() {
        for uri in [
            "file://elsewhere/ws/a.py",
            "file://user@localhost/ws/a.py",
            "file://localhost:1/ws/a.py",
            "file:///ws/a%00.py",
            "file:///ws/a%zz.py",
            "file:///ws/a%2",
            "file:///ws/%ff.py",
            "file:///ws/a.py?x=1",
            "file:///ws/a.py#top",
            "untitled:/ws/a.py",
            "https://example.invalid/ws/a.py",
            "file:ws/a.py",
        ] {
            assert_eq!(path(uri), None, "{uri}");
        }
    }

    #[test]
    fn only_paths_under_the_root_resolve_inside_it() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap().join("ws");
        std::fs::create_dir(&root).unwrap();
        assert!(resolves_inside(&root, &root.join("new/file.py")));
        assert!(!resolves_inside(&root, &root.with_file_name("other.py")));
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(dir.path(), root.join("up")).unwrap();
            assert!(!resolves_inside(&root, &root.join("up/x.py")));
        }
    }
}
