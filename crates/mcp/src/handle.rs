//! `ServerHandle`: the cheap, cloneable face of one Ready server. Every request goes through
//! [`ServerHandle::request`], which owns the request invariants:
//!
//! - every request has the server's call timeout, an *inactivity* timeout that a progress
//!   notification for that request resets and an open elicitation pauses
//!   ([`crate::activity`]; we own the timer, rmcp's cannot pause); when it fires we send
//!   `notifications/cancelled` and return [`McpError::Timeout`] naming the server and method;
//! - a request whose future is dropped (Ctrl-C) sends `notifications/cancelled` too;
//! - a request is never resent; results are read per item when rmcp cannot type them;
//! - rmcp errors are mapped to [`McpError`] here and nowhere else.
//!
//! The listing methods (`list_*`, `catalog`) are an `impl ServerHandle` block in
//! [`crate::listing`], built on [`ServerHandle::request`]; the handle never imports them. The
//! client-feature requests (log level, roots) are another, in `handle/client.rs`, and
//! `completion/complete` one in [`crate::completion`].

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use rmcp::Peer;
use rmcp::model::{
    CancelledNotificationParam, ClientRequest, GetPromptRequest, GetPromptRequestParams,
    ReadResourceRequest, ReadResourceRequestParams, RequestId, ServerResult,
};
use rmcp::service::{PeerRequestOptions, RoleClient};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tokio::sync::watch;

use crate::catalog::ToolInfo;
use crate::client_handler::{Generations, ListGenerations, ResourceVersion};
use crate::content::{PromptResult, ResourceContent, ToolCallOutcome};
use crate::convert;
use crate::error::{McpError, TimeoutPhase};
use crate::mrtr::InputResponder;
use crate::schema_check;
use crate::server::{McpServerFeatures, ServerInfo, ServerState, StateCell};

mod tool_call;

/// How long a failed request waits for the runtime to record why the server went away, so
/// the error can carry the reason (exit status, stderr tail) instead of "connection closed".
const FAILURE_REASON_WAIT: Duration = Duration::from_secs(2);
/// Bound on sending `notifications/cancelled` for an abandoned request.
const CANCEL_SEND_TIMEOUT: Duration = Duration::from_secs(2);

/// What a completion is for (`completion/complete` `ref`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", content = "value", rename_all = "snake_case")]
pub enum CompletionRef {
    /// A prompt argument: the prompt's name.
    Prompt(String),
    /// A resource-template variable: the template's `uriTemplate`.
    ResourceTemplate(String),
}

/// A connected server. Clones share one connection.
#[derive(Clone)]
pub struct ServerHandle {
    inner: Arc<HandleInner>,
}

struct HandleInner {
    name: String,
    peer: Peer<RoleClient>,
    info: ServerInfo,
    features: McpServerFeatures,
    call_timeout: Duration,
    generations: Arc<Generations>,
    state: Arc<StateCell>,
    ended: watch::Receiver<bool>,
    max_message_bytes: usize,
    /// Signs in with OAuth (auth errors mean needs-auth, not refused credentials).
    oauth: bool,
    /// `outputSchema` by tool name, from the latest full tool listing.
    output_schemas: std::sync::Mutex<BTreeMap<String, Option<Value>>>,
    /// The smallest `ttlMs` a list page sent (`u64::MAX`: none).
    list_ttl_ms: std::sync::atomic::AtomicU64,
    /// Answers `input_required` results (protocol 2026-07-28).
    inputs: Option<Arc<dyn InputResponder>>,
    /// The `subscriptions/listen` streams of watched resources (protocol 2026-07-28), by URI:
    /// sending on one stops its stream.
    listening:
        std::sync::Mutex<std::collections::HashMap<String, tokio::sync::oneshot::Sender<()>>>,
}

impl std::fmt::Debug for ServerHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerHandle")
            .field("name", &self.inner.name)
            .finish_non_exhaustive()
    }
}

/// Everything a handle is built from (one struct instead of a long parameter list).
pub(crate) struct HandleParts {
    pub(crate) name: String,
    pub(crate) peer: Peer<RoleClient>,
    pub(crate) transport: &'static str,
    pub(crate) pid: Option<u32>,
    pub(crate) call_timeout: Duration,
    pub(crate) generations: Arc<Generations>,
    pub(crate) state: Arc<StateCell>,
    /// `true` once the transport stopped delivering messages.
    pub(crate) ended: watch::Receiver<bool>,
    pub(crate) max_message_bytes: usize,
    pub(crate) oauth: bool,
    /// Answers `input_required` results (protocol 2026-07-28).
    pub(crate) inputs: Option<Arc<dyn InputResponder>>,
}

impl ServerHandle {
    pub(crate) fn new(parts: HandleParts) -> Self {
        let peer_info = parts.peer.peer_info();
        let mut info = convert::server_info(peer_info.as_deref(), parts.transport, parts.pid);
        // rmcp drops `capabilities.tasks`; the transport read it (`connect::task_tap`).
        info.capabilities.tasks = parts.generations.tasks.server_runs_tool_tasks();
        let features = McpServerFeatures {
            name: parts.name.clone(),
            tools: info.capabilities.tools,
            resources: info.capabilities.resources,
            prompts: info.capabilities.prompts,
            completions: info.capabilities.completions,
            skills: info.capabilities.skills,
            peer_info_missing: peer_info.is_none(),
            tasks: info.capabilities.tasks,
        };
        ServerHandle {
            inner: Arc::new(HandleInner {
                name: parts.name,
                peer: parts.peer,
                info,
                features,
                call_timeout: parts.call_timeout,
                generations: parts.generations,
                state: parts.state,
                ended: parts.ended,
                max_message_bytes: parts.max_message_bytes,
                oauth: parts.oauth,
                output_schemas: std::sync::Mutex::default(),
                list_ttl_ms: std::sync::atomic::AtomicU64::new(u64::MAX),
                inputs: parts.inputs,
                listening: std::sync::Mutex::default(),
            }),
        }
    }

    /// Records a list page's `ttlMs` hint (the smallest one wins).
    pub(crate) fn note_list_ttl(&self, ttl_ms: u64) {
        self.inner
            .list_ttl_ms
            .fetch_min(ttl_ms, std::sync::atomic::Ordering::AcqRel);
    }

    /// The smallest `ttlMs` freshness hint the server's list results carried, if any (how
    /// long its catalog may be cached; protocol 2026-07-28).
    pub fn list_ttl_ms(&self) -> Option<u64> {
        let ttl = self
            .inner
            .list_ttl_ms
            .load(std::sync::atomic::Ordering::Acquire);
        (ttl != u64::MAX).then_some(ttl)
    }

    /// How long a request may go without a sign of life before it times out.
    pub fn call_timeout(&self) -> Duration {
        self.inner.call_timeout
    }

    /// The server's configured name.
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// Feature flags from the live handshake.
    pub fn features(&self) -> McpServerFeatures {
        self.inner.features.clone()
    }

    /// What the server said about itself in the handshake.
    pub fn info(&self) -> ServerInfo {
        self.inner.info.clone()
    }

    /// Whether the connection negotiated protocol 2026-07-28 or later (no `initialize`
    /// handshake: per-request metadata, no `logging/setLevel`).
    pub fn speaks_2026(&self) -> bool {
        self.inner
            .info
            .protocol_version
            .as_deref()
            .is_some_and(|v| v >= "2026-07-28")
    }

    /// The server's current state (a handle outlives a crash; calls then fail with the reason).
    pub fn state(&self) -> ServerState {
        self.inner.state.get()
    }

    /// Waits until the server is no longer Ready (closed, failed, needs sign-in) and returns
    /// that state.
    pub async fn gone(&self) -> ServerState {
        let mut rx = self.inner.state.subscribe();
        match rx.wait_for(|s| *s != ServerState::Ready).await {
            Ok(state) => state.clone(),
            Err(_) => ServerState::Closed,
        }
    }

    /// Whether `other` is a clone of this handle (the same connection); a restarted server
    /// has a new handle, so caches keyed by connection start over.
    pub fn same_connection(&self, other: &ServerHandle) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// What the connection's handler observed (list generations, activity, updates).
    pub(crate) fn generations(&self) -> &Generations {
        &self.inner.generations
    }

    /// The connection's shared state, for work that outlives a borrow of the handle.
    pub(crate) fn shared_generations(&self) -> Arc<Generations> {
        self.inner.generations.clone()
    }

    /// What answers a server's questions inside a result (forms, consent), if anything.
    pub(crate) fn input_responder(&self) -> Option<&dyn InputResponder> {
        self.inner.inputs.as_deref()
    }

    /// The peer, for requests rmcp drives itself (`subscriptions/listen`).
    pub(crate) fn peer(&self) -> &Peer<RoleClient> {
        &self.inner.peer
    }

    /// The `subscriptions/listen` streams of watched resources, by URI.
    pub(crate) fn listening(
        &self,
    ) -> std::sync::MutexGuard<
        '_,
        std::collections::HashMap<String, tokio::sync::oneshot::Sender<()>>,
    > {
        self.inner
            .listening
            .lock()
            .unwrap_or_else(|p| p.into_inner())
    }

    /// How often each list changed since connecting (`list_changed` notifications).
    pub fn list_generations(&self) -> ListGenerations {
        self.inner.generations.snapshot()
    }

    /// How often `uri` was reported updated (`notifications/resources/updated`) since
    /// connecting: contents read under an older version may be stale.
    pub fn resource_version(&self, uri: &str) -> ResourceVersion {
        self.inner.generations.resource_version(uri)
    }

    /// `tools/call`. A result with `isError: true` is `Ok` with `is_error` set; JSON-RPC
    /// errors (unknown tool, bad arguments) are `Err(McpError::Rpc)`.
    ///
    /// A tool the server runs as an MCP task is called as one ([`crate::tasks`]) and waited
    /// for until it ends.
    pub async fn call_tool(
        &self,
        name: &str,
        args: Map<String, Value>,
    ) -> Result<ToolCallOutcome, McpError> {
        self.call_tool_within(name, args, None).await
    }

    /// [`Self::call_tool`], waiting at most `wait` for a tool that runs as a task: past it, the
    /// outcome says the task is still running ([`ToolCallOutcome::task`]) and the task goes on.
    pub async fn call_tool_within(
        &self,
        name: &str,
        args: Map<String, Value>,
        wait: Option<Duration>,
    ) -> Result<ToolCallOutcome, McpError> {
        let mut outcome = if self.calls_as_task(name) {
            self.call_tool_task(name, args, wait).await?
        } else {
            match self.call_tool_rounds(name, args.clone()).await {
                // The tasks extension: the server made the call a task.
                Ok(ServerResult::CreateTaskResult(created)) => {
                    let created = serde_json::to_value(&created).unwrap_or_default();
                    self.follow_extension_task(name, created, wait).await?
                }
                Ok(result) => convert::tool_outcome_from(result),
                // A tool that must run as a task, called before its listing was read on this
                // connection (a cached catalog): list, then call it as the listing says.
                Err(McpError::Rpc { code: -32601, .. })
                    if self.offers_tool_tasks()
                        && self.list_tools().await.is_ok()
                        && self.calls_as_task(name) =>
                {
                    self.call_tool_task(name, args, wait).await?
                }
                Err(e) => return Err(e),
            }
        };
        if outcome.task.as_ref().is_some_and(|t| !t.is_terminal()) {
            return Ok(outcome);
        }
        if let Some(structured) = &outcome.structured_content
            && let Some(schema) = self.output_schema(name).await
        {
            let problems = schema_check::check(&schema, structured);
            if !problems.is_empty() {
                let warning = format!(
                    "the structured content of tool `{name}` does not match the tool's \
                     outputSchema ({}); it is shown as the server sent it",
                    problems.join("; ")
                );
                tracing::warn!(server = %self.inner.name, tool = name, "{warning}");
                outcome.schema_warning = Some(warning);
            }
        }
        Ok(outcome)
    }

    /// Keeps the tools' `outputSchema`s of a full listing, for checking results.
    pub(crate) fn remember_output_schemas(&self, tools: &[ToolInfo]) {
        let mut schemas = self
            .inner
            .output_schemas
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        *schemas = tools
            .iter()
            .map(|t| (t.name.clone(), t.output_schema.clone()))
            .collect();
    }

    /// `resources/read`.
    pub async fn read_resource(&self, uri: &str) -> Result<Vec<ResourceContent>, McpError> {
        let params = ReadResourceRequestParams::new(uri);
        let request = ClientRequest::ReadResourceRequest(ReadResourceRequest::new(params));
        let result = self.request("resources/read", request).await?;
        Ok(convert::resource_contents_from(result))
    }

    /// `prompts/get`.
    pub async fn get_prompt(
        &self,
        name: &str,
        args: BTreeMap<String, String>,
    ) -> Result<PromptResult, McpError> {
        let args: Map<String, Value> = args
            .into_iter()
            .map(|(k, v)| (k, Value::String(v)))
            .collect();
        let params = GetPromptRequestParams::new(name).with_arguments(args);
        let request = ClientRequest::GetPromptRequest(GetPromptRequest::new(params));
        let result = self.request("prompts/get", request).await?;
        Ok(convert::prompt_result_from(result))
    }

    /// Sends one request with the call timeout; see the module invariants.
    pub(crate) async fn request(
        &self,
        method: &str,
        request: ClientRequest,
    ) -> Result<ServerResult, McpError> {
        let state = self.inner.state.get();
        if state == ServerState::NeedsAuth {
            return Err(McpError::NeedsAuth {
                server: self.inner.name.clone(),
            });
        }
        if state != ServerState::Ready {
            return Err(McpError::ServerNotReady {
                server: self.inner.name.clone(),
                state,
            });
        }
        // No rmcp timeout: the inactivity timer below is ours (see `crate::activity`).
        let sent = self
            .inner
            .peer
            .send_cancellable_request(request, PeerRequestOptions::no_options())
            .await;
        let handle = match sent {
            Ok(handle) => handle,
            Err(error) => return Err(self.map_error(method, error).await),
        };
        let mut guard = CancelOnDrop {
            peer: self.inner.peer.clone(),
            id: Some(handle.id.clone()),
            reason: "request abandoned by the caller",
        };
        let activity = &self.inner.generations.activity;
        let watch = activity.watch(handle.progress_token.clone());
        let timeout = self.inner.call_timeout;
        let result = tokio::select! {
            result = handle.await_response() => result,
            () = activity.expired(timeout, &watch) => {
                activity.mark_timed_out();
                // Tell the server before returning, not from a background task: a caller that
                // shuts the server down right after the error must not lose the cancellation.
                if let Some(id) = guard.id.take() {
                    let params = CancelledNotificationParam::new(Some(id), Some("request timeout".to_owned()));
                    let _ = tokio::time::timeout(CANCEL_SEND_TIMEOUT, self.inner.peer.notify_cancelled(params)).await;
                }
                return Err(McpError::Timeout {
                    server: self.inner.name.clone(),
                    phase: TimeoutPhase::Call {
                        method: method.to_owned(),
                    },
                    after: timeout,
                });
            }
        };
        guard.id = None;
        match result {
            Ok(result) => Ok(result),
            Err(error) => Err(self.map_error(method, error).await),
        }
    }
}

mod map_error;

/// Sends `notifications/cancelled` for a request whose caller went away.
mod client;

struct CancelOnDrop {
    peer: Peer<RoleClient>,
    id: Option<RequestId>,
    reason: &'static str,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let Some(id) = self.id.take() else { return };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let peer = self.peer.clone();
        let reason = self.reason;
        runtime.spawn(async move {
            let params = CancelledNotificationParam::new(Some(id), Some(reason.to_owned()));
            let _ = tokio::time::timeout(CANCEL_SEND_TIMEOUT, peer.notify_cancelled(params)).await;
        });
    }
}
