//! `notifications/resources/updated`: each update's URI is published to whoever watches the
//! connection's updates (`ServerHandle::resource_updates`). A bounded broadcast: a watcher that
//! falls behind skips the oldest updates (and is told how many), so a flood costs no memory.
//! `notifications/*/list_changed` bump one counter ([`ListChanges`]) that watchers wait on
//! (`ServerHandle::list_changes`): changes that come while a watcher is busy fold into one.

use tokio::sync::{broadcast, watch};

/// Updates kept for a slow watcher.
const UPDATE_BUFFER: usize = 256;

/// The connection's stream of updated resource URIs.
#[derive(Debug)]
pub(crate) struct ResourceUpdates {
    tx: broadcast::Sender<String>,
}

impl Default for ResourceUpdates {
    fn default() -> Self {
        ResourceUpdates {
            tx: broadcast::channel(UPDATE_BUFFER).0,
        }
    }
}

impl ResourceUpdates {
    /// A server said `uri` changed (nobody watching is fine).
    pub(crate) fn publish(&self, uri: &str) {
        let _ = self.tx.send(uri.to_owned());
    }

    /// Updates from now on.
    pub(crate) fn watch(&self) -> broadcast::Receiver<String> {
        self.tx.subscribe()
    }
}

/// The connection's count of `notifications/{tools,resources,prompts}/list_changed`.
#[derive(Debug)]
pub(crate) struct ListChanges {
    tx: watch::Sender<u64>,
}

impl Default for ListChanges {
    fn default() -> Self {
        ListChanges {
            tx: watch::channel(0).0,
        }
    }
}

impl ListChanges {
    /// A list changed (nobody watching is fine).
    pub(crate) fn bump(&self) {
        self.tx.send_modify(|n| *n += 1);
    }

    /// Changes from now on.
    pub(crate) fn watch(&self) -> watch::Receiver<u64> {
        self.tx.subscribe()
    }
}
