//! `McpRuntime`: the connected servers of one context, by name, with a queryable state each
//! (`Idle | Starting | Ready | Failed(reason) | NeedsAuth | Closed`; failures are reported,
//! never hidden). Lazy start from a cached catalog (`Idle`, [`McpRuntime::acquire`]) is in
//! `runtime/lazy.rs`.
//!
//! Invariants:
//! - Servers start concurrently (a `JoinSet` per batch); each start is bounded by its own
//!   startup timeout, so one failing or hanging server never delays or breaks the others.
//! - A server whose transport ends while Ready (crash, closed connection) becomes `Failed`
//!   with the exit status and stderr tail; its process group has already been killed.
//! - `server_features()` is computed from live handles, and for an `Idle` server from the
//!   capabilities of its cached catalog (it is declared in full until it starts).
//! - `shutdown()` must be awaited before exit (binaries never rely on `Drop`): it closes every
//!   server concurrently — stdin, then SIGTERM/SIGKILL of the process group, each bounded by
//!   [`ShutdownTimeouts`] — and aborts starts still in flight (which kills their children).
//! - No lock is held across an await.

use std::sync::{Arc, Mutex};

use coyote_protocol::{McpServerSpec, Timeouts};
use tokio::task::JoinSet;

use crate::catalog_cache::CachedCatalog;
use crate::connect::auth::AuthContext;
use crate::connect::{self, ConnectOptions, Connection};
use crate::error::McpError;
use crate::handle::ServerHandle;
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
    origin: lazy::LazyOrigin,
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
            protocol: options.protocol,
            remembered: None,
            blob_spill: options.blob_dir.clone().map(crate::render::SpillStore::new),
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
            protocol_memory: self.inner.options.protocol_memory.clone(),
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
    /// (agent runtimes built by [`crate::factory::McpFactory`]): this runtime's
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
        mirror(&slot, &source_slot, handle.clone());
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
            .map(|s| {
                let info = s
                    .handle()
                    .map(|h| h.info())
                    .or_else(|| s.lazy.as_ref().map(|l| l.cached.info.clone()));
                ServerStatus {
                    name: s.name.clone(),
                    // The transport in use (`sse` after the fallback), else the configured one.
                    transport: info
                        .as_ref()
                        .map_or_else(|| s.transport.to_owned(), |i| i.transport.clone()),
                    state: s.state.get(),
                    info,
                }
            })
            .collect()
    }

    /// Features of the Ready servers, from their live handles, and of the Idle ones, from
    /// their cached catalogs.
    pub fn server_features(&self) -> Vec<McpServerFeatures> {
        self.slots()
            .iter()
            .filter_map(|s| match s.state.get() {
                ServerState::Ready => s.handle().map(|h| h.features()),
                // Declared from its cached catalog until its first call starts it.
                ServerState::Idle => s.lazy.as_ref().map(|l| l.cached.features()),
                _ => None,
            })
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
        // A task call abandoned a moment ago (Ctrl-C) is still telling its server to stop.
        crate::tasks::cancels_sent(std::time::Duration::from_secs(2)).await;
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

/// Makes `slot` serve `source_slot`'s live `handle` (Ready now), and fail when the source's
/// server fails or is closed by its owner.
fn mirror(slot: &Arc<Slot>, source_slot: &Arc<Slot>, handle: ServerHandle) {
    *slot.live() = Some(Live {
        handle,
        connection: None,
    });
    slot.state.set(ServerState::Ready);
    let mut source_state = source_slot.state.subscribe();
    let mirror = Arc::downgrade(slot);
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
}

mod client;
mod lazy;
mod options;
mod start;

pub use options::RuntimeOptions;
use start::{StartContext, settle, start_one};

#[cfg(test)]
#[path = "runtime_tests.rs"]
mod tests;
