//! rmcp errors mapped to [`McpError`] — here and nowhere else (see the parent module's
//! invariants).

use rmcp::ServiceError;

use super::{FAILURE_REASON_WAIT, ServerHandle};
use crate::connect::line::{too_large_details, undecodable_details};
use crate::error::{McpError, TimeoutPhase, fmt_bytes};

impl ServerHandle {
    pub(crate) async fn map_error(&self, method: &str, error: ServiceError) -> McpError {
        let bad_request = matches!(
            &error,
            ServiceError::TransportSend(sent) if crate::connect::is_bad_request(sent)
        );
        let mapped = self.map_service_error(method, error).await;
        // A 400 for the request itself (a session the server no longer knows, as
        // server-everything answers after it restarted): the connection is no use any more;
        // the state says so, and a pool (a batch, the session daemon) starts it afresh.
        if bad_request && self.inner.state.fail_if_ready(mapped.to_string()) {
            tracing::warn!(server = %self.inner.name, "MCP server rejected a request: {mapped}");
        }
        mapped
    }

    async fn map_service_error(&self, method: &str, error: ServiceError) -> McpError {
        let server = self.inner.name.clone();
        match error {
            ServiceError::Timeout { timeout } => McpError::Timeout {
                server,
                phase: TimeoutPhase::Call {
                    method: method.to_owned(),
                },
                after: timeout,
            },
            ServiceError::McpError(data) => match too_large_details(&data) {
                Some((size, size_is_lower_bound, limit)) => McpError::MessageTooLarge {
                    server,
                    size,
                    size_is_lower_bound,
                    limit,
                },
                None if undecodable_details(&data).is_some() => McpError::Protocol {
                    server,
                    method: method.to_owned(),
                    message: undecodable_details(&data).unwrap_or_default().to_owned(),
                },
                None => McpError::Rpc {
                    server,
                    method: method.to_owned(),
                    code: data.code.0,
                    message: data.message.into_owned(),
                    data: data.data.map(Box::new),
                },
            },
            ServiceError::TransportSend(ref sent)
                if let Some(mapped) =
                    crate::connect::classify_http(&server, sent, self.inner.oauth) =>
            {
                if matches!(mapped, McpError::NeedsAuth { .. })
                    && self.inner.state.needs_auth_if_ready()
                {
                    tracing::warn!(server = %server, "MCP server needs sign-in again");
                }
                mapped
            }
            ServiceError::TransportClosed
            | ServiceError::TransportSend(_)
            | ServiceError::Cancelled { .. } => {
                if *self.inner.ended.borrow() {
                    // The server went away: prefer the runtime's reason (exit status, stderr
                    // tail), which the crash watcher records right after the transport ends.
                    if let Some(state) = self.inner.state.wait_not_ready(FAILURE_REASON_WAIT).await
                    {
                        return McpError::ServerNotReady { server, state };
                    }
                }
                let unreachable = self
                    .inner
                    .generations
                    .unreachable
                    .load(std::sync::atomic::Ordering::Acquire);
                let session_lost = self
                    .inner
                    .generations
                    .session_lost
                    .load(std::sync::atomic::Ordering::Acquire);
                let message = match (&error, self.inner.info.transport.as_str()) {
                    // The reconnects of the response stream were refused: the server is gone.
                    (ServiceError::TransportClosed, "http") if unreachable => {
                        "the connection closed before the response arrived, and the server \
                         refuses new connections: it stopped or crashed"
                            .to_owned()
                    }
                    // The stream broke and the server no longer knew the session.
                    (ServiceError::TransportClosed, "http") if session_lost => {
                        "the server restarted while the request was running (its session \
                         ended); the request may have run before that, so it was not retried"
                            .to_owned()
                    }
                    // rmcp's HTTP client drops a response stream it cannot read (e.g. an SSE
                    // event over the size limit) and fails the request this way.
                    (ServiceError::TransportClosed, "http") => format!(
                        "the response stream closed before the response arrived (a response \
                         over {} (MAX_MESSAGE_BYTES) is dropped this way; see the log)",
                        fmt_bytes(self.inner.max_message_bytes as u64)
                    ),
                    (ServiceError::TransportSend(sent), _) => {
                        crate::connect::describe_transport_error(sent)
                    }
                    _ => error.to_string(),
                };
                McpError::Transport { server, message }
            }
            ServiceError::UnexpectedResponse => McpError::Protocol {
                server,
                method: method.to_owned(),
                message: "unexpected response type".to_owned(),
            },
            other => McpError::Transport {
                server,
                message: other.to_string(),
            },
        }
    }
}
