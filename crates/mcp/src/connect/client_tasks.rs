//! Client-side MCP tasks (the 2025-11-25 task wire): a server may ask coyote to run its
//! sampling or elicitation request as a task (`params.task`, recorded by
//! [`super::task_tap`]); the request is then acknowledged at once with a task, answered in
//! the background by the connection's usual handler (consent, form, model), and the server
//! polls `tasks/get` and fetches `tasks/result` — which this layer answers itself.
//!
//! [`ClientTasks`] is a transport layer: a task request is passed on to rmcp under an id of
//! our own, and the handler's answer to that id is kept as the task's result instead of being
//! sent. `tasks/get`, `tasks/result` (held until the task ends), `tasks/list` and
//! `tasks/cancel` from the server never reach rmcp.
//!
//! Invariants: at most [`MAX_TASKS`] tasks are kept (the oldest ended ones go first); a
//! request that did not ask for a task passes through untouched; a cancelled task tells the
//! handler (`notifications/cancelled` for our id) and ignores the answer that may follow.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Arc;

use rmcp::model::{
    CancelledNotification, CancelledNotificationParam, ClientResult, CustomResult, ErrorCode,
    ErrorData, JsonRpcMessage, RequestId, ServerNotification, ServerRequest,
};
use rmcp::service::{RoleClient, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::{Value, json};

use crate::client_handler::Generations;

/// Most client-side tasks kept per connection.
pub(crate) const MAX_TASKS: usize = 64;
/// Suggested poll interval for the server (ms).
const POLL_INTERVAL_MS: u64 = 500;
/// The `_meta` key tying a result to its task.
const RELATED_TASK: &str = "io.modelcontextprotocol/related-task";

/// One task the server asked us to run.
struct ClientTask {
    status: &'static str,
    status_message: Option<String>,
    created_at: String,
    last_updated_at: String,
    ttl: Option<u64>,
    /// The id the request was passed to rmcp under.
    internal: RequestId,
    /// The handler's answer, once given.
    outcome: Option<Result<Value, ErrorData>>,
    /// `tasks/result` requests waiting for the end.
    waiting: Vec<RequestId>,
}

impl ClientTask {
    fn wire(&self, id: &str) -> Value {
        let mut task = json!({
            "taskId": id,
            "status": self.status,
            "createdAt": self.created_at,
            "lastUpdatedAt": self.last_updated_at,
            "ttl": self.ttl,
            "pollInterval": POLL_INTERVAL_MS,
        });
        if let Some(message) = &self.status_message {
            task["statusMessage"] = json!(message);
        }
        task
    }

    fn ended(&self) -> bool {
        self.status != "working"
    }
}

/// The transport layer that runs the server's task requests (see the module docs).
pub(crate) struct ClientTasks<T> {
    inner: T,
    generations: Arc<Generations>,
    tasks: BTreeMap<String, ClientTask>,
    next: u64,
    /// A cancelled task's request, for the handler to be told on the next receive.
    cancel_inward: Option<RequestId>,
}

impl<T> ClientTasks<T> {
    pub(crate) fn new(inner: T, generations: Arc<Generations>) -> Self {
        ClientTasks {
            inner,
            generations,
            tasks: BTreeMap::new(),
            next: 0,
            cancel_inward: None,
        }
    }
}

type Tx = TxJsonRpcMessage<RoleClient>;

impl<T: Transport<RoleClient>> ClientTasks<T> {
    /// Sends `message` from the receive side without waiting for the write.
    fn reply(&mut self, message: Tx) {
        let sending = self.inner.send(message);
        tokio::spawn(async move {
            let _ = sending.await;
        });
    }

    fn answer(&mut self, id: RequestId, result: Result<Value, ErrorData>) {
        let message = match result {
            Ok(value) => {
                JsonRpcMessage::response(ClientResult::CustomResult(CustomResult(value)), id)
            }
            Err(error) => JsonRpcMessage::error(error, Some(id)),
        };
        self.reply(message);
    }

    /// A sampling/elicitation request that asked for a task: acknowledged now, passed on under
    /// our id. Returns the message rmcp gets.
    fn start(
        &mut self,
        id: RequestId,
        ttl: Option<u64>,
        mut message: RxJsonRpcMessage<RoleClient>,
    ) -> RxJsonRpcMessage<RoleClient> {
        self.make_room();
        self.next += 1;
        let task_id = format!("coyote-{}-{}", std::process::id(), self.next);
        let internal = RequestId::String(format!("coyote-task:{task_id}").into());
        let now = now_iso8601();
        let task = ClientTask {
            status: "working",
            status_message: None,
            created_at: now.clone(),
            last_updated_at: now,
            ttl,
            internal: internal.clone(),
            outcome: None,
            waiting: Vec::new(),
        };
        let ack = json!({ "task": task.wire(&task_id) });
        self.tasks.insert(task_id, task);
        self.answer(id, Ok(ack));
        if let JsonRpcMessage::Request(request) = &mut message {
            request.id = internal;
        }
        message
    }

    fn make_room(&mut self) {
        while self.tasks.len() >= MAX_TASKS {
            let oldest = self
                .tasks
                .iter()
                .find(|(_, t)| t.ended())
                .or_else(|| self.tasks.iter().next())
                .map(|(id, _)| id.clone());
            match oldest {
                Some(id) => {
                    self.tasks.remove(&id);
                }
                None => break,
            }
        }
    }

    /// A `tasks/*` request of the server, answered here.
    fn serve(&mut self, id: RequestId, method: &str, params: &Value) {
        if method == "tasks/list" {
            let tasks: Vec<Value> = self.tasks.iter().map(|(k, t)| t.wire(k)).collect();
            self.answer(id, Ok(json!({ "tasks": tasks })));
            return;
        }
        let task_id = params.get("taskId").and_then(Value::as_str).unwrap_or("");
        let Some(task) = self.tasks.get_mut(task_id) else {
            let error = ErrorData::new(
                ErrorCode::INVALID_PARAMS,
                format!("Task not found: {task_id}"),
                None,
            );
            self.answer(id, Err(error));
            return;
        };
        match method {
            "tasks/get" => {
                let wire = task.wire(task_id);
                self.answer(id, Ok(wire));
            }
            "tasks/result" if !task.ended() => task.waiting.push(id),
            "tasks/result" => {
                let result = result_of(task_id, task);
                self.answer(id, result);
            }
            _ => {
                if task.ended() {
                    let error = ErrorData::new(
                        ErrorCode::INVALID_PARAMS,
                        format!("Cannot cancel task in terminal status: {}", task.status),
                        None,
                    );
                    self.answer(id, Err(error));
                    return;
                }
                task.status = "cancelled";
                task.status_message = Some("The server cancelled the task.".to_owned());
                task.last_updated_at = now_iso8601();
                let wire = task.wire(task_id);
                let internal = task.internal.clone();
                self.finish_waiting(task_id.to_owned());
                self.answer(id, Ok(wire));
                self.cancel_inward = Some(internal);
            }
        }
    }

    /// Answers the `tasks/result` requests waiting for `task_id`.
    fn finish_waiting(&mut self, task_id: String) {
        let Some(task) = self.tasks.get_mut(&task_id) else {
            return;
        };
        let waiting = std::mem::take(&mut task.waiting);
        let result = result_of(&task_id, task);
        for id in waiting {
            self.answer(id, result.clone());
        }
    }

    /// Keeps the handler's answer to our id as its task's result; `false` when `id` is not a
    /// task's (the answer goes to the server as usual).
    fn settle(&mut self, id: &RequestId, outcome: Result<Value, ErrorData>) -> bool {
        let Some((task_id, task)) = self.tasks.iter_mut().find(|(_, t)| &t.internal == id) else {
            return false;
        };
        if task.ended() {
            return true;
        }
        task.status = if outcome.is_ok() {
            "completed"
        } else {
            "failed"
        };
        if let Err(error) = &outcome {
            task.status_message = Some(error.message.to_string());
        }
        task.last_updated_at = now_iso8601();
        task.outcome = Some(outcome);
        let task_id = task_id.clone();
        self.finish_waiting(task_id);
        true
    }
}

/// What `tasks/result` answers for an ended task.
fn result_of(task_id: &str, task: &ClientTask) -> Result<Value, ErrorData> {
    match &task.outcome {
        Some(Ok(result)) => {
            let mut result = result.clone();
            if let Value::Object(map) = &mut result {
                let meta = map.entry("_meta").or_insert_with(|| json!({}));
                if let Value::Object(meta) = meta {
                    meta.insert(RELATED_TASK.into(), json!({ "taskId": task_id }));
                }
            }
            Ok(result)
        }
        Some(Err(error)) => Err(error.clone()),
        None => Err(ErrorData::new(
            ErrorCode::INVALID_REQUEST,
            format!(
                "task {task_id} was {} before it produced a result",
                task.status
            ),
            None,
        )),
    }
}

/// The server request methods this layer answers itself.
fn is_task_method(method: &str) -> bool {
    matches!(
        method,
        "tasks/get" | "tasks/result" | "tasks/list" | "tasks/cancel"
    )
}

impl<T: Transport<RoleClient>> Transport<RoleClient> for ClientTasks<T> {
    type Error = T::Error;

    fn send(&mut self, item: Tx) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let settled = match &item {
            JsonRpcMessage::Response(response) => {
                let value = serde_json::to_value(&response.result).unwrap_or(Value::Null);
                self.settle(&response.id, Ok(value))
            }
            JsonRpcMessage::Error(error) => match &error.id {
                Some(id) => self.settle(id, Err(error.error.clone())),
                None => false,
            },
            _ => false,
        };
        if settled {
            futures::future::Either::Left(futures::future::ready(Ok(())))
        } else {
            futures::future::Either::Right(self.inner.send(item))
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        loop {
            if let Some(internal) = self.cancel_inward.take() {
                let params = CancelledNotificationParam::new(
                    Some(internal),
                    Some("the server cancelled the task".to_owned()),
                );
                return Some(JsonRpcMessage::notification(
                    ServerNotification::CancelledNotification(CancelledNotification::new(params)),
                ));
            }
            let message = self.inner.receive().await?;
            let JsonRpcMessage::Request(request) = &message else {
                return Some(message);
            };
            match &request.request {
                ServerRequest::CreateMessageRequest(_) | ServerRequest::ElicitRequest(_) => {
                    if let Some(ttl) = self.generations.tasks.take_asked(&request.id) {
                        let id = request.id.clone();
                        return Some(self.start(id, ttl, message));
                    }
                }
                ServerRequest::CustomRequest(custom) if is_task_method(&custom.method) => {
                    let (id, method) = (request.id.clone(), custom.method.clone());
                    let params = custom.params.clone().unwrap_or(Value::Null);
                    self.serve(id, &method, &params);
                    continue;
                }
                _ => {}
            }
            return Some(message);
        }
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}

/// Now as an ISO 8601 UTC timestamp (`2026-12-05T09:30:00Z`).
pub(crate) fn now_iso8601() -> String {
    coyote_protocol::utc::UtcTime::now().rfc3339()
}

#[cfg(test)]
#[path = "client_tasks_tests.rs"]
mod tests;
