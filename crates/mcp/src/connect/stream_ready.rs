//! The standalone event stream opens before the first request after `initialize`.
//!
//! A stateful streamable HTTP server answers `initialize` with a session id; rmcp then opens the
//! session's standalone GET event stream in the background while it already sends the next
//! request. A server that asks the client something outside a request's own response stream
//! (the TypeScript SDK does for `server.request(…)` without a related request) writes it to the
//! standalone stream — and silently drops it when that stream is not open yet. With a loaded
//! machine the next POST overtakes the GET, and an elicitation sent during the first tool call
//! is lost: the call hangs until its timeout (seen with the conformance suite's
//! `elicitation-sep1034-client-defaults`).
//!
//! [`StreamReady`] wraps the HTTP client: after an `initialize` answered with a session id, the
//! next request's POST waits until the standalone GET has its answer (a stream, "not
//! supported", or an error), at most [`STREAM_OPEN_WAIT`]. Notifications and responses never
//! wait; a stateless server (no session id) never waits.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use futures::stream::BoxStream;
use http::{HeaderName, HeaderValue};
use rmcp::model::{ClientJsonRpcMessage, ClientRequest};
use rmcp::transport::streamable_http_client::{
    StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
    StreamableHttpResponseLimits,
};
use sse_stream::{Error as SseError, Sse};
use tokio::sync::watch;

/// Longest wait of a request for the standalone stream to open.
pub const STREAM_OPEN_WAIT: Duration = Duration::from_secs(2);

type Post<E> = Result<StreamableHttpPostResponse, StreamableHttpError<E>>;
type Stream<E> = Result<BoxStream<'static, Result<Sse, SseError>>, StreamableHttpError<E>>;

/// An HTTP client whose requests wait for the session's standalone stream (see the module).
#[derive(Clone)]
pub(crate) struct StreamReady<C> {
    inner: C,
    /// `true` while a session exists whose standalone GET has not been answered yet.
    pending: Arc<watch::Sender<bool>>,
}

impl<C> StreamReady<C> {
    pub(crate) fn new(inner: C) -> Self {
        StreamReady {
            inner,
            pending: Arc::new(watch::Sender::new(false)),
        }
    }

    /// Before a POST: a request waits (bounded) while the standalone stream is opening.
    async fn before_post(&self, message: &ClientJsonRpcMessage) {
        let ClientJsonRpcMessage::Request(request) = message else {
            return;
        };
        if matches!(request.request, ClientRequest::InitializeRequest(_)) {
            return;
        }
        let mut pending = self.pending.subscribe();
        let opened = tokio::time::timeout(STREAM_OPEN_WAIT, pending.wait_for(|p| !*p)).await;
        if opened.is_err() {
            tracing::debug!(
                "the standalone event stream did not open within {STREAM_OPEN_WAIT:?}; \
                 sending the request anyway"
            );
            self.pending.send_replace(false);
        }
    }

    /// After a POST: an `initialize` answered with a session id means a GET is coming.
    fn after_post<E: std::error::Error + Send + Sync + 'static>(
        &self,
        is_initialize: bool,
        result: &Post<E>,
    ) {
        if !is_initialize {
            return;
        }
        let session = match result {
            Ok(
                StreamableHttpPostResponse::Json(_, session)
                | StreamableHttpPostResponse::Sse(_, session),
            ) => session.is_some(),
            _ => false,
        };
        self.pending.send_replace(session);
    }

    /// After a GET without `Last-Event-ID` (the standalone stream): it has its answer.
    fn after_get(&self, last_event_id: Option<&String>) {
        if last_event_id.is_none() {
            self.pending.send_replace(false);
        }
    }
}

fn is_initialize(message: &ClientJsonRpcMessage) -> bool {
    matches!(message, ClientJsonRpcMessage::Request(r)
        if matches!(r.request, ClientRequest::InitializeRequest(_)))
}

impl<C: StreamableHttpClient + Sync> StreamableHttpClient for StreamReady<C> {
    type Error = C::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Post<C::Error> {
        self.before_post(&message).await;
        let init = is_initialize(&message);
        let result = self
            .inner
            .post_message(uri, message, session_id, auth_header, custom_headers)
            .await;
        self.after_post(init, &result);
        result
    }

    async fn post_message_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Post<C::Error> {
        self.before_post(&message).await;
        let init = is_initialize(&message);
        let result = self
            .inner
            .post_message_with_max_sse_event_size(
                uri,
                message,
                session_id,
                auth_header,
                custom_headers,
                max_sse_event_size,
            )
            .await;
        self.after_post(init, &result);
        result
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> Post<C::Error> {
        self.before_post(&message).await;
        let init = is_initialize(&message);
        let result = self
            .inner
            .post_message_with_response_limits(
                uri,
                message,
                session_id,
                auth_header,
                custom_headers,
                limits,
            )
            .await;
        self.after_post(init, &result);
        result
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), StreamableHttpError<C::Error>> {
        self.inner
            .delete_session(uri, session_id, auth_header, custom_headers)
            .await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Stream<C::Error> {
        let standalone = last_event_id.is_none();
        let result = self
            .inner
            .get_stream(uri, session_id, last_event_id, auth_header, custom_headers)
            .await;
        if standalone {
            self.after_get(None);
        }
        result
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Stream<C::Error> {
        let standalone = last_event_id.is_none();
        let result = self
            .inner
            .get_stream_with_max_sse_event_size(
                uri,
                session_id,
                last_event_id,
                auth_header,
                custom_headers,
                max_sse_event_size,
            )
            .await;
        if standalone {
            self.after_get(None);
        }
        result
    }
}
