//! Services: `list_services`, `get_service` (with `reveal`) and the
//! `service` tool — containers, create/update, the guarded move, delete and forced domain
//! override, and the sub-application lifecycle.
//!
//! Invariants: `docker_compose_raw` is sent base64-encoded unless it already is (as the
//! reference does); nothing mutating is sent before the confirmation decision.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};

use super::{Args, ToolError, ToolOutput, ToolResult, answer, fixed_summary, guarded};
use crate::backend::{ApiRequest, HttpMethod, Path};
use crate::call_ctx::CallCtx;
use crate::confirm::{delete_summary, move_summary};
use crate::projection::{self as proj, str_of};
use crate::sanitize::Reveal;

const SUB_APP_GUARD: &str = "Error: uuid (service) and app_uuid required";

pub async fn list_services(args: &Args, ctx: &CallCtx<'_>) -> ToolResult {
    let v = ctx
        .client
        .get_query(Path::new("services"), &args.paging())
        .await?;
    Ok(ToolOutput::Json(if v.is_array() {
        proj::pick_all(&v, proj::SERVICE)
    } else {
        v
    }))
}

pub async fn get_service(args: &Args, ctx: &CallCtx<'_>) -> ToolResult {
    let reveal = if args.bool("reveal") == Some(true) {
        Reveal::Plaintext
    } else {
        Reveal::Masked
    };
    let path = Path::new("services").id(args.str("uuid").unwrap_or_default());
    answer(ctx.client.send(ApiRequest::get(path), reveal).await)
}

/// Base64 of `value` unless it already is canonical base64 of UTF-8 text (the reference's
/// round-trip test).
pub fn to_base64(value: &str) -> String {
    let already = STANDARD
        .decode(value)
        .ok()
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .is_some_and(|text| STANDARD.encode(text) == value);
    if already {
        value.to_string()
    } else {
        STANDARD.encode(value)
    }
}

/// A body of `keys` with a truthy `docker_compose_raw` base64-encoded.
fn compose_body(args: &Args, keys: &[&str]) -> Value {
    let mut body = args.pick(keys);
    if let Some(Value::String(raw)) = body.get_mut("docker_compose_raw")
        && !raw.is_empty()
    {
        *raw = to_base64(raw);
    }
    body
}

/// Run one `service` action.
pub async fn service(args: &Args, ctx: &CallCtx<'_>) -> ToolResult {
    let uuid = args.nonempty("uuid");
    let client = &ctx.client;
    match args.str("action").unwrap_or_default() {
        "list_containers" => {
            let Some(u) = uuid else {
                return Ok(ToolOutput::guard("Error: uuid required"));
            };
            let (apps, dbs) = futures::join!(
                client.get(Path::new("services").id(u).lit("applications")),
                client.get(Path::new("services").id(u).lit("databases")),
            );
            Ok(ToolOutput::Json(
                json!({"applications": apps?, "databases": dbs?}),
            ))
        }
        "create" => create(args, ctx).await,
        "update" => update(args, ctx, uuid).await,
        "move" => move_service(args, ctx, uuid).await,
        "delete" => delete_service(args, ctx, uuid).await,
        "update_application" => update_application(args, ctx, uuid).await,
        act @ ("start_application" | "stop_application" | "restart_application") => {
            sub_app_lifecycle(args, ctx, uuid, act).await
        }
        other => Err(ToolError::Message(format!("Unknown action: {other}"))),
    }
}

async fn create(args: &Args, ctx: &CallCtx<'_>) -> ToolResult {
    if args.any_missing(&["server_uuid", "project_uuid"]) {
        return Ok(ToolOutput::guard(
            "Error: server_uuid, project_uuid required",
        ));
    }
    let body = compose_body(
        args,
        &[
            "project_uuid",
            "server_uuid",
            "type",
            "name",
            "description",
            "environment_name",
            "environment_uuid",
            "destination_uuid",
            "instant_deploy",
            "docker_compose_raw",
            "is_container_label_escape_enabled",
        ],
    );
    answer(
        ctx.client
            .write(HttpMethod::Post, Path::new("services"), Some(body))
            .await,
    )
}

async fn update(args: &Args, ctx: &CallCtx<'_>, uuid: Option<&str>) -> ToolResult {
    let Some(uuid) = uuid else {
        return Ok(ToolOutput::guard("Error: uuid required"));
    };
    let body = compose_body(
        args,
        &[
            "name",
            "description",
            "docker_compose_raw",
            "connect_to_docker_network",
            "instant_deploy",
            "is_container_label_escape_enabled",
        ],
    );
    if body.as_object().is_some_and(serde_json::Map::is_empty) {
        return Ok(ToolOutput::guard("Error: nothing to update"));
    }
    let path = Path::new("services").id(uuid);
    answer(ctx.client.write(HttpMethod::Patch, path, Some(body)).await)
}

/// The service's name for a dialog (its uuid when it has none), and the row.
async fn named_service(ctx: &CallCtx<'_>, uuid: &str) -> Result<(String, Value), String> {
    let svc = ctx
        .client
        .get(Path::new("services").id(uuid))
        .await
        .map_err(|e| e.message)?;
    let name = Some(str_of(&svc, "name"))
        .filter(|n| !n.is_empty())
        .unwrap_or(uuid)
        .to_string();
    Ok((name, svc))
}

async fn move_service(args: &Args, ctx: &CallCtx<'_>, uuid: Option<&str>) -> ToolResult {
    let (Some(uuid), Some(target)) = (uuid, args.nonempty("environment_uuid")) else {
        return Ok(ToolOutput::guard(
            "Error: uuid, environment_uuid required. Find the target environment_uuid with the `environments` tool.",
        ));
    };
    let summary = async {
        let (name, svc) = named_service(ctx, uuid).await?;
        let current = svc.get("environment_uuid").and_then(Value::as_str);
        Ok(Some(move_summary("service", &name, uuid, target, current)))
    };
    let path = Path::new("services").id(uuid).lit("move");
    let body = json!({"environment_uuid": target});
    let op = async { answer(ctx.client.write(HttpMethod::Post, path, Some(body)).await) };
    guarded(ctx, "Move a service to another environment.", summary, op).await
}

async fn delete_service(args: &Args, ctx: &CallCtx<'_>, uuid: Option<&str>) -> ToolResult {
    let Some(uuid) = uuid else {
        return Ok(ToolOutput::guard("Error: uuid required"));
    };
    let volumes = args.bool("delete_volumes");
    let summary = async {
        let (name, _) = named_service(ctx, uuid).await?;
        Ok(Some(delete_summary("service", &name, uuid, volumes)))
    };
    let path = Path::new("services")
        .id(uuid)
        .query_opt("delete_volumes", volumes.map(|b| b.to_string()));
    let op = async { answer(ctx.client.write(HttpMethod::Delete, path, None).await) };
    guarded(
        ctx,
        "Delete a service, and by default its persistent volumes.",
        summary,
        op,
    )
    .await
}

async fn update_application(args: &Args, ctx: &CallCtx<'_>, uuid: Option<&str>) -> ToolResult {
    let (Some(uuid), Some(app)) = (uuid, args.nonempty("app_uuid")) else {
        return Ok(ToolOutput::guard(SUB_APP_GUARD));
    };
    let body = args.pick(&[
        "url",
        "human_name",
        "description",
        "image",
        "exclude_from_status",
        "is_log_drain_enabled",
        "is_gzip_enabled",
        "is_stripprefix_enabled",
    ]);
    let path = Path::new("services")
        .id(uuid)
        .lit("applications")
        .id(app)
        .query_opt(
            "force_domain_override",
            args.bool("force_domain_override").map(|b| b.to_string()),
        );
    let op = async { answer(ctx.client.write(HttpMethod::Patch, path, Some(body)).await) };
    if !args.truthy("force_domain_override") {
        return op.await;
    }
    // Not sanitized, as in the reference: both ids come from the caller's arguments.
    let summary = format!(
        "Update sub-application {app} in service {uuid} with force_domain_override=true. This may pull a live domain off another resource."
    );
    guarded(
        ctx,
        "Override domain for service sub-application, potentially taking the domain from another resource.",
        fixed_summary(summary),
        op,
    )
    .await
}

async fn sub_app_lifecycle(
    args: &Args,
    ctx: &CallCtx<'_>,
    uuid: Option<&str>,
    action: &str,
) -> ToolResult {
    let (Some(uuid), Some(app)) = (uuid, args.nonempty("app_uuid")) else {
        return Ok(ToolOutput::guard(SUB_APP_GUARD));
    };
    let base = Path::new("services").id(uuid).lit("applications").id(app);
    let path = match action {
        "start_application" => base.lit("start").with_query(vec![
            ("force", args.bool("force").map(|b| b.to_string())),
            ("latest", args.bool("latest").map(|b| b.to_string())),
        ]),
        "stop_application" => base.lit("stop"),
        _ => base.lit("restart"),
    };
    answer(ctx.client.write(HttpMethod::Post, path, None).await)
}
