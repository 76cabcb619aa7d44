//! Streamable HTTP transport (`--transport http`).
//!
//! Invariants:
//! - binds 127.0.0.1 by default; `--no-auth` is refused by config on non-loopback binds;
//! - every `/mcp` request needs `Authorization: Bearer <COOLIFY_MCP_HTTP_TOKEN>` unless
//!   `--no-auth` (compared in constant time; the token is never logged);
//! - DNS-rebinding protection: `Host` must be a loopback name (or an explicitly allowed
//!   host) and a present `Origin` must be a loopback origin (or explicitly allowed),
//!   both enforced by rmcp's Streamable HTTP service;
//! - anything but `/mcp` and `/healthz` is 404 `{"error":"not_found"}`;
//! - the limits of `http_limits` (5 MB body, 15 s head, 30 s body) apply to every request.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::config::{HttpAuth, HttpSpec};
use crate::http_limits::{MAX_BODY_BYTES, bearer_token, constant_time_eq, limit_body, serve};
use crate::server::CoolifyServer;

/// A running HTTP server.
pub struct HttpHandle {
    /// The address actually bound (the port is real even when 0 was asked for).
    pub addr: SocketAddr,
    /// Cancel to stop serving.
    pub shutdown: CancellationToken,
    /// The serving task; ends after shutdown or on an I/O error.
    pub task: JoinHandle<std::io::Result<()>>,
}

/// Bind and serve in the background.
pub async fn start(server: CoolifyServer, spec: &HttpSpec) -> std::io::Result<HttpHandle> {
    let listener = tokio::net::TcpListener::bind(spec.bind).await?;
    let addr = listener.local_addr()?;
    let shutdown = CancellationToken::new();
    let mut hosts: Vec<String> = vec![
        "localhost".into(),
        "127.0.0.1".into(),
        "::1".into(),
        "[::1]".into(),
    ];
    if !spec.bind.ip().is_loopback() && !spec.bind.ip().is_unspecified() {
        hosts.push(spec.bind.ip().to_string());
    }
    hosts.extend(spec.allowed_hosts.iter().cloned());
    let mut origins: Vec<String> = vec![
        "http://localhost:*".into(),
        "http://127.0.0.1:*".into(),
        "http://[::1]:*".into(),
    ];
    origins.extend(spec.allowed_origins.iter().cloned());
    let config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(hosts)
        .with_allowed_origins(origins)
        .with_cancellation_token(shutdown.child_token())
        .with_max_request_body_bytes(MAX_BODY_BYTES);
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(crate::wire::Sessions::default()),
        config,
    );
    let token: Arc<Option<String>> = Arc::new(match &spec.auth {
        HttpAuth::Bearer(t) => Some(t.clone()),
        HttpAuth::None => None,
    });
    let mcp = Router::new()
        .nest_service("/mcp", service)
        // The bearer check runs first (outermost): nothing is buffered for a stranger.
        .layer(middleware::from_fn(limit_body))
        .layer(middleware::from_fn_with_state(token, require_bearer));
    let app = Router::new()
        .route(
            "/healthz",
            axum::routing::get(|| async { axum::Json(serde_json::json!({"status": "ok"})) }),
        )
        .merge(mcp)
        .fallback(|| async {
            (
                StatusCode::NOT_FOUND,
                axum::Json(serde_json::json!({"error": "not_found"})),
            )
        });
    let stop = shutdown.clone();
    let task = tokio::spawn(serve(listener, app, stop));
    Ok(HttpHandle {
        addr,
        shutdown,
        task,
    })
}

async fn require_bearer(
    State(token): State<Arc<Option<String>>>,
    request: Request,
    next: Next,
) -> Response {
    if let Some(expected) = token.as_ref() {
        let presented = bearer_token(&request);
        if !presented.is_some_and(|p| constant_time_eq(p.as_bytes(), expected.as_bytes())) {
            return (
                StatusCode::UNAUTHORIZED,
                [(header::WWW_AUTHENTICATE, "Bearer")],
                axum::Json(serde_json::json!({"error": "unauthorized", "error_description": "send Authorization: Bearer <COOLIFY_MCP_HTTP_TOKEN>"})),
            )
                .into_response();
        }
    }
    next.run(request).await
}
