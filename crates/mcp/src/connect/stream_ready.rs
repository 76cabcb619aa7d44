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
//! [`StreamOpening`] is the state the HTTP client wrapper ([`super::restart::RestartAware`])
//! consults: after an `initialize` answered with a session id, the next request's POST waits
//! until the standalone GET has its answer (a stream, "not supported", or an error), at most
//! [`STREAM_OPEN_WAIT`]. Notifications and responses never wait; a stateless server (no
//! session id) never waits.

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{ClientJsonRpcMessage, ClientRequest};
use rmcp::transport::streamable_http_client::{StreamableHttpError, StreamableHttpPostResponse};
use tokio::sync::watch;

/// Longest wait of a request for the standalone stream to open.
pub const STREAM_OPEN_WAIT: Duration = Duration::from_secs(2);

type Post<E> = Result<StreamableHttpPostResponse, StreamableHttpError<E>>;

/// Whether the session's standalone stream is still opening (see the module).
#[derive(Clone)]
pub(crate) struct StreamOpening {
    /// `true` while a session exists whose standalone GET has not been answered yet.
    pending: Arc<watch::Sender<bool>>,
}

impl Default for StreamOpening {
    fn default() -> Self {
        StreamOpening {
            pending: Arc::new(watch::Sender::new(false)),
        }
    }
}

impl StreamOpening {
    /// Before a POST: a request waits (bounded) while the standalone stream is opening.
    pub(crate) async fn before_post(&self, message: &ClientJsonRpcMessage) {
        if !matches!(message, ClientJsonRpcMessage::Request(_)) || is_initialize(message) {
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
    pub(crate) fn after_post<E: std::error::Error + Send + Sync + 'static>(
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
    pub(crate) fn standalone_answered(&self) {
        self.pending.send_replace(false);
    }
}

/// Whether `message` is the `initialize` request.
pub(crate) fn is_initialize(message: &ClientJsonRpcMessage) -> bool {
    matches!(message, ClientJsonRpcMessage::Request(r)
        if matches!(r.request, ClientRequest::InitializeRequest(_)))
}
