//! A well-behaved OAuth-protected MCP server for the sign-in tests that must watch an
//! authorization server work: one axum app on 127.0.0.1 that is the resource (`/mcp`: the fake
//! MCP server of a [`Scenario`], behind a token check) and its authorization server — client
//! credentials (a pre-registered client, [`CLIENT_ID`] / [`CLIENT_SECRET`]) issuing a refresh
//! token, refresh with rotation (a spent refresh token is refused with `invalid_grant`), RFC
//! 7009 revocation, DPoP-bound tokens (RFC 9449) when [`TestAsOptions::dpop`] is set, and the
//! JWT bearer grant (RFC 7523) for a workload token ([`WORKLOAD_JWT`], public client) or an
//! identity assertion its identity provider (issuer `<base>/idp`, RFC 8693 token exchange of
//! [`ID_TOKEN`]) issued.
//!
//! `/mcp` takes only a live token, presented as it was issued: a bound token with the `DPoP`
//! scheme and a proof for this request (`htm`, `ath`, the key it is bound to), any other with
//! `Bearer`. Everything it sees is counted ([`TestAuthServer::refresh_requests`],
//! [`TestAuthServer::revocations`], [`TestAuthServer::presentations`]). Proof signatures are
//! not verified here (the conformance suite and coyote-mcp's unit tests do that).

use std::collections::{HashMap, HashSet};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use tokio_util::sync::CancellationToken;

use crate::events::EventSink;
use crate::scenario::Scenario;
use crate::server::{CrashMode, FakeServer, SessionGuard, Shared};

/// The pre-registered client.
pub const CLIENT_ID: &str = "test-as-client";
/// Its secret (a canary: it must never be shown).
pub const CLIENT_SECRET: &str = "test-as-secret-CANARY";

/// The user's ID token the identity provider accepts (a canary).
pub const ID_TOKEN: &str = "test-as-id-token-CANARY";
/// The identity assertion grant it issues for it (a canary).
pub const ID_JAG: &str = "test-as-id-jag-CANARY";
/// The workload token the authorization server accepts as a JWT bearer grant (a canary).
pub const WORKLOAD_JWT: &str = "test-as-workload-jwt-CANARY";
const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";

/// How the server behaves.
#[derive(Debug, Clone)]
pub struct TestAsOptions {
    /// Advertise ES256 DPoP and bind tokens to the key of a token request's proof.
    pub dpop: bool,
    /// With `dpop`: advertise it, but issue bearer tokens anyway.
    pub dpop_unbound: bool,
    /// `expires_in` of the first token issued (0: due for a refresh at once); later ones 3600.
    pub first_expires_in: u64,
    /// How long a refresh takes (so that two clients' refreshes would overlap).
    pub refresh_delay: Duration,
}

impl Default for TestAsOptions {
    fn default() -> Self {
        TestAsOptions {
            dpop: false,
            dpop_unbound: false,
            first_expires_in: 3600,
            refresh_delay: Duration::ZERO,
        }
    }
}

#[derive(Default)]
struct Books {
    issued: usize,
    live_access: HashSet<String>,
    live_refresh: HashSet<String>,
    /// Access token → the JWK thumbprint it is bound to.
    bound: HashMap<String, String>,
    refresh_requests: usize,
    revocations: usize,
    presentations: Vec<String>,
}

#[derive(Clone)]
struct App {
    base: String,
    options: TestAsOptions,
    books: Arc<Mutex<Books>>,
}

impl App {
    fn books(&self) -> std::sync::MutexGuard<'_, Books> {
        self.books.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// A running server; stops on drop.
pub struct TestAuthServer {
    app: App,
    stop: CancellationToken,
}

impl TestAuthServer {
    /// Binds 127.0.0.1 on a free port and serves `scenario` at `/mcp`.
    pub async fn start(scenario: Scenario, options: TestAsOptions) -> std::io::Result<Self> {
        let listener = tokio::net::TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0))).await?;
        let base = format!("http://127.0.0.1:{}", listener.local_addr()?.port());
        let app = App {
            base,
            options,
            books: Arc::default(),
        };
        let stop = CancellationToken::new();
        let events = Arc::new(EventSink::new(scenario.event_log.as_deref())?);
        let shared = Shared::new(scenario, events.clone(), CrashMode::CloseTransport);
        let service = StreamableHttpService::new(
            move || {
                Ok(FakeServer {
                    shared: shared.clone(),
                    raw: None,
                    _session: Some(SessionGuard(events.clone())),
                })
            },
            Arc::new(LocalSessionManager::default()),
            StreamableHttpServerConfig::default().with_cancellation_token(stop.child_token()),
        );
        let guarded = Router::new()
            .nest_service("/mcp", service)
            .layer(middleware::from_fn_with_state(app.clone(), guard));
        let router = Router::new()
            .route(
                "/.well-known/oauth-protected-resource/mcp",
                get(resource_metadata),
            )
            .route(
                "/.well-known/oauth-authorization-server",
                get(server_metadata),
            )
            .route("/token", post(token))
            .route("/revoke", post(revoke))
            .route("/idp/.well-known/openid-configuration", get(idp_metadata))
            .route("/idp/token", post(idp_token))
            .with_state(app.clone())
            .merge(guarded);
        let stopped = stop.clone();
        tokio::spawn(async move {
            let _ = axum::serve(listener, router)
                .with_graceful_shutdown(stopped.cancelled_owned())
                .await;
        });
        Ok(TestAuthServer { app, stop })
    }

    /// `http://127.0.0.1:PORT/mcp`.
    pub fn url(&self) -> String {
        format!("{}/mcp", self.app.base)
    }

    /// The identity provider's issuer, `http://127.0.0.1:PORT/idp`.
    pub fn idp_issuer(&self) -> String {
        format!("{}/idp", self.app.base)
    }

    /// Token requests with `grant_type=refresh_token` so far.
    pub fn refresh_requests(&self) -> usize {
        self.app.books().refresh_requests
    }

    /// Revocation requests so far.
    pub fn revocations(&self) -> usize {
        self.app.books().revocations
    }

    /// How each request to `/mcp` presented its token: `DPoP ok`, `Bearer ok`, `none`, or
    /// what was wrong (`Bearer for a DPoP-bound token`, …).
    pub fn presentations(&self) -> Vec<String> {
        self.app.books().presentations.clone()
    }

    /// Every access and refresh token issued so far (canaries for the output checks).
    pub fn issued_tokens(&self) -> Vec<String> {
        (1..=self.app.books().issued)
            .flat_map(|n| [access_token(n), refresh_token(n)])
            .collect()
    }

    /// Whether `token` (an issued access token) still opens `/mcp`.
    pub fn is_live(&self, token: &str) -> bool {
        self.app.books().live_access.contains(token)
    }
}

impl Drop for TestAuthServer {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

fn access_token(n: usize) -> String {
    format!("test-as-access-{n}-CANARY")
}

fn refresh_token(n: usize) -> String {
    format!("test-as-refresh-{n}-CANARY")
}

async fn resource_metadata(State(app): State<App>) -> Response {
    axum::Json(json!({
        "resource": format!("{}/mcp", app.base),
        "authorization_servers": [app.base],
    }))
    .into_response()
}

async fn server_metadata(State(app): State<App>) -> Response {
    let mut metadata = json!({
        "issuer": app.base,
        "authorization_endpoint": format!("{}/authorize", app.base),
        "token_endpoint": format!("{}/token", app.base),
        "revocation_endpoint": format!("{}/revoke", app.base),
        "grant_types_supported": ["client_credentials", "refresh_token", JWT_BEARER],
        "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
        "response_types_supported": ["code"],
    });
    if app.options.dpop {
        metadata["dpop_signing_alg_values_supported"] = json!(["ES256"]);
    }
    axum::Json(metadata).into_response()
}

fn form(body: &str) -> HashMap<String, String> {
    url::form_urlencoded::parse(body.as_bytes())
        .into_owned()
        .collect()
}

fn oauth_error(status: StatusCode, error: &str) -> Response {
    (status, axum::Json(json!({"error": error}))).into_response()
}

/// The client is the pre-registered one (HTTP Basic or the form).
fn client_ok(headers: &HeaderMap, form: &HashMap<String, String>) -> bool {
    let basic = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Basic "))
        .and_then(|b| STANDARD.decode(b).ok())
        .and_then(|b| String::from_utf8(b).ok());
    let expected = format!("{CLIENT_ID}:{CLIENT_SECRET}");
    basic.as_deref() == Some(expected.as_str())
        || (form.get("client_id").map(String::as_str) == Some(CLIENT_ID)
            && form.get("client_secret").map(String::as_str) == Some(CLIENT_SECRET))
}

/// The parts of a JWT (header, claims), undecoded signature ignored.
fn jwt_parts(jwt: &str) -> Option<(Value, Value)> {
    let mut parts = jwt.split('.');
    let mut next = || -> Option<Value> {
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(parts.next()?).ok()?).ok()
    };
    Some((next()?, next()?))
}

/// RFC 7638 thumbprint of an EC JWK.
fn thumbprint(jwk: &Value) -> Option<String> {
    let canonical = format!(
        r#"{{"crv":"{}","kty":"{}","x":"{}","y":"{}"}}"#,
        jwk["crv"].as_str()?,
        jwk["kty"].as_str()?,
        jwk["x"].as_str()?,
        jwk["y"].as_str()?
    );
    Some(URL_SAFE_NO_PAD.encode(Sha256::digest(canonical.as_bytes())))
}

async fn token(State(app): State<App>, headers: HeaderMap, body: String) -> Response {
    let form = form(&body);
    let assertion = form.get("assertion").map(String::as_str);
    let workload = form.get("grant_type").map(String::as_str) == Some(JWT_BEARER)
        && assertion == Some(WORKLOAD_JWT)
        && form.get("client_id").map(String::as_str) == Some(CLIENT_ID);
    if !workload && !client_ok(&headers, &form) {
        return oauth_error(StatusCode::UNAUTHORIZED, "invalid_client");
    }
    let first;
    match form.get("grant_type").map(String::as_str) {
        Some("client_credentials") => first = app.books().issued == 0,
        Some(JWT_BEARER) if workload || assertion == Some(ID_JAG) => {
            first = app.books().issued == 0;
        }
        Some(JWT_BEARER) => return oauth_error(StatusCode::BAD_REQUEST, "invalid_grant"),
        Some("refresh_token") => {
            app.books().refresh_requests += 1;
            tokio::time::sleep(app.options.refresh_delay).await;
            let presented = form.get("refresh_token").cloned().unwrap_or_default();
            if !app.books().live_refresh.remove(&presented) {
                return oauth_error(StatusCode::BAD_REQUEST, "invalid_grant");
            }
            first = false;
        }
        _ => return oauth_error(StatusCode::BAD_REQUEST, "unsupported_grant_type"),
    }
    let jkt = match headers.get("dpop").and_then(|v| v.to_str().ok()) {
        Some(proof) if app.options.dpop && !app.options.dpop_unbound => match jwt_parts(proof) {
            Some((header, _)) if header["typ"] == "dpop+jwt" => thumbprint(&header["jwk"]),
            _ => return oauth_error(StatusCode::BAD_REQUEST, "invalid_dpop_proof"),
        },
        _ => None,
    };
    let mut books = app.books();
    books.issued += 1;
    let n = books.issued;
    books.live_access.insert(access_token(n));
    books.live_refresh.insert(refresh_token(n));
    let token_type = match jkt {
        Some(jkt) => {
            books.bound.insert(access_token(n), jkt);
            "DPoP"
        }
        None => "Bearer",
    };
    let expires_in = if first {
        app.options.first_expires_in
    } else {
        3600
    };
    axum::Json(json!({
        "access_token": access_token(n),
        "refresh_token": refresh_token(n),
        "token_type": token_type,
        "expires_in": expires_in,
    }))
    .into_response()
}

async fn idp_metadata(State(app): State<App>) -> Response {
    axum::Json(json!({
        "issuer": format!("{}/idp", app.base),
        "token_endpoint": format!("{}/idp/token", app.base),
        "grant_types_supported": ["urn:ietf:params:oauth:grant-type:token-exchange"],
    }))
    .into_response()
}

/// RFC 8693: the ID token for an identity assertion grant naming this authorization server
/// and its MCP server.
async fn idp_token(State(app): State<App>, body: String) -> Response {
    let form = form(&body);
    let get = |key: &str| form.get(key).map(String::as_str);
    let resource = format!("{}/mcp", app.base);
    let right = get("grant_type") == Some("urn:ietf:params:oauth:grant-type:token-exchange")
        && get("subject_token") == Some(ID_TOKEN)
        && get("subject_token_type") == Some("urn:ietf:params:oauth:token-type:id_token")
        && get("requested_token_type") == Some("urn:ietf:params:oauth:token-type:id-jag")
        && get("audience") == Some(app.base.as_str())
        && get("resource") == Some(resource.as_str());
    if !right {
        return oauth_error(StatusCode::BAD_REQUEST, "invalid_grant");
    }
    axum::Json(json!({
        "access_token": ID_JAG,
        "issued_token_type": "urn:ietf:params:oauth:token-type:id-jag",
        "token_type": "N_A",
    }))
    .into_response()
}

async fn revoke(State(app): State<App>, headers: HeaderMap, body: String) -> Response {
    let form = form(&body);
    let public = form.get("client_id").map(String::as_str) == Some(CLIENT_ID);
    if !client_ok(&headers, &form) && !public {
        return oauth_error(StatusCode::UNAUTHORIZED, "invalid_client");
    }
    let mut books = app.books();
    books.revocations += 1;
    let token = form.get("token").cloned().unwrap_or_default();
    books.live_access.remove(&token);
    books.live_refresh.remove(&token);
    StatusCode::OK.into_response()
}

/// Why a presentation is refused, or `None` when it is right.
fn check(
    books: &Books,
    scheme: &str,
    token: &str,
    method: &str,
    proof: Option<&str>,
) -> Option<String> {
    if !books.live_access.contains(token) {
        return Some(format!("{scheme} with a token that is not live"));
    }
    let Some(jkt) = books.bound.get(token) else {
        return (!scheme.eq_ignore_ascii_case("bearer"))
            .then(|| format!("{scheme} for a bearer token"));
    };
    if !scheme.eq_ignore_ascii_case("dpop") {
        return Some(format!("{scheme} for a DPoP-bound token"));
    }
    let Some((header, claims)) = proof.and_then(jwt_parts) else {
        return Some("DPoP without a proof".to_owned());
    };
    let ath = URL_SAFE_NO_PAD.encode(Sha256::digest(token.as_bytes()));
    if claims["htm"] != method || claims["ath"] != ath.as_str() {
        return Some("DPoP with a proof for another request".to_owned());
    }
    (thumbprint(&header["jwk"]).as_deref() != Some(jkt.as_str()))
        .then(|| "DPoP with a proof by another key".to_owned())
}

async fn guard(State(app): State<App>, request: Request, next: Next) -> Response {
    let challenge = format!(
        "Bearer resource_metadata=\"{}/.well-known/oauth-protected-resource/mcp\"",
        app.base
    );
    let presented = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split_once(' '))
        .map(|(scheme, token)| (scheme.to_owned(), token.trim().to_owned()));
    let proof = request
        .headers()
        .get("dpop")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let verdict = match &presented {
        None => Some("none".to_owned()),
        Some((scheme, token)) => check(
            &app.books(),
            scheme,
            token,
            request.method().as_str(),
            proof.as_deref(),
        ),
    };
    let seen = match (&verdict, &presented) {
        (None, Some((scheme, _))) => format!("{scheme} ok"),
        (Some(why), _) => why.clone(),
        (None, None) => "none".to_owned(),
    };
    app.books().presentations.push(seen);
    if verdict.is_some() {
        return (
            StatusCode::UNAUTHORIZED,
            [(header::WWW_AUTHENTICATE, challenge)],
            "unauthorized",
        )
            .into_response();
    }
    next.run(request).await
}
