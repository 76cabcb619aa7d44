//! The client-side handler of server requests and notifications (rmcp's `ClientHandler`,
//! installed on every connection by [`crate::connect`]): what we answer when a server asks or
//! tells us something.
//!
//! - Elicitation (form mode) goes to the embedder's [`ElicitationHook`]; the default declines.
//!   The product never accepts on the user's behalf (only the conformance shim does).
//! - Progress notifications restart the matching call's inactivity timeout, and an open
//!   elicitation pauses the timeouts of the connection's calls ([`crate::activity`]); the
//!   handler reports both to the shared [`crate::activity::CallActivity`].
//! - Logging messages become `tracing` events carrying the server name.
//! - `list_changed` notifications bump [`ListGenerations`], so catalog caches can tell they
//!   are stale; `resources/updated` bumps its own counter.
//! - roots: empty (we do not advertise the capability, and answer `roots/list` with none).
//!
//! rmcp marks logging as deprecated (SEP-2577) and renamed `ClientConfig`; the targeted
//! `#[allow(deprecated)]` below covers exactly those uses.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use futures::future::BoxFuture;
use rmcp::ClientHandler;
use rmcp::model::{
    ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult, ElicitationAction,
    ElicitationCapability, ErrorData, FormElicitationCapability, Implementation,
    ProgressNotificationParam, ProtocolVersion, ResourceUpdatedNotificationParam,
};
#[allow(deprecated)]
use rmcp::model::{LoggingLevel, LoggingMessageNotificationParam};
use rmcp::service::{NotificationContext, RequestContext, RoleClient};
use serde::{Deserialize, Serialize};

use crate::activity::CallActivity;

/// The protocol revision we ask for. rmcp's default (2026-07-28) fails older peers' checks; the
/// server may negotiate down and [`crate::ServerInfo::protocol_version`] shows the result.
pub const PROTOCOL_VERSION: &str = "2025-11-25";

/// A server's form elicitation, converted to our types.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ElicitationRequest {
    /// The configured name of the server asking.
    pub server: String,
    /// The server's message to the user.
    pub message: String,
    /// The `requestedSchema` object (flat properties of primitive/enum types).
    pub requested_schema: serde_json::Value,
}

/// The user's answer to an elicitation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum ElicitationResponse {
    /// Submit these values (must match the requested schema).
    Accept(serde_json::Map<String, serde_json::Value>),
    /// The user declined to answer.
    Decline,
    /// The user dismissed the question without choosing.
    Cancel,
}

/// Asks the user for the values a server requested. Implemented by the embedder (the REPL);
/// [`DeclineElicitation`] is the default.
pub trait ElicitationHook: Send + Sync + 'static {
    /// Asks the user; the future resolves with their answer.
    fn elicit(&self, request: ElicitationRequest) -> BoxFuture<'_, ElicitationResponse>;
}

/// Declines every elicitation (non-interactive runs and the default).
#[derive(Debug, Default, Clone, Copy)]
pub struct DeclineElicitation;

impl ElicitationHook for DeclineElicitation {
    fn elicit(&self, request: ElicitationRequest) -> BoxFuture<'_, ElicitationResponse> {
        tracing::info!(server = %request.server, "declined an elicitation (no interactive hook)");
        Box::pin(std::future::ready(ElicitationResponse::Decline))
    }
}

/// How often each list changed, per the server's `list_changed` notifications.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ListGenerations {
    /// `notifications/tools/list_changed` count.
    pub tools: u64,
    /// `notifications/resources/list_changed` count.
    pub resources: u64,
    /// `notifications/prompts/list_changed` count.
    pub prompts: u64,
    /// `notifications/resources/updated` count.
    pub resource_updates: u64,
}

impl ListGenerations {
    /// Changes of any kind; equal totals mean a cached catalog is still current.
    pub fn total(&self) -> u64 {
        self.tools + self.resources + self.prompts
    }
}

/// What the handler observed that the connection's handles need: list generations, and the
/// call activity (progress, open questions) their timeouts follow.
#[derive(Debug, Default)]
pub(crate) struct Generations {
    tools: AtomicU64,
    resources: AtomicU64,
    prompts: AtomicU64,
    resource_updates: AtomicU64,
    pub(crate) activity: CallActivity,
}

impl Generations {
    pub(crate) fn snapshot(&self) -> ListGenerations {
        ListGenerations {
            tools: self.tools.load(Ordering::Acquire),
            resources: self.resources.load(Ordering::Acquire),
            prompts: self.prompts.load(Ordering::Acquire),
            resource_updates: self.resource_updates.load(Ordering::Acquire),
        }
    }
}

/// Identity we send in `initialize`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientIdentity {
    /// `clientInfo.name`.
    pub name: String,
    /// `clientInfo.version`.
    pub version: String,
}

impl Default for ClientIdentity {
    fn default() -> Self {
        ClientIdentity {
            name: "coyote".to_owned(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
        }
    }
}

pub(crate) struct Handler {
    server: Arc<str>,
    info: ClientConfig,
    elicitation: Arc<dyn ElicitationHook>,
    generations: Arc<Generations>,
}

impl Handler {
    pub(crate) fn new(
        server: &str,
        identity: &ClientIdentity,
        elicitation: Arc<dyn ElicitationHook>,
    ) -> Self {
        let mut capabilities = ClientCapabilities::default();
        capabilities.elicitation =
            Some(ElicitationCapability::new().with_form(FormElicitationCapability::new()));
        let info = ClientConfig::new(
            capabilities,
            Implementation::new(identity.name.clone(), identity.version.clone()),
        )
        .with_protocol_version(ProtocolVersion::V_2025_11_25);
        Handler {
            server: Arc::from(server),
            info,
            elicitation,
            generations: Arc::default(),
        }
    }

    pub(crate) fn generations(&self) -> Arc<Generations> {
        self.generations.clone()
    }
}

impl ClientHandler for Handler {
    async fn create_elicitation(
        &self,
        params: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let (message, requested_schema) = match params {
            ElicitRequestParams::FormElicitationParams {
                message,
                requested_schema,
                ..
            } => {
                let schema = serde_json::to_value(&requested_schema)
                    .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
                (message, schema)
            }
            // We advertise form mode only; a URL request is declined, never opened.
            _ => return Ok(ElicitResult::new(ElicitationAction::Decline)),
        };
        let request = ElicitationRequest {
            server: self.server.to_string(),
            message,
            requested_schema,
        };
        // The calls of this connection do not time out while the user reads the question.
        let _open = self.generations.activity.question_opened();
        Ok(match self.elicitation.elicit(request).await {
            ElicitationResponse::Accept(content) => ElicitResult::new(ElicitationAction::Accept)
                .with_content(serde_json::Value::Object(content)),
            ElicitationResponse::Decline => ElicitResult::new(ElicitationAction::Decline),
            ElicitationResponse::Cancel => ElicitResult::new(ElicitationAction::Cancel),
        })
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.generations.activity.progress(&params.progress_token);
        tracing::debug!(
            server = %self.server,
            progress = params.progress,
            total = ?params.total,
            message = ?params.message,
            "MCP progress"
        );
    }

    #[allow(deprecated)]
    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let server = &*self.server;
        let logger = params.logger.as_deref().unwrap_or("");
        let data = match &params.data {
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        match params.level {
            LoggingLevel::Debug => tracing::debug!(server, logger, "{data}"),
            LoggingLevel::Info | LoggingLevel::Notice => tracing::info!(server, logger, "{data}"),
            LoggingLevel::Warning => tracing::warn!(server, logger, "{data}"),
            _ => tracing::error!(server, logger, "{data}"),
        }
    }

    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        tracing::debug!(server = %self.server, uri = %params.uri, "MCP resource updated");
        self.generations
            .resource_updates
            .fetch_add(1, Ordering::AcqRel);
    }

    async fn on_resource_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.generations.resources.fetch_add(1, Ordering::AcqRel);
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.generations.tools.fetch_add(1, Ordering::AcqRel);
    }

    async fn on_prompt_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.generations.prompts.fetch_add(1, Ordering::AcqRel);
    }

    fn get_info(&self) -> ClientConfig {
        self.info.clone()
    }
}
