//! Resource subscriptions and the updates that follow (`notifications/resources/updated`), as
//! an `impl ServerHandle` block: at protocol 2025-11-25 `resources/subscribe` and
//! `resources/unsubscribe` (built on [`ServerHandle::request`]); at 2026-07-28, where those are
//! gone, one `subscriptions/listen` stream per watched URI (`listen.rs`), whose updates reach
//! the same [`ResourceUpdateStream`]. Subscribing to a server that does not advertise
//! `resources.subscribe` is [`McpError::Unsupported`], before anything is sent. Also the
//! connection's list changes ([`ListChangeStream`]).
// rmcp marks `resources/subscribe` legacy for protocol 2026-07-28; it is the way to subscribe
// at 2025-11-25.
#![expect(deprecated)]

mod listen;

use rmcp::model::{
    ClientRequest, SubscribeRequest, SubscribeRequestParams, UnsubscribeRequest,
    UnsubscribeRequestParams,
};
use tokio::sync::broadcast;

use crate::error::McpError;
use crate::handle::ServerHandle;

/// The updated URIs of one connection, from the moment it was asked for.
#[derive(Debug)]
pub struct ResourceUpdateStream {
    rx: broadcast::Receiver<String>,
}

/// What [`ResourceUpdateStream::next`] gives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResourceUpdate {
    /// This URI changed.
    Updated(String),
    /// The watcher fell behind and this many updates were skipped.
    Skipped(u64),
    /// The connection ended.
    Closed,
}

impl ResourceUpdateStream {
    /// The next update (waits for it).
    pub async fn next(&mut self) -> ResourceUpdate {
        match self.rx.recv().await {
            Ok(uri) => ResourceUpdate::Updated(uri),
            Err(broadcast::error::RecvError::Lagged(n)) => ResourceUpdate::Skipped(n),
            Err(broadcast::error::RecvError::Closed) => ResourceUpdate::Closed,
        }
    }

    /// The updates still on their way after the connection ended ([`ServerHandle::gone`]):
    /// rmcp handles each notification in a task of its own, so an update a server sent just
    /// before it went away can reach this stream a moment after the end is seen. Waits until
    /// `quiet` passes without one (or the stream closes) and returns what came, in order.
    pub async fn late(&mut self, quiet: std::time::Duration) -> Vec<ResourceUpdate> {
        let mut late = Vec::new();
        while let Ok(update) = tokio::time::timeout(quiet, self.next()).await {
            if update == ResourceUpdate::Closed {
                break;
            }
            late.push(update);
        }
        late
    }
}

/// The list changes of one connection (`notifications/*/list_changed`), from the moment it was
/// asked for; several changes that come while the watcher is busy are seen as one.
#[derive(Debug)]
pub struct ListChangeStream {
    rx: tokio::sync::watch::Receiver<u64>,
}

impl ListChangeStream {
    /// Waits for the next change; never ends while the connection's handle lives (stop with
    /// [`ServerHandle::gone`]).
    pub async fn next(&mut self) {
        if self.rx.changed().await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}

impl ServerHandle {
    /// List changes (tools, resources, prompts) of this connection from now on; what changed
    /// is in [`ServerHandle::list_generations`].
    pub fn list_changes(&self) -> ListChangeStream {
        ListChangeStream {
            rx: self.generations().list_changes.watch(),
        }
    }

    /// Whether the server advertised `resources.subscribe`.
    pub fn can_subscribe(&self) -> bool {
        self.info().capabilities.resources_subscribe
    }

    /// `resources/subscribe`: the server will send `notifications/resources/updated` for `uri`.
    pub async fn subscribe_resource(&self, uri: &str) -> Result<(), McpError> {
        self.check_subscribe()?;
        if self.speaks_2026() {
            return self.listen_to_resource(uri).await;
        }
        let params = SubscribeRequestParams::new(uri);
        let request = ClientRequest::SubscribeRequest(SubscribeRequest::new(params));
        self.request("resources/subscribe", request).await?;
        Ok(())
    }

    /// `resources/unsubscribe`.
    pub async fn unsubscribe_resource(&self, uri: &str) -> Result<(), McpError> {
        self.check_subscribe()?;
        if self.speaks_2026() {
            self.stop_listening(uri);
            return Ok(());
        }
        let params = UnsubscribeRequestParams::new(uri);
        let request = ClientRequest::UnsubscribeRequest(UnsubscribeRequest::new(params));
        self.request("resources/unsubscribe", request).await?;
        Ok(())
    }

    /// Updates of this connection from now on (subscribe first to get any).
    pub fn resource_updates(&self) -> ResourceUpdateStream {
        ResourceUpdateStream {
            rx: self.generations().updates.watch(),
        }
    }

    fn check_subscribe(&self) -> Result<(), McpError> {
        if self.can_subscribe() {
            Ok(())
        } else {
            Err(McpError::Unsupported {
                server: self.name().to_owned(),
                what: "resource subscriptions".to_owned(),
                hint: "the server does not advertise resources.subscribe; read the resource \
                       again to see changes"
                    .to_owned(),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::{ResourceUpdate, ResourceUpdateStream};
    use crate::client_handler::updates::ResourceUpdates;

    #[tokio::test]
    async fn late_updates_are_collected_until_a_quiet_spell() {
        let updates = std::sync::Arc::new(ResourceUpdates::default());
        let mut stream = ResourceUpdateStream {
            rx: updates.watch(),
        };
        updates.publish("a://1");
        let later = updates.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(20)).await;
            later.publish("a://2");
        });
        let late = stream.late(Duration::from_millis(500)).await;
        assert_eq!(
            late,
            vec![
                ResourceUpdate::Updated("a://1".into()),
                ResourceUpdate::Updated("a://2".into())
            ]
        );
        // Nothing more: an empty list after one quiet spell.
        assert!(stream.late(Duration::from_millis(10)).await.is_empty());
    }
}
