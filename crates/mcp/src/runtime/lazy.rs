//! Lazy start from a cached catalog, as an `impl McpRuntime` block: a server whose
//! catalog is cached and fresh ([`crate::catalog_cache`]) is registered `Idle` and declared
//! from that catalog; the first call that needs it starts it ([`McpRuntime::acquire`]). After
//! any start the runtime refreshes the cached catalog (`start`).
//!
//! Invariants:
//! - Only servers whose entry says `"start": "lazy"` (the default) and whose runtime has a
//!   catalog cache are registered Idle; every other server starts at once, as before.
//! - An agent's runtime adopts an Idle app server Idle too ([`McpRuntime::adopt_lazily`]): its
//!   first call there starts the server in the app's runtime (one process for both) and then
//!   mirrors it, exactly as an eager adoption would.
//! - Exactly one caller moves a server from Idle to Starting (the state cell decides), and it
//!   starts the server in the background set, so shutdown aborts it like any start; callers
//!   that find it starting lazily wait for the outcome, bounded by its startup timeout.
//! - A catalog is stored only when every advertised kind listed: a partial catalog would hide
//!   items from the next session.

use std::sync::Arc;

use coyote_protocol::{McpServerSpec, StartMode};
use futures::future::BoxFuture;

use super::{LazyStart, McpRuntime, Slot, mirror, start_one};
use crate::catalog_cache::CachedCatalog;
use crate::error::McpError;
use crate::handle::ServerHandle;
use crate::server::{ServerState, StateCell};

impl McpRuntime {
    /// Registers the lazy servers with a fresh cached catalog `Idle` and starts the others,
    /// returning when each of those is Ready or Failed (one-shot chat).
    pub async fn start_all_lazily(&self, specs: Vec<McpServerSpec>) {
        let now = self.register_lazy(specs);
        self.start_all(now).await;
    }

    /// [`McpRuntime::start_all_lazily`] with the starts in the background (the REPL).
    pub fn spawn_start_lazily(&self, specs: Vec<McpServerSpec>) {
        let now = self.register_lazy(specs);
        self.spawn_start(now);
    }

    /// The cached catalog an `Idle` server is declared from.
    pub fn cached_catalog(&self, name: &str) -> Option<Arc<CachedCatalog>> {
        let slot = self.slot(name)?;
        (slot.state.get() == ServerState::Idle)
            .then(|| slot.lazy.as_ref().map(|l| l.cached.clone()))
            .flatten()
    }

    /// The handle of `name` for a call that needs the server: an `Idle` server is started
    /// (once, whoever asks first) and awaited, bounded by its startup timeout. Any other
    /// state answers at once, like [`McpRuntime::server`].
    ///
    /// Boxed: an agent runtime's first call awaits the app runtime's `acquire` from a task
    /// this method spawns, so its future type must not depend on itself.
    pub fn acquire<'a>(&'a self, name: &'a str) -> BoxFuture<'a, Result<ServerHandle, McpError>> {
        Box::pin(async move {
            let Some(slot) = self.slot(name) else {
                return self.server(name);
            };
            let Some(lazy) = &slot.lazy else {
                return self.server(name);
            };
            if slot.state.begin_start_if_idle() {
                tracing::info!(server = %name, "starting MCP server on its first call");
                let mut background = self
                    .inner
                    .background
                    .lock()
                    .unwrap_or_else(|p| p.into_inner());
                while background.try_join_next().is_some() {}
                match &lazy.origin {
                    LazyOrigin::Spec(spec) => {
                        background.spawn(start_one(
                            self.start_context(),
                            slot.clone(),
                            McpServerSpec::clone(spec),
                        ));
                    }
                    LazyOrigin::Adopt(source) => {
                        background.spawn(adopt_started(source.clone(), slot.clone()));
                    }
                }
            }
            slot.state.wait_settled().await;
            self.server(name)
        })
    }

    /// Adds `source`'s server `name` like [`McpRuntime::adopt`], except that a server the
    /// source holds Idle is added Idle, declared from the same cached catalog: the first call
    /// here starts it in `source` (one process for both runtimes) and mirrors it then.
    pub fn adopt_lazily(&self, source: &McpRuntime, name: &str) -> Result<(), McpError> {
        match (source.cached_catalog(name), source.slot(name)) {
            (Some(cached), Some(source_slot)) => {
                self.register_idle(
                    name,
                    source_slot.transport,
                    source_slot.instructions_max_bytes,
                    LazyStart {
                        origin: LazyOrigin::Adopt(source.clone()),
                        cached,
                    },
                );
                Ok(())
            }
            _ => self.adopt(source, name).map(|_| ()),
        }
    }

    /// The specs to start now; the others are registered Idle.
    fn register_lazy(&self, specs: Vec<McpServerSpec>) -> Vec<McpServerSpec> {
        let Some(cache) = self.inner.options.catalog_cache.clone() else {
            return specs;
        };
        specs
            .into_iter()
            .filter_map(|spec| {
                if spec.start.mode == StartMode::Eager {
                    return Some(spec);
                }
                let Some(cached) = cache.load_fresh(&spec) else {
                    return Some(spec);
                };
                let (name, transport) = (spec.name.clone(), spec.transport.label());
                let instructions_max_bytes = spec.client.instructions_max_bytes;
                self.register_idle(
                    &name,
                    transport,
                    instructions_max_bytes,
                    LazyStart {
                        origin: LazyOrigin::Spec(Box::new(spec)),
                        cached: Arc::new(cached),
                    },
                );
                None
            })
            .collect()
    }

    /// A new `Idle` slot, replacing a Failed/Closed one of the same name (a live or Idle one
    /// is kept, with a warning).
    fn register_idle(
        &self,
        name: &str,
        transport: &'static str,
        instructions_max_bytes: usize,
        lazy: LazyStart,
    ) {
        let mut slots = self.inner.slots.lock().unwrap_or_else(|p| p.into_inner());
        let slot = Arc::new(Slot {
            name: name.to_owned(),
            transport,
            instructions_max_bytes,
            state: Arc::new(StateCell::idle()),
            live: std::sync::Mutex::new(None),
            lazy: Some(lazy),
        });
        match slots.iter().position(|s| s.name == slot.name) {
            Some(i)
                if !matches!(
                    slots[i].state.get(),
                    ServerState::Failed(_) | ServerState::Closed
                ) =>
            {
                tracing::warn!(server = %slot.name, "server already registered; ignoring the duplicate");
            }
            Some(i) => slots[i] = slot,
            None => slots.push(slot),
        }
    }
}

/// Where an Idle server comes from when its first call starts it.
pub(super) enum LazyOrigin {
    /// Its entry: this runtime starts it.
    Spec(Box<McpServerSpec>),
    /// Another runtime's Idle server (an agent's use of an app server): started there.
    Adopt(McpRuntime),
}

/// Starts `slot`'s server in `source` and mirrors it into `slot`; a server that cannot start
/// leaves `slot` in the same state as the source's.
async fn adopt_started(source: McpRuntime, slot: Arc<Slot>) {
    let state = match (source.acquire(&slot.name).await, source.slot(&slot.name)) {
        (Ok(handle), Some(source_slot)) => return mirror(&slot, &source_slot, handle),
        (Ok(_), None) => ServerState::Closed,
        (Err(McpError::NeedsAuth { .. }), _) => ServerState::NeedsAuth,
        (Err(McpError::ServerNotReady { state, .. }), _) => state,
        (Err(e), _) => ServerState::Failed(e.to_string()),
    };
    slot.state.set(state);
}
