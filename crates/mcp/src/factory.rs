//! `McpFactory`: MCP servers owned by agents (their own `mcp.json`), acquired by spec and
//! shared — two agents with the same spec use one connection, closed when the last user lets
//! go — plus [`McpFactory::agent_runtime`], which builds the [`McpRuntime`] an agent's turn
//! loop runs with, so its `server_features()` covers servers that never enter the app's
//! runtime.
//!
//! Invariants:
//! - Sharing key: the spec without `source` (the file it came from is provenance, not part of
//!   the connection). Each shared server lives in its own one-server runtime.
//! - The map holds `Weak`s; a [`ServerLease`] holds the `Arc`. The last lease closes the
//!   connection: [`ServerLease::release`] awaits the close (use it; binaries never rely on
//!   `Drop`), a plain drop spawns the close on the current tokio runtime as a fallback.
//! - The last-user check and every acquire happen under the map lock, so a release can never
//!   close a connection that an acquire just handed out. No lock is held across an await.
//! - A Failed/Closed shared server is not handed out again: the next acquire starts afresh.
//! - Agent runtimes only adopt handles ([`McpRuntime::adopt`]); closing one never closes an
//!   app server or a shared connection another agent still uses.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};

use coyote_protocol::McpServerSpec;

use crate::error::McpError;
use crate::handle::ServerHandle;
use crate::runtime::{McpRuntime, RuntimeOptions};
use crate::server::ServerState;

/// Shares agent-owned servers by spec. Clones share the map.
#[derive(Clone, Debug)]
pub struct McpFactory {
    inner: Arc<FactoryInner>,
}

#[derive(Debug)]
struct FactoryInner {
    options: RuntimeOptions,
    shared: Mutex<Vec<Weak<Shared>>>,
}

/// One shared connection: a one-server runtime.
#[derive(Debug)]
struct Shared {
    key: McpServerSpec,
    runtime: McpRuntime,
    closed: AtomicBool,
}

impl Shared {
    fn name(&self) -> &str {
        &self.key.name
    }

    fn usable(&self) -> bool {
        !matches!(
            self.runtime.state(self.name()),
            Some(ServerState::Failed(_) | ServerState::Closed) | None
        )
    }
}

impl Drop for Shared {
    fn drop(&mut self) {
        if self.closed.swap(true, Ordering::SeqCst) {
            return;
        }
        // Fallback for leases dropped without `release()`: close in the background.
        if let Ok(handle) = tokio::runtime::Handle::try_current() {
            let runtime = self.runtime.clone();
            handle.spawn(async move { runtime.shutdown().await });
        }
    }
}

/// A use of one shared server; clones are further uses.
#[derive(Clone, Debug)]
pub struct ServerLease {
    shared: Arc<Shared>,
    factory: Weak<FactoryInner>,
}

impl ServerLease {
    /// The server's configured name.
    pub fn name(&self) -> &str {
        self.shared.name()
    }

    /// The server's state now; `Closed` once its runtime forgot it.
    pub fn state(&self) -> ServerState {
        self.shared
            .runtime
            .state(self.name())
            .unwrap_or(ServerState::Closed)
    }

    /// The live handle (Ready only).
    pub fn handle(&self) -> Result<ServerHandle, McpError> {
        self.shared.runtime.server(self.name())
    }

    /// The one-server runtime owning the connection.
    pub fn runtime(&self) -> &McpRuntime {
        &self.shared.runtime
    }

    /// Gives the lease back; the last one closes the connection (awaited, bounded by the
    /// runtime's shutdown timeouts).
    pub async fn release(self) {
        let last = match self.factory.upgrade() {
            Some(factory) => {
                let mut map = factory.lock();
                let last = Arc::strong_count(&self.shared) == 1;
                if last {
                    map.retain(|w| !std::ptr::eq(w.as_ptr(), Arc::as_ptr(&self.shared)));
                }
                last
            }
            None => Arc::strong_count(&self.shared) == 1,
        };
        if last && !self.shared.closed.swap(true, Ordering::SeqCst) {
            self.shared.runtime.shutdown().await;
            tracing::info!(server = %self.name(), "closed shared agent MCP server");
        }
    }
}

impl FactoryInner {
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Weak<Shared>>> {
        self.shared.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// What an agent's runtime is built from.
#[derive(Debug, Clone)]
pub struct AgentServers<'a> {
    /// The agent's own servers (its `mcp.json`), acquired through the factory.
    pub own: Vec<McpServerSpec>,
    /// The app's runtime and the names selected from it for this agent (selection already
    /// resolved by the caller, coyote-config's `Selection`).
    pub app: &'a McpRuntime,
    /// The app servers selected for the agent, by name.
    pub app_selected: Vec<String>,
}

/// A server the agent asked for that is not in its runtime.
#[derive(Debug)]
pub struct AgentServerProblem {
    /// The server's configured name.
    pub server: String,
    /// Why it could not be added.
    pub error: McpError,
}

/// An agent's runtime and the leases that keep its own servers alive.
#[derive(Debug)]
pub struct AgentRuntime {
    runtime: McpRuntime,
    leases: Vec<ServerLease>,
    /// App servers hidden by an own server of the same name (warn once).
    pub shadowed: Vec<String>,
    /// Servers that could not be added (failed own start, app server not Ready).
    pub problems: Vec<AgentServerProblem>,
}

impl AgentRuntime {
    /// The runtime to hand to the agent's turn loop; `server_features()` comes from here.
    pub fn runtime(&self) -> &McpRuntime {
        &self.runtime
    }

    /// Ends the agent: its runtime forgets every server (no connection is closed by that),
    /// then each own-server lease is released, closing connections no other agent uses.
    pub async fn close(self) {
        self.runtime.shutdown().await;
        for lease in self.leases {
            lease.release().await;
        }
    }
}

impl McpFactory {
    /// A factory whose servers all run with `options`.
    pub fn new(options: RuntimeOptions) -> Self {
        McpFactory {
            inner: Arc::new(FactoryInner {
                options,
                shared: Mutex::new(Vec::new()),
            }),
        }
    }

    /// A lease on the server for `spec`: an existing usable connection with an equal spec,
    /// or a new one. Returns once the server is Ready or Failed (bounded by its startup
    /// timeout); check [`ServerLease::state`].
    pub async fn acquire(&self, spec: McpServerSpec) -> ServerLease {
        let mut key = spec;
        key.source = Default::default();
        let shared = {
            let mut map = self.inner.lock();
            map.retain(|w| w.strong_count() > 0);
            let existing = map
                .iter()
                .filter_map(Weak::upgrade)
                .find(|s| s.key == key && s.usable());
            match existing {
                Some(shared) => shared,
                None => {
                    let runtime = McpRuntime::new(self.inner.options.clone());
                    runtime.spawn_start(vec![key.clone()]);
                    let shared = Arc::new(Shared {
                        key,
                        runtime,
                        closed: AtomicBool::new(false),
                    });
                    map.push(Arc::downgrade(&shared));
                    shared
                }
            }
        };
        shared.runtime.wait_settled().await;
        ServerLease {
            shared,
            factory: Arc::downgrade(&self.inner),
        }
    }

    /// Shared connections currently alive (for `.info` and tests).
    pub fn live_connections(&self) -> usize {
        self.inner
            .lock()
            .iter()
            .filter(|w| {
                w.upgrade()
                    .is_some_and(|s| !s.closed.load(Ordering::SeqCst))
            })
            .count()
    }

    /// Builds an agent's runtime: its own servers (shared through this factory; one of the
    /// same name as an app server shadows it) plus the selected app servers: Ready ones
    /// mirrored at once, Idle ones (lazy start) Idle until the agent's first call starts them.
    pub async fn agent_runtime(&self, servers: AgentServers<'_>) -> AgentRuntime {
        let runtime = McpRuntime::new(self.inner.options.clone());
        let mut leases = Vec::new();
        let mut problems = Vec::new();
        let own_names: Vec<String> = servers.own.iter().map(|s| s.name.clone()).collect();
        let acquired =
            futures::future::join_all(servers.own.into_iter().map(|s| self.acquire(s))).await;
        for lease in acquired {
            if let Err(error) = runtime.adopt(lease.runtime(), lease.name()) {
                problems.push(AgentServerProblem {
                    server: lease.name().to_owned(),
                    error,
                });
            }
            leases.push(lease);
        }
        let mut shadowed = Vec::new();
        for name in servers.app_selected {
            if own_names.contains(&name) {
                shadowed.push(name);
                continue;
            }
            // An Idle app server (lazy start) stays Idle: the agent's first call starts it.
            if let Err(error) = runtime.adopt_lazily(servers.app, &name) {
                problems.push(AgentServerProblem {
                    server: name,
                    error,
                });
            }
        }
        AgentRuntime {
            runtime,
            leases,
            shadowed,
            problems,
        }
    }
}

#[cfg(test)]
#[path = "factory_tests.rs"]
mod tests;
