//! The streamable-HTTP POST of every HTTP server. rmcp 3.11's reqwest
//! client passes a 4xx answer whose body is a JSON-RPC error on as an ordinary JSON-RPC error,
//! so the HTTP status never reaches anyone (upstream rust-sdk#724). [`StatusClient`] sends the
//! POST itself: a 4xx that is not a sign-in challenge or an expired session fails the request
//! at once as `HTTP <status>: <body>` (the body's start; [`super::describe`] quotes at most
//! 200 bytes of it). Every other answer is read by the rules of rmcp's client: 202/204 and
//! empty answers to notifications are accepted, 404 with a session id is an expired session,
//! 401/403 with a challenge go to sign-in, 429 and 5xx keep their status (and a JSON-RPC error
//! body), a 4xx to `server/discover` is the old-server answer that starts `initialize`.
//! GET and DELETE stay rmcp's.
//!
//! Invariants: every body is read within the transport's limits — a complete JSON answer
//! within `max_json_response_size`, each SSE event within `max_sse_event_size` (counted on the
//! raw bytes before parsing, [`super::sse_limit`]: the request then fails with the line
//! transport's "message too large" error), an error body within `max_error_response_size`.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use futures::TryStreamExt;
use http::header::{ACCEPT, CONTENT_TYPE, RETRY_AFTER};
use http::{HeaderName, HeaderValue, StatusCode};
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, JsonRpcMessage, ServerJsonRpcMessage};
use rmcp::model::{ErrorData, RequestId};
use rmcp::transport::common::http_header::{
    EVENT_STREAM_MIME_TYPE, HEADER_LAST_EVENT_ID, HEADER_SESSION_ID, JSON_MIME_TYPE,
};
use rmcp::transport::streamable_http_client::{
    HttpStatusError, StreamableHttpError, StreamableHttpPostResponse, StreamableHttpResponseLimits,
};

use super::challenge;
use super::layered::{HttpLayer, Layered, PostRequest};
use super::line::too_large_error;
use super::sse_limit::limited_events;

type HttpError = StreamableHttpError<reqwest::Error>;
type PostResult = Result<StreamableHttpPostResponse, HttpError>;

/// Longest `Retry-After` value kept (rmcp's bound).
const RETRY_AFTER_MAX: usize = 256;

/// Where a server's latest `DPoP-Nonce` answer header is kept (the DPoP layer above reads it).
pub(crate) type NonceCell = Arc<Mutex<Option<String>>>;

/// The answer header carrying a resource server's DPoP nonce.
const DPOP_NONCE: &str = "dpop-nonce";

/// The layer that does the POST itself (GET and DELETE stay reqwest's, as rmcp does them).
#[derive(Debug, Clone, Default)]
pub(crate) struct StatusPost {
    nonce: Option<NonceCell>,
}

/// reqwest, with the POST done here so a 4xx keeps its status.
pub(crate) type StatusClient = Layered<StatusPost, reqwest::Client>;

impl StatusClient {
    pub(crate) fn new(http: reqwest::Client) -> Self {
        Layered::over(StatusPost::default(), http)
    }

    /// Also keeps every `DPoP-Nonce` the server answers with in `nonce`.
    pub(crate) fn keeping_nonces(http: reqwest::Client, nonce: NonceCell) -> Self {
        Layered::over(StatusPost { nonce: Some(nonce) }, http)
    }
}

impl HttpLayer<reqwest::Client> for StatusPost {
    async fn post(&self, http: &reqwest::Client, request: PostRequest) -> PostResult {
        let limits = request.limits.resolved();
        post(
            http,
            request.uri,
            request.message,
            request.session_id,
            request.auth_header,
            request.custom_headers,
            limits,
            self.nonce.as_ref(),
        )
        .await
    }
}

/// Whether a `Content-Type` value names `expected` (case-insensitive, parameters ignored).
fn media_type_is(value: &HeaderValue, expected: &str) -> bool {
    value
        .to_str()
        .ok()
        .and_then(|v| v.split(';').next())
        .is_some_and(|essence| essence.trim().eq_ignore_ascii_case(expected))
}

/// A custom header the transport sets itself (`MCP-Protocol-Version` is set by rmcp's worker
/// through the custom headers and passes).
fn reserved(name: &HeaderName) -> bool {
    [ACCEPT.as_str(), HEADER_SESSION_ID, HEADER_LAST_EVENT_ID]
        .iter()
        .any(|r| name.as_str().eq_ignore_ascii_case(r))
}

/// The POST: headers, the message, and the answer read by the rules above within `limits`.
#[expect(
    clippy::too_many_arguments,
    reason = "the arguments of rmcp's POST plus where a DPoP nonce goes; PostRequest is \
              taken apart by the caller so each is moved once"
)]
async fn post(
    http: &reqwest::Client,
    uri: Arc<str>,
    message: ClientJsonRpcMessage,
    session_id: Option<Arc<str>>,
    auth_token: Option<String>,
    custom_headers: HashMap<HeaderName, HeaderValue>,
    limits: StreamableHttpResponseLimits,
    nonce: Option<&NonceCell>,
) -> PostResult {
    let mut request = http.post(uri.as_ref()).header(
        ACCEPT,
        format!("{EVENT_STREAM_MIME_TYPE}, {JSON_MIME_TYPE}"),
    );
    if let Some(token) = auth_token {
        request = request.bearer_auth(token);
    }
    for (name, value) in custom_headers {
        if reserved(&name) {
            return Err(StreamableHttpError::ReservedHeaderConflict(
                name.to_string(),
            ));
        }
        request = request.header(name, value);
    }
    let with_session = session_id.is_some();
    if let Some(id) = session_id {
        request = request.header(HEADER_SESSION_ID, id.as_ref());
    }
    let request = match super::task_tap::with_task_capability(&message) {
        Some(body) => request.header(CONTENT_TYPE, JSON_MIME_TYPE).body(body),
        None => request.json(&message),
    };
    let response = request.send().await?;
    let status = response.status();
    if let Some(cell) = nonce
        && let Some(value) = response.headers().get(DPOP_NONCE)
        && let Ok(value) = value.to_str()
    {
        *cell.lock().unwrap_or_else(|p| p.into_inner()) = Some(value.to_owned());
    }
    if let Some(challenge) = challenge::from_response(&response)? {
        return Err(challenge);
    }
    if matches!(status, StatusCode::ACCEPTED | StatusCode::NO_CONTENT) {
        return Ok(StreamableHttpPostResponse::Accepted);
    }
    if status == StatusCode::NOT_FOUND && with_session {
        return Err(StreamableHttpError::SessionExpired);
    }
    if !status.is_success() {
        return failure(&message, with_session, response, limits).await;
    }
    success(&message, response, limits).await
}

/// Whether `message` leaves nothing waiting for an answer.
fn awaits_no_response(message: &ClientJsonRpcMessage) -> bool {
    !matches!(message, JsonRpcMessage::Request(_))
}

/// A non-2xx answer (challenges, 202/204 and expired sessions are handled before).
async fn failure(
    message: &ClientJsonRpcMessage,
    with_session: bool,
    response: reqwest::Response,
    limits: StreamableHttpResponseLimits,
) -> PostResult {
    let status = response.status();
    let is_json = response
        .headers()
        .get(CONTENT_TYPE)
        .is_some_and(|ct| media_type_is(ct, JSON_MIME_TYPE));
    if status == StatusCode::TOO_MANY_REQUESTS || status.is_server_error() {
        let retry_after = response
            .headers()
            .get(RETRY_AFTER)
            .filter(|v| v.len() <= RETRY_AFTER_MAX)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let status_error = HttpStatusError::new(status.as_u16(), retry_after);
        if !is_json || status == StatusCode::TOO_MANY_REQUESTS {
            return Err(status_error.into());
        }
        // A server error with a JSON-RPC error body: that error, as rmcp's client answers.
        let session = session_of(&response);
        let body = match read_bounded(response, limits.max_json_response_size).await {
            Ok(body) => body,
            Err(_) => return Err(status_error.into()),
        };
        return match serde_json::from_slice::<ServerJsonRpcMessage>(&body) {
            Ok(error @ JsonRpcMessage::Error(_)) => {
                Ok(StreamableHttpPostResponse::Json(error, session))
            }
            _ => Err(status_error.into()),
        };
    }
    let session = session_of(&response);
    let body = read_prefix(response, limits.max_error_response_size).await;
    if let Some(error) = own_error(message, with_session, is_json, &body) {
        return Ok(StreamableHttpPostResponse::Json(error, session));
    }
    let body = String::from_utf8_lossy(&body);
    if let Some(answer) = discover_refused(message, with_session, status, &body) {
        return Ok(answer);
    }
    // A 400 to a request of an established session: the server no longer takes the session
    // (server-everything answers a session it forgot this way); said in the text, which is
    // all rmcp carries, so the handle can tell it from a 400 for one bad request.
    let in_session = if status == StatusCode::BAD_REQUEST && with_session {
        SESSION_REJECTED
    } else {
        ""
    };
    Err(StreamableHttpError::UnexpectedServerResponse(Cow::Owned(
        format!("HTTP {status}{in_session}: {}", body.trim()),
    )))
}

/// A 4xx answer to a request sent without a session whose JSON body is the JSON-RPC error of
/// that very request (its id): the server's answer to it, as a stateless 2026-07-28 server
/// gives a tool's or a method's error — not a failure of the connection.
fn own_error(
    message: &ClientJsonRpcMessage,
    with_session: bool,
    is_json: bool,
    body: &[u8],
) -> Option<ServerJsonRpcMessage> {
    let JsonRpcMessage::Request(request) = message else {
        return None;
    };
    if with_session || !is_json {
        return None;
    }
    match serde_json::from_slice::<ServerJsonRpcMessage>(body).ok()? {
        JsonRpcMessage::Error(error) if error.id == Some(request.id.clone()) => {
            Some(JsonRpcMessage::Error(error))
        }
        _ => None,
    }
}

/// Marks, after the status, a 400 answer to a request that carried a session id.
pub(crate) const SESSION_REJECTED: &str = " (to this session)";

/// A server that does not speak 2026-07-28 refuses `server/discover` (sent without a session)
/// with a 4xx other than 401/403: that is its answer to the discovery, given to the request
/// as a JSON-RPC error so the client goes on with `initialize`.
fn discover_refused(
    message: &ClientJsonRpcMessage,
    with_session: bool,
    status: StatusCode,
    body: &str,
) -> Option<StreamableHttpPostResponse> {
    if with_session
        || !status.is_client_error()
        || matches!(status, StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN)
    {
        return None;
    }
    let JsonRpcMessage::Request(request) = message else {
        return None;
    };
    if !matches!(request.request, ClientRequest::DiscoverRequest(_)) {
        return None;
    }
    let error = match serde_json::from_str::<ServerJsonRpcMessage>(body) {
        Ok(JsonRpcMessage::Error(error)) => error.error,
        _ => ErrorData::invalid_request(
            format!("server/discover refused with HTTP {status}: {body}"),
            None,
        ),
    };
    let id: RequestId = request.id.clone();
    Some(StreamableHttpPostResponse::Json(
        ServerJsonRpcMessage::error(error, Some(id)),
        None,
    ))
}

/// A 2xx answer: an event stream, one JSON-RPC message, or nothing for a notification.
async fn success(
    message: &ClientJsonRpcMessage,
    response: reqwest::Response,
    limits: StreamableHttpResponseLimits,
) -> PostResult {
    let no_answer_due = awaits_no_response(message);
    if no_answer_due && response.content_length() == Some(0) {
        return Ok(StreamableHttpPostResponse::Accepted);
    }
    let session = session_of(&response);
    let content_type = response.headers().get(CONTENT_TYPE).cloned();
    match &content_type {
        Some(ct) if media_type_is(ct, EVENT_STREAM_MIME_TYPE) => {
            let answers = match message {
                JsonRpcMessage::Request(request) => Some(request.id.clone()),
                _ => None,
            };
            let events =
                limited_events(response.bytes_stream(), limits.max_sse_event_size, answers);
            Ok(StreamableHttpPostResponse::Sse(events, session))
        }
        Some(ct) if media_type_is(ct, JSON_MIME_TYPE) => {
            let max = limits.max_json_response_size;
            let body = match read_bounded(response, max).await {
                Ok(body) => body,
                // Over the limit: the request fails at once with the line transport's
                // "message too large" error (the rest of the body is never read).
                Err(StreamableHttpError::ResponseBodyTooLarge { .. })
                    if let JsonRpcMessage::Request(request) = message =>
                {
                    tracing::warn!(max, "a JSON answer over the size limit was dropped");
                    let error = too_large_error(max as u64 + 1, true, max);
                    return Ok(StreamableHttpPostResponse::Json(
                        ServerJsonRpcMessage::error(error, Some(request.id.clone())),
                        session,
                    ));
                }
                Err(e) => return Err(e),
            };
            super::task_tap::tap_current(&body);
            match serde_json::from_slice::<ServerJsonRpcMessage>(&body) {
                Ok(parsed) => Ok(StreamableHttpPostResponse::Json(parsed, session)),
                Err(e) if no_answer_due => {
                    tracing::warn!(error = %e, "unreadable JSON answer to a notification; taken as accepted");
                    Ok(StreamableHttpPostResponse::Accepted)
                }
                Err(e) => Err(StreamableHttpError::UnexpectedServerResponse(Cow::Owned(
                    format!(
                        "the server's JSON answer is not a JSON-RPC message ({e}); it begins: {}",
                        super::restart::cut(
                            &String::from_utf8_lossy(&body),
                            super::restart::ERROR_TEXT_MAX
                        )
                    ),
                ))),
            }
        }
        _ if no_answer_due => Ok(StreamableHttpPostResponse::Accepted),
        _ => Err(StreamableHttpError::UnexpectedContentType(
            content_type.map(|ct| String::from_utf8_lossy(ct.as_bytes()).into_owned()),
        )),
    }
}

fn session_of(response: &reqwest::Response) -> Option<String> {
    response
        .headers()
        .get(HEADER_SESSION_ID)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}

/// The whole body, refused past `max` bytes (before they are kept).
async fn read_bounded(response: reqwest::Response, max: usize) -> Result<Vec<u8>, HttpError> {
    if response.content_length().is_some_and(|n| n > max as u64) {
        return Err(StreamableHttpError::ResponseBodyTooLarge { max_size: max });
    }
    let mut stream = response.bytes_stream();
    let mut body = Vec::new();
    while let Some(chunk) = stream.try_next().await? {
        if chunk.len() > max - body.len() {
            return Err(StreamableHttpError::ResponseBodyTooLarge { max_size: max });
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// At most the first `max` bytes of the body, for a diagnostic (a failed read ends it).
async fn read_prefix(response: reqwest::Response, max: usize) -> Vec<u8> {
    let mut stream = response.bytes_stream();
    let mut body = Vec::new();
    while body.len() < max {
        let Ok(Some(chunk)) = stream.try_next().await else {
            break;
        };
        let take = chunk.len().min(max - body.len());
        body.extend_from_slice(&chunk[..take]);
    }
    body
}

#[cfg(test)]
#[path = "post_tests.rs"]
mod tests;
