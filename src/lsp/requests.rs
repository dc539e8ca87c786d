//! Requests in flight: the registry the main loop cancels through and the workers run from.
//!
//! Invariant: every request gets exactly one answer. A request is registered as queued;
//! then either a worker claims it (it is running, and the worker answers, `RequestCancelled`
//! if it was cancelled meanwhile) or `$/cancelRequest` withdraws it first (the main loop
//! answers `RequestCancelled` at once, and the worker drops it without running its handler).
//! The claim is one atomic step, so the two can never both answer. A question over the
//! whole workspace has a part per folder, each with a cancellation of its own that the
//! request's stops too: a removed folder stops its part alone when the other folders can
//! answer without it, and the whole request otherwise; a part that fails stops every other
//! part, since its failure is the answer and theirs can no longer matter.

use std::{
    panic::{AssertUnwindSafe, catch_unwind},
    path::{Path, PathBuf},
    sync::{
        Arc, OnceLock,
        atomic::{AtomicBool, AtomicU8, Ordering},
    },
};

use dashmap::{DashMap, mapref::entry::Entry};
use lsp_server::{ErrorCode, RequestId, Response};

use super::handlers::{HandlerError, HandlerResult};
use crate::workspace::live::{LiveWorkspace, ReadError, RequestCancel, TestDelay};

/// A request's handler with its params, ready to run under the request's cancellation
/// (again, for a held request): it reads the snapshots of the folders it asks (retrying
/// an attempt a write cancels), each under its part's cancellation, and gives its result
/// serialized.
pub type RequestWork =
    Box<dyn Fn(&InFlight) -> Result<HandlerResult<serde_json::Value>, ReadError> + Send>;

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
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reads {
    /// The folder at this root.
    One(PathBuf),
    /// Each of these folders, for a part of its answer (a question over the whole
    /// workspace, asked of the folders served when it arrived).
    Each(Vec<PathBuf>),
}

impl Reads {
    fn includes(&self, root: &Path) -> bool {
        match self {
            Reads::One(one) => one == root,
            Reads::Each(roots) => roots.iter().any(|r| r == root),
        }
    }
}

/// The part of a question over the whole workspace that one folder answers.
struct Part {
    root: PathBuf,
    /// Stops this folder's part alone (see `stopped_alone`), or with the whole request.
    cancel: RequestCancel,
    /// Why this part alone was stopped, if it was: the first reason given holds.
    stopped_alone: OnceLock<StoppedAlone>,
}

/// Why one folder's part of a question over the whole workspace was stopped while the rest
/// of the request went on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum StoppedAlone {
    /// Its folder was removed; the other folders answer without it.
    FolderRemoved,
    /// Another folder's part failed: that failure is the answer, so this part's is moot.
    OtherPartFailed,
}

impl Part {
    /// Stops this part alone, for `why`, unless it was stopped alone already. The reason
    /// is set before the cancellation, so that work seeing itself cancelled can read it.
    fn stop_alone(&self, why: StoppedAlone) {
        let _ = self.stopped_alone.set(why);
        self.cancel.cancel();
    }

    fn stopped_alone(&self) -> Option<StoppedAlone> {
        self.stopped_alone.get().copied()
    }
}

/// One request between its arrival and its answer.
pub struct InFlight {
    /// Stops the request's work wherever it is (see `RequestCancel`).
    pub cancel: RequestCancel,
    reads: Reads,
    /// For [`Reads::Each`], each folder's part, in the folders' order.
    parts: Vec<Part>,
    /// A folder it reads was removed while it ran: its answer says so (`ContentModified`),
    /// not that the client cancelled it.
    folder_removed: AtomicBool,
    state: AtomicU8,
    /// Its place in the worker pool's queue, given back when it is withdrawn.
    queue_slot: OnceLock<Arc<super::task_pool::QueueSlot>>,
}

impl InFlight {
    fn new(reads: Reads) -> InFlight {
        let parts = match &reads {
            Reads::One(_) => Vec::new(),
            Reads::Each(roots) => roots
                .iter()
                .map(|root| Part {
                    root: root.clone(),
                    cancel: RequestCancel::default(),
                    stopped_alone: OnceLock::new(),
                })
                .collect(),
        };
        InFlight {
            cancel: RequestCancel::default(),
            reads,
            parts,
            folder_removed: AtomicBool::new(false),
            state: AtomicU8::new(QUEUED),
            queue_slot: OnceLock::new(),
        }
    }

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

    /// Stops all of the request's work. The whole request is marked first, so that work
    /// that sees its part stopped can tell a removal from this.
    fn stop(&self) {
        self.cancel.cancel();
        for part in &self.parts {
            part.cancel.cancel();
        }
    }

    /// The cancellation under which the folder at `root` answers its part: the part's own
    /// for a question over the whole workspace, else the request's.
    pub fn cancel_of(&self, root: &Path) -> &RequestCancel {
        self.part(root).map_or(&self.cancel, |part| &part.cancel)
    }

    /// Whether the part of the folder at `root` is left out of the answer: its folder was
    /// removed while the request ran, and the rest of the request went on.
    pub fn left_out(&self, root: &Path) -> bool {
        self.stopped_alone(root) == Some(StoppedAlone::FolderRemoved)
    }

    /// The part of the folder at `root` failed, and its failure is the request's answer:
    /// stops every other part still running, since what they would answer can no longer
    /// matter. Each of them is then [`InFlight::stopped_for_failure`], not cancelled by
    /// the client; a part that fails too keeps its own failure (see `on_every`).
    pub fn part_failed(&self, root: &Path) {
        for part in self.parts.iter().filter(|part| part.root != root) {
            part.stop_alone(StoppedAlone::OtherPartFailed);
        }
    }

    /// Whether the part of the folder at `root` was stopped because another part failed
    /// (see [`InFlight::part_failed`]), and the rest of the request went on.
    pub fn stopped_for_failure(&self, root: &Path) -> bool {
        self.stopped_alone(root) == Some(StoppedAlone::OtherPartFailed)
    }

    /// Why the part of the folder at `root` was stopped alone; `None` also once the whole
    /// request is stopped, which then answers for every part.
    fn stopped_alone(&self, root: &Path) -> Option<StoppedAlone> {
        match self.cancel.is_cancelled() {
            true => None,
            false => self.part(root)?.stopped_alone(),
        }
    }

    fn part(&self, root: &Path) -> Option<&Part> {
        self.parts.iter().find(|part| part.root == root)
    }

    /// The folder at `root` was removed: stops its part alone, and true, when the answer
    /// of the other folders the request asks is the answer without it. False when no
    /// other folder is left to ask, or when it lies inside another one asked, whose part
    /// left the files under it to it (then the whole request must stop).
    fn leave_out(&self, root: &Path) -> bool {
        let Some(part) = self.part(root) else {
            return false;
        };
        let mut others = self
            .parts
            .iter()
            .filter(|other| other.root != root && !other.cancel.is_cancelled())
            .peekable();
        let answerable = others.peek().is_some() && !others.any(|o| root.starts_with(&o.root));
        if answerable {
            part.stop_alone(StoppedAlone::FolderRemoved);
        }
        answerable
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
            Entry::Vacant(slot) => Some(slot.insert(Arc::new(InFlight::new(reads))).clone()),
        }
    }

    /// The folder at `root` was removed: every request reading it stops, but for a
    /// question over the whole workspace that can be answered by the other folders it
    /// asks, which goes on without that folder's part. Gives the ids of those withdrawn
    /// before they started, for the caller to answer; a running one's worker answers
    /// `ContentModified`.
    pub fn cancel_reading(&self, root: &Path) -> Vec<RequestId> {
        let reading: Vec<(RequestId, Arc<InFlight>)> = self
            .0
            .iter()
            .filter(|r| r.value().reads.includes(root))
            .map(|r| (r.key().clone(), r.value().clone()))
            .collect();
        let mut withdrawn = Vec::new();
        for (id, request) in reading {
            if request.leave_out(root) {
                continue;
            }
            request.folder_removed.store(true, Ordering::SeqCst);
            request.stop();
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
        request.stop();
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
            request.stop();
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
            delay.wait_in(live, &request.cancel, &format!("request {id}"))?;
        }
        work(request)
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

/// The delay `SEXTANT_TEST_DELAY_MS=<method>:<ms>` asks of every request for that method
/// (`testing::TestHooks::lsp_delay`; read once, when the server starts), if any: so that
/// tests can cancel a request that is surely still running, or keep the workers busy.
pub fn request_delay_for_tests() -> Option<TestDelay> {
    let (method, delay) = crate::testing::hooks().lsp_delay.clone()?;
    Some(TestDelay::new(method, delay))
}

/// Test hook: the failure `SEXTANT_TEST_PART_FAIL=<dir>` asks of the part of `method`
/// asked of the folder at `root` (`testing::TestHooks::part_fail`), if any.
pub fn part_failure_for_tests(method: &str, root: &Path) -> Option<HandlerError> {
    let dir = crate::testing::hooks().part_fail.as_ref()?;
    crate::testing::named(root, dir).then(|| {
        HandlerError::Internal(format!("{method} failed in {dir} (SEXTANT_TEST_PART_FAIL)"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn every() -> Reads {
        Reads::Each(vec![PathBuf::from("/a"), PathBuf::from("/b")])
    }

    #[test]
    fn a_queued_request_is_withdrawn_once_and_never_started() {
        let requests = InFlightRequests::default();
        let id = RequestId::from(3);
        let request = requests.register(id.clone(), every()).unwrap();
        assert!(
            requests.register(id.clone(), every()).is_none(),
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
        let request = requests.register(id.clone(), every()).unwrap();
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
        let (a, b) = (PathBuf::from("/a"), PathBuf::from("/b"));
        let queued = requests
            .register(RequestId::from(1), Reads::One(a.clone()))
            .unwrap();
        let running = requests
            .register(RequestId::from(2), Reads::Each(vec![a.clone()]))
            .unwrap();
        assert!(running.start());
        let other = requests
            .register(RequestId::from(3), Reads::One(b.clone()))
            .unwrap();
        // Reads `b` alone, though `a` was served when it arrived.
        let elsewhere = requests
            .register(RequestId::from(4), Reads::Each(vec![b]))
            .unwrap();
        // The queued one is withdrawn (its caller answers it); the running one, which asks
        // no other folder, is stopped and answered by its worker as a removal, not as a
        // client's cancellation.
        assert_eq!(requests.cancel_reading(&a), vec![RequestId::from(1)]);
        assert!(!queued.start());
        assert!(running.cancel.is_cancelled());
        assert!(running.folder_removed.load(Ordering::SeqCst));
        assert!(!running.left_out(&a));
        assert!(!other.cancel.is_cancelled());
        assert!(!elsewhere.cancel.is_cancelled());
        assert_eq!(requests.len(), 3);
    }

    #[test]
    fn a_question_of_every_folder_goes_on_without_a_removed_one_unless_nested() {
        let requests = InFlightRequests::default();
        let (a, b, c) = (
            PathBuf::from("/a"),
            PathBuf::from("/b"),
            PathBuf::from("/c"),
        );
        let (inner, beside) = (PathBuf::from("/a/inner"), PathBuf::from("/ab"));
        let roots = vec![
            a.clone(),
            b.clone(),
            c.clone(),
            inner.clone(),
            beside.clone(),
        ];
        let request = requests
            .register(RequestId::from(1), Reads::Each(roots))
            .unwrap();
        assert!(request.start());

        // Only its part stops; `/ab` lies beside `/a`, not inside it.
        for removed in [&b, &beside] {
            assert_eq!(requests.cancel_reading(removed), Vec::<RequestId>::new());
            assert!(request.cancel_of(removed).is_cancelled());
            assert!(request.left_out(removed));
        }
        assert!(!request.cancel.is_cancelled());
        assert!(!request.cancel_of(&a).is_cancelled() && !request.left_out(&a));
        assert!(!request.folder_removed.load(Ordering::SeqCst));

        // A folder inside another one asked: that one's part left its files to it.
        assert_eq!(requests.cancel_reading(&inner), Vec::<RequestId>::new());
        assert!(request.cancel.is_cancelled());
        assert!(request.folder_removed.load(Ordering::SeqCst));
        // Stopped whole, no part is "left out": the request is answered as a removal.
        assert!(request.cancel_of(&c).is_cancelled() && !request.left_out(&c));

        // The last folder a question asks: nothing is left to answer it.
        let last = requests
            .register(RequestId::from(2), Reads::Each(vec![a.clone(), b.clone()]))
            .unwrap();
        assert!(last.start());
        assert!(requests.cancel_reading(&a).is_empty());
        assert!(last.left_out(&a) && !last.cancel.is_cancelled());
        assert!(requests.cancel_reading(&b).is_empty());
        assert!(last.cancel.is_cancelled() && last.folder_removed.load(Ordering::SeqCst));
    }

    #[test]
    fn cancelling_a_question_of_every_folder_stops_every_part() {
        let requests = InFlightRequests::default();
        let request = requests.register(RequestId::from(1), every()).unwrap();
        assert!(request.start());
        assert_eq!(requests.cancel(&RequestId::from(1)), Cancelled::Running);
        for root in ["/a", "/b"] {
            let root = Path::new(root);
            assert!(request.cancel_of(root).is_cancelled());
            assert!(!request.left_out(root));
        }
    }

    #[test]
    fn a_failing_part_stops_the_others_which_the_client_did_not_cancel() {
        let requests = InFlightRequests::default();
        let (a, b, c) = (Path::new("/a"), Path::new("/b"), Path::new("/c"));
        let roots = [a, b, c].map(Path::to_path_buf).to_vec();
        let request = requests
            .register(RequestId::from(1), Reads::Each(roots))
            .unwrap();
        assert!(request.start());
        request.part_failed(b);
        assert!(!request.cancel_of(b).is_cancelled() && !request.stopped_for_failure(b));
        for other in [a, c] {
            assert!(request.cancel_of(other).is_cancelled());
            assert!(request.stopped_for_failure(other));
            assert!(!request.left_out(other));
        }
        assert!(!request.cancel.is_cancelled());
        assert!(!request.folder_removed.load(Ordering::SeqCst));

        // A part failing too stops the first; the first reason a part was stopped holds.
        request.part_failed(a);
        assert!(request.stopped_for_failure(b) && request.stopped_for_failure(c));

        // The client's cancellation then answers for every part.
        assert_eq!(requests.cancel(&RequestId::from(1)), Cancelled::Running);
        assert!(!request.stopped_for_failure(c) && !request.left_out(c));
    }

    #[test]
    fn a_part_left_out_stays_left_out_when_another_fails() {
        let requests = InFlightRequests::default();
        let (a, b, c) = (
            PathBuf::from("/a"),
            PathBuf::from("/b"),
            PathBuf::from("/c"),
        );
        let roots = vec![a.clone(), b.clone(), c.clone()];
        let request = requests
            .register(RequestId::from(1), Reads::Each(roots))
            .unwrap();
        assert!(request.start());
        assert!(requests.cancel_reading(&a).is_empty());
        request.part_failed(&b);
        assert!(request.left_out(&a) && !request.stopped_for_failure(&a));
        assert!(request.stopped_for_failure(&c));
    }

    #[test]
    fn finishing_an_old_registration_keeps_a_new_one() {
        let requests = InFlightRequests::default();
        let id = RequestId::from(1);
        let old = requests.register(id.clone(), every()).unwrap();
        requests.finish(&id, &old);
        let new = requests.register(id.clone(), every()).unwrap();
        requests.finish(&id, &old);
        assert_eq!(requests.len(), 1);
        requests.finish(&id, &new);
        assert_eq!(requests.len(), 0);
    }
}
