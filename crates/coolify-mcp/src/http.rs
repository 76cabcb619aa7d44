//! Streamable HTTP transport (`--transport http`).
//!
//! Invariants:
//! - binds 127.0.0.1 by default; `--no-auth` is refused by config on non-loopback binds;
//! - every `/mcp` request needs `Authorization: Bearer <COOLIFY_MCP_HTTP_TOKEN>` (compared in
//!   constant time; never logged) or an OAuth access token of `oauth` (its client id and the
//!   signed-in user's Coolify token then ride in the request's extensions as [`AuthClient`]
//!   and `SignedInToken`), unless `--no-auth`;
//! - DNS-rebinding protection: `Host` must be a loopback name (or an explicitly allowed
//!   host) and a present `Origin` must be a loopback origin (or explicitly allowed),
//!   both enforced by rmcp's Streamable HTTP service;
//! - anything but `/mcp`, `/healthz` and, with OAuth, its routes is 404
//!   `{"error":"not_found"}`;
//! - with sessions, `DELETE /mcp` of a session this process does not hold is 404; of one it
//!   ended, 200;
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

use crate::call::AuthClient;
use crate::config::{HttpAuth, HttpSpec};
use crate::http_limits::{MAX_BODY_BYTES, bearer_token, constant_time_eq, limit_body, serve};
use crate::oauth::Authority;
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

/// Who may call `/mcp`.
struct Gate {
    /// `--no-auth`.
    open: bool,
    /// `COOLIFY_MCP_HTTP_TOKEN`.
    token: Option<String>,
    /// OAuth access tokens, when the authorization server runs.
    oauth: Option<Arc<Authority>>,
}

/// Bind and serve in the background.
pub async fn start(server: CoolifyServer, spec: &HttpSpec) -> std::io::Result<HttpHandle> {
    let listener = tokio::net::TcpListener::bind(spec.bind).await?;
    let addr = listener.local_addr()?;
    let shutdown = CancellationToken::new();
    let authority = match &spec.oauth {
        Some(o) => {
            let public = o
                .public_url
                .clone()
                .unwrap_or_else(|| format!("http://{addr}"));
            Some(Arc::new(
                Authority::new((**o).clone(), public).map_err(std::io::Error::other)?,
            ))
        }
        None => None,
    };
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
    // The host clients are told to reach the server at is one it answers to.
    if let Some(host) = authority
        .as_ref()
        .and_then(|a| url::Url::parse(a.public_url()).ok())
        .and_then(|u| u.host_str().map(str::to_string))
    {
        hosts.push(host);
    }
    let mut origins: Vec<String> = vec![
        "http://localhost:*".into(),
        "http://127.0.0.1:*".into(),
        "http://[::1]:*".into(),
    ];
    origins.extend(spec.allowed_origins.iter().cloned());
    let sign_in_hosts = hosts.clone();
    let config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(hosts)
        .with_allowed_origins(origins)
        .with_cancellation_token(shutdown.child_token())
        .with_max_request_body_bytes(MAX_BODY_BYTES)
        .with_legacy_session_mode(!spec.stateless);
    let sessions = Arc::new(crate::wire::Sessions::default());
    let service = StreamableHttpService::new(move || Ok(server.clone()), sessions.clone(), config);
    let gate = Arc::new(Gate {
        open: spec.auth == HttpAuth::None,
        token: match &spec.auth {
            HttpAuth::Bearer(t) => Some(t.clone()),
            HttpAuth::None | HttpAuth::OAuthOnly => None,
        },
        oauth: authority.clone(),
    });
    let mcp = Router::new()
        .nest_service("/mcp", service)
        .layer(middleware::from_fn_with_state(
            (!spec.stateless).then_some(sessions),
            unknown_session_delete,
        ))
        .layer(middleware::from_fn_with_state(
            spec.stateless,
            mark_stateless,
        ))
        // The bearer check runs first (outermost): nothing is buffered for a stranger.
        .layer(middleware::from_fn(limit_body))
        .layer(middleware::from_fn_with_state(gate, require_bearer));
    let mut app = Router::new()
        .route(
            "/healthz",
            axum::routing::get(|| async { axum::Json(serde_json::json!({"status": "ok"})) }),
        )
        .merge(mcp);
    if let Some(authority) = authority {
        app = app.merge(crate::oauth::routes(
            authority,
            crate::oauth::guard::AllowedHosts(sign_in_hosts),
        ));
    }
    let app = app.fallback(|| async {
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

/// Tag every request of a `--stateless` server, so a refusal can name stateless mode as its
/// cause.
async fn mark_stateless(
    State(stateless): State<bool>,
    mut request: Request,
    next: Next,
) -> Response {
    if stateless {
        request
            .extensions_mut()
            .insert(crate::call_ctx::StatelessRequest);
    }
    next.run(request).await
}

/// `DELETE /mcp` naming a session this process does not hold: 404, as for any other request
/// on an unknown session (rmcp would answer 202 and the client would believe it ended one); a
/// session that did end: 200.
/// A `--stateless` server holds no sessions (`None`): rmcp's own answer stands.
async fn unknown_session_delete(
    State(sessions): State<Option<Arc<crate::wire::Sessions>>>,
    request: Request,
    next: Next,
) -> Response {
    use rmcp::transport::streamable_http_server::session::SessionManager;
    let Some(sessions) = sessions.filter(|_| request.method() == axum::http::Method::DELETE) else {
        return next.run(request).await;
    };
    let id = request
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(|s| std::sync::Arc::<str>::from(s.to_owned()));
    if let Some(id) = id
        && !sessions.has_session(&id).await.unwrap_or(true)
    {
        return (
            StatusCode::NOT_FOUND,
            "Not Found: Session not found (it ended or never existed; there is nothing to close)",
        )
            .into_response();
    }
    let mut response = next.run(request).await;
    // rmcp answers 202; clients expect 200 or 204 for a session that ended (the Python SDK logs
    // "Session termination failed: 202" otherwise).
    if response.status() == StatusCode::ACCEPTED {
        *response.status_mut() = StatusCode::OK;
    }
    response
}

/// 503 when the sign-in store cannot say whether a token is valid: the client keeps its token
/// and retries (a 401 would send it to sign in again).
fn store_unavailable(e: &crate::oauth::store::StoreError) -> Response {
    tracing::error!("bearer check: {e}");
    (
        StatusCode::SERVICE_UNAVAILABLE,
        [(header::RETRY_AFTER, "5")],
        axum::Json(serde_json::json!({
            "error": "temporarily_unavailable",
            "error_description": format!("{e}; try again in a moment"),
        })),
    )
        .into_response()
}

async fn require_bearer(
    State(gate): State<Arc<Gate>>,
    mut request: Request,
    next: Next,
) -> Response {
    if gate.open {
        return next.run(request).await;
    }
    let presented = bearer_token(&request).map(str::to_string);
    if let Some(p) = &presented {
        if gate
            .token
            .as_ref()
            .is_some_and(|t| constant_time_eq(p.as_bytes(), t.as_bytes()))
        {
            return next.run(request).await;
        }
        let client = match &gate.oauth {
            Some(a) => match a.client_for(p).await {
                Ok(found) => found,
                Err(e) => return store_unavailable(&e),
            },
            None => None,
        };
        if let Some((client, user_token)) = client {
            request.extensions_mut().insert(AuthClient(client));
            request
                .extensions_mut()
                .insert(crate::call::SignedInToken(user_token));
            return next.run(request).await;
        }
    }
    let challenge = match &gate.oauth {
        Some(a) if presented.is_some() => format!(
            "Bearer error=\"invalid_token\", resource_metadata=\"{}\"",
            a.resource_metadata_url()
        ),
        Some(a) => format!("Bearer resource_metadata=\"{}\"", a.resource_metadata_url()),
        None => "Bearer".to_string(),
    };
    let hint = if gate.oauth.is_some() {
        "sign in (OAuth) or send Authorization: Bearer <COOLIFY_MCP_HTTP_TOKEN>"
    } else {
        "send Authorization: Bearer <COOLIFY_MCP_HTTP_TOKEN>"
    };
    let mut response = (
        StatusCode::UNAUTHORIZED,
        axum::Json(serde_json::json!({"error": "unauthorized", "error_description": hint})),
    )
        .into_response();
    if let Ok(v) = header::HeaderValue::from_str(&challenge) {
        response.headers_mut().insert(header::WWW_AUTHENTICATE, v);
    }
    response
}
