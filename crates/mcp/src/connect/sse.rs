//! The legacy HTTP+SSE transport (MCP 2024-11-05), which rmcp 3.x does not have: a GET opens
//! the event stream, its first `endpoint` event names the URL to POST messages to, and every
//! `message` event carries one JSON-RPC message from the server.
//!
//! Built on the project's line/JSON-RPC layer ([`LineTransport`]): the data of each `message`
//! event becomes one line of an in-memory pipe the line transport reads (its size limit, its
//! per-id correlation of unparseable or oversized messages), and each line the line transport
//! writes is POSTed to the endpoint. The HTTP side is rmcp's [`StreamableHttpClient`] — the same
//! reqwest client, custom headers, bearer token and OAuth sign-in ([`super::auth`]) as
//! streamable HTTP; the SSE event size limit is the same message limit.
//!
//! Invariants: the endpoint must have the stream's origin (a server cannot send our messages
//! elsewhere); a failed POST of a request answers that request with an error instead of leaving
//! it pending; when the event stream ends or fails the transport ends (a legacy session lives
//! only as long as its stream), so the runtime sees the server stop. Both tasks stop when the
//! transport is dropped.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use futures::StreamExt;
use futures::stream::BoxStream;
use http::{HeaderName, HeaderValue};
use rmcp::RoleClient;
use rmcp::model::{ClientJsonRpcMessage, ErrorData, JsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::transport::streamable_http_client::{
    StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
};
use sse_stream::{Error as SseError, Sse};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream};
use tokio::task::AbortHandle;

use super::line::LineTransport;

/// The transport's HTTP errors: rmcp's, so [`super::classify_http`] reads them as it reads
/// streamable HTTP's.
pub(crate) type SseHttpError = StreamableHttpError<reqwest::Error>;

/// Bytes buffered in each in-memory pipe before the writer waits for the reader.
const PIPE_BYTES: usize = 256 * 1024;

/// The HTTP side of one legacy SSE server.
#[derive(Clone)]
pub(crate) struct SseRequests<C> {
    pub(crate) client: C,
    pub(crate) url: Arc<str>,
    pub(crate) auth_header: Option<String>,
    pub(crate) headers: HashMap<HeaderName, HeaderValue>,
    /// Largest accepted message (SSE event data / line), in bytes.
    pub(crate) limit: usize,
}

/// The first transport error of a connection, kept so a failed handshake can say why (a 401
/// that needs a sign-in, a POST the server refused) rather than only that it failed.
#[derive(Clone, Default)]
pub(crate) struct FirstError(Arc<Mutex<Option<SseHttpError>>>);

impl FirstError {
    fn record(&self, error: SseHttpError) {
        let mut slot = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if slot.is_none() {
            *slot = Some(error);
        }
    }

    /// Takes the recorded error, if any.
    pub(crate) fn take(&self) -> Option<SseHttpError> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).take()
    }
}

/// A connected legacy SSE transport.
pub(crate) struct SseTransport {
    line: LineTransport<DuplexStream, DuplexStream>,
    tasks: Vec<AbortHandle>,
}

impl Drop for SseTransport {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
    }
}

/// Opens the event stream and waits for its `endpoint` event; then the transport is ready.
/// Errors are the HTTP errors of the GET (or a stream that ended or named a bad endpoint).
pub(crate) async fn open<C>(
    server: &str,
    requests: SseRequests<C>,
    errors: FirstError,
) -> Result<SseTransport, SseHttpError>
where
    C: StreamableHttpClient<Error = reqwest::Error> + Sync,
{
    let mut events = requests
        .client
        .get_stream_with_max_sse_event_size(
            requests.url.clone(),
            None,
            None,
            requests.auth_header.clone(),
            requests.headers.clone(),
            requests.limit,
        )
        .await?;
    let endpoint = endpoint(&requests.url, &mut events).await?;
    tracing::debug!(server, endpoint = %coyote_protocol::redact_url(&endpoint), "legacy SSE endpoint");

    let (inbound_writer, inbound_reader) = tokio::io::duplex(PIPE_BYTES);
    let (outbound_writer, outbound_reader) = tokio::io::duplex(PIPE_BYTES);
    let inbound = Arc::new(tokio::sync::Mutex::new(inbound_writer));
    let reader = tokio::spawn(read_events(server.into(), events, inbound.clone()));
    let poster = tokio::spawn(post_lines(
        server.into(),
        requests.clone(),
        Arc::from(endpoint.as_str()),
        outbound_reader,
        inbound,
        errors,
    ));
    let line = LineTransport::new(server, inbound_reader, outbound_writer, requests.limit);
    Ok(SseTransport {
        line,
        tasks: vec![reader.abort_handle(), poster.abort_handle()],
    })
}

/// Reads events until the `endpoint` one; returns the absolute POST URL.
async fn endpoint(
    url: &str,
    events: &mut BoxStream<'static, Result<Sse, SseError>>,
) -> Result<String, SseHttpError> {
    let unexpected = |what: String| StreamableHttpError::UnexpectedServerResponse(what.into());
    while let Some(event) = events.next().await {
        let event = event.map_err(StreamableHttpError::Sse)?;
        if event.event.as_deref() != Some("endpoint") {
            continue;
        }
        let data = event.data.unwrap_or_default();
        let base = reqwest::Url::parse(url).map_err(|e| unexpected(e.to_string()))?;
        let target = base.join(data.trim()).map_err(|e| {
            unexpected(format!(
                "the endpoint event named an invalid URL {data:?}: {e}"
            ))
        })?;
        if target.origin() != base.origin() {
            return Err(unexpected(format!(
                "the endpoint event named {}, which is not on the server's origin {}",
                coyote_protocol::redact_url(target.as_str()),
                base.origin().ascii_serialization()
            )));
        }
        return Ok(target.to_string());
    }
    Err(unexpected(
        "the event stream ended before the server sent its \"endpoint\" event; is this a \
         legacy SSE endpoint (usually /sse)?"
            .to_owned(),
    ))
}

/// Copies the data of every `message` event, as one line, into the line transport's pipe.
/// Ends (closing the pipe, which ends the transport) with the stream.
async fn read_events(
    server: Arc<str>,
    mut events: BoxStream<'static, Result<Sse, SseError>>,
    inbound: Arc<tokio::sync::Mutex<DuplexStream>>,
) {
    while let Some(event) = events.next().await {
        let event = match event {
            Ok(event) => event,
            Err(error) => {
                tracing::warn!(server = %server, %error, "legacy SSE stream failed");
                break;
            }
        };
        if !matches!(event.event.as_deref(), None | Some("message")) {
            continue;
        }
        let Some(data) = event.data.filter(|d| !d.trim().is_empty()) else {
            continue;
        };
        // Raw newlines in JSON can only be whitespace between tokens: one line per message.
        let mut line = data.replace(['\r', '\n'], " ").into_bytes();
        line.push(b'\n');
        if inbound.lock().await.write_all(&line).await.is_err() {
            return;
        }
    }
    tracing::debug!(server = %server, "legacy SSE stream ended");
    let _ = inbound.lock().await.shutdown().await;
}

/// POSTs every line the line transport writes. A request whose POST fails is answered with an
/// error through the inbound pipe; a JSON answer in the POST's body is delivered like an event.
async fn post_lines<C>(
    server: Arc<str>,
    requests: SseRequests<C>,
    endpoint: Arc<str>,
    outbound: DuplexStream,
    inbound: Arc<tokio::sync::Mutex<DuplexStream>>,
    errors: FirstError,
) where
    C: StreamableHttpClient<Error = reqwest::Error> + Sync,
{
    let mut reader = BufReader::new(outbound);
    let mut line = Vec::new();
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        let message: ClientJsonRpcMessage = match serde_json::from_slice(&line) {
            Ok(message) => message,
            Err(error) => {
                tracing::warn!(server = %server, %error, "could not re-read an outgoing message");
                continue;
            }
        };
        let id = match &message {
            JsonRpcMessage::Request(r) => Some(r.id.clone()),
            _ => None,
        };
        let answer = match requests
            .client
            .post_message(
                endpoint.clone(),
                message,
                None,
                requests.auth_header.clone(),
                requests.headers.clone(),
            )
            .await
        {
            Ok(StreamableHttpPostResponse::Json(message, _)) => Some(message),
            Ok(_) => None,
            Err(error) => {
                let text = error.to_string();
                tracing::warn!(server = %server, error = %text, "legacy SSE POST failed");
                errors.record(error);
                id.map(|id| {
                    let error = ErrorData::internal_error(
                        format!("the server did not accept the message: {text}"),
                        None,
                    );
                    JsonRpcMessage::error(error, Some(id))
                })
            }
        };
        if let Some(answer) = answer
            && !deliver(&inbound, &answer).await
        {
            return;
        }
    }
}

/// Writes one server message into the inbound pipe; `false` when the transport is gone.
async fn deliver(
    inbound: &tokio::sync::Mutex<DuplexStream>,
    message: &ServerJsonRpcMessage,
) -> bool {
    let Ok(mut bytes) = serde_json::to_vec(message) else {
        return true;
    };
    bytes.push(b'\n');
    inbound.lock().await.write_all(&bytes).await.is_ok()
}

impl Transport<RoleClient> for SseTransport {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: ClientJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.line.send(item)
    }

    async fn receive(&mut self) -> Option<ServerJsonRpcMessage> {
        self.line.receive().await
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        for task in &self.tasks {
            task.abort();
        }
        self.line.close().await
    }
}

#[cfg(test)]
#[path = "sse_tests.rs"]
mod tests;
