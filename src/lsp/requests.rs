//! Requests in flight: the registry the main loop cancels through and the workers run from.
//!
//! Invariant: every request gets exactly one answer. A request is registered as queued;
//! then either a worker claims it (it is running, and the worker answers, `RequestCancelled`
//! if it was cancelled meanwhile) or `$/cancelRequest` withdraws it first (the main loop
//! answers `RequestCancelled` at once, and the worker drops it without running its handler).
//! The claim is one atomic step, so the two can never both answer.

use std::{
    panic::{AssertUnwindSafe, catch_unwind},
    sync::{
        Arc,
        atomic::{AtomicU8, Ordering},
    },
    time::Duration,
};

use dashmap::{DashMap, mapref::entry::Entry};
use lsp_server::{ErrorCode, RequestId, Response};

use super::handlers::{HandlerError, HandlerResult};
use crate::{
    ide::Analysis,
    workspace::live::{LiveWorkspace, ReadError, RequestCancel},
};

/// A request's handler with its params, ready to run under the request's cancellation
/// (again, for a held request): it reads the snapshots of the folders it asks (retrying
/// an attempt a write cancels) and gives its result serialized.
pub type RequestWork =
    Box<dyn Fn(&RequestCancel) -> Result<HandlerResult<serde_json::Value>, ReadError> + Send>;

/// A handler's result as `LiveWorkspace::read` takes it: its cancellation passed on (so
/// the read retries on a new revision or ends), anything else as the answer.
pub fn answered<T>(result: HandlerResult<T>) -> Result<HandlerResult<T>, crate::ide::Cancelled> {
    match result {
        Err(HandlerError::Cancelled(cancelled)) => Err(cancelled),
        answered => Ok(answered),
    }
}

const QUEUED: u8 = 0;
const RUNNING: u8 = 1;
const WITHDRAWN: u8 = 2;

/// The workspace folders a request reads.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Reads {
    /// The folder at this root.
    One(std::path::PathBuf),
    /// Every folder (a question over the whole workspace).
    #[default]
    Every,
}

impl Reads {
    fn includes(&self, root: &std::path::Path) -> bool {
        match self {
            Reads::One(one) => one == root,
            Reads::Every => true,
        }
    }
}

/// One request between its arrival and its answer.
#[derive(Default)]
pub struct InFlight {
    /// Stops the request's work wherever it is (see `RequestCancel`).
    pub cancel: RequestCancel,
    reads: Reads,
    /// A folder it reads was removed while it ran: its answer says so (`ContentModified`),
    /// not that the client cancelled it.
    folder_removed: std::sync::atomic::AtomicBool,
    state: AtomicU8,
    /// Its place in the worker pool's queue, given back when it is withdrawn.
    queue_slot: std::sync::OnceLock<Arc<super::task_pool::QueueSlot>>,
}

impl InFlight {
    /// A worker's claim: true if the request was still queued, and is now running.
    pub fn start(&self) -> bool {
        self.state
            .compare_exchange(QUEUED, RUNNING, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
    }

    /// The main loop's claim on cancellation: true if the request had not started, and now
    /// never will.
    fn withdraw(&self) -> bool {
        let withdrawn = self
            .state
            .compare_exchange(QUEUED, WITHDRAWN, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok();
        if withdrawn && let Some(slot) = self.queue_slot.get() {
            slot.release();
        }
        withdrawn
    }

    /// Where the request waits in the worker pool's queue.
    pub fn set_queue_slot(&self, slot: Arc<super::task_pool::QueueSlot>) {
        let _ = self.queue_slot.set(slot);
    }
}

/// How a `$/cancelRequest` landed.
#[derive(Debug, PartialEq, Eq)]
pub enum Cancelled {
    /// Not in flight (already answered, or never sent): nothing to do.
    Unknown,
    /// Running: its work stops and its worker answers.
    Running,
    /// Still queued: it will never run; the caller answers it now.
    Withdrawn,
}

/// Requests in flight by id, shared by the main loop and the workers.
#[derive(Clone, Default)]
pub struct InFlightRequests(Arc<DashMap<RequestId, Arc<InFlight>>>);

impl InFlightRequests {
    /// Registers a queued request reading `reads`; `None` if a request with this id is still
    /// in flight.
    pub fn register(&self, id: RequestId, reads: Reads) -> Option<Arc<InFlight>> {
        match self.0.entry(id) {
            Entry::Occupied(_) => None,
            Entry::Vacant(slot) => Some(
                slot.insert(Arc::new(InFlight {
                    reads,
                    ..InFlight::default()
                }))
                .clone(),
            ),
        }
    }

    /// The folder at `root` was removed: every request reading it stops. Gives the ids of
    /// those withdrawn before they started, for the caller to answer; a running one's
    /// worker answers `ContentModified`.
    pub fn cancel_reading(&self, root: &std::path::Path) -> Vec<RequestId> {
        let reading: Vec<(RequestId, Arc<InFlight>)> = self
            .0
            .iter()
            .filter(|r| r.value().reads.includes(root))
            .map(|r| (r.key().clone(), r.value().clone()))
            .collect();
        let mut withdrawn = Vec::new();
        for (id, request) in reading {
            request.folder_removed.store(true, Ordering::SeqCst);
            request.cancel.cancel();
            if request.withdraw() {
                self.finish(&id, &request);
                withdrawn.push(id);
            }
        }
        withdrawn
    }

    /// Forgets a request about to be answered (only this registration of its id).
    pub fn finish(&self, id: &RequestId, request: &Arc<InFlight>) {
        self.0.remove_if(id, |_, r| Arc::ptr_eq(r, request));
    }

    pub fn cancel(&self, id: &RequestId) -> Cancelled {
        // Clone out of the map first: a shard lock must not be held while cancelling.
        let Some(request) = self.0.get(id).map(|r| r.clone()) else {
            return Cancelled::Unknown;
        };
        request.cancel.cancel();
        if request.withdraw() {
            self.finish(id, &request);
            Cancelled::Withdrawn
        } else {
            Cancelled::Running
        }
    }

    /// Cancels every request in flight (the server is stopping).
    pub fn cancel_all(&self) {
        let all: Vec<Arc<InFlight>> = self.0.iter().map(|r| r.value().clone()).collect();
        for request in all {
            request.cancel.cancel();
            request.withdraw();
        }
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.0.len()
    }
}

/// Runs a request on a worker and makes its answer; `None` when `$/cancelRequest`
/// withdrew it before it started (the main loop has answered it; its handler never runs).
/// The test delay, if any, waits in the workspace given with it.
pub fn run(
    requests: &InFlightRequests,
    request: &Arc<InFlight>,
    id: RequestId,
    method: &str,
    work: &RequestWork,
    delay: Option<(&LiveWorkspace, &TestDelay)>,
) -> Option<Outcome> {
    if !request.start() {
        return None;
    }
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        if let Some((live, delay)) = delay {
            live.read(&request.cancel, |s| delay.wait(&s.analysis, &id))?;
        }
        work(&request.cancel)
    }));
    requests.finish(&id, request);
    if let Ok(Ok(Err(HandlerError::NothingNew { revision }))) = outcome {
        return Some(Outcome::Hold { revision });
    }
    Some(Outcome::Answer(match outcome {
        Ok(Ok(Ok(value))) => Response::new_ok(id, value),
        Ok(Ok(Err(error))) => error.into_response(id),
        Ok(Err(ReadError::Cancelled)) if request.folder_removed.load(Ordering::SeqCst) => {
            folder_removed(id)
        }
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
    }))
}

/// The answer to a request stopped because a folder it reads was removed: what it asked
/// changed under it, and the client may ask again.
pub fn folder_removed(id: RequestId) -> Response {
    Response::new_err(
        id,
        ErrorCode::ContentModified as i32,
        "a workspace folder it reads was removed; ask again".into(),
    )
}

/// How a request's run ended.
pub enum Outcome {
    Answer(Response),
    /// Nothing to say yet: the main loop holds the request until the workspace moves past
    /// `revision`, then runs it again.
    Hold {
        revision: u64,
    },
}

/// Test hook: `SEXTANT_TEST_DELAY_MS=<method>:<ms>` in the environment (read once, when the
/// server starts) makes every request for that method first spend `<ms>` inside a query of
/// its own, in short sleeps that each check for cancellation, so that tests can cancel a
/// request that is surely still running, or keep the workers busy. It reports on stderr
/// when it starts (with the request's id) and how it ended. Inert unless set.
pub struct TestDelay {
    pub method: String,
    steps: u64,
}

impl TestDelay {
    const STEP: Duration = Duration::from_millis(10);

    /// The delay a test asked for (`testing::TestHooks::lsp_delay`), if any.
    pub fn from_hooks() -> Option<TestDelay> {
        let (method, delay) = crate::testing::hooks().lsp_delay.clone()?;
        Some(TestDelay {
            method,
            steps: (delay.as_millis() as u64).div_ceil(Self::STEP.as_millis() as u64),
        })
    }

    /// Sleeps step by step, unwinding with `crate::ide::Cancelled` as soon as the query is cancelled.
    pub fn wait(&self, analysis: &Analysis, id: &RequestId) -> Result<(), crate::ide::Cancelled> {
        eprintln!(
            "sextant: lsp: test delay: {} started, {} steps (request {id})",
            self.method, self.steps
        );
        let done = std::sync::atomic::AtomicU64::new(0);
        let outcome = analysis.slow_query_for_tests(self.steps, Self::STEP, &done);
        let done = done.load(Ordering::Relaxed);
        match &outcome {
            Ok(()) => eprintln!(
                "sextant: lsp: test delay: {} finished (request {id})",
                self.method
            ),
            Err(_) => eprintln!(
                "sextant: lsp: test delay: {} stopped by cancellation after {done} of {} steps (request {id})",
                self.method, self.steps
            ),
        }
        outcome
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_queued_request_is_withdrawn_once_and_never_started() {
        let requests = InFlightRequests::default();
        let id = RequestId::from(3);
        let request = requests.register(id.clone(), Reads::Every).unwrap();
        assert!(
            requests.register(id.clone(), Reads::Every).is_none(),
            "duplicate id"
        );
        assert_eq!(requests.cancel(&id), Cancelled::Withdrawn);
        assert!(request.cancel.is_cancelled());
        assert!(!request.start());
        assert_eq!(requests.cancel(&id), Cancelled::Unknown);
        assert_eq!(requests.len(), 0);
    }

    #[test]
    fn a_running_request_is_cancelled_but_answered_by_its_worker() {
        let requests = InFlightRequests::default();
        let id = RequestId::from("r".to_string());
        let request = requests.register(id.clone(), Reads::Every).unwrap();
        assert!(request.start());
        assert_eq!(requests.cancel(&id), Cancelled::Running);
        assert!(request.cancel.is_cancelled());
        assert_eq!(requests.len(), 1);
        requests.finish(&id, &request);
        assert_eq!(requests.len(), 0);
    }

    #[test]
    fn removing_a_folder_stops_the_requests_reading_it_and_no_other() {
        let requests = InFlightRequests::default();
        let (a, b) = (
            std::path::PathBuf::from("/a"),
            std::path::PathBuf::from("/b"),
        );
        let queued = requests
            .register(RequestId::from(1), Reads::One(a.clone()))
            .unwrap();
        let running = requests.register(RequestId::from(2), Reads::Every).unwrap();
        assert!(running.start());
        let other = requests
            .register(RequestId::from(3), Reads::One(b))
            .unwrap();
        // The queued one is withdrawn (its caller answers it); the running one is stopped
        // and answered by its worker as a removal, not as a client's cancellation.
        assert_eq!(requests.cancel_reading(&a), vec![RequestId::from(1)]);
        assert!(!queued.start());
        assert!(running.cancel.is_cancelled());
        assert!(running.folder_removed.load(Ordering::SeqCst));
        assert!(!other.cancel.is_cancelled());
        assert_eq!(requests.len(), 2);
    }

    #[test]
    fn finishing_an_old_registration_keeps_a_new_one() {
        let requests = InFlightRequests::default();
        let id = RequestId::from(1);
        let old = requests.register(id.clone(), Reads::Every).unwrap();
        requests.finish(&id, &old);
        let new = requests.register(id.clone(), Reads::Every).unwrap();
        requests.finish(&id, &old);
        assert_eq!(requests.len(), 1);
        requests.finish(&id, &new);
        assert_eq!(requests.len(), 0);
    }
}
