//! Typed dispatch of requests and notifications to their handlers.
//!
//! Invariant: this is the only place a method name is compared. Each message is offered to
//! the handlers in turn, by `lsp_types` request or notification type; the first whose
//! `METHOD` matches takes it and parses the params with the type's `Params`. A request
//! whose params do not parse is answered `InvalidParams` (`-32602`) with serde's reason; a
//! request nobody takes is answered `MethodNotFound` (`-32601`); a notification nobody
//! takes is ignored, as the protocol asks.
//!
//! # Adding a request
//!
//! One handler function and one dispatcher line (and, for the client to ask, its
//! capability in `capabilities.rs`):
//!
//! ```ignore
//! // handlers.rs: runs on a worker over one snapshot; `?` on a query passes cancellation on.
//! pub fn hover(ctx: &RequestContext, params: HoverParams) -> HandlerResult<Option<Hover>> {
//!     let Some(file) = ctx.file(&params.text_document_position_params.text_document.uri)?
//!     else {
//!         return Ok(None);
//!     };
//!     let index = ctx.line_index(file)?;
//!     let offset = from_proto::offset(&index, params.text_document_position_params.position);
//!     let answer = ctx.snapshot.analysis.hover(file, offset)?;
//!     Ok(answer.map(|a| to_proto::hover(&index, &a)))
//! }
//!
//! // main_loop.rs, in `Server::on_request`:
//! .on::<lsp_types::request::HoverRequest>(handlers::hover)
//! ```
//!
//! [`RequestDispatcher::on`] queues the handler on the worker pool with a cancellation
//! registered under the request's id, to run on the workspace folder holding the document
//! its params name (`folders::Addressed`: a new params type says which document that is);
//! [`RequestDispatcher::on_every`] does the same for a question over the whole workspace,
//! asked of every folder at once (each under its part of the request's cancellation) and
//! merged in the folders' order; [`RequestDispatcher::on_sync_mut`] runs it at once on
//! the main loop with the server's state (only for what must be ordered with notifications,
//! such as `shutdown`). A question over every folder waits at most [`PARTIAL_AFTER`] for a
//! folder's first index when several are served: a folder still indexing then answers from
//! what it has indexed, or is left out of that answer, so that one large folder does not
//! hold every answer back.

use std::{
    sync::Arc,
    time::{Duration, Instant},
};

use lsp_server::{ErrorCode, Notification, Request, RequestId, Response};
use serde::{Serialize, de::DeserializeOwned};

use super::{
    folders::{Addressed, Folder, folders_revision},
    handlers::{HandlerError, HandlerResult, RequestContext},
    main_loop::Server,
    requests::{Reads, RequestWork, answered},
};
// As long as a read waits before answering from a partial index: a warm start is waited
// for, a cold index of a large folder is not.
use crate::workspace::live::{LiveWorkspace, PARTIAL_AFTER, ReadError, RequestCancel};

/// How often a wait for a folder's index looks again (and at its request's cancellation).
const READY_POLL: Duration = Duration::from_millis(20);

/// A question's part of a folder still in its first index, from the first shards of its
/// symbol index (their count given), those built so far.
pub type SoFar<Params, P> = fn(&RequestContext, &Params, u32) -> HandlerResult<P>;

pub struct RequestDispatcher<'s> {
    request: Option<Request>,
    server: &'s mut Server,
}

impl<'s> RequestDispatcher<'s> {
    pub fn new(server: &'s mut Server, request: Request) -> RequestDispatcher<'s> {
        RequestDispatcher {
            request: Some(request),
            server,
        }
    }

    /// Answers `R` with `handler` on the worker pool, over a snapshot of the folder holding
    /// the document it names.
    pub fn on<R>(
        &mut self,
        handler: fn(&RequestContext, R::Params) -> HandlerResult<R::Result>,
    ) -> &mut Self
    where
        R: lsp_types::request::Request,
        R::Params: Addressed + Clone + Send + 'static,
        R::Result: Serialize,
    {
        let Some((id, params)) = self.take::<R>() else {
            return self;
        };
        let Some(folder) = self.server.folders.of(params.document()).cloned() else {
            // Every folder was removed: each document is outside them all.
            let uri = params.document().map_or("", |uri| uri.as_str());
            let refused = format!("{uri} is not a document of this workspace");
            self.server
                .respond(HandlerError::InvalidParams(refused).into_response(id));
            return self;
        };
        let settings = self.server.request_settings();
        let reads = Reads::One(folder.root().to_path_buf());
        let work: RequestWork = Box::new(move |request| {
            folder.live.read(&request.cancel, |snapshot| {
                answered(handler(&settings.context(snapshot), params.clone()).and_then(serialize))
            })
        });
        self.server.spawn_request(id, R::METHOD, reads, work);
        self
    }

    /// Answers `R`, a question over the whole workspace, on the worker pool: `part` asks
    /// every folder at once (each over a snapshot of its own, under its part of the
    /// request's cancellation), and `merge` makes one answer of their parts, in the folders'
    /// order. With several folders, a folder whose index failed gives no part, and neither
    /// does one not indexed within [`PARTIAL_AFTER`] of the question; unless `so_far` can
    /// answer from the shards of the symbol index it has built by then (given their count),
    /// which it then does. A folder removed meanwhile gives no part either (see
    /// `InFlight::left_out`). A folder's failure is the request's, the first folder's in
    /// order where several fail. A merge with nothing new to say is held until the folders
    /// move past where they were when the question was asked.
    pub fn on_every<R, P>(
        &mut self,
        part: fn(&RequestContext, &R::Params) -> HandlerResult<P>,
        so_far: Option<SoFar<R::Params, P>>,
        merge: fn(Vec<P>) -> HandlerResult<R::Result>,
    ) -> &mut Self
    where
        R: lsp_types::request::Request,
        R::Params: Send + Sync + 'static,
        R::Result: Serialize,
        P: Send + 'static,
    {
        let Some((id, params)) = self.take::<R>() else {
            return self;
        };
        let folders = self.server.folders.all().to_vec();
        let reads = Reads::Each(folders.iter().map(|f| f.root().to_path_buf()).collect());
        let settings = self.server.request_settings();
        let work: RequestWork = Box::new(move |request| {
            // Taken before asking: a change while the folders are asked runs a held
            // request again, never leaves it waiting.
            let revision = folders_revision(&folders);
            let asked = Instant::now();
            let several = folders.len() > 1;
            let whole = |snapshot: &_| answered(part(&settings.context(snapshot), &params));
            let ask = |folder: &Folder| -> Result<Option<HandlerResult<P>>, ReadError> {
                let (live, cancel) = (&folder.live, request.cancel_of(folder.root()));
                Ok(match so_far {
                    _ if !several => Some(live.read(cancel, whole)?),
                    _ if live.load_error().is_some() => None,
                    Some(so_far) => live.read_or_partial_since(cancel, asked, whole, |p| {
                        let ctx = settings.context(&p.snapshot);
                        answered(so_far(&ctx, &params, p.shards_built()))
                    })?,
                    None if indexed_by(live, cancel, asked + PARTIAL_AFTER) => {
                        Some(live.read(cancel, whole)?)
                    }
                    None => None,
                })
            };
            let answers = ask_each(&folders, ask);
            if request.cancel.is_cancelled() {
                return Err(ReadError::Cancelled);
            }
            let mut parts = Vec::with_capacity(folders.len());
            for (folder, answer) in folders.iter().zip(answers) {
                if request.left_out(folder.root()) {
                    continue;
                }
                match answer? {
                    Some(Ok(found)) => parts.push(found),
                    Some(Err(error)) => return Ok(Err(error)),
                    None => {}
                }
            }
            Ok(match merge(parts) {
                Err(HandlerError::NothingNew { .. }) => Err(HandlerError::NothingNew { revision }),
                merged => merged.and_then(serialize),
            })
        });
        self.server.spawn_request(id, R::METHOD, reads, work);
        self
    }

    /// Answers `R` with `handler` at once, on the main loop.
    pub fn on_sync_mut<R>(
        &mut self,
        handler: fn(&mut Server, R::Params) -> HandlerResult<R::Result>,
    ) -> &mut Self
    where
        R: lsp_types::request::Request,
        R::Result: Serialize,
    {
        let Some((id, params)) = self.take::<R>() else {
            return self;
        };
        let response = match handler(self.server, params) {
            Ok(result) => Response::new_ok(id, result),
            Err(error) => error.into_response(id),
        };
        self.server.respond(response);
        self
    }

    /// Answers a request no handler took.
    pub fn finish(&mut self) {
        if let Some(request) = self.request.take() {
            self.server.respond(Response::new_err(
                request.id,
                ErrorCode::MethodNotFound as i32,
                format!("sextant does not implement {}", request.method),
            ));
        }
    }

    /// The request's id and params if it is an `R`; a request for `R` whose params do not
    /// parse is answered here.
    fn take<R: lsp_types::request::Request>(&mut self) -> Option<(RequestId, R::Params)> {
        if self.request.as_ref()?.method != R::METHOD {
            return None;
        }
        let request = self.request.take()?;
        match parse_params::<R::Params>(request.params) {
            Ok(params) => Some((request.id, params)),
            Err(e) => {
                self.server
                    .respond(invalid_params(request.id, R::METHOD, &e));
                None
            }
        }
    }
}

pub struct NotificationDispatcher<'s> {
    notification: Option<Notification>,
    server: &'s mut Server,
}

impl<'s> NotificationDispatcher<'s> {
    pub fn new(server: &'s mut Server, notification: Notification) -> NotificationDispatcher<'s> {
        NotificationDispatcher {
            notification: Some(notification),
            server,
        }
    }

    /// Applies `N` with `handler` on the main loop, in order with every other message.
    pub fn on_sync_mut<N: lsp_types::notification::Notification>(
        &mut self,
        handler: fn(&mut Server, N::Params),
    ) -> &mut Self {
        let Some(notification) = self.notification.take_if(|n| n.method == N::METHOD) else {
            return self;
        };
        match parse_params::<N::Params>(notification.params) {
            Ok(params) => handler(self.server, params),
            // Nobody to answer: say why it was dropped, where an operator can see it.
            Err(e) => eprintln!("sextant: lsp: ignoring {}: invalid params: {e}", N::METHOD),
        }
        self
    }

    /// Drops a notification no handler took (`didSave`, `initialized`, `$/setTrace`…).
    pub fn finish(&mut self) {
        self.notification = None;
    }
}

/// Whether `request` is an `R` (for the handshake, before the dispatchers run).
pub fn is_request<R: lsp_types::request::Request>(request: &Request) -> bool {
    request.method == R::METHOD
}

pub fn is_notification<N: lsp_types::notification::Notification>(n: &Notification) -> bool {
    n.method == N::METHOD
}

/// Parses params; a method without params (`()`) accepts them missing, `null` or `{}`.
pub fn parse_params<P: DeserializeOwned>(params: serde_json::Value) -> serde_json::Result<P> {
    let empty = params.is_null() || params.as_object().is_some_and(|o| o.is_empty());
    serde_json::from_value(params).or_else(|e| {
        if empty {
            serde_json::from_value(serde_json::Value::Null).map_err(|_| e)
        } else {
            Err(e)
        }
    })
}

/// `ask` of every folder at once, the first on the calling thread and each other on a
/// thread of its own (a folder waiting for its index, or a long check, then holds back no
/// other), the answers in the folders' order. Not on the worker pool: a request waiting for
/// other workers of the same fixed pool could end up waiting for itself. Every thread has
/// ended when this returns, so no work outlives its request; a panic is the request's. A
/// thread that cannot be started leaves its folder to the calling thread, after the others.
fn ask_each<T: Send>(folders: &[Arc<Folder>], ask: impl Fn(&Folder) -> T + Sync) -> Vec<T> {
    let Some((first, others)) = folders.split_first() else {
        return Vec::new();
    };
    let ask = &ask;
    std::thread::scope(|scope| {
        let started: Vec<_> = others
            .iter()
            .map(|folder| {
                std::thread::Builder::new()
                    .name("sextant-lsp-folder".into())
                    .spawn_scoped(scope, move || ask(folder))
                    .map_err(|_| folder)
            })
            .collect();
        let mut answers = vec![ask(first)];
        for thread in started {
            answers.push(match thread {
                Ok(thread) => thread
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
                Err(folder) => ask(folder),
            });
        }
        answers
    })
}

/// Whether `live`'s first index is done by `deadline` (false when it failed); true at
/// once when the request is cancelled, for the read to say so.
fn indexed_by(live: &LiveWorkspace, cancel: &RequestCancel, deadline: Instant) -> bool {
    loop {
        if live.is_ready() || cancel.is_cancelled() {
            return true;
        }
        if live.load_error().is_some() {
            return false;
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return false;
        }
        std::thread::sleep(left.min(READY_POLL));
    }
}

fn serialize<T: Serialize>(result: T) -> HandlerResult<serde_json::Value> {
    serde_json::to_value(result).map_err(|e| HandlerError::Internal(e.to_string()))
}

pub fn invalid_params(id: RequestId, method: &str, error: &serde_json::Error) -> Response {
    Response::new_err(
        id,
        ErrorCode::InvalidParams as i32,
        format!("invalid params for {method}: {error}"),
    )
}

#[cfg(test)]
mod tests {
    use lsp_types::{DocumentSymbolParams, WorkspaceSymbolParams};

    use super::*;

    #[test]
    fn methods_without_params_accept_missing_null_or_empty_params() {
        for params in [serde_json::Value::Null, serde_json::json!({})] {
            parse_params::<()>(params).unwrap();
        }
        assert!(parse_params::<()>(serde_json::json!({"x": 1})).is_err());
    }

    #[test]
    fn params_are_parsed_with_the_request_type() {
        let ok = parse_params::<WorkspaceSymbolParams>(serde_json::json!({"query": "x"}));
        assert_eq!(ok.unwrap().query, "x");
        let bad = parse_params::<WorkspaceSymbolParams>(serde_json::json!({"query": 5}));
        assert_eq!(
            bad.unwrap_err().to_string(),
            "invalid type: integer `5`, expected a string"
        );
        assert!(parse_params::<DocumentSymbolParams>(serde_json::json!({})).is_err());
    }
}
