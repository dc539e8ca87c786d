//! Streamable HTTP transport: loopback only, `Host` and `Origin` checked, optional bearer
//! token.

use std::{net::SocketAddr, sync::Arc};

use axum::{
    extract::{Request, State},
    http::{StatusCode, header},
    middleware::{self, Next},
    response::{IntoResponse, Response},
};
use rmcp::transport::{
    StreamableHttpServerConfig, StreamableHttpService,
    streamable_http_server::session::local::LocalSessionManager,
};

use super::{Limits, SextantServer};
use crate::workspace::live::LiveWorkspace;

/// Serves MCP at `http://ADDR/mcp` until interrupted. `token`, when set, must come as
/// `Authorization: Bearer <token>` on every request.
pub async fn serve_http(
    live: Arc<LiveWorkspace>,
    limits: Limits,
    addr: SocketAddr,
    token: Option<String>,
) -> Result<(), String> {
    if !addr.ip().is_loopback() {
        return Err(format!(
            "refusing to listen on {addr}: sextant serves HTTP on loopback addresses only (127.0.0.1, ::1)"
        ));
    }
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
    let port = listener.local_addr().map_err(|e| e.to_string())?.port();
    let config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(["localhost", "127.0.0.1", "::1", "[::1]"].map(|h| h.to_string()))
        .with_allowed_origins([
            format!("http://localhost:{port}"),
            format!("http://127.0.0.1:{port}"),
            format!("http://[::1]:{port}"),
        ])
        .with_max_request_body_bytes(limits.max_request_bytes);
    // One server value shared by every session: the in-flight limit is global.
    let server = SextantServer::new(live, limits);
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let app =
        axum::Router::new()
            .nest_service("/mcp", service)
            .layer(middleware::from_fn_with_state(
                Arc::new(token),
                require_token,
            ));
    eprintln!("sextant: serving MCP on http://{}:{port}/mcp", addr.ip());
    axum::serve(listener, app)
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await
        .map_err(|e| e.to_string())
}

async fn require_token(
    State(token): State<Arc<Option<String>>>,
    request: Request,
    next: Next,
) -> Response {
    if let Some(expected) = token.as_deref() {
        let given = request
            .headers()
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "));
        if !given.is_some_and(|g| constant_time_eq(g.as_bytes(), expected.as_bytes())) {
            return (
                StatusCode::UNAUTHORIZED,
                [(header::WWW_AUTHENTICATE, "Bearer")],
                "missing or wrong bearer token\n",
            )
                .into_response();
        }
    }
    next.run(request).await
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}
