//! The runtime's side of the client features: the session's roots (changes are announced
//! with `notifications/roots/list_changed` to every Ready server that follows them), each
//! server's log level (`logging/setLevel`), and the servers' `instructions` within their
//! `instructionsMaxBytes`.

use std::path::{Path, PathBuf};

use super::McpRuntime;
use crate::client_handler::{McpLogLevel, Roots};
use crate::error::McpError;
use crate::server::{ServerInstructions, ServerState};

impl McpRuntime {
    /// The options this runtime was built with (hooks shared), for runtimes built beside it
    /// (agents' own servers).
    pub fn options(&self) -> super::RuntimeOptions {
        self.inner.options.clone()
    }

    /// The session's roots, when the runtime offers roots.
    pub fn roots(&self) -> Option<Roots> {
        self.inner.options.roots.clone()
    }

    /// Adds `dir` to the session's roots and tells the servers that follow them; `false` when
    /// it was already there or the runtime offers no roots.
    pub async fn add_root(&self, dir: PathBuf) -> bool {
        let Some(roots) = self.roots() else {
            return false;
        };
        let added = roots.add(dir);
        if added {
            self.announce_roots().await;
        }
        added
    }

    /// Removes `dir` from the session's roots and tells the servers that follow them; `false`
    /// when it was not there.
    pub async fn remove_root(&self, dir: &Path) -> bool {
        let Some(roots) = self.roots() else {
            return false;
        };
        let removed = roots.remove(dir);
        if removed {
            self.announce_roots().await;
        }
        removed
    }

    /// Sends `notifications/roots/list_changed` to every Ready server using the session's
    /// roots (bounded per server; a failure is logged).
    async fn announce_roots(&self) {
        let handles: Vec<_> = self
            .slots()
            .iter()
            .filter(|s| s.state.get() == ServerState::Ready)
            .filter_map(|s| s.handle())
            .filter(|h| h.uses_shared_roots())
            .collect();
        let sends = handles.iter().map(|h| h.notify_roots_changed());
        futures::future::join_all(sends).await;
    }

    /// Sets the level server `name` logs at (`logging/setLevel`) and the level its messages
    /// are shown from. `Ok(false)`: the server does not advertise logging, so only what is
    /// shown changed. An idle server is started for it ([`McpRuntime::acquire`]).
    pub async fn set_log_level(&self, name: &str, level: McpLogLevel) -> Result<bool, McpError> {
        self.acquire(name).await?.set_log_level(level).await
    }

    /// The `instructions` of the Ready (and Idle: cached) servers `include` accepts, each cut at its
    /// `instructionsMaxBytes` (servers without instructions, or with a budget of 0, are left
    /// out), in registration order.
    pub fn instructions(&self, include: &dyn Fn(&str) -> bool) -> Vec<ServerInstructions> {
        self.slots()
            .iter()
            .filter(|s| include(&s.name))
            .filter_map(|s| {
                let text = match s.state.get() {
                    ServerState::Ready => s.handle()?.info().instructions?,
                    // Declared from its cached catalog, instructions included.
                    ServerState::Idle => s.lazy.as_ref()?.cached.info.instructions.clone()?,
                    _ => return None,
                };
                ServerInstructions::capped(&s.name, &text, s.instructions_max_bytes)
            })
            .collect()
    }
}
