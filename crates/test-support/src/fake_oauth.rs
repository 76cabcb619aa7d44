//! A misbehaving OAuth-protected server for the bad-input tests (no real server misbehaves on
//! demand): one axum app on 127.0.0.1 that is both the resource (`/mcp`, always 401 with a
//! `resource_metadata` challenge) and its authorization server (metadata, registration, an
//! authorize endpoint that approves at once, a token endpoint), with one [`Misbehaviour`].
//! Every answer is what RFC 9728 / RFC 8414 / RFC 6749 clients expect, except the one chosen.
//! The secrets it hands out ([`CANARIES`]) let tests check that none of them is ever shown.

use std::net::SocketAddr;

use axum::Router;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use serde_json::json;
use tokio_util::sync::CancellationToken;

/// The registered client's secret, and the access and refresh tokens the fake issues.
pub const CANARIES: [&str; 3] = [
    "fake-client-secret-CANARY",
    "fake-access-token-CANARY",
    "fake-refresh-token-CANARY",
];

/// What goes wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Misbehaviour {
    /// The authorization server metadata is JSON without the required fields.
    MalformedMetadata,
    /// The token endpoint answers 500.
    TokenEndpoint500,
    /// The token endpoint answers 200 with an HTML page.
    TokenEndpointGarbage,
    /// Everything works, but `/mcp` answers 401 even with the token it issued.
    Loops401,
    /// The metadata names this `authorization_endpoint` (a `javascript:` or `file:` URL, plain
    /// http to another computer): the page a client must never open.
    AuthorizationEndpoint(&'static str),
}

#[derive(Clone)]
struct App {
    base: String,
    misbehaviour: Misbehaviour,
}

/// A running fake; stops on drop.
#[derive(Debug)]
pub struct FakeOAuthServer {
    base: String,
    stop: CancellationToken,
}

impl FakeOAuthServer {
    /// Binds 127.0.0.1 on a free port and serves with `misbehaviour`.
    pub async fn start(misbehaviour: Misbehaviour) -> std::io::Result<Self> {
        let listener = tokio::net::TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0))).await?;
        let base = format!("http://127.0.0.1:{}", listener.local_addr()?.port());
        let app = App {
            base: base.clone(),
            misbehaviour,
        };
        let router = Router::new()
            .route("/mcp", post(mcp).get(mcp))
            .route(
                "/.well-known/oauth-protected-resource/mcp",
                get(resource_metadata),
            )
            .route(
                "/.well-known/oauth-authorization-server",
                get(server_metadata),
            )
            .route("/register", post(register))
            .route("/authorize", get(authorize))
            .route("/token", post(token))
            .with_state(app);
        let stop = CancellationToken::new();
        let stopped = stop.clone();
        tokio::spawn(async move {
            let _ = axum::serve(listener, router)
                .with_graceful_shutdown(stopped.cancelled_owned())
                .await;
        });
        Ok(FakeOAuthServer { base, stop })
    }

    /// `http://127.0.0.1:PORT/mcp`.
    pub fn url(&self) -> String {
        format!("{}/mcp", self.base)
    }

    /// `http://127.0.0.1:PORT`.
    pub fn base(&self) -> &str {
        &self.base
    }
}

impl Drop for FakeOAuthServer {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

async fn mcp(State(app): State<App>) -> Response {
    let challenge = format!(
        "Bearer error=\"invalid_token\", resource_metadata=\"{}/.well-known/oauth-protected-resource/mcp\"",
        app.base
    );
    (
        StatusCode::UNAUTHORIZED,
        [(header::WWW_AUTHENTICATE, challenge)],
        axum::Json(json!({"error": "invalid_token"})),
    )
        .into_response()
}

async fn resource_metadata(State(app): State<App>) -> Response {
    axum::Json(json!({
        "resource": format!("{}/mcp", app.base),
        "authorization_servers": [app.base],
    }))
    .into_response()
}

async fn server_metadata(State(app): State<App>) -> Response {
    if app.misbehaviour == Misbehaviour::MalformedMetadata {
        return axum::Json(json!({"issuer": 42, "endpoints": "somewhere"})).into_response();
    }
    let base = &app.base;
    axum::Json(json!({
        "issuer": base,
        "authorization_endpoint": match app.misbehaviour {
            Misbehaviour::AuthorizationEndpoint(url) => url.to_owned(),
            _ => format!("{base}/authorize"),
        },
        "token_endpoint": format!("{base}/token"),
        "registration_endpoint": format!("{base}/register"),
        "response_types_supported": ["code"],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["client_secret_post", "none"],
    }))
    .into_response()
}

async fn register(body: axum::Json<serde_json::Value>) -> Response {
    let redirect_uris = body.get("redirect_uris").cloned().unwrap_or(json!([]));
    (
        StatusCode::CREATED,
        axum::Json(json!({
            "client_id": "fake-client",
            "client_secret": CANARIES[0],
            "redirect_uris": redirect_uris,
        })),
    )
        .into_response()
}

#[derive(serde::Deserialize)]
struct AuthorizeQuery {
    redirect_uri: String,
    state: Option<String>,
}

async fn authorize(Query(q): Query<AuthorizeQuery>) -> Response {
    let mut target = format!("{}?code=fake-code", q.redirect_uri);
    if let Some(state) = q.state {
        target.push_str("&state=");
        target.push_str(&utf8_percent_encode(&state));
    }
    Redirect::to(&target).into_response()
}

async fn token(State(app): State<App>, _headers: HeaderMap) -> Response {
    match app.misbehaviour {
        Misbehaviour::TokenEndpoint500 => {
            (StatusCode::INTERNAL_SERVER_ERROR, "internal error").into_response()
        }
        Misbehaviour::TokenEndpointGarbage => (
            StatusCode::OK,
            [(header::CONTENT_TYPE, "text/html")],
            "<html><body>maintenance</body></html>",
        )
            .into_response(),
        Misbehaviour::MalformedMetadata
        | Misbehaviour::Loops401
        | Misbehaviour::AuthorizationEndpoint(_) => axum::Json(json!({
            "access_token": CANARIES[1],
            "refresh_token": CANARIES[2],
            "token_type": "Bearer",
            "expires_in": 3600,
        }))
        .into_response(),
    }
}

/// `state` values are URL-safe base64 in practice; encode the rest anyway.
fn utf8_percent_encode(value: &str) -> String {
    value
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            other => format!("%{other:02X}"),
        })
        .collect()
}
