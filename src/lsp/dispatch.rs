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
    panic::{AssertUnwindSafe, catch_unwind, resume_unwind},
    path::Path,
    sync::Arc,
    time::{Duration, Instant},
};

use lsp_server::{ErrorCode, Notification, Request, RequestId, Response};
use serde::{Serialize, de::DeserializeOwned};

use super::{
    folders::{Addressed, Folder, folders_revision},
    handlers::{HandlerError, HandlerResult, RequestContext},
    main_loop::Server,
    requests::{InFlight, Reads, RequestWork, answered, part_failure_for_tests},
};
// As long as a read waits before answering from a partial index: a warm start is waited
// for, a cold index of a large folder is not.
use crate::workspace::live::{LiveWorkspace, PARTIAL_AFTER, ReadError, RequestCancel, TestDelay};

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
    /// `InFlight::left_out`). A folder's failure is the request's: the part that fails
    /// stops the others still running at once (`InFlight::part_failed`), and when several
    /// fail before they are stopped, the first folder's in order among them is answered
    /// (see [`parts_or_failure`]). A merge with nothing new to say is held until the
    /// folders move past where they were when the question was asked.
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
        let request_id = id.clone();
        let work: RequestWork = Box::new(move |request| {
            // Taken before asking: a change while the folders are asked runs a held
            // request again, never leaves it waiting.
            let revision = folders_revision(&folders);
            let asked = Instant::now();
            let several = folders.len() > 1;
            let whole = |snapshot: &_| answered(part(&settings.context(snapshot), &params));
            let ask = |folder: &Folder| -> PartAnswer<P> {
                let (live, cancel) = (&folder.live, request.cancel_of(folder.root()));
                if let Some(delay) = TestDelay::of_part(R::METHOD, folder.root()) {
                    delay.wait_in(live, cancel, &format!("request {request_id}"))?;
                }
                if let Some(failure) = part_failure_for_tests(R::METHOD, folder.root()) {
                    return Ok(Some(Err(failure)));
                }
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
            let answers = ask_each(&folders, |folder| {
                let answer = catch_unwind(AssertUnwindSafe(|| ask(folder)));
                if fails_the_request(&answer) {
                    request.part_failed(folder.root());
                }
                answer.unwrap_or_else(|panic| resume_unwind(panic))
            });
            if request.cancel.is_cancelled() {
                return Err(ReadError::Cancelled);
            }
            let roots = folders.iter().map(|folder| folder.root());
            let parts = match parts_or_failure(request, roots.zip(answers))? {
                Ok(parts) => parts,
                Err(failure) => return Ok(Err(failure)),
            };
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

/// A folder's part of a question over the whole workspace: `None` when it gives none (its
/// index failed, or is not done in time), else its handler's result.
type PartAnswer<P> = Result<Option<HandlerResult<P>>, ReadError>;

/// Whether a part's end, a panic included, is a failure that answers the whole request
/// (unless its folder is left out). A cancellation is not: the request's own answers for
/// itself, and a part stopped alone gives nothing.
fn fails_the_request<P>(answer: &std::thread::Result<PartAnswer<P>>) -> bool {
    match answer {
        Ok(Ok(None | Some(Ok(_))) | Err(ReadError::Cancelled)) => false,
        Ok(Ok(Some(Err(_))) | Err(ReadError::LoadFailed(_))) | Err(_) => true,
    }
}

/// The parts the folders answered, in their order; or, when a part failed, the request's
/// failure: the first folder's in order among the parts that failed of themselves. Gives
/// nothing for a folder left out (removed meanwhile) or for a part stopped because another
/// failed (whose cancellation is not the client's), nor for one without an answer.
fn parts_or_failure<'a, P>(
    request: &InFlight,
    answers: impl IntoIterator<Item = (&'a Path, PartAnswer<P>)>,
) -> Result<HandlerResult<Vec<P>>, ReadError> {
    let mut parts = Vec::new();
    for (root, answer) in answers {
        match answer {
            _ if request.left_out(root) => {}
            Ok(Some(Ok(found))) => parts.push(found),
            Ok(Some(Err(failure))) => return Ok(Err(failure)),
            Ok(None) => {}
            Err(ReadError::Cancelled) if request.stopped_for_failure(root) => {}
            Err(error) => return Err(error),
        }
    }
    Ok(Ok(parts))
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
                Ok(thread) => thread.join().unwrap_or_else(|panic| resume_unwind(panic)),
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
    use crate::lsp::requests::{Cancelled, InFlightRequests};

    fn asked_of(roots: &[&Path]) -> (InFlightRequests, Arc<InFlight>) {
        let requests = InFlightRequests::default();
        let reads = Reads::Each(roots.iter().map(|r| r.to_path_buf()).collect());
        let request = requests.register(RequestId::from(1), reads).unwrap();
        assert!(request.start());
        (requests, request)
    }

    fn failure(message: &str) -> PartAnswer<u32> {
        Ok(Some(Err(HandlerError::Internal(message.to_string()))))
    }

    #[test]
    fn the_first_folder_whose_part_failed_answers_and_those_it_stopped_give_nothing() {
        let roots = ["/a", "/b", "/c", "/d"].map(Path::new);
        let (_requests, request) = asked_of(&roots);
        // `/c` failed and stopped the others, `/d` failing before it saw that; `/b` had
        // answered already; `/a`, stopped, answers its cancellation.
        assert!(fails_the_request(&Ok(failure("c"))));
        request.part_failed(roots[2]);
        request.part_failed(roots[3]);
        let answers = [
            Err(ReadError::Cancelled),
            Ok(Some(Ok(2))),
            failure("c"),
            failure("d"),
        ];
        let answered = parts_or_failure(&request, roots.into_iter().zip(answers));
        assert!(
            matches!(&answered, Ok(Err(HandlerError::Internal(m))) if m == "c"),
            "{answered:?}"
        );
    }

    #[test]
    fn without_a_failure_a_cancelled_part_is_the_requests_cancellation() {
        let roots = ["/a", "/b"].map(Path::new);
        let (requests, request) = asked_of(&roots);
        let cancelled: PartAnswer<u32> = Err(ReadError::Cancelled);
        assert!(!fails_the_request::<u32>(&Ok(Err(ReadError::Cancelled))));
        assert!(fails_the_request::<u32>(&Err(Box::new("panicked"))));
        assert_eq!(requests.cancel(&RequestId::from(1)), Cancelled::Running);
        let answers = [Ok(Some(Ok(1))), cancelled];
        let answered = parts_or_failure(&request, roots.into_iter().zip(answers));
        assert!(
            matches!(answered, Err(ReadError::Cancelled)),
            "{answered:?}"
        );

        // Every part answering: their answers in the folders' order, none for a folder
        // with nothing to say.
        let (_requests, request) = asked_of(&roots);
        let answers = [Ok(None), Ok(Some(Ok(7)))];
        let answered = parts_or_failure(&request, roots.into_iter().zip(answers));
        assert!(
            matches!(answered, Ok(Ok(ref parts)) if parts == &[7]),
            "{answered:?}"
        );
    }

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
