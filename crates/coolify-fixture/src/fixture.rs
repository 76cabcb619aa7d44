//! The running fixture: builder, handle, HTTP layer, request log and control plane.
//!
//! Invariants:
//! - binds `127.0.0.1` only (ephemeral port unless one is given); nothing leaves loopback;
//! - every `/api/v1` request is recorded (method, raw path, query, headers without
//!   `authorization`, body, whether the bearer token was accepted) before it is answered;
//!   control-plane requests under `/__fixture__/` are not recorded and need no token;
//! - a missing or wrong bearer token gets 401 `{"message":"Unauthenticated."}`; the opt-in
//!   read-only token gets answers to `GET`s and 403 (missing `write` ability) to the rest;
//! - locks are held only while reading/updating state, never across an await;
//! - [`Fixture::shutdown`] (or drop) stops the server and closes hanging connections.

use std::sync::{Arc, Mutex, MutexGuard};

use axum::Router;
use axum::body::Bytes;
use axum::http::{HeaderMap, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::data;
use crate::routes::{NotFoundMode, Reply, RouteState, route};

/// Whether a recorded request carried the accepted token.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AuthSeen {
    /// No `Authorization` header.
    Missing,
    /// `Bearer <the current fixture token>`.
    Accepted,
    /// Some other value (answered 401).
    Rejected,
    /// `Bearer <the read-only token>` (see [`FixtureBuilder::read_only_token`]): reads are
    /// answered, anything else is 403 with Coolify's missing-ability message.
    ReadOnly,
}

/// One request as the fixture saw it. The token is never stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RecordedRequest {
    /// HTTP method, e.g. `GET`.
    pub method: String,
    /// Raw request path (percent-encoding kept), e.g. `/api/v1/applications/app-api`.
    pub path: String,
    /// Raw query string without `?`, if any.
    pub query: Option<String>,
    /// Request headers (lowercase names) except `authorization`, in arrival order.
    pub headers: Vec<(String, String)>,
    /// Request body as UTF-8 (lossy).
    pub body: String,
    /// What the bearer token check found.
    pub auth: AuthSeen,
}

impl RecordedRequest {
    /// Path plus `?query`, the shape of the reference fixture's log (`/api/v1/deploy?tag=x&force=false`).
    pub fn path_and_query(&self) -> String {
        match &self.query {
            Some(q) => format!("{}?{q}", self.path),
            None => self.path.clone(),
        }
    }

    /// A header value by (case-insensitive) name.
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Anything but GET would change state on a real instance.
    pub fn is_mutation(&self) -> bool {
        self.method != "GET"
    }
}

/// A canned answer replacing the normal route for one method + path.
#[derive(Debug, Clone, PartialEq)]
pub struct RouteOverride {
    /// HTTP method to match, e.g. `"GET"`.
    pub method: String,
    /// Raw path after `/api/v1` to match exactly (no query), e.g. `"/services"`.
    pub path: String,
    /// What to answer.
    pub reply: Reply,
}

/// How the whole instance behaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Behaviour {
    /// A working Coolify.
    #[default]
    Normal,
    /// Accepts TCP connections and never answers anything (fleet deadline tests).
    Hanging,
}

/// Builder for [`Fixture`]; see [`Fixture::builder`].
#[derive(Debug, Clone)]
pub struct FixtureBuilder {
    token: String,
    read_only_token: Option<String>,
    port: u16,
    not_found: NotFoundMode,
    behaviour: Behaviour,
    new_deployment: Option<Vec<String>>,
    overrides: Vec<RouteOverride>,
}

impl FixtureBuilder {
    /// Accept this bearer token instead of [`data::FIXTURE_TOKEN`].
    pub fn token(mut self, token: impl Into<String>) -> Self {
        self.token = token.into();
        self
    }

    /// Also accept this bearer token, with the `read` ability only (a read-only team member's
    /// token): `GET`s are answered, every other method is 403
    /// `{"message":"Missing required permissions: write"}`.
    pub fn read_only_token(mut self, token: impl Into<String>) -> Self {
        self.read_only_token = Some(token.into());
        self
    }

    /// Bind this port on 127.0.0.1 (default 0 = ephemeral).
    pub fn port(mut self, port: u16) -> Self {
        self.port = port;
        self
    }

    /// Answer unknown ids like real Coolify (404) or like the reference fixture (200).
    pub fn not_found(mut self, mode: NotFoundMode) -> Self {
        self.not_found = mode;
        self
    }

    /// Make the instance hang (accept, never answer).
    pub fn behaviour(mut self, behaviour: Behaviour) -> Self {
        self.behaviour = behaviour;
        self
    }

    /// `GET /deployments/dep-new-1` returns these statuses in order, one per read, then keeps
    /// the last one — e.g. `["queued", "in_progress", "finished"]` for a deploy that finishes.
    /// While it walks them, `POST /deployments/dep-new-1/cancel` answers as Coolify does: 400
    /// once the deployment is terminal, else 200 and `cancelled-by-user` from then on.
    pub fn new_deployment_statuses<I, S>(mut self, statuses: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.new_deployment = Some(statuses.into_iter().map(Into::into).collect());
        self
    }

    /// Replace the answer of `method path` (path after `/api/v1`, exact, no query).
    pub fn route(mut self, method: &str, path: &str, reply: Reply) -> Self {
        self.overrides.push(RouteOverride {
            method: method.to_ascii_uppercase(),
            path: path.to_owned(),
            reply,
        });
        self
    }

    /// Bind and serve in a background task.
    pub async fn start(self) -> std::io::Result<Fixture> {
        let listener = TcpListener::bind(("127.0.0.1", self.port)).await?;
        let port = listener.local_addr()?.port();
        let state = Arc::new(State {
            token: Mutex::new(self.token),
            read_only_token: self.read_only_token,
            requests: Mutex::new(Vec::new()),
            poison: Mutex::new(None),
            not_found: self.not_found,
            new_deployment: Mutex::new(self.new_deployment.map(|s| (s, 0))),
            overrides: self.overrides,
        });
        let (stop_tx, stop_rx) = oneshot::channel::<()>();
        let task = match self.behaviour {
            Behaviour::Normal => {
                let app = Router::new().fallback(handle).with_state(state.clone());
                tokio::spawn(async move {
                    let _ = axum::serve(listener, app)
                        .with_graceful_shutdown(async {
                            let _ = stop_rx.await;
                        })
                        .await;
                })
            }
            Behaviour::Hanging => tokio::spawn(hang(listener, stop_rx)),
        };
        Ok(Fixture {
            url: format!("http://127.0.0.1:{port}"),
            port,
            state,
            stop: Some(stop_tx),
            task: Some(task),
        })
    }
}

/// Accept connections and hold them open without reading or answering until stopped.
async fn hang(listener: TcpListener, mut stop: oneshot::Receiver<()>) {
    let mut held = Vec::new();
    loop {
        tokio::select! {
            _ = &mut stop => return,
            accepted = listener.accept() => match accepted {
                Ok((socket, _)) => held.push(socket),
                Err(_) => return,
            },
        }
    }
}

#[derive(Debug)]
struct State {
    token: Mutex<String>,
    read_only_token: Option<String>,
    requests: Mutex<Vec<RecordedRequest>>,
    poison: Mutex<Option<String>>,
    not_found: NotFoundMode,
    new_deployment: Mutex<Option<(Vec<String>, usize)>>,
    overrides: Vec<RouteOverride>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A running fixture Coolify API. Stops when dropped.
#[derive(Debug)]
pub struct Fixture {
    url: String,
    port: u16,
    state: Arc<State>,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<()>>,
}

impl Fixture {
    /// A builder with the defaults: token [`data::FIXTURE_TOKEN`], ephemeral port, 200
    /// "Not found." for unknown ids, normal behaviour.
    pub fn builder() -> FixtureBuilder {
        FixtureBuilder {
            token: data::FIXTURE_TOKEN.to_owned(),
            read_only_token: None,
            port: 0,
            not_found: NotFoundMode::Ok200,
            behaviour: Behaviour::Normal,
            new_deployment: None,
            overrides: Vec::new(),
        }
    }

    /// Start a default fixture.
    pub async fn start() -> std::io::Result<Self> {
        Self::builder().start().await
    }

    /// Base URL to hand a client as `COOLIFY_BASE_URL`, e.g. `http://127.0.0.1:41234`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The bound port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The token currently accepted.
    pub fn token(&self) -> String {
        lock(&self.state.token).clone()
    }

    /// Accept a different token from now on (rotation tests).
    pub fn set_token(&self, token: impl Into<String>) {
        *lock(&self.state.token) = token.into();
    }

    /// Every `/api/v1` request so far, in order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        lock(&self.state.requests).clone()
    }

    /// The recorded requests that would change state (non-GET).
    pub fn mutations(&self) -> Vec<RecordedRequest> {
        self.requests()
            .into_iter()
            .filter(RecordedRequest::is_mutation)
            .collect()
    }

    /// Forget the recorded requests.
    pub fn clear_requests(&self) {
        lock(&self.state.requests).clear();
    }

    /// Append `payload` to `app-logviewer`'s logs (`None` clears it).
    pub fn set_poison(&self, payload: Option<String>) {
        *lock(&self.state.poison) = payload;
    }

    /// Stop serving and wait for the server task.
    pub async fn shutdown(mut self) {
        self.stop_now();
        if let Some(task) = self.task.take() {
            task.abort();
            let _ = task.await;
        }
    }

    fn stop_now(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        self.stop_now();
        if let Some(task) = self.task.take() {
            // Graceful shutdown would wait for hung handlers; a test fixture just stops.
            task.abort();
        }
    }
}

async fn handle(
    axum::extract::State(state): axum::extract::State<Arc<State>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let path = uri.path().to_owned();
    let query = uri.query().map(str::to_owned);
    let body = String::from_utf8_lossy(&body).into_owned();
    if let Some(reply) = control_plane(&state, &method, &path, &body) {
        return reply;
    }
    let auth = check_auth(&state, &headers);
    lock(&state.requests).push(RecordedRequest {
        method: method.as_str().to_owned(),
        path: path.clone(),
        query: query.clone(),
        headers: headers
            .iter()
            .filter(|(name, _)| *name != header::AUTHORIZATION)
            .map(|(name, value)| {
                (
                    name.as_str().to_owned(),
                    String::from_utf8_lossy(value.as_bytes()).into_owned(),
                )
            })
            .collect(),
        body,
        auth,
    });
    if auth == AuthSeen::ReadOnly && method != Method::GET {
        return reply(Reply::Json(
            403,
            json!({ "message": "Missing required permissions: write" }),
        ));
    }
    if auth != AuthSeen::Accepted && auth != AuthSeen::ReadOnly {
        return reply(Reply::Json(401, json!({ "message": "Unauthenticated." })));
    }
    let Some(p) = path.strip_prefix("/api/v1").filter(|p| p.starts_with('/')) else {
        return reply(Reply::Json(404, json!({ "message": "Not found." })));
    };
    let overridden = state
        .overrides
        .iter()
        .find(|o| o.method == method.as_str() && o.path == p)
        .map(|o| o.reply.clone());
    let answer = match overridden {
        Some(answer) => answer,
        None => {
            let poison = lock(&state.poison).clone();
            let mut new_deployment = lock(&state.new_deployment);
            let mut route_state = RouteState {
                not_found: state.not_found,
                poison: poison.as_deref(),
                new_deployment: &mut new_deployment,
            };
            route(method.as_str(), p, query.as_deref(), &mut route_state)
        }
    };
    if answer == Reply::Hang {
        std::future::pending::<()>().await;
    }
    reply(answer)
}

fn check_auth(state: &State, headers: &HeaderMap) -> AuthSeen {
    let Some(value) = headers.get(header::AUTHORIZATION) else {
        return AuthSeen::Missing;
    };
    let expected = format!("Bearer {}", lock(&state.token));
    let read_only = state
        .read_only_token
        .as_ref()
        .map(|t| format!("Bearer {t}"));
    if value.as_bytes() == expected.as_bytes() {
        AuthSeen::Accepted
    } else if read_only.is_some_and(|r| value.as_bytes() == r.as_bytes()) {
        AuthSeen::ReadOnly
    } else {
        AuthSeen::Rejected
    }
}

fn control_plane(state: &State, method: &Method, path: &str, body: &str) -> Option<Response> {
    match (method.as_str(), path) {
        ("GET", "/__fixture__/requests") => {
            let log = serde_json::to_value(&*lock(&state.requests)).unwrap_or(Value::Null);
            Some(reply(Reply::Json(200, log)))
        }
        ("DELETE", "/__fixture__/requests") => {
            lock(&state.requests).clear();
            Some(reply(Reply::Json(200, json!({ "ok": true }))))
        }
        ("PUT", "/__fixture__/poison") => {
            *lock(&state.poison) = (!body.is_empty()).then(|| body.to_owned());
            Some(reply(Reply::Json(200, json!({ "ok": true }))))
        }
        _ => None,
    }
}

fn reply(answer: Reply) -> Response {
    let status =
        |code: u16| StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    match answer {
        Reply::Json(code, value) => (
            status(code),
            [(header::CONTENT_TYPE, "application/json")],
            value.to_string(),
        )
            .into_response(),
        Reply::Text(code, text) => {
            (status(code), [(header::CONTENT_TYPE, "text/plain")], text).into_response()
        }
        Reply::Hang => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    }
}
