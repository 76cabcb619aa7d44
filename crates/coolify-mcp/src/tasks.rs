//! MCP tasks (the `io.modelcontextprotocol/tasks` extension): this process's task store (rmcp's
//! `TaskManager`), who may see each task, and the task body that follows the Coolify
//! deployments a tool call started — reporting their status, cancelling them in Coolify on
//! `tasks/cancel`, and settling with the answer the blocking call gives.
//!
//! Top floor beside `call` (which starts tasks) and `server` (which answers `tasks/get`,
//! `tasks/update` and `tasks/cancel`); it imports the tools and `follow`, never `call`,
//! `server` or `shared`.
//!
//! Invariants:
//! - a task is visible only to the caller that created it (same OAuth client, same signed-in
//!   user); to anyone else it does not exist (-32602, as an unknown id);
//! - the follow-up reaches Coolify through the call's own client, so under a sign-in it sends
//!   the user's token;
//! - a completed task's `result` is built by the same code as the blocking call's answer
//!   ([`tool_result`]), so the two are byte-equal;
//! - `tasks/cancel` cancels the call's deployments in Coolify; the task settles `cancelled`
//!   once Coolify accepted a cancel, and otherwise keeps following to its natural end.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use rmcp::ErrorData;
use rmcp::model::{
    CallToolResult, ContentBlock, CreateTaskResult, GetTaskResult, InputResponses, Notification,
    ServerNotification, TaskStatusNotificationParams,
};
use rmcp::service::{Peer, RoleServer};
use rmcp::task_manager::{TaskContext, TaskExit, TaskManager, TaskOptions};
use serde_json::Value;

use crate::backend::{ApiError, HttpMethod, Path};
use crate::call_ctx::Mode;
use crate::follow::{Pending, terminal};
use crate::instances::Client;
use crate::projection::str_of;
use crate::tools::{self, ToolError};

/// How long a settled task stays readable: its TTL is the follow deadline plus this.
const RETENTION: Duration = Duration::from_secs(600);

/// Tasks following Coolify at once; past it a call answers as it does without the extension
/// (each running task polls Coolify every interval).
pub const MAX_RUNNING: usize = 256;

/// How often, and how many times, the settled-task notification checks that the store has
/// recorded the final state (it is recorded right after the task body returns).
const SETTLE_CHECK: Duration = Duration::from_millis(10);
const SETTLE_CHECKS: u32 = 500;

/// The answer of a tool call from its rendered text: `isError` only when Coolify could not be
/// reached (the reference omits the field on every handler answer).
pub fn tool_result(text: String, unreachable: bool) -> CallToolResult {
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    result.is_error = unreachable.then_some(true);
    result
}

/// A handler's outcome as the call renders it (`Error: …` text for a failure).
fn rendered(r: Result<tools::ToolOutput, ToolError>) -> CallToolResult {
    match r {
        Ok(out) => tool_result(out.render(), false),
        Err(e) => {
            let unreachable = matches!(&e, ToolError::Api(api) if api.unreachable);
            tool_result(format!("Error: {e}"), unreachable)
        }
    }
}

/// Who created a task: a digest of the OAuth client id and the signed-in user's token (both
/// absent without OAuth, so every caller of an unauthenticated server is the same owner).
#[derive(Clone, PartialEq, Eq)]
pub struct Owner(Vec<u8>);

impl std::fmt::Debug for Owner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Owner(<digest>)")
    }
}

impl Owner {
    /// The owner of a request made under `client_id` by the user whose token is `user_token`.
    pub fn new(client_id: Option<&str>, user_token: Option<&str>) -> Self {
        use sha2::{Digest, Sha256};
        let mut h = Sha256::new();
        for part in [client_id, user_token] {
            match part {
                Some(p) => {
                    h.update([1u8]);
                    h.update((p.len() as u64).to_be_bytes());
                    h.update(p.as_bytes());
                }
                None => h.update([0u8]),
            }
        }
        Self(h.finalize().to_vec())
    }
}

/// What a task needs from the call that started it.
pub struct Follow {
    /// The call's Coolify client (the signed-in user's, under OAuth).
    pub client: Client,
    /// How often Coolify is asked (the `deploy` wait's poll interval).
    pub interval: Duration,
    /// The server's mode (`_actions` of the answer are filtered by it).
    pub mode: Mode,
    /// Who may read and cancel the task.
    pub owner: Owner,
    /// The session to send `notifications/tasks` on; `None` for a request without a session
    /// (2026-07-28, `--stateless`), whose client polls `tasks/get`.
    pub notify: Option<Peer<RoleServer>>,
}

/// The tasks of this process (in memory: a replica answers only for its own tasks).
#[derive(Default)]
pub struct TaskStore {
    manager: TaskManager,
    owners: Mutex<HashMap<String, Owner>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn unknown(id: &str) -> ErrorData {
    ErrorData::invalid_params(format!("unknown task: {id}"), None)
}

impl TaskStore {
    /// Start a task following `pending`; `answer` is the blocking call's answer (used as is
    /// unless the task builds a waited `deploy` answer). Readable through [`Self::get`] before
    /// this returns.
    pub fn start(
        &self,
        pending: Pending,
        answer: CallToolResult,
        follow: Follow,
    ) -> CreateTaskResult {
        let ttl = pending.deadline.saturating_add(RETENTION);
        let options = TaskOptions::new()
            .with_ttl_ms(u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX))
            .with_poll_interval_ms(
                u64::try_from(follow.interval.as_millis())
                    .unwrap_or(u64::MAX)
                    .max(1),
            )
            .with_status_message(format!("following {}", names(&pending.watch)));
        let owner = follow.owner.clone();
        let manager = self.manager.clone();
        let task = self.manager.spawn(options, move |ctx| {
            Box::pin(run(ctx, manager, pending, answer, follow))
        });
        let mut owners = lock(&self.owners);
        owners.retain(|id, _| self.manager.get_task(id).is_ok());
        owners.insert(task.task_id.clone(), owner);
        CreateTaskResult::new(task)
    }

    /// Whether [`MAX_RUNNING`] tasks are following Coolify (a new call then gets no task).
    pub fn full(&self) -> bool {
        self.manager.running_task_count() >= MAX_RUNNING
    }

    fn check(&self, id: &str, owner: &Owner) -> Result<(), ErrorData> {
        match lock(&self.owners).get(id) {
            Some(o) if o == owner => Ok(()),
            _ => Err(unknown(id)),
        }
    }

    /// `tasks/get`.
    pub fn get(&self, id: &str, owner: &Owner) -> Result<GetTaskResult, ErrorData> {
        self.check(id, owner)?;
        Ok(GetTaskResult::new(self.manager.get_task(id)?))
    }

    /// `tasks/update`: these tasks never ask for input, so responses are accepted and ignored.
    pub fn update(
        &self,
        id: &str,
        owner: &Owner,
        responses: InputResponses,
    ) -> Result<(), ErrorData> {
        self.check(id, owner)?;
        let responses = serde_json::to_value(responses)
            .ok()
            .and_then(|v| v.as_object().cloned())
            .unwrap_or_default();
        self.manager.update_task(id, responses)
    }

    /// `tasks/cancel`: acknowledged at once; the task cancels its deployments in Coolify.
    pub fn cancel(&self, id: &str, owner: &Owner) -> Result<(), ErrorData> {
        self.check(id, owner)?;
        self.manager.cancel_task(id)
    }
}

/// `dep-a` or `deployments dep-a, dep-b`.
fn names(uuids: &[String]) -> String {
    match uuids {
        [one] => format!("deployment {one}"),
        many => format!("deployments {}", many.join(", ")),
    }
}

/// Sends `notifications/tasks` with the state `tasks/get` would return, when there is a
/// session to send it on.
struct Notifier {
    peer: Option<Peer<RoleServer>>,
    manager: TaskManager,
    id: String,
}

impl Notifier {
    async fn send(&self) {
        let Some(peer) = &self.peer else { return };
        if let Ok(task) = self.manager.get_task(&self.id) {
            let params = TaskStatusNotificationParams::new(task);
            let note = ServerNotification::TaskStatusNotification(Notification::new(params));
            let _ = peer.send_notification(note).await;
        }
    }

    /// The final notification, once the store recorded the settled state (right after the
    /// task body returns).
    fn after_settle(self) {
        if self.peer.is_none() {
            return;
        }
        tokio::spawn(async move {
            for _ in 0..SETTLE_CHECKS {
                tokio::time::sleep(SETTLE_CHECK).await;
                match self.manager.get_task(&self.id) {
                    Ok(t) if t.status().is_terminal() => return self.send().await,
                    Ok(_) => {}
                    Err(_) => return,
                }
            }
        });
    }
}

/// How following ended.
enum Watched {
    /// All watched deployments are terminal, or the deadline passed: the first one's last
    /// state.
    Settled(Value),
    /// Coolify could not be read.
    Unreadable(ApiError),
    /// Coolify accepted a cancel.
    Cancelled,
}

async fn run(
    ctx: TaskContext,
    manager: TaskManager,
    pending: Pending,
    answer: CallToolResult,
    follow: Follow,
) -> Result<CallToolResult, TaskExit> {
    let notifier = Notifier {
        peer: follow.notify.clone(),
        manager,
        id: ctx.task_id().to_string(),
    };
    let watched = watch(&ctx, &notifier, &pending, &follow).await;
    let result = match (watched, &pending.deploy) {
        (Watched::Cancelled, _) => Err(TaskExit::Cancelled),
        (Watched::Unreadable(e), Some(_)) => Ok(rendered(Err(ToolError::Api(e)))),
        (Watched::Unreadable(e), None) => {
            ctx.set_status_message(format!("could not read a deployment: {e}"));
            Ok(answer)
        }
        (Watched::Settled(first), Some(wait)) => {
            let uuid = pending
                .watch
                .first()
                .map(String::as_str)
                .unwrap_or_default();
            let summary = tools::deploy_summary(&first, uuid, wait.timeout_s);
            Ok(rendered(Ok(tools::deploy_waited(
                follow.mode,
                summary,
                wait.additional.clone(),
            ))))
        }
        (Watched::Settled(_), None) => Ok(answer),
    };
    notifier.after_settle();
    result
}

fn settled(state: &Option<Value>) -> bool {
    state
        .as_ref()
        .is_some_and(|s| terminal(str_of(s, "status")))
}

/// `deployment dep-a: in_progress` or `deployments: dep-a finished, dep-b queued`.
fn status_message(states: &[(String, Option<Value>)]) -> String {
    let status = |s: &Option<Value>| {
        s.as_ref()
            .map(|v| str_of(v, "status").to_string())
            .unwrap_or_default()
    };
    match states {
        [(uuid, s)] => format!("deployment {uuid}: {}", status(s)),
        many => {
            let parts: Vec<String> = many
                .iter()
                .map(|(u, s)| format!("{u} {}", status(s)))
                .collect();
            format!("deployments: {}", parts.join(", "))
        }
    }
}

/// Poll the watched deployments until they settle, the deadline passes, or a cancel is
/// accepted by Coolify; the status message follows Coolify's statuses.
async fn watch(
    ctx: &TaskContext,
    notifier: &Notifier,
    pending: &Pending,
    follow: &Follow,
) -> Watched {
    let started = tokio::time::Instant::now();
    let mut states: Vec<(String, Option<Value>)> =
        pending.watch.iter().map(|u| (u.clone(), None)).collect();
    let mut message = String::new();
    let mut cancel_asked = false;
    loop {
        for (uuid, state) in states.iter_mut().filter(|(_, s)| !settled(s)) {
            match follow.client.get(Path::new("deployments").id(uuid)).await {
                Ok(v) => *state = Some(v),
                Err(e) => return Watched::Unreadable(e),
            }
        }
        let now = status_message(&states);
        if now != message {
            ctx.set_status_message(now.clone());
            notifier.send().await;
            message = now;
        }
        if states.iter().all(|(_, s)| settled(s)) || started.elapsed() >= pending.deadline {
            let first = states.into_iter().next().and_then(|(_, s)| s);
            return Watched::Settled(first.unwrap_or(Value::Null));
        }
        let sleep = tokio::time::sleep(follow.interval);
        if cancel_asked {
            sleep.await;
            continue;
        }
        tokio::select! {
            () = sleep => {}
            () = ctx.cancelled() => {
                cancel_asked = true;
                if cancel_in_coolify(ctx, &follow.client, pending, &states).await {
                    notifier.send().await;
                    return Watched::Cancelled;
                }
                notifier.send().await;
            }
        }
    }
}

/// `POST /deployments/{uuid}/cancel` for each of the call's deployments not known to be
/// terminal; whether Coolify accepted any. The status message says what happened.
async fn cancel_in_coolify(
    ctx: &TaskContext,
    client: &Client,
    pending: &Pending,
    states: &[(String, Option<Value>)],
) -> bool {
    let mut cancelled = Vec::new();
    let mut refused = Vec::new();
    for uuid in &pending.cancel {
        let known_done = states.iter().any(|(u, s)| u == uuid && settled(s));
        if known_done {
            continue;
        }
        let path = Path::new("deployments").id(uuid).lit("cancel");
        match client.write(HttpMethod::Post, path, None).await {
            Ok(_) => cancelled.push(uuid.clone()),
            Err(e) => refused.push(format!("{uuid}: {e}")),
        }
    }
    if cancelled.is_empty() {
        let why = if refused.is_empty() {
            "nothing left to cancel".to_string()
        } else {
            refused.join("; ")
        };
        ctx.set_status_message(format!("Coolify did not cancel ({why}); still following"));
        false
    } else {
        ctx.set_status_message(format!("cancelled in Coolify: {}", cancelled.join(", ")));
        true
    }
}

#[cfg(test)]
#[path = "tasks_tests.rs"]
mod tests;
