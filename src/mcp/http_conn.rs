//! The HTTP/1.1 connection layer under the MCP router: admission in two pools and a
//! watchdog per connection.
//!
//! Invariants: a connection is *pending* until one of its requests passes the token check
//! (the router calls [`Admission::authorised`]), then *authorised*. At most `max_connections`
//! of each kind are open, plus the one being accepted; more wait in the listen backlog,
//! holding no file descriptor of ours. When every pending place is taken, a new connection
//! takes the place of the pending connection that has waited longest with no request in
//! progress, and that one is closed: connections holding partial request heads cannot keep a
//! client with the token out, and an authorised connection is never closed to make room. A
//! request authorised while every authorised place is taken waits for one. A connection with
//! no request in progress is closed once the start of a request head has waited
//! `header_timeout` (counted from the connection or from the head's first byte) or nothing
//! has come for `idle_timeout`; a request body must arrive within `body_timeout` of its head.
//! A response in progress (a long-lived event stream included) is never cut by these timers.
//! On shutdown, accepting stops, connections finish their current response, and `POST`
//! responses still running get a grace period before the event streams are ended.

use std::{
    collections::BTreeMap,
    convert::Infallible,
    future::Future,
    pin::Pin,
    sync::{
        Arc, Mutex, MutexGuard,
        atomic::{AtomicU64, Ordering},
    },
    task::{Context, Poll},
    time::Duration,
};

use axum::body::Body;
use bytes::Bytes;
use http_body::{Frame, SizeHint};
use hyper::{Request, body::Incoming, server::conn::http1, service::service_fn};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::{
    io::{AsyncRead, AsyncWrite, ReadBuf},
    net::{TcpListener, TcpStream},
    sync::{Notify, OwnedSemaphorePermit, Semaphore, watch},
    time::{Instant, Sleep},
};
use tower::ServiceExt;

use super::http::HttpLimits;

/// How long `POST` responses in progress may run on after a shutdown signal.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

/// How long connections get to close once the event streams are ended.
const CLOSE_GRACE: Duration = Duration::from_secs(1);

/// Serves `app` on `listener` until `shutdown` resolves, then drains: see the module
/// invariants. `end_streams` is called once `POST` responses are done (or the grace period is
/// over), to end the long-lived event streams.
pub async fn serve(
    listener: TcpListener,
    app: axum::Router,
    limits: HttpLimits,
    shutdown: impl Future<Output = ()>,
    end_streams: impl FnOnce(),
) {
    let pool = Pool::new(limits.max_connections.max(1));
    let (stop_tx, stop_rx) = watch::channel(false);
    let (posts_tx, mut posts_rx) = watch::channel(0usize);
    let posts = Arc::new(posts_tx);
    let (open_tx, mut open_rx) = watch::channel(0usize);
    let open = Arc::new(open_tx);
    let limits = Arc::new(limits);
    tokio::pin!(shutdown);
    loop {
        let accepted = tokio::select! {
            () = &mut shutdown => break,
            accepted = accept(&listener, &pool) => accepted,
        };
        let Some((stream, activity)) = accepted else {
            continue;
        };
        let connection = Connection {
            app: app.clone(),
            limits: limits.clone(),
            posts: posts.clone(),
            activity,
        };
        let (stop, open) = (stop_rx.clone(), open.clone());
        open.send_modify(|n| *n += 1);
        tokio::spawn(async move {
            let activity = connection.activity.clone();
            connection.run(stream, stop).await;
            activity.pool.leave(&activity);
            open.send_modify(|n| *n -= 1);
        });
    }
    drop(listener);
    eprintln!("sextant: shutting down: finishing requests in progress");
    let _ = stop_tx.send(true);
    let _ = tokio::time::timeout(SHUTDOWN_GRACE, posts_rx.wait_for(|&n| n == 0)).await;
    end_streams();
    let _ = tokio::time::timeout(CLOSE_GRACE, open_rx.wait_for(|&n| n == 0)).await;
}

/// Waits for a pending place to be free or freeable, then for a connection, and admits it.
/// `None` after an accept error (out of file descriptors, say), after a short pause so the
/// loop does not spin.
async fn accept(listener: &TcpListener, pool: &Arc<Pool>) -> Option<(TcpStream, Arc<Activity>)> {
    pool.room().await;
    let stream = match listener.accept().await {
        Ok((stream, _)) => stream,
        Err(e) => {
            eprintln!("sextant: accepting a connection: {e}");
            tokio::time::sleep(Duration::from_millis(100)).await;
            return None;
        }
    };
    let activity = Arc::new(Activity::new(pool.clone()));
    pool.admit(&activity).await;
    Some((stream, activity))
}

/// The places of pending and authorised connections (see the module invariants).
struct Pool {
    /// Pending connections by their number: the oldest first.
    pending: Mutex<BTreeMap<u64, Arc<Activity>>>,
    max_pending: usize,
    /// Told when a pending place may have come free: a pending connection ended, was
    /// authorised, or has no request in progress any more (so it may be closed for a new one).
    changed: Notify,
    authorised: Arc<Semaphore>,
    numbers: AtomicU64,
}

impl Pool {
    fn new(max_connections: usize) -> Arc<Pool> {
        Arc::new(Pool {
            pending: Mutex::new(BTreeMap::new()),
            max_pending: max_connections,
            changed: Notify::new(),
            authorised: Arc::new(Semaphore::new(max_connections)),
            numbers: AtomicU64::new(0),
        })
    }

    fn lock(&self) -> MutexGuard<'_, BTreeMap<u64, Arc<Activity>>> {
        self.pending.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits until `ready` holds of the pending connections, checking again whenever they
    /// change (the wake-up is registered before each check, so none is lost).
    async fn wait_until(&self, mut ready: impl FnMut(&Pool) -> bool) {
        loop {
            let changed = self.changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            if ready(self) {
                return;
            }
            changed.await;
        }
    }

    /// Waits until a new connection could be admitted.
    async fn room(&self) {
        self.wait_until(|pool| {
            let pending = pool.lock();
            pending.len() < pool.max_pending || pending.values().any(|a| a.evictable())
        })
        .await;
    }

    /// Admits `activity` as pending, closing the oldest pending connection with no request
    /// in progress when every place is taken; waits while none can be closed.
    async fn admit(&self, activity: &Arc<Activity>) {
        self.wait_until(|pool| pool.try_admit(activity)).await;
    }

    fn try_admit(&self, activity: &Arc<Activity>) -> bool {
        let mut pending = self.lock();
        if pending.len() >= self.max_pending {
            let Some(oldest) = pending
                .iter()
                .find(|(_, a)| a.evictable())
                .map(|(&number, _)| number)
            else {
                return false;
            };
            if let Some(evicted) = pending.remove(&oldest) {
                evicted.evicted.notify_one();
            }
        }
        pending.insert(activity.number, activity.clone());
        true
    }

    /// Gives up the connection's place, pending or authorised.
    fn leave(&self, activity: &Activity) {
        let left = self.lock().remove(&activity.number).is_some();
        drop(activity.lock().permit.take());
        if left {
            self.changed.notify_waiters();
        }
    }
}

/// A connection's admission, handed to the router in each request's extensions.
#[derive(Clone)]
pub struct Admission(Arc<Activity>);

impl Admission {
    /// The connection made a request that passed the token check: it leaves the pending
    /// pool for an authorised place, waiting for one while all are taken.
    pub async fn authorised(&self) {
        let activity = &self.0;
        if activity.lock().authorised {
            return;
        }
        let Ok(permit) = activity.pool.authorised.clone().acquire_owned().await else {
            return;
        };
        {
            let mut state = activity.lock();
            state.authorised = true;
            state.permit = Some(permit);
        }
        activity.pool.lock().remove(&activity.number);
        activity.pool.changed.notify_waiters();
    }
}

/// What one connection's watchdog needs to know: requests in progress, and since when the
/// connection has been waiting (for a head, or for anything at all).
struct Activity {
    state: Mutex<ActivityState>,
    changed: Notify,
    /// Told when the pool closes the connection to make room for a new one.
    evicted: Notify,
    pool: Arc<Pool>,
    /// Its place in the order of arrival.
    number: u64,
}

struct ActivityState {
    requests: usize,
    since: Instant,
    /// Bytes of a request head have arrived (or the connection is new): the header timeout
    /// runs rather than the idle timeout.
    head_started: bool,
    /// A request of this connection passed the token check.
    authorised: bool,
    /// Its authorised place, once it has one.
    permit: Option<OwnedSemaphorePermit>,
}

impl Activity {
    fn new(pool: Arc<Pool>) -> Activity {
        Activity {
            state: Mutex::new(ActivityState {
                requests: 0,
                since: Instant::now(),
                head_started: true,
                authorised: false,
                permit: None,
            }),
            changed: Notify::new(),
            evicted: Notify::new(),
            number: pool.numbers.fetch_add(1, Ordering::Relaxed),
            pool,
        }
    }

    fn lock(&self) -> MutexGuard<'_, ActivityState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Pending with no request in progress: it may be closed to make room.
    fn evictable(&self) -> bool {
        let state = self.lock();
        !state.authorised && state.requests == 0
    }

    /// When the connection is to be closed if nothing changes; `None` while busy.
    fn deadline(&self, limits: &HttpLimits) -> Option<Instant> {
        let state = self.lock();
        if state.requests > 0 {
            return None;
        }
        let wait = if state.head_started {
            limits.header_timeout()
        } else {
            limits.idle_timeout()
        };
        Some(state.since + wait)
    }

    fn bytes_read(&self) {
        let mut state = self.lock();
        if state.requests == 0 && !state.head_started {
            state.head_started = true;
            state.since = Instant::now();
            drop(state);
            self.changed.notify_one();
        }
    }

    fn request_started(&self) {
        self.lock().requests += 1;
    }

    fn request_ended(&self) {
        let mut state = self.lock();
        state.requests -= 1;
        if state.requests == 0 {
            state.head_started = false;
            state.since = Instant::now();
            let pending = !state.authorised;
            drop(state);
            self.changed.notify_one();
            if pending {
                self.pool.changed.notify_waiters();
            }
        }
    }
}

struct Connection {
    app: axum::Router,
    limits: Arc<HttpLimits>,
    posts: Arc<watch::Sender<usize>>,
    activity: Arc<Activity>,
}

impl Connection {
    async fn run(self, stream: TcpStream, mut stop: watch::Receiver<bool>) {
        let io = TokioIo::new(WatchedIo {
            inner: stream,
            activity: self.activity.clone(),
        });
        let activity = self.activity.clone();
        let limits = self.limits.clone();
        let (app, posts) = (self.app.clone(), self.posts.clone());
        let service = service_fn(move |request: Request<Incoming>| {
            let guard = RequestGuard::new(
                activity.clone(),
                (request.method() == hyper::Method::POST).then(|| posts.clone()),
            );
            let deadline = tokio::time::sleep(limits.body_timeout());
            let mut request = request.map(|body| {
                Body::new(DeadlineBody {
                    inner: body,
                    deadline: Box::pin(deadline),
                })
            });
            request.extensions_mut().insert(Admission(activity.clone()));
            let app = app.clone();
            async move {
                let response = app.oneshot(request).await.unwrap_or_else(|e| match e {});
                Ok::<_, Infallible>(response.map(|body| Guarded::new(body, guard)))
            }
        });
        let mut builder = http1::Builder::new();
        // The watchdog below times heads; hyper's own timer would also cut idle connections.
        builder
            .timer(TokioTimer::new())
            .header_read_timeout(None::<Duration>);
        let connection = builder.serve_connection(io, service);
        tokio::pin!(connection);
        let mut stopping = false;
        loop {
            let deadline = self.activity.deadline(&self.limits);
            let expiry = async {
                match deadline {
                    Some(deadline) => tokio::time::sleep_until(deadline).await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                _ = connection.as_mut() => return,
                () = self.activity.changed.notified() => {}
                // Dropping the connection closes it.
                () = self.activity.evicted.notified() => return,
                () = expiry => {
                    if self
                        .activity
                        .deadline(&self.limits)
                        .is_some_and(|d| d <= Instant::now())
                    {
                        // Nothing in progress: dropping the connection closes it.
                        return;
                    }
                }
                _ = stop.changed(), if !stopping => {
                    stopping = true;
                    connection.as_mut().graceful_shutdown();
                }
            }
        }
    }
}

/// The socket, reporting reads to the watchdog.
struct WatchedIo {
    inner: TcpStream,
    activity: Arc<Activity>,
}

impl AsyncRead for WatchedIo {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let result = Pin::new(&mut self.inner).poll_read(cx, buf);
        if matches!(result, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.activity.bytes_read();
        }
        result
    }
}

impl AsyncWrite for WatchedIo {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// Marks a request in progress from its head until its response body is dropped (sent, or
/// abandoned with the connection).
struct RequestGuard {
    activity: Arc<Activity>,
    posts: Option<Arc<watch::Sender<usize>>>,
}

impl RequestGuard {
    fn new(activity: Arc<Activity>, posts: Option<Arc<watch::Sender<usize>>>) -> RequestGuard {
        activity.request_started();
        if let Some(posts) = &posts {
            posts.send_modify(|n| *n += 1);
        }
        RequestGuard { activity, posts }
    }
}

impl Drop for RequestGuard {
    fn drop(&mut self) {
        self.activity.request_ended();
        if let Some(posts) = &self.posts {
            posts.send_modify(|n| *n -= 1);
        }
    }
}

/// A response body holding something for as long as it streams: its request marked in
/// progress, or its request id in flight.
pub struct Guarded<G> {
    inner: Body,
    _guard: G,
}

impl<G> Guarded<G> {
    pub fn new(inner: Body, guard: G) -> Guarded<G> {
        Guarded {
            inner,
            _guard: guard,
        }
    }
}

impl<G: Unpin> http_body::Body for Guarded<G> {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// The request body reading past its deadline.
#[derive(Debug, thiserror::Error)]
#[error("the request body did not arrive in time")]
pub struct BodyTimedOut;

/// A request body that fails with [`BodyTimedOut`] once its deadline passes.
struct DeadlineBody {
    inner: Incoming,
    deadline: Pin<Box<Sleep>>,
}

impl http_body::Body for DeadlineBody {
    type Data = Bytes;
    type Error = Box<dyn std::error::Error + Send + Sync>;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        if let Poll::Ready(frame) = Pin::new(&mut self.inner).poll_frame(cx) {
            return Poll::Ready(frame.map(|f| f.map_err(Into::into)));
        }
        match self.deadline.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Some(Err(Box::new(BodyTimedOut)))),
            Poll::Pending => Poll::Pending,
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pending(pool: &Pool) -> Vec<u64> {
        pool.lock().keys().copied().collect()
    }

    /// Whether `future` is ready when first polled (a timeout polls it before its clock).
    async fn ready_now(future: impl Future<Output = ()>) -> bool {
        tokio::time::timeout(Duration::ZERO, future).await.is_ok()
    }

    async fn was_evicted(activity: &Activity) -> bool {
        // `notify_one` leaves a permit, so an eviction already made is ready at once.
        ready_now(activity.evicted.notified()).await
    }

    #[tokio::test]
    async fn a_new_connection_takes_the_place_of_the_oldest_idle_pending_one() {
        let pool = Pool::new(2);
        let [a, b, c, d] = [(); 4].map(|()| Arc::new(Activity::new(pool.clone())));
        pool.admit(&a).await;
        pool.admit(&b).await;
        a.request_started();
        pool.admit(&c).await;
        assert_eq!(pending(&pool), [a.number, c.number]);
        assert!(was_evicted(&b).await && !was_evicted(&a).await);
        // Authorised, `a` leaves the pending pool and is never closed for a newcomer.
        Admission(a.clone()).authorised().await;
        assert_eq!(pending(&pool), [c.number]);
        a.request_ended();
        pool.admit(&d).await;
        assert_eq!(pending(&pool), [c.number, d.number]);
        assert!(!was_evicted(&a).await && !was_evicted(&c).await);
    }

    #[tokio::test]
    async fn a_new_connection_waits_while_every_pending_one_has_a_request_in_progress() {
        let pool = Pool::new(1);
        let [a, b] = [(); 2].map(|()| Arc::new(Activity::new(pool.clone())));
        pool.admit(&a).await;
        a.request_started();
        let admitting = pool.admit(&b);
        tokio::pin!(admitting);
        assert!(!ready_now(admitting.as_mut()).await);
        a.request_ended();
        admitting.await;
        assert_eq!(pending(&pool), [b.number]);
        assert!(was_evicted(&a).await);
    }
}
