//! The client-side handler of server requests and notifications (rmcp's `ClientHandler`,
//! installed on every connection by [`crate::connect`]): what we advertise in `initialize`
//! and what we answer when a server asks or tells us something. Each client feature has a
//! typed request/event and a hook the embedder implements, in its own file:
//!
//! - elicitation ([`elicitation`]): form and URL questions go to the [`ElicitationHook`]; the
//!   default declines. `notifications/elicitation/complete` is passed on to the hook.
//! - sampling ([`sampling`]): advertised (with `tools` when the hook's model can call tools)
//!   only with a [`SamplingHook`] and unless the server's entry says `"sampling": "never"`;
//!   the per-server limits are checked before the hook is asked.
//! - roots ([`roots`]): advertised with `listChanged` when the runtime has [`Roots`]; a server
//!   with its own `"roots"` gets those.
//! - logging ([`logging`]): every message goes to coyote's log (at `info` or above, so the
//!   default log level keeps them); those at or above the connection's threshold also go to
//!   the [`ServerLogSink`].
//! - progress restarts the matching call's inactivity timeout, and an open question (form,
//!   URL, sampling consent) pauses the timeouts of the connection's calls ([`crate::activity`]).
//! - `list_changed` notifications bump [`ListGenerations`], so catalog caches can tell they
//!   are stale; `resources/updated` bumps its own counter.
//!
//! rmcp marks sampling, roots and logging as deprecated (SEP-2577); the targeted
//! `#[expect(deprecated)]`s cover exactly those uses, and requests and results cross rmcp's
//! deprecated types through JSON.

pub mod elicitation;
pub mod logging;
pub mod roots;
pub mod sampling;
pub(crate) mod task_facts;
pub(crate) mod updates;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use coyote_protocol::ClientFeatureSettings;
use rmcp::ClientHandler;
use rmcp::model::{
    ClientCapabilities, ClientConfig, CustomNotification, ElicitRequestParams, ElicitResult,
    ElicitationAction, ErrorCode, ErrorData, Implementation, ProgressNotificationParam,
    ProtocolVersion, ResourceUpdatedNotificationParam,
};
#[expect(deprecated)]
use rmcp::model::{
    CreateMessageRequestParams, CreateMessageResult, ListRootsResult, LoggingLevel,
    LoggingMessageNotificationParam,
};
use rmcp::service::{NotificationContext, RequestContext, RoleClient};
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::activity::CallActivity;
pub use elicitation::{
    DeclineElicitation, ElicitationHook, ElicitationRequest, ElicitationResponse,
    UrlElicitationRequest,
};
use logging::{LogThreshold, log_text};
pub use logging::{McpLogLevel, NoServerLog, ServerLogMessage, ServerLogSink, UnknownLogLevel};
use roots::RootSource;
pub use roots::{RootEntry, Roots, file_uri, git_root};
pub use sampling::{
    SamplingContent, SamplingHook, SamplingMessage, SamplingRefusal, SamplingRequest,
    SamplingResponse, SamplingRole, SamplingStop, SamplingTool, SamplingToolChoice,
};
use sampling::{SamplingGate, request_from_wire, response_to_wire};

/// The protocol revision we ask for. rmcp's default (2026-07-28) fails older peers' checks; the
/// server may negotiate down and [`crate::ServerInfo::protocol_version`] shows the result.
pub const PROTOCOL_VERSION: &str = "2025-11-25";

/// The JSON-RPC error code of a sampling request the user (or a limit) refused (MCP spec).
const USER_REJECTED: i32 = -1;

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

/// What the handler observed and holds that the connection's handles need: list
/// generations, the call activity (progress, open questions) their timeouts follow, the log
/// threshold, and whether the connection follows the session's roots.
#[derive(Debug, Default)]
pub(crate) struct Generations {
    tools: AtomicU64,
    resources: AtomicU64,
    prompts: AtomicU64,
    resource_updates: AtomicU64,
    /// `resources/updated` per URI, for caches of resource contents.
    updated: std::sync::Mutex<UpdatedUris>,
    pub(crate) activity: CallActivity,
    pub(crate) log_threshold: LogThreshold,
    /// The server was offered the session's roots (and is told when they change).
    pub(crate) shared_roots: bool,
    /// Updated resource URIs, for the connection's watchers.
    pub(crate) updates: updates::ResourceUpdates,
    /// List changes of any kind, for the connection's watchers (the catalog cache's refresh).
    pub(crate) list_changes: updates::ListChanges,
    /// An HTTP server refused a new connection since its last good answer: it stopped or
    /// crashed (set by `connect::restart`, read when a response stream closes).
    pub(crate) unreachable: std::sync::atomic::AtomicBool,
    /// The last resumption of a broken HTTP response stream was answered "no such session":
    /// the server restarted while the request ran (set by `connect::restart`).
    pub(crate) session_lost: std::sync::atomic::AtomicBool,
    /// What the transport read of the task wire that rmcp drops (`connect::task_tap`).
    pub(crate) tasks: task_facts::TaskFacts,
}

/// URIs tracked per connection for `resources/updated`; beyond this many the table starts over
/// under a new epoch (every cached version becomes stale at once: safe, only slower).
pub const MAX_TRACKED_UPDATED_URIS: usize = 4096;

/// How often one URI was reported updated: compare two versions to know whether contents read
/// in between may be stale.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct ResourceVersion {
    epoch: u64,
    updates: u64,
}

#[derive(Debug, Default)]
struct UpdatedUris {
    epoch: u64,
    counts: std::collections::HashMap<String, u64>,
}

impl Generations {
    /// The version of `uri` (see [`ResourceVersion`]).
    pub(crate) fn resource_version(&self, uri: &str) -> ResourceVersion {
        let updated = self.updated.lock().unwrap_or_else(|p| p.into_inner());
        ResourceVersion {
            epoch: updated.epoch,
            updates: updated.counts.get(uri).copied().unwrap_or(0),
        }
    }

    fn note_updated(&self, uri: &str) {
        let mut updated = self.updated.lock().unwrap_or_else(|p| p.into_inner());
        if updated.counts.len() >= MAX_TRACKED_UPDATED_URIS && !updated.counts.contains_key(uri) {
            updated.counts.clear();
            updated.epoch += 1;
        }
        *updated.counts.entry(uri.to_owned()).or_insert(0) += 1;
    }

    /// `notifications/resources/updated` for `uri` (from the handler, or from a
    /// `subscriptions/listen` stream at protocol 2026-07-28).
    pub(crate) fn resource_updated(&self, uri: &str) {
        self.note_updated(uri);
        self.resource_updates.fetch_add(1, Ordering::AcqRel);
        self.updates.publish(uri);
    }

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

/// The embedder's hooks and switches, shared by every connection of a runtime.
#[derive(Clone)]
pub(crate) struct ClientHooks {
    pub(crate) identity: ClientIdentity,
    pub(crate) elicitation: Arc<dyn ElicitationHook>,
    pub(crate) sampling: Option<Arc<dyn SamplingHook>>,
    pub(crate) roots: Option<Roots>,
    pub(crate) server_log: Arc<dyn ServerLogSink>,
    pub(crate) log_level: McpLogLevel,
}

#[derive(Clone)]
pub(crate) struct Handler {
    server: Arc<str>,
    info: ClientConfig,
    elicitation: Arc<dyn ElicitationHook>,
    /// Present when sampling is advertised to this server.
    sampling: Option<(Arc<dyn SamplingHook>, Arc<SamplingGate>)>,
    roots: Option<RootSource>,
    server_log: Arc<dyn ServerLogSink>,
    generations: Arc<Generations>,
}

impl Handler {
    pub(crate) fn new(server: &str, hooks: &ClientHooks, settings: &ClientFeatureSettings) -> Self {
        let gate = SamplingGate::new(settings);
        let sampling = hooks
            .sampling
            .clone()
            .filter(|_| gate.enabled())
            .map(|hook| (hook, Arc::new(gate)));
        let roots = hooks.roots.clone().map(|shared| match &settings.roots {
            Some(own) => RootSource::Own(own.clone()),
            None => RootSource::Shared(shared),
        });
        let info = ClientConfig::new(
            capabilities(
                sampling.as_ref().map(|(hook, _)| hook.supports_tools()),
                roots.is_some(),
            ),
            Implementation::new(hooks.identity.name.clone(), hooks.identity.version.clone()),
        )
        .with_protocol_version(ProtocolVersion::V_2025_11_25);
        let generations = Generations {
            log_threshold: LogThreshold::new(hooks.log_level),
            shared_roots: matches!(roots, Some(RootSource::Shared(_))),
            ..Generations::default()
        };
        Handler {
            server: Arc::from(server),
            info,
            elicitation: hooks.elicitation.clone(),
            sampling,
            roots,
            server_log: hooks.server_log.clone(),
            generations: Arc::new(generations),
        }
    }

    pub(crate) fn generations(&self) -> Arc<Generations> {
        self.generations.clone()
    }

    async fn elicit_url(&self, request: UrlElicitationRequest) -> ElicitResult {
        let _open = self.generations.activity.question_opened();
        match self.elicitation.elicit_url(request).await {
            ElicitationResponse::Accept(_) => ElicitResult::new(ElicitationAction::Accept),
            ElicitationResponse::Decline => ElicitResult::new(ElicitationAction::Decline),
            ElicitationResponse::Cancel => ElicitResult::new(ElicitationAction::Cancel),
        }
    }
}

/// What we advertise: elicitation (form and URL) always; sampling when offered to this
/// server (`Some(tools)`); roots with `listChanged` when the runtime has roots; the tasks
/// extension (`io.modelcontextprotocol/tasks`) always.
fn capabilities(sampling_tools: Option<bool>, roots: bool) -> ClientCapabilities {
    let mut caps = json!({"elicitation": {"form": {}, "url": {}}});
    if let Some(tools) = sampling_tools {
        caps["sampling"] = if tools {
            json!({"tools": {}})
        } else {
            json!({})
        };
    }
    if roots {
        caps["roots"] = json!({"listChanged": true});
    }
    // MCP tasks (`crate::tasks`): a server may answer a tool call with a task to follow.
    caps["extensions"] = json!({ "io.modelcontextprotocol/tasks": {} });
    serde_json::from_value(caps).unwrap_or_default()
}

fn rejected(message: &str) -> ErrorData {
    ErrorData::new(ErrorCode(USER_REJECTED), message.to_owned(), None)
}

impl ClientHandler for Handler {
    #[expect(deprecated)]
    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        let Some((hook, gate)) = &self.sampling else {
            return Err(rejected(&format!(
                "coyote does not offer sampling to MCP server `{}`",
                self.server
            )));
        };
        let wire = serde_json::to_value(&params)
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        let request = request_from_wire(&self.server, &wire)
            .map_err(|bad| ErrorData::invalid_params(bad.0, None))?;
        if let Err(refusal) = gate.admit(&self.server, request.max_tokens, Instant::now()) {
            tracing::warn!(server = %self.server, "sampling refused: {}", refusal.message());
            return Err(rejected(refusal.message()));
        }
        // The calls of this connection do not time out while the user decides.
        let _open = self.generations.activity.question_opened();
        match hook.sample(request).await {
            Ok(response) => serde_json::from_value(response_to_wire(&response))
                .map_err(|e| ErrorData::internal_error(e.to_string(), None)),
            Err(SamplingRefusal::Declined(message)) => {
                tracing::info!(server = %self.server, "sampling declined: {message}");
                Err(rejected(&message))
            }
            Err(SamplingRefusal::Failed(message)) => {
                tracing::warn!(server = %self.server, "sampling failed: {message}");
                Err(ErrorData::internal_error(message, None))
            }
        }
    }

    #[expect(deprecated)]
    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        let entries = self
            .roots
            .as_ref()
            .map(RootSource::entries)
            .unwrap_or_default();
        tracing::debug!(server = %self.server, roots = entries.len(), "roots/list answered");
        serde_json::from_value(json!({ "roots": entries }))
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))
    }

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
            ElicitRequestParams::UrlElicitationParams {
                message,
                url,
                elicitation_id,
                ..
            } => {
                let request = UrlElicitationRequest {
                    server: self.server.to_string(),
                    message,
                    url,
                    elicitation_id,
                };
                return Ok(self.elicit_url(request).await);
            }
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

    async fn on_custom_notification(
        &self,
        notification: CustomNotification,
        _context: NotificationContext<RoleClient>,
    ) {
        if notification.method == "notifications/elicitation/complete" {
            let id = notification
                .params
                .as_ref()
                .and_then(|p| p.get("elicitationId"))
                .and_then(serde_json::Value::as_str)
                .unwrap_or_default();
            self.elicitation.url_completed(&self.server, id);
        } else {
            tracing::debug!(server = %self.server, method = %notification.method, "unknown notification");
        }
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let update = crate::progress::ProgressUpdate {
            server: self.server.to_string(),
            progress: params.progress,
            total: params.total,
            message: params.message.clone(),
        };
        self.generations
            .activity
            .progress_update(&params.progress_token, Some(&update));
        tracing::debug!(
            server = %self.server,
            progress = params.progress,
            total = ?params.total,
            message = ?params.message,
            "MCP progress"
        );
    }

    #[expect(deprecated)]
    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let server = &*self.server;
        let logger = params.logger.as_deref().unwrap_or("");
        let text = log_text(&params.data);
        let level = match params.level {
            LoggingLevel::Debug => McpLogLevel::Debug,
            LoggingLevel::Info => McpLogLevel::Info,
            LoggingLevel::Notice => McpLogLevel::Notice,
            LoggingLevel::Warning => McpLogLevel::Warning,
            LoggingLevel::Error => McpLogLevel::Error,
            LoggingLevel::Critical => McpLogLevel::Critical,
            LoggingLevel::Alert => McpLogLevel::Alert,
            LoggingLevel::Emergency => McpLogLevel::Emergency,
        };
        // Every message a server sends reaches coyote's log (at info or above, so the default
        // log level keeps them); `mcp_level` says what the server called it.
        let mcp_level = level.as_str();
        match level {
            McpLogLevel::Debug | McpLogLevel::Info | McpLogLevel::Notice => {
                tracing::info!(server, logger, mcp_level, "{text}");
            }
            McpLogLevel::Warning => tracing::warn!(server, logger, mcp_level, "{text}"),
            _ => tracing::error!(server, logger, mcp_level, "{text}"),
        }
        if level >= self.generations.log_threshold.get() {
            self.server_log.log(ServerLogMessage {
                server: server.to_owned(),
                level,
                logger: params.logger,
                text,
            });
        }
    }

    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        tracing::debug!(server = %self.server, uri = %params.uri, "MCP resource updated");
        self.generations.resource_updated(&params.uri);
    }

    async fn on_resource_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.generations.resources.fetch_add(1, Ordering::AcqRel);
        self.generations.list_changes.bump();
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.generations.tools.fetch_add(1, Ordering::AcqRel);
        self.generations.list_changes.bump();
    }

    async fn on_prompt_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.generations.prompts.fetch_add(1, Ordering::AcqRel);
        self.generations.list_changes.bump();
    }

    fn get_info(&self) -> ClientConfig {
        self.info.clone()
    }
}
