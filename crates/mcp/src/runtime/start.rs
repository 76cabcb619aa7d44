//! Starting one server: connect, then record the outcome in its slot (Ready with a live
//! handle, NeedsAuth, or Failed with the reason and stderr tail), watch the connection for a
//! crash, send the initial log level, and refresh the server's cached catalog when the runtime
//! keeps one — at the start and again after each `notifications/*/list_changed`.
//!
//! Invariants: a start only ever settles its own slot; a crash is reported only over Ready
//! (`fail_if_ready`), so a server being closed is never reported as crashed.

use std::sync::Arc;
use std::time::Duration;

use coyote_protocol::McpServerSpec;
use tokio::sync::watch;

use super::{Live, Slot};
use crate::catalog_cache::{CATALOG_CACHE_VERSION, CachedCatalog, CatalogCache, now_ms};
use crate::connect::{self, ConnectOptions, Connection, Lifecycle};
use crate::error::McpError;
use crate::handle::{HandleParts, ServerHandle};
use crate::server::ServerState;

/// What a start needs from its runtime.
#[derive(Clone)]
pub(super) struct StartContext {
    pub(super) connect: ConnectOptions,
    pub(super) catalog_cache: Option<CatalogCache>,
    /// Read for the remembered handshake when there is no catalog cache.
    pub(super) protocol_memory: Option<CatalogCache>,
}

pub(super) async fn start_one(context: StartContext, slot: Arc<Slot>, spec: McpServerSpec) {
    let mut options = context.connect.clone();
    options.remembered = context
        .catalog_cache
        .as_ref()
        .or(context.protocol_memory.as_ref())
        .and_then(|cache| cache.remembered_lifecycle(&spec));
    let connected = connect::connect(&spec, &options).await;
    let learned = connected.as_ref().ok().and_then(|c| c.learned);
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
            let changes = handle.list_changes();
            refresh_cache(&cache, (&spec, learned), &handle).await;
            tokio::spawn(refresh_on_list_changes(
                cache,
                (spec, learned),
                handle,
                changes,
            ));
        }
    }
}

/// Stores the catalog again after each `notifications/*/list_changed` (changes during a
/// refresh fold into the next one), until the connection ends.
async fn refresh_on_list_changes(
    cache: CatalogCache,
    (spec, learned): (McpServerSpec, Option<Lifecycle>),
    handle: ServerHandle,
    mut changes: crate::subscription::ListChangeStream,
) {
    loop {
        tokio::select! {
            () = changes.next() => {}
            _ = handle.gone() => return,
        }
        tracing::debug!(server = %handle.name(), "a list changed; storing the catalog again");
        refresh_cache(&cache, (&spec, learned), &handle).await;
    }
}

/// Records the outcome of a start: Ready with a live handle (returned), or Failed with the
/// reason.
pub(super) fn settle(
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
                transport: connection.transport.unwrap_or(slot.transport),
                pid,
                call_timeout,
                generations: connection.generations.clone(),
                state: slot.state.clone(),
                ended: connection.ended.clone(),
                max_message_bytes,
                oauth: connection.auth.is_some(),
                inputs: connection.inputs.clone(),
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

/// Lists `handle`'s catalog and stores it as `spec`'s, with the handshake the server answered
/// when the start learned it; a failure is logged, never an error (the cache is an
/// optimisation).
async fn refresh_cache(
    cache: &CatalogCache,
    (spec, learned): (&McpServerSpec, Option<Lifecycle>),
    handle: &ServerHandle,
) {
    let features = handle.features();
    let (tools, resources, templates, prompts) = tokio::join!(
        async {
            if features.tools {
                handle.list_tools().await
            } else {
                Ok(Vec::new())
            }
        },
        async {
            if features.resources {
                handle.list_resources().await
            } else {
                Ok(Vec::new())
            }
        },
        async {
            if features.resources {
                handle.list_resource_templates().await
            } else {
                Ok(Vec::new())
            }
        },
        async {
            if features.prompts {
                handle.list_prompts().await
            } else {
                Ok(Vec::new())
            }
        },
    );
    let listed = (|| -> Result<CachedCatalog, McpError> {
        Ok(CachedCatalog {
            version: CATALOG_CACHE_VERSION,
            server: spec.name.clone(),
            written_at_ms: now_ms(),
            server_ttl_ms: handle.list_ttl_ms(),
            info: handle.info(),
            tools: tools?,
            resources: resources?,
            templates: templates?,
            prompts: prompts?,
            lifecycle: learned,
        })
    })();
    let stored = match listed {
        Ok(catalog) => cache.store(spec, &catalog).map_err(|e| e.to_string()),
        Err(e) => Err(e.to_string()),
    };
    match stored {
        Ok(()) => tracing::debug!(server = %spec.name, "cached the MCP server's catalog"),
        Err(e) => tracing::warn!(server = %spec.name, "the catalog was not cached: {e}"),
    }
}
