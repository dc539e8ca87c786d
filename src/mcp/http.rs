//! Streamable HTTP transport: loopback only, `Host` and `Origin` checked, optional bearer
//! token, request bodies checked as JSON-RPC frames before rmcp sees them.
//!
//! Invariants: without a bearer token the server is read-only (any local user can reach a
//! loopback port, so writing needs a secret) and says so at start; a request reaches rmcp only
//! after the token check and, for a JSON `POST`, after its body (at most `max_request_bytes`,
//! refused with 413 as soon as its declared length is over) passed [`frame::check`] and its
//! request id is not in flight in its session; a refused body gets a JSON-RPC error object,
//! never a bare status.

use std::{net::SocketAddr, sync::Arc, time::Duration};

use axum::{
    body::Body,
    extract::{Request, State},
    http::{HeaderMap, HeaderValue, Method, StatusCode, header},
    middleware::{self, Next},
    response::{IntoResponse, Response},
};
use http_body_util::BodyExt;
use rmcp::transport::{
    StreamableHttpServerConfig, StreamableHttpService,
    streamable_http_server::session::local::LocalSessionManager,
};

use super::roots::Roots;
use super::{
    Limits, SextantServer,
    frame::{self, Forwarded, Rejection, Verdict},
    http_conn,
    inflight::{HeldId, InFlightIds},
};

/// Connection limits of the HTTP transport; set at start.
#[derive(Clone, Debug)]
pub struct HttpLimits {
    /// Time for a request head to arrive, from the connection or from its first byte, in
    /// milliseconds.
    pub header_timeout_ms: u64,
    /// Time for a request body to arrive after its head, in milliseconds.
    pub body_timeout_ms: u64,
    /// Time a keep-alive connection may wait for its next request, in milliseconds.
    pub idle_timeout_ms: u64,
    /// Connections open at once; more wait to be accepted.
    pub max_connections: usize,
}

impl Default for HttpLimits {
    fn default() -> Self {
        HttpLimits {
            header_timeout_ms: 10_000,
            body_timeout_ms: 10_000,
            idle_timeout_ms: 60_000,
            max_connections: 64,
        }
    }
}

impl HttpLimits {
    pub fn header_timeout(&self) -> Duration {
        Duration::from_millis(self.header_timeout_ms)
    }

    pub fn body_timeout(&self) -> Duration {
        Duration::from_millis(self.body_timeout_ms)
    }

    pub fn idle_timeout(&self) -> Duration {
        Duration::from_millis(self.idle_timeout_ms)
    }
}

/// How long a body declared over the limit is read for its request id before the 413.
const ID_WAIT: Duration = Duration::from_millis(100);

/// Serves MCP at `http://ADDR/mcp` until SIGINT or SIGTERM, then stops gracefully. `token`,
/// when set, must come as `Authorization: Bearer <token>` on every request; without it no
/// tool writes.
pub async fn serve_http(
    roots: Arc<Roots>,
    mut limits: Limits,
    http_limits: HttpLimits,
    addr: SocketAddr,
    token: Option<String>,
) -> Result<(), String> {
    limits.check()?;
    if !addr.ip().is_loopback() {
        return Err(format!(
            "refusing to listen on {addr}: sextant serves HTTP on loopback addresses only (127.0.0.1, ::1)"
        ));
    }
    // Signal handlers first, so a signal right after the announcement is not fatal.
    let shutdown = shutdown_signal()?;
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
    let port = listener.local_addr().map_err(|e| e.to_string())?.port();
    let bound = SocketAddr::new(addr.ip(), port);
    // The bound address itself is a valid Host and Origin (127.0.0.2, say).
    let mut hosts = vec!["localhost".to_string(), "127.0.0.1".into(), "::1".into()];
    hosts.push(addr.ip().to_string());
    let origins = [
        format!("http://localhost:{port}"),
        format!("http://127.0.0.1:{port}"),
        format!("http://[::1]:{port}"),
        format!("http://{bound}"),
    ];
    let config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(hosts)
        .with_allowed_origins(origins)
        .with_max_request_body_bytes(limits.max_request_bytes);
    let end_streams = config.cancellation_token.clone();
    let body_check = BodyCheck {
        max_frame: limits.max_request_bytes,
        in_flight: InFlightIds::default(),
    };
    let unauthenticated = token.is_none();
    limits.read_only |= unauthenticated;
    // One server value shared by every session (the in-flight limit is global), but for
    // the pack parts each session holds for itself.
    let server = SextantServer::new(roots, limits);
    let service = StreamableHttpService::new(
        move || Ok(server.for_new_session()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let app = axum::Router::new()
        .nest_service("/mcp", service)
        .layer(middleware::from_fn_with_state(body_check, check_body))
        .layer(middleware::from_fn_with_state(
            Arc::new(token),
            require_token,
        ));
    eprintln!("sextant: serving MCP on http://{bound}/mcp");
    if unauthenticated {
        eprintln!(
            "sextant: warning: no bearer token (--token-env or --token-file): serving read-only \
             (apply_patch, edit_symbol, rename_symbol and format_source cannot apply), and any local \
             user can read the workspace through this port"
        );
    }
    http_conn::serve(listener, app, http_limits, shutdown, move || {
        end_streams.cancel()
    })
    .await;
    eprintln!("sextant: stopped");
    Ok(())
}

/// Resolves on SIGINT or SIGTERM; the handlers are installed before this returns.
fn shutdown_signal() -> Result<impl Future<Output = ()>, String> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut interrupt =
        signal(SignalKind::interrupt()).map_err(|e| format!("installing signal handlers: {e}"))?;
    let mut terminate =
        signal(SignalKind::terminate()).map_err(|e| format!("installing signal handlers: {e}"))?;
    Ok(async move {
        tokio::select! {
            _ = interrupt.recv() => {}
            _ = terminate.recv() => {}
        }
    })
}

async fn require_token(
    State(token): State<Arc<Option<String>>>,
    request: Request,
    next: Next,
) -> Response {
    if let Some(expected) = token.as_deref() {
        let given = bearer_token(request.headers());
        if !given.is_some_and(|g| constant_time_eq(g.as_bytes(), expected.as_bytes())) {
            return (
                StatusCode::UNAUTHORIZED,
                [(header::WWW_AUTHENTICATE, "Bearer")],
                "missing or wrong bearer token\n",
            )
                .into_response();
        }
    }
    if let Some(admission) = request.extensions().get::<http_conn::Admission>().cloned() {
        admission.authorised().await;
    }
    next.run(request).await
}

/// The token of `Authorization: Bearer <token>`; the scheme is case-insensitive (RFC 7235).
fn bearer_token(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.trim_start().split_once(' ')?;
    let token = token.trim_matches(' ');
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// What [`check_body`] checks against.
#[derive(Clone)]
struct BodyCheck {
    max_frame: usize,
    /// Request ids in flight, per `Mcp-Session-Id`.
    in_flight: InFlightIds,
}

/// Checks the body of a JSON `POST` as one JSON-RPC frame; other requests pass untouched
/// (rmcp answers a wrong content type with 415).
async fn check_body(State(check): State<BodyCheck>, request: Request, next: Next) -> Response {
    if request.method() != Method::POST || !is_json(request.headers()) {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    let max_frame = check.max_frame;
    if declared_length(&parts.headers).is_some_and(|length| length > max_frame as u64) {
        return too_large_at_once(&parts.headers, body, max_frame).await;
    }
    let bytes = match read_body(body, max_frame).await {
        Ok(bytes) => bytes,
        Err(e) => return body_error_response(e, max_frame),
    };
    match frame::check(&bytes) {
        Verdict::Forward(forwarded) => {
            let held = match hold_id(&check.in_flight, forwarded, &parts.headers) {
                Ok(held) => held,
                Err(rejection) => return rejection_response(StatusCode::BAD_REQUEST, rejection),
            };
            let response = next
                .run(Request::from_parts(parts, Body::from(bytes)))
                .await;
            // The id stays in flight until the answer has been sent (or abandoned).
            match held {
                Some(held) => response.map(|body| Body::new(http_conn::Guarded::new(body, held))),
                None => response,
            }
        }
        Verdict::Skip => rejection_response(
            StatusCode::BAD_REQUEST,
            Rejection {
                code: frame::PARSE_ERROR,
                message: "parse error: empty request body".into(),
                id: serde_json::Value::Null,
            },
        ),
        Verdict::Reject(rejection) => rejection_response(StatusCode::BAD_REQUEST, rejection),
    }
}

/// The answer to a body that could not be read whole.
fn body_error_response(error: BodyError, max_frame: usize) -> Response {
    match error {
        BodyError::TooLarge(prefix) => rejection_response(
            StatusCode::PAYLOAD_TOO_LARGE,
            Rejection::too_large(&prefix, max_frame),
        ),
        BodyError::TimedOut => {
            eprintln!("sextant: a request body did not arrive in time");
            (
                StatusCode::REQUEST_TIMEOUT,
                [(header::CONNECTION, "close")],
                "the request body did not arrive in time\n",
            )
                .into_response()
        }
        BodyError::Broken(e) => {
            (StatusCode::BAD_REQUEST, format!("reading the body: {e}\n")).into_response()
        }
    }
}

/// Answers a body declared over the limit before it arrives: 413 at once, with the request
/// id if the first bytes came with the head. A client waiting for `100 Continue` is not sent
/// one (reading the body would), so it never starts sending.
async fn too_large_at_once(headers: &HeaderMap, body: Body, max_frame: usize) -> Response {
    let prefix = if expects_continue(headers) {
        Vec::new()
    } else {
        first_bytes(body, ID_WAIT).await
    };
    let mut response = rejection_response(
        StatusCode::PAYLOAD_TOO_LARGE,
        Rejection::too_large(&prefix, max_frame),
    );
    // The rest of the body is never read, so the connection cannot carry another request.
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

/// The start of a body, until the request id is found in it or `wait` is over.
async fn first_bytes(mut body: Body, wait: Duration) -> Vec<u8> {
    let mut bytes = Vec::new();
    let read = async {
        while bytes.len() < frame::ID_SCAN_BYTES && frame::recover_id(&bytes).is_none() {
            match body.frame().await {
                Some(Ok(frame)) => {
                    if let Ok(data) = frame.into_data() {
                        bytes.extend_from_slice(&data);
                    }
                }
                _ => break,
            }
        }
    };
    let _ = tokio::time::timeout(wait, read).await;
    bytes
}

fn declared_length(headers: &HeaderMap) -> Option<u64> {
    headers
        .get(header::CONTENT_LENGTH)?
        .to_str()
        .ok()?
        .trim()
        .parse()
        .ok()
}

fn expects_continue(headers: &HeaderMap) -> bool {
    headers
        .get(header::EXPECT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("100-continue"))
}

/// Holds a request's id in its session, or frees the id a cancellation names. A request
/// without a session (`initialize`) starts one of its own, so its id cannot clash, and
/// clients connecting at once all send the same first id: it is not held.
fn hold_id(
    in_flight: &InFlightIds,
    forwarded: Forwarded,
    headers: &HeaderMap,
) -> Result<Option<HeldId>, Rejection> {
    let Some(session) = headers.get("mcp-session-id").and_then(|v| v.to_str().ok()) else {
        return Ok(None);
    };
    match forwarded {
        Forwarded::Request(id) => match in_flight.hold(session, &id) {
            Some(held) => Ok(Some(held)),
            None => Err(Rejection::already_in_flight(id)),
        },
        Forwarded::Cancellation(id) => {
            in_flight.end(session, &id);
            Ok(None)
        }
        Forwarded::Other => Ok(None),
    }
}

fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            let essence = v.split_once(';').map_or(v, |(essence, _)| essence);
            essence.trim().eq_ignore_ascii_case("application/json")
        })
}

fn rejection_response(status: StatusCode, rejection: Rejection) -> Response {
    eprintln!("{}", rejection.log_line());
    (
        status,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        rejection.to_json(),
    )
        .into_response()
}

enum BodyError {
    /// Over the limit; the first bytes, to find the request id in.
    TooLarge(Vec<u8>),
    TimedOut,
    Broken(axum::Error),
}

/// Reads a whole body of at most `max` bytes; stops reading as soon as it is over.
async fn read_body(mut body: Body, max: usize) -> Result<Vec<u8>, BodyError> {
    let mut bytes = Vec::new();
    while let Some(next) = body.frame().await {
        let data = match next {
            Ok(frame) => match frame.into_data() {
                Ok(data) => data,
                Err(_) => continue,
            },
            Err(e) if is_timeout(&e) => return Err(BodyError::TimedOut),
            Err(e) => return Err(BodyError::Broken(e)),
        };
        if bytes.len() + data.len() > max {
            let room = frame::ID_SCAN_BYTES.saturating_sub(bytes.len());
            bytes.extend_from_slice(&data[..data.len().min(room)]);
            return Err(BodyError::TooLarge(bytes));
        }
        bytes.extend_from_slice(&data);
    }
    Ok(bytes)
}

fn is_timeout(error: &axum::Error) -> bool {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(e) = source {
        if e.is::<http_conn::BodyTimedOut>() {
            return true;
        }
        source = e.source();
    }
    false
}
