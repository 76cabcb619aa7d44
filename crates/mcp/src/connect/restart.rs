//! A streamable HTTP server restarted mid-session. The server answers the
//! old session id with 404; rmcp then re-initializes a new session and resends *every*
//! request that met the 404. Resending is right for requests that only read (`*/list`,
//! `resources/read`, `prompts/get`, `completion/complete`, `ping`) but not for a `tools/call`
//! (or any other request that may change something): the server may have run it before it
//! restarted. This client layer ([`RestartGuard`], a [`Layered`] hook around POST and GET) lets
//! rmcp recover the session, and refuses to resend such a
//! request: it fails with [`ServerRestarted`], which the handle reports as "the server
//! restarted; the call was not retried".
//!
//! A server that stops answering: a connection it refuses is recorded
//! (`Generations::unreachable`), so a response stream that closes is reported as the server
//! having gone, not as a dropped oversized response. A server that restarted while a request
//! ran: the resumption of the broken response stream meets "no such session"
//! (`Generations::session_lost`), and the request is reported as not retried.
//!
//! A 4xx answer (server-everything answers a stale session with 400) already fails the
//! request with its status (`post.rs`); an answer that carries a JSON-RPC error without `id`
//! (a 5xx, or a 2xx from an off-spec server) gets that error tied to the request, which then
//! fails at once.
//!
//! Invariants: only a request that met an expired session (404 with a session id) is ever
//! refused, and only its one resend; every other POST, GET and DELETE passes through.

use std::borrow::Cow;
use std::collections::HashSet;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

use rmcp::model::{ClientJsonRpcMessage, JsonRpcMessage, RequestId};
use rmcp::transport::streamable_http_client::{
    StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
};

use super::layered::{GetRequest, GetResult, HttpLayer, Layered, PostRequest, PostResult};
use super::stream_ready::{StreamOpening, is_initialize};
use crate::client_handler::Generations;

/// The text of the error a refused resend fails with (recognised by [`is_server_restarted`]).
const SERVER_RESTARTED: &str = "the server restarted (its session ended); the request may \
                                have run before that, so it was not sent again";

/// Methods that only read: resent after a new session is set up.
fn resend_is_safe(method: &str) -> bool {
    method.ends_with("/list")
        || matches!(
            method,
            "resources/read" | "prompts/get" | "completion/complete" | "ping" | "initialize"
        )
}

/// The id and method of a request message.
fn request_of(message: &ClientJsonRpcMessage) -> Option<(RequestId, String)> {
    let JsonRpcMessage::Request(request) = message else {
        return None;
    };
    let value = serde_json::to_value(&request.request).ok()?;
    let method = value.get("method")?.as_str()?.to_owned();
    Some((request.id.clone(), method))
}

/// Whether `error` is the refusal of a resend after a restart.
pub(crate) fn is_server_restarted<E: std::error::Error + Send + Sync + 'static>(
    error: &StreamableHttpError<E>,
) -> bool {
    matches!(error, StreamableHttpError::UnexpectedServerResponse(text) if text == SERVER_RESTARTED)
}

/// Whether a GET that carried a session id was answered "no such session" (404, the spec's
/// answer; 400, server-everything's).
fn session_unknown<T, E: std::error::Error + Send + Sync + 'static>(
    result: &Result<T, StreamableHttpError<E>>,
) -> bool {
    let Err(StreamableHttpError::Client(e)) = result else {
        return false;
    };
    let error: &(dyn std::error::Error + 'static) = e;
    error
        .downcast_ref::<reqwest::Error>()
        .and_then(reqwest::Error::status)
        .is_some_and(|s| s == http::StatusCode::NOT_FOUND || s == http::StatusCode::BAD_REQUEST)
}

/// An answer whose JSON-RPC error names no request (a 5xx with `{"error": {…}}` and no `id`;
/// 4xx answers fail in `post.rs` with their status) would reach nobody, and the request would
/// hang until its timeout: tie it to the request it answers, so that request fails at once with the server's
/// words (at most [`ERROR_TEXT_MAX`] bytes of them).
fn tie_error_to_request<E: std::error::Error + Send + Sync + 'static>(
    message: &ClientJsonRpcMessage,
    result: Result<StreamableHttpPostResponse, StreamableHttpError<E>>,
) -> Result<StreamableHttpPostResponse, StreamableHttpError<E>> {
    let JsonRpcMessage::Request(request) = message else {
        return result;
    };
    match result {
        Ok(StreamableHttpPostResponse::Json(JsonRpcMessage::Error(mut error), session))
            if error.id.as_ref() != Some(&request.id) =>
        {
            let text = cut(&error.error.message, ERROR_TEXT_MAX);
            tracing::warn!(id = %request.id, %text, "HTTP error answer without the request's id");
            error.id = Some(request.id.clone());
            error.error.message = Cow::Owned(format!("the server rejected the request: {text}"));
            Ok(StreamableHttpPostResponse::Json(
                JsonRpcMessage::Error(error),
                session,
            ))
        }
        other => other,
    }
}

/// Longest part of a server's error text quoted back.
pub(crate) const ERROR_TEXT_MAX: usize = 200;

/// The first `max` bytes of `text` (on a character boundary), with `…` when cut.
pub(crate) fn cut(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

/// The layer that refuses to resend a request that may change something after its session
/// expired, and holds a request while the session's standalone stream opens
/// ([`StreamOpening`]).
#[derive(Clone)]
pub(crate) struct RestartGuard {
    /// Whether the standalone GET stream of a new session is still opening.
    stream: StreamOpening,
    /// Requests that met an expired session and must not be sent again.
    expired: Arc<Mutex<HashSet<RequestId>>>,
    /// Where "the server refused a connection" is recorded for the handle.
    generations: Arc<Generations>,
}

/// `C` with the [`RestartGuard`] around it.
pub(crate) type RestartAware<C> = Layered<RestartGuard, C>;

impl<C> RestartAware<C> {
    pub(crate) fn new(inner: C, generations: Arc<Generations>) -> Self {
        let guard = RestartGuard {
            stream: StreamOpening::default(),
            expired: Arc::new(Mutex::new(HashSet::new())),
            generations,
        };
        Layered::over(guard, inner)
    }
}

impl RestartGuard {
    /// Records whether the server accepted the connection of the last exchange.
    fn note<T, E: std::error::Error + Send + Sync + 'static>(
        &self,
        result: &Result<T, StreamableHttpError<E>>,
    ) {
        let refused = match result {
            Ok(_) => false,
            Err(StreamableHttpError::Client(e)) => {
                let error: &(dyn std::error::Error + 'static) = e;
                error
                    .downcast_ref::<reqwest::Error>()
                    .is_some_and(reqwest::Error::is_connect)
            }
            Err(_) => return,
        };
        self.generations
            .unreachable
            .store(refused, Ordering::Release);
    }

    /// After a GET: the connection noted; the standalone stream (no `Last-Event-ID`) answered;
    /// for the resumption of a broken response stream, whether the server still knew the
    /// session (a 404 or 400 to the session id means it restarted and the request is lost).
    fn got_stream<T, E: std::error::Error + Send + Sync + 'static>(
        &self,
        standalone: bool,
        with_session: bool,
        result: &Result<T, StreamableHttpError<E>>,
    ) {
        self.note(result);
        if standalone {
            self.stream.standalone_answered();
        } else {
            let lost = with_session && session_unknown(result);
            self.generations.session_lost.store(lost, Ordering::Release);
        }
    }

    fn expired(&self) -> std::sync::MutexGuard<'_, HashSet<RequestId>> {
        self.expired.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl<C: StreamableHttpClient + Sync> HttpLayer<C> for RestartGuard {
    async fn post(&self, inner: &C, request: PostRequest) -> PostResult<C::Error> {
        let message = request.message.clone();
        self.stream.before_post(&message).await;
        if let JsonRpcMessage::Request(request) = &message
            && self.expired().remove(&request.id)
        {
            tracing::warn!(
                id = %request.id,
                "MCP server restarted mid-session; not resending a request that may have run"
            );
            return Err(StreamableHttpError::UnexpectedServerResponse(
                Cow::Borrowed(SERVER_RESTARTED),
            ));
        }
        let generations = self.generations.clone();
        let sent = super::task_tap::TAP.scope(generations.clone(), request.send(inner));
        let result = tie_error_to_request(&message, sent.await);
        let result = result.map(|answer| super::task_tap::tap_post_answer(answer, generations));
        self.note(&result);
        self.stream.after_post(is_initialize(&message), &result);
        if matches!(result, Err(StreamableHttpError::SessionExpired))
            && let Some((id, method)) = request_of(&message)
        {
            tracing::info!(%method, "MCP server session expired (HTTP 404); starting a new one");
            if !resend_is_safe(&method) {
                self.expired().insert(id);
            }
        }
        result
    }

    async fn get(&self, inner: &C, request: GetRequest) -> GetResult<C::Error> {
        let standalone = request.last_event_id.is_none();
        let with_session = request.session_id.is_some();
        let result = request.send(inner).await;
        self.got_stream(standalone, with_session, &result);
        let generations = self.generations.clone();
        result.map(|events| super::task_tap::tap_events(events, generations))
    }
}
