//! MCP tasks, client side (the 2025-11-25 task wire, SEP-1686, as the TypeScript SDK and
//! server-everything speak it): a tool the server marks `execution.taskSupport` `required`
//! (or `optional`) is called as a task when the server accepts `tools/call` as one
//! (`capabilities.tasks.requests.tools.call`). The call returns a task at once; coyote polls
//! `tasks/get` (at the server's `pollInterval`, bounded) and shows each status message as
//! the call's progress, fetches `tasks/result` once the task ends — or as soon as it asks for
//! input (`input_required`), so the server can deliver its question through that request —
//! and returns the result as the plain call would. Dropping the call (Ctrl-C) sends
//! `tasks/cancel`. `tasks/list`, `tasks/get`, `tasks/result` and `tasks/cancel` are also
//! methods of their own, for `coyote mcp tasks` and the model's task handle.
//!
//! Invariants:
//! - A task call waits at most `wait` (the model's turn budget); when that passes first, the
//!   outcome carries the task's latest state ([`ToolCallOutcome::task`]) and a text saying how
//!   to check it later, and the task keeps running on the server.
//! - Every request here is an ordinary request of [`ServerHandle::request`]: call timeout,
//!   cancellation on drop, errors mapped once.
//! - The poll interval is the server's, clamped to [`MIN_POLL`]..[`MAX_POLL`].
//! - A runtime's shutdown first waits (bounded) for the `tasks/cancel`s of abandoned calls, so
//!   Ctrl-C followed by exit still stops the work on the server.
//! - Two wires: the 2025-11-25 task-augmented call (`task` in `tools/call`, result from
//!   `tasks/result`, as server-everything speaks it) and the tasks extension
//!   (`io.modelcontextprotocol/tasks`, declared by every coyote connection: the server answers
//!   `resultType: "task"`, `tasks/get` carries the result or the task's questions, answered
//!   with `tasks/update`), as coolify-mcp's deployments speak it.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use rmcp::model::{ClientRequest, CustomRequest, ServerResult};
use serde_json::{Map, Value, json};
use tokio::sync::Notify;

pub use crate::client_handler::task_facts::TaskSupport;
pub use crate::content::TaskInfo;
use crate::content::{ContentItem, ToolCallOutcome};
use crate::convert;
use crate::error::McpError;
use crate::handle::ServerHandle;

/// Shortest wait between two `tasks/get` polls.
pub const MIN_POLL: Duration = Duration::from_millis(200);
/// Longest wait between two polls (status messages stay live).
pub const MAX_POLL: Duration = Duration::from_secs(5);
/// How long a task's result is asked to be kept after it ends (`task.ttl`).
const TASK_TTL_MS: u64 = 3_600_000;
/// Most `tasks/list` pages read.
const MAX_TASK_PAGES: usize = 100;

/// How long to wait before the next poll of `task`: the server's interval, within bounds.
fn poll_interval(task: &TaskInfo) -> Duration {
    task.poll_interval_ms
        .map_or(Duration::from_secs(1), Duration::from_millis)
        .clamp(MIN_POLL, MAX_POLL)
}

/// Where a task's result comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Wire {
    /// The 2025-11-25 task-augmented call: `tasks/result` once it ends.
    Augmented,
    /// The tasks extension (`io.modelcontextprotocol/tasks`): `tasks/get` carries it.
    Extension,
}

/// `tasks/cancel`s sent for abandoned task calls and not answered yet (process-wide), so a
/// runtime that shuts down right after Ctrl-C lets them reach the server first
/// ([`cancels_sent`]).
static PENDING_CANCELS: AtomicUsize = AtomicUsize::new(0);
static CANCEL_ANSWERED: Notify = Notify::const_new();

/// Waits (at most `bound`) until every `tasks/cancel` of an abandoned task call was answered.
pub(crate) async fn cancels_sent(bound: Duration) {
    let drained = async {
        loop {
            let answered = CANCEL_ANSWERED.notified();
            if PENDING_CANCELS.load(Ordering::Acquire) == 0 {
                return;
            }
            answered.await;
        }
    };
    let _ = tokio::time::timeout(bound, drained).await;
}

/// Sends `tasks/cancel` for a task call whose caller went away.
struct CancelTaskOnDrop {
    handle: Option<ServerHandle>,
    task_id: String,
}

impl Drop for CancelTaskOnDrop {
    fn drop(&mut self) {
        let Some(handle) = self.handle.take() else {
            return;
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let task_id = std::mem::take(&mut self.task_id);
        PENDING_CANCELS.fetch_add(1, Ordering::AcqRel);
        runtime.spawn(async move {
            if let Err(e) = handle.cancel_task(&task_id).await {
                tracing::debug!(server = %handle.name(), "tasks/cancel after Ctrl-C: {e}");
            }
            PENDING_CANCELS.fetch_sub(1, Ordering::AcqRel);
            CANCEL_ANSWERED.notify_waiters();
        });
    }
}

impl ServerHandle {
    /// Whether the server runs `tools/call` as tasks.
    pub fn offers_tool_tasks(&self) -> bool {
        self.generations().tasks.server_runs_tool_tasks()
    }

    /// Whether the server lists its tasks (`tasks/list`).
    pub fn lists_tasks(&self) -> bool {
        self.generations().tasks.server_lists_tasks()
    }

    /// How `tool` may be called (`execution.taskSupport` of the latest listing).
    pub fn tool_task_support(&self, tool: &str) -> TaskSupport {
        self.generations().tasks.tool_support(tool)
    }

    /// Whether a call of `tool` goes out as a task.
    pub(crate) fn calls_as_task(&self, tool: &str) -> bool {
        self.offers_tool_tasks() && self.tool_task_support(tool) != TaskSupport::Forbidden
    }

    async fn task_request(&self, method: &str, params: Value) -> Result<Value, McpError> {
        let params = match params {
            Value::Object(map) => Some(map),
            _ => None,
        };
        let request =
            ClientRequest::CustomRequest(CustomRequest::new(method, params.map(Value::Object)));
        let result = self.request(method, request).await?;
        Ok(match result {
            ServerResult::CustomResult(raw) => raw.0,
            other => serde_json::to_value(&other).unwrap_or(Value::Null),
        })
    }

    fn unreadable_task(&self, method: &str, answer: &Value) -> McpError {
        McpError::Protocol {
            server: self.name().to_owned(),
            method: method.to_owned(),
            message: format!(
                "the answer is not a task: {}",
                answer.to_string().chars().take(200).collect::<String>()
            ),
        }
    }

    /// `tasks/get`: the task's current state.
    pub async fn get_task(&self, task_id: &str) -> Result<TaskInfo, McpError> {
        let answer = self.get_task_raw(task_id).await?;
        TaskInfo::from_wire(&answer).ok_or_else(|| self.unreadable_task("tasks/get", &answer))
    }

    /// `tasks/get`, as answered (on the extension's wire it carries the result or questions).
    async fn get_task_raw(&self, task_id: &str) -> Result<Value, McpError> {
        self.task_request("tasks/get", json!({ "taskId": task_id }))
            .await
    }

    /// `tasks/cancel`: asks the server to stop the task; its state after the request.
    pub async fn cancel_task(&self, task_id: &str) -> Result<TaskInfo, McpError> {
        let answer = self
            .task_request("tasks/cancel", json!({ "taskId": task_id }))
            .await?;
        TaskInfo::from_wire(&answer).ok_or_else(|| self.unreadable_task("tasks/cancel", &answer))
    }

    /// `tasks/result` of a tool task: the tool's result, as the plain call returns it (the
    /// server holds the request until the task ends, delivering its questions meanwhile).
    /// On the extension's wire (no `tasks/result`) the result is read from `tasks/get`.
    pub async fn task_result(&self, task_id: &str) -> Result<ToolCallOutcome, McpError> {
        let request = ClientRequest::CustomRequest(CustomRequest::new(
            "tasks/result",
            Some(json!({ "taskId": task_id })),
        ));
        match self.request("tasks/result", request).await {
            Ok(result) => Ok(convert::tool_outcome_from(result)),
            Err(McpError::Rpc { code: -32601, .. }) => {
                let raw = self.get_task_raw(task_id).await?;
                match raw.get("result") {
                    Some(result) => Ok(convert::tool_outcome_raw(result.clone())),
                    None => Err(McpError::TaskEnded {
                        server: self.name().to_owned(),
                        what: format!(
                            "task {task_id} has no result (it is {})",
                            raw.get("status")
                                .and_then(Value::as_str)
                                .unwrap_or("unknown")
                        ),
                    }),
                }
            }
            Err(e) => Err(e),
        }
    }

    /// `tasks/list`, every page (a repeated cursor or too many pages end the listing).
    pub async fn list_tasks(&self) -> Result<Vec<TaskInfo>, McpError> {
        let mut tasks = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_TASK_PAGES {
            let params = match &cursor {
                Some(c) => json!({ "cursor": c }),
                None => json!({}),
            };
            let answer = self.task_request("tasks/list", params).await?;
            let page = answer.get("tasks").and_then(Value::as_array);
            let Some(page) = page else {
                return Err(self.unreadable_task("tasks/list", &answer));
            };
            tasks.extend(page.iter().filter_map(TaskInfo::from_wire));
            match answer.get("nextCursor").and_then(Value::as_str) {
                Some(next) if cursor.as_deref() != Some(next) => cursor = Some(next.to_owned()),
                _ => break,
            }
        }
        Ok(tasks)
    }

    /// `tools/call` as a task (see the module docs); `wait` bounds how long the caller waits
    /// for the result (`None`: until the task ends).
    pub(crate) async fn call_tool_task(
        &self,
        name: &str,
        args: Map<String, Value>,
        wait: Option<Duration>,
    ) -> Result<ToolCallOutcome, McpError> {
        let params = json!({ "name": name, "arguments": args, "task": { "ttl": TASK_TTL_MS } });
        let answer = self.task_request("tools/call", params).await?;
        let Some(task) = answer.get("task").and_then(TaskInfo::from_wire) else {
            // A server that ran it as a plain call after all: its answer is the result.
            return Ok(convert::tool_outcome_from(ServerResult::CustomResult(
                rmcp::model::CustomResult(answer),
            )));
        };
        self.follow(name, task, answer, wait, Wire::Augmented).await
    }

    /// A tool call the server answered with a task of the tasks extension (`resultType:
    /// "task"`): followed like [`Self::call_tool_task`]'s, its result read from `tasks/get`.
    pub(crate) async fn follow_extension_task(
        &self,
        name: &str,
        created: Value,
        wait: Option<Duration>,
    ) -> Result<ToolCallOutcome, McpError> {
        let Some(task) = TaskInfo::from_wire(&created) else {
            return Err(self.unreadable_task("tools/call", &created));
        };
        self.follow(name, task, created, wait, Wire::Extension)
            .await
    }

    /// Polls `task` until it ends (or `wait` passes), showing its status; `raw` is the latest
    /// answer about it (its result or questions, on the extension's wire).
    async fn follow(
        &self,
        name: &str,
        mut task: TaskInfo,
        mut raw: Value,
        wait: Option<Duration>,
        wire: Wire,
    ) -> Result<ToolCallOutcome, McpError> {
        let mut guard = CancelTaskOnDrop {
            handle: Some(self.clone()),
            task_id: task.task_id.clone(),
        };
        let started = tokio::time::Instant::now();
        let mut shown: Option<(String, Option<String>)> = None;
        loop {
            let now = (task.status.clone(), task.status_message.clone());
            if shown.as_ref() != Some(&now) {
                self.show_task_status(&task);
                shown = Some(now);
            }
            if task.is_terminal() || (task.status == "input_required" && wire == Wire::Augmented) {
                break;
            }
            if task.status == "input_required" {
                // The extension's questions are in the task; the answers go back with
                // `tasks/update`, and the task goes on.
                self.answer_task_input(&task.task_id, &raw).await?;
            } else if wait.is_some_and(|w| started.elapsed() >= w) {
                guard.handle = None;
                return Ok(self.still_running(name, task));
            } else {
                tokio::time::sleep(poll_interval(&task)).await;
            }
            raw = self.get_task_raw(&task.task_id).await?;
            task =
                TaskInfo::from_wire(&raw).ok_or_else(|| self.unreadable_task("tasks/get", &raw))?;
        }
        let outcome = match (task.status.as_str(), wire) {
            ("cancelled", _) | ("failed", Wire::Extension) => {
                Err(self.task_ended(name, &task, &raw))
            }
            (_, Wire::Augmented) => self.task_result(&task.task_id).await,
            (_, Wire::Extension) => match raw.get("result") {
                Some(result) => Ok(convert::tool_outcome_raw(result.clone())),
                None => Err(self.unreadable_task("tasks/get", &raw)),
            },
        };
        guard.handle = None;
        let mut outcome = outcome?;
        if wire == Wire::Augmented
            && let Ok(done) = self.get_task(&task.task_id).await
        {
            task = done;
        }
        outcome.task = Some(task);
        Ok(outcome)
    }

    /// The error of a task that ended without a result (cancelled, or failed on the
    /// extension's wire, whose `error` says why).
    fn task_ended(&self, tool: &str, task: &TaskInfo, raw: &Value) -> McpError {
        let reason = raw
            .pointer("/error/message")
            .and_then(Value::as_str)
            .or(task.status_message.as_deref());
        McpError::TaskEnded {
            server: self.name().to_owned(),
            what: format!(
                "task {} of tool `{tool}` {}{}",
                task.task_id,
                if task.status == "failed" {
                    "failed"
                } else {
                    "was cancelled"
                },
                reason.map(|r| format!(" ({r})")).unwrap_or_default()
            ),
        }
    }

    /// Answers the `inputRequests` of an extension task through the connection's handler
    /// (forms, consent) and sends them with `tasks/update`.
    async fn answer_task_input(&self, task_id: &str, raw: &Value) -> Result<(), McpError> {
        let requests = raw.get("inputRequests").cloned().unwrap_or(Value::Null);
        let needed: rmcp::model::InputRequiredResult = serde_json::from_value(
            json!({ "resultType": "input_required", "inputRequests": requests }),
        )
        .map_err(|e| {
            self.unreadable_task("tasks/get", &json!({ "inputRequests": e.to_string() }))
        })?;
        let Some(inputs) = self.input_responder() else {
            return Err(McpError::InputNotGiven {
                server: self.name().to_owned(),
                method: "tasks/get".to_owned(),
                reason: "the task asks for input and nothing here can answer".to_owned(),
            });
        };
        let peer = self.peer().clone();
        let (responses, _) = crate::mrtr::answer(self.name(), needed, |key, request| {
            inputs.respond(key, request, peer.clone())
        })
        .await?;
        let params = json!({ "taskId": task_id, "inputResponses": responses });
        self.task_request("tasks/update", params).await?;
        Ok(())
    }

    /// The task's status as the call's progress (what `crate::progress` observers see): no
    /// count (`progress` 0), the status and its message.
    fn show_task_status(&self, task: &TaskInfo) {
        if let Some(observer) = crate::progress::current() {
            let message = match &task.status_message {
                Some(m) => format!("task {}: {m}", task.status),
                None => format!("task {}", task.status),
            };
            observer(&crate::progress::ProgressUpdate {
                server: self.name().to_owned(),
                progress: 0.0,
                total: None,
                message: Some(message),
            });
        }
    }

    /// The outcome of a task call the caller stopped waiting for.
    fn still_running(&self, tool: &str, task: TaskInfo) -> ToolCallOutcome {
        let status = match &task.status_message {
            Some(m) => format!("{} ({m})", task.status),
            None => task.status.clone(),
        };
        let text = format!(
            "Tool `{tool}` is still running on server `{}` as task `{}`: {status}. Its result \
             stays with the server (`coyote mcp tasks {} result {}`).",
            self.name(),
            task.task_id,
            self.name(),
            task.task_id
        );
        ToolCallOutcome {
            content: vec![ContentItem::Text {
                text,
                annotations: None,
            }],
            structured_content: None,
            is_error: false,
            schema_warning: None,
            meta: None,
            task: Some(task),
        }
    }
}

#[cfg(test)]
#[path = "tasks_tests.rs"]
mod tests;
