//! Mutating tools on single resources besides `application`: `control` and `env_vars`.
//! Parameter guards return the reference's fixed `Error: …` texts and make no
//! request.

use serde_json::{Value, json};

use super::{Args, ToolError, ToolOutput, ToolResult, envelope};
use crate::backend::{HttpMethod, Path};
use crate::call_ctx::CallCtx;
use crate::projection::{self as proj, action, truthy};
use crate::sanitize::MASK;

pub async fn control(args: &Args, ctx: &CallCtx<'_>) -> ToolResult {
    let resource = args.str("resource").unwrap_or("application");
    let act = match args.str("action") {
        Some("stop") => "stop",
        Some("restart") => "restart",
        _ => "start",
    };
    let uuid = args.str("uuid").unwrap_or_default();
    let coll = match resource {
        "database" => "databases",
        "service" => "services",
        _ => "applications",
    };
    let mut path = Path::new(coll).id(uuid).lit(act);
    if resource == "service" && act == "restart" && args.0.get("pull_latest").is_some_and(truthy) {
        path = path.query_opt("latest", Some("true".into()));
    }
    let result = ctx.client.write(HttpMethod::Post, path, None).await?;
    // An application start or restart is a Coolify deployment: as a task, it is followed.
    crate::follow::hand_over(ctx.follow, crate::follow::deployment_uuids(&result));
    let u = json!(uuid);
    let actions = match resource {
        "application" => {
            let mut a = vec![
                action(
                    "logs",
                    json!({"resource": "application", "uuid": u}),
                    "View logs",
                ),
                action("get_application", json!({"uuid": u}), "Check status"),
            ];
            if act == "start" || act == "restart" {
                a.push(action(
                    "control",
                    json!({"resource": "application", "action": "stop", "uuid": u}),
                    "Stop",
                ));
            } else {
                a.push(action(
                    "control",
                    json!({"resource": "application", "action": "start", "uuid": u}),
                    "Start",
                ));
            }
            a
        }
        "database" => vec![action("get_database", json!({"uuid": u}), "Check status")],
        _ => vec![action("get_service", json!({"uuid": u}), "Check status")],
    };
    Ok(envelope(ctx, result, actions, None))
}

fn has_returned_value(v: Option<&Value>) -> bool {
    matches!(v, Some(x) if !x.is_null() && x != MASK)
}

fn mask_row(mut row: Value, full: bool) -> Value {
    if let Some(m) = row.as_object_mut() {
        let had_real = m.contains_key("real_value");
        m.insert("value".into(), json!(MASK));
        if full && had_real {
            m.insert("real_value".into(), json!(MASK));
        }
    }
    row
}

/// `env_vars list`: masked rows, or the one revealed key.
async fn list_envs(
    args: &Args,
    ctx: &CallCtx<'_>,
    resource: &str,
    coll: &'static str,
) -> ToolResult {
    let uuid = args.str("uuid").unwrap_or_default();
    let key = args.str("key");
    let reveal = args.bool("reveal") == Some(true);
    let key_set = key.is_some_and(|k| !k.trim().is_empty());
    if reveal && !key_set {
        return Ok(ToolOutput::guard(
            "Error: reveal=true requires an exact key; refusing to return every environment variable",
        ));
    }
    let reveal_mode = if reveal {
        crate::sanitize::Reveal::Plaintext
    } else {
        crate::sanitize::Reveal::Masked
    };
    let raw = ctx
        .client
        .send(
            crate::backend::ApiRequest::get(Path::new(coll).id(uuid).lit("envs")),
            reveal_mode,
        )
        .await?;
    let rows = proj::as_array(&raw).to_vec();
    let rows: Vec<Value> = if resource == "application" && !(reveal && key_set) {
        rows.iter()
            .map(|r| {
                if reveal {
                    proj::pick(r, proj::APP_ENV)
                } else {
                    mask_row(proj::pick(r, proj::APP_ENV), false)
                }
            })
            .collect()
    } else if reveal {
        rows
    } else {
        rows.into_iter().map(|r| mask_row(r, true)).collect()
    };
    let filtered: Vec<Value> = match key {
        Some(k) if !k.is_empty() => rows
            .into_iter()
            .filter(|r| r.get("key").and_then(Value::as_str) == Some(k))
            .collect(),
        _ => rows,
    };
    if reveal
        && !filtered.is_empty()
        && filtered.iter().all(|r| {
            !has_returned_value(r.get("value")) && !has_returned_value(r.get("real_value"))
        })
    {
        return Err(ToolError::Message("Coolify did not return the requested environment variable value. The API or token does not support sensitive env-var reads; use a token with read:sensitive permission (and the required owner/admin role on newer Coolify versions).".into()));
    }
    Ok(ToolOutput::Json(Value::Array(filtered)))
}

pub async fn env_vars(args: &Args, ctx: &CallCtx<'_>) -> ToolResult {
    let resource = args.str("resource").unwrap_or("application");
    let act = args.str("action").unwrap_or("list");
    let uuid = args.str("uuid").unwrap_or_default();
    let key = args.str("key");
    let coll = match resource {
        "service" => "services",
        "database" => "databases",
        _ => "applications",
    };
    match act {
        "list" => list_envs(args, ctx, resource, coll).await,
        "create" | "update" => {
            let value = args.nonempty("value");
            let (Some(k), Some(v)) = (key.filter(|k| !k.is_empty()), value) else {
                return Ok(ToolOutput::guard("Error: key, value required"));
            };
            let mut b = json!({"key": k, "value": v});
            for f in ["is_buildtime", "is_runtime", "is_preview"] {
                if let Some(x) = args.value(f) {
                    b[f] = x.clone();
                }
            }
            let method = if act == "create" {
                HttpMethod::Post
            } else {
                HttpMethod::Patch
            };
            Ok(ToolOutput::Json(
                ctx.client
                    .write(method, Path::new(coll).id(uuid).lit("envs"), Some(b))
                    .await?,
            ))
        }
        "delete" => {
            let Some(env_uuid) = args.nonempty("env_uuid") else {
                return Ok(ToolOutput::guard("Error: env_uuid required"));
            };
            Ok(ToolOutput::Json(
                ctx.client
                    .write(
                        HttpMethod::Delete,
                        Path::new(coll).id(uuid).lit("envs").id(env_uuid),
                        None,
                    )
                    .await?,
            ))
        }
        "bulk_update" => {
            let Some(data) = args.value("data") else {
                return Ok(ToolOutput::guard("Error: data array required"));
            };
            let b = json!({"data": data});
            Ok(ToolOutput::Json(
                ctx.client
                    .write(
                        HttpMethod::Patch,
                        Path::new(coll).id(uuid).lit("envs").lit("bulk"),
                        Some(b),
                    )
                    .await?,
            ))
        }
        other => Err(ToolError::Message(format!("Unknown action: {other}"))),
    }
}
