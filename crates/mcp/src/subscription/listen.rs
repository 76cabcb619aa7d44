//! Watching a resource at protocol 2026-07-28: `resources/subscribe` is gone, and a client opts
//! in to a resource's updates with a `subscriptions/listen` request whose answer is the stream
//! (`resourceSubscriptions: [uri]`). Each watched URI gets its own stream, pumped by a task
//! into the connection's update stream (the same one the 2025-11-25 notifications reach), and
//! stopped — `notifications/cancelled` for the listen request — when the URI is unwatched.
//!
//! Invariants: opening a stream waits at most the call timeout for the server's
//! acknowledgement; watching a URI twice keeps one stream; a stream the server ends (or the
//! connection loses) is logged and its URI is no longer watched, so a later watch opens a new
//! one.

use rmcp::model::{ServerNotification, SubscriptionFilter};
use serde_json::json;
use tokio::sync::oneshot;

use crate::error::{McpError, TimeoutPhase};
use crate::handle::ServerHandle;

impl ServerHandle {
    /// Opens the `subscriptions/listen` stream of `uri` (see the module docs).
    pub(super) async fn listen_to_resource(&self, uri: &str) -> Result<(), McpError> {
        if self.listening().contains_key(uri) {
            return Ok(());
        }
        let filter: SubscriptionFilter =
            serde_json::from_value(json!({ "resourceSubscriptions": [uri] })).map_err(|e| {
                McpError::Protocol {
                    server: self.name().to_owned(),
                    method: "subscriptions/listen".to_owned(),
                    message: format!("cannot build the subscription filter: {e}"),
                }
            })?;
        let timeout = self.call_timeout();
        let opened = tokio::time::timeout(timeout, self.peer().listen(filter)).await;
        let mut subscription = match opened {
            Ok(Ok(subscription)) => subscription,
            Ok(Err(e)) => {
                return Err(match self.map_error("subscriptions/listen", e).await {
                    McpError::Rpc { code: -32601, .. } => McpError::Unsupported {
                        server: self.name().to_owned(),
                        what: "watching resources at protocol 2026-07-28".to_owned(),
                        hint: "the server advertises resource subscriptions but does not serve \
                               `subscriptions/listen` (method not found); pin it to 2025-11-25 \
                               (\"protocol\": \"2025-11-25\" in its mcp.json entry, or \
                               COYOTE_MCP_PROTOCOL=2025-11-25) to watch it"
                            .to_owned(),
                    },
                    other => other,
                });
            }
            Err(_) => {
                return Err(McpError::Timeout {
                    server: self.name().to_owned(),
                    phase: TimeoutPhase::Call {
                        method: "subscriptions/listen".to_owned(),
                    },
                    after: timeout,
                });
            }
        };
        let accepted = subscription
            .acknowledged()
            .resource_subscriptions
            .as_ref()
            .is_some_and(|uris| uris.iter().any(|u| u == uri));
        if !accepted {
            let _ = subscription.cancel().await;
            return Err(McpError::Unsupported {
                server: self.name().to_owned(),
                what: format!("updates of {uri}"),
                hint: "the server acknowledged the subscription without this resource; read \
                       it again to see changes"
                    .to_owned(),
            });
        }
        let (stop, mut stopped) = oneshot::channel();
        self.listening().insert(uri.to_owned(), stop);
        let generations = self.shared_generations();
        let handle = self.clone();
        let uri = uri.to_owned();
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    _ = &mut stopped => {
                        let _ = subscription.cancel().await;
                        return;
                    }
                    next = subscription.next() => match next {
                        Ok(Some(ServerNotification::ResourceUpdatedNotification(n))) => {
                            generations.resource_updated(&n.params.uri);
                        }
                        Ok(Some(_)) => {}
                        Ok(None) => {
                            tracing::info!(server = %handle.name(), %uri,
                                "the server ended the update stream of this resource");
                            break;
                        }
                        Err(e) => {
                            tracing::warn!(server = %handle.name(), %uri,
                                "the update stream of this resource failed: {e}");
                            break;
                        }
                    }
                }
            }
            handle.listening().remove(&uri);
        });
        Ok(())
    }

    /// Stops the stream of `uri`, if one is open.
    pub(super) fn stop_listening(&self, uri: &str) {
        if let Some(stop) = self.listening().remove(uri) {
            let _ = stop.send(());
        }
    }
}
