//! The client features of one server's conversation, as an `impl ServerHandle` block: the
//! level it logs at (`logging/setLevel`) and the roots it was offered
//! (`notifications/roots/list_changed`).
//!
//! Invariants: a notification is bounded like a cancellation (`CANCEL_SEND_TIMEOUT`) and a
//! failure is logged, never an error of the caller.

use rmcp::model::ClientRequest;
use serde_json::Value;

use super::{CANCEL_SEND_TIMEOUT, ServerHandle};
use crate::client_handler::McpLogLevel;
use crate::error::McpError;

impl ServerHandle {
    /// Sets the level this server logs at and the level its messages are shown from. Sends
    /// `logging/setLevel` when the server advertises logging (`Ok(true)`); otherwise only the
    /// shown level changes (`Ok(false)`).
    pub async fn set_log_level(&self, level: McpLogLevel) -> Result<bool, McpError> {
        self.inner.generations.log_threshold.set(level);
        if !self.inner.info.capabilities.logging {
            return Ok(false);
        }
        if self.speaks_2026() {
            // No `logging/setLevel` at 2026-07-28: every request carries the level instead
            // (`connect/log_opt_in.rs`).
            return Ok(true);
        }
        #[expect(deprecated)]
        let request = {
            use rmcp::model::{LoggingLevel, SetLevelRequest, SetLevelRequestParams};
            let wire: LoggingLevel = serde_json::from_value(Value::String(level.as_str().into()))
                .map_err(|e| McpError::Protocol {
                server: self.inner.name.clone(),
                method: "logging/setLevel".to_owned(),
                message: e.to_string(),
            })?;
            ClientRequest::SetLevelRequest(SetLevelRequest::new(SetLevelRequestParams::new(wire)))
        };
        self.request("logging/setLevel", request).await?;
        Ok(true)
    }

    /// The level set when the server became Ready; a server that rejects it is only logged
    /// about (its messages are still filtered on our side).
    pub(crate) async fn send_initial_log_level(&self, level: McpLogLevel) {
        if let Err(e) = self.set_log_level(level).await {
            tracing::warn!(server = %self.inner.name, "logging/setLevel {level} failed: {e}");
        }
    }

    /// Whether this server was offered the session's roots (and is told about changes).
    pub fn uses_shared_roots(&self) -> bool {
        self.inner.generations.shared_roots
    }

    /// Sends `notifications/roots/list_changed` (bounded; a failure is logged).
    pub(crate) async fn notify_roots_changed(&self) {
        let sent = tokio::time::timeout(
            CANCEL_SEND_TIMEOUT,
            self.inner.peer.notify_roots_list_changed(),
        )
        .await;
        match sent {
            Ok(Ok(())) => tracing::info!(server = %self.inner.name, "sent roots/list_changed"),
            Ok(Err(e)) => {
                tracing::warn!(server = %self.inner.name, "roots/list_changed not sent: {e}")
            }
            Err(_) => {
                tracing::warn!(server = %self.inner.name, "roots/list_changed not sent: timed out")
            }
        }
    }
}
