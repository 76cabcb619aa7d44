//! Team, cloud and instance-level tools: `teams`, `hetzner`, `system` (with the
//! guarded `disable_api`) and `tags`.
//!
//! Invariants: `system list_resources` returns the essential projection unless
//! `include_full`, and full rows are masked unless `reveal` (always-masked keys stay
//! masked); the Hetzner token uuid is query-encoded like `encodeURIComponent`.

use serde_json::{Map, Value, json};

use super::storage::collection;
use super::{Args, ToolError, ToolOutput, ToolResult, answer, fixed_summary, guarded};
use crate::backend::{ApiRequest, HttpMethod, Path};
use crate::call_ctx::CallCtx;
use crate::json::js_string;
use crate::sanitize::Reveal;

/// Run one `teams` action.
pub async fn teams(args: &Args, ctx: &CallCtx<'_>) -> ToolResult {
    let client = &ctx.client;
    let current = || Path::new("teams").lit("current");
    let by_id = |id: &Value| Path::new("teams").id(&js_string(id));
    let id = args.value("id").filter(|v| crate::projection::truthy(v));
    match (args.str("action").unwrap_or_default(), id) {
        ("list", _) => answer(client.get(Path::new("teams")).await),
        ("get_current", _) => answer(client.get(current()).await),
        ("get_current_members", _) => answer(client.get(current().lit("members")).await),
        ("get" | "get_members", None) => Ok(ToolOutput::guard("Error: id required")),
        ("get", Some(id)) => answer(client.get(by_id(id)).await),
        ("get_members", Some(id)) => answer(client.get(by_id(id).lit("members")).await),
        (other, _) => Err(ToolError::Message(format!("Unknown action: {other}"))),
    }
}

/// Run one `hetzner` action.
pub async fn hetzner(args: &Args, ctx: &CallCtx<'_>) -> ToolResult {
    let action = args.str("action").unwrap_or_default();
    if action == "create_server" {
        if args.any_missing(&["location", "server_type", "image", "private_key_uuid"]) {
            return Ok(ToolOutput::guard(
                "Error: location, server_type, image, private_key_uuid required",
            ));
        }
        let body = args.pick(&[
            "cloud_provider_token_uuid",
            "location",
            "server_type",
            "image",
            "name",
            "private_key_uuid",
            "enable_ipv4",
            "enable_ipv6",
            "hetzner_ssh_key_ids",
            "cloud_init_script",
            "instant_validate",
        ]);
        let path = Path::new("servers").lit("hetzner");
        return answer(ctx.client.write(HttpMethod::Post, path, Some(body)).await);
    }
    let kind = match action {
        "list_locations" => "locations",
        "list_server_types" => "server-types",
        "list_images" => "images",
        "list_ssh_keys" => "ssh-keys",
        other => return Err(ToolError::Message(format!("Unknown action: {other}"))),
    };
    let Some(token) = args.nonempty("cloud_provider_token_uuid") else {
        return Ok(ToolOutput::guard(
            "Error: cloud_provider_token_uuid required",
        ));
    };
    let path = Path::new("hetzner")
        .lit(kind)
        .query_component("cloud_provider_token_uuid", token);
    answer(ctx.client.get(path).await)
}

/// `{uuid, name, type, status?}` of a `/resources` row (`status` only when a string).
fn essential(row: &Value) -> Value {
    let mut out = Map::new();
    for k in ["uuid", "name", "type"] {
        if let Some(v) = row.get(k) {
            out.insert(k.into(), v.clone());
        }
    }
    if let Some(s) = row.get("status").filter(|s| s.is_string()) {
        out.insert("status".into(), s.clone());
    }
    Value::Object(out)
}

/// Run one `system` action.
pub async fn system(args: &Args, ctx: &CallCtx<'_>) -> ToolResult {
    let client = &ctx.client;
    match args.str("action").unwrap_or_default() {
        "health" => answer(client.get(Path::new("health")).await),
        "list_resources" => {
            let reveal = if args.bool("reveal") == Some(true) {
                Reveal::Plaintext
            } else {
                Reveal::Masked
            };
            let full = client
                .send(ApiRequest::get(Path::new("resources")), reveal)
                .await?;
            if args.bool("include_full") == Some(true) {
                return Ok(ToolOutput::Json(full));
            }
            match full.as_array() {
                Some(rows) => Ok(ToolOutput::Json(Value::Array(
                    rows.iter().map(essential).collect(),
                ))),
                None => Err(ToolError::Message("full.map is not a function".into())),
            }
        }
        "enable_api" => answer(client.post_with_get_fallback(Path::new("enable")).await),
        "disable_api" => {
            let summary = "Disable the Coolify API?\n\nEvery tool in this MCP server stops working immediately, including `enable_api`. Re-enabling it means logging into the Coolify UI by hand.".to_string();
            let op = async { answer(client.post_with_get_fallback(Path::new("disable")).await) };
            guarded(
                ctx,
                "Disable the Coolify API, which stops every tool in this server.",
                fixed_summary(summary),
                op,
            )
            .await
        }
        other => Err(ToolError::Message(format!("Unknown action: {other}"))),
    }
}

/// Run one `tags` action.
pub async fn tags(args: &Args, ctx: &CallCtx<'_>) -> ToolResult {
    let client = &ctx.client;
    let action = args.str("action").unwrap_or_default();
    let (resource, uuid) = (args.nonempty("resource"), args.nonempty("uuid"));
    if action == "list" && resource.is_none() && uuid.is_none() {
        return answer(client.get(Path::new("tags")).await);
    }
    let (Some(resource), Some(uuid)) = (resource, uuid) else {
        return Ok(ToolOutput::guard(
            "Error: resource and uuid are required, except for action=list with neither (which lists the current team's tags)",
        ));
    };
    let tags = Path::new(collection(resource)).id(uuid).lit("tags");
    match action {
        "list" => answer(client.get(tags).await),
        "attach" => {
            let names = args
                .value("tag_names")
                .filter(|n| n.as_array().is_some_and(|a| !a.is_empty()));
            let Some(names) = names else {
                return Ok(ToolOutput::guard("Error: tag_names required for attach"));
            };
            let body = json!({"tag_names": names});
            answer(client.write(HttpMethod::Post, tags, Some(body)).await)
        }
        "detach" => {
            let Some(tag) = args.nonempty("tag_uuid") else {
                return Ok(ToolOutput::guard("Error: tag_uuid required for detach"));
            };
            answer(client.write(HttpMethod::Delete, tags.id(tag), None).await)
        }
        other => Err(ToolError::Message(format!("Unknown action: {other}"))),
    }
}
