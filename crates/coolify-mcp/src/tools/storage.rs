//! Storage and backups: `storages` (volumes,
//! file mounts and volume-backup schedules for applications, databases and services) and
//! `database_backups` (scheduled database backups and their executions).
//!
//! Invariants: execution output (`message`) is command output from the box and reaches the
//! model only inside an untrusted boundary — one around a whole execution list, one around
//! a single execution's message; only `backup_delete` (it discards the archives) asks first.

use serde_json::Value;

use super::{Args, ToolError, ToolOutput, ToolResult, answer, fixed_summary, guarded};
use crate::backend::{HttpMethod, Path};
use crate::call_ctx::CallCtx;
use crate::confirm::sanitize_for_prompt;
use crate::untrusted;

const STORAGE_FIELDS: &[&str] = &[
    "type",
    "mount_path",
    "name",
    "host_path",
    "content",
    "is_directory",
    "fs_path",
    "is_preview_suffix_enabled",
];

const BACKUP_SCHEDULE: &[&str] = &[
    "frequency",
    "enabled",
    "save_s3",
    "disable_local_backup",
    "stop_during_backup",
    "s3_storage_uuid",
    "retention_amount_locally",
    "retention_days_locally",
    "retention_max_storage_locally",
    "retention_amount_s3",
    "retention_days_s3",
    "retention_max_storage_s3",
    "timeout",
];

/// The collection of a `resource` enum value.
pub(super) fn collection(resource: &str) -> &'static str {
    match resource {
        "database" => "databases",
        "service" => "services",
        _ => "applications",
    }
}

/// The reference's parameter guards, in its order; `Some(text)` refuses with nothing sent.
fn storage_guard(args: &Args, action: &str) -> Option<&'static str> {
    let has = |k: &str| args.truthy(k);
    if action == "create" && !(has("type") && has("mount_path")) {
        return Some("Error: type, mount_path required");
    }
    if action.starts_with("backup_") && !has("storage_uuid") {
        return Some("Error: storage_uuid required. List the storages first to find it.");
    }
    if action == "backup_set" && !has("frequency") {
        return Some(
            "Error: frequency required (cron, e.g. `0 2 * * *`). backup_set replaces the whole schedule, so send every field you want kept — Coolify has no endpoint to read the current one back.",
        );
    }
    if action == "update" && !(has("type") && has("storage_uuid")) {
        return Some("Error: type, storage_uuid required");
    }
    if action == "delete" && !has("storage_uuid") {
        return Some("Error: storage_uuid required");
    }
    None
}

/// Run one `storages` action.
pub async fn storages(args: &Args, ctx: &CallCtx<'_>) -> ToolResult {
    let action = args.str("action").unwrap_or_default();
    if let Some(text) = storage_guard(args, action) {
        return Ok(ToolOutput::guard(text));
    }
    let resource = args.str("resource").unwrap_or("application");
    let uuid = args.str("uuid").unwrap_or_default();
    let storage = args.str("storage_uuid").unwrap_or_default();
    let base = || Path::new(collection(resource)).id(uuid).lit("storages");
    let backups = || base().id(storage).lit("backups");
    let client = &ctx.client;
    match action {
        "list" => answer(client.get(base()).await),
        "create" => {
            let body = args.pick(STORAGE_FIELDS);
            answer(client.write(HttpMethod::Post, base(), Some(body)).await)
        }
        "update" => {
            let mut body = serde_json::Map::new();
            body.insert("uuid".into(), Value::String(storage.to_string()));
            if let Value::Object(fields) = args.pick(&[
                "type",
                "mount_path",
                "name",
                "host_path",
                "content",
                "is_directory",
                "is_preview_suffix_enabled",
            ]) {
                body.extend(fields);
            }
            answer(
                client
                    .write(HttpMethod::Patch, base(), Some(Value::Object(body)))
                    .await,
            )
        }
        "delete" => answer(
            client
                .write(HttpMethod::Delete, base().id(storage), None)
                .await,
        ),
        "backup_set" => {
            let body = args.pick(BACKUP_SCHEDULE);
            answer(client.write(HttpMethod::Put, backups(), Some(body)).await)
        }
        "backup_run" => answer(
            client
                .write(HttpMethod::Post, backups().lit("run"), None)
                .await,
        ),
        "backup_delete" => {
            let summary = format!(
                "Delete the backup schedule for storage {} on {resource} {}?\n\nIts local and S3 archives are deleted with it, so existing backups of this volume are gone and cannot be restored. Stopping future backups without discarding the archives is `backup_set` with `enabled: false` instead. This cannot be undone.",
                sanitize_for_prompt(storage),
                sanitize_for_prompt(uuid)
            );
            let op = async { answer(client.write(HttpMethod::Delete, backups(), None).await) };
            guarded(
                ctx,
                "Delete a volume backup schedule and every archive it has taken.",
                fixed_summary(summary),
                op,
            )
            .await
        }
        other => Err(ToolError::Message(format!("Unknown action: {other}"))),
    }
}

/// A whole result inside one untrusted boundary (execution histories).
pub(super) fn untrusted_json(v: &Value) -> ToolOutput {
    ToolOutput::Text(untrusted::wrap(&crate::json::pretty(v)))
}

/// Run one `database_backups` action.
pub async fn database_backups(args: &Args, ctx: &CallCtx<'_>) -> ToolResult {
    let client = &ctx.client;
    let db = args.str("database_uuid").unwrap_or_default();
    let all = || Path::new("databases").id(db).lit("backups");
    let action = args.str("action").unwrap_or_default();
    let data = || {
        Value::Object(args.without(&["action", "database_uuid", "backup_uuid", "execution_uuid"]))
    };
    match action {
        "list_schedules" => return answer(client.get(all()).await),
        "create" if !args.truthy("frequency") => {
            return Ok(ToolOutput::guard("Error: frequency required"));
        }
        "create" => return answer(client.write(HttpMethod::Post, all(), Some(data())).await),
        _ => {}
    }
    let Some(backup) = args.nonempty("backup_uuid") else {
        return Ok(ToolOutput::guard(if action.ends_with("_execution") {
            "Error: backup_uuid, execution_uuid required"
        } else {
            "Error: backup_uuid required"
        }));
    };
    let one = || all().id(backup);
    match action {
        "get_schedule" => answer(client.get(one()).await),
        "update" => answer(client.write(HttpMethod::Patch, one(), Some(data())).await),
        "delete" => answer(client.write(HttpMethod::Delete, one(), None).await),
        "list_executions" => Ok(untrusted_json(&client.get(one().lit("executions")).await?)),
        "get_execution" | "delete_execution" => {
            let Some(exec) = args.nonempty("execution_uuid") else {
                return Ok(ToolOutput::guard(
                    "Error: backup_uuid, execution_uuid required",
                ));
            };
            let path = one().lit("executions").id(exec);
            if action == "delete_execution" {
                return answer(client.write(HttpMethod::Delete, path, None).await);
            }
            let mut row = client.get(path).await?;
            if let Some(Value::String(m)) = row.get_mut("message") {
                *m = untrusted::wrap(m);
            }
            Ok(ToolOutput::Json(row))
        }
        other => Err(ToolError::Message(format!("Unknown action: {other}"))),
    }
}
