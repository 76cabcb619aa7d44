//! Databases: `list_databases`, `get_database` (with `reveal`) and
//! the `database` tool — create per engine, update, and the guarded move, delete, public
//! exposure and credential rotation.
//!
//! Invariants: nothing mutating is sent before the confirmation decision (summaries only
//! read); bodies are the supplied arguments in schema order, minus the routing keys; the
//! engine is chosen from the `type` enum, never interpolated from free text.

use serde_json::{Map, Value};

use super::{Args, ToolOutput, ToolResult, answer, fixed_summary, guarded};
use crate::backend::{ApiRequest, HttpMethod, Path};
use crate::call_ctx::CallCtx;
use crate::confirm::{delete_summary, move_summary, sanitize_for_prompt};
use crate::json::js_string;
use crate::projection::{self as proj, str_of};
use crate::sanitize::Reveal;

/// Credential fields whose change on `update` asks first (usernames too: consumers hold
/// both), in the reference's order.
pub const CREDENTIAL_FIELDS: &[&str] = &[
    "postgres_user",
    "postgres_password",
    "mysql_user",
    "mysql_root_password",
    "mysql_password",
    "mariadb_user",
    "mariadb_root_password",
    "mariadb_password",
    "mongo_initdb_root_username",
    "mongo_initdb_root_password",
    "redis_password",
    "keydb_password",
    "clickhouse_admin_user",
    "clickhouse_admin_password",
    "dragonfly_password",
];

/// Keys `PATCH /databases/{uuid}` rejects (create-only placement).
const CREATE_ONLY: &[&str] = &[
    "server_uuid",
    "project_uuid",
    "environment_name",
    "environment_uuid",
    "destination_uuid",
    "instant_deploy",
];

/// Engines `POST /databases/{type}` accepts (the schema's enum).
const ENGINES: &[&str] = &[
    "postgresql",
    "mysql",
    "mariadb",
    "mongodb",
    "redis",
    "keydb",
    "clickhouse",
    "dragonfly",
];

fn reveal_of(args: &Args) -> Reveal {
    if args.bool("reveal") == Some(true) {
        Reveal::Plaintext
    } else {
        Reveal::Masked
    }
}

pub async fn list_databases(args: &Args, ctx: &CallCtx<'_>) -> ToolResult {
    let paged = args.0.contains_key("page") || args.0.contains_key("per_page");
    let v = super::reads::list_databases_paged(&ctx.client, &args.paging(), paged).await?;
    Ok(ToolOutput::Json(match v {
        Value::Array(rows) => Value::Array(rows.iter().map(proj::database).collect()),
        other => other,
    }))
}

pub async fn get_database(args: &Args, ctx: &CallCtx<'_>) -> ToolResult {
    let path = Path::new("databases").id(args.str("uuid").unwrap_or_default());
    answer(
        ctx.client
            .send(ApiRequest::get(path), reveal_of(args))
            .await,
    )
}

/// Run one `database` action.
pub async fn database(args: &Args, ctx: &CallCtx<'_>) -> ToolResult {
    let uuid = args.nonempty("uuid");
    match args.str("action").unwrap_or_default() {
        "move" => move_database(args, ctx, uuid).await,
        "delete" => delete_database(args, ctx, uuid).await,
        "update" => update(args, ctx, uuid).await,
        _ => create(args, ctx).await,
    }
}

/// The database's name for a dialog (its uuid when it has none), and the row.
async fn named_db(ctx: &CallCtx<'_>, uuid: &str) -> Result<(String, Value), String> {
    let db = ctx
        .client
        .get(Path::new("databases").id(uuid))
        .await
        .map_err(|e| e.message)?;
    let name = Some(str_of(&db, "name"))
        .filter(|n| !n.is_empty())
        .unwrap_or(uuid)
        .to_string();
    Ok((name, db))
}

async fn move_database(args: &Args, ctx: &CallCtx<'_>, uuid: Option<&str>) -> ToolResult {
    let (Some(uuid), Some(target)) = (uuid, args.nonempty("environment_uuid")) else {
        return Ok(ToolOutput::guard(
            "Error: uuid, environment_uuid required. Find the target environment_uuid with the `environments` tool.",
        ));
    };
    let summary = async {
        let (name, db) = named_db(ctx, uuid).await?;
        let current = db.get("environment_uuid").and_then(Value::as_str);
        Ok(Some(move_summary("database", &name, uuid, target, current)))
    };
    let body = serde_json::json!({"environment_uuid": target});
    let path = Path::new("databases").id(uuid).lit("move");
    let op = async { answer(ctx.client.write(HttpMethod::Post, path, Some(body)).await) };
    guarded(ctx, "Move a database to another environment.", summary, op).await
}

async fn delete_database(args: &Args, ctx: &CallCtx<'_>, uuid: Option<&str>) -> ToolResult {
    let Some(uuid) = uuid else {
        return Ok(ToolOutput::guard("Error: uuid required"));
    };
    let volumes = args.bool("delete_volumes");
    let summary = async {
        let (name, _) = named_db(ctx, uuid).await?;
        Ok(Some(delete_summary("database", &name, uuid, volumes)))
    };
    let path = Path::new("databases")
        .id(uuid)
        .query_opt("delete_volumes", volumes.map(|b| b.to_string()));
    let op = async { answer(ctx.client.write(HttpMethod::Delete, path, None).await) };
    guarded(
        ctx,
        "Delete a database, and by default its persistent volumes.",
        summary,
        op,
    )
    .await
}

async fn update(args: &Args, ctx: &CallCtx<'_>, uuid: Option<&str>) -> ToolResult {
    let Some(uuid) = uuid else {
        return Ok(ToolOutput::guard("Error: uuid required"));
    };
    let mut skip = vec!["action", "type", "uuid", "delete_volumes"];
    skip.extend_from_slice(CREATE_ONLY);
    let data = args.without(&skip);
    if data.is_empty() {
        return Ok(ToolOutput::guard("Error: nothing to update"));
    }
    let exposing = data.get("is_public") == Some(&Value::Bool(true));
    let rotated: Vec<&str> = CREDENTIAL_FIELDS
        .iter()
        .copied()
        .filter(|k| data.contains_key(*k))
        .collect();
    let public_port = data.get("public_port").filter(|p| !p.is_null()).cloned();
    let path = Path::new("databases").id(uuid);
    let op = async {
        answer(
            ctx.client
                .write(HttpMethod::Patch, path, Some(Value::Object(data)))
                .await,
        )
    };
    if !exposing && rotated.is_empty() {
        return op.await;
    }
    let summary = async {
        let (name, db) = named_db(ctx, uuid).await?;
        let target = format!(
            "database \"{}\" ({})",
            sanitize_for_prompt(&name),
            sanitize_for_prompt(uuid)
        );
        let mut parts = Vec::new();
        if exposing {
            let port = public_port
                .or_else(|| db.get("public_port").filter(|p| !p.is_null()).cloned())
                .map_or("(assigned by Coolify)".to_string(), |p| js_string(&p));
            parts.push(format!("Expose {target} on public port {port}. It becomes reachable from outside the Docker network."));
        }
        if !rotated.is_empty() {
            let (verb, on) = if exposing {
                ("Also rotate", String::new())
            } else {
                ("Rotate", format!(" on {target}"))
            };
            parts.push(format!(
                "{verb} {}{on}. Every application using the current value loses its connection immediately.",
                rotated.join(", ")
            ));
        }
        Ok(Some(parts.join("\n\n")))
    };
    let label = if exposing {
        "Expose a database on a public port."
    } else {
        "Rotate database credentials."
    };
    guarded(ctx, label, summary, op).await
}

async fn create(args: &Args, ctx: &CallCtx<'_>) -> ToolResult {
    if args.0.get("public_port") == Some(&Value::Null) {
        return Ok(ToolOutput::guard(
            "Error: public_port cannot be null on create",
        ));
    }
    let engine = args
        .str("type")
        .and_then(|t| ENGINES.iter().copied().find(|e| *e == t));
    let (Some(engine), false) = (engine, args.any_missing(&["server_uuid", "project_uuid"])) else {
        return Ok(ToolOutput::guard(
            "Error: type, server_uuid, project_uuid required",
        ));
    };
    let data: Map<String, Value> = args.without(&["action", "type", "uuid", "delete_volumes"]);
    let public = data.get("is_public") == Some(&Value::Bool(true));
    let summary = format!(
        "Create {} database \"{}\" exposed on public port {}. It becomes reachable from outside the Docker network.",
        sanitize_for_prompt(engine),
        sanitize_for_prompt(
            data.get("name")
                .map_or("(unnamed)".to_string(), js_string)
                .as_str()
        ),
        data.get("public_port")
            .map_or("(assigned by Coolify)".to_string(), js_string)
    );
    let path = Path::new("databases").lit(engine);
    let op = async {
        answer(
            ctx.client
                .write(HttpMethod::Post, path, Some(Value::Object(data)))
                .await,
        )
    };
    if !public {
        return op.await;
    }
    guarded(
        ctx,
        "Create a database exposed on a public port.",
        fixed_summary(summary),
        op,
    )
    .await
}
