//! Per-server lifecycle state: the public [`ServerState`] and [`ServerStatus`], and the
//! waitable cell a runtime slot and its handles share. A state only moves forward from
//! Starting; `Failed` is set only over `Ready` by the crash watcher, so a server being closed
//! is never reported as crashed.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio::sync::watch;

use crate::handle::ServerInfo;

/// Lifecycle state of one server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", content = "reason", rename_all = "snake_case")]
pub enum ServerState {
    Starting,
    Ready,
    /// Why it failed, including the stderr tail of a stdio server.
    Failed(String),
    Closed,
}

impl std::fmt::Display for ServerState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ServerState::Starting => f.write_str("starting"),
            ServerState::Ready => f.write_str("ready"),
            ServerState::Failed(reason) => write!(f, "failed: {reason}"),
            ServerState::Closed => f.write_str("closed"),
        }
    }
}

/// One server's state, shared by the runtime and its handles; waitable.
#[derive(Debug)]
pub(crate) struct StateCell(watch::Sender<ServerState>);

impl StateCell {
    pub(crate) fn new() -> Self {
        StateCell(watch::channel(ServerState::Starting).0)
    }

    pub(crate) fn subscribe(&self) -> watch::Receiver<ServerState> {
        self.0.subscribe()
    }

    pub(crate) fn get(&self) -> ServerState {
        self.0.borrow().clone()
    }

    pub(crate) fn set(&self, state: ServerState) {
        self.0.send_replace(state);
    }

    /// Sets `Failed` unless the server is already closing or failed.
    pub(crate) fn fail_if_ready(&self, reason: String) -> bool {
        self.0.send_if_modified(|s| {
            let ready = matches!(s, ServerState::Ready);
            if ready {
                *s = ServerState::Failed(reason);
            }
            ready
        })
    }

    /// Waits (bounded) until the state is neither Starting nor Ready; returns it if so.
    pub(crate) async fn wait_not_ready(&self, wait: Duration) -> Option<ServerState> {
        let mut rx = self.0.subscribe();
        let done = |s: &ServerState| matches!(s, ServerState::Failed(_) | ServerState::Closed);
        match tokio::time::timeout(wait, rx.wait_for(done)).await {
            Ok(Ok(state)) => Some(state.clone()),
            _ => None,
        }
    }

    pub(crate) async fn wait_settled(&self) {
        let mut rx = self.0.subscribe();
        let _ = rx.wait_for(|s| !matches!(s, ServerState::Starting)).await;
    }
}

/// A row of `coyote mcp servers`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerStatus {
    pub name: String,
    /// `stdio`, `http`, `sse`.
    pub transport: String,
    pub state: ServerState,
    /// Present once the server is (or was) Ready.
    pub info: Option<ServerInfo>,
}
