//! The HTTP/1.1 connection layer under the MCP router: a bounded accept loop and a watchdog
//! per connection.
//!
//! Invariants: at most `max_connections` connections are open (more wait in the listen
//! backlog, holding no file descriptor of ours); a connection with no request in progress is
//! closed once the start of a request head has waited `header_timeout` (counted from the
//! connection or from the head's first byte) or nothing has come for `idle_timeout`; a
//! request body must arrive within `body_timeout` of its head. A response in progress (a
//! long-lived event stream included) is never cut by these timers. On shutdown, accepting
//! stops, connections finish their current response, and `POST` responses still running get
//! a grace period before the event streams are ended.

use std::{
    convert::Infallible,
    future::Future,
    pin::Pin,
    sync::{Arc, Mutex},
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
    sync::{Notify, Semaphore, watch},
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
    let max_connections = limits.max_connections.max(1);
    let slots = Arc::new(Semaphore::new(max_connections));
    let (stop_tx, stop_rx) = watch::channel(false);
    let (posts_tx, mut posts_rx) = watch::channel(0usize);
    let posts = Arc::new(posts_tx);
    let limits = Arc::new(limits);
    tokio::pin!(shutdown);
    loop {
        let accepted = tokio::select! {
            () = &mut shutdown => break,
            accepted = accept(&listener, &slots) => accepted,
        };
        let Some((stream, slot)) = accepted else {
            continue;
        };
        let connection = Connection {
            app: app.clone(),
            limits: limits.clone(),
            posts: posts.clone(),
            activity: Arc::new(Activity::new()),
        };
        let stop = stop_rx.clone();
        tokio::spawn(async move {
            connection.run(stream, stop).await;
            drop(slot);
        });
    }
    drop(listener);
    eprintln!("sextant: shutting down: finishing requests in progress");
    let _ = stop_tx.send(true);
    let _ = tokio::time::timeout(SHUTDOWN_GRACE, posts_rx.wait_for(|&n| n == 0)).await;
    end_streams();
    let _ = tokio::time::timeout(CLOSE_GRACE, slots.acquire_many(max_connections as u32)).await;
}

/// Waits for a free connection slot, then for a connection. `None` after an accept error
/// (out of file descriptors, say), after a short pause so the loop does not spin.
async fn accept(
    listener: &TcpListener,
    slots: &Arc<Semaphore>,
) -> Option<(TcpStream, tokio::sync::OwnedSemaphorePermit)> {
    let slot = slots.clone().acquire_owned().await.ok()?;
    match listener.accept().await {
        Ok((stream, _)) => Some((stream, slot)),
        Err(e) => {
            eprintln!("sextant: accepting a connection: {e}");
            tokio::time::sleep(Duration::from_millis(100)).await;
            None
        }
    }
}

/// What one connection's watchdog needs to know: requests in progress, and since when the
/// connection has been waiting (for a head, or for anything at all).
struct Activity {
    state: Mutex<ActivityState>,
    changed: Notify,
}

struct ActivityState {
    requests: usize,
    since: Instant,
    /// Bytes of a request head have arrived (or the connection is new): the header timeout
    /// runs rather than the idle timeout.
    head_started: bool,
}

impl Activity {
    fn new() -> Activity {
        Activity {
            state: Mutex::new(ActivityState {
                requests: 0,
                since: Instant::now(),
                head_started: true,
            }),
            changed: Notify::new(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, ActivityState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
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
            drop(state);
            self.changed.notify_one();
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
            let request = request.map(|body| {
                Body::new(DeadlineBody {
                    inner: body,
                    deadline: Box::pin(deadline),
                })
            });
            let app = app.clone();
            async move {
                let response = app.oneshot(request).await.unwrap_or_else(|e| match e {});
                Ok::<_, Infallible>(response.map(|body| GuardedBody {
                    inner: body,
                    _guard: guard,
                }))
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

/// A response body that keeps its request marked in progress while it streams.
struct GuardedBody {
    inner: Body,
    _guard: RequestGuard,
}

impl http_body::Body for GuardedBody {
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
