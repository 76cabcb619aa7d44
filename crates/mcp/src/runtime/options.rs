//! [`RuntimeOptions`]: what the embedder chooses for a whole runtime — the client identity,
//! the hooks of the client features (elicitation, sampling, roots, server logs), the OAuth
//! settings and the bounds every connection shares.

use std::sync::Arc;

use crate::catalog_cache::CatalogCache;
use crate::client_handler::{
    ClientHooks, ClientIdentity, DeclineElicitation, ElicitationHook, McpLogLevel, NoServerLog,
    Roots, SamplingHook, ServerLogSink,
};
use crate::connect::ProtocolRevisions;
use crate::connect::auth::AuthOptions;
use crate::connect::line::MAX_MESSAGE_BYTES;
use crate::server::ShutdownTimeouts;

/// Runtime-wide settings; per-server deadlines come from each spec's `timeouts`.
#[derive(Clone)]
pub struct RuntimeOptions {
    /// `clientInfo` sent in `initialize`.
    pub client: ClientIdentity,
    /// Answers servers' form and URL elicitations; the default declines.
    pub elicitation: Arc<dyn ElicitationHook>,
    /// Answers servers' sampling requests; `None` (the default) does not offer sampling.
    pub sampling: Option<Arc<dyn SamplingHook>>,
    /// The directories servers are told about (`roots/list`); `None` (the default) does not
    /// offer roots.
    pub roots: Option<Roots>,
    /// Shows server log messages at or above `mcp_log_level`; the default shows none (they
    /// always reach coyote's log).
    pub server_log: Arc<dyn ServerLogSink>,
    /// The level sent with `logging/setLevel` to servers that log (default `warning`).
    pub mcp_log_level: McpLogLevel,
    /// Largest accepted message ([`MAX_MESSAGE_BYTES`]; tests use less).
    pub max_message_bytes: usize,
    /// How long each step of stopping a stdio server may take.
    pub shutdown: ShutdownTimeouts,
    /// OAuth: token store, and whether sign-ins may start (only `login` lets them).
    pub auth: AuthOptions,
    /// Where servers' catalogs are cached after they ran, for lazy starts (`None`: no cache;
    /// `coyote mcp` commands list live).
    pub catalog_cache: Option<CatalogCache>,
    /// Which protocol revisions connections offer (default: 2025-11-25 via `initialize`).
    pub protocol: ProtocolRevisions,
    /// Where the handshake each server answered last time is read from when `catalog_cache`
    /// is unset (the `coyote mcp` commands: they read what chats remembered, and store
    /// nothing).
    pub protocol_memory: Option<CatalogCache>,
    /// The spill store's directory (normally `<cache>/mcp-resources`): a big binary blob of a
    /// stdio server's `resources/read` is written there while it arrives, instead of being held
    /// in memory until it is rendered. `None`: held in memory.
    pub blob_dir: Option<std::path::PathBuf>,
}

impl Default for RuntimeOptions {
    fn default() -> Self {
        RuntimeOptions {
            client: ClientIdentity::default(),
            elicitation: Arc::new(DeclineElicitation),
            sampling: None,
            roots: None,
            server_log: Arc::new(NoServerLog),
            mcp_log_level: McpLogLevel::default(),
            max_message_bytes: MAX_MESSAGE_BYTES,
            shutdown: ShutdownTimeouts::DEFAULT,
            auth: AuthOptions::default(),
            catalog_cache: None,
            protocol: ProtocolRevisions::default(),
            protocol_memory: None,
            blob_dir: None,
        }
    }
}

impl RuntimeOptions {
    /// The hooks every connection's client handler gets.
    pub(crate) fn hooks(&self) -> ClientHooks {
        ClientHooks {
            identity: self.client.clone(),
            elicitation: self.elicitation.clone(),
            sampling: self.sampling.clone(),
            roots: self.roots.clone(),
            server_log: self.server_log.clone(),
            log_level: self.mcp_log_level,
        }
    }
}

impl std::fmt::Debug for RuntimeOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RuntimeOptions")
            .field("client", &self.client)
            .field("sampling", &self.sampling.is_some())
            .field("roots", &self.roots)
            .field("mcp_log_level", &self.mcp_log_level)
            .field("max_message_bytes", &self.max_message_bytes)
            .field("shutdown", &self.shutdown)
            .field("auth", &self.auth)
            .field("catalog_cache", &self.catalog_cache)
            .field("protocol", &self.protocol)
            .field("protocol_memory", &self.protocol_memory)
            .finish_non_exhaustive()
    }
}
