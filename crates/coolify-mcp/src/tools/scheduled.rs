//! `scheduled_tasks`: CRUD and execution history for application and service
//! tasks, plus `run_once`, the composite that creates a throwaway every-minute task, waits
//! for its first finished execution and always deletes it again.
//!
//! Invariants: `wait_seconds` is range-checked before anything is created (it becomes a
//! poll count); the poll interval comes from [`crate::call_ctx::Timing`]; cleanup runs on
//! every path after a successful create; execution output is wrapped as untrusted.

use rand::Rng;
use serde_json::{Value, json};

use super::storage::untrusted_json;
use super::{Args, ToolError, ToolOutput, ToolResult, answer};
use crate::backend::{HttpMethod, Path};
use crate::call_ctx::CallCtx;
use crate::instances::Client;
use crate::untrusted;

/// Default poll budget of `run_once` (reference: 90 s).
pub const DEFAULT_RUN_ONCE_WAIT_SECS: f64 = 90.0;
/// Longest `run_once` poll budget accepted (one day).
pub const MAX_RUN_ONCE_WAIT_SECS: f64 = 86_400.0;

const TASK_FIELDS: &[&str] = &[
    "name",
    "command",
    "frequency",
    "container",
    "timeout",
    "enabled",
];

/// Run one `scheduled_tasks` action.
pub async fn scheduled_tasks(args: &Args, ctx: &CallCtx<'_>) -> ToolResult {
    let coll = if args.str("resource") == Some("service") {
        "services"
    } else {
        "applications"
    };
    let uuid = args.str("uuid").unwrap_or_default();
    let tasks = || Path::new(coll).id(uuid).lit("scheduled-tasks");
    let client = &ctx.client;
    let action = args.str("action").unwrap_or_default();
    match action {
        "list" => return answer(client.get(tasks()).await),
        "create" if args.any_missing(&["name", "command", "frequency"]) => {
            return Ok(ToolOutput::guard(
                "Error: name, command, frequency required",
            ));
        }
        "create" => {
            let body = args.pick(TASK_FIELDS);
            return answer(client.write(HttpMethod::Post, tasks(), Some(body)).await);
        }
        "run_once" => return run_once(args, ctx, tasks()).await,
        _ => {}
    }
    let Some(task) = args.nonempty("task_uuid") else {
        return Ok(ToolOutput::guard("Error: task_uuid required"));
    };
    let one = tasks().id(task);
    match action {
        "update" => answer(
            client
                .write(HttpMethod::Patch, one, Some(args.pick(TASK_FIELDS)))
                .await,
        ),
        "delete" => answer(client.write(HttpMethod::Delete, one, None).await),
        "list_executions" => Ok(untrusted_json(&client.get(one.lit("executions")).await?)),
        other => Err(ToolError::Message(format!("Unknown action: {other}"))),
    }
}

/// `oneoff-` and 8 random base-36 characters.
fn oneoff_name() -> String {
    const DIGITS: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut rng = rand::rng();
    let tail: String = (0..8)
        .map(|_| char::from(DIGITS[rng.random_range(0..DIGITS.len())]))
        .collect();
    format!("oneoff-{tail}")
}

/// The poll budget in seconds, checked before it becomes a count.
fn wait_budget(args: &Args) -> Result<f64, String> {
    let secs = args
        .num("wait_seconds")
        .unwrap_or(DEFAULT_RUN_ONCE_WAIT_SECS);
    if secs.is_finite() && secs <= MAX_RUN_ONCE_WAIT_SECS {
        Ok(secs)
    } else {
        Err(format!(
            "Error: wait_seconds must be at most {MAX_RUN_ONCE_WAIT_SECS} (one day); nothing was created."
        ))
    }
}

/// How the poll loop ended.
enum Polled {
    Finished(Value),
    TimedOut,
    Failed(String),
}

async fn run_once(args: &Args, ctx: &CallCtx<'_>, tasks: Path) -> ToolResult {
    let (Some(command), Some(container)) = (args.nonempty("command"), args.nonempty("container"))
    else {
        return Ok(ToolOutput::guard("Error: command, container required"));
    };
    let budget = match wait_budget(args) {
        Ok(b) => b,
        Err(text) => return Ok(ToolOutput::Text(text)),
    };
    // Checked above: finite and at most a day, so the count fits comfortably.
    let interval = ctx.timing.task_poll_interval.as_secs_f64().max(0.001);
    let attempts = ((budget / 5.0).ceil().max(1.0)) as u64;
    let mut body = serde_json::Map::new();
    body.insert("name".into(), json!(oneoff_name()));
    body.insert("command".into(), json!(command));
    body.insert("frequency".into(), json!("* * * * *"));
    body.insert("container".into(), json!(container));
    if let Some(t) = args.0.get("timeout") {
        body.insert("timeout".into(), t.clone());
    }
    body.insert("enabled".into(), json!(true));
    let client = &ctx.client;
    let created = client
        .write(HttpMethod::Post, tasks.clone(), Some(Value::Object(body)))
        .await;
    let task = match created {
        Ok(t) => crate::json::js_string(t.get("uuid").unwrap_or(&json!("undefined"))),
        Err(e) => {
            return Ok(ToolOutput::Text(format!(
                "Error creating one-off task: {}",
                e.message
            )));
        }
    };
    let one = tasks.id(&task);
    let polled = poll(client, &one, attempts, interval, ctx).await;
    let cleanup = match client.write(HttpMethod::Delete, one, None).await {
        Ok(_) => format!("One-off task {task} deleted."),
        Err(e) => format!(
            "WARNING: failed to delete one-off task {task} — it will keep firing every minute until it is removed manually. Delete error: {}",
            e.message
        ),
    };
    Ok(match polled {
        Polled::Failed(m) => ToolOutput::Text(format!(
            "Error polling one-off task {task} executions: {m}. {cleanup}"
        )),
        Polled::TimedOut => ToolOutput::Text(format!(
            "Timed out after {}s waiting for one-off task {task} to produce an execution. {cleanup}",
            crate::json::compact(&json!(budget))
        )),
        Polled::Finished(exec) => {
            let message = match exec.get("message") {
                Some(Value::String(m)) => json!(untrusted::wrap(m)),
                Some(other) => other.clone(),
                None => Value::Null,
            };
            let mut out = serde_json::Map::new();
            if let Some(s) = exec.get("status") {
                out.insert("status".into(), s.clone());
            }
            if exec.get("message").is_some() {
                out.insert("message".into(), message);
            }
            out.insert("task_uuid".into(), json!(task));
            out.insert("cleanup".into(), json!(cleanup));
            ToolOutput::Json(Value::Object(out))
        }
    })
}

/// Poll the executions until the first one is no longer `running`.
async fn poll(
    client: &Client,
    task: &Path,
    attempts: u64,
    interval_secs: f64,
    ctx: &CallCtx<'_>,
) -> Polled {
    // Checked conversion (clippy.toml); the interval comes from a `Duration` already.
    let interval = std::time::Duration::try_from_secs_f64(interval_secs)
        .unwrap_or(std::time::Duration::from_millis(1));
    for attempt in 0..attempts {
        match client.get(task.clone().lit("executions")).await {
            Err(e) => return Polled::Failed(e.message),
            Ok(list) => {
                if let Some(first) = list.as_array().and_then(|l| l.first())
                    && crate::projection::truthy(first)
                    && first.get("status").and_then(Value::as_str) != Some("running")
                {
                    return Polled::Finished(first.clone());
                }
            }
        }
        if attempt + 1 < attempts {
            tokio::select! {
                _ = tokio::time::sleep(interval) => {}
                _ = ctx.cancel.cancelled() => return Polled::Failed("the tool call was cancelled".into()),
            }
        }
    }
    Polled::TimedOut
}
