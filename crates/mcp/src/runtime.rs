//! `McpRuntime`: the connected servers of one context, by name, with a queryable state each
//! (`Starting | Ready | Failed(reason) | Closed`; failures are reported, never hidden).
//!
//! Invariants:
//! - Servers start concurrently (a `JoinSet` per batch); each start is bounded by its own
//!   startup timeout, so one failing or hanging server never delays or breaks the others.
//! - A server whose transport ends while Ready (crash, closed connection) becomes `Failed`
//!   with the exit status and stderr tail; its process group has already been killed.
//! - `server_features()` is computed from live handles (D7).
//! - `shutdown()` must be awaited before exit (binaries never rely on `Drop`): it closes every
//!   server concurrently — stdin, then SIGTERM/SIGKILL of the process group, each bounded by
//!   [`ShutdownTimeouts`] — and aborts starts still in flight (which kills their children).
//! - No lock is held across an await.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use coyote_protocol::{McpServerSpec, Timeouts};
use tokio::sync::watch;
use tokio::task::JoinSet;

use crate::catalog_cache::{CachedCatalog, CatalogCache};
use crate::connect::auth::AuthContext;
use crate::connect::{self, ConnectOptions, Connection};
use crate::error::McpError;
use crate::handle::{HandleParts, ServerHandle};
use crate::server::{McpServerFeatures, ServerState, ServerStatus, StateCell};

mod login;
pub use login::{LoginReport, login};

struct Slot {
    name: String,
    transport: &'static str,
    /// `instructionsMaxBytes` of the server's entry.
    instructions_max_bytes: usize,
    state: Arc<StateCell>,
    live: Mutex<Option<Live>>,
    /// What a start needs: the spec (kept for a lazy start) and its cached catalog (an Idle
    /// server is declared from it).
    lazy: Option<LazyStart>,
}

/// A server registered Idle.
struct LazyStart {
    spec: McpServerSpec,
    cached: Arc<CachedCatalog>,
}

struct Live {
    handle: ServerHandle,
    connection: Option<Connection>,
}

impl Slot {
    fn live(&self) -> std::sync::MutexGuard<'_, Option<Live>> {
        self.live.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn handle(&self) -> Option<ServerHandle> {
        self.live().as_ref().map(|l| l.handle.clone())
    }
}

/// The MCP servers of one context. Clones share the servers.
#[derive(Clone)]
pub struct McpRuntime {
    inner: Arc<Inner>,
}

struct Inner {
    options: RuntimeOptions,
    connect: ConnectOptions,
    slots: Mutex<Vec<Arc<Slot>>>,
    background: Mutex<JoinSet<()>>,
}

impl std::fmt::Debug for McpRuntime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpRuntime")
            .field("servers", &self.server_names())
            .finish()
    }
}

impl McpRuntime {
    /// A runtime with no servers yet.
    pub fn new(options: RuntimeOptions) -> Self {
        let connect = ConnectOptions {
            hooks: options.hooks(),
            max_message_bytes: options.max_message_bytes,
            auth: Arc::new(AuthContext::new(options.auth.clone())),
        };
        McpRuntime {
            inner: Arc::new(Inner {
                options,
                connect,
                slots: Mutex::new(Vec::new()),
                background: Mutex::new(JoinSet::new()),
            }),
        }
    }

    fn start_context(&self) -> StartContext {
        StartContext {
            connect: self.inner.connect.clone(),
            catalog_cache: self.inner.options.catalog_cache.clone(),
        }
    }

    fn slots(&self) -> Vec<Arc<Slot>> {
        self.inner
            .slots
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    fn slot(&self, name: &str) -> Option<Arc<Slot>> {
        self.slots().into_iter().find(|s| s.name == name)
    }

    /// Registers the specs as `Starting` (skipping names already Starting or Ready) and
    /// returns the start futures.
    fn register(&self, specs: Vec<McpServerSpec>) -> Vec<(Arc<Slot>, McpServerSpec)> {
        specs
            .into_iter()
            .filter_map(|spec| {
                let slot = self.register_one(
                    &spec.name,
                    spec.transport.label(),
                    spec.client.instructions_max_bytes,
                )?;
                Some((slot, spec))
            })
            .collect()
    }

    /// A new `Starting` slot, replacing a Failed/Closed one of the same name; `None` (and a
    /// warning) when that name is already Starting or Ready.
    fn register_one(
        &self,
        name: &str,
        transport: &'static str,
        instructions_max_bytes: usize,
    ) -> Option<Arc<Slot>> {
        let mut slots = self.inner.slots.lock().unwrap_or_else(|p| p.into_inner());
        let slot = Arc::new(Slot {
            name: name.to_owned(),
            transport,
            instructions_max_bytes,
            state: Arc::new(StateCell::new()),
            live: Mutex::new(None),
            lazy: None,
        });
        match slots.iter().position(|s| s.name == name) {
            Some(i)
                if matches!(
                    slots[i].state.get(),
                    ServerState::Starting | ServerState::Ready
                ) =>
            {
                tracing::warn!(
                    server = name,
                    "server already started; ignoring the duplicate"
                );
                return None;
            }
            Some(i) => slots[i] = slot.clone(),
            None => slots.push(slot.clone()),
        }
        Some(slot)
    }

    /// Starts the servers concurrently and returns when every one is Ready or Failed.
    pub async fn start_all(&self, specs: Vec<McpServerSpec>) {
        let mut set = JoinSet::new();
        for (slot, spec) in self.register(specs) {
            set.spawn(start_one(self.start_context(), slot, spec));
        }
        while set.join_next().await.is_some() {}
    }

    /// Starts the servers in the background (REPL); query [`McpRuntime::state`] or await
    /// [`McpRuntime::wait_settled`].
    pub fn spawn_start(&self, specs: Vec<McpServerSpec>) {
        let starts = self.register(specs);
        let mut background = self
            .inner
            .background
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        while background.try_join_next().is_some() {}
        for (slot, spec) in starts {
            background.spawn(start_one(self.start_context(), slot, spec));
        }
    }

    /// Connects a server over an already-open byte stream speaking newline-delimited
    /// JSON-RPC (an in-process server, tests). It joins the runtime like any other server
    /// (transport label `stream`) and is returned once Ready.
    pub async fn attach_stream<R, W>(
        &self,
        name: &str,
        timeouts: Timeouts,
        read: R,
        write: W,
    ) -> Result<ServerHandle, McpError>
    where
        R: tokio::io::AsyncRead + Send + Unpin + 'static,
        W: tokio::io::AsyncWrite + Send + Unpin + 'static,
    {
        let Some(slot) = self.register_one(
            name,
            "stream",
            coyote_protocol::DEFAULT_INSTRUCTIONS_MAX_BYTES,
        ) else {
            let state = self.state(name).unwrap_or(ServerState::Starting);
            return Err(McpError::ServerNotReady {
                server: name.to_owned(),
                state,
            });
        };
        let options = self.inner.connect.clone();
        let connected =
            connect::connect_stream(name, timeouts.startup, (read, write), &options).await;
        if let Some(handle) = settle(slot, timeouts.call, options.max_message_bytes, connected) {
            handle.send_initial_log_level(options.hooks.log_level).await;
        }
        self.server(name)
    }

    /// Adds `source`'s Ready server `name` to this runtime without taking over its connection
    /// (agent runtimes built by [`crate::factory::McpFactory`], R15): this runtime's
    /// `shutdown`/`close_server` only mark the slot Closed; the owner closes the connection.
    /// The slot turns Failed/Closed when the source's server does.
    pub fn adopt(&self, source: &McpRuntime, name: &str) -> Result<ServerHandle, McpError> {
        let handle = source.server(name)?;
        let Some(source_slot) = source.slot(name) else {
            return Err(McpError::UnknownServer {
                name: name.to_owned(),
                known: source.server_names(),
            });
        };
        let Some(slot) = self.register_one(
            name,
            source_slot.transport,
            source_slot.instructions_max_bytes,
        ) else {
            let state = self.state(name).unwrap_or(ServerState::Starting);
            return Err(McpError::ServerNotReady {
                server: name.to_owned(),
                state,
            });
        };
        *slot.live() = Some(Live {
            handle: handle.clone(),
            connection: None,
        });
        slot.state.set(ServerState::Ready);
        let mut source_state = source_slot.state.subscribe();
        let mirror = Arc::downgrade(&slot);
        tokio::spawn(async move {
            let ended = |s: &ServerState| matches!(s, ServerState::Failed(_) | ServerState::Closed);
            let Ok(state) = source_state.wait_for(ended).await.map(|s| s.clone()) else {
                return;
            };
            if let Some(slot) = mirror.upgrade() {
                let reason = match state {
                    ServerState::Failed(reason) => reason,
                    _ => "the server was closed by its owner".to_owned(),
                };
                slot.state.fail_if_ready(reason);
            }
        });
        Ok(handle)
    }

    /// Waits until no server is Starting (each start is bounded by its startup timeout).
    pub async fn wait_settled(&self) {
        for slot in self.slots() {
            slot.state.wait_settled().await;
        }
    }

    /// Names in registration order.
    pub fn server_names(&self) -> Vec<String> {
        self.slots().iter().map(|s| s.name.clone()).collect()
    }

    /// The state of server `name`; `None` when no such server is registered.
    pub fn state(&self, name: &str) -> Option<ServerState> {
        self.slot(name).map(|s| s.state.get())
    }

    /// Every server with its state and, once connected, its handshake info.
    pub fn statuses(&self) -> Vec<ServerStatus> {
        self.slots()
            .iter()
            .map(|s| ServerStatus {
                name: s.name.clone(),
                transport: s.transport.to_owned(),
                state: s.state.get(),
                info: s
                    .handle()
                    .map(|h| h.info())
                    .or_else(|| s.lazy.as_ref().map(|l| l.cached.info.clone())),
            })
            .collect()
    }

    /// Features of the Ready servers, from their live handles (D7).
    pub fn server_features(&self) -> Vec<McpServerFeatures> {
        self.slots()
            .iter()
            .filter(|s| s.state.get() == ServerState::Ready)
            .filter_map(|s| s.handle())
            .map(|h| h.features())
            .collect()
    }

    /// The handle of a Ready server; otherwise an error carrying its state.
    pub fn server(&self, name: &str) -> Result<ServerHandle, McpError> {
        let Some(slot) = self.slot(name) else {
            return Err(McpError::UnknownServer {
                name: name.to_owned(),
                known: self.server_names(),
            });
        };
        match (slot.state.get(), slot.handle()) {
            (ServerState::Ready, Some(handle)) => Ok(handle),
            (ServerState::NeedsAuth, _) => Err(McpError::NeedsAuth {
                server: name.to_owned(),
            }),
            (state, _) => Err(McpError::ServerNotReady {
                server: name.to_owned(),
                state,
            }),
        }
    }

    /// Closes one server (bounded like [`McpRuntime::shutdown`]) and marks it Closed, so it
    /// can be started again with [`McpRuntime::spawn_start`] (the REPL's `.mcp restart`).
    /// Returns `false` (and does nothing) for an unknown name or a server still Starting.
    pub async fn close_server(&self, name: &str) -> bool {
        let Some(slot) = self.slot(name) else {
            return false;
        };
        if slot.state.get() == ServerState::Starting {
            return false;
        }
        slot.state.set(ServerState::Closed);
        let connection = slot.live().as_mut().and_then(|l| l.connection.take());
        if let Some(connection) = connection {
            connection.close(self.inner.options.shutdown).await;
            tracing::info!(server = %name, "closed MCP server");
        }
        true
    }

    /// Closes every server concurrently (bounded; see [`ShutdownTimeouts`]) and aborts starts
    /// in flight. Await it before the process exits.
    pub async fn shutdown(&self) {
        let pending = std::mem::take(
            &mut *self
                .inner
                .background
                .lock()
                .unwrap_or_else(|p| p.into_inner()),
        );
        let mut pending = pending;
        pending.abort_all();
        while pending.join_next().await.is_some() {}

        let timeouts = self.inner.options.shutdown;
        let mut closing = JoinSet::new();
        for slot in self.slots() {
            slot.state.set(ServerState::Closed);
            let connection = slot.live().as_mut().and_then(|l| l.connection.take());
            if let Some(connection) = connection {
                let name = slot.name.clone();
                closing.spawn(async move {
                    connection.close(timeouts).await;
                    tracing::info!(server = %name, "closed MCP server");
                });
            }
        }
        while closing.join_next().await.is_some() {}
    }
}

/// What a start needs from its runtime.
#[derive(Clone)]
struct StartContext {
    connect: ConnectOptions,
    catalog_cache: Option<CatalogCache>,
}

async fn start_one(context: StartContext, slot: Arc<Slot>, spec: McpServerSpec) {
    let connected = connect::connect(&spec, &context.connect).await;
    let ready = settle(
        slot,
        spec.timeouts.call,
        context.connect.max_message_bytes,
        connected,
    );
    if let Some(handle) = ready {
        handle
            .send_initial_log_level(context.connect.hooks.log_level)
            .await;
        if let Some(cache) = context.catalog_cache {
            lazy::refresh_cache(&cache, &spec, &handle).await;
        }
    }
}

/// Records the outcome of a start: Ready with a live handle (returned), or Failed with the
/// reason.
fn settle(
    slot: Arc<Slot>,
    call_timeout: Duration,
    max_message_bytes: usize,
    connected: Result<Connection, connect::StartError>,
) -> Option<ServerHandle> {
    let name = slot.name.clone();
    match connected {
        Ok(connection) => {
            let (pid, observer) = match &connection.process {
                Some(p) => (p.pid(), Some(p.observer())),
                None => (None, None),
            };
            let handle = ServerHandle::new(HandleParts {
                name: name.clone(),
                peer: connection.service.peer().clone(),
                transport: slot.transport,
                pid,
                call_timeout,
                generations: connection.generations.clone(),
                state: slot.state.clone(),
                ended: connection.ended.clone(),
                max_message_bytes,
                oauth: connection.auth.is_some(),
            });
            let ended = connection.ended.clone();
            *slot.live() = Some(Live {
                handle: handle.clone(),
                connection: Some(connection),
            });
            slot.state.set(ServerState::Ready);
            tracing::info!(server = %name, "MCP server ready");
            tokio::spawn(watch_connection(slot, ended, observer));
            Some(handle)
        }
        Err(failure) if matches!(failure.error, McpError::NeedsAuth { .. }) => {
            tracing::info!(server = %name, "MCP server needs sign-in");
            slot.state.set(ServerState::NeedsAuth);
            None
        }
        Err(failure) => {
            let reason = format!("{}{}", failure.error, failure.stderr_tail);
            tracing::warn!(server = %name, %reason, "MCP server failed to start");
            slot.state.set(ServerState::Failed(reason));
            None
        }
    }
}

/// Marks a Ready server Failed when its transport ends, with the exit status and stderr tail.
async fn watch_connection(
    slot: Arc<Slot>,
    mut ended: watch::Receiver<bool>,
    observer: Option<connect::stdio::ProcessObserver>,
) {
    if ended.wait_for(|e| *e).await.is_err() || slot.state.get() != ServerState::Ready {
        return;
    }
    let reason = match observer {
        Some(observer) => observer.describe_end().await,
        None => "the connection to the server closed".to_owned(),
    };
    if slot.state.fail_if_ready(reason.clone()) {
        tracing::warn!(server = %slot.name, %reason, "MCP server failed");
    }
}

mod client;
mod lazy;
mod options;

pub use options::RuntimeOptions;

#[cfg(test)]
#[path = "runtime_tests.rs"]
mod tests;
