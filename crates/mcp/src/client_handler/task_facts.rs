//! What the transport read of the 2025-11-25 task wire (SEP-1686) that rmcp drops on
//! deserialisation: the server's `capabilities.tasks`, each tool's `execution.taskSupport`,
//! and which of the server's sampling/elicitation requests asked to run as a task. The
//! transports feed it raw messages ([`TaskFacts::tap`], from `crate::connect::task_tap`); the
//! handle and the client-task layer read it.
//!
//! Invariant: a message is parsed a second time only when it is small and carries the byte
//! sequence `"task` (initialize results, tool pages with `execution`, task-augmented
//! requests), so the per-call path pays one `memmem` scan; tool results and blobs are untouched.

use std::collections::HashMap;
use std::sync::Mutex;

use rmcp::model::RequestId;
use serde_json::Value;

/// Messages larger than this are not examined (initialize results, tool pages and server
/// requests are far smaller; tool results and blobs can be huge).
const TAP_MAX_BYTES: usize = 4 << 20;
/// Bound on remembered task-augmented server requests not yet taken by the shim.
const MAX_ASKED: usize = 256;

/// How a tool may be called as a task (`execution.taskSupport`; absent means forbidden).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TaskSupport {
    /// Never as a task.
    #[default]
    Forbidden,
    /// As a task or as a plain call.
    Optional,
    /// Only as a task (a plain call is refused).
    Required,
}

impl TaskSupport {
    fn parse(value: &str) -> Self {
        match value {
            "required" => TaskSupport::Required,
            "optional" => TaskSupport::Optional,
            _ => TaskSupport::Forbidden,
        }
    }
}

/// What the connection learned of the task wire (see the module docs).
#[derive(Debug, Default)]
pub(crate) struct TaskFacts {
    /// The server's `capabilities.tasks` from its `initialize` result.
    server: Mutex<Option<Value>>,
    /// `execution.taskSupport` by tool name, from tool listings.
    tools: Mutex<HashMap<String, TaskSupport>>,
    /// Server requests that asked to run as a task: id → the asked `ttl` (ms).
    asked: Mutex<HashMap<RequestId, Option<u64>>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl TaskFacts {
    /// Examines one raw incoming message (see the module invariants).
    pub(crate) fn tap(&self, raw: &[u8]) {
        if raw.len() > TAP_MAX_BYTES || memchr::memmem::find(raw, b"\"task").is_none() {
            return;
        }
        if let Ok(value) = serde_json::from_slice::<Value>(raw) {
            self.tap_value(&value);
        }
    }

    fn tap_value(&self, message: &Value) {
        if let Some(result) = message.get("result") {
            if result.get("protocolVersion").is_some()
                && let Some(caps) = result.get("capabilities")
            {
                *lock(&self.server) = caps.get("tasks").filter(|t| t.is_object()).cloned();
            }
            if let Some(tools) = result.get("tools").and_then(Value::as_array) {
                let mut known = lock(&self.tools);
                for tool in tools {
                    let Some(name) = tool.get("name").and_then(Value::as_str) else {
                        continue;
                    };
                    let support = tool
                        .pointer("/execution/taskSupport")
                        .and_then(Value::as_str)
                        .map(TaskSupport::parse)
                        .unwrap_or_default();
                    known.insert(name.to_owned(), support);
                }
            }
            return;
        }
        let method = message.get("method").and_then(Value::as_str);
        if !matches!(
            method,
            Some("sampling/createMessage" | "elicitation/create")
        ) {
            return;
        }
        let Some(task) = message.pointer("/params/task").filter(|t| t.is_object()) else {
            return;
        };
        let Some(id) = message
            .get("id")
            .and_then(|id| serde_json::from_value::<RequestId>(id.clone()).ok())
        else {
            return;
        };
        let mut asked = lock(&self.asked);
        if asked.len() >= MAX_ASKED {
            asked.clear();
        }
        asked.insert(id, task.get("ttl").and_then(Value::as_u64));
    }

    /// Whether the server accepts `tools/call` as a task (`tasks.requests.tools.call`).
    pub(crate) fn server_runs_tool_tasks(&self) -> bool {
        lock(&self.server)
            .as_ref()
            .is_some_and(|t| t.pointer("/requests/tools/call").is_some())
    }

    /// Whether the server lists its tasks (`tasks.list`).
    pub(crate) fn server_lists_tasks(&self) -> bool {
        lock(&self.server)
            .as_ref()
            .is_some_and(|t| t.get("list").is_some())
    }

    /// How `tool` may be called, per the latest listing that named it.
    pub(crate) fn tool_support(&self, tool: &str) -> TaskSupport {
        lock(&self.tools).get(tool).copied().unwrap_or_default()
    }

    /// Takes the task request of server request `id`: `Some(ttl)` when it asked for a task.
    pub(crate) fn take_asked(&self, id: &RequestId) -> Option<Option<u64>> {
        lock(&self.asked).remove(id)
    }
}

#[cfg(test)]
#[path = "task_facts_tests.rs"]
mod tests;
